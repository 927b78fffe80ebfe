"""Property tests (hypothesis) for the invariants everything else relies on."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wfs.errors import WfsError
from wfs.flow.variables import substitute_shell
from wfs.layout import check_topic, parse_task_id, session_id_candidates, task_sort_key
from wfs.render import render_views
from wfs.tasks import TaskIndex

SESSION_ID = re.compile(r"WFS-[a-z0-9]+(-[a-z0-9]+)*")


@pytest.mark.slow
@given(st.text(max_size=300))
def test_slugs_are_always_valid_and_short(topic: str) -> None:
    try:
        slug = check_topic(topic)
    except WfsError:
        return
    candidates = session_id_candidates(slug)[:50]
    for sid in candidates:
        assert SESSION_ID.fullmatch(sid), sid
        assert len(sid) <= 50
    assert len(set(candidates)) == len(candidates)


ids = st.tuples(st.integers(0, 10**6), st.none() | st.integers(0, 10**6))


@pytest.mark.slow
@given(st.lists(ids, max_size=40))
def test_task_ids_parse_back_and_sort_numerically(parts: list[tuple[int, int | None]]) -> None:
    texts = [f"IMPL-{a}" if b is None else f"IMPL-{a}.{b}" for a, b in parts]
    for text, (a, b) in zip(texts, parts, strict=True):
        assert parse_task_id(text) == (a, b)
    ordered = sorted(texts, key=task_sort_key)
    numeric = [(a, -1 if b is None else b) for a, b in (parse_task_id(t) for t in ordered)]  # type: ignore[misc]
    assert numeric == sorted(numeric)


shell_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=60
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(blacklist_characters="["), max_size=200))
def test_a_command_without_a_token_is_run_as_written(command: str) -> None:
    """Nothing in it is a `[name]`, nor another spelling of a known name: bash gets it
    byte for byte, with no variable."""
    shell = substitute_shell(command, {"v": "value"} if "v" not in command else {})
    assert (shell.script, shell.env, shell.files) == (command, {}, {})


@given(shell_text)
def test_any_substituted_value_reaches_the_command_byte_exact(value: str) -> None:
    shell = substitute_shell("printf '%s\\0' [v] \"[v]\" '[v]'", {"v": value})
    out = subprocess.run(
        ["bash", "-c", shell.script],
        env={**os.environ, **shell.env},
        capture_output=True,
        check=True,
        cwd=Path.cwd(),
    ).stdout
    assert out == (value.encode() + b"\0") * 3


statuses = st.sampled_from(["pending", "active", "completed", "blocked"])


@st.composite
def task_sets(draw: st.DrawFn) -> list[dict[str, object]]:
    """Main tasks, some split into subtasks, with random dependencies and statuses."""
    mains = draw(st.integers(1, 8))
    tasks: list[dict[str, object]] = []
    for n in range(1, mains + 1):
        subs = draw(st.integers(0, 3))
        tasks.append(
            {
                "id": f"IMPL-{n}",
                "title": draw(st.text(max_size=20)),
                "status": "container" if subs else draw(statuses),
            }
        )
        for m in range(1, subs + 1):
            tasks.append(
                {
                    "id": f"IMPL-{n}.{m}",
                    "title": draw(st.text(max_size=20)),
                    "status": draw(statuses),
                }
            )
    all_ids = [str(t["id"]) for t in tasks]
    for task in tasks:
        deps = draw(st.lists(st.sampled_from(all_ids), max_size=3, unique=True))
        # A subtask never waits for its own parent: IMPL-N.M after IMPL-N is a gate, a
        # task of its own (wfs.formats.is_gate).
        parent = str(task["id"]).rsplit(".", 1)[0]
        task["context"] = {"depends_on": [d for d in deps if d not in (task["id"], parent)]}
    return tasks


def completed_through(index: TaskIndex, tid: str) -> bool:
    kids = index.children.get(tid)
    if kids:
        return all(completed_through(index, k) for k in kids)
    return index.by_id[tid].get("status") == "completed"


@pytest.mark.slow
@given(task_sets())
def test_ready_tasks_never_have_an_unfinished_dependency(tasks: list[dict[str, object]]) -> None:
    index = TaskIndex(tasks)  # type: ignore[arg-type]
    for tid in index.ready():
        task = index.by_id[tid]
        assert task["status"] == "pending" and not index.is_container(tid)
        parent = tid.rsplit(".", 1)[0] if "." in tid else None
        wanted = list(task["context"]["depends_on"])
        if parent:
            wanted += index.by_id[parent]["context"]["depends_on"]
        assert all(completed_through(index, dep) for dep in wanted)


@pytest.mark.slow
@given(task_sets(), st.randoms())
def test_rendering_is_deterministic(tasks: list[dict[str, object]], rng: object) -> None:
    session = {
        "session_id": "WFS-p",
        "project": "P",
        "type": "simple",
        "current_phase": "PLAN",
        "status": "active",
        "progress": {"completed_phases": [], "current_tasks": []},
    }
    first = render_views(session, tasks)  # type: ignore[arg-type]
    shuffled = list(tasks)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    assert render_views(dict(session), shuffled) == first  # type: ignore[arg-type]
