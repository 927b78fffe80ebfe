"""The real `wfs board` (a server process on 127.0.0.1) driven in a real headless
Chromium (tests/browser.py): a 40-task session as its files hold it, a change made by
another process shown without a reload, two tasks of `wfs execute --all --jobs 2`
running at once, a hostile title, the exported file with the network off, and the
actions. Every wait is a bounded number of polls; nothing is timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import driver
from conftest import wfs_process
from git_helpers import commit_all, git, git_env

pytestmark = pytest.mark.skipif(os.name == "nt", reason="bash steps, POSIX agents")

__all__ = ["git_env"]  # the fixture, used by name

POLLS = 150  # each after 0.2 s: the page follows its server's events within a second
SID = "WFS-live"


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    yield from driver()


def wfs_run(root: Path, *args: str, env: dict[str, str] | None = None, input: str | None = None):
    return wfs_process(*args, cwd=root, env=env, timeout=300, input=input)


def step(command: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"step": 1, "title": "work", "description": "do it",
                            "modification_points": [], "logic_flow": [], "depends_on": [],
                            "output": "out"}  # fmt: skip
    if command is not None:
        spec["command"] = command
    return spec


def planned(root: Path, tasks: list[dict[str, Any]], git_repo: bool = False) -> None:
    if git_repo:
        git(root, "init", "-q", "-b", "main")
        (root / "README.md").write_text("live\n")
    assert wfs_run(root, "init", *([] if git_repo else ["--no-git"])).code == 0
    made = wfs_run(root, "plan", "Live", "--from", "-", input=json.dumps(tasks))
    assert made.code == 0 and made.out == f"{SID}\n", made.err
    if git_repo:
        commit_all(root, "plan")


def forty(root: Path) -> None:
    """8 groups of 4 subtasks, each a chain; groups 3, 5 and 7 wait on the one before."""
    tasks = []
    for g in range(1, 9):
        group: dict[str, Any] = {"id": f"IMPL-{g}", "title": f"Group {g}"}
        if g in (3, 5, 7):
            group["depends_on"] = [f"IMPL-{g - 1}"]
        tasks.append(group)
        for s in range(1, 5):
            sub: dict[str, Any] = {
                "id": f"IMPL-{g}.{s}",
                "title": f"Subtask {s} of group {g}",
                "flow_control": {"implementation_approach": [step("bash(true)")]},
            }
            if s > 1:
                sub["depends_on"] = [f"IMPL-{g}.{s - 1}"]
            tasks.append(sub)
    planned(root, tasks)
    for tid in ("IMPL-1.1", "IMPL-1.2", "IMPL-1.3", "IMPL-1.4", "IMPL-2.1"):
        assert wfs_run(root, "task", "status", tid, "completed").code == 0
    assert wfs_run(root, "task", "status", "IMPL-2.2", "blocked").code == 0
    assert wfs_run(root, "task", "status", "IMPL-4.1", "active").code == 0


class Board:
    """A `wfs board --json --port 0` process: its URL and token."""

    def __init__(self, root: Path, *options: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "wfs", "board", "--json", "--port", "0", *options],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()
        assert first, self.proc.stderr.read() if self.proc.stderr else ""
        found = json.loads(first)
        self.url, self.token, self.port = found["url"], found["token"], found["port"]

    def api(self, path: str) -> Any:
        sep = "&" if "?" in path else "?"
        with urllib.request.urlopen(
            f"http://127.0.0.1:{self.port}{path}{sep}token={self.token}"
        ) as r:
            return json.loads(r.read())

    def close(self) -> None:
        self.proc.terminate()
        self.proc.communicate(timeout=60)


@pytest.fixture
def serve() -> Iterator[Callable[..., Board]]:
    started: list[Board] = []

    def start(root: Path, *options: str, env: dict[str, str] | None = None) -> Board:
        board = Board(root, *options, env=env)
        started.append(board)
        return board

    yield start
    for board in started:
        board.close()


def until(check: Callable[[], Any], what: str) -> Any:
    """Poll `check` until it answers something true, POLLS times at most."""
    for _ in range(POLLS):
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"not seen after {POLLS} polls: {what}")


def rendered(chromium: Any) -> bool:
    return bool(chromium.execute_script("return document.documentElement.dataset.rendered"))


def cards(chromium: Any) -> dict[str, tuple[str, str]]:
    """Each card of the board: its task's (column, status)."""
    return chromium.execute_script(
        "const found = {};"
        "for (const c of document.querySelectorAll('#board .card[data-task-id]'))"
        "  found[c.dataset.taskId] = [c.dataset.column, c.dataset.status];"
        "return found;"
    )


def file_statuses(root: Path) -> dict[str, str]:
    folder = root / ".workflow" / SID / ".task"
    return {p.stem: json.loads(p.read_text())["status"] for p in folder.glob("*.json")}


def opened(chromium: Any, project: Path, serve: Callable[..., Board]) -> Board:
    """The forty-task session served, its page open and drawn."""
    forty(project)
    board = serve(project)
    chromium.get(board.url)
    until(lambda: rendered(chromium), "the first render")
    return board


@pytest.mark.slow
def test_the_page_shows_every_task_of_a_forty_task_session_as_its_file_holds_it(
    chromium: Any, project: Path, serve: Callable[..., Board]
) -> None:
    opened(chromium, project, serve)
    shown = cards(chromium)
    statuses = file_statuses(project)
    assert len(statuses) == 40
    leaves = {tid: s for tid, s in statuses.items() if "." in tid}
    assert {tid: status for tid, (_, status) in shown.items() if tid in leaves} == leaves
    columns = {tid: column for tid, (column, _) in shown.items()}
    assert [columns[t] for t in ("IMPL-1.1", "IMPL-2.2", "IMPL-2.3", "IMPL-4.1", "IMPL-6.1")] == [
        "completed", "blocked", "pending", "active", "ready",
    ]  # fmt: skip
    nodes = chromium.find_elements("css selector", "#graph g.node[data-task-id]")
    edges = chromium.find_elements("css selector", "#graph path.edge")
    written = sum(
        len(json.loads(p.read_text()).get("context", {}).get("depends_on", []))
        for p in (project / ".workflow" / SID / ".task").glob("*.json")
    )
    assert (len(nodes), len(edges)) == (40, written) == (40, 27)


@pytest.mark.slow
def test_a_status_set_by_another_process_shows_without_a_reload(
    chromium: Any, project: Path, serve: Callable[..., Board]
) -> None:
    opened(chromium, project, serve)
    chromium.execute_script("window.notReloaded = true")
    assert cards(chromium)["IMPL-6.1"][0] == "ready"
    assert wfs_run(project, "task", "status", "IMPL-6.1", "blocked").code == 0
    until(lambda: cards(chromium)["IMPL-6.1"][0] == "blocked", "IMPL-6.1 blocked on the page")
    assert chromium.execute_script("return window.notReloaded") is True


@pytest.mark.slow
def test_two_tasks_run_by_jobs_2_show_as_running_with_their_steps(
    chromium: Any, project: Path, serve: Callable[..., Board], tmp_path: Path, git_env: Path
) -> None:
    go = tmp_path / "go"
    agent = tmp_path / "agent"
    agent.write_text(
        f"#!/bin/sh\ncat > /dev/null\nwhile [ ! -f {go} ]; do sleep 0.1; done\necho done\n"
    )
    agent.chmod(0o755)
    tasks = [{"id": f"IMPL-{n}", "title": f"Agent task {n}",
              "flow_control": {"implementation_approach": [step()]}} for n in (1, 2)]  # fmt: skip
    planned(project, tasks, git_repo=True)
    board = serve(project)
    chromium.get(board.url)
    until(lambda: rendered(chromium), "the first render")
    run = subprocess.Popen(
        [sys.executable, "-m", "wfs", "execute", "--all", "--jobs", "2"],
        cwd=project, env={**os.environ, "WFS_AGENT": str(agent)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:

        def running() -> dict[str, str] | None:
            rows = chromium.execute_script(
                "const found = {};"
                "for (const r of document.querySelectorAll('#running tr.running[data-task-id]'))"
                "  found[r.dataset.taskId] = r.querySelector('.step').textContent;"
                "return found;"
            )
            return rows if len(rows) == 2 and all(rows.values()) else None

        rows = until(running, "both tasks running, with their step")
        assert sorted(rows) == ["IMPL-1", "IMPL-2"]
        assert all("work" in text or "implementation_approach" in text for text in rows.values())
    finally:
        go.touch()
        out, err = run.communicate(timeout=300)
    assert run.returncode == 0, out + err
    until(lambda: {c for c, _ in cards(chromium).values()} == {"completed"}, "both completed")


@pytest.mark.slow
def test_a_hostile_title_is_shown_as_text_and_runs_nothing(
    chromium: Any, project: Path, serve: Callable[..., Board]
) -> None:
    hostile = [
        '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">',
        "javascript:window.pwned = 3",
        "bell\u0007 and escape\u001b[31m",
    ]
    planned(project, [{"id": f"IMPL-{n}", "title": t} for n, t in enumerate(hostile, 1)])
    board = serve(project)
    chromium.get(board.url)
    until(lambda: rendered(chromium), "the first render")
    assert chromium.execute_script("return window.pwned") is None
    titles = chromium.execute_script(
        "return [...document.querySelectorAll('#board .card .title')].map(e => e.textContent)"
    )
    assert hostile[0] in titles and hostile[1] in titles
    assert not chromium.find_elements("css selector", "#board img, #board script")
    assert not chromium.find_elements("css selector", "a[href^='javascript:']")


@pytest.mark.slow
def test_the_exported_file_opens_with_the_network_off_and_the_same_counts(
    chromium: Any, project: Path, serve: Callable[..., Board]
) -> None:
    forty(project)
    assert wfs_run(project, "board", "--export", "board.html").code == 0
    board = serve(project)
    counts = board.api(f"/api/board?session={SID}")["counts"]
    chromium.set_network_conditions(offline=True, latency=0, throughput=0)
    try:
        chromium.get((project / "board.html").as_uri())
        until(lambda: rendered(chromium), "the first render, offline")
        shown = chromium.execute_script(
            "const found = {};"
            "for (const c of document.querySelectorAll('#progress .count[data-column]'))"
            "  found[c.dataset.column] = Number(c.querySelector('b').textContent);"
            "return found;"
        )
        requests = chromium.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
        )
    finally:
        chromium.delete_network_conditions()
    assert {k: v for k, v in shown.items() if k != "total"} == counts
    assert requests == []


@pytest.mark.slow
def test_with_allow_actions_resume_works_and_a_request_without_the_token_is_refused(
    chromium: Any, project: Path, serve: Callable[..., Board], tmp_path: Path
) -> None:
    flag = tmp_path / "flag"
    tasks = [{"id": "IMPL-1", "title": "Needs the flag",
              "flow_control": {"implementation_approach": [step(f"bash(test -f {flag})")]}}]  # fmt: skip
    planned(project, tasks)
    assert wfs_run(project, "execute", "IMPL-1").code == 1  # blocked
    board = serve(project, "--allow-actions")
    request = urllib.request.Request(
        f"http://127.0.0.1:{board.port}/api/action",
        data=json.dumps({"action": "resume", "session": SID, "task": "IMPL-1"}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request)
    assert refused.value.code == 403
    assert file_statuses(project)["IMPL-1"] == "blocked"
    flag.touch()
    chromium.get(board.url)
    until(lambda: rendered(chromium), "the first render")
    button = until(
        lambda: chromium.find_elements(
            "css selector", "button.action-resume[data-task-id='IMPL-1']"
        ),
        "the resume button",
    )
    button[0].click()
    until(lambda: cards(chromium)["IMPL-1"][0] == "completed", "IMPL-1 completed on the page")
    assert file_statuses(project)["IMPL-1"] == "completed"


@pytest.mark.slow
def test_diff_html_shows_a_plan_change_as_boards_before_and_after(
    chromium: Any, project: Path, git_env: Path
) -> None:
    tasks = [{"id": "IMPL-1", "title": "one"},
             {"id": "IMPL-2", "title": "two <b>bold</b>", "depends_on": ["IMPL-1"]}]  # fmt: skip
    planned(project, tasks, git_repo=True)
    assert wfs_run(project, "task", "status", "IMPL-1", "completed").code == 0
    added = wfs_run(project, "task", "add", "--title", "three", "--depends-on", "IMPL-2")
    assert added.code == 0, added.err
    made = wfs_run(project, "diff", "--html", "change.html")
    assert (made.code, made.err) == (0, "Wrote change.html\n")
    chromium.set_network_conditions(offline=True, latency=0, throughput=0)
    try:
        chromium.get((project / "change.html").as_uri())
        assert chromium.find_element("id", "diff-title").text == (
            "Plan changes: HEAD → the working tree"
        )
        shown = {}
        for side in ("before", "after"):
            frame = chromium.find_element("css selector", f".side[data-side='{side}'] iframe")
            chromium.switch_to.frame(frame)
            until(lambda: rendered(chromium), f"the {side} board")
            shown[side] = cards(chromium)
            titles = chromium.execute_script(
                "return [...document.querySelectorAll('#board .card .title')]"
                ".map(e => e.textContent)"
            )
            assert "two <b>bold</b>" in titles  # as text
            chromium.switch_to.default_content()
    finally:
        chromium.delete_network_conditions()
    assert shown["before"] == {"IMPL-1": ["ready", "pending"], "IMPL-2": ["pending", "pending"]}
    assert shown["after"] == {
        "IMPL-1": ["completed", "completed"],
        "IMPL-2": ["ready", "pending"],
        "IMPL-3": ["pending", "pending"],
    }


# ------------------------------------------------ the first hour, round 2 (issue 45)


@pytest.mark.slow
def test_the_counts_are_the_cards_of_each_column_containers_included(
    chromium: Any, project: Path, serve: Callable[..., Board]
) -> None:
    opened(chromium, project, serve)
    counted = chromium.execute_script(
        "const found = {};"
        "for (const c of document.querySelectorAll('#progress .count[data-column]'))"
        "  found[c.dataset.column] = Number(c.querySelector('b').textContent);"
        "return found;"
    )
    columns = chromium.execute_script(
        "const found = {};"
        "for (const c of document.querySelectorAll('#board .column'))"
        "  found[c.dataset.column] = [c.querySelectorAll('.card').length,"
        "                             Number(c.querySelector('h2 .n').textContent)];"
        "return found;"
    )
    assert {column: n for column, (n, _) in columns.items()} == {
        column: n for column, (_, n) in columns.items()
    }
    assert counted == {column: n for column, (n, _) in columns.items()} | {"total": 40}
    assert counted["completed"] == 6  # IMPL-1.1 to 1.4, IMPL-2.1, and the group IMPL-1


@pytest.mark.slow
def test_a_task_waiting_for_an_agent_looks_apart_from_a_running_one(
    chromium: Any, project: Path, serve: Callable[..., Board], tmp_path: Path
) -> None:
    go = tmp_path / "go"
    agent = tmp_path / "agent"
    agent.write_text(
        f"#!/bin/sh\ncat > /dev/null\nwhile [ ! -f {go} ]; do sleep 0.1; done\necho ok\n"
    )
    agent.chmod(0o755)
    tasks = [{"id": f"IMPL-{n}", "title": f"Agent task {n}",
              "flow_control": {"implementation_approach": [step()]}} for n in (1, 2)]  # fmt: skip
    planned(project, tasks)
    assert wfs_run(project, "execute", "IMPL-1").code == 3  # no agent: it waits for one
    run = subprocess.Popen(
        [sys.executable, "-m", "wfs", "execute", "IMPL-2", "--agent", str(agent)],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        board = serve(project)
        chromium.get(board.url)
        until(lambda: rendered(chromium), "the first render")

        def looks() -> dict[str, list[str]] | None:
            found = chromium.execute_script(
                "const found = {};"
                "for (const id of ['IMPL-1', 'IMPL-2']) {"
                "  const card = document.querySelector(`#board .card[data-task-id='${id}']`);"
                "  const node = document.querySelector(`#graph g.node[data-task-id='${id}']`);"
                "  const state = card.querySelector('.state');"
                "  found[id] = [card.dataset.column, state ? state.textContent : '',"
                "    getComputedStyle(card).borderLeftStyle, node.querySelector('.nid').textContent,"
                "    getComputedStyle(node.querySelector('rect')).strokeDasharray];"
                "}"
                "return found;"
            )
            # Its lease is taken a moment before its file says active: both, then.
            running = found["IMPL-2"][1].startswith("\u25b6 running")
            return found if running and found["IMPL-2"][0] == "active" else None

        shown = until(looks, "IMPL-2 running on the page")
    finally:
        go.touch()
        run.communicate(timeout=300)
    waiting, running = shown["IMPL-1"], shown["IMPL-2"]
    assert waiting[:4] == ["active", "\u23f8 waiting", "dashed", "IMPL-1  \u23f8 waiting"]
    assert running[0] == "active" and running[2] == "solid"
    assert running[1] in (
        "\u25b6 running \u00b7 work",
        "\u25b6 running \u00b7 implementation_approach/1",
    )
    assert running[3] == "IMPL-2  \u25b6 running"
    assert waiting[4] != running[4]  # the waiting box is dashed
    # Read in one script: the live page may render the card anew between two calls.
    reason = chromium.execute_script(
        "return document.querySelector(\"#board .card[data-task-id='IMPL-1'] .reason\")"
        ".textContent;"
    )
    assert reason.strip() == "waiting for an agent"


@pytest.mark.slow
def test_the_page_without_its_token_names_the_url_and_the_printed_one_opens(
    chromium: Any, project: Path, serve: Callable[..., Board]
) -> None:
    planned(project, [{"id": "IMPL-1", "title": "one"}])
    board = serve(project)
    chromium.get(f"http://127.0.0.1:{board.port}/")
    heading = chromium.find_element("css selector", "h1").text
    assert heading == "Open the board with the URL wfs board printed"
    assert "run wfs board in the project again to see it" in chromium.find_element(
        "css selector", "main"
    ).text.replace("\n", " ")
    chromium.get(board.url)  # the URL it printed
    until(lambda: rendered(chromium), "the board")
    assert cards(chromium) == {"IMPL-1": ["ready", "pending"]}
