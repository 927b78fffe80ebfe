"""The board's local server: the page, its data, its live updates and its few actions.

Built on the standard library's `http.server.ThreadingHTTPServer`, with no new
dependency: it serves one person, on 127.0.0.1 only, a handful of small JSON answers
and one stream of server-sent events per open page; an ASGI stack would add an event
loop, a server and their releases to keep up with for nothing this needs.

Security: every request carries the random token the URL was printed with (`?token=`
or the header X-WFS-Token), and a Host header naming this server (127.0.0.1:PORT or
localhost:PORT: a page of another site that rebinds a name to 127.0.0.1 is refused).
The actions are off unless `--allow-actions`; then they are POSTs of JSON whose token
must be in the X-WFS-Token header, which a form of another site cannot send (CSRF).
The page shows every text from a file as text; a summary's HTML is made safe here
(wfs.board.data.render_markdown).
"""

from __future__ import annotations

import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import parse_qs, urlsplit

from wfs import actions, jsonio, platform, store, templating
from wfs.board import data
from wfs.errors import WfsError
from wfs.layout import Layout
from wfs.query import command_prefix
from wfs.schemas import LEAF_STATUSES
from wfs.sessions import current_session
from wfs.text import for_terminal

HERE = Path(__file__).resolve().parent
TEMPLATE = "board.html.j2"
DIFF_TEMPLATE = "board-diff.html.j2"
REFUSED_TEMPLATE = "refused.html.j2"  # the page without the token
# Where a project keeps its board's address (port and token), so that the URL stays the
# same from one start to the next: a runtime folder git ignores, the file readable by
# its owner only (docs/board.md, Security).
ADDRESS_FILE = (".cache", "board.json")
# The static files the page inlines (assets[name]); the graph layout library is the
# page's (dagre, vendored in static/), and an empty text when it is not there.
ASSETS = {"css": "board.css", "js": "board.js", "dagre": "dagre.min.js"}
POLL_SECONDS = 0.25  # how often an event stream looks at the session's stamp
KEEPALIVE_SECONDS = 15.0  # a comment line on a quiet stream
MAX_BODY = 64 * 1024  # an action's JSON body
# Open connections at most. Past it, the connections waiting longest for a request (idle
# ones: anybody can open them, no token needed) are closed to let a new one in; a
# connection that is being answered (an open page's event stream) is never closed.
MAX_CONNECTIONS = 64
IDLE_SECONDS = 10.0  # a connection silent this long before its request is closed
ACTIONS = ("resume", "skip", "status", "switch")


# ------------------------------------------------------------------ the page


def assets() -> dict[str, str]:
    """The static files' text, inlined into the page (no request leaves it)."""
    found = {}
    for name, file in ASSETS.items():
        path = HERE / "static" / file
        found[name] = path.read_text(encoding="utf-8") if path.exists() else ""
    return found


def render_page(board: dict[str, Any], token: str | None, allow_actions: bool) -> str:
    """The page: `board` (the board data) embedded, the token (None in an exported
    file: no server, no live updates, no actions), the actions shown or not, the static
    files inlined."""
    page = templating.html_environment(str(HERE / "templates")).get_template(TEMPLATE)
    return str(page.render(data=board, token=token, actions=allow_actions, assets=assets()))


def refused_page(why: str, port: int) -> str:
    """The page of a request for the board without its token: use the printed URL."""
    page = templating.html_environment(str(HERE / "templates")).get_template(REFUSED_TEMPLATE)
    return str(page.render(why=why, port=port))


def export_page(
    layout: Layout, requested: str | None, root_option: str | None = None
) -> tuple[str, list[str]]:
    """One self-contained file of the board of now (`wfs board --export`), with every
    task's detail in it (`details`: the page of a file cannot ask for them); and the
    task files it could not read (as the live page, it shows the rest)."""
    board = data.board_data(layout, requested, root_option)
    sid = board["session"]["id"]
    unreadable = data.unreadable_ids(layout, sid)
    board["details"] = {
        row["id"]: data.row_detail(layout, sid, row, unreadable) for row in board["tasks"]
    }
    return render_page(board, None, False), board.get("unreadable", [])


def diff_page(
    before: str, after: str, pairs: list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]]
) -> str:
    """One self-contained file of a plan change (`wfs diff --html`): for each session
    (id, its board before, after; None where it does not exist), the two exported
    boards side by side."""
    page = templating.html_environment(str(HERE / "templates")).get_template(DIFF_TEMPLATE)
    shown = [
        {
            "session": sid,
            "before": render_page(old, None, False) if old is not None else None,
            "after": render_page(new, None, False) if new is not None else None,
        }
        for sid, old, new in pairs
    ]
    return str(page.render(before=before, after=after, pairs=shown))


# ------------------------------------------------------------------ the address


class Address(NamedTuple):
    """Where a project's board listens, and its token: the URL it prints."""

    port: int
    token: str


def kept_address(layout: Layout) -> Address | None:
    """The address this project's board had at its last read-only start; None when it
    has none (or its file is not one wfs wrote: a new one is made)."""
    path = layout.workflow.joinpath(*ADDRESS_FILE)
    try:
        kept = jsonio.parse(path.read_bytes(), layout.relative(path))
    except (OSError, WfsError):
        return None
    if not isinstance(kept, dict):
        return None
    port, token = kept.get("port"), kept.get("token")
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        return None
    if not isinstance(token, str) or not 32 <= len(token) <= 64 or not _urlsafe(token):
        return None
    return Address(port, token)


def _urlsafe(token: str) -> bool:
    return token.isascii() and all(c.isalnum() or c in "-_" for c in token)


def keep_address(layout: Layout, address: Address) -> None:
    """Keep the board's address for its next start in this project (owner-only file)."""
    data = jsonio.dumps({"port": address.port, "token": address.token})
    store.write_bytes(layout.workflow.joinpath(*ADDRESS_FILE), data, durable=False, private=True)


# ------------------------------------------------------------------ the server


class Board:
    """What the server serves: one project, its session of choice, the token."""

    def __init__(
        self,
        layout: Layout,
        requested: str | None,
        root_option: str | None,
        allow_actions: bool,
        token: str | None = None,
    ) -> None:
        self.layout = layout
        self.requested = requested
        self.root_option = root_option
        self.allow_actions = allow_actions
        self.token = token or secrets.token_urlsafe(24)
        self.port = 0
        self.stopping = threading.Event()

    def hosts(self) -> set[str]:
        return {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}

    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def session(self, query: dict[str, str]) -> str | None:
        return query.get("session") or self.requested

    def act(self, request: dict[str, Any]) -> dict[str, Any]:
        """An action of the page (POST /api/action), through the CLI's own functions:
        a leaf's status and a switch of session under the session's lock, as `wfs task
        status` and `wfs switch` take it; resume and skip as `wfs execute --resume ID
        [--skip]` started in the background (its run writes its records as always)."""
        action = request.get("action")
        if action not in ACTIONS:
            raise BadRequest(f"action: expected one of {', '.join(ACTIONS)}")
        sid = request.get("session") or self.requested
        if sid is not None and not isinstance(sid, str):
            raise BadRequest("session: expected a session id")
        if action == "switch":
            if not sid:
                raise BadRequest("session: the session to switch to")
            return {"ok": True, **actions.switch(self.layout, sid)}
        tid = request.get("task")
        if not isinstance(tid, str) or not tid:
            raise BadRequest("task: expected a task id")
        if action == "status":
            status = request.get("status")
            if status not in LEAF_STATUSES:
                raise BadRequest(f"status: expected one of {', '.join(LEAF_STATUSES)}")
            answer, _ = actions.task_status(self.layout, sid, tid, status)
            return {"ok": True, **answer}
        row = next((r for r in data.board_data(self.layout, sid)["tasks"] if r["id"] == tid), None)
        if row is None:
            raise data.UnknownTask(f"unknown task {tid}")
        if " --resume " not in (row["continue"] or ""):
            raise BadRequest(f"{tid} is not stopped: there is nothing to resume")
        board_sid = current_session(self.layout, sid)
        argv = [*command_prefix(board_sid, str(self.layout.root)), "execute", "--resume", tid]
        argv += ["--skip"] if action == "skip" else []
        pid = platform.start_detached([sys.executable, "-m", *argv], self.layout.root)
        return {"ok": True, "task": tid, "command": platform.shell_join(argv), "pid": pid}


class BadRequest(WfsError):
    """A request the server cannot act on (400)."""


class Refused(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Handler(BaseHTTPRequestHandler):
    server: Server
    protocol_version = "HTTP/1.1"
    timeout = IDLE_SECONDS  # of the socket: a silent client, or one that stopped reading

    def handle_one_request(self) -> None:
        self.server.waiting(self.connection, True)  # until its request is read whole
        try:
            super().handle_one_request()
        except OSError:  # the client went away, stopped reading, or was closed as idle
            self.close_connection = True

    def parse_request(self) -> bool:
        read = super().parse_request()
        self.server.waiting(self.connection, False)
        return read

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the terminal shows the URL, not every request

    @property
    def board(self) -> Board:
        return self.server.board

    # ----------------------------------------------------------- routing

    def do_GET(self) -> None:
        self.handle_request(self.get)

    def do_POST(self) -> None:
        self.handle_request(self.post)

    def handle_request(self, method: Callable[[str, dict[str, str]], None]) -> None:
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        try:
            if self.headers.get("Host") not in self.board.hosts():
                raise Refused(HTTPStatus.FORBIDDEN, "this server answers 127.0.0.1 only")
            method(parts.path, query)
        except Refused as err:
            self.send_json({"ok": False, "error": err.message}, err.status)
        except data.UnknownTask as err:
            self.send_json({"ok": False, "error": err.message}, HTTPStatus.NOT_FOUND)
        except BadRequest as err:
            self.send_json({"ok": False, "error": err.message}, HTTPStatus.BAD_REQUEST)
        except WfsError as err:
            self.send_json({"ok": False, "error": err.message}, HTTPStatus.CONFLICT)
        except OSError:
            self.close_connection = True  # the page went away, or stopped reading

    def check_token(self, given: str | None) -> None:
        if given is None or not secrets.compare_digest(
            given.encode("utf-8", "surrogateescape"), self.board.token.encode()
        ):  # (as bytes: a header may hold any character)
            raise Refused(HTTPStatus.FORBIDDEN, "a wrong or missing token")

    def get(self, path: str, query: dict[str, str]) -> None:
        given = self.headers.get("X-WFS-Token") or query.get("token")
        if path == "/" and (given is None or not secrets.compare_digest(given, self.board.token)):
            # A person at a browser, with an old bookmark or a URL cut short: say what to do.
            why = (
                "This address has no token." if given is None else "Its token is not this board's."
            )
            body = refused_page(why, self.board.port).encode()
            self.send_body(body, "text/html; charset=utf-8", HTTPStatus.FORBIDDEN)
            return
        self.check_token(given)
        layout, sid = self.board.layout, self.board.session(query)
        if path == "/":
            board = data.board_data(layout, sid, self.board.root_option)
            page = render_page(board, self.board.token, self.board.allow_actions)
            self.send_body(page.encode(), "text/html; charset=utf-8")
        elif path == "/api/board":
            self.send_json(data.board_data(layout, sid, self.board.root_option))
        elif path == "/api/task":
            self.send_json(data.task_detail(layout, sid, query.get("id", "")))
        elif path == "/api/events":
            self.events(current_session(layout, sid))
        else:
            raise Refused(HTTPStatus.NOT_FOUND, f"no such page: {path}")

    def post(self, path: str, query: dict[str, str]) -> None:
        if path != "/api/action" or not self.board.allow_actions:
            raise Refused(HTTPStatus.NOT_FOUND, "no actions here (`wfs board --allow-actions`)")
        self.check_token(self.headers.get("X-WFS-Token"))  # never from the URL: CSRF
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise Refused(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "expected application/json")
        length = self.headers.get("Content-Length") or "0"
        size = int(length) if length.isdigit() and len(length) < 12 else -1
        if size < 0:
            raise BadRequest(f"Content-Length: expected a number of bytes, got {length[:40]!r}")
        if size > MAX_BODY:
            raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "a request too large")
        try:
            request = jsonio.parse(self.rfile.read(size), "the request")
        except WfsError as err:
            raise BadRequest(err.message) from None
        if not isinstance(request, dict):
            raise BadRequest("expected a JSON object")
        self.send_json(self.board.act(request))

    # ----------------------------------------------------------- answers

    def send_json(self, value: Any, status: HTTPStatus = HTTPStatus.OK) -> None:
        self.send_body(jsonio.compact(value), "application/json", status)

    def send_body(self, body: bytes, kind: str, status: HTTPStatus = HTTPStatus.OK) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        if kind.startswith("text/html"):
            # Inline scripts and styles only (the page's own); nothing loads from elsewhere.
            self.send_header(
                "Content-Security-Policy",
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'",
            )
        self.end_headers()
        self.wfile.write(body)

    def events(self, sid: str) -> None:
        """Server-sent events: the session's stamp now, then each time it changes
        (looked at every POLL_SECONDS), and a comment line on a quiet stream."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        folders = data.watched_folders(self.board.layout, sid)
        last = None
        quiet_since = time.monotonic()
        while not self.board.stopping.is_set():
            stamp = data.session_stamp(self.board.layout, sid, folders)
            if stamp != last:
                last = stamp
                self.wfile.write(b"event: stamp\ndata: " + jsonio.compact(stamp) + b"\n\n")
                self.wfile.flush()
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= KEEPALIVE_SECONDS:
                self.wfile.write(b": still here\n\n")
                self.wfile.flush()
                quiet_since = time.monotonic()
            self.board.stopping.wait(POLL_SECONDS)


class Server(ThreadingHTTPServer):
    daemon_threads = True  # an open event stream does not keep wfs from ending
    # Connections the system holds until they are accepted: socketserver's default of 5
    # made a burst of them (a page's assets, a reload, idle connections) wait a second
    # each for the retry of their connect, however soon the board accepted again.
    request_queue_size = socket.SOMAXCONN

    def __init__(self, board: Board, port: int) -> None:
        self.board = board
        # Each open connection: since when it waits for a request (None: being answered).
        self.connections: dict[socket.socket, float | None] = {}
        self.guard = threading.Lock()
        super().__init__(("127.0.0.1", port), Handler)
        board.port = self.server_address[1]

    def waiting(self, connection: socket.socket, idle: bool) -> None:
        with self.guard:
            if connection in self.connections:
                self.connections[connection] = time.monotonic() if idle else None

    def process_request(self, request: Any, client_address: Any) -> None:
        """Let the new connection in, closing the ones idle longest when MAX_CONNECTIONS
        are open; when every one is being answered, the new one is closed instead."""
        with self.guard:
            idle = sorted((t, id(c), c) for c, t in self.connections.items() if t is not None)
            excess = len(self.connections) + 1 - MAX_CONNECTIONS
            for _, _, connection in idle[: max(excess, 0)]:
                self.connections.pop(connection)
                try:
                    connection.shutdown(socket.SHUT_RDWR)  # its handler sees the end, and ends
                except OSError:
                    pass
            full = len(self.connections) >= MAX_CONNECTIONS
            if not full:
                self.connections[request] = time.monotonic()
        if full:
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.guard:
            self.connections.pop(request, None)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request that failed past its answer: one line, never a traceback; its
        connection is closed and the board serves on."""
        error = sys.exc_info()[1]
        sys.stderr.write(for_terminal(f"wfs: board: a request failed: {error!r}"[:300]) + "\n")


def listen(board: Board, port: int, fallback: bool = False) -> Server:
    """The server of `board` on 127.0.0.1:`port` (0: a free one); on a free one when
    `port` is taken and `fallback` (a kept port that something else holds now)."""
    try:
        return Server(board, port)
    except OSError:
        if not fallback or port == 0:
            raise
        return Server(board, 0)


def serve(server: Server, ready: Callable[[Board], None]) -> None:
    """Serve until Ctrl-C; `ready` is told once it listens (the CLI prints the URL)."""
    board = server.board
    # Ctrl-C stops the board even where it was started with SIGINT ignored (a background
    # job of a script), in which case Python would not turn it into KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        ready(board)
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        board.stopping.set()
        server.server_close()
