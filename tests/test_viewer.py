"""guilab.grounding.viewer in a real browser: the static trajectory viewer of a tiny oracle evaluation loads in
headless Chromium without console errors, shows one panel per sample, and every image it links loads."""
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from guilab.bench import evaluate
from guilab.core import GroundingSample
from guilab.grounding.evaluate import GroundingBench, read_results
from guilab.grounding.viewer import write_viewer

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing (apt-get install chromium; `make setup` does): "
                                "the viewer cannot be opened in a browser")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run"]


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    d = tmp_path_factory.mktemp("viewer")
    (d / "imgs").mkdir()
    boxes = [(700, 400, 760, 424), (40, 30, 70, 50), (1500, 820, 1590, 890)]
    samples = []
    for i, b in enumerate(boxes):
        im = Image.new("RGB", (1600, 900), (240, 240, 240)); dr = ImageDraw.Draw(im)
        dr.rectangle(b, fill=(30, 90, 200)); dr.text((b[0] + 4, b[1] + 4), f"B{i}", fill="white")
        im.save(d / "imgs" / f"screen {i}.png")      # a space in the name: links must be escaped correctly
        samples.append(GroundingSample(id=f"s<{i}>", img_filename=f"screen {i}.png", instruction=f"Click <B{i}> & go",
                                       bbox=list(b), img_size=[1600, 900], application="synthetic", group="Test", ui_type="icon"))
    evaluate(GroundingBench(samples=samples, images=d / "imgs"), "oracle", d / "run", progress=False)
    recs = read_results(d / "run")
    assert all(r["correct"] for r in recs) and all(r["n_crops"] >= 1 for r in recs)
    return write_viewer(recs, samples, d / "imgs", d / "viewer"), recs


@pytest.mark.browser
def test_viewer_opens_in_chromium(viewer):
    pytest.importorskip("playwright", reason="playwright is not installed (pip install 'guilab[browser]')")
    from playwright.sync_api import sync_playwright
    index, recs = viewer
    errors = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
        try:
            page = browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
            page.goto(index.resolve().as_uri(), wait_until="load")
            page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=20000)
            panels = page.locator("section.panel")
            assert panels.count() == len(recs) == 3
            ids = [panels.nth(k).get_attribute("data-id") for k in range(3)]
            assert ids == [r["id"] for r in recs]
            assert [panels.nth(k).get_attribute("data-correct") for k in range(3)] == ["true"] * 3
            widths = page.evaluate("Array.from(document.images).map(i => [i.getAttribute('src'), i.naturalWidth])")
            n_crops = sum(r["n_crops"] for r in recs)
            assert len(widths) == 3 + n_crops
            assert all(w > 0 for _, w in widths), widths
            # every panel shows the instruction text (escaped, rendered literally) and one image per crop + the original
            for k, r in enumerate(recs):
                assert f"Click <B{k}> & go" in panels.nth(k).inner_text()
                assert panels.nth(k).locator("img").count() == 1 + r["n_crops"]
            # overlays: one target box per image, drawn in SVG
            assert page.locator("section.panel svg").count() == len(widths)
        finally:
            browser.close()
    assert errors == [], errors


@pytest.mark.browser
def test_broken_image_would_be_detected(viewer, tmp_path):
    """The check above can fail: removing one image from the viewer folder makes naturalWidth 0."""
    pytest.importorskip("playwright")
    from playwright.sync_api import sync_playwright
    import shutil
    index, _ = viewer
    copy = tmp_path / "v"; shutil.copytree(index.parent, copy)
    next((copy / "img").glob("*crop*.png")).unlink()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
        try:
            page = browser.new_page()
            page.goto((copy / "index.html").as_uri(), wait_until="load")
            page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=20000)
            widths = page.evaluate("Array.from(document.images).map(i => i.naturalWidth)")
            assert sum(w == 0 for w in widths) == 1
        finally:
            browser.close()
