"""A worker for tests/test_leases.py, run as its own process.

    python lease_worker.py race ROOT REMOTE LEASE_SECONDS GO_FILE
        waits for GO_FILE, then tries once to acquire the task IMPL-1 of session
        WFS-race; prints "won EPOCH" or "lost", and waits for the file "stop" beside
        GO_FILE (a holder that has exited would be taken over at once).
    python lease_worker.py work ROOT REMOTE LEASE_SECONDS LOG TASKS HOST
        takes the tasks IMPL-1..IMPL-TASKS of session WFS-race one by one until every one is done; each
        one held is logged ("acquired", then "done" after a check of its lease) to LOG.
        HOST other than "-" makes this worker another machine's (its claims are never
        seen as dead by their pid: only their lease's end frees them).

REMOTE "-" means the local store of the clone.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

from wfs import leases
from wfs.layout import Layout

SESSION = "WFS-race"


def log(path: str, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def done_tasks(path: str) -> set[str]:
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        return set()
    return {line.split()[1] for line in lines if line.startswith("done ")}


def main(argv: list[str]) -> int:
    mode, root, remote, seconds = argv[:4]
    claims = leases.claim_store(
        Layout(Path(root)), None if remote == "-" else remote, float(seconds)
    )
    if mode == "race":
        go = Path(argv[4])
        while not go.exists():
            time.sleep(0.005)
        lease = claims.acquire(SESSION, "IMPL-1", root)
        print(f"won {lease.epoch}" if lease else "lost", flush=True)
        while not go.with_name("stop").exists():  # the winner lives until all have tried
            time.sleep(0.005)
        return 0
    path, count, host = argv[4], int(argv[5]), argv[6]
    if host != "-":
        leases.owner_id = lambda: f"{host}:{os.getpid()}"  # another machine's process
    tasks = [f"IMPL-{n}" for n in range(1, count + 1)]
    while True:
        todo = [t for t in tasks if t not in done_tasks(path)]
        if not todo:
            return 0
        random.shuffle(todo)
        held = None
        for tid in todo:
            lease = claims.acquire(SESSION, tid, root)
            if lease is None:
                continue
            if tid in done_tasks(path):  # finished by another between the two reads
                claims.release(lease)
                continue
            held = lease
            break
        if held is None:
            time.sleep(0.05)
            continue
        log(path, f"acquired {held.task} {held.epoch} {os.getpid()} {held.owner} {held.since}")
        with leases.holding(claims, held) as holding:
            time.sleep(random.uniform(0.02, 0.2))
            try:
                holding.check()
            except leases.LostLease:
                log(path, f"lost {held.task} {held.epoch} {os.getpid()}")
                continue
            log(path, f"done {held.task} {held.epoch} {os.getpid()}")
            try:
                holding.release()
            except leases.LostLease:
                log(path, f"late {held.task} {held.epoch} {os.getpid()}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
