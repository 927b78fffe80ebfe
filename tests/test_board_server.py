"""`wfs board`: a real server process on 127.0.0.1, read over real HTTP.

Each test plans a session in a real project, starts `wfs board --json --port 0` as a
process of its own, reads the URL and token from its first line, and asks it with
urllib as the page does.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, NamedTuple

import pytest
from conftest import posix_only, read_json, wfs
from git_helpers import git_env

from wfs import leases
from wfs.layout import Layout

__all__ = ["git_env"]  # the fixture, used by name

SID = "WFS-board"
ECHO = {"step": 1, "title": "Say it", "description": "Say it.", "command": "bash(printf done)"}
PLAN = {
    "overview": "Board",
    "tasks": [
        {"id": "IMPL-1", "title": "Group"},
        {"id": "IMPL-1.1", "title": "Lay out <b>it</b>"},
        {"id": "IMPL-1.2", "title": "Wire up", "context": {"depends_on": ["IMPL-1.1"]}},
        {"id": "IMPL-2", "title": "Ship", "context": {"depends_on": ["IMPL-1"]}},
        {
            "id": "IMPL-3",
            "title": "Stuck",
            "context": {"acceptance": ["it says done"]},
            "flow_control": {"implementation_approach": [ECHO]},
        },
        {"id": "IMPL-4", "title": "Done"},
        {"id": "IMPL-5", "title": "Claimed"},
    ],
}


class Served(NamedTuple):
    url: str
    token: str
    port: int
    proc: subprocess.Popen[str]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class Answer(NamedTuple):
    status: int
    body: Any


def plan(project: Path) -> None:
    assert wfs("init", "--no-git").code == 0
    created = wfs("plan", "Board", "--from", "-", input=json.dumps(PLAN))
    assert (created.code, created.out) == (0, f"{SID}\n"), created.err
    assert wfs("task", "status", "IMPL-4", "completed").code == 0
    assert wfs("task", "status", "IMPL-3", "blocked").code == 0
    edit_execution(project, "IMPL-3", {"blocked_reason": "the disk <is> full"})


def edit_execution(project: Path, tid: str, execution: dict[str, Any]) -> None:
    """What the engine (or a person in an editor) writes into a task's file."""
    path = project / ".workflow" / SID / ".task" / f"{tid}.json"
    task = read_json(path)
    task["execution"] = {**task.get("execution", {}), **execution}
    path.write_text(json.dumps(task, indent=2))


@contextmanager
def board(project: Path, *options: str) -> Iterator[Served]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "wfs", "board", "--json", "--port", "0", *options],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert set(first) == {"url", "token", "port"}
        assert first["url"] == f"http://127.0.0.1:{first['port']}/?token={first['token']}"
        yield Served(first["url"], first["token"], first["port"], proc)
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.communicate()


def ask(
    served: Served,
    path: str,
    *,
    token: bool = True,
    headers: dict[str, str] | None = None,
    body: Any = None,
) -> Answer:
    sent = {"X-WFS-Token": served.token} if token else {}
    sent.update(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        sent.setdefault("Content-Type", "application/json")
    request = urllib.request.Request(served.base + path, data=data, headers=sent)
    try:
        with urllib.request.urlopen(request) as answer:
            raw, status, kind = answer.read(), answer.status, answer.headers["Content-Type"]
    except urllib.error.HTTPError as err:
        raw, status, kind = err.read(), err.code, err.headers["Content-Type"]
    return Answer(status, json.loads(raw) if kind == "application/json" else raw.decode())


def row(board_data: dict[str, Any], tid: str) -> dict[str, Any]:
    return next(task for task in board_data["tasks"] if task["id"] == tid)


# ------------------------------------------------------------------ the board's data


@pytest.mark.slow
def test_the_board_data_holds_containers_dependencies_blocked_and_claimed_tasks(
    project: Path,
) -> None:
    plan(project)
    store = leases.claim_store(Layout(project))
    lease = store.acquire(SID, "IMPL-5", "the other desk")
    assert lease is not None
    assert wfs("task", "status", "IMPL-5", "active").code == 0
    edit_execution(
        project, "IMPL-5", {"claimed_by": lease.owner, "step": "implementation_approach/1"}
    )
    with board(project) as served:
        answer = ask(served, "/api/board")
    assert answer.status == 200
    data = answer.body
    assert data["session"] == {
        "id": SID,
        "topic": "Board",
        "status": "active",
        "phase": "IMPLEMENT",
    }
    assert data["sessions"] == [
        {"id": SID, "topic": "Board", "status": "active", "completed": 1, "total": 6}
    ]
    assert re.fullmatch(r"[0-9a-f]{24}", data["stamp"])
    # Every card its columns show, the container IMPL-1 (pending) too.
    assert data["counts"] == {"pending": 3, "ready": 1, "active": 1, "blocked": 1, "completed": 1}
    assert sum(data["counts"].values()) == len(data["tasks"])
    assert [t["id"] for t in data["tasks"]] == [
        "IMPL-1", "IMPL-1.1", "IMPL-1.2", "IMPL-2", "IMPL-3", "IMPL-4", "IMPL-5",
    ]  # fmt: skip
    assert row(data, "IMPL-1") == {
        "id": "IMPL-1",
        "title": "Group",
        "column": "pending",
        "status": "container",
        "parent": None,
        "container": True,
        "depends_on": [],
        "waiting_on": [],
        "reason": None,
        "continue": None,
        "critical": False,
        "claim": None,
        "state": None,
    }
    assert row(data, "IMPL-1.1") | {} == {
        **row(data, "IMPL-1"),
        "id": "IMPL-1.1",
        "title": "Lay out <b>it</b>",  # as the file holds it: the page shows it as text
        "column": "ready",
        "status": "pending",
        "parent": "IMPL-1",
        "container": False,
        "continue": f"wfs --session {SID} execute IMPL-1.1",
        "critical": True,
    }
    wire_up = row(data, "IMPL-1.2")
    assert (wire_up["column"], wire_up["depends_on"], wire_up["waiting_on"]) == (
        "pending",
        ["IMPL-1.1"],
        ["IMPL-1.1"],
    )
    ship = row(data, "IMPL-2")
    assert (ship["parent"], ship["waiting_on"], ship["critical"]) == (None, ["IMPL-1"], True)
    stuck = row(data, "IMPL-3")
    assert (stuck["column"], stuck["reason"], stuck["continue"], stuck["state"]) == (
        "blocked",
        "the disk <is> full",
        f"wfs --session {SID} execute --resume IMPL-3",
        "blocked",
    )
    assert row(data, "IMPL-4")["column"] == "completed"
    claimed = row(data, "IMPL-5")
    assert (claimed["column"], claimed["status"], claimed["reason"]) == ("active", "active", None)
    assert claimed["state"] == "running"
    assert claimed["claim"] == {
        "owner": lease.owner,
        "where": "the other desk",
        "since": lease.since,
        "expires": lease.expires,
        "state": "running",
        "step": "implementation_approach/1",
        "remote": False,
    }
    assert data["edges"] == [["IMPL-1.1", "IMPL-1.2"], ["IMPL-1", "IMPL-2"]]
    # The longest chain of what remains: the group's two tasks, then what waits on it.
    assert data["critical_path"] == ["IMPL-1.1", "IMPL-1.2", "IMPL-2"]


@pytest.mark.slow
def test_a_task_detail_has_its_steps_acceptance_and_a_summary_made_inert(project: Path) -> None:
    plan(project)
    summaries = project / ".workflow" / SID / ".summaries"
    summaries.mkdir()
    (summaries / "IMPL-3-summary.md").write_text(
        "# Done\n\n<script>alert(1)</script>\n\n[click](javascript:alert(1)) and "
        "[docs](https://example.org/a)\n"
    )
    with board(project) as served:
        answer = ask(served, "/api/task?id=IMPL-3")
        missing = ask(served, "/api/task?id=IMPL-9")
    assert answer.status == 200
    assert answer.body == {
        "id": "IMPL-3",
        "title": "Stuck",
        "column": "blocked",
        "status": "blocked",
        "waiting_on": [],
        "reason": "the disk <is> full",
        "continue": f"wfs --session {SID} execute --resume IMPL-3",
        "steps": [
            {
                "key": "implementation_approach/1",
                "name": "Say it",
                "kind": "step",
                "status": None,
                "elapsed": None,
            },
        ],  # fmt: skip
        "acceptance": ["it says done"],
        "summary_html": "<h1>Done</h1>\n<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"
        '<p>[click](javascript:alert(1)) and <a href="https://example.org/a">docs</a></p>\n',
        "output": None,
    }
    assert missing.status == 404 and missing.body["ok"] is False


# ------------------------------------------------------------------ security


@pytest.mark.slow
def test_a_request_without_the_token_or_from_another_host_is_refused(project: Path) -> None:
    plan(project)
    with board(project) as served:
        without = ask(served, "/api/board", token=False)
        wrong = ask(served, "/api/board", token=False, headers={"X-WFS-Token": "guess"})
        rebound = ask(served, "/api/board", headers={"Host": f"evil.example:{served.port}"})
        page = ask(served, f"/?token={served.token}", token=False)
        by_name = ask(served, "/api/board", headers={"Host": f"localhost:{served.port}"})
    error = {"ok": False, "error": "a wrong or missing token"}
    assert (without.status, without.body) == (403, error)
    assert (wrong.status, wrong.body) == (403, error)
    assert (rebound.status, rebound.body) == (
        403,
        {"ok": False, "error": "this server answers 127.0.0.1 only"},
    )
    assert page.status == 200 and by_name.status == 200
    assert '<script type="application/json" id="wfs-data">' in page.body
    # A title from a file never closes the script it is embedded in.
    assert "Lay out \\u003cb\\u003eit\\u003c/b\\u003e" in page.body
    assert "<b>it</b>" not in page.body


@pytest.mark.slow
def test_the_page_without_its_token_says_to_use_the_url_wfs_board_printed(project: Path) -> None:
    plan(project)
    with board(project) as served:
        without = ask(served, "/", token=False)
        wrong = ask(served, "/?token=an-old-bookmark", token=False)
        api = ask(served, "/api/board", token=False)
    assert without.status == wrong.status == 403
    for answer in (without, wrong):
        assert answer.body.startswith("<!doctype html>")
        assert "<h1>Open the board with the URL <code>wfs board</code> printed</h1>" in answer.body
        assert f"<code>http://127.0.0.1:{served.port}/?token=…</code>" in answer.body
        assert served.token not in answer.body and "Board" not in answer.body  # nothing of it
    assert "<p>This address has no token.</p>" in without.body
    assert "<p>Its token is not this board&#39;s.</p>" in wrong.body
    assert (api.status, api.body) == (403, {"ok": False, "error": "a wrong or missing token"})


def started(project: Path, *options: str) -> tuple[dict[str, Any], str]:
    """`wfs board --json OPTIONS` started, its first line read, then stopped: (that line,
    its stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "wfs", "board", "--json", *options],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    proc.terminate()
    _, err = proc.communicate()
    assert first, err
    return json.loads(first), err


@pytest.mark.slow
def test_the_url_stays_the_same_from_one_start_to_the_next(project: Path, git_env: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    plan(project)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "plan"], cwd=project, check=True)
    first, _ = started(project)
    again, _ = started(project)
    assert again == first
    # Kept where git ignores it, readable by its owner only.
    kept = project / ".workflow/.cache/board.json"
    assert json.loads(kept.read_text()) == {"port": first["port"], "token": first["token"]}
    if os.name == "posix":
        assert kept.stat().st_mode & 0o777 == 0o600
    status = subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True)
    assert status.stdout == b""
    # A board that can act gets a token of its own, and keeps nothing.
    acting, _ = started(project, "--allow-actions")
    assert acting["token"] != first["token"]
    assert json.loads(kept.read_text())["token"] == first["token"]
    # The kept port taken by another program: elsewhere this time, and said.
    with socket.socket() as other:
        other.bind(("127.0.0.1", first["port"]))
        other.listen()
        moved, err = started(project)
    assert moved["token"] == first["token"] and moved["port"] != first["port"]
    assert err == (
        f"wfs: port {first['port']}, where this project's board was, is taken: the board is "
        "on another one this time\n"
    )
    assert started(project)[0] == first  # and back at its port once it is free
    # --port chooses another one, kept from then on; deleting the file makes a new URL.
    chosen, _ = started(project, "--port", "0")
    assert chosen["token"] == first["token"] and started(project)[0] == chosen
    kept.unlink()
    assert started(project)[0]["token"] != first["token"]


@pytest.mark.slow
def test_actions_are_refused_without_allow_actions(project: Path) -> None:
    plan(project)
    with board(project) as served:
        answer = ask(served, "/api/action", body={"action": "status", "task": "IMPL-2",
                                                  "status": "completed"})  # fmt: skip
    assert answer.status == 404
    assert read_json(project / ".workflow" / SID / ".task" / "IMPL-2.json")["status"] == "pending"


@pytest.mark.slow
def test_an_action_needs_the_token_in_its_header_and_json(project: Path) -> None:
    plan(project)
    change = {"action": "status", "session": SID, "task": "IMPL-2", "status": "completed"}
    task_file = project / ".workflow" / SID / ".task" / "IMPL-2.json"
    with board(project, "--allow-actions") as served:
        in_query = ask(served, f"/api/action?token={served.token}", token=False, body=change)
        as_form = ask(served, "/api/action", body=change, headers={"Content-Type": "text/plain"})
        assert read_json(task_file)["status"] == "pending"
        done = ask(served, "/api/action", body=change)
        container = ask(served, "/api/action", body={**change, "task": "IMPL-1"})
        unknown = ask(served, "/api/action", body={**change, "action": "delete"})
    assert in_query.status == 403
    assert as_form.status == 415
    assert (done.status, done.body) == (200, {"ok": True, "task": "IMPL-2", "status": "completed"})
    assert read_json(task_file)["status"] == "completed"
    assert container.status == 409 and "IMPL-1 is a container" in container.body["error"]
    assert (unknown.status, unknown.body) == (
        400,
        {"ok": False, "error": "action: expected one of resume, skip, status, switch"},
    )


@pytest.mark.slow
def test_resume_starts_the_run_in_the_background(project: Path) -> None:
    plan(project)
    task_file = project / ".workflow" / SID / ".task" / "IMPL-3.json"
    with board(project, "--allow-actions") as served:
        ready = ask(served, "/api/action", body={"action": "resume", "task": "IMPL-1.1"})
        answer = ask(served, "/api/action", body={"action": "resume", "task": "IMPL-3"})
        assert answer.status == 200, answer.body
        assert answer.body["command"].endswith(f"--session {SID} execute --resume IMPL-3")
        while read_json(task_file)["status"] != "completed":  # as long as the run takes
            pass
        detail = ask(served, "/api/task?id=IMPL-3")
    assert (ready.status, ready.body["error"]) == (
        400,
        "IMPL-1.1 is not stopped: there is nothing to resume",
    )
    assert [(s["key"], s["status"]) for s in detail.body["steps"]] == [
        ("implementation_approach/1", "done")
    ]
    assert isinstance(detail.body["steps"][0]["elapsed"], float)


# ------------------------------------------------------------------ live


def next_event(stream: IO[bytes]) -> tuple[str, str]:
    """The next event of a server-sent stream: (its name, its data)."""
    name, lines = "", []
    while True:
        line = stream.readline().decode().rstrip("\n")
        if line.startswith("event: "):
            name = line[len("event: ") :]
        elif line.startswith("data: "):
            lines.append(line[len("data: ") :])
        elif line == "" and name:
            return name, "\n".join(lines)


@pytest.mark.slow
def test_events_say_when_a_status_changes_in_another_process(project: Path) -> None:
    plan(project)
    with board(project) as served:
        request = urllib.request.Request(
            f"{served.base}/api/events?session={SID}", headers={"X-WFS-Token": served.token}
        )
        with urllib.request.urlopen(request) as stream:
            assert stream.headers["Content-Type"] == "text/event-stream"
            name, first = next_event(stream)
            before = ask(served, "/api/board").body
            assert (name, json.loads(first)) == ("stamp", before["stamp"])
            changed = subprocess.run(
                [sys.executable, "-m", "wfs", "task", "status", "IMPL-1.1", "completed"],
                cwd=project,
                capture_output=True,
            )
            assert changed.returncode == 0
            name, second = next_event(stream)
        after = ask(served, "/api/board").body
    assert name == "stamp" and json.loads(second) != json.loads(first)
    assert row(after, "IMPL-1.1")["column"] == "completed"
    assert row(after, "IMPL-1.2")["column"] == "ready"


# ------------------------------------------------------------------ the command


def test_export_writes_one_file_that_needs_no_network(project: Path) -> None:
    plan(project)
    result = wfs("board", "--export", "board.html")
    assert (result.code, result.out, result.err) == (0, "Wrote board.html\n", "")
    page = (project / "board.html").read_text()
    tags = re.findall(r"<(?:script|link)\b[^>]*>", page)
    assert tags and not [tag for tag in tags if re.search(r"https?:", tag)]
    embedded = re.search(r'<script type="application/json" id="wfs-data">(.*?)</script>', page)
    assert embedded is not None
    assert json.loads(embedded.group(1))["counts"] == {
        "pending": 3, "ready": 2, "active": 0, "blocked": 1, "completed": 1,
    }  # fmt: skip
    config = re.search(r'<script type="application/json" id="wfs-config">(.*?)</script>', page)
    assert config is not None
    assert json.loads(config.group(1)) == {"token": None, "actions": False}
    details = json.loads(embedded.group(1))["details"]  # a file cannot ask for them
    assert sorted(details) == sorted(t["id"] for t in json.loads(embedded.group(1))["tasks"])


@pytest.mark.slow
def test_plain_output_names_the_url_and_how_to_stop(project: Path) -> None:
    plan(project)
    proc = subprocess.Popen(
        [sys.executable, "-m", "wfs", "board", "--port", "0"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    first, second = proc.stdout.readline(), proc.stdout.readline()
    proc.terminate()
    proc.communicate()
    assert re.fullmatch(r"Board: http://127\.0\.0\.1:\d+/\?token=[\w-]+\n", first)
    assert second == "Ctrl-C stops it.\n"


@pytest.mark.slow
@posix_only
@pytest.mark.parametrize("ignored", [False, True], ids=["", "SIGINT ignored by its parent"])
def test_ctrl_c_ends_the_board_cleanly(project: Path, ignored: bool) -> None:
    """Also when it was started with SIGINT ignored, as a script's background job is."""
    plan(project)
    previous = signal.getsignal(signal.SIGINT)
    if ignored:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the board's process
    try:
        with board(project) as served:
            served.proc.send_signal(signal.SIGINT)
            out, err = served.proc.communicate(timeout=120)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert (served.proc.returncode, out, err) == (0, "", "")


def test_without_a_session_the_board_says_so(project: Path) -> None:
    assert wfs("init", "--no-git").code == 0
    result = wfs("board", "--port", "0")
    assert result.code == 2 and result.err.startswith("wfs: error: no session yet")


def test_global_options_work_after_the_subcommand(project: Path) -> None:
    plan(project)
    result = wfs("board", "--export", "b.html", "--json", "--session", SID)
    assert (result.code, json.loads(result.out)) == (0, {"written": "b.html"})


def test_the_options_of_a_server_go_with_a_server_only(project: Path) -> None:
    plan(project)
    exported = wfs("board", "--export", "b.html", "--allow-actions", "--port", "8000")
    assert exported.code == 2
    assert "--export starts no server: it takes no --port, --allow-actions" in exported.err
    both = wfs("board", "--tui", "--export", "b.html")
    assert both.code == 2 and "--tui and --export: one or the other" in both.err
    assert not (project / "b.html").exists()


@pytest.mark.slow
@posix_only
def test_open_gives_the_url_to_the_browser(project: Path, tmp_path: Path) -> None:
    """--open through the standard library's webbrowser, which runs $BROWSER: a fake
    one here, which notes the URL it was given."""
    plan(project)
    seen = tmp_path / "seen"
    browser = tmp_path / "fake-browser"
    browser.write_text(f'#!/bin/sh\necho "$1" > {seen}\n')
    browser.chmod(0o755)
    proc = subprocess.Popen(
        [sys.executable, "-m", "wfs", "board", "--port", "0", "--open"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "BROWSER": str(browser), "DISPLAY": ""},
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    try:
        for _ in range(300):  # the browser is started after the URL is printed
            if seen.exists() and seen.read_text():
                break
            time.sleep(0.1)
        url = first.removeprefix("Board: ").strip()
        assert seen.read_text() == url + "\n"
    finally:
        proc.terminate()
        proc.communicate()


@pytest.mark.slow
def test_a_claims_remote_that_is_a_git_option_never_reaches_git_from_the_live_board(
    project: Path,
) -> None:
    plan(project)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    marker = project.parent / "PWNED"
    hostile = "--upload-pack=touch ../PWNED;"
    (project / ".workflow" / "config.json").write_text(json.dumps({"claims": {"remote": hostile}}))
    with board(project) as served:
        answer = ask(served, "/api/board")
    assert answer == Answer(
        409,
        {
            "ok": False,
            "error": f".workflow/config.json#/claims/remote: {hostile!r} is not a remote of this "
            "repository (`git remote -v` lists them; the file names a remote, never a URL or a "
            "path)",
        },
    )
    assert not marker.exists()


@pytest.mark.slow
@pytest.mark.parametrize("count", [20, 80])
def test_an_export_reads_the_board_once_and_each_task_a_fixed_number_of_times(
    project: Path, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """`board --export` costs a fixed amount per task (5,000 tasks took 20 minutes when
    each task's detail made the whole board again): counted, never timed."""
    from wfs.board import data, server

    wfs("init", "--no-git")
    tasks = [{"id": f"IMPL-{n}", "title": f"Task {n}"} for n in range(1, count + 1)]
    assert wfs("plan", "big", "--from", "-", input=json.dumps(tasks)).code == 0
    calls = {"board_data": 0, "read_task": 0}
    for name in calls:
        real = getattr(data, name)

        def counted(*args: Any, real: Any = real, name: str = name, **kwargs: Any) -> Any:
            calls[name] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(data, name, counted)
    page, unreadable = server.export_page(Layout(project), None)
    assert page.count("Task ") >= count and unreadable == []
    assert calls == {"board_data": 1, "read_task": count}
