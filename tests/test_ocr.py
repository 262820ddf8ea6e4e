"""guilab.grounding.ocr: tesseract reads known words; the OCR policies speak the zoom protocol."""
import shutil
from pathlib import Path

import matplotlib
import pytest
from PIL import Image, ImageDraw, ImageFont

from guilab.core import GroundingSample
from guilab.grounding.zoom import ZoomSession, run_zoom, parse_reply, CropAction

pytest.importorskip("pytesseract")
pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract binary not installed (apt-get install tesseract-ocr)")
from guilab.grounding.ocr import (OCRPolicy, OCRZoomPolicy, find_phrase, instruction_phrases, ocr_agent, ocr_grounder, ocr_tokens)


def font(px):
    return ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSans.ttf"), px)


def test_ocr_finds_a_known_word_with_its_box():
    im = Image.new("RGB", (1200, 500), "white"); d = ImageDraw.Draw(im)
    d.text((700, 300), "Histogram", font=font(30), fill="black")
    d.text((60, 60), "Layers Brush", font=font(30), fill="black")
    toks = ocr_tokens(im, cache=False)
    h = [t for t in toks if t.text == "Histogram"]
    assert len(h) == 1
    x1, y1, x2, y2 = h[0].box
    assert 690 <= x1 <= 710 and 295 <= y1 <= 320 and 840 <= x2 <= 880 and y2 <= 345
    m = ocr_grounder(toks, "Click the 'Histogram' button")
    assert m is not None and m.text == "Histogram"
    assert ocr_grounder(toks, "Click 'Brush' in the toolbar").text == "Brush"
    assert ocr_grounder(toks, "Click the 'Quaternion' button") is None


def test_phrases_and_multiword_matching():
    assert instruction_phrases("Select 'New Folder' in the context menu") == ["New Folder"]
    assert instruction_phrases("Open the Kernel menu") == ["Kernel"]
    im = Image.new("RGB", (1400, 300), "white"); d = ImageDraw.Draw(im)
    d.text((40, 40), "Restart Kernel and Run All Cells", font=font(28), fill="black")
    d.text((40, 160), "Restart Kernel", font=font(28), fill="black")
    toks = ocr_tokens(im)
    m = ocr_grounder(toks, "Click 'Restart Kernel' in the Kernel menu")
    assert m.box[1] > 140, "the whole-line label must beat the same words inside a longer line"
    m2 = find_phrase(toks, "Run All Cells")[0]
    assert m2.ratio == 1.0 and m2.box[1] < 100


def _screen(word, x, y, px=15):
    im = Image.new("RGB", (3840, 2160), (246, 246, 246)); d = ImageDraw.Draw(im)
    for i, w in enumerate(["Render", "Layers", "Export", "Brush", "Filter", "Snap", "Guides", "Mesh"]):
        if w != word: d.text((150 + 450 * i, 300), w, font=font(px), fill="black")
    d.text((x, y), word, font=font(px), fill="black")
    b = d.textbbox((x, y), word, font=font(px))
    return im, [b[0] - 2, b[1] - 2, b[2] + 2, b[3] + 2]


def test_zoom_policy_protocol_and_answer_inside_the_box():
    im, box = _screen("Histogram", 2900, 1700, px=13)
    s = ZoomSession(im)
    pol = OCRZoomPolicy(s, "Click 'Histogram' in the panel", view_pixels=1280 * 720)
    tr = run_zoom(pol, s, "Click 'Histogram' in the panel")
    first = parse_reply(tr["turns"][0]["reply"])
    assert all(isinstance(a, CropAction) for a in first) and 1 <= len(first) <= 2   # it zooms first
    assert tr["status"] == "answer" and not tr["format_error"] and tr["n_crops"] <= 3
    assert box[0] <= tr["point"][0] <= box[2] and box[1] <= tr["point"][1] <= box[3], (tr["point"], box)


def test_agents_registered_and_runnable():
    from guilab.agents.base import make
    im, box = _screen("Export", 1000, 1200, px=22)
    smp = GroundingSample(id="x", img_filename="x.png", instruction="Click the 'Export' button", bbox=box, img_size=[3840, 2160])
    for name in ("ocr", "ocr_zoom"):
        tr = run_zoom(make(name, namespace="grounding"), im, smp.instruction)
        assert tr["status"] == "answer", name
        assert box[0] <= tr["point"][0] <= box[2] and box[1] <= tr["point"][1] <= box[3], (name, tr["point"], box)
    assert run_zoom(make("grounding/ocr"), im, smp.instruction)["n_crops"] == 0


def test_layout_zoom_reads_text_the_view_cannot():
    """The layout policy's tiles reach text too small for the first view; its no-zoom counterpart, reading only the
    view, cannot find it. Both never see the target box."""
    from guilab.agents.base import make
    im, box = _screen("Histogram", 2500, 1500, px=18)
    ins = "Click 'Histogram' in the panel"
    t0 = run_zoom(make("grounding/ocr_layout", view_pixels=480 * 270), im, ins)
    t1 = run_zoom(make("grounding/ocr_layout_zoom", view_pixels=480 * 270), im, ins)
    assert t0["n_crops"] == 0 and not (box[0] <= t0["point"][0] <= box[2] and box[1] <= t0["point"][1] <= box[3])
    assert t1["n_crops"] == 3 and t1["status"] == "answer"
    assert box[0] <= t1["point"][0] <= box[2] and box[1] <= t1["point"][1] <= box[3], (t1["point"], box, t1["ocr_log"])
    tiles = [c for c in t1["crops"] if c["turn"] == 0]
    assert len(tiles) == 2 and tiles[0]["box_original"][0] == 0 and tiles[1]["box_original"][2] == 3840   # the whole width, in two tiles
    assert t1["crops"][2]["scale"] == 4.0                                                                  # the last look is a full 4x


def test_widget_beside_its_label():
    "A checkbox left of its label and a close icon right of a tab title are answered, not the label."
    from guilab.agents.base import make
    im = Image.new("RGB", (3840, 2160), (246, 246, 246)); d = ImageDraw.Draw(im)
    d.rectangle([1000, 600, 1030, 630], outline="black", width=3); d.text((1050, 598), "Show line numbers", font=font(30), fill="black")
    d.text((2000, 100), "Notebook.ipynb", font=font(30), fill="black")
    d.line([(2300, 105), (2324, 129)], fill="black", width=3); d.line([(2300, 129), (2324, 105)], fill="black", width=3)
    for ins, box in [("Click the checkbox 'Show line numbers'", [996, 596, 1034, 634]), ("Click the close icon of the Notebook.ipynb tab", [2296, 101, 2328, 133])]:
        smp = GroundingSample(id="w", img_filename="w.png", instruction=ins, bbox=box, img_size=[3840, 2160])
        for name in ("ocr_layout", "ocr_layout_zoom"):
            tr = run_zoom(make(name, namespace="grounding"), im, ins)
            assert box[0] <= tr["point"][0] <= box[2] and box[1] <= tr["point"][1] <= box[3], (name, ins, tr["point"], tr["ocr_log"])
