"""Findings of the new-user review of issue 14's kernel (tools/REVIEW14.md), each as a test holding the right value:
bad input -> GeoCommandError (never another exception), poles/jumps are not roots, coincident graphs are undefined,
`.ggb` round trip of `y = f(x)`, GeoGebra's path parameter, explicit intervals, multiple roots, tangency tolerances,
variable output counts after a move, non-finite values, reserved labels."""
import math
import time

import pytest

from guilab.geo.kernel import Construction, GeoCommandError
from guilab.geo import ggb


def build(cmds): return Construction.from_commands(cmds)


def pts(c, skip):
    "Coordinates of the defined points of `c` whose labels are not in `skip`."
    return [o.data for o in c if o.kind == "point" and o.defined and o.label not in skip]


# ---------------------------------------------------------------- 1: GeoCommandError, never another exception
@pytest.mark.parametrize("cmds", [
    ["f(x)=sqrt(-1)", "Root(f)"], ["f(x)=1/0", "Root(f)"], ["f(x)=sqrt(-1)", "Root(f,0,1)"],
    ["f(x)=asin(2)", "Extremum(f)"], ["f(x)=0/0", "Extremum(f)"]])
def test_undefined_everywhere_function_gives_undefined_point(cmds):
    c = build(cmds)
    assert [o.defined for o in c if o.kind == "point"] == [False]


@pytest.mark.parametrize("cmd", ["f(x)=" + "x" * 500, "f(x)=" + "x+" * 900 + "x", "f(x)=" + "x*" * 900 + "x",
                                 "a=" + "1^" * 900 + "1", "y=" + "x" * 1000, "y=" + "x+" * 900 + "x", "a=" + "-" * 900 + "1"])
def test_long_flat_chains_are_refused_cleanly(cmd):
    with pytest.raises(GeoCommandError) as e:
        build([cmd])
    assert e.value.index == 0


@pytest.mark.parametrize("cmd,pos", [("Intersect(c,l,1e309)", 14), ("Polygon(A,B,1e309)", 12), ("Intersect(c,l,21e308)", 14)])
def test_infinite_integer_arguments_are_refused(cmd, pos):
    with pytest.raises(GeoCommandError) as e:
        build(["A=(0,0)", "B=(1,0)", "c=Circle(A,B)", "l: y=0", cmd])
    assert e.value.index == 4 and e.value.position == pos


@pytest.mark.parametrize("xml", ["hello", "", "<geogebra><construction><element type='point'><coords x='1' y='2' z='1'/>"
                                 "</element></construction></geogebra>",
                                 "<geogebra><construction><element type='point' label='A'><coords x='abc' y='2' z='1'/>"
                                 "</element></construction></geogebra>"])
def test_malformed_ggb_xml_is_a_geocommanderror(xml):
    with pytest.raises(GeoCommandError):
        ggb.from_xml(xml)


# ---------------------------------------------------------------- 4: .ggb round trip of y = <expression in x>
@pytest.mark.parametrize("cmd", ["y=x^2", "y=sin(x)", "y = sqrt(x)", "y = If(x>0, x)", "y = ln(x)", "mm: y=x^2"])
def test_ggb_round_trip_of_y_equals_expression(cmd):
    c = build([cmd, "k: y=0.5", "Intersect(" + c_label(cmd) + ",k,0,4)"])
    c2 = ggb.from_xml(ggb.to_xml(c))
    assert c2.to_commands() == c.to_commands()
    assert [(o.label, o.kind, o.defined) for o in c2] == [(o.label, o.kind, o.defined) for o in c]
    for o in c:
        if o.kind == "point": assert c2.coords(o.label) == c.coords(o.label) or not o.defined


def c_label(cmd): return cmd.split(":")[0] if ":" in cmd else "f"


def outs(c):
    "Defined outputs (coordinates) of the last command."
    return [o.data for o in c._algos[-1].outputs if o.defined]


def timed(cmds):
    t = time.perf_counter(); c = build(cmds); return c, time.perf_counter() - t


# ---------------------------------------------------------------- 2: poles and jumps are not roots
@pytest.mark.parametrize("cmds", [
    ["f(x)=1/(x-0.01)", "k: y=0", "Intersect(f,k)"], ["f(x)=1/(x-0.01)", "Root(f)"],
    ["f(x)=floor(x)", "k: y=0.5", "Intersect(f,k)"], ["f(x)=floor(x)-0.5", "Root(f)"],
    ["f(x)=If(x<1,1,0)", "k: y=0.5", "Intersect(f,k)"], ["f(x)=If(x<1||x>2,1,0)", "k: y=0.5", "Intersect(f,k)"]])
def test_poles_and_jumps_are_not_roots(cmds):
    assert outs(build(cmds)) == []


def test_tan_roots_without_its_poles():
    p = outs(build(["f(x)=tan(x)", "k: y=0", "Intersect(f,k)"]))
    assert len(p) == 63 and all(abs(x - round(x / math.pi) * math.pi) < 1e-9 and abs(y) < 1e-9 for x, y in p)


def test_round_meets_identity_only_at_integers():
    p = outs(build(["f(x)=round(x)", "k: y=x", "Intersect(f,k)"]))
    assert [x for x, _ in p] == [float(k) for k in range(-100, 101)]


# ---------------------------------------------------------------- 3: coincident / flat graphs undefined, bounded work
@pytest.mark.parametrize("cmds", [
    ["f(x)=sin(x)", "g(x)=sin(x)", "Intersect(f,g)"], ["f(x)=x^2", "g(x)=x^2+0*sin(x)", "Intersect(f,g)"],
    ["f(x)=sin(x)", "g(x)=sin(x)+1e-12", "Intersect(f,g)"], ["f(x)=exp(-x^2)", "Root(f)"], ["f(x)=x^99999", "Root(f)"]])
def test_coincident_or_flat_graphs_are_undefined(cmds):
    c = build(cmds)
    assert outs(c) == [] and len(c._algos[-1].outputs) == 1


def test_exp_meets_y2_at_ln2():
    assert outs(build(["f(x)=exp(x)", "k: y=2", "Intersect(f,k)"])) == [(pytest.approx(math.log(2), abs=1e-15), 2.0)]


def test_root_count_is_capped():
    from guilab.geo.kernel import _MAX_ROOTS
    c = build(["f(x)=sin(1000x)", "Root(f,-10,10)"])                  # 6,366 roots > the cap: undefined
    assert 6366 > _MAX_ROOTS and outs(c) == []


# ---------------------------------------------------------------- 6: explicit intervals beyond [-100, 100]
def test_explicit_interval_beyond_window():
    assert [x for x, _ in outs(build(["f(x)=sin(x°)", "Root(f,-200,200)"]))] == pytest.approx([-180, 0, 180], abs=1e-9)
    assert [x for x, _ in outs(build(["f(x)=sin(x°)", "k: y=0", "Intersect(f,k,-200,200)"]))] == pytest.approx([-180, 0, 180], abs=1e-9)
    p = outs(build(["f(x)=sin(x)", "Root(f,-1000,1000)"]))
    assert len(p) == 637 and p[0][0] == pytest.approx(-318 * math.pi, abs=1e-9)
    assert outs(build(["f(x)=sin(x)", "Root(f,-1e308,1e308)"])) == []          # the ends are not roots
    assert [x for x, _ in outs(build(["f(x)=sqrt(x)-15", "Root(f,0,1000)"]))] == pytest.approx([225.0], abs=1e-9)


# ---------------------------------------------------------------- 7: roots of multiplicity >= 3
@pytest.mark.parametrize("f,roots", [("x^3-3x^2+3x-1", [1.0]), ("(x-0.5)^5", [0.5]), ("(x-2)^4", [2.0]),
                                     ("0.001(x-3)^3", [3.0]), ("(x+1)^32", [-1.0]), ("x^2-1e-12", [-1e-6, 1e-6]),
                                     ("(x-1)^3 (x-1.3)", [1.0, 1.3]), ("(x-1)^2", [1.0]), ("(x^2-2)^2", [-math.sqrt(2), math.sqrt(2)])])
def test_multiple_polynomial_roots_once_and_accurate(f, roots):
    c = build([f"f(x)={f}", "k: y=0", "Intersect(f,k)"])
    assert [x for x, _ in outs(c)] == pytest.approx(roots, rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------- 11: infinite / NaN values never stored as defined
@pytest.mark.parametrize("cmd", ["a=1e999", "a=10^308*10", "a=" + "9" * 400, "a=-1e999"])
def test_non_finite_free_number_refused(cmd):
    with pytest.raises(GeoCommandError, match="not a finite number"):
        build([cmd])


@pytest.mark.parametrize("cmds", [["A=(0,0)", "Circle(A,1e999)"], ["A=(0,0)", "O=(1,1)", "Dilate(A,1e308*1e10,O)"],
                                  ["A=(0,0)", "Segment(A,1e309)"], ["y = 1e308x + 1e308"]])
def test_non_finite_results_are_undefined_and_round_trip(cmds):
    c = build(cmds)
    assert not any(o.defined for o in c._algos[-1].outputs)
    c2 = build(c.to_commands())
    assert [(o.label, o.defined) for o in c2] == [(o.label, o.defined) for o in c]
    c3 = ggb.from_xml(ggb.to_xml(c))
    assert [(o.label, o.defined) for o in c3] == [(o.label, o.defined) for o in c]


def test_set_value_refuses_infinity():
    c = build(["a=1", "A=(0,0)", "Circle(A,a)"])
    with pytest.raises(GeoCommandError):
        c.set_value("a", math.inf)


# ---------------------------------------------------------------- 8: tangency tolerance follows the size, not the position
@pytest.mark.parametrize("x0", [0.0, 1e6, -3e7])
def test_tangency_is_translation_invariant(x0):
    far = build([f"A=({x0},0)", "c=Circle(A,1)", f"B=({x0 + 2.005},0)", "d=Circle(B,1)", "Intersect(c,d)"])
    assert outs(far) == []                                            # a 0.5 % gap never touches
    near = build([f"A=({x0},0)", "c=Circle(A,1)", f"B=({x0 + 2.00000001},0)", "d=Circle(B,1)", "Intersect(c,d)"])
    assert len(outs(near)) == 2 and outs(near)[0] == outs(near)[1]
    assert outs(near)[0][0] == pytest.approx(x0 + 1.000000005, abs=1e-6)
    line = build([f"A=(0,{x0})", "c=Circle(A,1)", f"l: y={x0 + 1.005}", "Intersect(c,l)"])
    assert outs(line) == []


# ---------------------------------------------------------------- 9: Tangent(P, c) with P on c up to rounding
@pytest.mark.parametrize("p", ["(0.70710678,0.70710678)", "(0.99999999,0)", "(1,0)", "(0,-1.000000004)"])
def test_tangent_at_rounded_point_on_circle(p):
    c = build(["A=(0,0)", "c=Circle(A,1)", f"P={p}", "{t1,t2}=Tangent(P,c)"])
    assert c.is_defined("t1") and not c.is_defined("t2")
    (px, py), (a, b, k) = c.coords("P"), c["t1"].data
    assert abs(a * px + b * py - k) < 1e-12 and abs(a * py - b * px) < 1e-7       # through P, normal along OP


# ---------------------------------------------------------------- 10: variable output counts follow a move
def state(c): return [(o.label, o.kind, o.defined, o.data if o.kind != "function" else o.data.text) for o in c]


@pytest.mark.parametrize("cmds,moves", [
    (["f(x)=x^2", "A=(0,-1)", "B=(1,-1)", "l=Line(A,B)", "Intersect(f,l)", "D=(5,5)"], [("A", 0, 1), ("B", 1, 1)]),
    (["A=(0,0)", "B=(1,0)", "C=(0,1)", "t=Polygon(A,B,C)", "P=(5,5)", "Q=(6,5)", "l=Line(P,Q)", "Intersect(t,l)"],
     [("P", -1, 0.5), ("Q", 1, 0.5)]),
    (["f(x)=x^3-3x", "A=(0,5)", "B=(1,5)", "l=Line(A,B)", "Intersect(f,l)"], [("A", 0, 0), ("B", 1, 0)])])
def test_move_grows_outputs_like_fresh_build(cmds, moves):
    c = build(cmds)
    n0 = sum(o.kind == "point" for o in c)
    for l, x, y in moves: c.move(l, x, y)
    assert sum(o.kind == "point" for o in c) > n0                     # points appeared
    assert state(build(c.to_commands())) == state(c)
    c3 = ggb.from_xml(ggb.to_xml(c))
    assert [(o.label, o.defined) for o in c3] == [(o.label, o.defined) for o in c]
    for l, x, y in reversed(moves): c.move(l, *build(cmds).coords(l))  # back: the extra points turn undefined
    assert state(build(c.to_commands())) == state(c)


# ---------------------------------------------------------------- 12: xy = 1 and reserved names
@pytest.mark.parametrize("cmd", ["xy=1", "x" * 500 + "=1", "yx = 2"])
def test_xy_is_an_equation_not_a_label(cmd):
    with pytest.raises(GeoCommandError, match="equation|chained operations"):
        build([cmd])


@pytest.mark.parametrize("cmd", ["pi=3", "π=3", "sin=3", "Circle=3", "If=3", "sqrt(x)=x", "ln: y=2",
                                 "{P,Intersect}=Intersect(c,d)", "xAxis=Line(A,B)"])
def test_reserved_names_are_not_labels(cmd):
    with pytest.raises(GeoCommandError, match="reserved name"):
        build(["A=(0,0)", "B=(1,0)", "c=Circle(A,B)", "d=Circle(B,A)", cmd])


def test_e_stays_a_label_as_in_geogebra():
    assert build(["A=(0,0)", "B=(1,0)", "C=(0,1)", "e=Circle(A,B,C)"]).is_defined("e")


# ---------------------------------------------------------------- 5: Point(obj, t) with GeoGebra's path parameter
SQ = ["A=(0,0)", "B=(2,0)", "C=(2,2)", "D=(0,2)"]


@pytest.mark.parametrize("cmds,want", [
    (SQ + ["p=Polygon(A,B,C,D)", "Point(p,0.5)"], (2.0, 2.0)),            # GeoGebra: parameter 4·0.5 = 2 -> vertex C
    (SQ + ["p=Polygon(A,B,C)", "Point(p,0.5)"], (2.0, 1.0)),              # 3·0.5 = 1.5 -> middle of BC
    (SQ + ["p=Polygon(A,B,C)", "Point(p,7)"], (0.0, 0.0)),                # clamped to 1 -> back at A
    (["O=(0,0)", "c=Circle(O,1)", "Point(c,1.3)"], (-1.0, 0.0)),           # clamped, not wrapped
    (["O=(0,0)", "c=Circle(O,1)", "Point(c,-0.2)"], (-1.0, 0.0)),
    (["O=(0,0)", "c=Circle(O,1)", "Point(c,0.75)"], (0.0, 1.0)),
    (SQ + ["s=Segment(A,C)", "Point(s,1.5)"], (2.0, 2.0))])
def test_point_on_path_uses_geogebra_parameter(cmds, want):
    c = build(cmds)
    assert outs(c)[0] == pytest.approx(want, abs=1e-12)
    assert build(c.to_commands()).coords(c._algos[-1].outputs[0].label) == outs(c)[0]


def test_point_on_polygon_snaps_and_moves_with_geogebra_parameter():
    c = build(SQ + ["p=Polygon(A,B,C,D)"])
    l = c.point_on("p", 2.5, 1.0)                                      # side BC, half way: parameter (1 + 0.5) / 4
    assert c[l].algo.param == 0.375 and c.coords(l) == (2.0, 1.0)


GGB_LINE = ('<geogebra><construction><element type="point" label="A"><coords x="1" y="1" z="1"/></element>'
            '<element type="point" label="B"><coords x="5" y="3" z="1"/></element>'
            '<command name="{cmd}"><input a0="A" a1="B"/><output a0="l"/></command>'
            '<command name="Point"><input a0="l" a1="{t}"/><output a0="P"/></command></construction></geogebra>')


@pytest.mark.parametrize("cmd,t,want", [("Line", 0.25, (-3.0, -1.0)), ("Line", 0.5, (1.0, 1.0)), ("Line", 0.75, (5.0, 3.0)),
                                        ("Ray", 0.5, (5.0, 3.0)), ("Ray", 0.0, (1.0, 1.0)), ("Segment", 0.5, (3.0, 2.0)),
                                        ("Segment", 2.0, (5.0, 3.0))])
def test_ggb_point_on_line_ray_segment_loads_where_geogebra_shows_it(cmd, t, want):
    c = ggb.from_xml(GGB_LINE.format(cmd=cmd, t=t))
    assert c.coords("P") == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("xml", [GGB_LINE.format(cmd="Line", t=1.0), GGB_LINE.format(cmd="Ray", t=2),
                                 GGB_LINE.format(cmd="PerpendicularLine", t=0.3).replace('a1="B"/><output a0="l"', 'a1="m"/><output a0="l"')
                                 .replace('<command name="PerpendicularLine">', '<expression label="m" exp="m: y = 0"/><element type="line" label="m"/>'
                                          '<command name="PerpendicularLine">')])
def test_ggb_point_at_infinity_or_unknown_line_parameter_is_refused(xml):
    with pytest.raises(GeoCommandError):
        ggb.from_xml(xml)


# ---------------------------------------------------------------- 14, 15: bracket syntax, degrees applied once
def test_square_bracket_syntax_as_in_older_geogebra():
    c = build(["A=(0,0)", "B=(3,4)", "c=Circle[A,B]", "f(x)=If[x>0,x]", "{P,Q}=Intersect[c,Line[A,B]]", 't=Text["[x]"]'])
    assert c["c"].data == (0.0, 0.0, 5.0) and c.coords("Q") == pytest.approx((3.0, 4.0))
    assert c["t"].data == "[x]" and c.to_commands()[2] == "c=Circle(A,B)"


def test_degree_sign_applies_once():
    with pytest.raises(GeoCommandError, match="unexpected '°'"):
        build(["a=90°°"])
    assert build(["a=90°"]).value("a") == pytest.approx(math.pi / 2)
