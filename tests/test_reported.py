"""Checks params/reported/*.yaml, the numbers the four seeds report, against the seed texts.

* schema: required fields, types, unique keys, unique (table, row, column) cells, allowed units;
* provenance: every quote occurs verbatim in its seed (whitespace runs collapsed to one space) and contains the
  entry's value as printed (with or without thousands separators / trailing %, or as a Chinese numeral such as 十四);
  every section names a part of the seed (its heading, or an English label whose number is a heading of the seed)
  and every title occurs in the seed;
* a hand-picked sample of values read off the seeds, so that a wrong transcription fails;
* internal consistency of the surviving tables (sums, shares and rounded accuracies recomputed from the counts);
* a minimum number of entries per system.

The seeds live in <repo_root>/../shared/seeds; checks that need them are skipped when that folder is absent.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
REPORTED = ROOT / "params" / "reported"
SEEDS = ROOT.parent / "shared" / "seeds"

FILES = {  # file -> (system, seed)
    "pager.yaml": ("PAGER", "000_7c1ace65400c2a1a.txt"),
    "lbs.yaml": ("LBS", "001_e16bd0dc4aa89687.txt"),
    "vlaa.yaml": ("VLAA-GUI", "002_01321794b9c75fb8.txt"),
    "gracebench.yaml": ("GraceBench", "003_f3875c07ccbef53d.txt"),
}
MIN_ENTRIES = {"PAGER": 60, "LBS": 280, "VLAA-GUI": 15, "GraceBench": 60}
UNITS = {"count", "percent", "score", "ratio", "rho", "p_value", "steps", "px", "seconds", "hours", "other"}
REQUIRED = ("key", "value", "unit", "section", "table", "row", "column", "quote")
KEY_RE = re.compile(r"[a-z0-9_]+(\.[a-z0-9_]+)+")


def collapse(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


_CN = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def cn_int(s: str) -> int | None:
    "Chinese numeral 0..99 ('十四' -> 14, '两' -> 2); None when `s` is not one."
    if "十" in s:
        parts = s.split("十")
        if len(parts) != 2 or len(parts[0]) > 1 or len(parts[1]) > 1: return None
        t = _CN.get(parts[0]) if parts[0] else 1
        o = _CN.get(parts[1]) if parts[1] else 0
        return None if t is None or o is None else 10 * t + o
    return _CN.get(s) if len(s) == 1 else None


def numbers_in(q: str) -> list[float]:
    "Every number printed in `q`: 4,906 / 4906 / 94.11% / 0.6391 / 十四."
    toks = re.findall(r"(?<![\d.])(?:\d{1,3}(?:,\d{3})+(?![\d,])(?:\.\d+)?|\d+(?:\.\d+)?)", q)
    out = [float(t.replace(",", "")) for t in toks]
    out += [v for t in re.findall(r"[零一二两三四五六七八九十]+", q) if (v := cn_int(t)) is not None]
    return out


def test_numbers_in_parser():
    assert numbers_in("包含 4,906 道题目") == [4906.0]
    assert numbers_in("4,443/463") == [4443.0, 463.0]
    assert numbers_in("[0,1000]") == [0.0, 1000.0]
    assert 94.11 in numbers_in("占比达 94.11%")
    assert 14 in numbers_in("十四个基线模型") and 2 in numbers_in("两个") and 10 in numbers_in("十类")
    assert 4906 not in numbers_in("49,06")


def load(name: str) -> dict:
    p = REPORTED / name
    assert p.is_file(), f"missing {p}"
    return yaml.safe_load(p.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def docs() -> dict[str, dict]:
    return {name: load(name) for name in FILES}


@pytest.fixture(scope="module")
def seeds() -> dict[str, str]:
    if not SEEDS.is_dir():
        pytest.skip(f"seed folder {SEEDS} is absent (expected at <repo_root>/../shared/seeds); quote checks skipped")
    return {seed: collapse((SEEDS / seed).read_text(encoding="utf-8")) for _, seed in FILES.values() if (SEEDS / seed).is_file()}


def values(doc: dict) -> dict[str, float]:
    return {e["key"]: e["value"] for e in doc["entries"]}


def test_no_unexpected_files():
    assert sorted(p.name for p in REPORTED.glob("*.yaml")) == sorted(FILES)


@pytest.mark.parametrize("name", FILES)
def test_schema(name):
    d = load(name)
    system, seed = FILES[name]
    assert set(d) <= {"seed", "system", "title", "entries", "lost"}, set(d)
    assert d["system"] == system and d["seed"] == seed
    assert isinstance(d["title"], str) and d["title"].strip()
    assert isinstance(d.get("lost", []), list) and all(isinstance(x, str) and x.strip() for x in d.get("lost", []))
    assert isinstance(d["entries"], list) and d["entries"]
    keys, cells, problems = set(), set(), []
    for e in d["entries"]:
        k = e.get("key")
        if set(REQUIRED) - set(e): problems.append(f"{k}: missing {set(REQUIRED) - set(e)}")
        if set(e) - set(REQUIRED) - {"note"}: problems.append(f"{k}: unknown fields {set(e) - set(REQUIRED) - {'note'}}")
        if not isinstance(k, str) or not KEY_RE.fullmatch(k): problems.append(f"{k!r}: key must be dotted ascii snake_case")
        if k in keys: problems.append(f"{k}: duplicate key")
        keys.add(k)
        v = e.get("value")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v): problems.append(f"{k}: value {v!r} is not a number")
        if e.get("unit") not in UNITS: problems.append(f"{k}: unit {e.get('unit')!r} not in {sorted(UNITS)}")
        for f in ("section", "table", "row", "column", "quote"):
            if not isinstance(e.get(f), str) or not e[f].strip(): problems.append(f"{k}: {f} must be a non-empty string")
        if not isinstance(e.get("note", ""), str): problems.append(f"{k}: note must be a string")
        if isinstance(e.get("quote"), str) and not 5 <= len(collapse(e["quote"])) <= 120: problems.append(f"{k}: quote length {len(e['quote'])}")
        cell = (e.get("table"), e.get("row"), e.get("column"))
        if cell in cells: problems.append(f"{k}: cell {cell} already used")
        cells.add(cell)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", FILES)
def test_seed_file_exists(name):
    if not SEEDS.is_dir(): pytest.skip(f"seed folder {SEEDS} is absent")
    assert (SEEDS / FILES[name][1]).is_file()


@pytest.mark.parametrize("name", FILES)
def test_quotes_in_seed(name, seeds):
    d = load(name)
    text = seeds[d["seed"]]
    assert collapse(d["title"]) in text, "title not in seed"
    problems = []
    for e in d["entries"]:
        q = collapse(e["quote"])
        i = text.find(q)
        if i < 0:
            problems.append(f"{e['key']}: quote not in seed: {q!r}"); continue
        # the quote must not cut a printed number in two (e.g. '2.20' taken from '62.20')
        if q[0].isdigit() and i > 0 and (text[i - 1].isdigit() or text[i - 1] in ".,"):
            problems.append(f"{e['key']}: quote starts inside a number: {q!r}")
        j = i + len(q)
        if q[-1].isdigit() and j < len(text) and (text[j].isdigit() or (text[j] in ".," and j + 1 < len(text) and text[j + 1].isdigit())):
            problems.append(f"{e['key']}: quote ends inside a number: {q!r}")
        if not any(abs(n - e["value"]) < 1e-9 for n in numbers_in(q)):
            problems.append(f"{e['key']}: value {e['value']} not printed in quote {q!r}")
        if not section_in_seed(e["section"], text):
            problems.append(f"{e['key']}: section {e['section']!r} not in seed")
    assert not problems, "\n".join(problems)


ENGLISH_UNNUMBERED = {"Abstract": ("摘要",), "Introduction": ("引言",), "Conclusion": ("结论",)}
# English labels of the seeds' unnumbered headings (read off the seeds by hand): the label must translate a heading
# the seed has, so a label that names no part of the seed still fails
ENGLISH_HEADINGS = {
    "Main contributions": "主要贡献", "Evaluation results": "评测结果", "Observation trajectories": "观察轨迹",
    "Evaluation protocol, metrics and trajectory selection": "评测协议、指标口径与轨迹选取",
    "ScreenSpot-Pro: domains and target types": "ScreenSpot-Pro：领域与目标类型",
    "ScreenSpot-Pro: samples and text / icon accuracy of all 26 applications": "全部 26 个应用的样本数与文本／图标准确率",
    "PerceptionBench: ten visual-perception categories": "PerceptionBench：十类视觉感知任务",
    "Combining evidence from different regions": "综合不同区域的证据",
    "Transferring observation to high-resolution VQA": "将观察能力迁移到高分辨率视觉问答",
    "Multi-turn zoom-in observation protocol": "多轮放大观察协议", "Training: GRPO on crop trajectories": "训练：基于裁剪轨迹的 GRPO",
    "Evaluation: fixed protocol and local serving": "评测：固定协议与本地服务",
    "Training data and rollout records": "训练数据与 rollout 记录", "Repository structure": "仓库结构",
    "Run and release scripts": "运行与发布脚本", "Data and scope of use": "数据与使用范围",
    "VLAA-GUI's three helpers (lay summary)": "VLAA-GUI 的三大“超级助手”",
}


def section_in_seed(section: str, text: str) -> bool:
    """A section label names a part of the seed: the seed's own heading (in its language), or an English label
    whose leading number ("4.2 …", "§4.2 …", "Appendix B …") is a heading line of the seed, or an English name of an
    unnumbered part (Abstract) whose heading the seed has."""
    if collapse(section) in text:
        return True
    m = re.match(r"\s*(?:§\s*|Appendix\s+)?([A-Z]?\d+(?:\.\d+)*|[A-Z](?=\b))", section)
    if m and re.search(r"(?:^|\s|附录)\s*" + re.escape(m.group(1)) + r"\.?\s+\S", text):   # texts are whitespace-collapsed
        return True
    if section in ENGLISH_HEADINGS: return collapse(ENGLISH_HEADINGS[section]) in text
    return any(section.startswith(k) and any(h in text for h in hs) for k, hs in ENGLISH_UNNUMBERED.items())


def test_section_labels_in_english_name_a_seed_heading():
    text = "摘要。x 1 引言 4.2 GUI 智能体因不稳定执行而失败 表 3 共 14.2 项"
    assert section_in_seed("4.2 GUI agents fail through unstable execution", text)
    assert section_in_seed("4.2 GUI 智能体因不稳定执行而失败", text)
    assert section_in_seed("Abstract", text)
    assert not section_in_seed("4.7 Nowhere", text)
    assert not section_in_seed("14 Nowhere", text)
    assert not section_in_seed("Conclusion", text)
    assert section_in_seed("4. Results", "x 4. 实验结果 (Results) y") and not section_in_seed("Main contributions", text)


SAMPLE = {  # values read off the seeds by hand
    ("pager.yaml", "table1.problems"): 4906,
    ("pager.yaml", "table1.actions"): 224497,
    ("pager.yaml", "table1.medium_hard_share"): 94.11,
    ("pager.yaml", "table3.full.overall"): 29.52,
    ("pager.yaml", "table3.full.tsr"): 23.78,
    ("pager.yaml", "table3.sft.overall"): 20.47,
    ("pager.yaml", "table2.pager.ssr"): 62.20,
    ("pager.yaml", "table2.claude_sonnet_4_6.aa"): 95.85,
    ("pager.yaml", "radar.pager.middle"): 41.3,
    ("pager.yaml", "categories.pager.multi_step_planning"): 55.04,
    ("lbs.yaml", "screenspot_pro_app.pycharm.overall"): 82.05,
    ("lbs.yaml", "screenspot_pro_app.autocad.icon"): 0.0,
    ("lbs.yaml", "screenspot_pro_app.eviews.samples"): 50,
    ("lbs.yaml", "screenspot_pro_domain.all.overall"): 81.15,
    ("lbs.yaml", "perceptionbench.hallu.correct"): 119,
    ("lbs.yaml", "results.osworld_g.score"): 84.57,
    ("lbs.yaml", "results.hrbench_8k.score"): 87.75,
    ("lbs.yaml", "protocol.max_crops_total"): 3,
    ("vlaa.yaml", "vlaa_main.osworld.opus_4_6.sr"): 77.5,
    ("vlaa.yaml", "vlaa_main.osworld.human.sr"): 72.4,
    ("vlaa.yaml", "vlaa_main.waa.gemini_3_flash.sr"): 61.0,
    ("vlaa.yaml", "vlaa_ablation.loop_breaker.gemini_3_flash.wasted_steps_without"): 4.9,
    ("gracebench.yaml", "gracebench_spearman.detailed.dr"): 0.9516,
    ("gracebench.yaml", "gracebench_spearman.concise.lbr"): 0.8381,
    ("gracebench.yaml", "dataset.utg_states"): 2909,
    ("gracebench.yaml", "gracebench_main.qwen3_8_27b.detailed.lbr"): 0.7412,
    ("gracebench.yaml", "gracebench_outcome.failed.concise.ra"): 0.5918,
}


@pytest.mark.parametrize("name,key", list(SAMPLE))
def test_sample_values(docs, name, key):
    v = values(docs[name])
    assert key in v, f"{name}: no entry {key}"
    assert v[key] == pytest.approx(SAMPLE[(name, key)], abs=1e-9)


@pytest.mark.parametrize("name", FILES)
def test_minimum_entries(docs, name):
    system = FILES[name][0]
    assert len(docs[name]["entries"]) >= MIN_ENTRIES[system]


def _share(num: float, den: float) -> float:
    return 100 * num / den


def test_pager_table1_consistent(docs):
    v = values(docs["pager.yaml"])
    p = v["table1.problems"]
    assert v["table1.train"] + v["table1.test"] == p
    assert v["table1.choice"] + v["table1.open"] == p
    assert abs(_share(v["table1.open"], p) - v["table1.open_share"]) <= 0.005 + 1e-9
    for what, per in (("labels", "labels_per_problem"), ("tasks", "tasks_per_problem"), ("actions", "actions_per_problem")):
        assert abs(v[f"table1.{what}"] / p - v[f"table1.{per}"]) <= 0.005 + 1e-9, what
    assert v["table3.full.overall"] - v["table3.sft.overall"] == pytest.approx(29.52 - 20.47)
    assert round(v["table2.pager.overall"], 1) == v["radar.pager.overall"]


def _acc_ok(acc: float, n: int) -> int | None:
    "The integer number of correct records behind a rounded accuracy (%), or None when none fits."
    hits = [k for k in range(n + 1) if abs(_share(k, n) - acc) <= 0.005 + 1e-9]
    return hits[0] if hits else None


def test_lbs_screenspot_consistent(docs):
    d = docs["lbs.yaml"]
    v = values(d)
    rows: dict[tuple[str, str], dict[str, float]] = {}
    for e in d["entries"]:
        if e["table"] in ("screenspot_pro_domain", "screenspot_pro_app") and e["key"].count(".") == 2:
            t, r, m = e["key"].split(".")
            rows.setdefault((t, r), {})[m] = e["value"]
    apps = [r for (t, r) in rows if t == "screenspot_pro_app"]
    assert len(apps) == 26 and v["screenspot_pro_domain.applications"] == 26
    problems = []
    for (t, r), c in rows.items():
        if c["text_samples"] + c["icon_samples"] != c["samples"]: problems.append(f"{t}.{r}: text+icon != samples")
        kt, ki = _acc_ok(c["text"], c["text_samples"]), _acc_ok(c["icon"], c["icon_samples"])
        if kt is None or ki is None: problems.append(f"{t}.{r}: text/icon accuracy not k/n"); continue
        if abs(_share(kt + ki, c["samples"]) - c["overall"]) > 0.005 + 1e-9: problems.append(f"{t}.{r}: overall != micro-average")
    assert not problems, "\n".join(problems)
    dom_of = {e["key"].split(".")[1]: e["note"].removeprefix("domain: ") for e in d["entries"]
              if e["table"] == "screenspot_pro_app" and e["key"].endswith(".samples")}
    dom_rows = {e["row"]: e["key"].split(".")[1] for e in d["entries"] if e["table"] == "screenspot_pro_domain" and e["key"].endswith(".samples")}
    for dom, dkey in dom_rows.items():
        if dkey == "all": continue
        for m in ("samples", "text_samples", "icon_samples"):
            assert sum(rows[("screenspot_pro_app", a)][m] for a, dd in dom_of.items() if dd == dom) == rows[("screenspot_pro_domain", dkey)][m], (dom, m)
    for m in ("samples", "text_samples", "icon_samples"):
        assert sum(rows[("screenspot_pro_domain", k)][m] for k in dom_rows.values() if k != "all") == rows[("screenspot_pro_domain", "all")][m]
    assert rows[("screenspot_pro_domain", "all")]["overall"] == v["results.sspro.score"]
    assert rows[("screenspot_pro_domain", "all")]["samples"] == v["results.sspro.samples"]


def test_lbs_perceptionbench_and_totals_consistent(docs):
    v = values(docs["lbs.yaml"])
    cats = sorted({k.split(".")[1] for k in v if k.startswith("perceptionbench.") and k.endswith(".correct")} - {"overall"})
    assert len(cats) == v["perceptionbench.categories"] == 10
    for c in cats:
        assert abs(_share(v[f"perceptionbench.{c}.correct"], v[f"perceptionbench.{c}.samples"]) - v[f"perceptionbench.{c}.accuracy"]) <= 0.005 + 1e-9, c
    assert sum(v[f"perceptionbench.{c}.samples"] for c in cats) == v["perceptionbench.overall.samples"] == v["results.perceptionbench.samples"]
    assert sum(v[f"perceptionbench.{c}.correct"] for c in cats) == v["perceptionbench.overall.correct"]
    assert v["perceptionbench.overall.accuracy"] == v["results.perceptionbench.score"]
    assert sum(v[f"results.{b}.samples"] for b in ("sspro", "osworld_g", "perceptionbench", "hrbench_4k", "hrbench_8k")) == v["release.per_sample_scores"]
    assert v["osworld_g.bbox_items"] + v["osworld_g.polygon_items"] + v["osworld_g.refusal_items"] == v["results.osworld_g.samples"]
    assert v["osworld_g.positive_items"] + v["osworld_g.refusal_items"] == v["results.osworld_g.samples"]
    assert v["hrbench.question_groups_per_split"] * v["hrbench.option_rotations"] == v["results.hrbench_4k.samples"] == v["results.hrbench_8k.samples"]


def test_gracebench_consistent(docs):
    v = values(docs["gracebench.yaml"])
    assert v["dataset.models"] * v["dataset.tasks"] * v["dataset.instruction_variants"] == v["dataset.trajectories"]
    assert v["dataset.gui_specialised_models"] + v["dataset.general_models"] == v["dataset.models"]
    assert abs(_share(v["gracebench_success_patterns.with_deviation_or_loop"], v["gracebench_success_patterns.successful_trajectories"])
               - v["gracebench_success_patterns.with_deviation_or_loop_share"]) <= 0.005 + 1e-9
    for cond in ("detailed", "concise"):
        assert v[f"gracebench_outcome.successful.{cond}.loop_rate"] * 100 == pytest.approx(v[f"gracebench_success_patterns.{cond}.loop_share"])
