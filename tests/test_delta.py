"""Writes by parts (wfs/delta.py) give the same bytes as a full render and the same
answers as a full derivation, after random sequences of edits."""

from __future__ import annotations

import contextlib
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import wfs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wfs import delta, edit, index, render
from wfs.errors import WfsError
from wfs.layout import Layout, task_sort_key
from wfs.schemas import LEAF_STATUSES
from wfs.sessions import load_session

SID = "WFS-delta"


def _session(root: Path, mains: int) -> Layout:
    assert wfs("init", "--no-git").code == 0
    tasks = []
    for n in range(1, mains + 1):
        task: dict[str, Any] = {"id": f"IMPL-{n}", "title": f"Task {n} | with a pipe"}
        if n > 2:
            task["context"] = {"depends_on": [f"IMPL-{n - 1}"], "acceptance": [f"done {n}"]}
        tasks.append(task)
        if n % 3 == 0:
            tasks += [{"id": f"IMPL-{n}.{m}", "title": f"Sub {n}.{m}"} for m in (1, 2)]
    plan = root / "plan.json"
    plan.write_text(json.dumps({"tasks": tasks}))
    assert wfs("plan", "delta", "--from", str(plan)).code == 0
    assert (root / ".workflow" / SID).is_dir()
    return Layout(root)


def _full(layout: Layout) -> tuple[dict[str, str], dict[str, Any]]:
    """The views and answers derived from every file, ignoring every cache."""
    session = load_session(layout, SID)
    skeletons = index.Snapshot(layout, SID).skeletons
    folder = layout.session_dir(SID)
    views = render.render_views(session, skeletons, None, render.kept_views(folder))
    return views, index.compute_answers(SID, session, skeletons)


def _check(layout: Layout) -> bool:
    """The views on disk are the full render; the saved answers, when current, are the
    full derivation. Returns whether they were current."""
    views, answers = _full(layout)
    folder = layout.session_dir(SID)
    for name, text in views.items():
        assert (folder / name).read_text(encoding="utf-8") == text, name
    saved = index.cached_answers(str(layout.workflow), SID, folder=str(folder))
    if saved is not None:
        assert saved == answers
        # What `--json` prints, and the order of the tasks, in order too.
        for key in ("summary", "next", "ready_rows", "status"):
            assert json.dumps(saved[key]) == json.dumps(answers[key]), key
    return saved is not None


def _settle() -> None:
    time.sleep(index.FINE_MARGIN_NS / 1e9 * 1.5)  # stamps become trusted


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_edits_by_parts_match_a_full_render(
    project: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    layout = _session(project, 12)
    by_parts = []
    real_write = delta.write
    monkeypatch.setattr(delta, "write", lambda *a, **k: by_parts.append(1) or real_write(*a, **k))
    _settle()
    edit.set_status(layout, SID, "IMPL-1", "pending")  # a full write records the state
    rnd = random.Random(seed)
    current = 0
    for step in range(60):
        if step % 6 == 0:
            _settle()
        ids = sorted(index.compute_answers(SID, {}, index.load_skeletons(layout, SID))["status"])
        answers = _full(layout)[1]
        leaves = [t for t in ids if t not in answers["children"]]
        mains = [t for t in ids if "." not in t]
        choice = rnd.random()
        if choice < 0.5:
            edit.set_status(layout, SID, rnd.choice(leaves), rnd.choice(LEAF_STATUSES))
        elif choice < 0.65:
            parent = rnd.choice([None, None, rnd.choice(mains)])
            try:
                edit.add_task(layout, SID, {"title": f"added {step}"}, parent=parent)
            except Exception as err:  # a started task cannot be split: refused, unchanged
                assert "only a pending or blocked task can be split" in str(err)
        elif choice < 0.85:
            tid = rnd.choice(ids)
            changes: dict[str, Any] = {"title": f"renamed {step} `x` | y"}
            if rnd.random() < 0.5:
                changes["context"] = {"acceptance": [f"check {step}", "and |this|"]}
            if rnd.random() < 0.3:
                changes["meta"] = {"agent": rnd.choice(["@code-developer", "@test-fix-agent"])}
            edit.update_task(layout, SID, tid, changes)
        else:
            tid = rnd.choice(leaves)
            with edit.editing(layout, SID, check=False) as draft:
                task = draft.get(tid)
                draft.put(
                    {
                        **task,
                        "status": "blocked",
                        "execution": {"blocked_reason": f"stopped at {step}", "step": "s1"},
                    }
                )
        current += _check(layout)
    # Most writes went by parts, and kept the index current for the readers.
    assert len(by_parts) >= 20
    assert current >= 20


@pytest.mark.slow
def test_a_view_edited_by_hand_is_rendered_in_full_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = _session(project, 4)
    _settle()
    edit.set_status(layout, SID, "IMPL-1", "pending")
    plan = layout.session_dir(SID) / "IMPL_PLAN.md"
    plan.write_text(plan.read_text().replace("Task 2", "Task two"))
    by_parts = []
    real_write = delta.write
    monkeypatch.setattr(delta, "write", lambda *a, **k: by_parts.append(1) or real_write(*a, **k))
    _settle()
    edit.set_status(layout, SID, "IMPL-2", "completed")
    assert by_parts == []
    _check(layout)


@pytest.mark.slow
def test_dependents_become_ready_and_wait_again(project: Path) -> None:
    layout = _session(project, 5)
    _settle()
    edit.set_status(layout, SID, "IMPL-1", "pending")
    assert "IMPL-4" not in _full(layout)[1]["summary"]["ready"]
    edit.set_status(layout, SID, "IMPL-3.1", "completed")
    edit.set_status(layout, SID, "IMPL-3.2", "completed")
    edit.set_status(layout, SID, "IMPL-2", "completed")
    assert _check(layout)
    ready = index.cached_answers(str(layout.workflow), SID)["summary"]["ready"]  # type: ignore[index]
    assert "IMPL-4" in ready  # its dependency IMPL-3, a container, is completed
    edit.set_status(layout, SID, "IMPL-3.2", "blocked")
    assert _check(layout)
    answers = index.cached_answers(str(layout.workflow), SID)
    assert answers is not None
    assert answers["status"]["IMPL-3"] == "blocked"
    assert answers["waiting"]["IMPL-4"] == ["IMPL-3"]
    assert "IMPL-4" not in answers["summary"]["ready"]


@pytest.mark.slow
def test_a_status_wfs_does_not_know_is_counted_as_a_full_render_counts_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = _session(project, 4)
    task_file = layout.task_file(SID, "IMPL-2")
    task_file.write_text(task_file.read_text().replace('"pending"', '"in_review"'))
    _settle()
    edit.set_status(layout, SID, "IMPL-1", "completed")  # a full write records the state
    by_parts = []
    real_write = delta.write
    monkeypatch.setattr(delta, "write", lambda *a, **k: by_parts.append(1) or real_write(*a, **k))
    _settle()
    edit.set_status(layout, SID, "IMPL-3.1", "completed")  # by parts: in_review stays counted
    assert by_parts == [1]
    assert _check(layout)
    _settle()
    edit.set_status(layout, SID, "IMPL-2", "completed")  # in_review leaves: the full way
    assert by_parts == [1]
    assert _check(layout)
    counts = index.cached_answers(str(layout.workflow), SID)["summary"]["counts"]  # type: ignore[index]
    assert "in_review" not in counts


@pytest.mark.slow
def test_an_invalid_task_set_back_to_pending_is_invalid_again(project: Path) -> None:
    """A task's errors are not counted while it is not pending; they are when it is."""
    layout = _session(project, 3)
    path = layout.task_file(SID, "IMPL-1")
    data = json.loads(path.read_text())
    data["context"] = {"focus_paths": ["src/**"]}  # a glob: one validation error
    path.write_text(json.dumps(data))
    invalid = [
        {
            "id": "IMPL-1",
            "state": "invalid",
            "reason": "1 validation error; `wfs validate` names them",
            "error": f".workflow/{SID}/.task/IMPL-1.json#/context/focus_paths/0: focus-paths: "
            "focus path \"src/**\" contains the wildcard '*'; list concrete directories or "
            "files instead",
        }
    ]
    _settle()
    assert wfs("status", "--json").json()["stopped"] == invalid
    for status in ("completed", "blocked", "pending"):
        assert wfs("task", "status", "IMPL-1", status).code == 0
        _check(layout)  # the views, and the answers when saved, equal a full derivation
    summary = wfs("status", "--json").json()
    assert summary["stopped"] == invalid
    assert "IMPL-1" not in summary["ready"]


# Titles that Markdown, Mermaid, the table and the terminal treat specially.
odd_titles = st.lists(
    st.sampled_from(
        ["a | b", "`x`", "*", "**y**", "🚀", "✅ → [📋](./.task/IMPL-1.json)", '"q"', "\x1b[2J"]
    )
    | st.text(st.characters(blacklist_categories=("Cs",)), max_size=6),
    min_size=1,
    max_size=4,
).map(lambda title: "".join(title) if "".join(title).strip() else "x" + "".join(title))
edits = st.lists(
    st.tuples(
        st.sampled_from(["status", "status", "add", "add-sub", "update", "block"]),
        st.integers(0, 1000),
        st.sampled_from(LEAF_STATUSES),
        odd_titles,
    ),
    min_size=1,
    max_size=8,
)


@pytest.mark.slow
def test_any_edits_by_parts_give_the_bytes_of_a_full_render(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    by_parts = []
    real_write = delta.write
    monkeypatch.setattr(delta, "write", lambda *a, **k: by_parts.append(1) or real_write(*a, **k))
    roots = iter(range(10**6))
    done = []
    changed: list[str] = []

    @settings(
        max_examples=30,
        deadline=None,
        derandomize=True,  # the share of edits by parts below is counted, not a law: fixed
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(st.lists(odd_titles, min_size=2, max_size=5), edits)
    def run(titles: list[str], steps: list[tuple[str, int, str, str]]) -> None:
        root = tmp_path / str(next(roots))
        root.mkdir()
        with contextlib.chdir(root):
            assert wfs("init", "--no-git").code == 0
            tasks: list[dict[str, Any]] = [
                {"id": f"IMPL-{n}", "title": t, "context": {"depends_on": [f"IMPL-{n - 1}"]}}
                for n, t in enumerate(titles, start=1)
            ]
            tasks[0]["context"] = {"acceptance": titles}
            tasks.append({"id": "IMPL-1.1", "title": titles[-1]})
            (root / "plan.json").write_text(json.dumps({"tasks": tasks}))
            assert wfs("plan", "delta", "--from", "plan.json").code == 0
            layout = Layout(root)
            _settle()
            edit.set_status(layout, SID, "IMPL-1.1", "pending")  # records the state
            for kind, n, status, title in steps:
                # Every edit starts from stamps old enough to be trusted, so that whether
                # it goes by parts depends on the edit alone, never on the machine's speed.
                _settle()
                answers = _full(layout)[1]
                ids = sorted(answers["status"])
                leaves = [t for t in ids if t not in answers["children"]]
                mains = [t for t in ids if "." not in t]
                try:
                    if kind == "status":
                        leaf = leaves[n % len(leaves)]
                        if answers["status"][leaf] != status:
                            changed.append(leaf)  # the same status again writes nothing
                        edit.set_status(layout, SID, leaf, status)
                    elif kind in ("add", "add-sub"):
                        parent = mains[n % len(mains)] if kind == "add-sub" else None
                        fields: dict[str, Any] = {"title": title}
                        # An earlier task: a later one may wait for the parent.
                        others = [
                            t
                            for t in leaves
                            if parent is None or task_sort_key(t) < task_sort_key(parent)
                        ]
                        if n % 2 and others:
                            fields["context"] = {"depends_on": [others[n % len(others)]]}
                        edit.add_task(layout, SID, fields, parent=parent)
                    elif kind == "update":
                        changes: dict[str, Any] = {"title": title}
                        if n % 2:
                            changes["context"] = {"acceptance": [title, f"{n} | {title}"]}
                        if n % 3 == 0:
                            agents = ["@code-developer", "@test-fix-agent", "@universal-executor"]
                            changes["meta"] = {"agent": agents[n // 3 % 3]}
                        edit.update_task(layout, SID, ids[n % len(ids)], changes)
                    else:
                        with edit.editing(layout, SID, check=False) as draft:
                            task = draft.get(leaves[n % len(leaves)])
                            reason = {"blocked_reason": title, "step": "s1"}
                            draft.put({**task, "status": "blocked", "execution": reason})
                except WfsError as err:  # a started task cannot be split: refused
                    assert "only a pending or blocked task can be split" in str(err)
                _check(layout)
                done.append(kind)

    run()
    # Many writes went by parts: every status change, and most other edits.
    assert len(by_parts) >= max(len(changed), len(done) // 3), len(done)
