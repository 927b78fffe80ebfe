"""What claims cost `wfs status`: whole processes on one session, without claims, with a
claim in the clone's local store, and with a claims remote (a bare folder).

Medians of several runs, with S (`python -c pass`) measured in the same run:

    python benchmarks/claims_status.py [--runs N] [--tasks 10000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_sessions import make_session  # noqa: E402

from wfs import leases  # noqa: E402
from wfs.layout import Layout  # noqa: E402


def timed(argv: list[str], cwd: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tasks", type=int, default=10000)
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="wfs-claims-bench-"))
    try:
        bare, root = scratch / "remote.git", scratch / "work"
        git(scratch, "init", "-q", "--bare", str(bare))
        git(scratch, "init", "-q", str(root))
        git(root, "remote", "add", "origin", str(bare))
        sid = make_session(root, options.tasks)
        status = [sys.executable, "-m", "wfs", "--session", sid, "status"]
        s = timed([sys.executable, "-c", "pass"], root, options.runs)
        timed(status, root, 2)  # the index's cache is written once
        rows = [("no claims", timed(status, root, options.runs))]
        local = leases.claim_store(Layout(root))
        lease = local.acquire(sid, "IMPL-1", str(root))
        assert lease is not None
        rows.append(("a claim in the local store", timed(status, root, options.runs)))
        local.release(lease)
        remote = leases.claim_store(Layout(root), "origin")
        held = remote.acquire(sid, "IMPL-1", f"here:{root}")
        assert held is not None
        (root / ".workflow" / "config.json").write_text('{"claims": {"remote": "origin"}}')
        rows.append(("a claims remote (bare folder)", timed(status, root, options.runs)))
        print(f"{options.tasks} tasks, median of {options.runs} runs; S = {s:.1f} ms")
        print("| wfs status | ms | x S |\n|---|---|---|")
        for name, ms in rows:
            print(f"| {name} | {ms:.1f} | {ms / s:.1f} |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
