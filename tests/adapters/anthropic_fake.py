"""A scripted stand-in for Anthropic's Messages API, for driving the real Claude Code without a model.

The server answers ``POST .../v1/messages`` with one assistant message, streamed as server-sent
events when the request asks for a stream (``message_start``, a ``content_block_*`` trio per block,
the tool input in several ``input_json_delta`` pieces, ``message_delta``, ``message_stop``) and as
one JSON body otherwise.  What it answers is a script: a list of steps, each one or more tool calls
in one message (``Calls``) or a final ``Say``.  Which step: the number of assistant messages the
request's history already holds, so the server keeps no state of its own between requests and a
retried request gets the same answer.  Only requests that offer Claude Code's own tools (``Edit``
or ``Bash``) follow the script; any other (a title, a summary) gets a short text.  Every request's
body is kept (``requests``), so a test can read what the model was shown: each tool call's result
(``results``).

It runs in a thread of the caller's own process (``serving``), on a port the system picks.
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


@dataclass(frozen=True)
class Tool:
    """One call of a Claude Code tool (``Read``, ``Edit``, ``Write``, ``Bash``) with its input."""

    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class Calls:
    """The model calls these tools, in one message (Claude Code runs them, then asks again)."""

    tools: tuple[Tool, ...]


@dataclass(frozen=True)
class Say:
    """The model answers with text, which ends Claude Code's turn."""

    text: str


Step = Union[Calls, Say]


def calls(*tools: Tool) -> Calls:
    return Calls(tools)


@dataclass(frozen=True)
class Result:
    """A tool call and what the model was shown for it."""

    tool: str
    input: dict[str, Any]
    is_error: bool
    text: str


@dataclass
class Script:
    steps: list[Step]
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def main_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if _main(r)]

    def results(self) -> list[Result]:
        """Each tool call of the conversation and the result the model was shown, in order, from the
        last request that followed the script."""
        main = self.main_requests()
        if not main:
            return []
        uses: dict[str, dict[str, Any]] = {}
        out: list[Result] = []
        for message in main[-1].get("messages", []):
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_use":
                    uses[block["id"]] = block
                elif block.get("type") == "tool_result":
                    use = uses.get(block.get("tool_use_id", ""), {})
                    out.append(Result(use.get("name", "?"), use.get("input", {}), bool(block.get("is_error")), _text(block)))
        return out


def _text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return str(content or "")


def _main(body: dict[str, Any]) -> bool:
    names = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    return bool(names & {"Edit", "Bash"})


def _step(body: dict[str, Any], script: Script) -> Step:
    if not _main(body):
        return Say("ok")
    done = sum(1 for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "assistant")
    return script.steps[done] if done < len(script.steps) else Say("(the script is over)")


def _blocks(step: Step, n: int) -> list[dict[str, Any]]:
    if isinstance(step, Say):
        return [{"type": "text", "text": step.text}]
    stamp = int(time.time() * 1000) % 100000
    return [
        {"type": "tool_use", "id": f"toolu_{n:02d}_{i:02d}_{stamp}", "name": tool.name, "input": tool.input}
        for i, tool in enumerate(step.tools)
    ]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: fake_servers.ScriptServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the test's output is not the place

    def _json(self, data: dict[str, Any]) -> None:
        raw = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:
        self._json({"data": [], "has_more": False})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        path = self.path.split("?")[0]
        if path.endswith("/count_tokens"):
            self._json({"input_tokens": 100})
            return
        if not path.endswith("/v1/messages"):
            self._json({})
            return
        script = self.server.script
        with script.lock:
            script.requests.append(body)
            n = len(script.requests)
        step = _step(body, script)
        message = {
            "id": f"msg_fake_{n}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model") or "claude-fake",
            "content": _blocks(step, n),
            "stop_reason": "tool_use" if isinstance(step, Calls) else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        }
        if body.get("stream"):
            self._stream(message)
        else:
            self._json(message)

    def _stream(self, message: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        events: list[dict[str, Any]] = [{"type": "message_start", "message": {**message, "content": [], "stop_reason": None}}]
        for index, block in enumerate(message["content"]):
            if block["type"] == "text":
                events.append({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
                delta = {"type": "text_delta", "text": block["text"]}
                events.append({"type": "content_block_delta", "index": index, "delta": delta})
            else:
                events.append({"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}})
                raw = json.dumps(block["input"])
                for k in range(0, len(raw), 40):  # in pieces, as the API sends them
                    delta = {"type": "input_json_delta", "partial_json": raw[k : k + 40]}
                    events.append({"type": "content_block_delta", "index": index, "delta": delta})
            events.append({"type": "content_block_stop", "index": index})
        events.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 5},
            }
        )
        events.append({"type": "message_stop"})
        for event in events:
            self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
        self.wfile.flush()


@contextmanager
def serving(script: Script) -> Iterator[str]:
    """Serve `script` for as long as the block runs; its base URL (``http://127.0.0.1:PORT``)."""
    with fake_servers.serving(_Handler, script) as url:
        yield url
