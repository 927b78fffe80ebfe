"""Create synthetic sessions of 100, 1,000 and 10,000 tasks for the benchmarks.

Realistic task JSON: every fifth main task is a container with three subtasks, each
task depends on one or two earlier ones, and each carries context, a pre_analysis step
and a three-step implementation_approach. About a third of the leaves are completed.

    python benchmarks/make_sessions.py DIR [SIZES...]
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson


def step(n: int, title: str) -> dict[str, Any]:
    return {
        "step": n,
        "title": f"{title}: part {n}",
        "description": f"Implement part {n} of {title} following [patterns] and [shared]",
        "modification_points": [f"src/module_{n}.py: add handler", "tests: cover the handler"],
        "logic_flow": ["validate input", "call the service", "return the result"],
        "depends_on": list(range(1, n)),
        "output": f"part_{n}",
        **({"command": "bash(true)"} if n == 3 else {}),
    }


def make_tasks(count: int, rng: random.Random) -> list[dict[str, Any]]:
    tasks: list[dict[str, Any]] = []
    main = 0
    while len(tasks) < count:
        main += 1
        container = main % 5 == 0 and count - len(tasks) >= 4
        ids = [f"IMPL-{main}"] + ([f"IMPL-{main}.{m}" for m in (1, 2, 3)] if container else [])
        for tid in ids:
            is_container = container and "." not in tid
            earlier = [t["id"] for t in tasks[-40:] if "." not in t["id"] and t["id"] != tid]
            deps = (
                rng.sample(earlier, k=min(len(earlier), rng.randint(0, 2)))
                if "." not in tid
                else []
            )
            title = f"Feature {tid.removeprefix('IMPL-')}: user-facing change"
            task: dict[str, Any] = {
                "id": tid,
                "title": title,
                "status": "container"
                if is_container
                else rng.choice(["completed", "pending", "pending"]),
                "meta": {"type": "feature", "agent": "@code-developer"},
                "context": {
                    "requirements": ["Keep the public API stable", f"Handle case {tid}"],
                    "focus_paths": ["src/app", "tests/app"],
                    "acceptance": ["Tests pass", "Docs updated"],
                    "depends_on": deps,
                    **({"parent": tid.rsplit(".", 1)[0]} if "." in tid else {}),
                    "shared_context": {"style": "small functions"},
                },
                "flow_control": {
                    "pre_analysis": [
                        {
                            "step": "patterns",
                            "action": "Find patterns",
                            "command": "bash(true)",
                            "output_to": "patterns",
                        }
                    ],
                    "implementation_approach": [step(n, title) for n in (1, 2, 3)],
                },
            }
            tasks.append(task)
    return tasks[:count]


def session_tasks(count: int) -> list[dict[str, Any]]:
    """The tasks of the benchmark session of `count` tasks (the same on every call)."""
    tasks = make_tasks(count, random.Random(count))
    # Containers need all their subtasks: drop a trailing partial group.
    ids = {t["id"] for t in tasks}
    return [t for t in tasks if t["status"] != "container" or f"{t['id']}.1" in ids]


def make_session(root: Path, count: int) -> str:
    """A project at `root` holding one session of `count` tasks; returns its id."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".workflow").mkdir(exist_ok=True)  # what `wfs init --no-git` makes first
    plan = root / "plan.json"
    tasks = session_tasks(count)
    plan.write_bytes(orjson.dumps({"overview": "Synthetic benchmark session", "tasks": tasks}))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "wfs",
            "--root",
            str(root),
            "plan",
            f"Bench {count}",
            "--from",
            str(plan),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    plan.unlink()
    return done.stdout.strip()


def main() -> None:
    target = Path(sys.argv[1])
    sizes = [int(s) for s in sys.argv[2:]] or [100, 1000, 10000]
    for size in sizes:
        sid = make_session(target / f"s{size}", size)
        print(f"{target / f's{size}'}: {sid}")


if __name__ == "__main__":
    main()
