"""The cycles of a directed graph (tasks' dependencies, steps' dependencies), found
once each and shown in a stable order."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

_Node = TypeVar("_Node", bound=Hashable)


def find_cycles(
    nodes: list[_Node], graph: dict[_Node, list[_Node]], key: Callable[[_Node], Any]
) -> list[list[_Node]]:
    """Cycles met by a depth-first search, each once, rotated to start at its smallest
    node and closed (`[a, b, a]`)."""
    done: set[_Node] = set()
    found: list[list[_Node]] = []
    seen: set[tuple[_Node, ...]] = set()
    for start in nodes:
        if start in done:
            continue
        path: list[_Node] = [start]
        on_path = {start}
        pending = [iter(graph.get(start, []))]
        while pending:
            nxt = next(pending[-1], None)
            if nxt is None:
                node = path.pop()
                on_path.discard(node)
                done.add(node)
                pending.pop()
            elif nxt in on_path:
                cycle = _rotate(path[path.index(nxt) :], key)
                if tuple(cycle) not in seen:
                    seen.add(tuple(cycle))
                    found.append([*cycle, cycle[0]])
            elif nxt not in done:
                path.append(nxt)
                on_path.add(nxt)
                pending.append(iter(graph.get(nxt, [])))
    return found


def _rotate(cycle: list[_Node], key: Callable[[_Node], Any]) -> list[_Node]:
    turn = min(range(len(cycle)), key=lambda j: key(cycle[j]))
    return cycle[turn:] + cycle[:turn]
