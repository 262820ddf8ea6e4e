"""Issue 14 acceptance: 1,000 random GeoGebra-like command strings fed to `Construction.from_commands` give a
construction or `GeoCommandError`, never another exception, and never hang (expression sizes are bounded)."""
import random
import time

from guilab.geo.kernel import COMMANDS, Construction, GeoCommandError

BASE = ["A=(0,0)", "B=(4,0)", "C=(1,3)", "c=Circle(A,B)", "f=Line(A,C)", "s=Segment(B,C)", "t1=Polygon(A,B,C)",
        "q(x) = x^2 - 1", "m: y = 0.5x + 1", "u = Vector((1, 2))", "r=2"]
LABELS = ["A", "B", "C", "c", "f", "s", "t1", "q", "m", "g", "u", "r", "Q", "α", "x", "y", "t1_1"]
NAMES = list(COMMANDS) + ["Ellipse", "Foo", "Sequence", "If", "sqrt", "Vector", "Function"]
ATOMS = ["0", "1", "-2.5", "1e400", "nan", "pi", "90°", "sqrt(8)", "sin(1)", "2pi", "(1, 2)", "(0,0)", "{A, B, C}",
         '"text"', '"', "(", ")", ",", "", " ", "x", "y", "x^2", "0 <= x <= 1", "1/0", "0^-1", "10^400"]
OPS = ["+", "-", "*", "/", "^", "=", "==", "<=", ":", "(", ")", ",", "°", " "]


def rand_expr(r, depth=0):
    k = r.random()
    if depth > 3 or k < 0.3: return r.choice(ATOMS + LABELS)
    if k < 0.55: return f"{rand_expr(r, depth + 1)}{r.choice(OPS)}{rand_expr(r, depth + 1)}"
    if k < 0.65: return f"If({rand_expr(r, depth + 1)}, {rand_expr(r, depth + 1)})"
    return rand_call(r, depth + 1)


def rand_call(r, depth=0):
    args = [rand_expr(r, depth + 1) for _ in range(r.randint(0, 4))]
    return f"{r.choice(NAMES)}({', '.join(args)})" if r.random() < 0.95 else f"{r.choice(NAMES)}({', '.join(args)}"


def num(r): return r.choice(["0", "1", "-1", "2", "0.5", "-3.25", "1e-9", "100", "sqrt(2)", "pi/3", "2.00000001"])


def fexpr(r, depth=0):
    "A random expression in x (GeoGebra syntax: implicit products, ^, functions, If)."
    k = r.random()
    if depth > 3 or k < 0.3: return r.choice(["x", num(r), f"{num(r)}x", "x^2", "x^3"])
    if k < 0.6: return f"{fexpr(r, depth + 1)} {r.choice(['+', '-', '*', '/'])} {fexpr(r, depth + 1)}"
    if k < 0.7: return f"({fexpr(r, depth + 1)})^{r.randint(0, 4)}"
    if k < 0.85: return f"{r.choice(['sin', 'cos', 'sqrt', 'abs', 'exp', 'ln'])}({fexpr(r, depth + 1)})"
    if k < 0.92: return f"If({num(r)} <= x <= {num(r)}, {fexpr(r, depth + 1)})"
    return r.choice(REVIEW_F)


# kinds of function that broke the kernel in review (tools/REVIEW14.md): poles, jumps, coincident or flat graphs,
# multiple roots, undefined everywhere, underflow
REVIEW_F = ["1/(x-0.01)", "tan(x)", "floor(x)", "floor(x)-0.5", "round(x)", "If(x<1,1,0)", "If(x<1||x>2,1,0)",
            "sin(x)", "sin(x)+1e-12", "x^2+0*sin(x)", "exp(-x^2)", "x^99999", "exp(x)", "(x+1)^32", "(x-0.5)^5",
            "x^3-3x^2+3x-1", "sqrt(-1)", "1/0", "asin(2)", "0/0", "sin(x°)"]


TEMPLATES = [lambda r: f"Circle({r.choice('ABC')}, {num(r)})", lambda r: f"Intersect({r.choice(['f', 's', 'm'])}, c)",
             lambda r: f"y = {num(r)}x + {num(r)}", lambda r: f"p(x) = {fexpr(r)}", lambda r: f"Intersect(q, {r.choice(['f', 's', 'm', 'c', 'q'])})",
             lambda r: f"Intersect(p, q)", lambda r: "Root(q)", lambda r: "Extremum(q)", lambda r: "AngleBisector(f, m)",
             lambda r: f"Angle(B, A, {num(r)}°)", lambda r: f"Translate(A, ({num(r)}, {num(r)}))",
             lambda r: f"Intersect(c, f, ({num(r)}, {num(r)}))", lambda r: f"Segment(A, Midpoint(B, ({num(r)}, {num(r)})))",
             lambda r: f"x^2 + y^2 = {num(r)}", lambda r: f"(x - {num(r)})^2 + (y + {num(r)})^2 = {num(r)}",
             lambda r: "Intersect(t1, f)", lambda r: f"Intersect(q, m, {r.randint(1, 3)})", lambda r: f"Intersect(q, m, {num(r)}, {num(r)})",
             lambda r: f"Circle({r.choice(['A', '(1, 1)'])}, Distance({r.choice('ABC')}, {r.choice('ABC')}))", lambda r: "A + u",
             lambda r: f"Tangent({r.choice(['f', 'm', 's'])}, c)", lambda r: f"Ray(A, u)", lambda r: f"Point(c, {num(r)})",
             lambda r: f"Distance(f, m)", lambda r: f"Area(A, B, C)", lambda r: f"{r.choice(['', 'k: '])}{fexpr(r)} = {fexpr(r)}",
             # review findings: wide explicit intervals, infinite integers, long flat chains, non-finite numbers
             lambda r: f"Root(p, {r.choice(['-1e308', '-1000', '-200', '0'])}, {r.choice(['1e308', '1000', '200', '1'])})",
             lambda r: f"Intersect(q, p, {r.choice(['1e309', '21e308', '-1e309'])})", lambda r: f"Polygon(A, B, {r.choice(['1e309', '1e6'])})",
             lambda r: f"Intersect(c, f, {r.choice(['1e309', '2'])})", lambda r: f"Extremum(p, -1000, 1000)",
             lambda r: r.choice(["p(x) = ", "y = ", "a = ", "k: y = "]) + r.choice(["x", "x+", "x*", "1^", "-"]) * r.randint(100, 900) + "x",
             lambda r: f"{r.choice(['a', 'rr'])} = {r.choice(['1e999', '10^308*10', '9' * 400, '-1e999'])}",
             lambda r: f"Circle(A, {r.choice(['1e999', '1e308*1e10'])})", lambda r: f"Dilate(A, 1e308*1e10, B)",
             lambda r: f"Segment(A, {r.choice(['1e309', '1e308'])})", lambda r: "y = 1e308x + 1e308",
             lambda r: f"Point({r.choice(['f', 's', 't1', 'c'])}, {r.choice(['-0.2', '0.25', '0.5', '1.3', '2', '1e309'])})"]


def rand_command(r):
    k = r.random()
    if k < 0.45:
        cmd = r.choice(TEMPLATES)(r)
        return cmd if cmd.startswith("p(x)") or r.random() < 0.7 else r.choice(["P=", "{P,Q}=", "k: "]) + cmd
    k = r.random()
    head = r.choice(["", "", "", "", "", "P=", "{P,Q}=", "k: ", "p(x) = ", "x=", "A=", "c=", "{P,}="])
    if k < 0.35: body = f"{r.choice(NAMES)}({', '.join(r.choice(LABELS + ATOMS[:10]) for _ in range(r.randint(1, 3)))})"
    elif k < 0.5: body = rand_call(r)
    elif k < 0.65: body = f"{rand_expr(r)} = {rand_expr(r)}"
    elif k < 0.8: body = rand_expr(r)
    elif k < 0.9: body = "".join(r.choice(OPS + ATOMS + LABELS) for _ in range(r.randint(1, 12)))
    else: body = "(" * r.randint(50, 400) + "x" + ")" * r.randint(0, 400) + "+1" * r.randint(0, 1500)
    return head + body


def test_fuzz_1000_commands_construction_or_geocommanderror():
    r = random.Random(14)
    built = refused = 0
    slowest = 0.0
    for i in range(1000):
        cmds = BASE + [rand_command(r)]
        t = time.perf_counter()
        try:
            c = Construction.from_commands(cmds)
        except GeoCommandError:
            refused += 1
        else:
            built += 1
            c2 = Construction.from_commands(c.to_commands())     # what was built also round-trips
            assert [(o.label, o.kind) for o in c2] == [(o.label, o.kind) for o in c], cmds
        slowest = max(slowest, time.perf_counter() - t)
    assert built + refused == 1000
    assert built > 50 and refused > 50, (built, refused)      # the generator exercises both outcomes
    assert slowest < 5.0, slowest                              # no command hangs (bounded sizes)


def test_bounds_refuse_huge_inputs():
    c = Construction()
    for bad in ["f(x) = " + "(" * 200 + "x" + ")" * 200, "y = " + "-" * 500 + "x", "A=(1," + "1" * 3000 + ")",
                "f(x) = (x+1)^100000", "g(x) = x^(10^400)"]:
        try:
            c.add(bad)
        except GeoCommandError:
            pass
