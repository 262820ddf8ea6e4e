"""Issue 14, "Geometry kernel": every example of the issue as a test with its GeoGebra value — nested commands and
literals, equations, functions of x, AngleBisector of lines, near-tangent circles, and GeoGebra's ordinary forms."""
import math

import pytest

from guilab.geo.kernel import Construction, GeoCommandError, parse_command, COMMANDS, ALIASES
from guilab.geo.ggb import from_xml, to_xml


def close(p, q, eps=1e-12):
    return len(p) == len(q) and all(abs(a - b) <= eps for a, b in zip(p, q))


def roundtrip(c, aux=True):
    "to_commands -> from_commands gives the same objects (labels, kinds, definedness, geometry, auxiliary flags)."
    c2 = Construction.from_commands(c.to_commands())
    key = lambda o: (o.label, o.kind, o.defined, o.data) + ((o.auxiliary,) if aux else ())
    assert [key(o) for o in c2] == [key(o) for o in c]
    assert c2.to_commands() == c.to_commands()
    return c2


# ---------------------------------------------------------------- nested commands and literals
def test_nested_distance_is_auxiliary_and_round_trips():
    c = Construction.from_commands(["A=(0,0)", "B=(1,0)", "C=(4,4)", "c=Circle(A,Distance(B,C))"])
    assert c["c"].data == (0.0, 0.0, 5.0)
    aux = c["distanceBC"]
    assert aux.auxiliary and not aux.visible and c["c"].inputs == ["A", "distanceBC"]
    assert c.to_commands()[-1] == "c=Circle(A,Distance(B,C))"
    roundtrip(c)
    c.move("C", 1, 3)                                        # the auxiliary object follows its inputs
    assert c["c"].data == (0.0, 0.0, 3.0)


def test_literal_point_arguments():
    c = Construction.from_commands(["c=Circle((1, 0), 1)", "f=Line((0, 0), (1, 1))"])
    assert c["c"].data == (1.0, 0.0, 1.0)
    pts = [o for o in c if o.kind == "point"]
    assert [o.data for o in pts] == [(1.0, 0.0), (0.0, 0.0), (1.0, 1.0)]
    assert all(o.auxiliary and not o.visible for o in pts)
    assert c["f"].data[:2] == pytest.approx((-math.sqrt(0.5), math.sqrt(0.5)))
    assert c.to_commands() == ["c=Circle((1,0),1)", "f=Line((0,0),(1,1))"]
    roundtrip(c)


def test_nested_midpoint_in_segment():
    c = Construction.from_commands(["A=(0,0)", "B=(4,0)", "C=(0,2)", "s=Segment(A, Midpoint(B, C))"])
    assert c["s"].data == ((0.0, 0.0), (2.0, 1.0))
    assert c.to_commands()[-1] == "s=Segment(A,Midpoint(B,C))"
    roundtrip(c)


def test_nested_failure_leaves_nothing_and_user_label_wins():
    c = Construction.from_commands(["A=(0,0)", "B=(1,0)"])
    with pytest.raises(GeoCommandError, match="Midpoint"):
        c.add("Midpoint(A,Distance(A,B))")                   # Midpoint of a point and a number
    assert list(c.objects) == ["A", "B"]
    c.add("c=Circle((2,2),1)")
    aux = [o.label for o in c if o.auxiliary]
    assert aux == ["C"]
    c.add("C=(5,5)")                                         # the user's C is a new free point, not the auxiliary one
    assert c.coords("C") == (5.0, 5.0) and c["c"].data == (2.0, 2.0, 1.0)
    assert [o.label for o in c if o.auxiliary] == ["D"]
    assert c["c"].inputs == ["D"]
    assert c.to_commands() == ["A=(0,0)", "B=(1,0)", "c=Circle((2,2),1)", "C=(5,5)"]   # replay renames alike
    roundtrip(c)


def test_ggb_export_includes_auxiliary_objects():
    c = Construction.from_commands(["A=(0,0)", "B=(1,0)", "C=(4,4)", "c=Circle(A,Distance(B,C))", "d=Circle((1, 0), 1)"])
    xml = to_xml(c)
    assert 'label="distanceBC"' in xml and '<command name="Distance">' in xml and "auxiliary" in xml
    g = from_xml(xml)
    assert [(o.label, o.data, o.visible) for o in g] == [(o.label, o.data, o.visible) for o in c]
    assert g["distanceBC"].auxiliary


# ---------------------------------------------------------------- equations as objects
def test_equations_lines():
    c = Construction.from_commands(["f: y = 0", "y = 2x + 1", "3x - 2y = 4", "x = 3"])
    g, h, i = [o.label for o in c][1:]
    assert (g, h, i) == ("g", "h", "i")
    assert [c[l].kind for l in (g, h, i, "f")] == ["line"] * 4
    assert c.add("P=Intersect(%s, f)" % g) == ["P"] and c.coords("P") == (-0.5, 0.0)
    assert c.add("Q=Intersect(%s, %s)" % (h, i)) == ["Q"] and close(c.coords("Q"), (3.0, 2.5))
    roundtrip(c)


def test_equations_circles_and_intersections_with_everything():
    c = Construction.from_commands(["c: x^2 + y^2 = 9", "d: (x - 1)^2 + (y + 2)^2 = 4", "A=(-5,0)", "B=(5,0)",
                                    "s=Segment(A,B)", "{C,D}=Intersect(s,c)", "{E,F}=Intersect(c,d)", "g: x = 3",
                                    "G=Intersect(g, c, 1)"])
    assert c["c"].data == (0.0, 0.0, 3.0) and c["d"].data == (1.0, -2.0, 2.0)
    assert c.coords("C") == (-3.0, 0.0) and c.coords("D") == (3.0, 0.0)
    for p in "EF":
        x, y = c.coords(p)
        assert abs(math.hypot(x, y) - 3) < 1e-12 and abs(math.hypot(x - 1, y + 2) - 2) < 1e-12
    assert close(c.coords("G"), (3.0, 0.0), 1e-7)            # x = 3 touches c
    assert c.to_commands()[0] == "c: x^2 + y^2 = 9"
    roundtrip(c)


def test_equation_errors():
    c = Construction()
    for bad, frag in [("x^2 + 2y^2 = 4", "ellipse"), ("1 = 2", "no x or y"), ("y = 2x +", "bad expression"),
                      ("y = q x", "unknown name 'q'")]:
        with pytest.raises(GeoCommandError, match=frag):
            c.add(bad)


# ---------------------------------------------------------------- functions of x
def test_functions_intersections():
    c = Construction.from_commands(["a(x) = x^3 + x^2 - x", "b: -3x + 5y = 4", "P=Intersect(a, b, 2)",
                                    "{A,B,C}=Intersect(a, b)"])
    assert c.coords("P") == pytest.approx((-0.43, 0.54), abs=0.005)
    xs = [c.coords(p)[0] for p in "ABC"]
    assert xs == sorted(xs) and c.coords("B") == c.coords("P")
    roundtrip(c)


def test_functions_on_closed_interval_ends():
    c = Construction.from_commands(["g(x) = If(0 <= x <= 1, 0.1x^3 + 0.2x)", "h(x) = x - 0.7", "k(x) = x",
                                    "A=Intersect(g, h, 0, 1)", "B=Intersect(g, k, 0, 1)"])
    assert c.coords("A") == pytest.approx((1.0, 0.3), abs=1e-12)
    assert c.coords("B") == (0.0, 0.0)
    assert len([o for o in c if o.kind == "point"]) == 2      # one point each, nothing else found
    roundtrip(c)


def test_touching_graphs_double_root_exact():
    c = Construction.from_commands(["f(x) = (x - 1)^2", "l: y = 0", "A=Intersect(f, l)", "R=Root(f)", "E=Extremum(f)"])
    assert c.coords("A") == (1.0, 0.0) and c.coords("R") == (1.0, 0.0) and c.coords("E") == (1.0, 0.0)
    assert [o.label for o in c if o.kind == "point"] == ["A", "R", "E"]      # the double root counts once


def test_touching_line_is_exact_too():
    c = Construction.from_commands(["f(x) = x^2", "g: y = 2x - 1", "A=Intersect(f, g)", "h(x) = x^3", "k: y = 0",
                                    "{B}=Intersect(h, k)"])
    assert c.coords("A") == (1.0, 1.0) and c.coords("B") == (0.0, 0.0)


def test_root_extremum_nonpolynomial_and_function_circle():
    c = Construction.from_commands(["f(x) = sin(x)", "{A,B,C}=Root(f, 0, 2pi)", "E=Extremum(f, 0, 3)",
                                    "O=(0,0)", "c=Circle(O, 1)", "g(x) = x", "{P,Q}=Intersect(g, c)"])
    assert [c.coords(p)[0] for p in "ABC"] == pytest.approx([0.0, math.pi, 2 * math.pi], abs=1e-9)
    assert c.coords("E") == pytest.approx((math.pi / 2, 1.0), abs=1e-6)
    s = math.sqrt(0.5)
    assert c.coords("P") == pytest.approx((-s, -s), abs=1e-9) and c.coords("Q") == pytest.approx((s, s), abs=1e-9)


# ---------------------------------------------------------------- AngleBisector of two lines
def test_angle_bisector_of_lines():
    c = Construction.from_commands(["f: y = 0", "g: y = 2", "{b1,b2}=AngleBisector(f, g)",
                                    "h: -y = -2", "{b3,b4}=AngleBisector(f, h)"])
    assert c.is_defined("b1") and not c.is_defined("b2")
    assert not c.is_defined("b3") and c.is_defined("b4")
    for l in ("b1", "b4"):                                   # both are y = 1
        a, b, k = c[l].data
        assert abs(a) < 1e-15 and abs(abs(b) - 1) < 1e-15 and abs(k / b - 1) < 1e-15
    c.add("i: y = x"); c.add("{b5,b6}=AngleBisector(f, i)")
    d5, d6 = c["b5"].aux[2:], c["b6"].aux[2:]
    assert math.degrees(math.atan2(d5[1], d5[0])) == pytest.approx(22.5)
    assert abs(d5[0] * d6[0] + d5[1] * d6[1]) < 1e-12       # the two bisectors are perpendicular
    roundtrip(c)


# ---------------------------------------------------------------- near-tangent circles and lines
def test_near_tangent_circles_typed_rounded():
    c = Construction.from_commands(["A=(0,0)", "B=(2.00000001,0)", "c=Circle(A,1)", "d=Circle(B,1)",
                                    "{C,D}=Intersect(c,d)"])
    assert c.coords("C") == pytest.approx((1.000000005, 0.0), abs=1e-15)
    assert c.coords("D") == c.coords("C")
    c.move("B", 2.0001, 0)                                    # a real gap: undefined
    assert not c.is_defined("C")


def test_near_tangent_line_circle():
    c = Construction.from_commands(["c: x^2 + y^2 = 1", "l: y = 1.00000001", "{A,B}=Intersect(l, c)"])
    assert c.coords("A") == pytest.approx((0.0, 1.00000001), abs=1e-15) and c.coords("B") == c.coords("A")


# ---------------------------------------------------------------- GeoGebra's ordinary forms
def test_numeric_functions_inside_arguments():
    c = Construction.from_commands(["A=(0,0)", "c=Circle(A, sqrt(8))", "l: y = x", "{P,Q}=Intersect(l, c)",
                                    "O=(0,0)", "R=(1,0)", "S=Rotate(R, sin(1), O)"])
    pts = sorted([c.coords("P"), c.coords("Q")])
    assert close(pts[0], (-2.0, -2.0), 1e-12) and close(pts[1], (2.0, 2.0), 1e-12)
    assert close(c.coords("S"), (math.cos(math.sin(1)), math.sin(math.sin(1))))
    assert c["c"].command == "Circle(A,sqrt(8))"
    roundtrip(c)


def test_angle_with_given_size():
    c = Construction.from_commands(["A=(0,0)", "B=(2,0)"])
    assert c.add("Angle(B, A, 90°)") == ["α", "B'"]
    assert c.value("α") == 90.0 and c.coords("B'") == (0.0, 2.0)
    roundtrip(c)


def test_intersect_nearest_initial_point():
    c = Construction.from_commands(["c: x^2 + y^2 = 25", "l: y = x + 1", "P=Intersect(c, l, (3.1, 4.2))",
                                    "Q=Intersect(c, l, (-3, -3))"])
    assert close(c.coords("P"), (3.0, 4.0)) and close(c.coords("Q"), (-4.0, -3.0))
    roundtrip(c)


def test_intersect_polygon_boundary():
    c = Construction.from_commands(["A=(0,0)", "B=(4,0)", "C=(4,4)", "D=(0,4)", "q1=Polygon(A,B,C,D)", "l: y = 2",
                                    "{P,Q}=Intersect(q1, l)"])
    assert c.coords("P") == (0.0, 2.0) and c.coords("Q") == (4.0, 2.0)
    roundtrip(c)


def test_measures_parallel_lines_vector_points():
    c = Construction.from_commands(["f: y = x", "g: y = x + 2", "d=Distance(f, g)", "u = Vector((1, 2))",
                                    "L=Length(u)", "A=(0,0)", "B=(4,0)", "C=(4,3)", "a=Area(A, B, C)", "b=Area({A, B, C})"])
    assert c.value("d") == pytest.approx(math.sqrt(2), abs=1e-15)
    assert c.value("L") == math.sqrt(5) and c.value("a") == 6.0 and c.value("b") == 6.0
    roundtrip(c)


def test_vectors_as_arguments():
    c = Construction.from_commands(["u = Vector((1, 2))", "A=(1,1)", "P=(0,0)", "B=Translate(A, u)",
                                    "C=Translate(A, (1, 2))", "r=Ray(A, u)", "p=PerpendicularLine(P, u)", "D=A + u",
                                    "v=Vector(A, C)", "E=A - u"])
    assert c["u"].kind == "vector" and c["u"].data == (1.0, 2.0)
    assert c.coords("B") == c.coords("C") == c.coords("D") == (2.0, 3.0) and c.coords("E") == (0.0, -1.0)
    assert c["r"].aux == (1.0, 1.0, 1.0, 2.0)
    a, b, k = c["p"].data
    assert abs(a * 1 + b * 2) > 0.99 * math.sqrt(5) and k == 0       # normal ∥ u: perpendicular to u, through P
    assert c["v"].data == (1.0, 2.0) and c["v"].aux == (1.0, 1.0)
    c.move("A", 0, 0)
    assert c.coords("D") == (1.0, 2.0)
    roundtrip(c)


def test_tangents_parallel_to_line():
    c = Construction.from_commands(["O=(1,1)", "c=Circle(O,2)", "l: y = 0", "{t1,t2}=Tangent(l, c)"])
    ys = [c[t].data[2] / c[t].data[1] for t in ("t1", "t2")]
    assert ys == pytest.approx([3.0, -1.0])
    roundtrip(c)


def test_point_on_circle_geogebra_parameter():
    c = Construction.from_commands(["O=(0,0)", "c=Circle(O,1)", "P=Point(c, 0.75)", "Q=Point(c, 0.5)"])
    assert c.coords("P") == (0.0, 1.0) and c.coords("Q") == (1.0, 0.0)
    xml = """<geogebra format="5.0"><construction>
<element type="point" label="O"><coords x="0" y="0" z="1"/></element>
<command name="Circle"><input a0="O" a1="1"/><output a0="c"/></command>
<command name="Point"><input a0="c" a1="0.75"/><output a0="P"/></command>
<element type="point" label="P"><coords x="0" y="1" z="1"/></element>
</construction></geogebra>"""
    assert close(from_xml(xml).coords("P"), (0.0, 1.0))


# ---------------------------------------------------------------- refusals, table, names
def test_refused_commands_name_command_and_position():
    c = Construction.from_commands(["A=(0,0)", "B=(1,0)"])
    with pytest.raises(GeoCommandError) as e:
        c.add("e=Ellipse(A, B, 3)")
    assert "Ellipse" in str(e.value) and e.value.position == 2 and "not supported" in str(e.value)
    with pytest.raises(GeoCommandError) as e:
        c.add("Circle(A, Ellipse(A, B, 3))")
    assert "Ellipse" in str(e.value) and e.value.position == 10


def test_supported_command_table_lists_every_command():
    import json, pathlib
    nb = json.loads((pathlib.Path(__file__).parents[1] / "nbs/geo/00_kernel.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    table = text[text.index("## Supported commands"):]
    for name in set(COMMANDS) - set(ALIASES):
        assert f"`{name}`" in table or f"`{name}(" in table, name


def test_named_tuples():
    p = parse_command("c=Circle(A, B)")
    assert p.name == p[3] == "Circle" and p.labels == ["c"] and p.args == [("A", 9), ("B", 12)]
    from guilab.geo.kernel import _b_circle, Built
    c = Construction.from_commands(["A=(0,0)", "B=(1,0)"])
    b = _b_circle(c, "Circle(A,B)", "Circle", [c["A"], c["B"]], [("A", 7), ("B", 9)])
    assert isinstance(b, Built) and b.kinds == b[2] == ["circle"] and b.args == ["A", "B"]


def test_algebra_input_bar_takes_the_new_forms():
    from guilab.geo.canvas import GeoGUI
    gui = GeoGUI(["A=(0,0)", "B=(2,0)"])
    for cmd in ["f: y = 0.5x + 1", "c: x^2 + y^2 = 9", "Circle(A, Distance(A, B))", "Angle(B, A, 90°)"]:
        res = gui.enter_command(cmd)
        assert res[-1].ok, (cmd, res[-1])
    c = gui.construction
    assert c["f"].kind == "line" and c["c"].data == (0.0, 0.0, 3.0) and c.coords("B'") == (0.0, 2.0)
    assert gui.render().size[0] > 0                  # renders with the new objects present


def test_equations_and_axes_as_arguments():
    c = Construction.from_commands(["{A,B}=Intersect(y = x, x^2 + y^2 = 2)", "f(x) = x^2 - 1", "{C,D}=Intersect(f, xAxis)"])
    assert close(c.coords("A"), (-1.0, -1.0)) and close(c.coords("B"), (1.0, 1.0))
    assert c.coords("C") == (-1.0, 0.0) and c.coords("D") == (1.0, 0.0)
    assert c.to_commands()[0] == "{A,B}=Intersect(y = x,x^2 + y^2 = 2)"
    roundtrip(c)
