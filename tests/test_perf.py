"""`guilab perf`: the speed benchmarks run from the command line in quick mode and write figures/perf.md's table;
the library never imports them. Nothing here asserts on time (speed is what `guilab perf` reports, not a test)."""
import re, subprocess
import grimp
from conftest import GUILAB


def test_guilab_perf_quick_writes_the_table(tmp_path):
    out = tmp_path / "perf.md"
    r = subprocess.run([GUILAB, "perf", "--quick", "--only", "core:", "geo.kernel", "pagebench.metrics", "--out", str(out)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    text = out.read_text()
    assert text.startswith("# guilab perf\n") and "quick mode" in text
    assert "| part | benchmark | value | unit | goal | meets goal | wall s | measured | error |" in text
    rows = [l.split("|")[1:-1] for l in text.splitlines() if re.match(r"\| (core|geo\.kernel|pagebench\.metrics) \|", l)]
    got = {(c[0].strip(), c[1].strip()) for c in rows}
    assert got == {("core", "JsonlWriter append+fsync"), ("core", "read_jsonl"),
                   ("geo.kernel", "build mixed 29-command construction"),
                   ("geo.kernel", "move free point (recomputes 20 commands)"), ("geo.kernel", "move free point"),
                   ("pagebench.metrics", "score 22,450 actions"), ("pagebench.metrics", "score throughput")}, got
    assert all(c[8].strip() == "" and c[2].strip() != "failed" for c in rows), rows   # no error column filled
    assert "could not be imported" not in text
    assert "pinned to CPU" in text or "not pinned" in text


def test_old_bench_command_is_gone(tmp_path):
    r = subprocess.run([GUILAB, "bench"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and "invalid choice" in r.stderr


def test_the_library_never_imports_the_benchmarks():
    g = grimp.build_graph("guilab", cache_dir=None)
    perf = {m for m in g.modules if m == "guilab.perf" or m.startswith("guilab.perf.")}
    importers = {i for m in perf for i in g.find_modules_that_directly_import(m)}
    assert importers - perf <= {"guilab.cli"}, sorted(importers - perf)


def test_only_keeps_the_other_rows_and_refuses_a_file_it_cannot_merge_before_running(tmp_path):
    out = tmp_path / "perf.md"
    for only in (["core:"], ["geo.kernel"]):
        r = subprocess.run([GUILAB, "perf", "--quick", "--no-pin", "--only", *only, "--out", str(out)], capture_output=True, text=True, cwd=tmp_path)
        assert r.returncode == 0, r.stdout + r.stderr
    parts = {l.split("|")[1].strip() for l in out.read_text().splitlines() if re.match(r"\| (core|geo\.kernel) \|", l)}
    assert parts == {"core", "geo.kernel"}, out.read_text()     # the second --only kept the first one's rows
    assert (tmp_path / "perf.json").is_file()
    old = tmp_path / "old.md"; old.write_text("# guilab perf\n\n| part | benchmark |\n")   # a perf.md from before perf.json
    r = subprocess.run([GUILAB, "perf", "--quick", "--no-pin", "--only", "core:", "--out", str(old)], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and "no old.json beside it" in r.stderr, r.stdout + r.stderr
    assert old.read_text() == "# guilab perf\n\n| part | benchmark |\n" and "JsonlWriter" not in r.stdout   # untouched, nothing ran
