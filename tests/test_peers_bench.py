"""The pure parts of benchmarks/peers.py: the peers' data and the table (no npm, no network)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

import peers  # noqa: E402
from make_sessions import session_tasks  # noqa: E402


def front_matter(text: str) -> dict[str, Any]:
    assert text.startswith("---\n")
    head, _, body = text[4:].partition("\n---\n")
    assert body, "no end of the front matter"
    parsed: dict[str, Any] = yaml.safe_load(head)
    return parsed


def test_session_tasks_are_the_same_on_every_call() -> None:
    assert session_tasks(100) == session_tasks(100)
    assert len(session_tasks(100)) == 100


def test_taskmaster_file_holds_every_task_in_the_tagged_format(tmp_path: Path) -> None:
    tasks = session_tasks(100)
    peers.write_taskmaster(tmp_path, tasks)
    data = json.loads((tmp_path / ".taskmaster/tasks/tasks.json").read_text())
    config = json.loads((tmp_path / ".taskmaster/config.json").read_text())
    assert config["global"]["anonymousTelemetry"] is False
    assert list(data) == ["master"]
    assert set(data["master"]) == {"tasks", "metadata"}
    mains = data["master"]["tasks"]
    subs = [s for t in mains for s in t["subtasks"]]
    assert len(mains) + len(subs) == len(tasks) == 100
    ids = [t["id"] for t in mains]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for t in mains:
        assert {"id", "title", "description", "status", "dependencies", "subtasks"} <= set(t)
        assert t["status"] in {"pending", "done"}
        assert all(d in ids and d < t["id"] for d in t["dependencies"])
        assert [s["id"] for s in t["subtasks"]] in ([], [1, 2, 3])
        assert all(s["parentTaskId"] == t["id"] for s in t["subtasks"])
    by_id = {t["id"]: t for t in mains}
    assert by_id[7]["title"] == "Feature 7: user-facing change"
    # A parent is done exactly when all its subtasks are.
    for t in mains:
        if t["subtasks"]:
            done = all(s["status"] == "done" for s in t["subtasks"])
            assert (t["status"] == "done") == done
    source = {x["id"]: x for x in tasks}
    assert (
        by_id[4]["status"]
        == {"completed": "done", "pending": "pending"}[source["IMPL-4"]["status"]]
    )


def test_backlog_names_files_as_backlog_does() -> None:
    # Names Backlog.md 1.52.0 gave these titles when it created the tasks itself.
    assert (
        peers.backlog_filename("TASK-1", "Feature 1: user-facing change")
        == "task-1 - Feature-1-user-facing-change.md"
    )
    assert peers.backlog_filename("TASK-2.1", "Sub 2.1") == "task-2.1 - Sub-2.1.md"
    assert peers.backlog_filename("TASK-3", "It's (a) test!") == "task-3 - Its-a-test.md"


def test_backlog_files_parse_back(tmp_path: Path) -> None:
    tasks = session_tasks(100)
    peers.write_backlog(tmp_path, tasks)
    config = yaml.safe_load((tmp_path / "backlog/config.yml").read_text())
    assert config["statuses"] == ["To Do", "In Progress", "Done"]
    assert config["task_prefix"] == "task"
    files = sorted((tmp_path / "backlog/tasks").glob("task-*.md"))
    assert len(files) == 100
    fronts = {}
    for path in files:
        front = front_matter(path.read_text())
        assert path.name == peers.backlog_filename(front["id"], front["title"])
        fronts[front["id"]] = front
    seven = fronts["TASK-7"]
    assert seven["title"] == "Feature 7: user-facing change"
    assert seven["status"] in {"To Do", "Done"}
    assert all(d in fronts for d in seven["dependencies"])
    assert fronts["TASK-5.2"]["parent_task_id"] == "TASK-5"
    assert "parent_task_id" not in fronts["TASK-5"]
    text = next(p for p in files if p.name.startswith("task-7 - ")).read_text()
    assert "<!-- AC:BEGIN -->\n- [ ] #1 Tests pass\n- [ ] #2 Docs updated\n<!-- AC:END -->" in text
    assert "<!-- SECTION:DESCRIPTION:BEGIN -->\nKeep the public API stable" in text


def test_backlog_quotes_titles_that_yaml_would_misread() -> None:
    task = session_tasks(100)[0] | {"title": "It's: a 'test' # not a comment"}
    name, text = peers.backlog_task(task, "pending", 1000)
    front = front_matter(text)
    assert front["title"] == "It's: a 'test' # not a comment"
    assert front["status"] == "To Do"
    assert front["dependencies"] == []
    assert front["ordinal"] == 1000


def row(wfs: float | None, tm: float | None, bl: float | None) -> peers.Row:
    def cell(value: float | None) -> peers.Cell:
        return peers.Cell(value) if value is not None else peers.Cell(note="failed: exit 1")

    return peers.Row(
        "list", "ms", {"wfs": cell(wfs), "task-master": cell(tm), "Backlog.md": cell(bl)}
    )


def test_ratio_is_wfs_over_the_best_working_peer() -> None:
    assert peers.ratio(row(0.01, 4.0, 0.4)) == 0.01 / 0.4
    assert peers.ratio(row(0.01, 0.2, 0.4)) == 0.01 / 0.2
    assert peers.ratio(row(0.01, None, 0.4)) == 0.01 / 0.4
    assert peers.ratio(row(None, 0.2, 0.4)) is None
    assert peers.ratio(row(0.01, None, None)) is None


def test_table_marks_the_goal_and_writes_failures_in_their_cells() -> None:
    rows = [
        row(0.01, 4.0, 0.4),  # 0.025
        row(0.1, 4.0, 0.4),  # 0.25
        row(0.01, 4.0, None),
        peers.Row(
            "peak RSS of list",
            "MiB",
            {
                "wfs": peers.Cell(18 * 1024),
                "task-master": peers.Cell(300 * 1024),
                "Backlog.md": peers.Cell(note="n/a"),
            },
        ),
    ]
    lines = peers.table(1000, rows)
    assert lines[0].count("|") == 8
    assert lines[2] == "| list | 10.0 ms | 4000.0 ms | 400.0 ms | 0.025 | ≤ 0.1 | yes |"
    assert lines[3] == "| list | 100.0 ms | 4000.0 ms | 400.0 ms | 0.250 | ≤ 0.1 | no |"
    assert lines[4] == "| list | 10.0 ms | 4000.0 ms | failed: exit 1 | 0.003 | ≤ 0.1 | yes |"
    # The memory of list, and any row at a size the goal is not set for, are only shown.
    assert lines[5] == "| peak RSS of list | 18.0 MiB | 300.0 MiB | n/a | 0.060 | - | - |"
    assert peers.table(100, rows)[3] == "| list | 100.0 ms | 4000.0 ms | 400.0 ms | 0.250 | - | - |"
    failed = peers.table(10000, [row(None, 4.0, 0.4)])[2]
    assert failed == "| list | failed: exit 1 | 4000.0 ms | 400.0 ms | - | - | - |"


def test_failure_notes_cannot_break_the_table() -> None:
    note = peers.failure_note("exit status 1: a | b\nc")
    assert "|" not in note and "\n" not in note
    assert note.startswith("failed: ")


def test_checks_read_the_effect_on_the_files(tmp_path: Path) -> None:
    tasks = session_tasks(100)
    peers.write_taskmaster(tmp_path, tasks)
    peers.write_backlog(tmp_path, tasks)
    ok = peers.Outcome(0.1, 0)
    pending = next(t["id"] for t in tasks if t["status"] == "pending" and "." not in t["id"])
    n = peers.peer_id(pending)
    assert peers.tm_status_is(int(n), "pending")(ok, tmp_path) is None
    assert peers.tm_status_is(int(n), "done")(ok, tmp_path) is not None
    assert peers.backlog_status_is(n, "To Do")(ok, tmp_path) is None
    assert peers.backlog_status_is(n, "Done")(ok, tmp_path) is not None
    assert peers.backlog_added(100)(ok, tmp_path) is not None  # nothing was added
    assert "exit status 2" in (
        peers.tm_status_is(int(n), "pending")(peers.Outcome(0.1, 2), tmp_path) or ""
    )
    missing = peers.Op([], peers.tm_status_is(99999, "done"))
    assert "StopIteration" in (peers.verdict(missing, ok, tmp_path) or "")


def test_report_has_a_table_per_size_and_a_summary() -> None:
    rows = [row(0.01, 4.0, 0.4), row(0.1, 4.0, 0.4)]
    text = peers.report(
        {100: (5, rows), 1000: (5, rows[:1]), 10000: (3, rows[1:])},
        {"wfs": "0.1.0", "node": "v20"},
        {"`python -c pass`": 0.02},
        12.0,
    )
    assert "## 100 tasks (medians of 5 runs)" in text
    assert "## 10,000 tasks (medians of 3 runs)" in text
    assert "Medians of 5 or 3 runs" in text
    assert f"task-master-ai {peers.TASKMASTER_VERSION}" in text
    assert "- 100 tasks:" not in text  # shown, not judged
    assert "- 1,000 tasks: 1 of 1 operations meet the goal." in text
    assert "- 10,000 tasks: 0 of 1 operations meet the goal; missed: list." in text
