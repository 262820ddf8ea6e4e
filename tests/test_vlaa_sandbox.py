"""guilab.vlaa.coding: the coding agent's sandbox fails inside and leaves the host untouched."""
import os, socket, threading, time

import psutil
import pytest

from guilab.vlaa.coding import namespaces_available, run_sandboxed

needs_ns = pytest.mark.skipif(not namespaces_available(), reason="unshare -rnm is not available here: network/file-system isolation not testable")


def _sleepers(marker: str):
    return [p for p in psutil.process_iter(["cmdline"]) if marker in " ".join(p.info["cmdline"] or [])]


def test_timeout_kills_the_whole_process_group(tmp_path):
    marker = "31.4159"
    t0 = time.monotonic()
    r = run_sandboxed(f"sleep {marker} & sleep {marker} & wait", tmp_path, language="bash", timeout=1)
    took = time.monotonic() - t0
    assert r["timed_out"] and r["returncode"] is None
    assert took < 4, f"returned after {took:.1f}s"
    time.sleep(0.3)
    assert _sleepers(marker) == [], "a grandchild survived the timeout"


def test_fork_bomb_like_python_children_die_too(tmp_path):
    code = "import subprocess, time\nfor _ in range(3): subprocess.Popen(['sleep', '27.1828'])\ntime.sleep(60)"
    r = run_sandboxed(code, tmp_path, timeout=1.5)
    assert r["timed_out"]
    time.sleep(0.3)
    assert _sleepers("27.1828") == []


@needs_ns
def test_host_loopback_unreachable_but_own_loopback_works(tmp_path):
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
    port = srv.getsockname()[1]
    threading.Thread(target=lambda: srv.accept(), daemon=True).start()
    code = (f"import socket\ns = socket.socket(); s.settimeout(2)\n"
            f"try:\n    s.connect(('127.0.0.1', {port})); print('HOST-REACHED')\nexcept OSError as e: print('blocked', e)\n"
            "a = socket.socket(); a.bind(('127.0.0.1', 0)); a.listen(1)\n"
            "b = socket.create_connection(a.getsockname(), timeout=2); print('own-loopback-ok')\n")
    r = run_sandboxed(code, tmp_path)
    srv.close()
    assert "HOST-REACHED" not in r["stdout"] and "blocked" in r["stdout"], r
    assert "own-loopback-ok" in r["stdout"], r
    assert r["isolation"]["network"].startswith("namespace")


@needs_ns
def test_writes_outside_the_workspace_fail(tmp_path):
    ws, outside = tmp_path / "ws", tmp_path / "outside.txt"
    ws.mkdir()
    code = (f"open('inside.txt', 'w').write('ok')\n"
            f"try:\n    open({str(outside)!r}, 'w').write('escaped'); print('ESCAPED')\nexcept OSError as e: print('refused', e.errno)\n")
    r = run_sandboxed(code, ws)
    assert "ESCAPED" not in r["stdout"] and "refused" in r["stdout"], r
    assert not outside.exists()
    assert (ws / "inside.txt").read_text() == "ok"


def test_memory_cap(tmp_path):
    r = run_sandboxed("x = bytearray(2_000_000_000); print('ALLOCATED')", tmp_path, mem_mb=256)
    assert "ALLOCATED" not in r["stdout"] and r["returncode"] not in (0, None)
    assert "MemoryError" in r["stderr"]


def test_api_keys_never_reach_the_sandbox(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-guilab-test-0123456789")
    r = run_sandboxed("import os; print(dict(os.environ))", tmp_path)
    assert "sk-guilab-test" not in r["stdout"] and "OPENAI_API_KEY" not in r["stdout"]
    r = run_sandboxed("env; cat /proc/$PPID/environ 2>/dev/null | tr '\\0' '\\n'", tmp_path, language="bash")
    assert "sk-guilab-test" not in r["stdout"]
