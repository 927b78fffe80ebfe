"""`wfs mcp` spoken to line by line: a client that sends what the SDK's own client never
would (malformed lines, requests nested too deep, ids of the wrong type)."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any


class RawClient:
    """A `python -m wfs mcp` process in `project`, past its initialize handshake. Each
    answer is awaited for a bounded time: a line that gets no answer fails the test
    instead of hanging it."""

    def __init__(self, project: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "wfs", "mcp"],
            cwd=project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        }
        initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}
        assert "result" in self.ask(initialize)
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def ask(self, message: dict[str, Any] | bytes) -> Any:
        """Send one line; the one answer to it."""
        self.send(message if isinstance(message, bytes) else json.dumps(message).encode())
        # A bound, not a synchronisation: a line left unanswered fails, never hangs.
        return json.loads(self.lines.get(timeout=120))

    def call(self, tool: str, number: int = 1, **arguments: Any) -> Any:
        """A tools/call's structured result (what the tool answered)."""
        params = {"name": tool, "arguments": arguments}
        answer = self.ask(
            {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}
        )
        assert answer["id"] == number, answer
        return answer["result"]["structuredContent"]

    def ping(self, number: int) -> None:
        """The server still serves: a ping gets its answer."""
        assert self.ask({"jsonrpc": "2.0", "id": number, "method": "ping"}) == {
            "jsonrpc": "2.0",
            "id": number,
            "result": {},
        }

    def close(self) -> str:
        """End the session (stdin closed); the server's stderr."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0
        assert self.lines.empty()
        return self.proc.stderr.read().decode()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=60)


def rpc_error(code: int, message: str, id: int | str | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}
