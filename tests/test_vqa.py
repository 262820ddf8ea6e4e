"""guilab.grounding.vqa (issue 37, transfer part): HR-Bench / PerceptionBench loaders on small fixtures in their
published formats, strict option matching over 4 rotations, format errors recorded (never raised), the labelled
exact-match judge, an unreachable judge endpoint as an error (not a score), and the built set's determinism."""
import hashlib
import json
import os

import pytest
from PIL import Image

from guilab.bench import evaluate, read_episodes
from guilab.grounding.hrvqa import build_hrvqa_rows
from guilab.grounding.vqa import (EXACT_MATCH_LABEL, ExactMatchJudge, JudgeError, VQABench, VQAEnv, VQAItem,
                                  expand_rotations, hrbench_metrics, load_hrbench, load_perceptionbench, make_vqa_judge,
                                  parse_option, to_data_uri, write_hrbench_tsv)
from guilab.grounding.zoom import ChatAgent


@pytest.fixture(autouse=True)
def no_judge_env(monkeypatch):
    for k in ("JUDGE_BASE_URL", "JUDGE_MODEL", "JUDGE_API_KEY"): monkeypatch.delenv(k, raising=False)


def _hr_rows():
    im = Image.new("RGB", (48, 24), "white")
    return [dict(index=10, question="Colour of the car?", answer="B", A="red", B="blue", C="green", D="white", category="single", cycle_category="cycle1", image=im),
            dict(index=11, question="Colour of the car?", answer="A", A="blue", B="green", C="white", D="red", category="single", cycle_category="cycle2", image=im),
            dict(index=12, question="How many signs?", answer="C", A="1", B="2", C="3", D="4", category="cross", cycle_category="cycle1", image=im)]


def test_hrbench_loader_reads_the_published_columns(tmp_path):
    f = write_hrbench_tsv(tmp_path / "hr_bench_8k.tsv", _hr_rows())
    assert f.read_text().splitlines()[0].split("\t") == ["index", "question", "answer", "A", "B", "C", "D", "category", "cycle_category", "image"]
    items = load_hrbench(f)
    assert [(x.id, x.split, x.answer, x.rotation, x.category) for x in items] == [
        ("HRBench8K-10", "HRBench8K", "B", 0, "single"), ("HRBench8K-11", "HRBench8K", "A", 1, "single"), ("HRBench8K-12", "HRBench8K", "C", 0, "cross")]
    assert items[0].group == items[1].group != items[2].group
    assert items[1].options == {"A": "blue", "B": "green", "C": "white", "D": "red"}
    assert items[0].images()[0].size == (48, 24)


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("\tB\tred\t", "\tF\tred\t", 1), "line 2 (index 10): answer 'F' is not one of A, B, C, D"),
    (lambda t: t.replace("\tgreen\twhite\tred\t", "\tgreen\t\tred\t", 1), "line 3 (index 11): empty option C"),
    (lambda t: t.replace("\tcycle1\t", "\t", 1), "line 2: 9 fields, the header has 10"),
    (lambda t: t.replace("category\t", "kategory\t", 1), "line 1: header lacks column(s) category"),
])
def test_hrbench_malformed_rows_name_file_and_line(tmp_path, edit, message):
    f = write_hrbench_tsv(tmp_path / "hr_bench_4k.tsv", _hr_rows())
    bad = tmp_path / "bad.tsv"; bad.write_text(edit(f.read_text()))
    with pytest.raises(ValueError) as e: load_hrbench(bad)
    assert str(bad) in str(e.value) and message in str(e.value)


def _pb_file(tmp_path, records):
    f = tmp_path / "PerceptionBench.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in records))
    return f


def test_perceptionbench_loader_multi_image_and_categories(tmp_path):
    uri = to_data_uri(Image.new("RGB", (6, 4), "red"))
    Image.new("RGB", (5, 5), "blue").save(tmp_path / "b.png")
    f = _pb_file(tmp_path, [
        {"index": 0, "problem": "<|image_1|>Score?", "answer": "15400", "hint": None, "image": [uri], "error_category": "ocr_error", "source_bmk": "ZeroBench-sub", "source_idx": 189},
        {"index": 1, "problem": "<|image_1|><|image_2|>Same car?", "answer": "no", "hint": "Coordinates are [0,1000].", "image": [uri, "b.png"], "error_category": "hallucination"},
        {"index": 2, "problem": "Depth?", "answer": "left", "image": [uri], "error_category": "depth_3d_perception_error"}])
    items = load_perceptionbench(f)
    assert [(x.id, x.category, x.mcq) for x in items] == [("pb-0", "OCR", False), ("pb-1", "Hallu", False), ("pb-2", "Depth", False)]
    assert [im.size for im in items[1].images()] == [(6, 4), (5, 5)] and items[1].hint.startswith("Coordinates")
    env = VQAEnv(); obs, _ = env.reset(options={"item": items[1], "encode_images": False})
    assert len(obs["screenshots"]) == 2 and "image_2.png" in json.dumps(obs["messages"]) and "no" not in obs["question"].split()


@pytest.mark.parametrize("record, message", [
    ({"index": 3, "problem": "q", "answer": "a", "image": [], "error_category": "ocr_error"}, "line 1 (index 3): image must be a non-empty list"),
    ({"index": 3, "problem": "q", "answer": "a", "image": ["x.png"], "error_category": "colour"}, "line 1 (index 3): unknown category 'colour'"),
    ({"index": 3, "problem": "", "answer": "a", "image": ["x.png"], "error_category": "ocr_error"}, "line 1 (index 3): missing problem"),
])
def test_perceptionbench_malformed_rows_name_file_and_line(tmp_path, record, message):
    f = _pb_file(tmp_path, [record])
    with pytest.raises(ValueError) as e: load_perceptionbench(f)
    assert str(f) in str(e.value) and message in str(e.value)


def test_strict_rule_three_of_four_rotations_is_wrong():
    q = VQAItem("q", "?", "B", {"A": "red", "B": "blue", "C": "green", "D": "white"}, split="S", group="q")
    rows = expand_rotations([q])
    assert [r.options[r.answer] for r in rows] == ["blue"] * 4 and [r.answer for r in rows] == ["B", "A", "D", "C"]
    recs = [{"id": r.id, "split": "S", "group": r.group, "rotation": r.rotation, "category": "single", "correct": k != 3} for k, r in enumerate(rows)]
    m = hrbench_metrics(recs)["splits"]["S"]
    assert m["strict_accuracy"] == 0.75 and m["all_rotations_accuracy"] == 0.0 and m["per_rotation"]["3"] == 0.0
    assert [parse_option(s) for s in ["B", "(B)", "B. blue", "Answer: B", "b", "B or C", "blue"]] == ["B", "B", "B", "B", None, None, None]


def test_format_errors_are_recorded_never_raised():
    item = VQAItem("x", "Colour?", "B", {"A": "red", "B": "blue", "C": "green", "D": "white"}, loader=lambda: [Image.new("RGB", (80, 40))])
    env = VQAEnv(); env.reset(options={"item": item, "encode_images": False})
    bad = ["blue", None, "B or C", 'crop_image(image_path="nope.png", x1=0, y1=0, x2=5, y2=5)', {"x": 1}]
    for k, text in enumerate(bad):
        _, r, term, trunc, info = env.step({"type": "reply", "text": text} if not isinstance(text, dict) else text)
        assert info["format_error"] and r == 0.0
    tr = env.trajectory
    assert (term, tr["status"], tr["format_error"], tr["answer"], tr["n_corrections"]) == (True, "format_error", True, None, 4)
    free = VQAItem("y", "Colour?", "blue", {}, loader=item.loader)
    env.reset(options={"item": free, "encode_images": False})
    for _ in range(3): _, _, term, _, _ = env.step({"type": "reply", "text": "hmm\nhmm"})
    assert term and env.trajectory["n_corrections"] == 2     # free text: 2 correction turns (seed 001)


def test_exact_match_judge_is_labelled_in_every_output(tmp_path):
    uri = to_data_uri(Image.new("RGB", (6, 4)))
    f = _pb_file(tmp_path, [{"index": i, "problem": "How many?", "answer": str(i), "image": [uri], "error_category": c}
                            for i, c in enumerate(["visual_counting_error", "visual_counting_error", "ocr_error"])])
    assert isinstance(make_vqa_judge(), ExactMatchJudge)
    agent = lambda: ChatAgent(type("P", (), {"wants_images": False, "__call__": lambda self, m: "Answer: 1"})())
    s = evaluate(VQABench(data=f"perceptionbench:{f}"), agent, tmp_path / "run", progress=False)
    p = s["metrics"]["perceptionbench"]
    assert p["judge"] == EXACT_MATCH_LABEL == "exact-match (no endpoint configured)" and s["settings"]["judge"]["judge"] == EXACT_MATCH_LABEL
    assert p["overall"] == 1 / 3 and p["by_category"]["Count"] == {"n": 2, "correct": 1, "accuracy": 0.5}
    assert {r["score"]["judge"] for r in read_episodes(tmp_path / "run")} == {EXACT_MATCH_LABEL}


def test_unreachable_judge_endpoint_is_an_error_not_a_score(tmp_path, monkeypatch):
    monkeypatch.setenv("SECRET_JUDGE_KEY", "sk-do-not-write-me")
    uri = to_data_uri(Image.new("RGB", (6, 4)))
    f = _pb_file(tmp_path, [{"index": 0, "problem": "q", "answer": "1", "image": [uri], "error_category": "ocr_error"}])
    j = make_vqa_judge("http://127.0.0.1:9/v1", "judge-m", api_key_env="SECRET_JUDGE_KEY", timeout=2, retries=0)
    with pytest.raises(JudgeError, match="judge endpoint http://127.0.0.1:9/v1 .* failed"): j("q", "1", "1")
    bm = VQABench(data=f"perceptionbench:{f}", judge_base_url="http://127.0.0.1:9/v1", judge_model="judge-m", judge_api_key_env="SECRET_JUDGE_KEY")
    bm.judge.retries, bm.judge.timeout = 0, 2
    agent = lambda: ChatAgent(type("P", (), {"wants_images": False, "__call__": lambda self, m: "Answer: 1"})())
    s = evaluate(bm, agent, tmp_path / "run", progress=False, raise_on_error=False)
    assert (s["n_ok"], s["n_error"], s["metrics"]) == (0, 1, None) and "JudgeError" in s["errors"][0]["error"]
    written = "".join(p.read_text() for p in (tmp_path / "run").glob("*.json*"))
    assert "sk-do-not-write-me" not in written and "SECRET_JUDGE_KEY" in written


def test_built_set_is_deterministic_under_a_seed():
    h = lambda rows: [(r["question"], r["answer"], tuple(r[L] for L in "ABCD"), hashlib.sha256(r["image"].tobytes()).hexdigest()) for r in rows]
    a, b = build_hrvqa_rows(3, seed=5), build_hrvqa_rows(3, seed=5)
    assert h(a) == h(b) and h(a) != h(build_hrvqa_rows(3, seed=6))
    r = a[0]
    assert r["image"].size == (3840, 2160) and len({r[L] for L in "ABCD"}) == 4 and r[r["answer"]] and 9 <= r["text_px"] <= 12


def test_registered_benchmark_builds_rotations_of_the_built_set():
    from guilab.bench import make_benchmark
    bm = make_benchmark("vqa", data="hrvqa:2:0")
    tasks = bm.tasks()
    assert type(bm).__name__ == "VQABench" and len(tasks) == 8 and {t.rotation for t in tasks} == {0, 1, 2, 3}
    assert all(t.options[t.answer] == tasks[4 * (k // 4)].options[tasks[4 * (k // 4)].answer] for k, t in enumerate(tasks))
