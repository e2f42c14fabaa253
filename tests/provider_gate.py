"""TEST DOUBLE of a hosted provider's request rules - not the provider, not a model.

``ProviderGate`` is a small HTTP proxy (standard library only) that stands in
front of an OpenAI-compatible server (``vllm serve`` with SmolLM2 in the
tests) and refuses, with the provider's kind of answer (HTTP 400,
``invalid_request_error`` naming the parameter), what a hosted API refuses for
a model family; everything else is forwarded unchanged.  The rules
(``FamilyRules``) are written from the providers' public behaviour as this
project knows it, they are not read from the provider, and a rule missing
here is simply not enforced:

* no prompt log-probs: the completions endpoint with ``echo`` or
  ``logprobs``, and vLLM's ``prompt_logprobs`` on any endpoint;
* ``top_logprobs`` at most 20, and ``logprobs`` only where the family gives
  them (``logprobs=False``: the GPT-5 / GPT-5-mini case);
* the GPT-5 family's sampling (``default_sampling_only``): temperature and
  top_p only at their default, 1;
* structured output only as ``response_format`` of type ``json_schema``
  (no vLLM ``guided_*`` / ``structured_outputs`` extras, no ``json_object``);
* ``reasoning_effort`` only for a reasoning family (``FamilyRules.reasoning``).

A reasoning family also behaves like one (``reasoning_plan`` /
``account_reasoning``): before it writes, the model spends ``reasoning_tokens``
hidden tokens (configurable; ``--reasoning-tokens``) from the request's
``max_completion_tokens`` / ``max_tokens``; the upstream writes the visible
answer within what is left (``finish_reason`` ``length`` when that runs out),
and the response's ``usage`` counts the hidden tokens in ``completion_tokens``
and ``completion_tokens_details.reasoning_tokens``, as the provider reports
them.  A budget the reasoning uses up returns an empty answer with
``finish_reason`` ``length``.  ``reasoning_effort`` is consumed here (the
upstream stand-in does not reason).

``violations`` is the pure rule check (unit-tested on its own); the proxy
applies it per request with the rules of the request's model family
(``rules_for``, or one family for all), can rename the model for an upstream
that serves everything under one name, and keeps what it refused and
forwarded for the tests.  ``python tests/provider_gate.py --help`` runs it
on its own (e.g. in front of a rehearsal's API stand-in).
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_TOP_LOGPROBS = 20
VLLM_EXTRAS = ("guided_json", "guided_regex", "guided_choice", "guided_grammar", "structured_outputs",
               "prompt_logprobs")


@dataclass(frozen=True)
class FamilyRules:
    """What the provider accepts for one model family."""

    logprobs: bool = True  # chat log-probs of generated tokens (top_logprobs <= 20)
    default_sampling_only: bool = False  # GPT-5 family: temperature / top_p only at 1
    reasoning: bool = False  # hidden reasoning before the answer, within the same token budget


GPT4O = FamilyRules()
GPT5_MINI = FamilyRules(logprobs=False, default_sampling_only=True, reasoning=True)
GPT54_MINI = FamilyRules(logprobs=True, default_sampling_only=True, reasoning=True)
GEMINI_THINKING = FamilyRules(reasoning=True)
DEFAULT = FamilyRules()
# Model name (the request's "model") -> its family's rules; first match wins.  GPT-5 / 5-mini /
# 5-nano / 5.1 / 5.2 give no log-probs; the later GPT-5.4 models do (as this project reads the
# public reports; unverified against the provider); every GPT-5 model takes default sampling only
# and reasons; Gemini 2.5 and later think before they answer.
FAMILIES = ((re.compile(r"^gpt-5\.[4-9]"), GPT54_MINI), (re.compile(r"^gpt-5"), GPT5_MINI),
            (re.compile(r"^gpt-4o"), GPT4O), (re.compile(r"^gemini-(2\.5|[3-9])"), GEMINI_THINKING))
BUDGET_KEYS = ("max_completion_tokens", "max_tokens")


def rules_for(model: str) -> FamilyRules:
    """The rules of the family of ``model`` (DEFAULT, the rules every family shares, when unknown)."""
    return next((r for pat, r in FAMILIES if pat.match(model or "")), DEFAULT)


def violations(path: str, body: dict, rules: FamilyRules) -> list[tuple[str, str]]:
    """(parameter, message) for each rule ``body`` (a request to ``path``) breaks."""
    out = []
    if path.endswith("/completions") and not path.endswith("/chat/completions"):
        if body.get("echo") or body.get("logprobs") is not None:
            out.append(("echo", "prompt log-probs (echo / logprobs on completions) are not available"))
    for k in VLLM_EXTRAS:
        if k in body:
            out.append((k, f"unrecognized request argument supplied: {k}"))
    if path.endswith("/chat/completions"):
        if body.get("logprobs") and not rules.logprobs:
            out.append(("logprobs", "this model does not support logprobs"))
        top = body.get("top_logprobs")
        if top is not None and int(top) > MAX_TOP_LOGPROBS:
            out.append(("top_logprobs", f"top_logprobs must be at most {MAX_TOP_LOGPROBS}, got {top}"))
        rf = body.get("response_format")
        if rf is not None and rf.get("type") != "json_schema":
            out.append(("response_format", f"response_format type {rf.get('type')!r} is not supported; "
                                           "use json_schema"))
    if "reasoning_effort" in body and not rules.reasoning:
        out.append(("reasoning_effort", "Unrecognized request argument supplied: reasoning_effort "
                                        "(this model does not reason)"))
    if rules.default_sampling_only:
        for k in ("temperature", "top_p"):
            if k in body and float(body[k]) != 1.0:
                out.append((k, f"Unsupported value: '{k}' does not support {body[k]} with this model. "
                               "Only the default (1) value is supported."))
    return out


def reasoning_plan(body: dict, rules: FamilyRules, reasoning_tokens: int) -> tuple[dict, int, bool]:
    """What the upstream gets for a chat request, the hidden tokens spent, and whether they used up
    the budget: a reasoning family spends ``reasoning_tokens`` (at most the budget) before it
    writes, so the upstream's budget is what is left; ``reasoning_effort`` is consumed here.  A
    budget used up leaves the upstream 1 token (its answer is replaced by an empty one)."""
    fwd = {k: v for k, v in body.items() if k != "reasoning_effort"}
    if not rules.reasoning or reasoning_tokens <= 0:
        return fwd, 0, False
    key = next((k for k in BUDGET_KEYS if body.get(k) is not None), None)
    if key is None:  # no budget: the reasoning takes what it needs
        return fwd, reasoning_tokens, False
    budget = int(body[key])
    spent = min(reasoning_tokens, budget)
    left = budget - spent
    fwd[key] = max(left, 1)
    return fwd, spent, left <= 0


def account_reasoning(resp: dict, spent: int, exhausted: bool) -> dict:
    """The upstream's chat completion as the provider returns it after ``spent`` hidden reasoning
    tokens: counted in ``usage`` (``completion_tokens``, ``total_tokens``,
    ``completion_tokens_details.reasoning_tokens``); when they used up the budget, each choice is
    an empty answer stopped at the budget (``finish_reason`` ``length``)."""
    resp = json.loads(json.dumps(resp))
    usage = resp.setdefault("usage", {}) or {}
    resp["usage"] = usage
    if exhausted:
        for ch in resp.get("choices") or []:
            ch["finish_reason"] = "length"
            msg = ch.get("message") or {}
            msg["content"] = ""
            ch["message"] = msg
            if ch.get("logprobs") is not None:
                ch["logprobs"] = {"content": []}
        usage["completion_tokens"] = spent
    else:
        usage["completion_tokens"] = int(usage.get("completion_tokens") or 0) + spent
    usage["total_tokens"] = int(usage.get("prompt_tokens") or 0) + usage["completion_tokens"]
    details = usage.get("completion_tokens_details") or {}
    details["reasoning_tokens"] = spent
    usage["completion_tokens_details"] = details
    return resp


@dataclass
class ProviderGate:
    """The proxy: ``ProviderGate(upstream_base, rules)`` listens on 127.0.0.1:<free port> until
    ``close()``; ``base_url`` replaces the upstream's (same ``/v1`` paths)."""

    upstream: str  # e.g. http://127.0.0.1:8000 (no /v1)
    rules: FamilyRules | None = None  # None: by the request's model name (rules_for)
    upstream_model: str | None = None  # the name the upstream serves every model by (None: unchanged)
    refused: list = field(default_factory=list)  # (path, [(param, message)])
    forwarded: list = field(default_factory=list)  # (path, body)
    port: int = 0  # 0: a free port
    reasoning_tokens: int = 0  # hidden tokens a reasoning family spends before it writes

    def __post_init__(self):
        gate = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def _send(self, status: int, payload: bytes, ctype: str = "application/json"):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _forward(self, method: str, data: bytes | None, reasoning: tuple[int, bool] | None = None):
                req = urllib.request.Request(gate.upstream + self.path, data=data, method=method)
                for h in ("Authorization", "Content-Type"):  # Content-Length: urllib sets it from data
                    if self.headers.get(h):
                        req.add_header(h, self.headers[h])
                try:
                    with urllib.request.urlopen(req, timeout=300) as r:
                        payload = r.read()
                        if reasoning is not None and r.status == 200:
                            payload = json.dumps(account_reasoning(json.loads(payload), *reasoning)).encode()
                        self._send(r.status, payload, r.headers.get("Content-Type", "application/json"))
                except urllib.error.HTTPError as e:
                    self._send(e.code, e.read())
                except (urllib.error.URLError, OSError) as e:  # upstream down: the provider's 502
                    self._send(502, json.dumps({"error": {"message": f"upstream unreachable: {e}",
                                                          "type": "server_error"}}).encode())

            def do_GET(self):
                self._forward("GET", None)

            def do_POST(self):
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(data or b"{}")
                rules = gate.rules or rules_for(body.get("model", ""))
                bad = violations(self.path, body, rules)
                if bad:
                    gate.refused.append((self.path, bad))
                    err = {"error": {"message": "; ".join(m for _, m in bad), "type": "invalid_request_error",
                                     "param": bad[0][0], "code": None}}
                    self._send(400, json.dumps(err).encode())
                    return
                gate.forwarded.append((self.path, body))
                reasoning = None
                if self.path.endswith("/chat/completions"):
                    fwd, spent, exhausted = reasoning_plan(body, rules, gate.reasoning_tokens)
                    reasoning = (spent, exhausted) if spent else None
                    if fwd != body:
                        body = fwd
                        data = json.dumps(body).encode()
                if gate.upstream_model and "model" in body:
                    data = json.dumps({**body, "model": gate.upstream_model}).encode()
                self._forward("POST", data, reasoning)

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def main(argv: list[str] | None = None) -> None:
    """Run the gate until interrupted: ``python tests/provider_gate.py --upstream http://127.0.0.1:8000
    --port 18431 [--upstream-model NAME] [--family gpt-5.4-mini] [--reasoning-tokens 48]`` (family: force
    one model's rules; reasoning tokens: spent by a reasoning family before it writes)."""
    ap = argparse.ArgumentParser(description="TEST DOUBLE of a hosted provider's request rules (proxy)")
    ap.add_argument("--upstream", required=True, help="OpenAI-compatible server, without /v1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--upstream-model", default=None, help="name the upstream serves every model by")
    ap.add_argument("--family", default=None, help="apply this model name's rules to every request")
    ap.add_argument("--reasoning-tokens", type=int, default=0,
                    help="hidden tokens a reasoning family spends from each request's budget before it writes")
    a = ap.parse_args(argv)
    gate = ProviderGate(a.upstream, rules_for(a.family) if a.family else None, a.upstream_model, port=a.port,
                        reasoning_tokens=a.reasoning_tokens)
    print(f"provider gate (test double) on {gate.base_url} -> {a.upstream}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        gate.close()


if __name__ == "__main__":
    main()
