"""The gallery (`guilab.reproduce.write_gallery`) as a reader sees it, in headless Chromium: no page or console errors;
the contents list and the claims counted per seed and verdict on the first screen; every table (the wide
`*_vs_reported` ones split by column groups) no wider than the window at 1920 and at 1600 CSS pixels; the seeds'
Chinese quotes drawn with a CJK font (not as empty boxes). Once on a small fixture folder, once on the repository's
own figures/ (copied, the gallery rewritten by this code)."""
import json, shutil, subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml
from PIL import Image

from conftest import ROOT
from guilab.reproduce import write_gallery

pytestmark = pytest.mark.browser
QUOTE = "PAGER 在几何作图任务上显著优于所有基线"   # a seed-style quote in Chinese


def _cjk_font_installed() -> bool:
    try: r = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired): return False
    return bool(r.stdout.strip())


def _need_browser():
    from guilab.browser import chromium_available
    if not chromium_available(): pytest.skip("Chromium or Playwright is missing (apt-get install chromium; `make setup` does)")
    if not _cjk_font_installed():
        pytest.skip("no CJK font (fc-list :lang=zh is empty): `make setup` installs fonts-noto-cjk as root, "
                    "else apt-get install fonts-noto-cjk; without it the seeds' quotes render as empty boxes")


def wide_table(out: Path):
    """A reported-vs-reproduced table shaped like Table 3's, wider: 41 columns (reported, reproduced and Δ of
    thirteen metrics) with long headers, 24 rows, a Chinese row label; too wide for 1600 px unless split."""
    metrics = ["AA", "PA", "SSR", "TSR", "MPS", "Middle", "Final", "Overall", "OTC", "FRS", "OS", "S_pt", "S_cmd"]
    cols = ["row"] + [f"{m} {k}" for m in metrics for k in ("reported", "reproduced", "Δ")] + ["SSR (upper bound) reported"]
    rows = [[f"noisy_oracle σ={s} [closed_loop] with a long label" for s in range(22)] + ["最强的 GUI 智能体基线", "PAGER"]][0]
    lines = ["# Table 2: reported (PAGER seed §5.2) vs reproduced (scripted agents)", "",
             "| " + " | ".join(cols) + " |", "|---|" + "---:|" * (len(cols) - 1)]
    lines += ["| " + " | ".join([r] + [f"{(i * 7.31 + j * 3.7) % 100:.2f}" for j in range(len(cols) - 1)]) + " |"
              for i, r in enumerate(rows)]
    (out / "table2_main_vs_reported.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "table2_main_vs_reported.csv").write_text(",".join(cols) + "\n", encoding="utf-8")
    return len(cols)


def make_fixture(out: Path):
    "A small run folder (manifest, a wide table, an image, a claims ledger with a Chinese quote) and its gallery."
    ncols = wide_table(out)
    Image.new("RGB", (1200, 500), "white").save(out / "table2_sweep.png")
    learned, lexical = json.dumps([{"name": "SFT agent", "learned": True}]), json.dumps([{"name": "lexical"}])
    pd.DataFrame({"claim_id": ["gap", "rev", "mech"], "estimate": [5.2, -3.0, 5.2], "lo": [1.1, -5.0, 1.1], "hi": [9.3, -1.0, 9.3],
                  "p": [None] * 3, "seeds": [3, 3, 1], "agents": [learned, learned, lexical]}).to_csv(out / "table2_main_tests.csv", index=False)
    commit = {"commit": "0123456789abcdef", "dirty": False}
    (out / "manifest.json").write_text(json.dumps({"created": "2026-12-03", "params_file": "params/smoke.yaml",
        "git": {"commit": "0123456789abcdef", "dirty": True},
        "notebooks": {"table2_main": {"status": "ok", "seconds": 2.0, "params_file": "params/smoke.yaml", "git": commit}}}))
    base = {"seed": "000_7c1ace65400c2a1a.txt", "section": "§5.2 Main results, Table 2", "quote": QUOTE,
            "notebook": "table2_main", "artefact": "table2_main_vs_reported.md", "statistic": "paired difference",
            "about": "agents", "evidence": "learned"}
    test = lambda cid: {"table": "table2_main_tests.csv", "where": {"claim_id": cid}, "estimate": "estimate", "lo": "lo", "hi": "hi"}
    claims = [{**base, "id": "PAGER.gap", "system": "PAGER", "claim": "PAGER beats the best baseline on Overall", "reported": "+5.15",
               "test": test("gap"), "direction": ">"},
              {**base, "id": "PAGER.rev", "system": "PAGER", "claim": "GRPO beats SFT on TSR", "reported": "+2.1",
               "test": test("rev"), "direction": ">"},
              {**base, "id": "PAGER.mech", "system": "PAGER", "claim": "a scripted agent's gap", "reported": "+5.15",
               "test": test("mech"), "direction": ">", "evidence": "scripted", "agents": ["lexical"]},
              {**base, "id": "PAGER.err", "system": "PAGER", "claim": "a statistic this run did not write", "reported": "1",
               "test": {"table": "missing.csv", "estimate": "x"}, "direction": ">"},
              {**base, "id": "LBS.acc", "system": "LBS", "claim": "LBS-7B reaches 50 % on ScreenSpot-Pro", "reported": "50.1",
               "notebook": "lbs_screenspot", "artefact": "lbs_domain.md", "not_testable": "the seed's 7B model is not available", "evidence": "none"}]
    ledger = out / "claims.yaml"
    ledger.write_text(yaml.safe_dump({"claims": claims}, allow_unicode=True), encoding="utf-8")
    index, readme = write_gallery(out, claims=ledger)
    return out, index, readme, ncols


@pytest.fixture(scope="module")
def fixture_gallery(tmp_path_factory):
    return make_fixture(tmp_path_factory.mktemp("gallery"))


def open_gallery(index: Path, screenshot: Path | None = None) -> dict:
    """Measure the gallery in Chromium: page and console errors, what the first 1920x1080 screen holds, every table's
    width at 1920 and at 1600 CSS pixels with every section opened, and the fonts Chromium drew the Chinese quotes with."""
    from guilab.browser import browser_page, run_outside_loop

    def go():
        with browser_page(viewport=(1920, 1080), device_scale_factor=1) as page:
            errors = []
            page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
            page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
            page.goto(index.as_uri()); page.wait_for_load_state("load")
            first = page.evaluate("""() => { const r = s => { const e = document.querySelector(s); return e ? e.getBoundingClientRect().bottom : null; };
                return {contents: r('#contents'), counts: r('table.counts'), h: innerHeight, closed: [...document.querySelectorAll('details.seed')].filter(d => !d.open).length,
                        seeds: document.querySelectorAll('details.seed').length}; }""")
            if screenshot: page.screenshot(path=str(screenshot), full_page=True)
            # a contents link opens its (collapsed) section
            page.click("#contents a[href^='#seed-']")
            try: page.wait_for_function("() => document.querySelector('details.seed[open]')", timeout=5000)   # the page's
            except Exception: pass                              # hashchange handler opens it: on a loaded machine, not at once
            opened = page.evaluate("() => document.querySelectorAll('details.seed[open]').length")
            page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
            page.evaluate("() => Promise.all([...document.images].map(i => { i.loading = 'eager'; return i.decode().catch(() => null); }))")
            widths = {}
            for w in (1920, 1600):
                page.set_viewport_size({"width": w, "height": 1080})
                widths[w] = page.evaluate("""() => ({page: document.documentElement.scrollWidth, inner: innerWidth,
                    tables: [...document.querySelectorAll('table')].map(t => [(t.closest('[data-src]') || {dataset: {}}).dataset.src || t.className,
                                                                           t.scrollWidth, t.clientWidth, Math.ceil(t.getBoundingClientRect().right)])})""")
            # the fonts Chromium drew each Chinese quote with (DevTools protocol: the platform fonts of the node's text)
            cdp = page.context.new_cdp_session(page)
            cdp.send("DOM.enable"); cdp.send("CSS.enable")
            root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
            nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": "[lang^='zh']"})["nodeIds"]
            fonts = [cdp.send("CSS.getPlatformFontsForNode", {"nodeId": n})["fonts"] for n in nodes]
            quotes = page.evaluate("() => [...document.querySelectorAll(\"[lang^='zh']\")].map(e => e.textContent)")
            return {"errors": errors, "first": first, "opened": opened, "widths": widths, "fonts": fonts, "quotes": quotes}
    return run_outside_loop(go)


def check(m: dict, min_tables: int, quotes: bool = True):
    assert m["errors"] == [], m["errors"]
    f = m["first"]
    assert f["contents"] is not None and f["counts"] is not None, f
    assert f["contents"] <= f["h"] and f["counts"] <= f["h"], f          # contents and counts on the first screen
    assert f["seeds"] >= 5 and f["closed"] == f["seeds"], f              # one collapsible section per seed (+ extras), closed
    assert m["opened"] == 1, m["opened"]                                  # a contents link opens its section
    for w, r in m["widths"].items():
        assert r["inner"] == w and r["page"] <= w, (w, r["page"])        # no horizontal scroll of the page
        assert len(r["tables"]) >= min_tables, (w, len(r["tables"]))
        wide = [(src, sw, cw, right) for src, sw, cw, right in r["tables"] if sw > cw or right > w]
        assert not wide, (w, wide)                                        # every table fits the window: its content
                                                                          # within its box (no scroll bar), its box within the window
    # every Chinese quote is drawn with a font that holds CJK glyphs (with none, Chromium draws boxes in a Latin font)
    assert m["quotes"] or not quotes, "no quote marked lang=zh"
    for q, fonts in zip(m["quotes"], m["fonts"]):
        assert any("CJK" in x["familyName"] or "CJK" in x.get("postScriptName", "") for x in fonts), (q[:40], fonts)


def test_gallery_fixture_in_chromium(fixture_gallery):
    """A fixture run (a 16-column Table 2 with a Chinese row label, four claims: shown, reversed, error, not testable,
    with a Chinese quote): the page opens clean, the first screen holds the contents and the counts, every table
    fits 1920 and 1600 px, the quotes render in a CJK font; the wide table is split, its CSV kept whole."""
    _need_browser()
    out, index, readme, ncols = fixture_gallery
    m = open_gallery(index)
    check(m, min_tables=4)
    html = index.read_text(encoding="utf-8")
    assert html.count("class='v-error'") >= 2 and "PAGER.err" in html   # the error is red, in the counts and the table
    assert "5.2 [1.1, 9.3]" in html and "-3 [-5, -1]" in html           # reproduced: estimate [lo, hi]
    tabs = [s for s, *_ in m["widths"][1920]["tables"] if s == "table2_main_vs_reported.md"]
    assert len(tabs) >= 2, tabs                                           # split by column groups
    assert len((out / "table2_main_vs_reported.csv").read_text().split("\n")[0].split(",")) == ncols   # the CSV whole
    assert "commit 01234567, 1 stage" in html and "dirty" not in html.split("</p>")[1]
    # a scripted agent's statistic is a mechanics row in its own section under the seed, never a verdict
    pager = html.split("<details class='seed'")[1]
    assert pager.index("<h3>Claims and verdicts</h3>") < pager.index("id='claim-PAGER.gap'") < pager.index("<h3>Mechanics: ") < pager.index("id='claim-PAGER.mech'")
    assert "<b>mechanics</b> · scripted (lexical)" in pager and "on these agents the statistic reads &#x27;shown&#x27;" in pager
    assert "verdict × evidence" in html and "1 mechanics (scripted 1)" in html


def test_check_would_fail_on_a_wide_table_and_tofu(fixture_gallery, tmp_path, monkeypatch):
    """The checks above can fail: the same gallery without the column-group split (41 columns at 1600 px), opened by
    a Chromium that sees only the DejaVu fonts (no CJK glyphs: the quotes are drawn as boxes), is caught by `check`."""
    _need_browser()
    out, index, *_ = fixture_gallery
    bad = tmp_path / "bad"; shutil.copytree(out, bad)
    import guilab.reproduce as R
    monkeypatch.setattr(R, "split_wide_tables", lambda md, max_cols=16: md)
    write_gallery(bad, claims=bad / "claims.yaml")
    dejavu = Path("/usr/share/fonts/truetype/dejavu")
    if not dejavu.is_dir(): pytest.skip("no /usr/share/fonts/truetype/dejavu to build a font set without CJK glyphs from")
    conf = tmp_path / "fonts.conf"
    conf.write_text(f"<?xml version='1.0'?><!DOCTYPE fontconfig SYSTEM 'fonts.dtd'><fontconfig><dir>{dejavu}</dir>"
                    f"<cachedir>{tmp_path / 'fc-cache'}</cachedir></fontconfig>")
    monkeypatch.setenv("FONTCONFIG_FILE", str(conf))                    # Chromium (through Playwright) inherits it
    m = open_gallery(bad / "index.html")
    with pytest.raises(AssertionError) as e: check(m, min_tables=4)
    assert "table2_main_vs_reported.md" in str(e.value), str(e.value)[:500]     # the unsplit table is too wide at 1600
    m["widths"] = {}                                                    # past the width check: the font check fails
    with pytest.raises(AssertionError) as e: check(m, min_tables=4)
    assert QUOTE[:10] in str(e.value) and "DejaVu" in str(e.value), str(e.value)[:500]


def test_gallery_of_figures_in_chromium(tmp_path):
    """The repository's own figures/ (the run of record), its gallery rewritten by this code into a copy: the same
    checks (skipped where figures/ holds no run yet, e.g. a fresh clone before `make reproduce`)."""
    _need_browser()
    src = ROOT / "figures"
    if not (src / "manifest.json").is_file(): pytest.skip("figures/ holds no run (no figures/manifest.json): run `make reproduce`")
    out = tmp_path / "figures"
    shutil.copytree(src, out, ignore=shutil.ignore_patterns("notebooks"))
    write_gallery(out)
    from guilab.claims import load_claims
    check(open_gallery(out / "index.html"), min_tables=10, quotes=bool(load_claims()))


def test_every_gallery_item_links_the_notebook_that_made_it():
    """In the committed gallery each item whose notebook has an executed copy in figures/notebooks/ links it, in the
    item's status line (HTML) and in its row of figures/README.md."""
    import re
    from guilab.reproduce import load_gallery
    out = ROOT / "figures"
    g = load_gallery(None)
    items = [it for s in g["seeds"] for it in s["items"]] + list(g.get("extras", []))
    made = {it["notebook"] for it in items if it.get("notebook") and (out / "notebooks" / f"{it['notebook']}.ipynb").is_file()}
    assert made, "no gallery item names an executed notebook"
    html, md = (out / "index.html").read_text(), (out / "README.md").read_text()
    assert set(re.findall(r"href='notebooks/([\w-]+)\.ipynb'>executed notebook<", html)) == made
    assert set(re.findall(r"\[executed notebook\]\(notebooks/([\w-]+)\.ipynb\)", md)) == made
