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
