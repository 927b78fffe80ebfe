"""Time the board's page to its first render in headless Chromium; write BOARD.md.

The figure is the page's own mark: board.js calls performance.mark('wfs-rendered') once
the graph is laid out and drawn, the columns and the running tasks filled, and the
browser's layout done; its startTime counts from the start of the navigation, so it
includes parsing the page, dagre's layout and our drawing. The baseline B is the same
page for an empty session, loaded in the same run, the sizes taking turns.

The pages are what `wfs board --export` writes of the benchmark's synthetic sessions
(make_sessions.make_session: real task files, planned by `wfs plan`), opened as files,
so no server is timed.

    python benchmarks/board.py [--runs N] [--sizes 0,100,1000]
    python benchmarks/board.py --screenshot docs/board.png   # the example plan's board
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
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
from make_sessions import make_session  # noqa: E402

SESSION = "WFS-bench"


def exported(root: Path, sid: str | None, page: Path) -> None:
    """`wfs board --export` of the session `sid` of the project at `root` (or of an
    empty project's page, when `sid` is None) into `page`."""
    argv = [sys.executable, "-m", "wfs"]  # run in the project, as a person does
    if sid is None:
        (root / ".workflow").mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [*argv, "plan", "Empty", "--empty"], cwd=root, check=True, capture_output=True
        )
    else:
        argv += ["--session", sid]
    subprocess.run(
        [*argv, "board", "--export", str(page)], cwd=root, check=True, capture_output=True
    )


def page_counts(page: Path) -> tuple[int, int]:
    """The tasks and edges of an exported page."""
    text = page.read_text(encoding="utf-8")
    start = text.index('id="wfs-data">') + len('id="wfs-data">')
    data = orjson.loads(text[start : text.index("</script>", start)])
    return len(data["tasks"]), len(data["edges"])


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
        page = folder / f"board-{size}.html"
        root = folder / f"s{size}"
        exported(root, make_session(root, size) if size else None, page)
        pages[size] = (page, *page_counts(page), page.stat().st_size)
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


def screenshot(target: Path) -> None:
    """The board of examples/jwt-auth, planned by `wfs plan` and exported by `wfs board
    --export`, IMPL-1.1 completed and IMPL-1.2 blocked (set by `wfs task status`), with
    IMPL-1.2's detail open."""
    root = Path(tempfile.mkdtemp(prefix="wfs-board-shot-")) / "jwt-auth"
    argv = [sys.executable, "-m", "wfs", "--root", str(root)]
    (root / ".workflow").mkdir(parents=True)
    plan = str(REPO / "examples" / "jwt-auth" / "plan.json")
    subprocess.run([*argv, "plan", "JWT Auth", "--from", plan], check=True, capture_output=True)
    for tid, status in (("IMPL-1.1", "completed"), ("IMPL-1.2", "blocked")):
        subprocess.run([*argv, "task", "status", tid, status], check=True, capture_output=True)
    page = root / "board.html"
    exported(root, "WFS-jwt-auth", page)
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
