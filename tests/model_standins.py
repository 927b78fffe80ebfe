"""Loopback stand-ins for the model APIs of Claude Code, Gemini CLI and Codex.

Each stand-in is a small HTTP server on 127.0.0.1 that speaks one vendor's streaming
API: Anthropic Messages (server-sent events), Gemini generateContent /
streamGenerateContent, or OpenAI Responses (server-sent events). It records every
request it gets and answers from a script: a function of the request's conversation
that returns the model's next move, plain text or one tool call. Only the model is fake;
the editor program that talks to it is the real one.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Say:
    """The model answers with text and ends its turn."""

    text: str


@dataclass(frozen=True)
class Call:
    """The model calls one tool and waits for its result."""

    tool: str
    arguments: dict[str, Any]


Move = Say | Call


@dataclass
class Request:
    """One request an editor sent, as received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def text(self) -> str:
        """The whole request body as text, for `in` checks."""
        return json.dumps(self.body, ensure_ascii=False)


@dataclass
class Conversation:
    """What a script sees of a model request: the parts every vendor has."""

    request: Request
    system: str  # system or developer instructions, joined
    user_texts: list[str]  # the text parts of the user's messages, in order
    tool_names: list[str]  # the tools offered to the model
    tool_results: list[str]  # results of earlier tool calls, in order

    @property
    def everything(self) -> str:
        return self.request.text


Script = Callable[[Conversation], Move]


@dataclass
class StandIn:
    """A running stand-in: its base URL, the requests it got, and what it answered."""

    vendor: str
    url: str
    requests: list[Request] = field(default_factory=list)
    conversations: list[Conversation] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- reading requests


def _anthropic_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_anthropic_text(item) for item in value)
    if isinstance(value, dict):
        if value.get("type") == "text":
            return str(value.get("text", ""))
        if "content" in value:
            return _anthropic_text(value["content"])
    return ""


def anthropic_conversation(request: Request) -> Conversation:
    body = request.body
    users, results = [], []
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") != "user":
            continue
        if isinstance(content, str):
            users.append(content)
            continue
        users.extend(b.get("text", "") for b in content if b.get("type") == "text")
        results.extend(_anthropic_text(b) for b in content if b.get("type") == "tool_result")
    return Conversation(
        request,
        _anthropic_text(body.get("system", "")),
        users,
        [tool.get("name", "") for tool in body.get("tools", [])],
        results,
    )


def gemini_conversation(request: Request) -> Conversation:
    body = request.body
    system = "\n".join(
        part.get("text", "") for part in (body.get("systemInstruction") or {}).get("parts", [])
    )
    users, results = [], []
    for content in body.get("contents", []):
        if content.get("role") != "user":
            continue
        for part in content.get("parts", []):
            if "text" in part:
                users.append(part["text"])
            elif "functionResponse" in part:
                response = part["functionResponse"].get("response")
                output = response.get("output") if isinstance(response, dict) else None
                results.append(output if isinstance(output, str) else json.dumps(response))
    tools = [
        declaration.get("name", "")
        for tool in body.get("tools", []) or []
        for declaration in tool.get("functionDeclarations", []) or []
    ]
    return Conversation(request, system, users, tools, results)


def openai_conversation(request: Request) -> Conversation:
    body = request.body
    system = [str(body.get("instructions", ""))]
    users, results = [], []
    for item in body.get("input", []):
        kind = item.get("type", "message")
        if kind == "message":
            text = "\n".join(
                str(part.get("text", ""))
                for part in item.get("content", [])
                if isinstance(part, dict)
            )
            if item.get("role") == "user":
                users.append(text)
            elif item.get("role") in ("developer", "system"):
                system.append(text)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            results.append(output if isinstance(output, str) else json.dumps(output))
        elif kind == "tool_search_output":
            results.append(json.dumps(item.get("tools")))
    tools = [str(tool.get("name", tool.get("type", ""))) for tool in body.get("tools", [])]
    return Conversation(request, "\n".join(system), users, tools, results)


# ---------------------------------------------------------------- writing answers

_ids = itertools.count(1)


def _sse(event: str | None, data: Any) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def anthropic_events(move: Move, model: str) -> Iterator[bytes]:
    number = next(_ids)
    usage = {"input_tokens": 10, "output_tokens": 0}
    yield _sse(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": f"msg_standin{number}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            },
        },
    )
    if isinstance(move, Say):
        block: dict[str, Any] = {"type": "text", "text": ""}
        delta: dict[str, Any] = {"type": "text_delta", "text": move.text}
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_standin{number}", "name": move.tool, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(move.arguments)}
        stop = "tool_use"
    yield _sse(
        "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}
    )
    yield _sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
    yield _sse("content_block_stop", {"type": "content_block_stop", "index": 0})
    yield _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield _sse("message_stop", {"type": "message_stop"})


def gemini_response(move: Move) -> dict[str, Any]:
    if isinstance(move, Say):
        part: dict[str, Any] = {"text": move.text}
    else:
        part = {"functionCall": {"name": move.tool, "args": move.arguments}}
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-standin",
    }


def openai_events(move: Move, model: str) -> Iterator[bytes]:
    number = next(_ids)
    response_id = f"resp_standin{number}"
    yield _sse(
        "response.created",
        {"type": "response.created", "response": {"id": response_id, "model": model}},
    )
    if isinstance(move, Say):
        item: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_standin{number}",
            "status": "completed",
            "content": [{"type": "output_text", "text": move.text, "annotations": []}],
        }
    elif move.tool == "tool_search":
        # Codex runs its deferred-tool search itself ("client" execution).
        item = {
            "type": "tool_search_call",
            "id": f"tsc_standin{number}",
            "status": "completed",
            "call_id": f"call_standin{number}",
            "execution": "client",
            "arguments": move.arguments,
        }
    else:
        # "namespace.name" calls a tool that a tool search loaded into a namespace.
        namespace, _, name = move.tool.rpartition(".")
        item = {
            "type": "function_call",
            "id": f"fc_standin{number}",
            "status": "completed",
            "call_id": f"call_standin{number}",
            "name": name,
            "arguments": json.dumps(move.arguments),
        }
        if namespace:
            item["namespace"] = namespace
    yield _sse(
        "response.output_item.added",
        {"type": "response.output_item.added", "output_index": 0, "item": item},
    )
    yield _sse(
        "response.output_item.done",
        {"type": "response.output_item.done", "output_index": 0, "item": item},
    )
    yield _sse(
        "response.completed",
        {
            "type": "response.completed",
            "response": {
                "id": response_id,
                "model": model,
                "status": "completed",
                "output": [item],
                "usage": {
                    "input_tokens": 10,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens": 5,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": 15,
                },
            },
        },
    )


# ---------------------------------------------------------------- the server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    standin: StandIn
    script: Script
    lock: threading.Lock

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _read(self) -> Request:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = Request(self.command, self.path, dict(self.headers.items()), body)
        with self.lock:
            self.standin.requests.append(request)
        return request

    def _send_json(self, status: int, data: Any) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _send_events(self, chunks: Iterator[bytes]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(chunk)
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802
        self._read()
        self._send_json(404, {"error": {"message": "not served by the stand-in"}})

    def do_POST(self) -> None:  # noqa: N802
        request = self._read()
        path = urlsplit(request.path).path
        vendor = self.standin.vendor
        body = request.body if isinstance(request.body, dict) else {}
        if vendor == "anthropic" and path.endswith("/messages/count_tokens"):
            self._send_json(200, {"input_tokens": 10})
            return
        if vendor == "gemini" and path.endswith(":countTokens"):
            self._send_json(200, {"totalTokens": 10})
            return
        known = {
            "anthropic": path.endswith("/v1/messages"),
            "gemini": ":generateContent" in path or ":streamGenerateContent" in path,
            "openai": path.endswith("/responses"),
        }[vendor]
        if not known:
            self._send_json(404, {"error": {"message": f"not served by the stand-in: {path}"}})
            return
        reader = {
            "anthropic": anthropic_conversation,
            "gemini": gemini_conversation,
            "openai": openai_conversation,
        }[vendor]
        conversation = reader(request)
        try:
            move = self.script(conversation)
        except Exception as err:  # the editor gets an error; the test sees why
            with self.lock:
                self.standin.errors.append(f"{type(err).__name__}: {err}")
            # 400: the editors retry a 5xx for minutes, but give up on a bad request.
            error = {"type": "invalid_request_error", "message": f"stand-in script failed: {err}"}
            self._send_json(400, {"type": "error", "error": error})
            return
        with self.lock:
            self.standin.conversations.append(conversation)
            self.standin.moves.append(move)
        model = str(body.get("model", "stand-in"))
        if vendor == "anthropic":
            if body.get("stream"):
                self._send_events(anthropic_events(move, model))
            else:
                self._send_json(200, _anthropic_message(move, model))
        elif vendor == "gemini":
            if ":streamGenerateContent" in path:
                self._send_events(iter([_sse(None, gemini_response(move))]))
            else:
                self._send_json(200, gemini_response(move))
        else:
            self._send_events(openai_events(move, model))


def _anthropic_message(move: Move, model: str) -> dict[str, Any]:
    if isinstance(move, Say):
        content: list[dict[str, Any]] = [{"type": "text", "text": move.text}]
        stop = "end_turn"
    else:
        content = [
            {
                "type": "tool_use",
                "id": f"toolu_standin{next(_ids)}",
                "name": move.tool,
                "input": move.arguments,
            }
        ]
        stop = "tool_use"
    return {
        "id": f"msg_standin{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


class running:  # noqa: N801 - used as a context manager, like open()
    """`with running("anthropic", script) as standin:` serves until the block ends."""

    def __init__(self, vendor: str, script: Script) -> None:
        handler = type(
            "Handler",
            (_Handler,),
            {"standin": None, "script": staticmethod(script), "lock": threading.Lock()},
        )
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        host, port = self.server.server_address[:2]
        handler.standin = StandIn(vendor, f"http://{host}:{port}")
        self.standin: StandIn = handler.standin
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self.standin

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
