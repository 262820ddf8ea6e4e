"""JsonlWriter survives a real SIGKILL mid-run: the resumed run loses and duplicates nothing."""
import json, os, signal, subprocess, sys, textwrap, time
from guilab.core import read_jsonl, load_params, ParamsError
import pytest

WORKER = textwrap.dedent('''
    import sys, time
    from guilab.core import JsonlWriter
    path, n = sys.argv[1], int(sys.argv[2])
    with JsonlWriter(path) as w:
        for i in range(n):
            if i in w: continue
            w.write({"id": i, "square": i * i, "pad": "x" * 2000})
            time.sleep(0.002)
''')


def test_sigkill_then_resume(tmp_path):
    out, script = tmp_path / "res.jsonl", tmp_path / "w.py"
    script.write_text(WORKER)
    p = subprocess.Popen([sys.executable, str(script), str(out), "400"])
    deadline = time.time() + 30
    while time.time() < deadline and (not out.exists() or out.stat().st_size < 50_000): time.sleep(0.01)
    p.send_signal(signal.SIGKILL); p.wait()
    # simulate the worst case too: a partial line at the tail
    with open(out, "a") as f: f.write('{"id": 99999, "squ')
    first = read_jsonl(out)
    assert 0 < len(first) < 400
    subprocess.run([sys.executable, str(script), str(out), "400"], check=True)
    recs = read_jsonl(out)
    assert [r["id"] for r in recs] == list(range(400))
    assert all(r["square"] == r["id"] ** 2 for r in recs)
    assert out.read_bytes().endswith(b"\n")


def test_params_errors_name_the_file(tmp_path):
    (tmp_path / "a.yaml").write_text("include: missing.yaml\n")
    with pytest.raises(ParamsError, match="missing.yaml"): load_params(tmp_path / "a.yaml")
    (tmp_path / "b.yaml").write_text("- not a mapping\n")
    with pytest.raises(ParamsError, match="mapping"): load_params(tmp_path / "b.yaml")
    (tmp_path / "c.yaml").write_text("x: 1\n")
    with pytest.raises(ParamsError, match="key=value"): load_params(tmp_path / "c.yaml", ["x"])


def test_repo_params_files_load(root):
    for name in ("default", "smoke", "full"):
        p = load_params(root / "params" / f"{name}.yaml")
        assert p["scale"] == name and "seed" in p and p["out_dir"] == "figures"
