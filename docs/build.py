"""Build guilab's documentation site offline: `make docs` (or `.venv/bin/python docs/build.py [OUT]`).

Sphinx with MyST-NB and the Furo theme, all from PyPI, nothing fetched at build time. The site is staged in
`_docs/src` (git-ignored) from what the repository already holds, then built into `_docs/html` (or OUT):

- `index`: the README, its links to `docs/*.md` made site links;
- the guides: every `docs/*.md`;
- `api/…`: every library notebook of `nbs/` (not `nbs/repro/`) as a page, its numeric prefix dropped
  (`nbs/agents/00_base.ipynb` → `api/agents/base.html`): the prose, each exported definition with its docments
  (the signature), the example and the test after it. Not executed here: `make test` runs them (`nbdev-test`);
- `repro/…`: the executed reproduction notebooks of the run of record (`figures/notebooks/*.ipynb`), outputs included;
- `gallery/`: `figures/` as committed (the gallery `index.html`, its tables and figures), copied as it is.

Links that leave the site (a file of the repository that is no page) point at the file in the repository's tree
relative to the site, so a reader of the built site on disk still reaches it.
"""
import re, shutil, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUIDES = ["getting-started", "evaluate", "gpus-and-endpoints", "metrics", "what-an-agent-may-see", "claims", "parts",
          "records", "notes", "performance", "architecture", "endpoint_errors"]


def page_name(nb: Path) -> str:
    "`nbs/agents/00_base.ipynb` → `agents/base` (nbdev's page names: the numeric prefix dropped)."
    rel = nb.relative_to(ROOT / "nbs").with_suffix("")
    return "/".join(re.sub(r"^\d+[a-z]?_", "", p) for p in rel.parts)


def site_links(text: str, here: str) -> str:
    """Markdown links of a page at `here` (`index` or `docs`) rewritten for the site: `docs/x.md` and `x.md` stay
    pages, `README.md` is the index, `figures/…` the gallery's copy, any other repository path a link into
    the repository (`../../<path>` from `_docs/html`)."""
    def rep(m):
        label, target = m.group(1), m.group(2)
        if re.match(r"^[a-z]+:", target) or target.startswith("#"): return m.group(0)
        path, hash_, anchor = target.partition("#")
        full = (ROOT / ("docs" if here == "docs" else "") / path).resolve()
        try: rel = full.relative_to(ROOT).as_posix()
        except ValueError: return m.group(0)
        if rel == "README.md": new = "index.md"
        elif rel in ("CONTRIBUTING.md", "CHANGELOG.md"): new = rel.lower()
        elif rel.startswith("docs/") and rel.endswith(".md"): new = rel[len("docs/"):]
        elif rel.startswith("figures/"):   # the gallery's copy is no page of the site: a plain HTML link
            return f'<a href="gallery/{rel[len("figures/"):]}{hash_}{anchor}">{label}</a>'
        else: return f"[{label}](../../{rel}{hash_}{anchor})"   # the repository's file, beside the built site
        return f"[{label}]({new}{hash_}{anchor})"
    return re.sub(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)", rep, text)


PERF_BEGIN, PERF_END = "<!-- stages:begin (written by docs/build.py from figures/manifest.json; tests/test_docs.py checks it) -->", "<!-- stages:end -->"


def stages_block(man: dict) -> str:
    """The run of record's stages from its manifest: the run, commit and params, each lane's busy time, the wall time
    and utilisation (`guilab.reproduce.lane_summary`), then one row per stage (lane, minutes, of them building caches:
    trained models and evaluation records, `built_s`), in each lane's order."""
    from guilab.reproduce import lane_summary, stages_commit_text
    runs = man.get("notebooks", {})
    run_ids = {e.get("run") for e in runs.values() if not e.get("reused")}
    names = [n for n, e in runs.items() if e.get("run") in run_ids and e.get("started")]
    ahead = {m: a for m, a in (man.get("ahead") or {}).items() if a.get("run") in run_ids}
    lanes = lane_summary(runs, names, ahead)
    head = (f"Run {', '.join(sorted(r for r in run_ids if r))} ({man.get('created', '?')}), {stages_commit_text(man)}, "
            f"params `{man.get('params_file', '?')}`: **{lanes['wall_s'] / 60:.1f} min** wall, "
            + "; ".join(f"{ln} lane {lanes[ln]['busy_s'] / 60:.1f} min busy ({len(lanes[ln]['stages'])} stages)" for ln in ("cpu", "browser") if ln in lanes)
            + f"; utilisation {lanes['utilisation']:.0%}.")
    rows = ["| stage | lane | minutes | of them building | status |", "|---|---|---:|---:|---|"]
    for n in sorted(names, key=lambda n: (runs[n].get("lane", ""), runs[n]["started"])):
        e = runs[n]
        rows.append(f"| {n} | {e.get('lane', '?')} | {e['seconds'] / 60:.1f} | {(e.get('built_s') or 0) / 60:.1f} | {e.get('status', '?')} |")
    return "\n".join([head, "", *rows, "", "![the lanes of the run of record](../figures/reproduce_lanes.png)"])


def update_performance_page(page: Path = ROOT / "docs" / "performance.md", manifest: Path = ROOT / "figures" / "manifest.json") -> bool:
    "Rewrite the block between `PERF_BEGIN` and `PERF_END` of `page` from `manifest`; True when the page changed."
    import json
    t = page.read_text(encoding="utf-8")
    i, j = t.index(PERF_BEGIN), t.index(PERF_END)
    new = t[: i + len(PERF_BEGIN)] + "\n" + stages_block(json.loads(manifest.read_text(encoding="utf-8"))) + "\n" + t[j:]
    if new != t: page.write_text(new, encoding="utf-8")
    return new != t


def api_page(nb: Path, dst: Path) -> None:
    """Copy a library notebook for its API page without nbdev's directives (`#| export`, `#| default_exp …`): a
    reader sees the definition, its docments, the example and the test; a cell left empty is dropped."""
    import json
    d = json.loads(nb.read_text(encoding="utf-8")); cells = []
    for c in d["cells"]:
        if c["cell_type"] == "code":
            src = [l for l in c["source"] if not l.lstrip().startswith("#|")]
            if not "".join(src).strip(): continue
            c = {**c, "source": src}
        cells.append(c)
    dst.write_text(json.dumps({**d, "cells": cells}, ensure_ascii=False), encoding="utf-8")


def stage(src: Path) -> None:
    "Write the site's sources into `src` (replaced)."
    if src.exists(): shutil.rmtree(src)
    (src / "api").mkdir(parents=True)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    readme = re.sub(r"!\[([^\]]*)\]\(figures/", r"![\1](_extra/gallery/", readme)   # the figure on the front page
    (src / "index.md").write_text(site_links(readme, "index") + "\n\n```{toctree}\n:hidden:\n:caption: Guides\n\n"
                                  + "\n".join(GUIDES) + "\n```\n\n```{toctree}\n:hidden:\n:caption: Reference\n\napi/index\nrepro/index\n```\n"
                                  "\n```{toctree}\n:hidden:\n:caption: Project\n\ncontributing\nchangelog\n```\n", encoding="utf-8")
    for f in ("CONTRIBUTING.md", "CHANGELOG.md"):
        (src / f.lower()).write_text(site_links((ROOT / f).read_text(encoding="utf-8"), "index"), encoding="utf-8")
    for g in GUIDES:
        text = re.sub(r"!\[([^\]]*)\]\(\.\./figures/", r"![\1](_extra/gallery/", (ROOT / "docs" / f"{g}.md").read_text(encoding="utf-8"))
        (src / f"{g}.md").write_text(site_links(text, "docs"), encoding="utf-8")
    lib = sorted(p for p in (ROOT / "nbs").rglob("*.ipynb") if "repro" not in p.parts and ".ipynb_checkpoints" not in p.parts)
    names = []
    for nb in lib:
        name = page_name(nb); names.append(name)
        (src / "api" / name).parent.mkdir(parents=True, exist_ok=True)
        api_page(nb, src / "api" / f"{name}.ipynb")
    (src / "api" / "index.md").write_text("# Library API\n\nThe notebooks of `nbs/` in reading order: each exported definition with "
                                          "its parameters, an example and a test.\n\n```{toctree}\n:maxdepth: 1\n\n" + "\n".join(names) + "\n```\n",
                                          encoding="utf-8")
    (src / "repro").mkdir()
    runs = sorted((ROOT / "figures" / "notebooks").glob("*.ipynb"))
    for nb in runs:
        if not nb.name.startswith("."): shutil.copy2(nb, src / "repro" / nb.name)
    (src / "repro" / "index.md").write_text("# Reproduction notebooks (run of record)\n\nEach notebook of `nbs/repro/` as the "
                                            "run of record executed it, outputs included; the <a href=\"../gallery/index.html\">gallery</a> "
                                            "sets their tables and figures beside the seeds' numbers.\n\n```{toctree}\n:maxdepth: 1\n\n"
                                            + "\n".join(n.stem for n in runs if not n.name.startswith(".")) + "\n```\n", encoding="utf-8")
    shutil.copytree(ROOT / "figures", src / "_extra" / "gallery", ignore=shutil.ignore_patterns(".*"))
    shutil.copy2(ROOT / "docs" / "conf.py", src / "conf.py")


def build(out: Path | None = None) -> Path:
    "Stage and build; returns the html folder. Raises `subprocess.CalledProcessError` when Sphinx fails."
    src, out = ROOT / "_docs" / "src", Path(out) if out else ROOT / "_docs" / "html"
    update_performance_page()   # the stage table of the committed run of record
    stage(src)
    subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", "auto", str(src), str(out)], check=True)
    return out


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else None) / "index.html")
