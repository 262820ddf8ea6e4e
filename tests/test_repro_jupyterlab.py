"""Reproduction notebooks run from JupyterLab as they run under papermill (issue 33): JupyterLab starts a notebook's
kernel in the notebook's folder (`nbs/repro`), where `params/smoke.yaml`, `figures/` and the params' own relative paths
do not exist; each notebook calls `guilab.core.chdir_project_root` first, so they resolve from the repository root.
A real JupyterLab server (guilab.browser.start_jupyterlab, rooted at this checkout) runs one notebook through its
REST and kernel websocket APIs, cell by cell, as a user who pressed "Run All" with the parameters cell edited."""
import json, re, shutil, subprocess, sys, time, urllib.request, uuid
from pathlib import Path
import pytest
from conftest import ROOT

NOTEBOOK = "nbs/repro/00_reported.ipynb"   # the fastest reproduction notebook (reads params/reported, writes tables)


def _rest(url, token, path, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url.rstrip("/") + path, method=method, data=data,
                                 headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r: return json.loads(r.read() or b"null")


def _execute(ws, session: str, code: str, timeout: float = 600) -> dict:
    "Run `code` in the kernel behind websocket `ws`; {'status', 'stdout', 'error'} once the kernel is idle again."
    mid = uuid.uuid4().hex
    ws.send(json.dumps({"header": {"msg_id": mid, "username": "test", "session": session, "msg_type": "execute_request",
                                   "version": "5.3"},
                        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                        "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                                    "allow_stdin": False, "stop_on_error": True}}))
    out, err, status, idle, t0 = [], "", None, False, time.monotonic()
    while status is None or not idle:
        if time.monotonic() - t0 > timeout: raise TimeoutError(f"cell did not finish in {timeout} s:\n{code[:300]}")
        m = json.loads(ws.recv())
        if m.get("parent_header", {}).get("msg_id") != mid: continue
        t, c = m["msg_type"], m["content"]
        if t == "stream": out.append(c["text"])
        elif t == "error": err = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(c["traceback"]))   # no terminal colours
        elif t == "execute_reply": status = c["status"]
        elif t == "status" and c["execution_state"] == "idle": idle = True
    return {"status": status, "stdout": "".join(out), "error": err}


def test_repro_notebook_runs_in_jupyterlab_from_its_own_folder():
    websocket = pytest.importorskip("websocket")   # websocket-client (a jupyter_server dependency)
    from guilab.browser import start_jupyterlab
    rel_out = f"runs/test-jupyterlab-{uuid.uuid4().hex[:8]}"   # relative: must land under the repo root
    t0 = time.monotonic()
    try:
        with start_jupyterlab(root_dir=ROOT) as (url, token, proc):
            nb = _rest(url, token, f"/api/contents/{NOTEBOOK}")["content"]             # as JupyterLab opens it
            s = _rest(url, token, "/api/sessions", "POST", {"path": NOTEBOOK, "type": "notebook", "name": "00_reported",
                                                             "kernel": {"name": "python3"}})
            ws = websocket.create_connection(f"{url.replace('http', 'ws', 1)}api/kernels/{s['kernel']['id']}/channels",
                                             header=[f"Authorization: token {token}"], timeout=600)
            try:
                probe = _execute(ws, s["id"], "import os, guilab.core; print(os.getcwd()); print(guilab.core.__file__)")
                cwd, lib = probe["stdout"].split()
                assert Path(cwd) == ROOT / "nbs" / "repro", probe            # the case of the issue: not the repo root
                assert Path(lib).is_relative_to(ROOT / "lib"), probe          # this checkout's guilab
                ran = 0
                for cell in nb["cells"]:
                    if cell["cell_type"] != "code": continue
                    r = _execute(ws, s["id"], cell["source"])
                    assert r["status"] == "ok", f"cell {ran} failed:\n{cell['source'][:400]}\n{r['error'][-3000:]}"
                    ran += 1
                    if "parameters" in cell["metadata"].get("tags", []):      # the user's edit, as papermill injects it
                        edit = f'params = "params/smoke.yaml"\nout_dir = "{rel_out}"\noverrides = "seed=1"'
                        r = _execute(ws, s["id"], edit)
                        assert r["status"] == "ok", r
                check = _execute(ws, s["id"], "import os; print(os.getcwd()); print(P['scale'], P['seed'])")
            finally:
                ws.close()
        assert check["stdout"].split() == [str(ROOT), "smoke", "1"], check
        out = ROOT / rel_out
        assert (out / "reported" / "pager.md").is_file() and "4906" in (out / "reported" / "pager.csv").read_text()
        assert not (ROOT / "nbs" / "repro" / "runs").exists() and not (ROOT / "nbs" / "repro" / "params").exists()
        print(f"JupyterLab run of {NOTEBOOK} at smoke scale: {ran} cells, "
              f"{time.monotonic() - t0:.1f} s with the server's start")
    finally:
        shutil.rmtree(ROOT / rel_out, ignore_errors=True)


def test_papermill_from_the_notebook_folder_with_a_string_override(tmp_path):
    """`papermill 00_reported.ipynb ... -p overrides "seed=1"` run from `nbs/repro`: papermill passes the override as
    a string (it failed with "override 's' is not key=value") and the kernel starts in `nbs/repro` too."""
    papermill = str(Path(sys.executable).with_name("papermill"))
    out = tmp_path / "figures"
    def run(name, override):
        return subprocess.run([papermill, "00_reported.ipynb", str(tmp_path / name), "-p", "params",
                               "params/smoke.yaml", "-p", "out_dir", str(out), "-p", "overrides", override,
                               "-k", "python3", "--no-progress-bar"],
                              cwd=ROOT / "nbs" / "repro", capture_output=True, text=True, timeout=600)
    r = run("executed.ipynb", "seed=1")
    assert r.returncode == 0, r.stderr[-3000:]
    assert (out / "reported" / "pager.md").is_file()
    r = run("bad.ipynb", "seed=abc")
    assert r.returncode != 0 and "seed: expected int, got 'abc'" in r.stderr + r.stdout, r.stderr[-3000:]
