"""guilab.grounding.apps: real web applications (MLflow, TensorBoard, Datasette, Notebook 7, Streamlit) captured in
ScreenSpot-Pro format. The capture tests need the `apps` extra and Chromium; without them they are skipped, saying why."""
import json, subprocess, time

import numpy as np
import psutil
import pytest
from PIL import Image

from guilab.grounding.apps import (app_available, app_specs, app_targets_to_samples, capture_app, capture_apps, kill_group,
                                   load_app_capture, start_app)
from guilab.grounding.sources import load_screenspot_pro

DOMAINS = {"Dev", "Creative", "CAD", "Scientific", "Office", "OS"}   # ScreenSpot-Pro's groups


def test_specs_name_five_apps_in_screenspot_pro_groups():
    specs = app_specs()
    assert set(specs) == {"mlflow", "tensorboard", "datasette", "notebook", "streamlit"}
    assert {s["group"] for s in specs.values()} <= DOMAINS
    assert all(len(s["states"]) >= 5 for s in specs.values())
    assert all(s["states"][0]["steps"][0].get("goto") is not None for s in specs.values())   # the first state loads the app


def test_missing_app_is_skipped_with_a_line(tmp_path, monkeypatch, capsys):
    import guilab.grounding.apps as A
    monkeypatch.setattr(A, "app_available", lambda a: (False, f"{a}: Python package 'x' is not installed"))
    r = capture_apps(tmp_path, ["streamlit"])
    assert r["streamlit"]["skipped"] and "skipped streamlit" in capsys.readouterr().out
    assert not (tmp_path / "annotations" / "streamlit.json").exists()


def test_kill_group_leaves_no_grandchild():
    p = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60 & wait"], start_new_session=True)
    time.sleep(0.3)
    kids = psutil.Process(p.pid).children(recursive=True)
    assert len(kids) == 2
    kill_group(p)
    assert all(not k.is_running() or k.status() == psutil.STATUS_ZOMBIE for k in kids)


def test_pixel_check_drops_a_box_over_blank_background():
    g = np.full((100, 200), 255, np.uint8); g[10:20, 10:40] = 0
    t = [{"kind": "control", "role": "button", "name": "Run", "box": [4, 4, 22, 12], "has_text": True},
         {"kind": "control", "role": "button", "name": "Stop", "box": [60, 30, 80, 40], "has_text": True}]
    recs, drop = app_targets_to_samples(t, "demo", "Dev", "s", "a.png", g, dsf=1.0)
    assert [r["name"] for r in recs] == ["Run"] and drop["pixels"] == 1


def _need(app):
    from guilab.browser import chromium_available, CHROMIUM
    ok, why = app_available(app)
    if not ok: pytest.skip(why)
    if not chromium_available(): pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium; `make setup` does)")


@pytest.mark.browser
def test_server_starts_and_its_process_group_is_gone_after(tmp_path):
    _need("datasette")
    with start_app("datasette", tmp_path) as (url, token, proc):
        import urllib.request
        assert urllib.request.urlopen(url + "fieldstudy/sensors.json", timeout=10).status == 200
        pids = [proc.pid] + [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]
    assert all(not psutil.pid_exists(p) or psutil.Process(p).status() == psutil.STATUS_ZOMBIE for p in pids)


@pytest.fixture(scope="module")
def small_app_capture(tmp_path_factory):
    _need("datasette")
    out = tmp_path_factory.mktemp("apps")
    return out, capture_app(out, "datasette", min_samples=30, states=["database", "table_sensors"])


@pytest.mark.browser
def test_small_app_capture_is_valid_screenspot_pro(small_app_capture):
    out, s = small_app_capture
    assert s["failed_states"] == [] and s["images"] == 2 and s["samples"] >= 30
    ss = load_app_capture(out, ["datasette"])
    assert len(ss) == s["samples"] == len(load_screenspot_pro(out))
    assert {(x.application, x.group, x.platform, tuple(x.img_size)) for x in ss} == {("datasette", "Office", "web", (3840, 2160))}
    assert {x.ui_type for x in ss} <= {"text", "icon"} and {x.extra["state"] for x in ss} == {"database", "table_sensors"}
    names = {x.extra["name"] for x in ss}
    assert {"sensors", "maintenance", "Alder thermometer"} <= names        # tables of the database the capture wrote, a cell of one
    ims = {}
    for x in ss:
        x1, y1, x2, y2 = x.bbox
        assert 0 <= x1 < x2 <= 3839 and 0 <= y1 < y2 <= 2159
        if x.img_filename not in ims: ims[x.img_filename] = np.asarray(Image.open(out / "images" / x.img_filename).convert("L"))
        crop = ims[x.img_filename][int(y1):int(y2) + 1, int(x1):int(x2) + 1]
        assert int(crop.max()) - int(crop.min()) > 40, x.instruction        # the box shows something
    for name in ims:
        ins = [x.instruction.casefold() for x in ss if x.img_filename == name]
        assert len(ins) == len(set(ins))                                     # unambiguous per screenshot
    cell = next(x for x in ss if x.extra["name"] == "Alder thermometer")
    assert cell.extra["column"] == "label" and "label" in cell.instruction
    m = json.loads((out / "manifest_datasette.json").read_text())
    assert m["versions"]["datasette"] and m["versions"]["chromium"] and m["application"] == "datasette"
    assert set(m["outputs"]) == {f"images/{n}" for n in ims} | {"annotations/datasette.json"}
    assert sum(m["counts"]["per_state"].values()) == len(ss) and m["target_size"]["n"] == len(ss)


@pytest.mark.browser
def test_app_capture_is_reused_while_it_matches(small_app_capture, capsys):
    out, s = small_app_capture
    r = capture_apps(out, ["datasette"], states={"datasette": ["database", "table_sensors"]})
    assert r["datasette"]["reused"] and r["datasette"]["samples"] == s["samples"]
    assert "reused datasette" in capsys.readouterr().out


@pytest.mark.browser
def test_app_capture_is_not_reused_after_its_spec_changed(small_app_capture, monkeypatch):
    import guilab.grounding.apps as A
    out, _ = small_app_capture
    assert A.app_capture_matches(out, "datasette", states=["database", "table_sensors"])
    monkeypatch.setattr(A, "_spec_hash", lambda app: "0" * 16)               # apps.yaml edited: steps or commands differ
    assert not A.app_capture_matches(out, "datasette", states=["database", "table_sensors"])
