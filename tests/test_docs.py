"""The documentation site (`make docs`: docs/build.py, Sphinx + MyST-NB, offline): it builds from a clone, every page
opens in Chromium without a page error or a failed request, and every internal link resolves (the file, and the
anchor in it)."""
import re, sys, urllib.parse
from html.parser import HTMLParser
from pathlib import Path
import pytest
from conftest import ROOT
from guilab.browser import chromium_available

sys.path.insert(0, str(ROOT / "docs"))
import build as docs_build   # docs/build.py


@pytest.fixture(scope="module")
def site():
    "The site built into _docs/html (where `make docs` puts it: links into the repository resolve from there)."
    return docs_build.build()


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)


class _Links(HTMLParser):
    "The href and src attributes of a page's elements (not text that looks like one, as in a code listing)."
    def __init__(self):
        super().__init__(); self.urls, self.ids = set(), set()
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src") and v: self.urls.add(v)
            if k == "id" and v: self.ids.add(v)


def _parse(page: Path) -> _Links:
    p = _Links(); p.feed(page.read_text(encoding="utf-8", errors="replace")); return p


def _ids(page: Path) -> set:
    return _parse(page).ids


def test_site_has_every_page(site):
    names = {p.relative_to(site).as_posix() for p in _pages(site)}
    want = {"index.html", "getting-started.html", "evaluate.html", "metrics.html", "claims.html", "performance.html",
            "architecture.html", "api/index.html", "api/agents/base.html", "api/bench/bench.html", "repro/index.html",
            "repro/gracebench.html", "gallery/index.html", "contributing.html", "changelog.html"}
    assert want <= names, want - names
    n_lib = sum(1 for p in (ROOT / "nbs").rglob("*.ipynb") if "repro" not in p.parts)
    assert sum(n.startswith("api/") and n != "api/index.html" for n in names) == n_lib
    assert sum(n.startswith("repro/") and n != "repro/index.html" for n in names) == len(list((ROOT / "figures" / "notebooks").glob("[!.]*.ipynb")))


def test_performance_page_holds_the_manifests_stages():
    "docs/performance.md's stage table is the committed run of record's (`make docs` rewrites it after a new run)."
    import json
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    block = page.split(docs_build.PERF_BEGIN, 1)[1].split(docs_build.PERF_END, 1)[0].strip()
    man = json.loads((ROOT / "figures" / "manifest.json").read_text(encoding="utf-8"))
    assert block == docs_build.stages_block(man).strip(), "run `make docs` after regenerating figures/"
    assert "| gracebench | browser |" in block and f"{len(man['notebooks'])} stages" in block


def test_every_internal_link_resolves(site):
    bad = []
    for page in _pages(site):
        for url in _parse(page).urls:
            if re.match(r"^[a-z][a-z0-9+.-]*:", url) or url.startswith("//"): continue   # http(s), mailto, data:
            path, _, frag = urllib.parse.unquote(url).partition("#")
            path = path.split("?", 1)[0]
            dest = (page.parent / path).resolve() if path else page
            if dest.is_dir(): dest = dest / "index.html"
            if not dest.exists(): bad.append(f"{page.relative_to(site)} → {url} (no file)"); continue
            if frag and dest.suffix == ".html" and frag not in _ids(dest): bad.append(f"{page.relative_to(site)} → {url} (no anchor)")
    assert not bad, "\n".join(sorted(bad)[:40]) + f"\n({len(bad)} in all)"


@pytest.mark.browser
@pytest.mark.skipif(not chromium_available(), reason="Chromium/Playwright missing (make setup installs them)")
def test_every_page_opens_in_chromium_without_errors(site):
    from guilab.browser import browser_page, run_outside_loop
    def visit():
        errors = []
        with browser_page(viewport=(1280, 900), device_scale_factor=1) as page:
            page.on("pageerror", lambda e: errors.append(f"{page.url}: page error {e}"))
            page.on("console", lambda m: errors.append(f"{page.url}: console {m.text}") if m.type == "error" else None)
            page.on("requestfailed", lambda r: errors.append(f"{page.url}: request failed {r.url}"))
            for p in _pages(site):
                page.goto(p.as_uri(), wait_until="load")
                assert page.title(), p
        return errors
    errors = run_outside_loop(visit)
    assert not errors, "\n".join(errors[:30])
