"""Time the board's page to its first render in headless Chromium; write BOARD.md.

The figure is the page's own mark: board.js calls performance.mark('wfs-rendered') once
the graph is laid out and drawn, the columns and the running tasks filled, and the
browser's layout done; its startTime counts from the start of the navigation, so it
includes parsing the page, dagre's layout and our drawing. The baseline B is the same
page for an empty session, loaded in the same run, the sizes taking turns.

The pages are the exported form (the template rendered with the board data and no
token: what `wfs board --export` writes), opened as files, so no server is timed. The
board data is made here from the benchmark's synthetic session
(make_sessions.session_tasks) the way the contract describes it.

    python benchmarks/board.py [--runs N] [--sizes 0,100,1000]
    python benchmarks/board.py --screenshot docs/board.png   # the example plan's board
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests"))

import browser  # noqa: E402
import orjson  # noqa: E402
from make_sessions import session_tasks  # noqa: E402

SESSION = "WFS-bench"


def parent_of(task_id: str) -> str | None:
    return task_id.rsplit(".", 1)[0] if "." in task_id else None


def board_from_tasks(
    tasks: list[dict[str, Any]], session: str, topic: str, claims: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Board data in the contract's shape for task JSON (what wfs/board/data.py gives)."""
    claims = claims or {}
    by_id = {t["id"]: t for t in tasks}
    children: dict[str, list[str]] = {}
    for t in tasks:
        parent = parent_of(t["id"])
        if parent in by_id:
            children.setdefault(parent, []).append(t["id"])
    depends = {t["id"]: list(t.get("context", {}).get("depends_on") or []) for t in tasks}

    def done(tid: str) -> bool:
        if tid in children:
            return all(done(c) for c in children[tid])
        return by_id[tid].get("status") == "completed"

    def column(tid: str) -> str:
        if tid in children:
            kids = [column(c) for c in children[tid]]
            for c in ("completed", "blocked", "active"):
                if all(k == c for k in kids) or (c != "completed" and c in kids):
                    return c
            return "ready" if "ready" in kids else "pending"
        status = by_id[tid].get("status") or "pending"
        if status in ("completed", "blocked", "active"):
            return status
        return "ready" if all(done(d) for d in depends[tid] if d in by_id) else "pending"

    # The critical path: the longest chain of unfinished tasks along depends_on.
    memo: dict[str, list[str]] = {}

    def chain(tid: str) -> list[str]:
        if tid not in memo:
            before = max(
                (chain(d) for d in depends[tid] if d in by_id and not done(d)), key=len, default=[]
            )
            memo[tid] = [*before, tid]
        return memo[tid]

    open_tasks = [t["id"] for t in tasks if not done(t["id"])]
    critical = max((chain(t) for t in open_tasks), key=len, default=[])
    board = []
    for t in tasks:
        tid = t["id"]
        col = column(tid)
        waiting = [d for d in depends[tid] if d in by_id and not done(d)]
        board.append(
            {
                "id": tid,
                "title": t["title"],
                "column": col,
                "status": t.get("status") or ("container" if tid in children else "pending"),
                "parent": parent_of(tid) if parent_of(tid) in by_id else None,
                "container": tid in children,
                "depends_on": depends[tid],
                "waiting_on": waiting,
                "reason": None,
                "continue": f"wfs --session {session} execute {tid}" if col == "ready" else None,
                "critical": tid in critical,
                "claim": claims.get(tid),
            }
        )
    counts = {c: sum(b["column"] == c for b in board) for c in browser.COLUMNS}
    return {
        "session": {"id": session, "topic": topic, "status": "active", "phase": "IMPLEMENT"},
        "sessions": [
            {
                "id": session,
                "topic": topic,
                "status": "active",
                "completed": counts["completed"],
                "total": len(board),
            }
        ],
        "stamp": "1",
        "counts": counts,
        "tasks": board,
        "edges": [[d, b["id"]] for b in board for d in b["depends_on"] if d in by_id],
        "critical_path": critical,
    }


def first_render(driver: Any, page: Path) -> float:
    """Milliseconds from the navigation's start to the page's mark."""
    driver.get("about:blank")
    driver.get(page.as_uri())
    mark = driver.execute_script(
        "const m = performance.getEntriesByName('wfs-rendered');"
        "return m.length ? m[0].startTime : null"
    )
    if mark is None:
        raise SystemExit(f"{page.name}: the page did not render (no wfs-rendered mark)")
    return float(mark)


def bench(sizes: list[int], runs: int) -> str:
    folder = Path(tempfile.mkdtemp(prefix="wfs-board-bench-"))
    pages = {}
    for size in sizes:
        data = board_from_tasks(session_tasks(size) if size else [], SESSION, "benchmark")
        page = folder / f"board-{size}.html"
        page.write_text(browser.render_page(data), encoding="utf-8")
        pages[size] = (page, len(data["tasks"]), len(data["edges"]), page.stat().st_size)
    driver = browser.start()
    times: dict[int, list[float]] = {size: [] for size in sizes}
    try:
        for size in sizes:  # once unmeasured: the browser's caches warm
            first_render(driver, pages[size][0])
        for _ in range(runs):
            for size in sizes:
                times[size].append(first_render(driver, pages[size][0]))
        version = driver.capabilities.get("browserVersion", "?")
    finally:
        driver.quit()
    base = statistics.median(times[0]) if 0 in times else None
    lines = [
        "# The board's page: time to the first render",
        "",
        "Written by `python benchmarks/board.py` (see its docstring). Each figure is the",
        "median, over the runs, of the page's own `wfs-rendered` mark (navigation start to",
        "the first complete draw: parsing, dagre's layout, our SVG and columns, layout),",
        "for the exported page opened as a file in headless Chromium. B is the same page",
        "for an empty session, measured in the same run.",
        "",
        f"Chromium {version}, {platform.system()} {platform.machine()},"
        f" {os.cpu_count()} CPUs, {runs} runs, {time.strftime('%Y-%m-%d')}.",
        "",
        "| tasks | edges | page size | first render (median) | min - max | × B |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for size in sizes:
        _, tasks, edges, nbytes = pages[size]
        median = statistics.median(times[size])
        ratio = f"{median / base:.1f}" if base else "-"
        lines.append(
            f"| {tasks:,} | {edges:,} | {nbytes / 1024:,.0f} KiB | {median:,.0f} ms |"
            f" {min(times[size]):,.0f} - {max(times[size]):,.0f} ms | {ratio} |"
        )
    return "\n".join(lines) + "\n"


def example_board() -> dict[str, Any]:
    """The board of examples/jwt-auth as it looks while IMPL-1.2 runs: the plan's tasks
    as `wfs plan --from` writes them, IMPL-1.1 completed."""
    plan = orjson.loads((REPO / "examples" / "jwt-auth" / "plan.json").read_bytes())
    tasks = plan["tasks"]
    for t in tasks:
        t["status"] = {"IMPL-1.1": "completed", "IMPL-1.2": "active"}.get(t["id"], "pending")
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 754))
    claim = {
        "owner": "build-host:4242",
        "where": "this worktree",
        "since": since,
        "expires": since,
        "state": "running",
        "step": "implementation_approach/2",
        "remote": False,
    }
    data = board_from_tasks(tasks, "WFS-jwt-auth", "JWT Auth", {"IMPL-1.2": claim})
    task = next(t for t in tasks if t["id"] == "IMPL-1.2")
    steps = [
        {
            "key": f"pre_analysis/{i}",
            "name": s.get("step", f"pre_analysis/{i}"),
            "kind": "step",
            "status": "done",
            "elapsed": 0.4,
        }
        for i, s in enumerate(task["flow_control"].get("pre_analysis", []), 1)
    ] + [
        {
            "key": f"implementation_approach/{i}",
            "name": s.get("title", str(i)),
            "kind": "step",
            "status": "done" if i == 1 else None,
            "elapsed": 41.0 if i == 1 else None,
        }
        for i, s in enumerate(task["flow_control"].get("implementation_approach", []), 1)
    ]
    detail = next(b for b in data["tasks"] if b["id"] == "IMPL-1.2") | {
        "steps": steps,
        "acceptance": task["context"].get("acceptance", []),
        "summary_html": None,
        "output": (
            "$ npm test -- auth.test.ts\n"
            "  PASS  tests/auth/token.test.ts\n"
            "  RUNS  tests/auth/middleware.test.ts\n"
        ),
    }
    data["details"] = {"IMPL-1.2": detail}
    return data


def screenshot(target: Path) -> None:
    page = Path(tempfile.mkdtemp(prefix="wfs-board-shot-")) / "board.html"
    page.write_text(browser.render_page(example_board()), encoding="utf-8")
    driver = browser.start(1600, 900)
    try:
        driver.get(page.as_uri())
        driver.find_element("css selector", '#graph g.node[data-task-id="IMPL-1.2"]').click()
        driver.save_screenshot(str(target))
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--sizes", default="0,100,1000")
    parser.add_argument("--screenshot", type=Path, help="write the example plan's board here")
    args = parser.parse_args()
    reason = browser.missing()
    if reason:
        raise SystemExit(f"board benchmark: {reason}")
    if args.screenshot:
        screenshot(args.screenshot)
        print(args.screenshot)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    report = bench(sizes, args.runs)
    (HERE / "BOARD.md").write_text(report, encoding="utf-8")
    print(report, end="")


if __name__ == "__main__":
    main()
