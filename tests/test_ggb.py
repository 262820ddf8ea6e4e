"""Tests of guilab.geo.ggb: .ggb export -> import gives the same commands, coordinates and styles; the XML follows
GeoGebra's format (element types, command/input/output tags in dependency order, homogeneous coords); files in the
shape GeoGebra saves load; unsupported content fails with a clear error."""
import math
import zipfile
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings, strategies as st

from guilab.geo.kernel import Construction, GeoCommandError, mixed_commands
from guilab.geo.ggb import from_xml, read_ggb, to_xml, write_ggb

CONSTRUCTIONS = {
    "euclid": ["A=(0,0)", "B=(4,0)", "c=Circle(A,B)", "d=Circle(B,A)", "C=Intersect(c,d,1)", "t1=Polygon(A,B,C)"],
    "mixed": ["A=(0.1,-2.75)", "B=(3,1)", "C=(-1,2)", "r=2.5", "c=Circle(A,r)", "f=Segment(A,B)", "g=Ray(B,C)",
              "h=Line(C,f)", "k=PerpendicularLine(A,g)", "l=PerpendicularBisector(B,C)", "m=AngleBisector(A,B,C)",
              "M=Midpoint(f)", "e=Circle(A,B,C)", "s=Semicircle(B,C)", "{D,E}=Intersect(c,h)", "P=Point(e,0.3)",
              "Q=Point(f,0.75)", "R=Point(s,0.5)", "{t,u}=Tangent(C,c)", "α=Angle(A,B,C)", "distanceAB=Distance(A,B)",
              "q1=Polygon(A,B,4)", "S=Point(q1,2.25)", "T=Point(h,-1.5)", 'text1=Text("AB = 4")', 'text2=Text("hi",A)',
              'text3=Text("at",(1,2))', "A'=Rotate(A,60°,B)", "Reflect(q1,h)",
              "Translate(c,Vector(A,B))", "Dilate(f,2,C)", "Segment(B,3)", "Polygon(A,B,5)", "lengthf=Length(f)",
              "areaq1=Area(q1)", "radiuse=Radius(e)"],
    "undefined": ["A=(0,0)", "B=(1,0)", "c=Circle(A,B)", "C=(10,0)", "d=Circle(C,1)", "{D,E}=Intersect(c,d)",
                  "f=Segment(D,E)", "g=Line(A,B)", "h=Line(C,g)", "F=Intersect(g,h)"],
}


def same(c1, c2):
    assert c1.to_commands() == c2.to_commands()
    rows = lambda c: [(o.label, o.kind, o.defined, repr(o.data), o.visible, o.label_visible, o.color) for o in c]
    assert rows(c1) == rows(c2)


@pytest.mark.parametrize("name", sorted(CONSTRUCTIONS))
def test_round_trip_file(name, tmp_path):
    c = Construction.from_commands(CONSTRUCTIONS[name])
    p = write_ggb(c, tmp_path / f"{name}.ggb", window={"xmin": -5, "xmax": 10, "ymin": -5, "ymax": 8})
    assert zipfile.is_zipfile(p) and zipfile.ZipFile(p).namelist() == ["geogebra.xml"]
    same(c, read_ggb(p))


def test_undefined_objects_written_as_nan():
    c = Construction.from_commands(CONSTRUCTIONS["undefined"])
    cons = ET.fromstring(to_xml(c)).find("construction")
    assert cons.find("element[@label='D']/coords").attrib == {"x": "NaN", "y": "NaN", "z": "1"}
    assert cons.find("element[@label='F']/coords").get("x") == "NaN"
    c2 = from_xml(to_xml(c))
    assert not c2.is_defined("D") and not c2.is_defined("f") and not c2.is_defined("F")


def test_xml_follows_geogebra_format():
    c = Construction.from_commands(CONSTRUCTIONS["mixed"])
    root = ET.fromstring(to_xml(c, window={"xmin": -2, "xmax": 8, "ymin": -3, "ymax": 6}, size=(1000, 900)))
    assert root.tag == "geogebra" and root.get("format") == "5.0"
    cs = root.find("euclidianView/coordSystem").attrib
    assert float(cs["scale"]) == 100 and float(cs["yscale"]) == 100 and float(cs["xZero"]) == 200 and float(cs["yZero"]) == 600
    cons = root.find("construction")
    seen, types = set(), {}
    for e in cons:
        assert e.tag in ("element", "command", "expression")
        if e.tag == "command":
            ins = [v for k, v in sorted(e.find("input").attrib.items())]
            for a in ins:                                   # inputs are labels defined earlier, or literals
                if a in c.objects: assert a in seen, (e.get("name"), a)
            seen.update(e.find("output").attrib.values())
        elif e.tag == "element":
            seen.add(e.get("label")); types[e.get("label")] = e.get("type")
            assert e.find("show") is not None and e.find("objColor") is not None
    assert {types[l] for l in ["A", "D", "P"]} == {"point"}
    assert (types["f"], types["g"], types["h"], types["c"], types["s"], types["q1"], types["α"], types["r"],
            types["distanceAB"], types["text1"]) == ("segment", "ray", "line", "conic", "conicpart", "polygon",
                                                      "angle", "numeric", "numeric", "text")
    # homogeneous line coords: x*a + y*b + z = 0 holds for both defining points of f = Segment(A,B)
    co = {k: float(v) for k, v in cons.find("element[@label='f']/coords").attrib.items()}
    for p in "AB":
        x, y = c.coords(p)
        assert abs(co["x"] * x + co["y"] * y + co["z"]) < 1e-12
    # conic matrix of c = Circle(A, 2.5): x² + y² + 2 A4 x + 2 A5 y + A2 = 0 at a point of c
    m = {k: float(v) for k, v in cons.find("element[@label='c']/matrix").attrib.items()}
    x, y = c.coords("A")[0] + 2.5, c.coords("A")[1]
    assert abs(m["A0"] * x * x + m["A1"] * y * y + m["A2"] + 2 * m["A4"] * x + 2 * m["A5"] * y) < 1e-12
    assert float(cons.find("element[@label='α']/value").get("val")) == pytest.approx(math.radians(c.value("α")))
    cmd = cons.find("command[@name='Polygon']/output")
    outs = [cmd.get(f"a{i}") for i in range(len(cmd.attrib))]
    assert outs[0] == "q1" and [types[l] for l in outs] == ["polygon"] + ["segment"] * 4 + ["point"] * 2
    assert cons.find("expression[@label='text1']").get("exp") == '"AB = 4"'
    assert cons.find("command[@name='Point']/input").attrib == {"a0": "e"}    # GeoGebra's point-on-object form
    assert cons.find("element[@label='P']/guilab").get("t") == "0.3"


def test_styles_round_trip(tmp_path):
    c = Construction.from_commands(CONSTRUCTIONS["euclid"])
    c["c"].visible = False; c["d"].visible = False; c["C"].color = (255, 0, 0); c["f"].label_visible = True
    c2 = read_ggb(write_ggb(c, tmp_path / "s.ggb"))
    same(c, c2)
    assert (c2["c"].visible, c2["C"].color, c2["f"].label_visible, c2["A"].color) == (False, (255, 0, 0), True, (21, 101, 192))


GEOGEBRA_SAVED = """<?xml version="1.0" encoding="utf-8"?>
<geogebra format="5.0" version="5.0.779.0" app="classic" platform="w">
<construction title="" author="" date="">
<element type="point" label="A"><show object="true" label="true"/><coords x="2" y="4" z="2"/></element>
<element type="point" label="B"><show object="true" label="true"/><coords x="4" y="1" z="1"/></element>
<command name="Segment"><input a0="A" a1="B"/><output a0="s"/></command>
<element type="segment" label="s"><show object="true" label="false"/><coords x="-1" y="3" z="-5"/></element>
<command name="Point"><input a0="s"/><output a0="C"/></command>
<element type="point" label="C"><coords x="2.5" y="1.5" z="1"/></element>
<command name="LineBisector"><input a0="A" a1="B"/><output a0="f"/></command>
<command name="AngularBisector"><input a0="A" a1="C" a2="B"/><output a0="g"/></command>
<command name="Circle"><input a0="A" a1="2"/><output a0="c"/></command>
<element type="conic" label="c"><show object="true" label="true"/><objColor r="0" g="0" b="255" alpha="0"/>
<matrix A0="1" A1="1" A2="1" A3="0" A4="-1" A5="-2"/></element>
<command name="Intersect"><input a0="c" a1="f"/><output a0="D" a1=""/></command>
<element type="numeric" label="k"><value val="1.5"/></element>
<command name="Dilate"><input a0="B" a1="k" a2="A"/><output a0="B'"/></command>
</construction></geogebra>"""


def test_reads_geogebra_saved_file():
    c = from_xml(GEOGEBRA_SAVED)
    assert c.coords("A") == (1.0, 2.0) and c.coords("B") == (4.0, 1.0)
    assert c.coords("C") == pytest.approx((2.5, 1.5), abs=1e-12) and c["C"].command == "Point(s,0.5)"
    assert c["f"].command == "PerpendicularBisector(A,B)" and c["g"].command == "AngleBisector(A,C,B)"
    assert c["c"].data == (1.0, 2.0, 2.0) and c["c"].color == (0, 0, 255) and c["s"].label_visible is False
    assert list(c.objects)[-4:] == ["D", "E", "k", "B'"]       # an empty output label is given automatically
    assert c.coords("B'") == (5.5, 0.5)
    c.move("A", 0, 0)
    assert c.coords("B'") == (6.0, 1.5) and c["c"].data == (0.0, 0.0, 2.0)


@pytest.mark.parametrize("bad, frag", [
    ('<construction><command name="Vector"><input a0="A" a1="B"/><output a0="u"/></command></construction>',
     "command #0"),
    ('<construction><element type="point" label="A"><coords x="0" y="0" z="1"/></element>'
     '<command name="Function"><input a0="A"/><output a0="f"/></command></construction>', "unknown command 'Function'"),
    ('<construction><element type="conic" label="c"><matrix A0="1" A1="1" A2="-1" A3="0" A4="0" A5="0"/></element>'
     '</construction>', "free conic is not supported"),
    ('<geogebra format="5.0"></geogebra>', "no <construction>"),
])
def test_unsupported_content_raises(bad, frag):
    with pytest.raises(GeoCommandError) as e:
        from_xml(bad)
    assert frag in str(e.value)


def test_read_rejects_zip_without_xml(tmp_path):
    p = tmp_path / "x.ggb"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("other.xml", "<a/>")
    with pytest.raises(GeoCommandError, match="no geogebra.xml"):
        read_ggb(p)


coord = st.floats(min_value=-50, max_value=50, allow_nan=False, allow_infinity=False)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10_000), st.lists(st.tuples(coord, coord), min_size=4, max_size=4))
def test_prop_round_trip_after_motion(seed, pts):
    c = Construction.from_commands(mixed_commands(seed))
    for lab, p in zip("ABCD", pts):
        c.move(lab, *p)
    same(c, from_xml(to_xml(c)))
