"""A scripted stand-in for OpenAI's model APIs, for driving real agent programs without a model:
the Responses API (``POST .../responses``, Codex) and Chat Completions (``POST .../chat/completions``,
OpenCode's ``@ai-sdk/openai-compatible`` provider).

The server answers each with a server-sent event stream of one response.  What it answers is a
script: a list of steps, each a tool call (``Shell``, ``Patch``: Codex's own tools; ``Call``: any
function tool by name) or a final ``Say``.  Which step: the number of the model's own items (tool
calls, assistant messages) the request's history already holds, so the server keeps no state of
its own between requests and a retried request gets the same answer.  A request that offers no
tools (a side query such as a title) gets a short text.  Every request's body is kept
(``requests``), so a test can read what the model was shown: each tool call's output
(``outputs``).

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


@dataclass(frozen=True)
class Shell:
    """The model runs `command` with Codex's shell tool (``exec_command``)."""

    command: str


@dataclass(frozen=True)
class Patch:
    """The model calls Codex's own ``apply_patch`` (a freeform tool: the patch is the input)."""

    patch: str


@dataclass(frozen=True)
class Call:
    """The model calls the function tool `name` with `arguments` (an MCP tool, OpenCode's bash...)."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Say:
    """The model answers with text, which ends Codex's turn."""

    text: str


Step = Union[Shell, Patch, Call, Say]
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
        for m in main[-1].get("messages", []):  # Chat Completions: a "tool" message per call
            if isinstance(m, dict) and m.get("role") == "tool":
                out[str(m.get("tool_call_id"))] = _text(m.get("content"))
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


def _text(content: Any) -> str:
    """A chat message's content as text: a string, or the text of its parts."""
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else json.dumps(content)


def _step(body: dict[str, Any], script: Script) -> Step:
    if not body.get("tools"):
        return Say("ok")
    if "messages" in body:  # Chat Completions: each of the model's turns is one assistant message
        done = sum(1 for m in body["messages"] if isinstance(m, dict) and m.get("role") == "assistant")
    else:
        done = sum(
            1
            for it in body.get("input") or []
            if isinstance(it, dict)
            and (it.get("type") in MODEL_ITEMS or (it.get("type") == "message" and it.get("role") == "assistant"))
        )
    return script.steps[done] if done < len(script.steps) else Say("(the script is over)")


def _item(step: Step, call: str) -> dict[str, Any]:
    """`step` as the one output item of a Responses API answer."""
    if isinstance(step, (Shell, Call)):
        name, args = ("exec_command", {"cmd": step.command}) if isinstance(step, Shell) else (step.name, step.arguments)
        return {"type": "function_call", "id": "fc_" + call, "status": "completed", "call_id": call} | {
            "name": name,
            "arguments": json.dumps(args),
        }
    if isinstance(step, Patch):
        return {"type": "custom_tool_call", "id": "ctc_" + call, "status": "completed", "call_id": call} | {
            "name": "apply_patch",
            "input": step.patch,
        }
    content = [{"type": "output_text", "text": step.text, "annotations": []}]
    return {"type": "message", "role": "assistant", "id": "msg_" + call, "status": "completed", "content": content}


def _responses(step: Step, call: str, body: dict[str, Any]) -> bytes:
    """The Responses API's event stream answering with `step`."""
    item = _item(step, call)
    response = {"id": "resp_" + call, "object": "response", "created_at": int(time.time()), "model": body.get("model", "fake")}
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
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _message(step: Step, call: str) -> dict[str, Any]:
    """`step` as a Chat Completions assistant message (the agent's shell tool is ``bash``)."""
    if isinstance(step, Shell):
        step = Call("bash", {"command": step.command, "description": "run a command"})
    if isinstance(step, Call):
        function = {"name": step.name, "arguments": json.dumps(step.arguments)}
        return {"role": "assistant", "content": None, "tool_calls": [{"id": call, "type": "function", "function": function}]}
    said = step.text if isinstance(step, Say) else "(the script's Patch is Codex's own tool: no Chat Completions form)"
    return {"role": "assistant", "content": said}


def _chat(step: Step, call: str, body: dict[str, Any]) -> tuple[str, bytes]:
    """Chat Completions' answer with `step`: (its content type, its bytes), streamed when asked."""
    message = _message(step, call)
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    head = {"id": "chatcmpl_" + call, "created": int(time.time()), "model": body.get("model", "fake")}
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    if not body.get("stream"):
        choice = {"index": 0, "message": message, "finish_reason": finish}
        return "application/json", json.dumps({**head, "object": "chat.completion", "choices": [choice], "usage": usage}).encode()
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    if message.get("content"):
        deltas.append({"content": message["content"]})
    deltas += [{"tool_calls": [{"index": 0, **c}]} for c in message.get("tool_calls", [])]
    chunks = [{"index": 0, "delta": d, "finish_reason": None} for d in deltas] + [
        {"index": 0, "delta": {}, "finish_reason": finish}
    ]
    events = [{**head, "object": "chat.completion.chunk", "choices": [c]} for c in chunks]
    events.append({**head, "object": "chat.completion.chunk", "choices": [], "usage": usage})
    return "text/event-stream", b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events) + b"data: [DONE]\n\n"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: fake_servers.ScriptServer

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
        step, call = _step(body, script), f"call_{n}_{int(time.time() * 1000) % 100000}"
        if self.path.split("?")[0].endswith("/chat/completions"):
            kind, data = _chat(step, call, body)
        else:
            kind, data = "text/event-stream", _responses(step, call, body)
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        self.wfile.write(data)
        self.wfile.flush()


@contextmanager
def serving(script: Script) -> Iterator[str]:
    """Serve `script` for as long as the block runs; its base URL (``http://127.0.0.1:PORT/v1``)."""
    with fake_servers.serving(_Handler, script, "/v1") as url:
        yield url
