"""Exploring in JupyterLab leaves no diff (issue 17): a notebook of nbs/ saved through a real Jupyter server is written
nbdev-clean by the pre-save hook `make setup` installs (guilab.reproduce.clean_on_save)."""
import json, urllib.request
from pathlib import Path
import pytest
from conftest import ROOT


def test_setup_installs_the_pre_save_hook():
    from jupyter_server.serverapp import ServerApp
    from guilab.reproduce import clean_on_save
    app = ServerApp(); app.load_config_file()
    assert app.config.ContentsManager.pre_save_hook is clean_on_save, "make setup did not install the Jupyter pre-save hook"


def test_saving_from_a_real_server_writes_the_committed_text():
    from guilab.browser import start_jupyterlab
    src = ROOT/"nbs"/"04_regions.ipynb"
    committed = json.loads(src.read_text(encoding="utf-8"))
    edited = json.loads(src.read_text(encoding="utf-8"))        # what JupyterLab sends after a run: its display name, counts
    edited["metadata"]["kernelspec"]["display_name"] = "Python 3 (guilab)"
    for k, c in enumerate(c for c in edited["cells"] if c["cell_type"] == "code"): c["execution_count"] = k + 1
    probe = ROOT/"nbs"/"_save_hook_probe.ipynb"                  # leading "_": never exported or tested by nbdev
    try:
        with start_jupyterlab(root_dir=ROOT) as (url, token, _):
            body = json.dumps({"type": "notebook", "format": "json", "content": edited}).encode()
            req = urllib.request.Request(f"{url}api/contents/nbs/{probe.name}", data=body, method="PUT",
                                         headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as r: assert r.status in (200, 201)
        saved = json.loads(probe.read_text(encoding="utf-8"))
    finally:
        probe.unlink(missing_ok=True)
    assert saved["metadata"]["kernelspec"]["display_name"] == "python3"
    assert saved["cells"] == committed["cells"]
    assert saved["metadata"] == committed["metadata"]
