"""Tests of guilab.pagebench.problems: the Euclid set, the generator, the PAGE Bench loader and the relation checks.

Every reference construction is rebuilt with the geometry kernel and must have every object defined, every point
inside its window (2% margin), no two distinct points closer than 1% of the window diagonal, no intersection
crossing at less than 10 degrees, and every check true. Choice answers are recomputed from the kernel."""
import json, math, re
from pathlib import Path
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from guilab.core import CATEGORIES, DIFFICULTIES, Problem, RecordError, read_jsonl
from guilab.geo.kernel import Construction, parse_command
from guilab.pagebench.problems import (
    CheckError, check_relations, conditioning, euclid_problems, generate_problem, generate_problems, load_pagebench,
    load_problems, map_category, save_problems, validate_problem, problem_stats, cmd_labels)

EUCLID = euclid_problems()
GEN = generate_problems(1000, 0)

# docs/records.md subset (Point(obj, t) is the kernel's point-on-object; Vector only nested in Translate)
SUBSET = {"Point", "Segment", "Line", "Ray", "PerpendicularLine", "PerpendicularBisector", "AngleBisector", "Midpoint",
          "Circle", "Semicircle", "Intersect", "Tangent", "Polygon", "Angle", "Distance", "Text", "Rotate", "Reflect",
          "Translate", "Dilate"}


def command_name(cmd):
    return parse_command(cmd)[3]


# ----------------------------------------------------------------------------------------------------- Euclid
def test_euclid_count_ids_and_fields():
    assert len(EUCLID) >= 40
    ids = [p.id for p in EUCLID]
    assert len(set(ids)) == len(ids)
    books = Counter(p.extra["book"] for p in EUCLID)
    assert set(books) == {"I", "III", "IV"} and books["IV"] == 16
    for p in EUCLID:
        assert p.source == "euclid" and p.question_type == "open" and p.id == f"euclid-{p.extra['proposition']}"
        assert p.extra["givens"] and p.extra["checks"]
        assert p.difficulty in DIFFICULTIES and set(p.categories) <= set(CATEGORIES)
        assert Problem.from_dict(p.to_dict()) == p
    # the propositions the brief names are all there
    props = {p.extra["proposition"] for p in EUCLID}
    for want in ["I.1", "I.2", "I.3", "I.9", "I.10", "I.11", "I.12", "I.22", "I.23", "I.31", "I.42", "I.44", "I.45", "I.46",
                 "III.1", "III.17", "III.25", "III.30", "III.33"] + [f"IV.{i}" for i in range(1, 17)]:
        assert want in props, want


@pytest.mark.parametrize("p", EUCLID, ids=lambda p: p.id)
def test_euclid_validates(p):
    assert validate_problem(p) == []


@pytest.mark.parametrize("p", EUCLID, ids=lambda p: p.id)
def test_euclid_uses_design_subset_and_givens_first(p):
    names = {command_name(c) for c in p.construction}
    assert names - {"_point", None} <= SUBSET, names - SUBSET
    # the givens come first (the statement provides them) and are free or defined only from other givens
    given = set(p.extra["givens"])
    first = [bool(set(cmd_labels(c)) & given) for c in p.construction]
    assert first == sorted(first, reverse=True), "givens must precede the construction steps"
    c = Construction.from_commands(p.construction)
    for lab in given:
        assert set(c[lab].inputs) <= given, (lab, c[lab].inputs)


def _perturbed(p, label):
    "The construction with point `label` replaced by a free point 0.05 off its true position."
    c = Construction.from_commands(p.construction)
    x, y = c.coords(label)
    out = []
    for cmd in p.construction:
        labs = cmd_labels(cmd)
        if labs == [label]: out.append(f"{label}=({x + 0.05!r},{y - 0.03!r})")
        elif label in labs:
            return None   # multi-output command: not perturbable this way
        else: out.append(cmd)
    return out


@pytest.mark.parametrize("p", EUCLID, ids=lambda p: p.id)
def test_euclid_checks_detect_a_wrong_point(p):
    "Moving any constructed point that a check mentions makes some check fail (the checks are not vacuous)."
    given = set(p.extra["givens"])
    c = Construction.from_commands(p.construction)
    mentioned = {t for chk in p.extra["checks"] for t in re.findall(r"[A-Za-zα-ω][\w']*", chk.split("(", 1)[1])}
    pts = [l for l in mentioned if l in c.objects and c[l].kind == "point" and l not in given and not c[l].free]
    assert pts or all(l in given for l in mentioned if l in c.objects and c[l].kind == "point"), p.id
    for lab in pts:
        cmds = _perturbed(p, lab)
        if cmds is None: continue
        res = check_relations(cmds, p.extra["checks"])
        assert not all(res.values()), (p.id, lab)


def test_euclid_specific_geometry():
    by = {p.extra["proposition"]: p for p in EUCLID}
    c = Construction.from_commands(by["I.1"].construction)
    assert c.coords("C") == pytest.approx((2.0, math.sqrt(12)))          # apex above AB, as in Euclid's figure
    c = Construction.from_commands(by["I.10"].construction)
    assert c.coords("D") == pytest.approx((2.5, 0.5))
    c = Construction.from_commands(by["III.1"].construction)
    assert c.coords("F") == pytest.approx((1.0, 2.0))                   # the centre of the circle through A, B, K
    c = Construction.from_commands(by["IV.10"].construction)
    assert c.value("t1") > 0 and math.degrees(math.acos((25 + 25 - c.value("i_1") ** 2) / 50)) == pytest.approx(36.0)
    c = Construction.from_commands(by["IV.11"].construction)
    assert c.value("p1") == pytest.approx(2.5 * 16 * math.sin(math.radians(72)))   # regular pentagon in r = 4
    assert "method" in by["I.3"].extra and "I.2" in by["I.3"].extra["method"]
    # I.2 follows Euclid (equilateral triangle and circles), not a translation shortcut
    assert not any(command_name(x) in ("Translate", "Rotate") for x in by["I.2"].construction)


# --------------------------------------------------------------------------------------------------- checks
def test_check_relations_kernel_and_extra():
    cmds = ["A=(0,0)", "B=(4,0)", "C=(0,3)", "a=Segment(B,C)", "l=Line(A,B)", "m=Line(A,C)", "c=Circle(A,B)"]
    r = check_relations(cmds, ["perpendicular(l,m)", "parallel(l,m)", "incident(B,c)", "incident(C,c)",
                               "angle_is(B,A,C,90)", "equal_product(A,B,A,B,A,C,B,C)", "area_sum([A,B,C],[A,B,C],[A,A,A])"])
    assert r == {"perpendicular(l,m)": True, "parallel(l,m)": False, "incident(B,c)": True, "incident(C,c)": False,
                 "angle_is(B,A,C,90)": True, "equal_product(A,B,A,B,A,C,B,C)": False, "area_sum([A,B,C],[A,B,C],[A,A,A])": True}
    with pytest.raises(CheckError, match="unknown relation"): check_relations(cmds, ["similar(A,B)"])
    with pytest.raises(CheckError, match="unknown object"): check_relations(cmds, ["incident(Z,c)"])
    with pytest.raises(CheckError): check_relations(cmds, ["parallel(A,B)"])     # points are not lines: kernel TypeError


def test_conditioning_flags_grazing_intersection():
    good = Construction.from_commands(["A=(0,0)", "B=(4,0)", "c=Circle(A,B)", "d=Circle(B,A)", "C=Intersect(c,d,1)"])
    assert conditioning(good)["min_cross"] == pytest.approx(60.0)
    bad = Construction.from_commands(["A=(0,0)", "B=(7.99,0)", "c=Circle(A,4)", "d=Circle(B,4)", "C=Intersect(c,d,1)"])
    assert conditioning(bad)["min_cross"] < 10
    p = Problem.from_dict({"id": "x", "source": "t", "text": "t", "question_type": "open", "grade": "8", "difficulty": "easy",
                           "categories": [], "window": {"xmin": -5, "xmax": 13, "ymin": -5, "ymax": 5},
                           "construction": ["A=(0,0)", "B=(7.99,0)", "c=Circle(A,4)", "d=Circle(B,4)", "C=Intersect(c,d,1)"]})
    assert any("crosses at" in e for e in validate_problem(p))


# ------------------------------------------------------------------------------------------------ generator
def test_generator_deterministic_and_seed_dependent():
    again = generate_problems(1000, 0)
    assert [p.to_dict() for p in again] == [p.to_dict() for p in GEN]
    other = generate_problems(50, 1)
    assert sum(a.text != b.text for a, b in zip(GEN[:50], other)) >= 45
    assert generate_problem(0, 777).to_dict() == GEN[777].to_dict()       # problem i depends only on (seed, i)
    assert len({p.id for p in GEN}) == 1000


def test_generator_all_validate():
    bad = {p.id: validate_problem(p) for p in GEN}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, list(bad.items())[:5]


def test_generator_coverage():
    cats = Counter(c for p in GEN for c in p.categories)
    assert set(cats) == set(CATEGORIES), set(CATEGORIES) - set(cats)
    assert min(cats.values()) >= 50
    assert set(p.difficulty for p in GEN) == set(DIFFICULTIES)
    assert min(Counter(p.difficulty for p in GEN).values()) >= 50
    qt = Counter(p.question_type for p in GEN)
    assert set(qt) == {"open", "choice"} and 0.3 <= qt["choice"] / 1000 <= 0.55
    assert {int(p.grade) for p in GEN} <= set(range(6, 13)) and len({p.grade for p in GEN}) >= 5
    assert len({p.extra["template"] for p in GEN}) >= 20
    for p in GEN:
        assert set(p.categories) <= set(CATEGORIES) and p.categories == sorted(p.categories, key=CATEGORIES.index)
        assert {command_name(c) for c in p.construction} - {"_point", None} <= SUBSET
    stats = problem_stats(GEN)
    assert stats["n"] == 1000 and 3 <= stats["labels_per_problem"] <= 8


NUM = re.compile(r"-?\d+(?:\.\d+)?")


def test_choice_answers_match_the_construction():
    n = 0
    for p in GEN:
        if p.question_type != "choice":
            assert p.choices is None and p.answer is None
            continue
        n += 1
        assert len(p.choices) == 4 and len(set(p.choices)) == 4 and p.answer in "ABCD"
        c = Construction.from_commands(p.construction)
        a = p.extra["answer_of"]
        true = list(c.coords(a["label"])) if a["kind"] == "point" else [c.value(a["label"])]
        right = p.choices["ABCD".index(p.answer)]
        got = [float(x) for x in NUM.findall(right)]
        assert len(got) == len(true) and all(abs(g - t) <= 0.005 + 1e-9 for g, t in zip(got, true)), (p.id, right, true)
        for j, o in enumerate(p.choices):
            if j == "ABCD".index(p.answer): continue
            vals = [float(x) for x in NUM.findall(o)]
            assert max(abs(v - t) for v, t in zip(vals, true)) > 0.01, (p.id, o, true)    # no distractor is also right
        assert all(f"({L}) {o}" in p.text for L, o in zip("ABCD", p.choices))
    assert n > 300


def _f(v):
    s = f"{round(v, 2):.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


@pytest.mark.parametrize("p", EUCLID + GEN[:300], ids=lambda p: p.id)
def test_text_states_every_given_point(p):
    "Each free given point appears in the statement with its coordinates, e.g. 'A(1, -2)'."
    c = Construction.from_commands(p.construction)
    for g in p.extra["givens"]:
        if c[g].kind == "point" and c[g].free:
            x, y = c.coords(g)
            assert f"{g}({_f(x)}, {_f(y)})" in p.text, (p.id, g)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(0, 10 ** 4))
def test_any_seed_gives_valid_problems(seed, i):
    p = generate_problem(seed, i)
    assert validate_problem(p) == []
    assert p.id == f"gen-{seed}-{i:05d}"


# --------------------------------------------------------------------------------------------------- loader
RECORDS = [
    {"id": 101, "question": "已知 A(0,0), B(4,0)，作等边三角形 ABC。", "题型": "作图题", "年级": "初二", "难度": "简单",
     "类别": "语言到工具的落地、物体构建、辅助构建", "任务": ["c=Circle(A,B)", "d=Circle(B,A)", "C=Intersect(c,d,1)"],
     "ggb_commands": ["A=(0,0)", "B=(4,0)", "c=Circle(A,B)", "d=Circle(B,A)", "C=Intersect(c,d,1)", "t1=Polygon(A,B,C)"],
     "image": "imgs/101.png", "split": "test"},
    {"pid": "b-7", "problem": "Find the midpoint M of AB.", "question_type": "multiple-choice", "grade": 9, "difficulty": 3,
     "tags": ["Coordinate Modeling", "Measurement and Annotation", "mystery"], "options": ["(1, 1)", "(2, 2)"], "answer": "B",
     "task_list": [{"function": "Midpoint", "args": ["A", "B"], "label": "M"}],
     "commands": "A=(0,0)\nB=(4,4)\nM=Midpoint(A,B)", "view": {"xmin": -1, "xmax": 5, "ymin": -1, "ymax": 5},
     "difficulty_score": 0.7, "text": "a duplicate text field"},
]


def test_load_pagebench_jsonl_and_roundtrip(tmp_path):
    f = tmp_path / "pagebench_test.jsonl"
    f.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS), encoding="utf-8")
    ps = load_pagebench(f)
    a, b = ps
    assert (a.id, a.question_type, a.grade, a.difficulty) == ("pagebench-101", "open", "8", "easy")
    assert a.categories == ["tool_grounding", "object_construction", "auxiliary_construction"]
    assert a.extra["image"] == "imgs/101.png" and a.extra["split"] == "test"           # unknown fields kept
    assert a.extra["tasks"] == ["c=Circle(A,B)", "d=Circle(B,A)", "C=Intersect(c,d,1)"]
    assert a.extra["window_source"] == "construction points" and a.window["xmin"] < 0 < 4 < a.window["xmax"] and a.window["ymax"] > 3.5
    assert (b.question_type, b.grade, b.difficulty, b.choices, b.answer) == ("choice", "9", "hard", ["(1, 1)", "(2, 2)"], "B")
    assert b.construction == ["A=(0,0)", "B=(4,4)", "M=Midpoint(A,B)"] and b.extra["tasks"] == ["M=Midpoint(A,B)"]
    assert b.categories == ["coordinate_modeling", "measurement_annotation"] and b.extra["unmapped_categories"] == ["mystery"]
    assert b.extra["difficulty_score"] == 0.7 and b.extra["pagebench_text"] == "a duplicate text field"
    assert validate_problem(a) == [] and validate_problem(b) == []
    # round trip through our own JSONL format, and through the loader entry point
    out = save_problems(tmp_path / "ours.jsonl", ps)
    assert [Problem.from_dict(d) for d in read_jsonl(out)] == ps
    assert load_problems(out) == ps
    assert load_problems(f"pagebench:{f}") == ps


def test_load_pagebench_json_variants_and_errors(tmp_path):
    f = tmp_path / "release.json"
    f.write_text(json.dumps({"data": RECORDS}, ensure_ascii=False), encoding="utf-8")
    assert [p.id for p in load_pagebench(f)] == ["pagebench-101", "pagebench-b-7"]
    f.write_text(json.dumps(RECORDS, ensure_ascii=False), encoding="utf-8")
    assert len(load_pagebench(f)) == 2
    broken = [RECORDS[0], {k: v for k, v in RECORDS[1].items() if k not in ("problem", "text")}]
    f.write_text(json.dumps(broken, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(RecordError, match=r"release\.json\[1\] \(id b-7\): missing required field 'text'"):
        load_pagebench(f)
    g = tmp_path / "bad.jsonl"
    g.write_text(json.dumps(RECORDS[0], ensure_ascii=False) + "\n" + json.dumps({**RECORDS[1], "difficulty": "impossible"}) + "\n",
                 encoding="utf-8")
    with pytest.raises(RecordError, match=r"bad\.jsonl:2 \(id b-7\): unknown difficulty"):
        load_pagebench(g)
    g.write_text(json.dumps({"id": 1, "question": "q", "difficulty": "easy"}) + "\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r"bad\.jsonl:1 \(id 1\): missing required field 'construction'"):
        load_pagebench(g)
    with pytest.raises(FileNotFoundError): load_pagebench(tmp_path / "none.jsonl")
    # a construction the kernel cannot build still loads; its window comes from the free points and says why
    g.write_text(json.dumps({"id": 2, "question": "q", "difficulty": "easy", "ggb": ["A=(1,1)", "B=(3,2)", "C=Spline(A,B)"]}) + "\n", encoding="utf-8")
    p, = load_pagebench(g)
    assert p.extra["window_source"].startswith("free points (construction does not build") and p.window["xmax"] >= 3
    assert validate_problem(p)[0].startswith("pagebench-2: does not build")


def test_category_names():
    assert map_category("语言到工具的落地") == "tool_grounding"
    assert map_category("Real-Scene Modeling") == "real_scene_modeling"
    assert map_category("多步依赖与顺序规划") == "multi_step_planning"
    assert map_category("geometry") is None
    assert all(map_category(c) == c for c in CATEGORIES)


def test_load_problems_sources(tmp_path):
    assert [p.id for p in load_problems("euclid")] == [p.id for p in EUCLID]
    assert [p.to_dict() for p in load_problems("generated:20:0")] == [p.to_dict() for p in GEN[:20]]
    f = save_problems(tmp_path / "set.jsonl", EUCLID[:5] + GEN[:5])
    assert load_problems(f) == EUCLID[:5] + GEN[:5]
    f.write_text(f.read_text() + json.dumps({"id": "x"}) + "\n")
    with pytest.raises(RecordError, match="record 11"): load_problems(f)
    with pytest.raises(ValueError, match="generated:N:SEED"): load_problems("generated:x:1")
    with pytest.raises(FileNotFoundError): load_problems(tmp_path / "missing.jsonl")


def test_euclid_table_is_shipped_package_data():
    """The Euclid table is data (guilab/data/euclid.jsonl) that `pip install` ships: pyproject's package-data globs
    cover every file under lib/guilab/data, and the loader reads it through importlib.resources."""
    import tomllib
    from guilab.pagebench.problems import data_path, euclid_table
    root = Path(__file__).resolve().parents[1]; pkg = root / "lib" / "guilab"
    globs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["guilab"]
    files = {p for p in (pkg / "data").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    shipped = {p for g in globs for p in pkg.glob(g) if p.is_file()}   # setuptools reads these globs as pathlib/glob does
    assert pkg / "data" / "euclid.jsonl" in files
    assert files <= shipped, sorted(map(str, files - shipped))
    assert data_path("euclid.jsonl").is_file() and len(euclid_table()) == 43


# ----------------------------------------------------------------------------------------------------- category rules
from guilab.pagebench.problems import categories_for, construction_steps   # noqa: E402

_AB = ["A=(0,0)", "B=(4,0)"]
_I1 = _AB + ["s=Segment(A,B)", "c=Circle(A,B)", "d=Circle(B,A)", "C=Intersect(c,d,1)", "t1=Polygon(A,B,C)"]
_PERP = _AB + ["P=(1,3)", "g=Line(A,B)", "q=PerpendicularLine(P,g)", "F=Intersect(q,g)"]
_SQ = _AB + ["{sq,ab,bc,cd,da,C,D}=Polygon(A,B,4)"]
_CHAIN = [f"P{i}=Midpoint(A,{'B' if i == 0 else f'P{i - 1}'})" for i in range(8)]


def _cf(cons, givens=("A", "B"), checks=(), text="Construct it.", **kw):
    return categories_for(dict(construction=list(cons), givens=list(givens), checks=list(checks), text=text, **kw))


# (category, problem that has it, near miss that must not): one pair per rule
RULE_CASES = [
    ("tool_grounding", dict(cons=_AB + ["m=PerpendicularBisector(A,B)"]),
     dict(cons=_AB + ["c=Circle(A,B)", "d=Circle(B,A)", "C=Intersect(c,d,1)", "D=Intersect(c,d,2)", "m=Line(C,D)"])),
    ("tool_grounding", dict(cons=_AB + ["P=(1,3)", "g=Line(A,B)", "p=Line(P,g)"], givens=["A", "B", "P", "g"]),   # Parallel Line
     dict(cons=_AB + ["P=(1,3)", "g=Line(A,B)", "p=Line(P,A)"], givens=["A", "B", "P", "g"])),
    ("object_construction", dict(cons=_AB + ["C=(1,3)", "t=Polygon(A,B,C)"]), dict(cons=_AB + ["M=Midpoint(A,B)"])),
    ("coordinate_modeling", dict(cons=_AB + ["M=Midpoint(A,B)"], text="In the coordinate plane, A(0, 0) and B(4, 0). Mark the midpoint."),
     dict(cons=_AB + ["M=Midpoint(A,B)"], text="Bisect AB. Given: A(0, 0); B(4, 0).", statement="Bisect AB.")),
    ("relation_reasoning", dict(cons=_I1, givens=["A", "B", "s"], checks=["equal_length(C,A,A,B)"]),
     dict(cons=_AB + ["M=Midpoint(A,B)"], checks=["equal_length(A,M,M,B)", "collinear(A,M,B)"])),
    ("relation_reasoning", dict(cons=_PERP, givens=["A", "B", "P", "g"], checks=["equal_length(A,F,F,B)"]),   # not true, but a relation to bring about
     dict(cons=_PERP, givens=["A", "B", "P", "g"], checks=["perpendicular(q,g)", "incident(F,g)"])),
    ("multi_step_planning", dict(cons=_AB + _CHAIN), dict(cons=_AB + _CHAIN[:7])),
    ("auxiliary_construction", dict(cons=_I1, givens=["A", "B", "s"]),
     dict(cons=_PERP, givens=["A", "B", "P", "g"], checks=["perpendicular(q,g)"])),
    ("multi_object_composition", dict(cons=_SQ + ["f=Segment(A,C)", "g=Segment(B,D)", "O=Intersect(f,g)", "k=Circle(O,A)"]),
     dict(cons=_SQ + ["f=Segment(A,C)", "g=Segment(B,D)", "O=Intersect(f,g)"])),
    ("measurement_annotation", dict(cons=_AB + ["d=Distance(A,B)"]), dict(cons=_AB + ["s=Segment(A,B)"])),
    ("measurement_annotation", dict(cons=_AB + ['txt=Text("AB", A)']), dict(cons=_AB + ["s=Segment(A,B)"])),
    ("transformation", dict(cons=_AB + ["A'=Rotate(A,90°,B)"]), dict(cons=_AB + ["c=Circle(B,A)"])),
    ("real_scene_modeling", dict(cons=_AB + ["s=Segment(A,B)"], scene="a ladder leaning against a wall"),
     dict(cons=_AB + ["s=Segment(A,B)"], scene=None)),
]


@pytest.mark.parametrize("cat,has,hasnt", RULE_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(RULE_CASES)])
def test_category_rule(cat, has, hasnt):
    assert cat in _cf(**has)
    assert cat not in _cf(**hasnt)


def test_every_category_has_a_rule_case_and_a_documented_rule():
    assert {c for c, _, _ in RULE_CASES} == set(CATEGORIES)
    assert all(c in categories_for.__doc__ for c in CATEGORIES)


def test_construction_graph():
    g = construction_steps(dict(construction=_I1, givens=["A", "B", "s"]))
    assert [s["tool"] for s in g] == [None, None, "Segment", "Circle", "Circle", "Intersect", "Polygon"]
    assert [s["given"] for s in g] == [True, True, True, False, False, False, False]
    assert g[3]["used_by"] == [5] and g[5]["used_by"] == [6] and g[6]["used_by"] == []
    assert construction_steps(dict(construction=_AB + ["c=Circle(A,3)"]))[2]["tool"] == "CircleRadius"
    assert construction_steps(dict(construction=_SQ))[2]["tool"] == "RegularPolygon"


def test_stored_categories_are_the_rules():
    for p in EUCLID + GEN[:200]:
        assert p.categories == categories_for(p), p.id


def test_categories_discriminate_on_the_test_set():
    from guilab.pagebench.build import split_of
    test = EUCLID + [p for p in GEN if split_of(p) == "test"]
    n = Counter(c for p in test for c in p.categories)
    assert set(n) == set(CATEGORIES)                                       # every category has problems
    assert all(0 < n[c] < len(test) for c in CATEGORIES), n               # ... and none has all of them
    assert len({frozenset(p.id for p in test if c in p.categories) for c in CATEGORIES}) == len(CATEGORIES)   # no two the same
    # Euclid: enunciations without coordinates, no real scenes; the real scenes are exactly the scene templates
    assert not any("coordinate_modeling" in p.categories or "real_scene_modeling" in p.categories for p in EUCLID)
    scenes = {"ladder", "garden", "clock", "shadow"}
    assert all(("real_scene_modeling" in p.categories) == (p.extra["template"] in scenes) for p in GEN)
