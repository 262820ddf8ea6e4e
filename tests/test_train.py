"""Training stages (issue 7): reward terms as PAGER §3.4 defines them (parameter credit only on a type match), a
killed SFT run resumes from its last trainer checkpoint, and a finished stage is reused, not retrained."""
import json, os, signal, subprocess, sys, time
from pathlib import Path

from hypothesis import given, settings, strategies as st
from conftest import ROOT

from guilab.train.grpo import reward_terms, make_reward_funcs

TYPES = ["click", "draw", "drag", "type", "key", "done"]
num = st.floats(-2000, 3000, allow_nan=False)

def gt_of(t, x, y):
    return {"click": {"type": "click", "bbox": [x, y, x + 40, y + 30]}, "draw": {"type": "draw", "point": [x, y]},
            "drag": {"type": "drag", "point": [x, y], "point2": [y, x]}, "type": {"type": "type", "text": "Circle(A,B)"},
            "key": {"type": "key", "key": "Enter"}, "done": {"type": "done"}}[t]

@settings(max_examples=300, deadline=None)
@given(st.sampled_from(TYPES), st.sampled_from(TYPES), num, num, num, num, st.text(max_size=12))
def test_param_credit_only_on_type_match_and_bounded(tg, ta, x, y, px, py, text):
    g = gt_of(tg, x, y)
    a = {"type": ta, "x": px, "y": py, "x2": py, "y2": px, "text": text, "key": text}
    r = reward_terms(a, g)
    assert r["type"] == float(ta == tg)
    assert 0.0 <= r["param"] <= 1.0 and (r["param"] == 0.0 or ta == tg)

@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_reward_functions_never_raise_on_model_text(text):
    fns = make_reward_funcs(64)
    kw = dict(gt=[json.dumps({"type": "draw", "point": [10.0, 10.0]})], size=[[1280, 800]])
    for f in fns: assert f([text], **kw)[0] in (0.0, 1.0) or 0.0 <= f([text], **kw)[0] <= 1.0

def test_closer_draw_earns_more():
    g = {"type": "draw", "point": [500.0, 400.0]}
    rs = [reward_terms({"type": "draw", "x": 500.0 + d, "y": 400.0}, g)["param"] for d in (0, 4, 20, 60, 105, 300)]
    assert rs[0] == rs[1] == 1.0 and rs[1] > rs[2] > rs[3] > rs[4] == 0.0 == rs[5]

SCRIPT = r'''
import sys, torch
torch.set_num_threads(1)
from guilab.core import load_params
from guilab.train.pipeline import train_pipeline
P = load_params("params/default.yaml", overrides=[f"train.runs_dir={sys.argv[1]}", "train.data.problems=[generated:4:0]",
    "train.model.image_size=224", "train.model.loc_bins=32", "train.sft.max_examples=48", "train.sft.max_steps=12",
    "train.sft.per_device_train_batch_size=4", "train.sft.save_steps=2", "train.sft.logging_steps=1", "train.copy_warmup=null"])
res = train_pipeline(P, stages=("sft",), progress=False)
print("DONE", res["checkpoints"]["sft"])
'''

def _parses(p):
    try: json.loads(p.read_text()); return True
    except (OSError, ValueError): return False

def test_killed_sft_resumes_from_checkpoint_and_finished_is_reused(tmp_path):
    runs = tmp_path / "runs"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    p = subprocess.Popen([sys.executable, "-c", SCRIPT, str(runs)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    t0 = time.time()
    while time.time() - t0 < 300 and p.poll() is None and not any(map(_parses, runs.glob("sft-*.work/checkpoint-*/trainer_state.json"))):
        time.sleep(0.05)   # a complete checkpoint: trainer_state.json is written last and not atomically (CI killed mid-write once)
    assert p.poll() is None, "the run ended before it could be killed: " + p.stderr.read().decode()[-2000:]
    os.killpg(p.pid, signal.SIGKILL); p.wait()
    from guilab.train.sft import last_checkpoint
    ck_at_kill = int(last_checkpoint(next(runs.glob("sft-*.work"))).name.split("-")[1])   # the newest complete one
    curves = next(runs.glob("sft-*.curves.jsonl"))
    before = [json.loads(l)["step"] for l in curves.read_text().splitlines()]
    assert before and max(before) < 12 and not list(runs.glob("sft-*[!k]/guilab_train.json"))
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(runs)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    ck = Path(r.stdout.split("DONE ")[1].strip())
    info = json.loads((ck / "guilab_train.json").read_text())
    assert info["steps"] == 12
    steps = [json.loads(l)["step"] for l in curves.read_text().splitlines()]
    assert min(s for s in steps[len(before):]) > ck_at_kill   # the second run went on from the checkpoint, not from step 1
    t = (ck / "guilab_train.json").stat().st_mtime_ns
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(runs)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and (ck / "guilab_train.json").stat().st_mtime_ns == t   # reused
