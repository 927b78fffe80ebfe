"""The derived index (.workflow/.cache) never hides a change made behind its back."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from conftest import wfs

from wfs.layout import Layout
from wfs.tasks import RACY_SECONDS, load_skeletons

TASKS = [{"id": f"IMPL-{n}", "title": f"Task {n}"} for n in range(1, 6)]


def statuses() -> dict[str, str]:
    return {t["id"]: t["status"] for t in wfs("task", "list", "--json").json()["tasks"]}


def age_everything(project: Path) -> None:
    """Make every task file look older than the racy window, then warm the index."""
    old = time.time() - 10 * RACY_SECONDS
    for path in (project / ".workflow").rglob("IMPL-*.json"):
        os.utime(path, (old, old))
    wfs("status")  # writes a fully trusted index


def setup(project: Path) -> Path:
    assert wfs("plan", "Cache", "--from", "-", input=json.dumps(TASKS)).code == 0
    age_everything(project)
    return project / ".workflow/WFS-cache/.task"


def test_index_is_written_and_used(project: Path) -> None:
    setup(project)
    cache = json.loads((project / ".workflow/.cache/WFS-cache.json").read_text())
    assert sorted(cache["files"]) == [f"IMPL-{n}.json" for n in range(1, 6)]
    assert all(entry[0] is not None for entry in cache["files"].values())


def test_in_place_edit_of_the_same_size_is_seen(project: Path) -> None:
    folder = setup(project)
    path = folder / "IMPL-3.json"
    text = path.read_text()
    with open(path, "r+") as handle:  # in place: same inode, same size
        handle.write(text.replace('"pending"', '"blocked"'))
    assert statuses()["IMPL-3"] == "blocked"


def test_edit_in_the_same_clock_tick_is_seen(project: Path) -> None:
    """Two same-size edits whose mtimes the file system cannot tell apart."""
    folder = setup(project)
    path = folder / "IMPL-2.json"
    text = path.read_text()
    path.write_text(text.replace('"pending"', '"blocked"'))
    stamp = path.stat().st_mtime_ns
    assert statuses()["IMPL-2"] == "blocked"  # the index is written now, in the same tick
    path.write_text(text.replace('"pending"', '"active" '))  # same size, same inode
    os.utime(path, ns=(stamp, stamp))  # a coarse clock gives the same mtime
    assert statuses()["IMPL-2"] == "active"


def test_added_and_removed_files_are_seen(project: Path) -> None:
    folder = setup(project)
    (folder / "IMPL-5.json").unlink()
    extra = json.loads((folder / "IMPL-1.json").read_text()) | {"id": "IMPL-9", "title": "New"}
    (folder / "IMPL-9.json").write_text(json.dumps(extra))
    assert sorted(statuses()) == ["IMPL-1", "IMPL-2", "IMPL-3", "IMPL-4", "IMPL-9"]


def test_git_checkout_is_seen(project: Path) -> None:
    folder = setup(project)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "plan"], cwd=project, check=True)
    wfs("task", "status", "IMPL-1", "completed")
    assert statuses()["IMPL-1"] == "completed"
    subprocess.run(["git", "checkout", "-q", "--", str(folder)], cwd=project, check=True)
    assert statuses()["IMPL-1"] == "pending"


def test_corrupt_or_missing_index_is_rebuilt(project: Path) -> None:
    setup(project)
    cache = project / ".workflow/.cache/WFS-cache.json"
    cache.write_text("{not json")
    assert len(statuses()) == 5
    cache.unlink()
    assert len(statuses()) == 5
    assert cache.exists()


def test_index_matches_the_files_after_concurrent_writers(project: Path) -> None:
    setup(project)
    procs = [subprocess.Popen(["python", "-m", "wfs", "task", "status", f"IMPL-{n}", "completed"],
                              cwd=project) for n in range(1, 6)]
    assert [p.wait() for p in procs] == [0] * 5
    layout = Layout(project)
    from_files = {t["id"]: t["status"] for t in
                  (json.loads(p.read_text()) for p in
                   (project / ".workflow/WFS-cache/.task").glob("*.json"))}
    from_index = {t["id"]: t["status"] for t in load_skeletons(layout, "WFS-cache")}
    assert from_index == from_files == {f"IMPL-{n}": "completed" for n in range(1, 6)}
