"""A scripted stand-in for the Gemini API, for driving the real Gemini CLI without a model.

Gemini CLI asks ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` (a server-sent event
stream) or ``:generateContent`` (one JSON answer), with the conversation so far in ``contents``.
What the server answers is a script: a list of steps, each a tool call (``Call``), several in one
answer (``Together``), or a final ``Say``.  Which step: the number of the model's own turns (``role: model``) the request already
holds, so the server keeps no state of its own between requests and a retried request gets the
same answer.  A request that offers no tools is one of Gemini's side questions (which model to
route to, who speaks next): it gets a short JSON answer when it asks for JSON, else a short text.
Every request's body is kept (``requests``), so a test can read what the model was shown: each
tool call's response (``responses``).

It runs in a thread of the test's own process (``serving``), on a port the system picks.
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Iterator, Union

import fake_servers

SIDE_ANSWER = {  # fits each side question Gemini CLI 0.61.0 asks (the router's, the next speaker's)
    "reasoning": "scripted",
    "next_speaker": "user",
    "model_choice": "flash",
    "complexity_reasoning": "scripted",
    "complexity_score": 10,
}


@dataclass(frozen=True)
class Call:
    """The model calls Gemini's tool `name` with `args`."""

    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Together:
    """The model calls several tools in one answer (Gemini may run them side by side)."""

    calls: tuple[Call, ...]


@dataclass(frozen=True)
class Say:
    """The model answers with text, which ends the turn."""

    text: str


Step = Union[Call, Together, Say]


@dataclass
class Script:
    steps: list[Step]
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def responses(self) -> list[tuple[str, dict[str, Any]]]:
        """What the model was shown for each of its tool calls, in order: (tool, the response
        object), from the last request that offered tools."""
        main = [r for r in self.requests if _offers_tools(r)]
        out: list[tuple[str, dict[str, Any]]] = []
        for content in main[-1].get("contents", []) if main else []:
            for part in content.get("parts", []) if isinstance(content, dict) else []:
                answered = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(answered, dict):
                    out.append((str(answered.get("name")), answered.get("response") or {}))
        return out


def _offers_tools(body: dict[str, Any]) -> bool:
    return any(isinstance(t, dict) and t.get("functionDeclarations") for t in body.get("tools") or [])


def _answer(body: dict[str, Any], script: Script) -> dict[str, Any]:
    """The candidate's content for this request."""
    if not _offers_tools(body):
        config = body.get("generationConfig") or {}
        wants_json = config.get("responseMimeType") == "application/json" or "responseJsonSchema" in config
        return {"role": "model", "parts": [{"text": json.dumps(SIDE_ANSWER) if wants_json else "ok"}]}
    done = sum(1 for c in body.get("contents") or [] if isinstance(c, dict) and c.get("role") == "model")
    step = script.steps[done] if done < len(script.steps) else Say("(the script is over)")
    if isinstance(step, Say):
        return {"role": "model", "parts": [{"text": step.text}]}
    calls = step.calls if isinstance(step, Together) else (step,)
    return {"role": "model", "parts": [{"functionCall": {"name": c.name, "args": c.args}} for c in calls]}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: fake_servers.ScriptServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the test's output is not the place

    def _json(self, obj: dict[str, Any]) -> None:
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._json({"models": []})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        path = self.path.split("?")[0]
        if path.endswith(":countTokens"):
            return self._json({"totalTokens": 100})
        script = self.server.script
        with script.lock:
            script.requests.append(body)
            n = len(script.requests)
        answer = {
            "candidates": [{"content": _answer(body, script), "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "scripted",
            "responseId": f"resp_{n}_{int(time.time() * 1000)}",
        }
        if not path.endswith(":streamGenerateContent"):
            return self._json(answer)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        self.wfile.write(f"data: {json.dumps(answer)}\r\n\r\n".encode())
        self.wfile.flush()


@contextmanager
def serving(script: Script) -> Iterator[str]:
    """Serve `script` for as long as the block runs; its base URL (``http://127.0.0.1:PORT``)."""
    with fake_servers.serving(_Handler, script) as url:
        yield url
