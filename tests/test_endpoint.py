"""OpenAIChatPolicy against a real `transformers serve` (started by serve_transformers on a tiny VLM built here),
and the API-key hygiene of OpenAIChatPolicy against a server that echoes the key back in its error bodies."""
import http.server, json, logging, re, threading, time, traceback

import psutil
import pytest
from PIL import Image, ImageDraw

from guilab.agents.policies import (EmptyReplyError, EndpointError, OpenAIChatPolicy, PolicyError, TransformersPolicy, _get, free_port,
                                    serve_transformers, user_message)
from guilab.agents.tiny import build_tiny_vlm, load_tiny_vlm


def _img(colour):
    im = Image.new("RGB", (224, 224), "white")
    ImageDraw.Draw(im).rectangle([30, 40, 120, 90], fill=colour)
    return im


def _server_pids(port):
    out = []
    for p in psutil.process_iter(["pid", "cmdline"]):
        cmd = p.info["cmdline"] or []
        if "serve" in cmd and str(port) in cmd: out.append(p.info["pid"])
    return out


def test_transformers_serve_chat_with_images(tmp_path):
    d = build_tiny_vlm(tmp_path / "tiny", seed=1, loc_bins=16, tie_embeddings=False)
    local = TransformersPolicy(d, max_new_tokens=8)
    _, proc = load_tiny_vlm(d)
    msgs = {c: [{"role": "system", "content": "You are a GUI agent."}, user_message("Click the Circle tool.", [_img(c)])]
            for c in ("red", "blue")}
    text_only = [user_message("Click the Circle tool.")]
    log = tmp_path / "serve.log"
    port = free_port()
    t0 = time.monotonic()
    with serve_transformers(d, port=port, log_path=log) as url:
        ready_s = time.monotonic() - t0
        assert url == f"http://127.0.0.1:{port}/v1"
        assert _server_pids(port), "no server process found"
        pol = OpenAIChatPolicy(url, str(d), max_tokens=8, timeout=60, retries=1)
        replies, usage = {}, {}
        for c, m in msgs.items():
            replies[c] = pol.act(m)
            usage[c] = pol.last_usage
        reply_text = pol.act(text_only)
        usage_text = pol.last_usage
        assert pol.last_model == f"{d}@main"
        # a request for another model is refused by the pinned server, with a clear, non-retried error
        with pytest.raises(EndpointError, match=r"1 attempt\(s\): BadRequestError.*pinned"):
            OpenAIChatPolicy(url, "some/other-model", retries=3, backoff=5).act(text_only)
    # the server is gone: port closed, no process left in its group
    assert _get(f"http://127.0.0.1:{port}/v1/models", timeout=1)[0] == 0
    assert not _server_pids(port)
    print(f"server ready after {ready_s:.1f}s; replies {replies!r}, text-only {reply_text!r}")

    assert all(isinstance(r, str) for r in [*replies.values(), reply_text])
    # the server saw the requests ...
    server_log = log.read_text()
    assert server_log.count("[Request received]") == 3 and server_log.count('/v1/chat/completions HTTP/1.1" 200') == 3
    # ... and the image: its prompt has exactly the tokens the local processor makes (49 image tokens for 224 px)
    for c, m in msgs.items():
        conv = [{"role": "system", "content": "You are a GUI agent."},
                {"role": "user", "content": [{"type": "image", "image": _img(c)}, {"type": "text", "text": "Click the Circle tool."}]}]
        n = proc.apply_chat_template(conv, add_generation_prompt=True, tokenize=True, return_dict=True)["input_ids"]
        n = len(n[0]) if isinstance(n[0], list) else len(n)
        assert usage[c]["prompt_tokens"] == n
    assert usage["red"]["prompt_tokens"] - usage_text["prompt_tokens"] >= 49
    # same weights, same greedy decoding: the server's reply is the local model's reply, image by image
    for c, m in msgs.items():
        assert replies[c].strip() == local.act(m).strip()
    assert replies["red"] != replies["blue"]


def test_serve_reports_a_server_that_dies(tmp_path):
    bad = tmp_path / "bad"; bad.mkdir()
    (bad / "config.json").write_text(json.dumps({"model_type": "no_such_model"}))
    with pytest.raises(PolicyError, match="exited"):
        with serve_transformers(bad, timeout=60):
            pass
    with pytest.raises(FileNotFoundError):
        with serve_transformers(tmp_path / "missing"):
            pass


KEY = "sk-guilab-SECRET-4d1c9f0e7b"


class _Echo(http.server.BaseHTTPRequestHandler):
    """A hostile endpoint: it answers with an error body that repeats the Authorization header it received."""
    seen = []
    status = 401

    def do_POST(self):
        auth = self.headers.get("Authorization", "")
        _Echo.seen.append(auth)
        body = json.dumps({"error": {"message": f"bad key {auth}", "type": "auth", "code": _Echo.status}}).encode()
        self.send_response(_Echo.status)
        self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(body)))
        self.end_headers(); self.wfile.write(body)

    def log_message(self, *a):
        pass


@pytest.mark.parametrize("status,attempts", [(401, 1), (500, 3)])
def test_api_key_never_leaks(monkeypatch, caplog, capsys, status, attempts):
    monkeypatch.setenv("GUILAB_KEY_UNDER_TEST", KEY)
    _Echo.seen, _Echo.status = [], status
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    th = threading.Thread(target=srv.serve_forever, daemon=True); th.start()
    try:
        caplog.set_level(logging.DEBUG)
        pol = OpenAIChatPolicy(f"http://127.0.0.1:{srv.server_port}/v1", "m", api_key_env="GUILAB_KEY_UNDER_TEST",
                               retries=2, backoff=0.01, timeout=5)
        with pytest.raises(EndpointError) as ei:
            pol.act([user_message("hi", [_img("red")])])
    finally:
        srv.shutdown(); srv.server_close()
    assert _Echo.seen == [f"Bearer {KEY}"] * attempts          # the key really was sent, and echoed back
    err = ei.value
    assert f"{attempts} attempt(s)" in str(err) and "***" in str(err)
    everything = " ".join([str(err), repr(err), repr(pol), str(pol), "".join(traceback.format_exception(err)),
                           caplog.text, *capsys.readouterr()])
    assert KEY not in everything and "SECRET" not in everything
    assert err.__context__ is None and err.__cause__ is None


def test_unset_key_sends_EMPTY(monkeypatch):
    monkeypatch.delenv("GUILAB_NO_SUCH_KEY", raising=False)
    _Echo.seen, _Echo.status = [], 401
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    th = threading.Thread(target=srv.serve_forever, daemon=True); th.start()
    try:
        with pytest.raises(EndpointError, match="AuthenticationError"):
            OpenAIChatPolicy(f"http://127.0.0.1:{srv.server_port}/v1", "m", api_key_env="GUILAB_NO_SUCH_KEY").act(
                [user_message("hi")])
    finally:
        srv.shutdown(); srv.server_close()
    assert _Echo.seen == ["Bearer EMPTY"]


def test_recipe_served_checkpoint_gives_local_records(tmp_path, capsys, monkeypatch):
    """The README recipe end to end ("Evaluate a checkpoint"): a tiny executor trained for a few SFT steps on one
    problem's steps (location tokens), evaluated by `guilab pagebench eval` from its folder and through
    `transformers serve` of the same folder (`policy=URL model=DIR`): the same records, and some replies parse (the
    endpoint client reads the folder's grammar; before issue 11 every served reply was a format error). A wrong
    served model name ends in one line (exit 1: an endpoint error during the run is recorded, never scored). Issue 15: all of it offline (HF_HUB_OFFLINE=1, inherited by the server), and
    the reply texts themselves — not only the parsed records — are the same through `TransformersPolicy` and the
    served checkpoint at temperature 0, prompt by prompt on the executor's own training prompts."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1"); monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    import json as _json
    from guilab.cli import main
    from guilab.core import read_jsonl
    from guilab.pagebench.build import build
    from guilab.pagebench.problems import load_problems
    from guilab.train.sft import load_policy_model, model_image_size, step_examples, train_sft
    base = build_tiny_vlm(tmp_path / "base", loc_bins=32, tie_embeddings=False, seed=0)
    probs = load_problems("euclid")[:1]
    build(probs, tmp_path / "pb", screenshots=False, progress=False)
    trajs = list(read_jsonl(tmp_path / "pb" / "trajectories.jsonl"))
    _, proc, _ = load_policy_model(base)
    ex = step_examples(trajs, probs, model_image_size(proc, tuple(trajs[0].get("size", [1280, 800]))), loc_bins=32,
                       split=None, progress=False)
    ckpt = train_sft(base, tmp_path / "sft", ex, {"max_steps": 60, "per_device_train_batch_size": 8, "learning_rate": 3e-3,
                                                  "lr_scheduler_type": "constant", "logging_steps": 20, "save_steps": 1000},
                     progress=False)
    common = ["pagebench", "eval", "--data", str(tmp_path / "pb"), "--split", "all", "--agent", "pager", "--quiet"]
    assert main([*common, "--out", str(tmp_path / "local.json"), "--option", f"policy={ckpt}", "max_tokens=16"]) == 0
    with serve_transformers(ckpt) as url:
        assert main([*common, "--out", str(tmp_path / "served.json"), "--option", f"policy={url}", f"model={ckpt}",
                     "max_tokens=16"]) == 0
        # reply text, prompt by prompt: the executor's messages (screenshot + instruction) of the training examples
        msgs = [[user_message(e["prompt"][0]["content"][1]["text"], e["images"])] for e in ex[::max(1, len(ex) // 6)][:6]]
        served_txt = [OpenAIChatPolicy(url, str(ckpt), max_tokens=16, temperature=0.0, timeout=60, retries=1).act(m) for m in msgs]
        local_txt = [TransformersPolicy(ckpt, max_new_tokens=16).act(m) for m in msgs]
        assert [t.strip() for t in served_txt] == [t.strip() for t in local_txt], (served_txt, local_txt)
        assert len(set(local_txt)) > 1, local_txt            # the replies depend on the prompt: not one canned answer
        capsys.readouterr()
        rc = main([*common, "--out", str(tmp_path / "x.json"), "--option", f"policy={url}", "model=some/other-model"])
        err = [l for l in capsys.readouterr().err.splitlines() if l.strip()]
        assert rc == 1 and len(err) == 1 and "pinned" in err[0] and "not scored" in err[0], err   # an endpoint error: recorded, never scored
    local, served = (_json.loads((tmp_path / f"{n}.json").read_text()) for n in ("local", "served"))
    rl, rs = (list(read_jsonl(tmp_path / f"{n}.records.jsonl")) for n in ("local", "served"))
    assert rs == rl and served["metrics"] == local["metrics"]
    assert served["agent_info"]["policy"]["backend"] == "OpenAIChatPolicy" and served["agent_info"]["loc_bins"] == 32
    assert local["agent_info"]["policy"]["backend"] == "TransformersPolicy" and local["agent_info"]["loc_bins"] == 32
    assert served["agent_spec"]["options"] == {"policy": url, "model": str(ckpt), "max_tokens": 16}
    preds = [a for r in rs for t in r["tasks"] for a in t["pred"]]
    assert any(isinstance(a, dict) for a in preds), preds[:5]      # valid grammar replies, read as actions
    print(f"metrics {served['metrics']}; warnings {served['warnings']}")


# ---------------------------------------------------------------------------------------------------------------------
# Issue 58 (items 2, 5, 8): replies and statuses from public bug reports, served by a local HTTP server with canned
# bodies (the real `openai` client talks to it over HTTP; nothing is mocked). Each test pins the right value.

def _completion(message, finish_reason="stop", **top):
    return {"id": "c1", "object": "chat.completion", "created": 0, "model": "canned",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}, **top}


class _Canned(http.server.BaseHTTPRequestHandler):
    """Answers each POST with the next (status, headers, body) of `replies` (the last one repeats); a body that is not
    bytes is sent as JSON; `delay` seconds before answering. `requests` counts the POSTs it saw."""
    replies, requests, delay = [], [], 0.0

    def do_POST(self):
        _Canned.requests.append(json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"null"))
        status, headers, body = _Canned.replies[min(len(_Canned.requests), len(_Canned.replies)) - 1]
        if _Canned.delay: time.sleep(_Canned.delay)
        body = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        for k, v in {"Content-Type": "application/json", **headers}.items(): self.send_header(k, v)
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)

    def log_message(self, *a):
        pass


@pytest.fixture
def canned():
    "Start the canned server; yields `serve(*replies, delay=0) -> base_url` (a reply: (status, headers, body) or a body)."
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Canned)
    th = threading.Thread(target=srv.serve_forever, daemon=True); th.start()
    def serve(*replies, delay=0.0):
        _Canned.replies = [r if isinstance(r, tuple) else (200, {}, r) for r in replies]
        _Canned.requests, _Canned.delay = [], delay
        return f"http://127.0.0.1:{srv.server_port}/v1"
    try: yield serve
    finally:
        srv.shutdown(); srv.server_close()


def _policy(url, **kw):
    return OpenAIChatPolicy(url, "canned", **{"max_tokens": 64, "timeout": 5, "retries": 3, "backoff": 10.0, **kw})


HI = [user_message("hi")]


def test_list_content_is_joined_without_its_reasoning(canned):
    """agent-framework#6978: content as a list of parts crashed `act` (TypeError: can only concatenate list)."""
    url = canned(_completion({"content": [{"type": "reasoning", "text": "The button is at the top."},
                                          {"type": "text", "text": "click(3, "}, {"type": "output_text", "text": "4)"}]}))
    pol = _policy(url)
    assert pol.act(HI) == "click(3, 4)"
    assert (pol.last_reasoning, pol.last_finish_reason, pol.last_usage["completion_tokens"]) == ("The button is at the top.", "stop", 7)


def test_list_content_with_a_part_it_cannot_read_is_an_endpoint_error(canned):
    url = canned(_completion({"content": [{"type": "image_url", "image_url": {"url": "data:,"}}]}))
    with pytest.raises(EndpointError, match=r"cannot read: ValueError: content part 0 is neither text") as ei:
        _policy(url).act(HI)
    assert len(_Canned.requests) == 1 and not isinstance(ei.value, EmptyReplyError)


def test_budget_spent_reasoning_is_an_empty_reply_of_reason_length(canned):
    """mindcraft#789, vllm #42635, sglang #37644: content None, the budget spent in reasoning_content."""
    url = canned(_completion({"content": None, "reasoning_content": "Let me think about where the Circle tool"}, "length"))
    pol = _policy(url, max_tokens=16)
    with pytest.raises(EmptyReplyError) as ei:
        pol.act(HI)
    e = ei.value
    assert (e.reason, e.finish_reason, e.reasoning) == ("length", "length", "Let me think about where the Circle tool")
    assert "max_tokens=16" in str(e) and "raise max_tokens" in str(e), str(e)
    assert isinstance(e, EndpointError) and len(_Canned.requests) == 1           # not retried: the same request would spend it again
    assert (pol.last_finish_reason, pol.last_reasoning) == ("length", "Let me think about where the Circle tool")


def test_budget_cut_before_any_visible_text_without_reasoning_is_the_models_reply(canned):
    """No reasoning, cut at the budget, nothing visible yet (an untrained model's special tokens): a truncated reply,
    empty, which the agent's parser counts as a format error; the budget was not spent thinking."""
    url = canned(_completion({"content": ""}, "length"))
    pol = _policy(url, max_tokens=8)
    assert pol.act(HI) == "" and (pol.last_finish_reason, pol.last_reasoning) == ("length", None)


def test_empty_content_at_stop_is_an_empty_reply_of_reason_empty(canned):
    url = canned(_completion({"content": ""}, "stop"))
    with pytest.raises(EmptyReplyError) as ei:
        _policy(url).act(HI)
    assert (ei.value.reason, ei.value.finish_reason) == ("empty", "stop")
    assert "no content and no tool calls" in str(ei.value) and len(_Canned.requests) == 1


def test_truncated_answer_stays_a_reply(canned):
    "Content and finish_reason length: a reply (the parser's business), its finish reason recorded."
    url = canned(_completion({"content": "click(3,", "reasoning_content": "short"}, "length"))
    pol = _policy(url)
    assert (pol.act(HI), pol.last_finish_reason, pol.last_reasoning) == ("click(3,", "length", "short")


def test_tool_calls_only_are_the_reply(canned):
    call = {"id": "t1", "type": "function", "function": {"name": "crop_image", "arguments": '{"x1": 1}'}}
    url = canned(_completion({"content": None, "tool_calls": [call]}, "tool_calls"))
    pol = _policy(url)
    assert pol.act(HI) == '<tool_call>\n{"name": "crop_image", "arguments": {"x1": 1}}\n</tool_call>'
    assert pol.last_finish_reason == "tool_calls"


def test_429_with_retry_after_ms_waits_that_long_and_retries(canned):
    """MemOS#1620, helicone#5672: the server's wait is honoured (50 ms here), not the back-off (10 s here)."""
    url = canned((429, {"retry-after-ms": "50"}, {"error": {"message": "rate limited"}}), _completion({"content": "ok"}))
    t0 = time.monotonic()
    assert _policy(url).act(HI) == "ok"
    dt = time.monotonic() - t0
    assert len(_Canned.requests) == 2 and 0.05 <= dt < 3, dt


@pytest.mark.parametrize("header", ["3600", "http-date"])
def test_429_with_retry_after_over_the_cap_fails_at_once(canned, header):
    from email.utils import formatdate
    value = "3600" if header == "3600" else formatdate(time.time() + 3600, usegmt=True)
    url = canned((429, {"retry-after": value}, {"error": {"message": "rate limited"}}))
    t0 = time.monotonic()
    with pytest.raises(EndpointError) as ei:
        _policy(url, max_retry_after=60).act(HI)
    dt, msg = time.monotonic() - t0, str(ei.value)
    assert dt < 3 and len(_Canned.requests) == 1, dt
    assert "RateLimitError" in msg and "max_retry_after=60 s" in msg and "1 attempt(s)" in msg, msg
    if header == "3600": assert "wait 3600 s" in msg, msg
    else: assert re.search(r"wait 3(599|600)(\.\d+)? s", msg), msg


@pytest.mark.parametrize("status,name", [(500, "InternalServerError"), (429, "RateLimitError")])
def test_5xx_or_429_without_retry_after_keeps_the_exponential_back_off(canned, status, name):
    url = canned((status, {}, {"error": {"message": "boom"}}))
    t0 = time.monotonic()
    with pytest.raises(EndpointError, match=rf"3 attempt\(s\): {name}"):
        _policy(url, retries=2, backoff=0.2).act(HI)
    dt = time.monotonic() - t0
    assert len(_Canned.requests) == 3 and 0.2 + 0.4 <= dt < 5, dt      # waits 0.2 s, then 0.4 s


def test_503_with_retry_after_is_honoured_too(canned):
    url = canned((503, {"Retry-After": "0.05"}, {"error": {"message": "busy"}}), _completion({"content": "ok"}))
    t0 = time.monotonic()
    assert _policy(url).act(HI) == "ok" and len(_Canned.requests) == 2 and time.monotonic() - t0 < 3


def test_4xx_fails_at_once(canned):
    url = canned((400, {}, {"error": {"message": "bad request: max_tokens too large"}}))
    with pytest.raises(EndpointError, match=r"1 attempt\(s\): BadRequestError.*max_tokens too large"):
        _policy(url).act(HI)
    assert len(_Canned.requests) == 1


def test_timeout_is_retried(canned):
    url = canned(_completion({"content": "late"}), delay=1.0)
    with pytest.raises(EndpointError, match=r"2 attempt\(s\): APITimeoutError"):
        _policy(url, timeout=0.3, retries=1, backoff=0.01).act(HI)
    assert len(_Canned.requests) == 2


@pytest.mark.parametrize("status,headers,body,expected", [
    (200, {}, b'{"id": "c1", "choices": [', r"1 attempt\(s\): the reply is not valid JSON \(JSONDecodeError"),   # JSON content type: the client raises JSONDecodeError
    (200, {"Content-Type": "text/plain"}, b'{"id": "c1", "choices": [', r"returned no chat completion: \"\{"),   # other type: the client returns the text
    (200, {}, b"{}", r"returned no chat completion"),
    (200, {}, b'{"choices": []}', r"returned no choices"),
    (200, {"Content-Type": "application/json; charset=latin-1"},   # a body in another encoding: one EndpointError, not a bare UnicodeDecodeError
     b'{"id": "c1", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0, "finish_reason": "stop", '
     b'"message": {"role": "assistant", "content": "caf\xe9"}}]}', r"1 attempt\(s\): the reply is not UTF-8"),
], ids=["not-json", "not-json-text-type", "empty-object", "no-choices", "not-utf8"])
def test_malformed_body_is_an_endpoint_error(canned, status, headers, body, expected):
    url = canned((status, headers, body))
    with pytest.raises(EndpointError, match=expected):
        _policy(url).act(HI)
    assert len(_Canned.requests) == 1          # not retried: the server answered


def test_endpoint_judge_reads_list_content_and_raises_judge_error_otherwise(canned):
    from guilab.grounding.vqa import EndpointJudge, JudgeError
    url = canned(_completion({"content": [{"type": "reasoning", "text": "maybe [judge] False"},
                                          {"type": "text", "text": "Same value.\n[judge] True"}]}))
    judge = EndpointJudge(url, "canned", timeout=5, retries=0, max_tokens=32)
    v = judge("How many?", "3", "three")
    assert (v["correct"], v["reason"]) == (True, "Same value.\n[judge] True")
    for reply, why in [(_completion({"content": [{"type": "image_url", "image_url": {"url": "x"}}]}), "cannot read"),
                       (_completion({"content": [1, 2]}), "cannot read"),
                       (_completion({"content": None, "reasoning_content": "[judge] True"}, "length"), "max_tokens=32"),
                       (_completion({"content": ""}, "stop"), "no content and no tool calls"),
                       ((200, {}, b'{"choices": ['), "JSONDecodeError"),
                       ((200, {}, b'{}'), "no chat completion")]:
        canned(reply)
        with pytest.raises(JudgeError, match=why):
            judge("How many?", "3", "three")


def test_empty_reply_in_a_run_is_an_error_episode_and_the_run_goes_on(canned, tmp_path):
    """Through the harness: the first request of a grounding run gets a budget spent reasoning, the later ones a reply
    that does not parse. The first episode is recorded as status "error" with the one-line EmptyReplyError (never a
    format error), the second runs and is scored (a format error, not an error)."""
    from guilab.bench import evaluate, read_episodes
    url = canned(_completion({"content": None, "reasoning_content": "thinking"}, "length"), _completion({"content": "no idea"}))
    s = evaluate("grounding", "model", tmp_path / "run", limit=2, progress=False, raise_on_error=False,
                 agent_options={"base_url": url, "model": "canned", "max_tokens": 16, "retries": 0})
    eps = read_episodes(tmp_path / "run", status=None)
    assert [e["status"] for e in eps] == ["error", "ok"], eps
    assert eps[0]["error"].startswith("EmptyReplyError: no answer (reason 'length')") and "raise max_tokens" in eps[0]["error"], eps[0]["error"]
    assert eps[0]["format_errors"] == 0 and eps[1]["format_errors"] >= 1
    assert (s["n_error"], s["n_ok"], s["stopped"]) == (1, 1, None)
