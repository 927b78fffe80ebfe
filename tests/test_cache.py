"""The derived index (.workflow/.cache) never hides a change made behind its back, and
what is answered from it is exactly what is derived from the files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import wfs, wfs_process

from wfs import index
from wfs import validate as validate_module
from wfs.index import load_skeletons
from wfs.layout import Layout

TASKS = [
    {"id": "IMPL-1", "title": "Task 1"},
    {"id": "IMPL-2", "title": "Task 2", "context": {"depends_on": ["IMPL-1"]}},
    {"id": "IMPL-3", "title": "Task 3"},
    {"id": "IMPL-3.1", "title": "Sub 3.1", "meta": {"agent": "@test-fix-agent"}},
    {"id": "IMPL-3.2", "title": "Sub 3.2", "context": {"depends_on": ["IMPL-3.1"]}},
    {"id": "IMPL-4", "title": "Task 4", "context": {"depends_on": ["IMPL-3"]}},
    {"id": "IMPL-5", "title": "Task 5"},
]
SID = "WFS-cache"
READ_COMMANDS = [
    ["status"],
    ["next"],
    ["next", "--all"],
    ["task", "show", "IMPL-2"],
    ["task", "show", "IMPL-3"],
    ["task", "show", "IMPL-4"],
    ["task", "list"],
]


def statuses() -> dict[str, str]:
    return {t["id"]: t["status"] for t in wfs("task", "list", "--json").json()["tasks"]}


def age_everything(project: Path, warm: bool = True) -> None:
    """Make every file look older than any racy window, then warm the index."""
    old = time.time() - 60
    for path in (project / ".workflow").rglob("*.json"):
        os.utime(path, (old, old))
    os.utime(project / f".workflow/{SID}/.task", (old, old))
    if warm:
        assert wfs("status").code == 0  # writes a fully trusted index


def setup(project: Path) -> Path:
    wfs("init", "--no-git")
    assert wfs("plan", "Cache", "--from", "-", input=json.dumps(TASKS)).code == 0
    age_everything(project)
    return project / f".workflow/{SID}/.task"


def index_is_current(project: Path) -> bool:
    """Whether the next read is answered from the index (every stamp still matches)."""
    return index.cached_answers(str(project / ".workflow"), SID) is not None


def test_index_is_written_and_trusted(project: Path) -> None:
    setup(project)
    assert index.cached_answers(str(project / ".workflow"), SID) is not None
    names = [
        "IMPL-1.json",
        "IMPL-2.json",
        "IMPL-3.json",
        "IMPL-3.1.json",
        "IMPL-3.2.json",
        "IMPL-4.json",
        "IMPL-5.json",
    ]
    skel = index.load_cache(index.cache_path(str(project / ".workflow"), SID, "skel"))
    assert skel is not None and skel[1] == names and None not in skel[2]


@pytest.mark.slow
@pytest.mark.parametrize("args", READ_COMMANDS, ids=" ".join)
@pytest.mark.parametrize("json_out", [False, True], ids=["text", "json"])
def test_answers_from_the_index_are_those_derived_from_the_files(
    project: Path, args: list[str], json_out: bool
) -> None:
    setup(project)
    wfs("task", "status", "IMPL-1", "completed")
    wfs("task", "status", "IMPL-3.1", "blocked")
    age_everything(project)
    argv = [*args, "--json"] if json_out else args
    fresh = wfs_process(*argv, cwd=project, env={"WFS_NO_CACHE": "1"})
    assert (fresh.code, fresh.err) == (0, "")
    assert index_is_current(project)
    assert wfs_process(*argv, cwd=project) == fresh
    assert wfs(*argv).out == fresh.out


@pytest.mark.slow
def test_the_index_answers_from_a_subdirectory_and_with_global_options(project: Path) -> None:
    setup(project)
    expected = wfs_process("--json", "next", cwd=project)
    (project / "src").mkdir()
    assert wfs_process("next", "--json", cwd=project / "src") == expected
    elsewhere = project.parent
    args = ("--root", str(project), "--session", SID, "--json", "next")
    assert wfs_process(*args, cwd=elsewhere) == expected
    assert wfs_process("--json", "next", cwd=elsewhere, env={"WFS_ROOT": str(project)}) == expected


@pytest.mark.slow
def test_no_or_several_active_sessions_are_said_from_the_files(project: Path) -> None:
    setup(project)
    marker = project / f".workflow/.active-{SID}"
    marker.unlink()
    # No marker (a fresh clone): the only unfinished session, said on stderr.
    shown = wfs_process("status", cwd=project)
    assert shown.out.startswith(f"Session:  {SID} (active)\n")
    assert shown.err == (
        f"wfs: no session is active here; using {SID}, the only unfinished one "
        f"(`wfs switch {SID}` makes it your active session)\n"
    )
    marker.touch()
    (project / ".workflow/.active-WFS-other").touch()
    (project / ".workflow/WFS-other").mkdir()
    assert wfs_process("status", cwd=project).code == 2


@pytest.mark.slow
def test_in_place_edit_of_the_same_size_is_seen(project: Path) -> None:
    folder = setup(project)
    path = folder / "IMPL-3.1.json"
    text = path.read_text()
    with open(path, "r+") as handle:  # in place: same inode, same size
        handle.write(text.replace('"pending"', '"blocked"'))
    assert not index_is_current(project)
    out = wfs_process("--json", "status", cwd=project).json()
    assert out["blocked"] == ["IMPL-3.1"]
    assert statuses()["IMPL-3.1"] == "blocked"


def test_edit_in_the_same_clock_tick_as_the_index_is_seen(project: Path) -> None:
    """Two same-size edits whose mtimes the file system cannot tell apart."""
    folder = setup(project)
    path = folder / "IMPL-2.json"
    text = path.read_text()
    path.write_text(text.replace('"pending"', '"blocked"'))
    tick = time.time_ns() + 10**9  # the clock has not moved on when the index is built
    os.utime(path, ns=(tick, tick))
    assert statuses()["IMPL-2"] == "blocked"
    path.write_text(text.replace('"pending"', '"active" '))  # same size, same inode
    os.utime(path, ns=(tick, tick))
    assert not index_is_current(project)
    assert statuses()["IMPL-2"] == "active"


def derived(project: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The task files the next read of every skeleton derives again (not from `.skel`),
    and checks that the skeletons read are those derived from the files."""
    seen: list[str] = []
    real = index.skeleton

    def counted(task: dict[str, object], *args: object, **kwargs: object) -> object:
        seen.append(str(kwargs.get("file_stem")))
        return real(task, *args, **kwargs)  # type: ignore[arg-type]

    layout = Layout(project)
    with monkeypatch.context() as patch:
        patch.setattr(index, "skeleton", counted)
        found = load_skeletons(layout, SID)
    with monkeypatch.context() as patch:
        patch.setenv("WFS_NO_CACHE", "1")
        patch.setattr(index, "load_cache", lambda path: None)
        assert found == load_skeletons(layout, SID)
    return seen


def test_a_task_file_wfs_just_wrote_is_not_derived_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its writer's skeleton is kept beside the CRC-32 of the bytes it wrote: the next
    read takes it while the file holds those bytes, even though its stamp is too new
    to trust; an edit behind wfs's back in the same clock tick is derived again."""
    folder = setup(project)
    assert wfs("task", "status", "IMPL-2", "blocked").code == 0
    assert wfs("task", "status", "IMPL-5", "active").code == 0
    assert derived(project, monkeypatch) == []
    assert statuses()["IMPL-2"] == "blocked"
    path = folder / "IMPL-5.json"
    written = path.stat()
    path.write_text(path.read_text().replace('"active"', '"paused"'))  # same size
    os.utime(path, ns=(written.st_atime_ns, written.st_mtime_ns))
    assert derived(project, monkeypatch) == ["IMPL-5"]
    assert statuses()["IMPL-5"] == "paused"


def test_coarse_file_systems_get_a_wider_racy_window() -> None:
    stamper = index.Stamper()
    second = (stamper.started // 10**9 - 1) * 10**9  # whole seconds, one second ago
    stamper.mtimes = [second]
    assert stamper.trusted((second, 1, 1)) is None
    stamper.mtimes = [second + 1]  # nanosecond timestamps: a coarse clock tick is enough
    assert stamper.trusted((second + 1, 1, 1)) == (second + 1, 1, 1)


def test_added_and_removed_files_are_seen(project: Path) -> None:
    folder = setup(project)
    (folder / "IMPL-5.json").unlink()
    extra = json.loads((folder / "IMPL-1.json").read_text()) | {"id": "IMPL-9", "title": "New"}
    (folder / "IMPL-9.json").write_text(json.dumps(extra))
    assert not index_is_current(project)
    assert sorted(statuses()) == [
        "IMPL-1",
        "IMPL-2",
        "IMPL-3",
        "IMPL-3.1",
        "IMPL-3.2",
        "IMPL-4",
        "IMPL-9",
    ]


def test_task_list_with_an_unreadable_task_file_lists_the_others_and_names_it(
    project: Path,
) -> None:
    folder = setup(project)
    (folder / "IMPL-5.json").write_text("{broken")
    process = wfs_process("task", "list", cwd=project)
    assert process.code == 2
    assert "IMPL-5.json" in process.err
    assert "Traceback" not in process.err
    assert "IMPL-4" in process.out  # the readable tasks are still listed


@pytest.mark.slow
def test_an_empty_task_list_says_so(project: Path) -> None:
    folder = setup(project)
    filtered = wfs_process("task", "list", "--status", "blocked", cwd=project)  # the CLI
    assert (filtered.code, filtered.out, filtered.err) == (0, "No matching tasks.\n", "")
    for path in folder.glob("*.json"):
        path.unlink()
    process = wfs_process("task", "list", cwd=project)
    assert (process.code, process.out) == (0, "No matching tasks.\n")


def test_session_file_edit_is_seen(project: Path) -> None:
    setup(project)
    path = project / f".workflow/{SID}/workflow-session.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps(data | {"current_phase": "REVIEW"}))
    assert not index_is_current(project)
    assert wfs_process("--json", "status", cwd=project).json()["phase"] == "REVIEW"


@pytest.mark.slow
def test_git_checkout_is_seen(project: Path) -> None:
    folder = setup(project)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "plan"], cwd=project, check=True)
    wfs("task", "status", "IMPL-1", "completed")
    age_everything(project)
    assert wfs_process("--json", "next", cwd=project).json()["tasks"][0]["id"] == "IMPL-2"
    subprocess.run(["git", "checkout", "-q", "--", str(folder)], cwd=project, check=True)
    assert wfs_process("--json", "next", cwd=project).json()["tasks"][0]["id"] == "IMPL-1"


@pytest.mark.slow
@pytest.mark.parametrize("damage", [b"", b"garbage", b"\x00\x00\x00\xff" + b"x" * 40])
def test_corrupt_or_missing_index_is_rebuilt(project: Path, damage: bytes) -> None:
    setup(project)
    expected = wfs("status").out
    for kind in ("idx", "skel"):
        Path(index.cache_path(str(project / ".workflow"), SID, kind)).write_bytes(damage)
    assert not index_is_current(project)
    assert wfs_process("status", cwd=project).out == expected
    for kind in ("idx", "skel"):
        Path(index.cache_path(str(project / ".workflow"), SID, kind)).unlink()
    assert wfs_process("status", cwd=project).out == expected
    assert Path(index.cache_path(str(project / ".workflow"), SID, "idx")).exists()


def test_index_from_another_python_is_ignored(project: Path) -> None:
    setup(project)
    path = Path(index.cache_path(str(project / ".workflow"), SID, "skel"))
    import marshal

    data = list(marshal.loads(path.read_bytes()[4:]))  # after its CRC
    data[0] = ("wfs-index", index.FORMAT[1], 0)
    path.write_bytes(index.seal(marshal.dumps(tuple(data))))
    assert index.load_cache(str(path)) is None
    assert len(statuses()) == 7


@pytest.mark.slow
def test_index_matches_the_files_after_concurrent_writers(project: Path) -> None:
    setup(project)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "wfs", "task", "status", tid, "completed"], cwd=project
        )
        for tid in ("IMPL-1", "IMPL-2", "IMPL-3.1", "IMPL-3.2", "IMPL-4", "IMPL-5")
    ]
    readers = [
        subprocess.Popen(
            [sys.executable, "-m", "wfs", "next"], cwd=project, stdout=subprocess.DEVNULL
        )
        for _ in range(4)
    ]
    assert [p.wait() for p in procs + readers] == [0] * 10
    layout = Layout(project)
    from_files = {
        t["id"]: t["status"]
        for t in (
            json.loads(p.read_text()) for p in (project / f".workflow/{SID}/.task").glob("*.json")
        )
    }
    from_index = {t["id"]: t["status"] for t in load_skeletons(layout, SID)}
    assert from_index == from_files
    assert wfs_process("--json", "status", cwd=project).json()["counts"]["completed"] == 6


@pytest.mark.slow
def test_unwritable_cache_still_answers(project: Path) -> None:
    setup(project)
    cache = project / ".workflow/.cache"
    for child in cache.iterdir():
        child.unlink()
    cache.rmdir()
    cache.write_text("not a folder: every cache write fails, even as root")
    result = wfs_process("--json", "next", cwd=project)
    assert (result.code, result.json()["tasks"][0]["id"], result.err) == (0, "IMPL-1", "")


def validate_fresh(project: Path) -> tuple[int, str]:
    """`wfs validate --json` with no cache at all."""
    for path in (project / ".workflow/.cache").glob("*"):
        path.unlink()
    result = wfs("validate", "--json")
    return result.code, result.out


def test_validation_results_from_the_cache_equal_a_fresh_run(project: Path) -> None:
    folder = setup(project)
    # Problems of both kinds: single-file (title type) and across files (missing
    # dependency, cycle), in one file and in separate files.
    two = json.loads((folder / "IMPL-2.json").read_text())
    two["title"] = 7
    two["context"]["depends_on"] = ["IMPL-4", "IMPL-9"]
    (folder / "IMPL-2.json").write_text(json.dumps(two))
    four = json.loads((folder / "IMPL-4.json").read_text())
    four["context"]["depends_on"] = ["IMPL-2"]
    (folder / "IMPL-4.json").write_text(json.dumps(four))
    (folder / "IMPL-5.json").write_text("{broken")
    fresh = validate_fresh(project)
    assert fresh[0] == 1
    problems = json.loads(fresh[1])["problems"]
    assert {p["rule"] for p in problems} >= {"json", "depends-on", "dependency-cycle"}
    age_everything(project, warm=False)
    first = wfs("validate", "--json")
    cached = wfs("validate", "--json")  # every file from the cache now
    assert (first.code, first.out) == (cached.code, cached.out) == fresh


def test_validation_sees_a_hand_edit_behind_the_cache(project: Path) -> None:
    folder = setup(project)
    assert wfs("validate").code == 0
    assert wfs("validate").out == f"OK: {SID}\n"
    path = folder / "IMPL-3.2.json"
    path.write_text(path.read_text().replace('"IMPL-3.1"', '"IMPL-7"'))
    result = wfs("validate")
    assert result.code == 1
    assert result.out == (
        f".workflow/{SID}/.task/IMPL-3.2.json#/context/depends_on/0: depends-on: "
        "IMPL-3.2 depends on IMPL-7, which does not exist\n"
    )


@pytest.mark.parametrize("kind", ["valid", "vall"])
def test_validation_cache_of_other_rules_is_ignored(project: Path, kind: str) -> None:
    """Each file alone (.valid) and the whole session (.vall), cached by older rules."""
    setup(project)
    assert wfs("validate").code == 0
    path = Path(index.cache_path(str(project / ".workflow"), SID, kind))
    import marshal

    data = list(marshal.loads(path.read_bytes()[4:]))  # after its CRC
    assert data[1][:-1] == validate_module._rules_stamp(project)[:-1]  # and the folder
    data[1] = ("0.0.0", 0, 0)
    fake = [("x", "fake", "cached by older rules", "error")]
    data[-1] = fake if kind == "vall" else [(fake, s, r) for _, s, r in data[-1]]
    path.write_bytes(index.seal(marshal.dumps(tuple(data))))
    assert wfs("validate").out == f"OK: {SID}\n"


def test_a_plan_that_did_not_change_is_validated_from_the_cache(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No rule runs when no file changed; an in-place edit of one file runs them again."""
    folder = setup(project)
    assert wfs("validate").out == f"OK: {SID}\n"
    ran = []
    real = validate_module._task_problems_now
    monkeypatch.setattr(validate_module, "_task_problems_now", lambda *a: ran.append(1) or real(*a))
    assert wfs("validate").out == f"OK: {SID}\n"
    assert ran == []
    path = folder / "IMPL-3.2.json"
    text = path.read_text()
    with open(path, "r+") as handle:  # in place, the same size: only its stamp tells
        handle.write(text.replace('"IMPL-3.1"', '"IMPL-9.9"'))
    result = wfs("validate")
    assert ran == [1]
    assert result.code == 1 and "IMPL-9.9, which does not exist" in result.out


@pytest.mark.parametrize("change", ["removed", "added", "renamed"])
def test_a_file_added_removed_or_renamed_is_validated_again(project: Path, change: str) -> None:
    """Files that keep their own stamps (an old copy, a rename) are seen by the stamp of
    the .task folder."""
    folder = setup(project)
    assert wfs("validate").out == f"OK: {SID}\n"
    if change == "removed":
        (folder / "IMPL-3.1.json").unlink()
        expected = "IMPL-3.2 depends on IMPL-3.1, which does not exist"
    elif change == "added":
        shutil.copy2(folder / "IMPL-3.1.json", folder / "IMPL-6.json")
        expected = 'IMPL-6.json#/id: id-filename: id "IMPL-3.1" does not match'
    else:
        (folder / "IMPL-3.1.json").rename(folder / "IMPL-3.3.json")
        expected = 'IMPL-3.3.json#/id: id-filename: id "IMPL-3.1" does not match'
    result = wfs("validate")
    assert result.code == 1 and expected in result.out


@pytest.mark.slow
def test_damaged_cache_files_are_ignored(project: Path) -> None:
    """Bytes flipped anywhere in any cache file change nothing that is printed, and
    never give a traceback: each file carries a CRC."""
    setup(project)
    assert wfs("validate").code == 0
    expected = {
        args: wfs_process(*args, cwd=project).out
        for args in (("status",), ("next", "--all"), ("task", "show", "IMPL-2"), ("validate",))
    }
    cache = project / ".workflow" / ".cache"
    names = sorted(p.name for p in cache.iterdir())
    assert names == [".gitignore"] + [
        f"{SID}.{kind}" for kind in ("idx", "skel", "svalid", "valid", "vall")
    ]
    for name in names[1:]:  # the caches (the .gitignore keeps them out of git)
        original = (cache / name).read_bytes()
        for offset in (0, 4, 9, len(original) // 3, len(original) // 2, len(original) - 1):
            damaged = bytearray(original)
            damaged[offset] ^= 0x5A
            for args, out in expected.items():
                (cache / name).write_bytes(bytes(damaged))
                run = wfs_process(*args, cwd=project)
                assert "Traceback" not in run.err, (name, offset, run.err)
                assert run.out == out, (name, offset, args)
        (cache / name).write_bytes(original)
