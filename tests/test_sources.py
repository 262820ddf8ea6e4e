"""guilab.grounding.sources: ScreenSpot-Pro / OSWorld-G loaders, the synthetic 4K generator, and a real JupyterLab capture."""
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from guilab.core import GroundingSample
from guilab.grounding.sources import (SourceError, CaptureError, load_osworld_g, load_screenspot_pro, save_screenspot,
                                      size_stats, split_by_target_size, synthetic_gui, target_area_frac, capture_jupyterlab)


def _sspro(root: Path):
    (root / "annotations").mkdir(parents=True); (root / "images").mkdir()
    Image.new("RGB", (3840, 2160), "white").save(root / "images" / "blender_1.png")
    Image.new("RGB", (2560, 1440), "white").save(root / "images" / "excel_1.png")
    (root / "annotations" / "blender_windows.json").write_text(json.dumps([
        {"img_filename": "blender_1.png", "bbox": [100, 200, 140, 230], "instruction": "add a cube", "application": "blender",
         "platform": "windows", "img_size": [3840, 2160], "ui_type": "icon", "group": "Creative", "id": "b-1", "instruction_cn": "添加立方体"},
        {"img_filename": "blender_1.png", "bbox": [1000, 50, 1300, 90], "instruction": "open render settings", "application": "blender",
         "platform": "windows", "img_size": [3840, 2160], "ui_type": "text", "group": "Creative", "id": "b-2"}]))
    (root / "annotations" / "excel_macos.json").write_text(json.dumps([
        {"img_filename": "excel_1.png", "bbox": [5, 5, 25, 25], "instruction": "insert a pivot table", "application": "excel",
         "platform": "macos", "img_size": [2560, 1440], "ui_type": "icon", "group": "Office", "id": "e-1"}]))


def test_screenspot_pro_loader(tmp_path):
    _sspro(tmp_path)
    ss = load_screenspot_pro(tmp_path)
    assert [s.id for s in ss] == ["b-1", "b-2", "e-1"]
    assert ss[0].bbox == [100.0, 200.0, 140.0, 230.0] and ss[0].img_size == [3840, 2160] and ss[0].group == "Creative"
    assert ss[0].extra["instruction_cn"] == "添加立方体"                     # unknown fields kept
    assert Path(ss[2].extra["img_path"]) == tmp_path / "images" / "excel_1.png"
    assert [s.id for s in load_screenspot_pro(tmp_path / "annotations" / "excel_macos.json")] == ["e-1"]
    assert target_area_frac(ss[0]) == pytest.approx(40 * 30 / (3840 * 2160))


@pytest.mark.parametrize("bad, msg", [
    ({"img_filename": "blender_1.png", "instruction": "x", "id": "z1"}, "bbox"),
    ({"img_filename": "blender_1.png", "bbox": [10, 10, 5, 20], "instruction": "x", "id": "z2"}, "x2 <= x1"),
    ({"img_filename": "blender_1.png", "bbox": [10, 10, 10, 20], "instruction": "x", "id": "z4"}, "sample 'z4'"),   # empty box
    ({"img_filename": "missing.png", "bbox": [1, 1, 5, 5], "instruction": "x", "id": "z3"}, "not found"),
    ({"img_filename": "blender_1.png", "bbox": [1, 1, 5, 5], "instruction": "x", "id": "b-1"}, "duplicate id"),
])
def test_screenspot_pro_errors_name_file_and_record(tmp_path, bad, msg):
    _sspro(tmp_path)
    (tmp_path / "annotations" / "zz_bad.json").write_text(json.dumps([bad]))
    with pytest.raises(SourceError) as e:
        load_screenspot_pro(tmp_path)
    assert "zz_bad.json record 0" in str(e.value) and msg in str(e.value)
    (tmp_path / "annotations" / "zz_bad.json").write_text("{not json")
    with pytest.raises(SourceError, match="zz_bad.json: not valid JSON"):
        load_screenspot_pro(tmp_path)


def test_osworld_g_three_box_types_and_errors(tmp_path):
    (tmp_path / "images").mkdir()
    Image.new("RGB", (1920, 1080), "white").save(tmp_path / "images" / "s.png")
    items = [
        {"id": "o-1", "image_path": "s.png", "image_size": [1920, 1080], "instruction": "Click Save", "box_type": "bbox",
         "box_coordinates": [100, 50, 80, 20], "GUI_types": ["Button"]},
        {"id": "o-2", "image_path": "s.png", "image_size": [1920, 1080], "instruction": "Drag the slider", "box_type": "polygon",
         "box_coordinates": [10, 10, 110, 10, 110, 60, 10, 60]},
        {"id": "o-3", "image_path": "s.png", "image_size": [1920, 1080], "instruction": "Click the rocket icon", "box_type": "refusal",
         "box_coordinates": [-1, -1, -1, -1]},
    ]
    f = tmp_path / "OSWorld-G.json"; f.write_text(json.dumps(items))
    g = load_osworld_g(f)
    assert [s.box_type for s in g] == ["bbox", "polygon", "refusal"]
    assert g[0].bbox == [100.0, 50.0, 180.0, 70.0]                              # [x,y,w,h] -> [x1,y1,x2,y2]
    assert g[1].polygon == [[10.0, 10.0], [110.0, 10.0], [110.0, 60.0], [10.0, 60.0]]
    assert g[1].bbox == [10, 10, 110, 60]                                     # a polygon's bbox is its bounding box (the evaluator's rule)
    assert g[2].bbox is None and target_area_frac(g[2]) is None
    assert g[0].extra["GUI_types"] == ["Button"] and g[0].img_filename == "s.png" and g[0].img_size == [1920, 1080]
    assert target_area_frac(g[1]) == pytest.approx(100 * 50 / (1920 * 1080))
    # round trip of the bbox item through ScreenSpot-Pro format
    save_screenspot(tmp_path / "ss", [g[0]], {"s.png": tmp_path / "images" / "s.png"}, app="osw")
    assert load_screenspot_pro(tmp_path / "ss")[0].bbox == g[0].bbox
    for bad, msg in [({"box_type": "circle", "box_coordinates": [1, 2, 3]}, "box_type"),
                     ({"box_type": "bbox", "box_coordinates": [1, 2, 3]}, "[x,y,w,h]"),
                     ({"box_type": "bbox", "box_coordinates": [1, 2, -3, 4]}, "x2 <= x1"),
                     ({"box_type": "bbox", "box_coordinates": [1, 2, 0, 4]}, "sample 'o-9'"),
                     ({"box_type": "polygon", "box_coordinates": [1, 2, 3, 4]}, "polygon")]:
        f.write_text(json.dumps([items[0], {**items[1], "id": "o-9", **bad}]))
        with pytest.raises(SourceError) as e:
            load_osworld_g(f)
        assert "OSWorld-G.json record 1 (id 'o-9')" in str(e.value) and msg in str(e.value), str(e.value)


def test_screenspot_v1_is_xywh(tmp_path):
    "ScreenSpot v1 (SeeClick) boxes are [x,y,w,h]: [879, 75, 599, 269] with the click (1000, 200) is a hit (issue 14)."
    from guilab.grounding.sources import load_screenspot_v1
    from guilab.grounding.evaluate import is_correct, load_samples
    (tmp_path / "screenspot_imgs").mkdir()
    Image.new("RGB", (1920, 1080), "white").save(tmp_path / "screenspot_imgs" / "pc.png")
    rec = {"img_filename": "pc.png", "bbox": [879, 75, 599, 269], "instruction": "x", "data_type": "icon", "data_source": "windows"}
    (tmp_path / "screenspot_desktop.json").write_text(json.dumps([rec]))
    s = load_screenspot_v1(tmp_path)[0]
    assert s.bbox == [879, 75, 1478, 344] and is_correct(s, [1000, 200]) and not is_correct(s, [870, 200])
    assert load_samples(tmp_path / "screenspot_desktop.json", images=tmp_path / "screenspot_imgs")[0].bbox == s.bbox
    with pytest.raises(SourceError, match="sample 'screenspot_desktop-0'.*x2 <= x1"):
        load_screenspot_v1(tmp_path, box_format="xyxy")


def test_synthetic_gui_deterministic_and_valid(tmp_path):
    a, ia = synthetic_gui(20, seed=5)
    b, ib = synthetic_gui(20, seed=5)
    c, _ = synthetic_gui(20, seed=6)
    assert [s.to_dict() for s in a] == [s.to_dict() for s in b]
    assert all(np.array_equal(np.asarray(ia[k]), np.asarray(ib[k])) for k in ia)
    assert [s.instruction for s in a] != [s.instruction for s in c]
    assert {s.ui_type for s in a} == {"icon", "text"} and len(ia) == 3
    for s in a:
        x1, y1, x2, y2 = s.bbox
        assert 0 <= x1 < x2 < 3840 and 0 <= y1 < y2 < 2160 and s.img_size == [3840, 2160]
        crop = np.asarray(ia[s.img_filename].crop((int(x1), int(y1), int(x2) + 1, int(y2) + 1)).convert("L"), float)
        assert crop.std() > 10, s.instruction                                   # something is drawn in the box
    assert sum(target_area_frac(s) < 1e-3 for s in a) >= 10                     # small targets at 4K
    back = load_screenspot_pro(save_screenspot(tmp_path, a, ia))
    assert [s.to_dict() for s in back] == [{**s.to_dict(), "img_path": str(tmp_path / "images" / s.img_filename)} for s in a]
    small, large, thr = split_by_target_size(a)
    assert len(small) + len(large) == 20 and all(target_area_frac(s) <= thr < target_area_frac(t) for s in small for t in large)


@pytest.fixture(scope="module")
def small_capture(tmp_path_factory):
    from guilab.browser import chromium_available, CHROMIUM
    if not chromium_available():
        pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium; `make setup` does)")
    out = tmp_path_factory.mktemp("jlab")
    return out, capture_jupyterlab(out, min_samples=40, states=["launcher", "context_menu", "menu_file"])


@pytest.mark.browser
def test_small_capture_produces_valid_samples(small_capture):
    out, summary = small_capture
    assert summary["failed_states"] == [] and summary["samples"] >= 40 and summary["images"] == 3
    ss = load_screenspot_pro(out)
    assert len(ss) == summary["samples"]
    assert {s.extra["state"] for s in ss} == {"launcher", "context_menu", "menu_file"}
    names = {s.extra["name"] for s in ss}
    assert {"File", "Edit", "Kernel", "New Folder", "Rename", "Save Notebook"} <= names
    ims = {}
    for s in ss:
        assert (s.application, s.platform, s.group, s.img_size) == ("jupyterlab", "linux", "Dev", [3840, 2160])
        assert s.ui_type in ("text", "icon")
        x1, y1, x2, y2 = s.bbox
        assert 0 <= x1 < x2 <= 3839 and 0 <= y1 < y2 <= 2159, s.to_dict()
        if s.img_filename not in ims: ims[s.img_filename] = Image.open(out / "images" / s.img_filename).convert("L")
        assert ims[s.img_filename].size == (3840, 2160)
        crop = np.asarray(ims[s.img_filename].crop((int(x1), int(y1), int(x2) + 1, int(y2) + 1)), float)
        assert crop.max() - crop.min() > 40, s.instruction                    # the box shows something, not blank
    for name in ims:   # instructions are unique per screenshot
        ins = [s.instruction.casefold() for s in ss if s.img_filename == name]
        assert len(ins) == len(set(ins))
    # the File menu item "Save Notebook" lies inside the open File menu, below the menu bar's "File"
    file_menu = next(s for s in ss if s.extra["name"] == "File" and s.extra["kind"] == "menubar")
    save = next(s for s in ss if s.extra["name"] == "Save Notebook")
    assert save.bbox[1] > file_menu.bbox[3] and save.bbox[0] <= file_menu.bbox[2]
    m = json.loads((out / "manifest.json").read_text())
    assert m["versions"]["chromium"] and m["versions"]["jupyterlab"] and m["versions"]["playwright"]
    assert set(m["outputs"]) == {f"images/{n}" for n in ims} | {"annotations/jupyterlab.json"}
    assert sum(m["counts"]["per_state"].values()) == len(ss) and sum(m["counts"]["ui_type"].values()) == len(ss)
    assert m["target_size"]["n"] == len(ss) and 0 < m["target_size"]["median_split"] < 0.05


@pytest.mark.browser
def test_capture_rejects_unknown_states_and_reports_shortfall(tmp_path, small_capture):
    with pytest.raises(ValueError, match="unknown capture states"):
        capture_jupyterlab(tmp_path, states=["launcher", "nope"])
    with pytest.raises(CaptureError, match="min_samples=10000"):
        capture_jupyterlab(tmp_path, min_samples=10000, states=["launcher"])
    assert (tmp_path / "manifest.json").exists()                              # written before the error
