"""A scripted stand-in for OpenAI's Responses API, for driving the real Codex CLI without a model.

The server answers ``POST .../responses`` with a server-sent event stream of one response.  What
it answers is a script: a list of steps, each a tool call (``Shell``, ``Patch``) or a final
``Say``.  Which step: the number of the model's own items (tool calls, assistant messages) the
request's history already holds, so the server keeps no state of its own between requests and a
retried request gets the same answer.  A request that offers no tools (a side query such as a
title) gets a short text.  Every request's body is kept (``requests``), so a test can read what
the model was shown: each tool call's output (``outputs``).

It runs in a thread of the test's own process (``serving``), on a port the system picks.
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator, Union


@dataclass(frozen=True)
class Shell:
    """The model runs `command` with Codex's shell tool (``exec_command``)."""

    command: str


@dataclass(frozen=True)
class Patch:
    """The model calls Codex's own ``apply_patch`` (a freeform tool: the patch is the input)."""

    patch: str


@dataclass(frozen=True)
class Say:
    """The model answers with text, which ends Codex's turn."""

    text: str


Step = Union[Shell, Patch, Say]
MODEL_ITEMS = ("function_call", "custom_tool_call", "local_shell_call")


@dataclass
class Script:
    steps: list[Step]
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def outputs(self) -> dict[str, str]:
        """What the model was shown for each of its tool calls (call id -> the output's text), from
        the last request that carried tools."""
        main = [r for r in self.requests if r.get("tools")]
        if not main:
            return {}
        out: dict[str, str] = {}
        for item in main[-1].get("input", []):
            if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
                value = item.get("output")
                out[str(item.get("call_id"))] = value if isinstance(value, str) else json.dumps(value)
        return out

    def developer_notes(self) -> list[str]:
        """The developer messages Codex put after the first tool call (a hook's additionalContext)."""
        main = [r for r in self.requests if r.get("tools")]
        notes: list[str] = []
        called = False
        for item in main[-1].get("input", []) if main else []:
            if not isinstance(item, dict):
                continue
            called = called or item.get("type") in MODEL_ITEMS
            if called and item.get("type") == "message" and item.get("role") == "developer":
                notes += [c.get("text", "") for c in item.get("content", []) if isinstance(c, dict)]
        return notes


def _step(body: dict[str, Any], script: Script) -> Step:
    if not body.get("tools"):
        return Say("ok")
    items = body.get("input") or []
    done = sum(
        1
        for it in items
        if isinstance(it, dict)
        and (it.get("type") in MODEL_ITEMS or (it.get("type") == "message" and it.get("role") == "assistant"))
    )
    return script.steps[done] if done < len(script.steps) else Say("(the script is over)")


def _item(step: Step, n: int) -> dict[str, Any]:
    call = f"call_{n}_{int(time.time() * 1000) % 100000}"
    if isinstance(step, Shell):
        args = json.dumps({"cmd": step.command})
        return {"type": "function_call", "id": "fc_" + call, "status": "completed", "call_id": call} | {
            "name": "exec_command",
            "arguments": args,
        }
    if isinstance(step, Patch):
        return {"type": "custom_tool_call", "id": "ctc_" + call, "status": "completed", "call_id": call} | {
            "name": "apply_patch",
            "input": step.patch,
        }
    content = [{"type": "output_text", "text": step.text, "annotations": []}]
    return {"type": "message", "role": "assistant", "id": "msg_" + call, "status": "completed", "content": content}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the test's output is not the place

    def do_GET(self) -> None:
        data = json.dumps({"object": "list", "data": [], "models": []}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        script = self.server.script
        with script.lock:
            script.requests.append(body)
            n = len(script.requests)
        item = _item(_step(body, script), n)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        response = {"id": f"resp_{n}", "object": "response", "created_at": int(time.time()), "model": body.get("model", "fake")}
        usage = {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}  # fmt: skip
        events = [
            {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": {**response, "status": "completed", "output": [item], "usage": usage}},
        ]
        for seq, event in enumerate(events):
            event["sequence_number"] = seq
            self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    script: Script


@contextmanager
def serving(script: Script) -> Iterator[str]:
    """Serve `script` for as long as the block runs; its base URL (``http://127.0.0.1:PORT/v1``)."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.script = script
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
