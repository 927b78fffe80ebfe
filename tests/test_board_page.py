"""The board's page in a real headless Chromium (tests/browser.py), on board data made
for each case (claims of other machines, every column, hostile text): what it shows of
a session, that text from a file stays text, that an exported file needs no network,
and that the live page follows its server's events and posts its actions as the
contract says.

The page is rendered as the server renders it (browser.render_page: the template with
the contract's variables): opened as a file (token None, as `--export` writes it), or
served with the endpoints stood in by `http.server` (StandIn below). The real server,
`wfs board`, is driven in Chromium by tests/test_board_live.py.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
import pytest
from browser import BOARD, COLUMNS, board_data, console_errors, driver, render_page

TEMPLATE_SCRIPTS = 4  # the data, the config, dagre and board.js


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    yield from driver()


def forty_tasks() -> dict[str, Any]:
    """A 40-task session: 8 groups of 4 subtasks in a chain each, some groups after
    others, every column used, a blocked task with its reason, a running one."""
    tasks: list[dict[str, Any]] = []
    for g in range(1, 9):
        group = f"IMPL-{g}"
        tasks.append(
            {
                "id": group,
                "title": f"Group {g}",
                "container": True,
                "status": "container",
                "column": "completed" if g <= 2 else "active" if g <= 4 else "pending",
                "depends_on": [f"IMPL-{g - 1}"] if g in (3, 5, 7) else [],
            }
        )
        for s in range(1, 5):
            tid = f"IMPL-{g}.{s}"
            column = COLUMNS[(g * 4 + s) % 5]
            task: dict[str, Any] = {
                "id": tid,
                "title": f"Subtask {s} of group {g}",
                "parent": group,
                "column": column,
                "status": column,
                "depends_on": [f"IMPL-{g}.{s - 1}"] if s > 1 else [],
                "critical": g == 5,
            }
            previous = tasks[-1]
            if s > 1 and previous["column"] != "completed":
                task["waiting_on"] = [previous["id"]]
            if column == "active" and s == 4:
                # Paused, in another tool's word for active.
                task["status"] = "in_progress"
                task["reason"] = "paused by the agent: needs a decision"
                task["continue"] = f"wfs --session WFS-demo execute --resume {tid}"
            if column == "blocked":
                task["reason"] = f"step 'test' of {tid} failed: exit 1"
                task["continue"] = f"wfs --session WFS-demo execute --resume {tid}"
            if column == "active" and s != 4:
                task["claim"] = {
                    "owner": "build-host:4242",
                    "where": f".workflow/.worktrees/WFS-demo/{tid}",
                    "since": "2025-01-01T00:00:00Z",
                    "expires": "2099-01-01T00:00:00Z",
                    "state": "running",
                    "step": "implement",
                    "remote": g == 4,
                }
            tasks.append(task)
    return board_data(tasks)


def open_file(chromium: Any, tmp_path: Path, data: dict[str, Any]) -> Path:
    page = tmp_path / "board.html"
    page.write_text(render_page(data), encoding="utf-8")
    chromium.get(page.as_uri())
    wait_rendered(chromium)
    return page


def wait_rendered(chromium: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(chromium, 30).until(
        lambda d: d.execute_script("return document.documentElement.dataset.rendered === '1'")
    )


def js(chromium: Any, script: str, *args: Any) -> Any:
    return chromium.execute_script(script, *args)


def shown(chromium: Any) -> dict[str, Any]:
    """What the page shows: each card's column, status and title; the graph's nodes and
    edges; the counts."""
    return js(
        chromium,
        """
        const cards = {};
        for (const c of document.querySelectorAll('#board .card[data-task-id]')) {
          cards[c.dataset.taskId] = [c.closest('.column').dataset.column, c.dataset.column,
                                     c.dataset.status, c.querySelector('.title').textContent];
        }
        const counts = {};
        for (const c of document.querySelectorAll('#progress .count')) {
          counts[c.dataset.column] = Number(c.querySelector('b').textContent);
        }
        return {
          cards,
          nodes: [...document.querySelectorAll('#graph g.node[data-task-id]')]
                   .map((n) => [n.dataset.taskId, n.dataset.column]),
          edges: [...document.querySelectorAll('#graph path.edge')]
                   .map((e) => [e.dataset.from, e.dataset.to]),
          critical: [...document.querySelectorAll('#graph path.edge.critical')].length,
          counts,
        };
        """,
    )


# ------------------------------------------------------------------ what it shows


@pytest.mark.slow
def test_every_task_shows_in_the_column_its_data_holds(chromium: Any, tmp_path: Path) -> None:
    data = forty_tasks()
    open_file(chromium, tmp_path, data)
    page = shown(chromium)
    assert len(data["tasks"]) == 40
    assert page["cards"] == {
        t["id"]: [t["column"], t["column"], t["status"], t["title"]] for t in data["tasks"]
    }
    assert sorted(page["nodes"]) == sorted([t["id"], t["column"]] for t in data["tasks"])
    assert sorted(page["edges"]) == sorted(data["edges"])
    assert len(page["edges"]) == 8 * 3 + 3
    # The critical chain IMPL-5.1 -> .2 -> .3 -> .4: three edges.
    assert page["critical"] == 3
    assert page["counts"] == data["counts"] | {"total": 40}
    assert sum(data["counts"].values()) == 40
    assert console_errors(chromium) == []


@pytest.mark.slow
def test_subtasks_are_drawn_inside_their_group_box(chromium: Any, tmp_path: Path) -> None:
    open_file(chromium, tmp_path, forty_tasks())
    outside = js(
        chromium,
        """
        const box = (id) => document.querySelector(
          `#graph g.node[data-task-id="${id}"] > rect`).getBBox();
        const out = [];
        for (let g = 1; g <= 8; g++) {
          const group = box(`IMPL-${g}`);
          for (let s = 1; s <= 4; s++) {
            const b = box(`IMPL-${g}.${s}`);
            if (b.x < group.x || b.y < group.y || b.x + b.width > group.x + group.width
                || b.y + b.height > group.y + group.height) out.push(`IMPL-${g}.${s}`);
          }
        }
        return [out, document.querySelectorAll('#graph g.node.cluster').length];
        """,
    )
    assert outside == [[], 8]


@pytest.mark.slow
def test_blocked_and_running_tasks_show_reason_command_and_holder(
    chromium: Any, tmp_path: Path
) -> None:
    data = forty_tasks()
    open_file(chromium, tmp_path, data)
    blocked = [t for t in data["tasks"] if t["column"] == "blocked"]
    for task in blocked:
        card = f'#board .card[data-task-id="{task["id"]}"]'
        assert (
            js(chromium, f"return document.querySelector('{card} .reason').textContent")
            == (task["reason"])
        )
        assert (
            js(chromium, f"return document.querySelector('{card} .continue').textContent")
            == (task["continue"])
        )
    rows = js(
        chromium,
        """return [...document.querySelectorAll('#running tr.running')].map((r) =>
             [r.dataset.taskId, r.querySelector('.holder').textContent,
              r.querySelector('.where').textContent, r.querySelector('.step').textContent,
              /^\\d+h \\d\\dm$/.test(r.querySelector('.elapsed').textContent)])""",
    )
    assert rows == [
        [
            t["id"],
            f"build-host:4242 ({'remote' if t['claim']['remote'] else 'local'})",
            t["claim"]["where"],
            "implement",
            True,
        ]
        for t in data["tasks"]
        if t["claim"]
    ]
    assert [row[0] for row in rows] == ["IMPL-1.3", "IMPL-4.1", "IMPL-5.2", "IMPL-6.3"]
    # Read-only (an exported file): no buttons, no status select.
    assert (
        js(chromium, "return document.querySelectorAll('#board button, #board select').length") == 0
    )


@pytest.mark.slow
def test_a_node_opens_the_tasks_detail(chromium: Any, tmp_path: Path) -> None:
    data = forty_tasks()
    # An exported file may carry each task's detail (data.details); the page shows it.
    data["details"] = {
        "IMPL-3.1": {
            "id": "IMPL-3.1",
            "title": "Subtask 1 of group 3",
            "column": "blocked",
            "status": "blocked",
            "waiting_on": [],
            "reason": "step 'test' of IMPL-3.1 failed: exit 1",
            "continue": "wfs --session WFS-demo execute --resume IMPL-3.1",
            "steps": [
                {
                    "key": "build",
                    "name": "build",
                    "kind": "step",
                    "status": "done",
                    "elapsed": 1.24,
                },
                {
                    "key": "test",
                    "name": "run the tests",
                    "kind": "check",
                    "status": "failed",
                    "elapsed": 0.5,
                },
                {"key": "docs", "name": "docs", "kind": "step", "status": None, "elapsed": None},
            ],
            "acceptance": ["the tests pass", "the docs say how"],
            "summary_html": "<p>Did <strong>this</strong>.</p>",
            "output": "line 1\nline 2\n",
        }
    }
    open_file(chromium, tmp_path, data)
    chromium.find_element("css selector", '#graph g.node[data-task-id="IMPL-3.1"]').click()
    detail = js(
        chromium,
        """const d = document.getElementById('detail');
        return [d.hidden, d.querySelector('.detail-title').textContent,
                d.querySelector('.detail-status').textContent,
                [...d.querySelectorAll('tr.step')].map((r) =>
                   [...r.querySelectorAll('td')].map((c) => c.textContent)),
                [...d.querySelectorAll('.acceptance li')].map((li) => li.textContent),
                d.querySelector('.summary strong').textContent,
                d.querySelector('pre.output').textContent,
                document.querySelectorAll('.selected[data-task-id="IMPL-3.1"]').length]""",
    )
    assert detail == [
        False,
        "Subtask 1 of group 3",
        "blocked",
        [
            ["build", "step", "done", "1.2 s"],
            ["run the tests", "check", "failed", "0.5 s"],
            ["docs", "step", "\u2014", ""],
        ],
        ["the tests pass", "the docs say how"],
        "this",
        "line 1\nline 2\n",
        2,  # its node and its card
    ]
    # A task without a detail of its own shows what the board knows: why it waits.
    chromium.find_element("css selector", "#detail button.close").click()
    assert js(chromium, "return document.getElementById('detail').hidden") is True
    chromium.find_element("css selector", '#board .card[data-task-id="IMPL-1.4"]').click()
    assert js(chromium, "return document.querySelector('#detail .why').textContent") == (
        "not ready: waiting on IMPL-1.3"
    )


# ------------------------------------------------------------------ hostile text

HOSTILE = {
    "script": "<script>window.pwned = 'script'; alert(1)</script>",
    "link": "javascript:alert(1)",
    "img": "<img src=x onerror=\"window.pwned = 'img'\">",
    "control": "red\x1b[31m bell\x07 nul\x00 del\x7f rtl\u202e end",
}


@pytest.mark.slow
def test_a_hostile_title_is_inert(chromium: Any, tmp_path: Path) -> None:
    from selenium.common.exceptions import NoAlertPresentException

    tasks = [
        {
            "id": f"IMPL-{i}",
            "title": title,
            "column": column,
            "reason": HOSTILE["img"],
            "continue": HOSTILE["link"],
        }
        for i, (title, column) in enumerate(zip(HOSTILE.values(), COLUMNS, strict=False), 1)
    ]
    data = board_data(tasks, topic=HOSTILE["script"])
    data["details"] = {
        "IMPL-1": {
            "id": "IMPL-1",
            "title": HOSTILE["script"],
            "column": "pending",
            "status": "pending",
            "waiting_on": [],
            "reason": None,
            "continue": None,
            "steps": [
                {
                    "key": "x",
                    "name": HOSTILE["img"],
                    "kind": "step",
                    "status": "done",
                    "elapsed": None,
                }
            ],
            "acceptance": [HOSTILE["script"]],
            "summary_html": None,
            "output": HOSTILE["img"],
        }
    }
    open_file(chromium, tmp_path, data)
    chromium.find_element("css selector", '#board .card[data-task-id="IMPL-1"]').click()
    with pytest.raises(NoAlertPresentException):
        chromium.switch_to.alert.text  # noqa: B018
    page = js(
        chromium,
        """return {
          pwned: window.pwned === undefined ? null : window.pwned,
          scripts: document.scripts.length,
          imgs: document.querySelectorAll('img').length,
          links: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')),
          handlers: [...document.querySelectorAll('*')].filter((e) =>
            [...e.attributes].some((a) => a.name.startsWith('on'))).length,
          titles: Object.fromEntries([...document.querySelectorAll('#board .card')].map((c) =>
            [c.dataset.taskId, c.querySelector('.title').textContent])),
          reason: document.querySelector('#board .card .reason').textContent,
          command: document.querySelector('#board .card .continue').textContent,
          topic: document.getElementById('session-topic').textContent,
          detail: document.querySelector('#detail .detail-title').textContent,
          output: document.querySelector('#detail pre.output').textContent,
          svgText: document.querySelector('#graph g.node[data-task-id="IMPL-4"] text:not(.nid)')
                     .textContent,
        }""",
    )
    assert page["pwned"] is None
    assert page["scripts"] == TEMPLATE_SCRIPTS
    assert page["imgs"] == 0
    assert page["links"] == []  # an exported file links nothing
    assert page["handlers"] == 0
    shown_control = "red\u241b[31m bell\u2407 nul\u2400 del\u2421 rtl<U+202E> end"
    assert page["titles"] == {
        "IMPL-1": HOSTILE["script"],
        "IMPL-2": HOSTILE["link"],
        "IMPL-3": HOSTILE["img"],
        "IMPL-4": shown_control,
    }
    assert page["reason"] == HOSTILE["img"]
    assert page["command"] == HOSTILE["link"]
    assert page["topic"] == HOSTILE["script"]
    assert page["detail"] == HOSTILE["script"]
    assert page["output"] == HOSTILE["img"]
    assert page["svgText"] == shown_control[:29] + "\u2026"
    assert console_errors(chromium) == []


# ------------------------------------------------------------------ the exported file


@pytest.mark.slow
def test_the_exported_file_opens_with_the_network_off(chromium: Any, tmp_path: Path) -> None:
    data = forty_tasks()
    chromium.set_network_conditions(offline=True, latency=0, throughput=0)
    try:
        page = open_file(chromium, tmp_path, data)
        entries = js(
            chromium,
            """return ['navigation', 'resource'].flatMap((type) =>
                 performance.getEntriesByType(type).map((e) => [e.entryType, e.name]))""",
        )
        counts = shown(chromium)["counts"]
    finally:
        chromium.delete_network_conditions()
    # The page itself and nothing else: no script, style, font, image or fetch.
    assert entries == [["navigation", page.as_uri()]]
    assert counts == data["counts"] | {"total": 40}
    assert js(chromium, "return document.getElementById('live').textContent") == (
        "exported: a snapshot, not live"
    )


def test_the_inlined_files_cannot_end_their_element() -> None:
    """The CSS and scripts are inlined in <style> and <script>: none may close it early."""
    static = BOARD / "static"
    for name in ("board.js", "dagre.min.js", "board.css"):
        text = (static / name).read_text(encoding="utf-8").lower()
        assert "</script" not in text and "</style" not in text and "<!--" not in text, name
    # The exported file carries dagre, so it carries dagre's licence too.
    template = (BOARD / "templates" / "board.html.j2").read_text(encoding="utf-8")
    licence = (static / "dagre.LICENSE").read_text(encoding="utf-8")
    assert licence in template
    assert (
        re.search(r"@dagrejs/dagre (\d+\.\d+\.\d+)", template)[1]
        == re.search(  # type: ignore[index]
            r"@dagrejs/dagre (\d+\.\d+\.\d+)", (static / "board.js").read_text(encoding="utf-8")
        )[1]
    )  # type: ignore[index]


# ------------------------------------------------------------------ live, stood in


class StandIn:
    """The server's endpoints as the contract gives them, served by http.server: the
    page, /api/board, /api/task, /api/events (a stamp event whenever `data` changes)
    and /api/action (recorded, answered ok)."""

    def __init__(self, data: dict[str, Any], token: str, actions: bool) -> None:
        self.data = data
        self.token = token
        self.actions = actions
        self.posts: list[tuple[dict[str, str], Any]] = []
        self.changed = threading.Condition()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def send(self, code: int, body: bytes, kind: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def allowed(self, query: dict[str, list[str]]) -> bool:
                given = self.headers.get("X-WFS-Token") or query.get("token", [""])[0]
                return given == stand_in.token

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = parse_qs(url.query)
                if not self.allowed(query):
                    return self.send(403, b"{}", "application/json")
                if url.path == "/":
                    page = render_page(stand_in.data, stand_in.token, stand_in.actions)
                    return self.send(200, page.encode(), "text/html; charset=utf-8")
                if url.path == "/api/board":
                    return self.send(200, orjson.dumps(stand_in.data), "application/json")
                if url.path == "/api/events":
                    return self.events()
                return self.send(404, b"{}", "application/json")

            def events(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                sent = None
                while True:
                    with stand_in.changed:
                        stand_in.changed.wait_for(lambda s=sent: stand_in.data["stamp"] != s, 0.25)
                        stamp = stand_in.data["stamp"]
                    try:
                        if stamp != sent:
                            self.wfile.write(
                                b"event: stamp\ndata: " + orjson.dumps(stamp) + b"\n\n"
                            )
                        else:
                            self.wfile.write(b": alive\n\n")
                        self.wfile.flush()
                    except OSError:
                        return
                    sent = stamp

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k: self.headers[k] for k in ("X-WFS-Token", "Content-Type")}
                stand_in.posts.append((headers, orjson.loads(body)))
                self.send(200, b'{"ok": true}', "application/json")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/?token={token}"

    def update(self, data: dict[str, Any]) -> None:
        with self.changed:
            self.data = data
            self.changed.notify_all()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stand_in(request: pytest.FixtureRequest) -> Iterator[StandIn]:
    server = StandIn(forty_tasks(), "t0k3n", actions=getattr(request, "param", False))
    yield server
    server.close()


@pytest.mark.slow
def test_a_new_stamp_redraws_the_page_without_a_reload(chromium: Any, stand_in: StandIn) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    chromium.get(stand_in.url)
    wait_rendered(chromium)
    js(chromium, "window.sameDocument = true")
    WebDriverWait(chromium, 30).until(
        lambda d: d.execute_script("return document.getElementById('live').textContent") == "live"
    )
    data = orjson.loads(orjson.dumps(stand_in.data))
    task = next(t for t in data["tasks"] if t["id"] == "IMPL-6.1")
    assert task["column"] != "completed"
    column = task["column"]
    before = data["counts"][column]
    data["counts"][column] -= 1
    data["counts"]["completed"] += 1
    task["column"] = task["status"] = "completed"
    data["stamp"] = "2"
    stand_in.update(data)
    card = '#board .column[data-column="completed"] .card[data-task-id="IMPL-6.1"]'
    WebDriverWait(chromium, 30).until(
        lambda d: d.execute_script(f"return document.querySelector('{card}') !== null")
    )
    assert js(chromium, "return window.sameDocument") is True
    page = shown(chromium)
    assert page["nodes"].count(["IMPL-6.1", "completed"]) == 1
    assert page["counts"][column] == before - 1
    assert page["counts"]["completed"] == data["counts"]["completed"]


@pytest.mark.slow
@pytest.mark.parametrize("stand_in", [True], indirect=True)
def test_actions_post_json_with_the_token_header(chromium: Any, stand_in: StandIn) -> None:
    from selenium.webdriver.support.ui import Select, WebDriverWait

    chromium.get(stand_in.url)
    wait_rendered(chromium)
    data = stand_in.data
    blocked = [t["id"] for t in data["tasks"] if t["column"] == "blocked"]
    paused = [t["id"] for t in data["tasks"] if t["column"] == "active" and t["reason"]]
    assert len(blocked) == 6 and len(paused) == 2
    resumable = js(
        chromium,
        "return [...document.querySelectorAll('#board button.action-resume')]"
        ".map((b) => b.dataset.taskId)",
    )
    selects = js(
        chromium,
        "return [...document.querySelectorAll('#board select.status-select')]"
        ".map((s) => [s.dataset.taskId, s.value])",
    )
    # A select on each leaf, on its status (a ready task is pending; another tool's
    # word, in_progress, is active).
    assert sorted(selects) == sorted(
        [t["id"], {"ready": "pending", "in_progress": "active"}.get(t["status"], t["status"])]
        for t in data["tasks"]
        if not t["container"]
    )
    assert len(selects) == 32
    # resume and skip on the blocked and the paused tasks, and no other.
    assert sorted(resumable) == sorted(blocked + paused)
    skippable = js(
        chromium,
        "return [...document.querySelectorAll('#board button.action-skip')]"
        ".map((b) => b.dataset.taskId)",
    )
    assert skippable == resumable

    chromium.find_element(
        "css selector", f'#board button.action-resume[data-task-id="{blocked[0]}"]'
    ).click()
    WebDriverWait(chromium, 30).until(
        lambda d: (
            d.execute_script("return document.getElementById('message').textContent")
            == f"resume {blocked[0]}: done"
        )
    )
    Select(
        chromium.find_element(
            "css selector", '#board select.status-select[data-task-id="IMPL-7.2"]'
        )
    ).select_by_value("completed")
    WebDriverWait(chromium, 30).until(lambda d: len(stand_in.posts) == 2, str(stand_in.posts))
    assert stand_in.posts == [
        (
            {"X-WFS-Token": "t0k3n", "Content-Type": "application/json"},
            {"action": "resume", "session": "WFS-demo", "task": blocked[0]},
        ),
        (
            {"X-WFS-Token": "t0k3n", "Content-Type": "application/json"},
            {"action": "status", "session": "WFS-demo", "task": "IMPL-7.2", "status": "completed"},
        ),
    ]


@pytest.mark.slow
def test_the_picker_names_the_maestro_flow_plans(chromium: Any, tmp_path: Path) -> None:
    data = forty_tasks()
    data["maestro"] = [
        {"name": "scratch/20260101-plan-a", "kind": "scratch", "imported_as": None,
         "tasks": 4, "completed": 1},
        {"name": "sessions/20260102-b", "kind": "session", "imported_as": None,
         "error": "plan.json: invalid JSON"},
    ]  # fmt: skip
    open_file(chromium, tmp_path, data)
    plans = js(
        chromium,
        """return [...document.querySelectorAll('#sessions .plan')]
                 .map((p) => [p.tagName, p.dataset.plan, p.textContent])""",
    )
    assert plans == [
        ["SPAN", "scratch/20260101-plan-a", "scratch/20260101-plan-a (Maestro-Flow, 1/4)"],
        ["SPAN", "sessions/20260102-b", "sessions/20260102-b (Maestro-Flow, cannot be read)"],
    ]
    assert console_errors(chromium) == []
