"""Issue 58 (items 1, 3, 7, 9): inputs from public bug reports, each a kind of input the writers and readers must take.

1. A JSONL file whose last line a kill cut inside a multi-byte character (bernstein#3971, ijson#15): the torn line is
   skipped like one cut between characters; invalid UTF-8 on a complete line is a `JsonlError` naming file and line.
3. `--option` / `--setting` values typed as `--set` types them (LlamaFactory#4014): one YAML 1.2 reader
   (`core.yaml_load`) for every KEY=VALUE, so `5e-2` is 0.05 and `010` is 10, and `stability/noisy_oracle` builds.
7. A name a page cut inside an emoji (llumiverse PR #462, langfuse#16172): the JS collectors never cut half a
   surrogate pair, and a lone surrogate that still reaches the Python writers is written as U+FFFD, never refused.
9. GraphML with None (networkx#878): `save_utg(graphml=True)` of a UTG with no state writes both files or neither.
"""
import json, subprocess

import networkx as nx
import pytest
from conftest import GUILAB

from guilab.agents.base import RegistryError, make, parse_options
from guilab.browser import CUT_JS, DESCRIBE_JS, browser_page, chromium_available, collect_elements
from guilab.core import JsonlError, JsonlWriter, atomic_write, dumps, parse_override, read_jsonl, well_formed, write_jsonl
from guilab.stability import utg as U

EMOJI = "\U0001F600"   # 4 bytes in UTF-8, 2 code units in UTF-16


# --- 1. JSONL cut inside a multi-byte character -------------------------------------------------------------------

def test_read_jsonl_skips_a_last_line_cut_inside_a_character(tmp_path):
    p = tmp_path / "torn.jsonl"
    p.write_bytes('{"a": "€"}\n{"b": "€'.encode("utf-8")[:-2])   # after 1 byte (0xe2) of the 3-byte "€"
    assert p.read_bytes().endswith(b'"\xe2')
    assert read_jsonl(p) == [{"a": "€"}]


def test_read_jsonl_invalid_utf8_on_a_complete_line_names_file_and_line(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_bytes(b'\xff{}\n')
    with pytest.raises(JsonlError, match=r"bad\.jsonl:1: line 1 is not UTF-8"):
        read_jsonl(p)
    q = tmp_path / "bad2.jsonl"   # line 2 of 3, and a complete last line (it has its newline: not a torn tail)
    q.write_bytes(b'{"id": 1}\n{"x": "\xe2"}\n{"id": 3}\n')
    with pytest.raises(JsonlError, match=r"bad2\.jsonl:2: line 2 is not UTF-8"):
        read_jsonl(q)
    q.write_bytes(b'{"id": 1}\n{"x": "\xe2"}\n')
    with pytest.raises(JsonlError, match=r"bad2\.jsonl:2: line 2"):
        read_jsonl(q)


def test_read_jsonl_keeps_a_bom_and_valid_text(tmp_path):
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b'\xef\xbb\xbf{"a": "\xe2\x82\xac"}\n{"b": 2}')   # a BOM (accepted before as now) and a complete unterminated line
    assert read_jsonl(p) == [{"a": "€"}, {"b": 2}]


def test_jsonl_writer_resumes_after_a_tail_cut_inside_a_character(tmp_path):
    p = tmp_path / "run.jsonl"
    p.write_bytes('{"id": 1, "s": "€"}\n{"id": 2, "s": "€'.encode("utf-8")[:-2])
    with JsonlWriter(p) as w:
        assert w.done == {1}            # the torn record 2 is not done: it is run again
        w.write({"id": 2, "s": "€"})
    assert read_jsonl(p) == [{"id": 1, "s": "€"}, {"id": 2, "s": "€"}]
    assert p.read_bytes() == '{"id": 1, "s": "€"}\n{"id":2,"s":"€"}\n'.encode("utf-8")


# --- 3. one YAML 1.2 reader for every KEY=VALUE --------------------------------------------------------------------

def test_parse_options_reads_yaml_1_2():
    assert parse_options(["epsilon=5e-2", "seed=010"]) == {"epsilon": 0.05, "seed": 10}
    assert type(parse_options(["seed=010"])["seed"]) is int
    assert parse_options(["name='007'"]) == {"name": "007"}
    assert parse_options(["flag=yes", "on=on", "off=false"]) == {"flag": "yes", "on": "on", "off": False}
    assert parse_options(["empty="]) == {"empty": ""}


def test_parse_options_types_values_as_set_does():
    for v in ["5e-2", "010", "0x10", "0o10", "yes", "no", "true", "False", "null", "~", "1_000", "2024-01-01", ".inf",
              "'007'", "[a, b]", "{k: 1}", "http://127.0.0.1:8000/v1", "1.5", "-3"]:
        a, b = parse_options([f"k={v}"])["k"], parse_override(f"k={v}")[1]
        assert a == b or (a != a and b != b), (v, a, b)   # (.nan != .nan)


def test_parse_options_bad_yaml_is_one_line_naming_the_key():
    with pytest.raises(RegistryError, match=r"option 'ids': value '\[a, b' is not valid YAML") as e:
        parse_options(["ids=[a, b"])
    assert "\n" not in str(e.value)
    with pytest.raises(RegistryError, match="KEY=VALUE"):
        parse_options(["novalue"])


def test_noisy_oracle_built_from_options():
    ag = make("stability/noisy_oracle", **parse_options(["epsilon=5e-2", "seed=010"]))
    assert (ag.epsilon, ag.seed) == (0.05, 10)
    assert ag.agent_spec["options"] == {"epsilon": 0.05, "seed": 10}


def test_noisy_oracle_cli_round_trip(tmp_path):
    out = tmp_path / "run"
    r = subprocess.run([GUILAB, "eval", "gracebench", "--agent", "stability/noisy_oracle", "--option", "epsilon=5e-2",
                        "seed=010", "--setting", "budget=3", "--limit", "1", "--out", str(out), "--quiet"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    s = json.loads((out / "summary.json").read_text())
    assert s["agent"]["options"] == {"epsilon": 0.05, "seed": 10}
    assert s["settings"]["budget"] == 3 and (s["n_ok"], s["n_error"]) == (2, 0)   # --limit 1: one task in both conditions
    r = subprocess.run([GUILAB, "eval", "gracebench", "--agent", "stability/noisy_oracle", "--option", "epsilon=[0.1",
                        "--limit", "1", "--out", str(tmp_path / "run2"), "--quiet"], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "option 'epsilon'" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


# --- 7. a name cut inside an emoji ----------------------------------------------------------------------------------

def test_signature_of_a_name_cut_inside_an_emoji():
    row = {"region": "left", "role": "treeitem", "visible": True}
    other = {"region": "menubar", "role": "menuitem", "name": "File", "visible": True}
    cut = U.signature([other, {**row, "name": "ab\ud83d"}])
    assert len(cut) == 16
    assert cut == U.signature([other, {**row, "name": "ab\ufffd"}])
    assert cut != U.signature([other, {**row, "name": "ab"}])
    assert U.signature([other, {**row, "name": "ab" + EMOJI}]) != cut


def test_jsonl_writer_writes_a_lone_surrogate_as_replacement_char(tmp_path):
    p = tmp_path / "a.jsonl"
    with JsonlWriter(p) as w:
        w.write({"id": 1, "name": "ab\ud83d", "ok": "€" + EMOJI})
    assert read_jsonl(p) == [{"id": 1, "name": "ab\ufffd", "ok": "€" + EMOJI}]
    assert p.read_bytes() == '{"id":1,"name":"ab\ufffd","ok":"€😀"}\n'.encode("utf-8")
    write_jsonl(tmp_path / "b.jsonl", [{"\ude00k": "x\ud83d"}])
    assert read_jsonl(tmp_path / "b.jsonl") == [{"\ufffdk": "x\ufffd"}]
    atomic_write(tmp_path / "c.json", json.dumps({"n": "ab\ud83d"}, ensure_ascii=False))
    assert json.loads((tmp_path / "c.json").read_text(encoding="utf-8")) == {"n": "ab\ufffd"}


def test_valid_text_is_written_byte_for_byte_as_before(tmp_path):
    rec = {"id": 1, "s": "naïve € " + EMOJI + " 中文", "q": 'say "hi"\n', "n": [1.5, None, True]}
    assert dumps(rec) == json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
    s = "x" + EMOJI
    assert well_formed(s) is s
    assert well_formed("\ud83d\ude00") == EMOJI   # a pair held as two code points is one character


def test_save_utg_with_a_name_cut_inside_an_emoji(tmp_path):
    G = U.new_utg("demo")
    U.add_state(G, "s0", {"tabs": ["ab\ud83d"]}, depth=0)
    U.add_state(G, "s1", depth=1)
    U.add_transition(G, "s0", "click|left|treeitem|ab\ud83d|0", "s1")
    p = U.save_utg(G, tmp_path / "utg.json.gz", graphml=True)
    for H in (U.load_utg(p), U.load_utg(tmp_path / "utg.graphml")):
        assert json.loads(H.nodes["s0"]["desc"]) == {"tabs": ["ab\ufffd"]}
        assert U.edge_actions(H, "s0", "s1") == {"click|left|treeitem|ab\ufffd|0": 1}


def test_save_utg_graphml_holds_what_xml_cannot(tmp_path):
    """A page's text may hold control characters or U+FFFF, which XML 1.0 cannot: the GraphML writes them as U+FFFD
    (so it parses), the JSON keeps them as they were."""
    G = U.new_utg("de\x01mo")
    U.add_state(G, "s0", {"tabs": ["a\x01b\uffffc"]}, depth=0)
    U.add_state(G, "s1", depth=1)
    U.add_transition(G, "s0", "click|left|button|x\ufffey|0", "s1")
    p = U.save_utg(G, tmp_path / "utg.json", graphml=True)
    H = U.load_utg(tmp_path / "utg.graphml")
    assert json.loads(H.nodes["s0"]["desc"]) == {"tabs": ["a\x01b\ufffdc"]}   # desc is JSON text: its \\u0001 escape survives
    assert U.edge_actions(H, "s0", "s1") == {"click|left|button|x\ufffdy|0": 1} and H.graph["app"] == "de\ufffdmo"
    assert json.loads(U.load_utg(p).nodes["s0"]["desc"]) == {"tabs": ["a\x01b\uffffc"]} and U.load_utg(p).graph["app"] == "de\x01mo"


@pytest.mark.browser
@pytest.mark.skipif(not chromium_available(), reason="Chromium/Playwright missing (make setup installs them)")
def test_collectors_never_cut_half_an_emoji_in_chromium():
    with browser_page(device_scale_factor=1) as page:
        page.set_content(f'<p>{"a" * 499}{EMOJI}</p><input value="{"b" * 199}{EMOJI}"><button>{"a" * 499}{EMOJI}</button>'
                         f'<div role="button" aria-label="{"c" * 79}{EMOJI}" '
                         'style="position:fixed;left:0;top:300px;width:50px;height:50px"></div>')
        els = collect_elements(page)
        text = [e["name"] for e in els if e["role"] == "text"]
        value = [e["value"] for e in els if e["role"] == "textbox"]
        button = [e["name"] for e in els if e["role"] == "button" and e["name"]]
        described = page.evaluate(DESCRIBE_JS, [25, 325])
        cut = lambda s, n: page.evaluate(f"([s, n]) => ({CUT_JS})(s, n)", [s, n])
        cuts = [cut("x" + EMOJI, 2), cut("x" + EMOJI, 3), cut("xyz", 2), cut("", 5), cut("\ud83d", 1)]
    lone = lambda s: any(0xD800 <= ord(ch) <= 0xDFFF for ch in s)
    assert text == ["a" * 499] and value == ["b" * 199]                      # 500 / 200 units end on half the emoji
    assert button == ["a" * 499 + EMOJI, "c" * 79 + EMOJI]                   # a control's name is not cut
    assert described == {"role": "button", "name": "c" * 79}                 # DESCRIBE_JS's 80
    assert not any(lone(s) for s in text + value + button + [described["name"]])
    assert cuts == ["x", "x" + EMOJI, "xy", "", ""]
    assert U.signature([{"region": "main", "role": "text", "name": n} for n in text])   # and it hashes


# --- 9. GraphML with None -------------------------------------------------------------------------------------------

def test_save_utg_of_an_empty_utg_writes_both_files(tmp_path):
    G = U.new_utg("jupyterlab")
    assert G.graph["start"] is None
    p = U.save_utg(G, tmp_path / "utg.json", graphml=True)
    assert sorted(f.name for f in tmp_path.iterdir()) == ["utg.graphml", "utg.json"]
    for H in (U.load_utg(p), U.load_utg(tmp_path / "utg.graphml")):
        assert H.graph == {"app": "jupyterlab", "start": None, "nondeterministic": "[]"}
        assert H.graph["start"] is None
        assert (H.number_of_nodes(), H.number_of_edges()) == (0, 0)


def test_save_utg_graphml_round_trip_of_a_graph_with_states(tmp_path):
    G = U.new_utg("demo", budget_s=60)
    U.add_state(G, "s0", {"tabs": ["Launcher"]}, depth=0); U.add_state(G, "s1", depth=1, path=["key|Escape"])
    U.add_transition(G, "s0", "key|Escape", "s1")
    U.save_utg(G, tmp_path / "utg.json", graphml=True)
    H = U.load_utg(tmp_path / "utg.graphml")
    assert H.graph == G.graph and dict(H.nodes(data=True)) == dict(G.nodes(data=True))
    assert list(H.edges(data=True)) == list(G.edges(data=True))
    assert "graphml_null" not in (tmp_path / "utg.graphml").read_text()   # nothing was None


def test_save_utg_graphml_failure_leaves_no_file_new(tmp_path, monkeypatch):
    G = U.new_utg("demo")
    def boom(*a, **k): raise RuntimeError("graphml writer failed")
    monkeypatch.setattr(nx, "write_graphml", boom)
    with pytest.raises(RuntimeError, match="graphml writer failed"):
        U.save_utg(G, tmp_path / "utg.json", graphml=True)
    assert list(tmp_path.iterdir()) == []                                   # utg.json not created
    (tmp_path / "old.json").write_text("previous")
    with pytest.raises(RuntimeError):
        U.save_utg(G, tmp_path / "old.json", graphml=True)
    assert (tmp_path / "old.json").read_text() == "previous"                # nor an old one replaced
    assert sorted(f.name for f in tmp_path.iterdir()) == ["old.json"]


def test_every_prefix_a_kill_can_leave_is_a_cut_not_damage(tmp_path):
    """A kill can stop `JsonlWriter.write` after any byte of a line: every such prefix of what `core.dumps` writes must
    read as a cut (skipped by read_jsonl, truncated by a resuming JsonlWriter), never as damage (which stops a resume)."""
    from guilab.core import _parse_line, dumps
    recs = [{"id": 7, "name": "Cell 3 — ✓ “ok” 😀", "x": -1.25e-7, "flags": [True, False, None], "nan": float("nan"),
             "inf": float("-inf"), "ctl": "a\x01b\tc\\d\"e", "pair": "x\U0001F600y".encode("utf-16", "surrogatepass").decode("utf-16"), "nested": {"k": [1, {"z": "é"}]}}]
    for line in [dumps(r).encode("utf-8") for r in recs] + [json.dumps(r).encode() for r in recs]:   # and ASCII-escaped writers'
        r = json.loads(line)
        for n in range(1, len(line)):
            rec, err = _parse_line(line[:n], False)
            assert err is not None and err[0], (n, line[:n], err)
        assert _parse_line(line, False)[1] is None
        for n in (1, len(line) // 2, len(line) - 1):   # and a resume after such a kill keeps the records before it
            p = tmp_path / f"k{n}.jsonl"; p.write_bytes(b'{"id": 1}\n' + line[:n])
            with JsonlWriter(p) as w: assert w.done == {1}
            assert p.read_bytes() == b'{"id": 1}\n'


def test_the_cut_escape_message_is_the_json_modules_own():
    """`_parse_line` recognises a line cut inside a unicode escape by the json module's message and the escape's shape;
    if the json module ever words it otherwise, this fails instead of every such cut reading as damage."""
    import json
    from guilab.core import _ESCAPE_PREFIX, _JSON_BAD_ESCAPE
    for cut in ('{"a": "\\u12', '{"a": "\\ud83d\\ude'):
        with pytest.raises(json.JSONDecodeError) as e: json.loads(cut)
        assert e.value.msg.startswith(_JSON_BAD_ESCAPE), e.value.msg
        assert _ESCAPE_PREFIX.fullmatch(cut[e.value.pos:].strip()), cut[e.value.pos:]
