"""Which ready task starts next when `wfs execute --all --jobs N` runs tasks at once.

Pure functions over the dependency graph of a session's leaf tasks (no files, no
processes), so the order can be tested on its own:

- `leaf_graph`: each leaf's dependencies, a container's dependency standing for every
  leaf under it;
- `remaining_paths`: how long the chain of work is that waits on each task (the task
  itself included), so the task on the longest remaining path goes first: it bounds how
  soon the whole plan can end;
- `start_order`: the ready tasks, longest remaining path first (ties: lowest id);
- `Plan`: what is ready as completions arrive, one task at a time (no waves: a task is
  ready as soon as its last dependency completes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from wfs.layout import task_sort_key
from wfs.tasks import TaskIndex, depends_on, parent_id


def leaf_graph(index: TaskIndex) -> dict[str, list[str]]:
    """Each leaf task's dependencies as leaves: its own and its parent's, a container
    replaced by the leaves under it (a dependency that names no task is left out)."""

    def leaves_of(tid: str, seen: frozenset[str] = frozenset()) -> list[str]:
        if tid not in index.by_id or tid in seen:
            return []
        kids = [k for k in index.children.get(tid, []) if k != tid]
        if not kids:
            return [tid]
        found: list[str] = []
        for kid in kids:
            found.extend(leaves_of(kid, seen | {tid}))
        return found

    graph: dict[str, list[str]] = {}
    for tid in index.leaves():
        task = index.by_id[tid]
        wanted = list(depends_on(task))
        parent = parent_id(task)
        if parent in index.by_id:
            wanted += depends_on(index.by_id[parent])
        deps: list[str] = []
        for dep in wanted:
            for leaf in leaves_of(dep):
                if leaf != tid and leaf not in deps:
                    deps.append(leaf)
        graph[tid] = deps
    return graph


def dependents(graph: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """The reverse of `graph`: for each task, the tasks that depend on it."""
    waiting: dict[str, list[str]] = {tid: [] for tid in graph}
    for tid, deps in graph.items():
        for dep in deps:
            waiting.setdefault(dep, []).append(tid)
    return waiting


def remaining_paths(
    graph: Mapping[str, Sequence[str]], cost: Mapping[str, float] | None = None
) -> dict[str, float]:
    """For each task, the cost of the longest chain that starts with it and follows the
    tasks that depend on it (each task costs `cost[tid]`, 1 when not given). A cycle is
    cut where it closes, so a malformed plan still gets an order."""
    after = dependents(graph)
    lengths: dict[str, float] = {}
    for start in sorted(after, key=task_sort_key):
        if start in lengths:
            continue
        # Depth first without recursion: a plan may chain thousands of tasks.
        stack: list[tuple[str, int]] = [(start, 0)]
        on_path = {start}
        while stack:
            tid, i = stack[-1]
            nexts = after.get(tid, [])
            if i < len(nexts):
                stack[-1] = (tid, i + 1)
                nxt = nexts[i]
                if nxt not in lengths and nxt not in on_path:
                    stack.append((nxt, 0))
                    on_path.add(nxt)
                continue
            stack.pop()
            on_path.discard(tid)
            own = 1.0 if cost is None else float(cost.get(tid, 1.0))
            longest = max((lengths[n] for n in nexts if n in lengths), default=0.0)
            lengths[tid] = own + longest
    return lengths


def start_order(ready: Iterable[str], lengths: Mapping[str, float]) -> list[str]:
    """The ready tasks in the order they start: longest remaining path first, then by
    id."""
    return sorted(ready, key=lambda tid: (-lengths.get(tid, 0.0), task_sort_key(tid)))


class Plan:
    """Readiness as completions arrive: `graph` gives each task's dependencies,
    `done` the tasks completed already, `waiting` the tasks that may still start."""

    def __init__(
        self,
        graph: Mapping[str, Sequence[str]],
        done: Iterable[str],
        waiting: Iterable[str],
        cost: Mapping[str, float] | None = None,
    ) -> None:
        self.graph = {tid: list(deps) for tid, deps in graph.items()}
        self.done = set(done)
        self.waiting = set(waiting)
        self.lengths = remaining_paths(self.graph, cost)

    def ready(self) -> list[str]:
        """The waiting tasks whose every dependency is done, in the order they start."""
        found = [
            tid for tid in self.waiting if all(dep in self.done for dep in self.graph.get(tid, []))
        ]
        return start_order(found, self.lengths)

    def started(self, tid: str) -> None:
        self.waiting.discard(tid)

    def completed(self, tid: str) -> list[str]:
        """Record that `tid` completed; returns what is ready now."""
        self.waiting.discard(tid)
        self.done.add(tid)
        return self.ready()

    def dropped(self, tid: str) -> None:
        """`tid` will not start (or stopped without completing): what waits on it
        stays waiting."""
        self.waiting.discard(tid)
