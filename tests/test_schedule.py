"""The order `wfs execute --all --jobs N` starts ready tasks in (wfs/flow/schedule.py)."""

from __future__ import annotations

from typing import Any

from wfs.flow.schedule import Plan, dependents, leaf_graph, remaining_paths, start_order
from wfs.tasks import TaskIndex

# A diamond with a long tail on one side:
#   1 -> 2 -> 4 -> 5 -> 6
#   1 -> 3 -> 4
#   7 (alone)
GRAPH = {
    "IMPL-1": [],
    "IMPL-2": ["IMPL-1"],
    "IMPL-3": ["IMPL-1"],
    "IMPL-4": ["IMPL-2", "IMPL-3"],
    "IMPL-5": ["IMPL-4"],
    "IMPL-6": ["IMPL-5"],
    "IMPL-7": [],
}


def test_remaining_path_counts_the_task_and_the_longest_chain_after_it() -> None:
    assert remaining_paths(GRAPH) == {
        "IMPL-1": 5.0,
        "IMPL-2": 4.0,
        "IMPL-3": 4.0,
        "IMPL-4": 3.0,
        "IMPL-5": 2.0,
        "IMPL-6": 1.0,
        "IMPL-7": 1.0,
    }


def test_remaining_path_weighs_tasks_by_their_cost() -> None:
    cost = {"IMPL-2": 10.0, "IMPL-7": 20.0}
    lengths = remaining_paths(GRAPH, cost)
    assert lengths["IMPL-1"] == 14.0  # 1 + 10 + 1 + 1 + 1
    assert lengths["IMPL-3"] == 4.0
    assert lengths["IMPL-7"] == 20.0


def test_a_cycle_is_cut_and_still_gets_lengths() -> None:
    lengths = remaining_paths({"IMPL-1": ["IMPL-2"], "IMPL-2": ["IMPL-1"]})
    assert sorted(lengths) == ["IMPL-1", "IMPL-2"]
    assert sorted(lengths.values()) == [1.0, 2.0]


def test_a_long_chain_needs_no_deep_recursion() -> None:
    chain = {f"IMPL-{n}": ([f"IMPL-{n - 1}"] if n > 1 else []) for n in range(1, 5001)}
    assert remaining_paths(chain)["IMPL-1"] == 5000.0


def test_dependents_reverse_the_graph() -> None:
    assert dependents(GRAPH)["IMPL-1"] == ["IMPL-2", "IMPL-3"]
    assert dependents(GRAPH)["IMPL-6"] == []


def test_longest_remaining_path_starts_first_ties_by_lowest_id() -> None:
    lengths = remaining_paths(GRAPH)
    assert start_order(["IMPL-7", "IMPL-3", "IMPL-1", "IMPL-2"], lengths) == [
        "IMPL-1",
        "IMPL-2",
        "IMPL-3",
        "IMPL-7",
    ]
    assert start_order(["IMPL-10", "IMPL-9"], {}) == ["IMPL-9", "IMPL-10"]  # numeric ids


def test_a_task_is_ready_as_soon_as_its_last_dependency_completes() -> None:
    plan = Plan(GRAPH, done=[], waiting=GRAPH)
    assert plan.ready() == ["IMPL-1", "IMPL-7"]
    plan.started("IMPL-1")
    plan.started("IMPL-7")
    assert plan.ready() == []
    assert plan.completed("IMPL-1") == ["IMPL-2", "IMPL-3"]
    plan.started("IMPL-2")
    plan.started("IMPL-3")
    assert plan.completed("IMPL-3") == []  # IMPL-4 still waits on IMPL-2
    assert plan.completed("IMPL-2") == ["IMPL-4"]  # no wave: IMPL-7 is still running
    plan.started("IMPL-4")
    assert plan.completed("IMPL-4") == ["IMPL-5"]


def test_a_task_that_does_not_complete_keeps_what_waits_on_it_waiting() -> None:
    plan = Plan(GRAPH, done=["IMPL-1"], waiting=set(GRAPH) - {"IMPL-1"})
    assert plan.ready() == ["IMPL-2", "IMPL-3", "IMPL-7"]
    for tid in ("IMPL-2", "IMPL-3", "IMPL-7"):
        plan.started(tid)
    plan.dropped("IMPL-2")
    assert plan.completed("IMPL-3") == []
    assert plan.completed("IMPL-7") == []
    assert "IMPL-4" in plan.waiting


def test_work_already_done_counts_and_started_tasks_do_not_start_again() -> None:
    plan = Plan(GRAPH, done=["IMPL-1", "IMPL-2", "IMPL-3"], waiting=["IMPL-4", "IMPL-5"])
    assert plan.ready() == ["IMPL-4"]
    plan.started("IMPL-4")
    assert plan.ready() == []


def task(tid: str, **fields: Any) -> dict[str, Any]:
    return {"id": tid, "title": tid, "status": "pending", **fields}


def test_leaf_graph_reads_dependencies_wherever_they_are_written_and_expands_containers() -> None:
    index = TaskIndex(
        [
            task("IMPL-1"),
            task("IMPL-2"),
            task("IMPL-2.1"),
            task("IMPL-2.2", context={"depends_on": ["IMPL-2.1"]}),
            task("IMPL-3", depends_on=["IMPL-2"]),
            task("IMPL-4", dependencies=["IMPL-1", "IMPL-9"]),
            task("IMPL-5", context={"parent": "IMPL-2"}, depends_on=[]),
        ]
    )
    graph = leaf_graph(index)
    assert "IMPL-2" not in graph  # a container does not run
    assert graph["IMPL-2.2"] == ["IMPL-2.1"]
    assert sorted(graph["IMPL-3"]) == ["IMPL-2.1", "IMPL-2.2", "IMPL-5"]
    assert graph["IMPL-4"] == ["IMPL-1"]  # a dependency naming no task is left out
