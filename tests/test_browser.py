"""guilab.browser: a real JupyterLab server driven by headless Chromium (docs/records.md#inputs-models-and-scale real-app capture)."""
import json, os, socket, time, urllib.request

import psutil
import pytest
from PIL import Image

from guilab.browser import (BUSY_SELECTOR, CHROMIUM, FETCH_COUNTER_JS, NOTIFICATION_SETTINGS, SETTLE_JS, browser_page,
                            chromium_available, server_call, start_jupyterlab)

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not chromium_available(), reason=f"Chromium not found at {CHROMIUM} (install it with "
                                 "`apt-get install chromium`; `make setup` does) or playwright missing")]


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_jupyterlab_launcher_screenshot_and_clean_shutdown(tmp_path):
    with start_jupyterlab() as (url, token, proc):
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        assert url.startswith("http://127.0.0.1:") and len(token) >= 32
        req = urllib.request.Request(url + "api/status", headers={"Authorization": f"token {token}"})
        assert "started" in json.loads(urllib.request.urlopen(req, timeout=10).read())
        # the token is required: without it the API refuses
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(url + "api/contents", timeout=10)
        # the server's settings disable the news / update popup
        req = urllib.request.Request(url + "lab/api/settings/@jupyterlab/apputils-extension:notification",
                                     headers={"Authorization": f"token {token}"})
        settings = json.loads(urllib.request.urlopen(req, timeout=10).read())["settings"]
        assert settings["fetchNews"] == NOTIFICATION_SETTINGS["fetchNews"] == "false" and settings["checkForUpdates"] is False
        # the demo root is served
        req = urllib.request.Request(url + "api/contents", headers={"Authorization": f"token {token}"})
        names = {c["name"] for c in json.loads(urllib.request.urlopen(req, timeout=10).read())["content"]}
        assert {"analysis.ipynb", "README.md", "data", "experiments"} <= names
        with browser_page() as page:
            page.add_init_script(FETCH_COUNTER_JS)   # so that "quiet" includes "no request to the server in flight"
            page.goto(f"{url}lab?token={token}")
            page.wait_for_selector(".jp-LauncherCard", timeout=90000)
            # without the profile's settings the news toast shows once the app has restored and asked the server:
            # wait until the page is quiet (no fetch in flight, no DOM change for 1 s), not a fixed time
            assert page.evaluate(SETTLE_JS, [1000, 60000, BUSY_SELECTOR])["quiet"]
            assert page.locator(".Toastify__toast").count() == 0, "announcement / news popup is shown"
            # start a kernel so that shutdown must also end it: wait until the server runs it, idle
            page.locator(".jp-LauncherCard").first.click()
            page.wait_for_selector(".jp-NotebookPanel", timeout=60000)
            deadline = time.monotonic() + 90
            while not [k for k in server_call(url, token, "/api/kernels") if k["execution_state"] == "idle"]:
                assert time.monotonic() < deadline, "no idle kernel within 90 s"
                page.wait_for_timeout(100)   # poll the server's kernel list
            shot = tmp_path / "launcher.png"
            page.screenshot(path=str(shot))
        with Image.open(shot) as im:
            assert im.size == (3840, 2160)
            assert im.convert("L").getextrema()[1] - im.convert("L").getextrema()[0] > 100   # not a blank page
        kids = psutil.Process(proc.pid).children(recursive=True)
        assert any("ipykernel" in " ".join(k.cmdline()) for k in kids), "no kernel process was started"
    assert proc.poll() is not None, "JupyterLab still running after the context exited"
    assert not _port_open(port)
    assert not [k for k in kids if k.is_running() and k.status() != psutil.STATUS_ZOMBIE], "kernel processes survived"


def test_start_failure_is_reported_with_the_log(tmp_path):
    # a port that is taken: the server exits (port_retries=0) and the error carries its log
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); s.listen(1)
        port = s.getsockname()[1]
        with pytest.raises(RuntimeError, match="JupyterLab"):
            with start_jupyterlab(port=port, timeout=60):
                pass
