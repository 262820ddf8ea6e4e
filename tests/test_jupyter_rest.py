"""One REST helper and one reset for every Jupyter server guilab drives (issue 35, item 4): names the contents API
reserves for other routes (jupyter-server/jupyter_server#58) are ordinary file and folder names to guilab.
A real server, no browser. Skipped without JupyterLab."""
import types

import pytest

pytest.importorskip("jupyterlab", reason="jupyterlab is not installed (pip install 'guilab[dev]')")
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from guilab.browser import start_jupyterlab, write_demo_root
    root = write_demo_root(tmp_path_factory.mktemp("jrest") / "root")
    with start_jupyterlab(root_dir=root) as (url, token, proc):
        yield types.SimpleNamespace(url=url, token=token, root=root)


def _put(root, rel, text="x"):
    p = root / rel; p.parent.mkdir(parents=True, exist_ok=True); p.write_text(text)


def test_listing_of_a_folder_named_checkpoints(server):
    """`runs/checkpoints/x.txt`: the listing helper used to ask /api/contents/runs/checkpoints, which the server
    answers with the checkpoint list of `runs` (a JSON list), and crashed on it."""
    from guilab.vlaa.checkers import get_listing
    _put(server.root, "runs/checkpoints/x.txt"); _put(server.root, "checkpoints/a.txt")
    (server.root / "trust").mkdir(exist_ok=True)
    assert get_listing(server, {"path": "runs/checkpoints"}) == ["x.txt"]
    assert get_listing(server, {"path": "checkpoints"}) == ["a.txt"]     # a root folder of that name (was 200 + a list)
    assert get_listing(server, {"path": "trust"}) == []                       # (was HTTP 405)
    assert {"checkpoints/", "trust/", "runs/"} <= set(get_listing(server, {"path": ""}))


def test_one_reset_with_reserved_names_in_the_root(server):
    """The server reset (BrowserEnv's and the UTG explorer's, one function) with root folders `checkpoints` and
    `trust`: it used to fail with HTTP 405 deleting them through the contents API; the root is back to its baseline."""
    from guilab.browser import reset_server_state, server_call, snapshot_files, write_demo_root
    import tempfile
    from pathlib import Path
    base = snapshot_files(write_demo_root(Path(tempfile.mkdtemp()) / "demo"))
    for rel in ("checkpoints/a.txt", "trust/b.txt", "runs/checkpoints/x.txt", "README.md"):
        _put(server.root, rel, "changed")
    kid = server_call(server.url, server.token, "/api/kernels", "POST", {"name": "python3"})["id"]
    reset_server_state(server.url, server.token, root=server.root, baseline=base)
    assert snapshot_files(server.root) == base
    assert server_call(server.url, server.token, "/api/kernels") == []
    assert server_call(server.url, server.token, f"/api/kernels/{kid}", missing_ok=True) is None


def test_the_explorer_and_browser_env_use_the_one_reset():
    """No second REST helper or reset is left: the UTG explorer's reset and BrowserEnv's reset call
    `reset_server_state`, the checkers and BrowserEnv build contents paths with `contents_url`."""
    import inspect
    from guilab import browser
    from guilab.stability import explore
    from guilab.vlaa import checkers
    assert "reset_server_state(" in inspect.getsource(explore.JupyterLabApp.rest_reset)
    assert "reset_server_state(" in inspect.getsource(browser.BrowserEnv._do_reset)
    assert [inspect.getsource(m).count("urlopen(") for m in (browser, explore, checkers)] == [1, 0, 0]   # server_call's
