"""OpenAIChatPolicy against a real `transformers serve` (started by serve_transformers on a tiny VLM built here),
and the API-key hygiene of OpenAIChatPolicy against a server that echoes the key back in its error bodies."""
import http.server, json, logging, threading, time, traceback

import psutil
import pytest
from PIL import Image, ImageDraw

from guilab.agents.policies import (EndpointError, OpenAIChatPolicy, PolicyError, TransformersPolicy, _get, free_port,
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
