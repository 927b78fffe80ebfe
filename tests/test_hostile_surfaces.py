"""Hostile input, grouped by surface, in one harness: the programs a value may reach,
paths that come from data, pushes, claims, worktrees, leftovers, caches, the environment,
locks, the merge drivers, killed runs, argv, ids, files and their formats, plan
documents, nesting, files that vanish mid-command, terminal text, planning with an
agent, split and expand, reading, the board's server, the MCP server's lines and calls,
and the peak memory of a planning answer.

Each case of the table has its exact exit code and message (a one-line error naming the
file or the value and what is wrong), shows no traceback, prints no raw control
character, and leaves the project byte-for-byte unchanged, and the files outside it too
(lock files and caches aside, which a case checks itself; a case that must write names
what it may change). A `fresh` case runs on a project just planned, its caches cold; the
others first warm every cache, so that it is there to be hostile to.

A task file that vanishes mid-command is simulated deterministically: the file is
deleted right after wfs lists its folder (`Case.vanish`), the window in which a
concurrent `rm` or `git checkout` takes it away, with the index cache warm.

Count the corpus with:
    python -m pytest --collect-only -q tests/test_hostile_surfaces.py | grep -c '::'
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any, NamedTuple

import pytest
from conftest import Run, needs_fifo, wfs, wfs_process
from git_helpers import commit_all, git, git_env
from mcp_raw import RawClient, rpc_error

from wfs import index, validate

__all__ = ["git_env"]  # the fixture, used by name

S = ".workflow/WFS-h"
T = f"{S}/.task"

BASE_PLAN = [
    {"id": "IMPL-1", "title": "Group"},
    {"id": "IMPL-1.1", "title": "First"},
    {"id": "IMPL-1.2", "title": "Second", "context": {"depends_on": ["IMPL-1.1"]}},
    {"id": "IMPL-2", "title": "Leaf"},
]


def tree_hash(root: Path, skip: tuple[str, ...] = ()) -> str:
    """A digest of every file under `root` but those starting with one of `skip`."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith((".workflow/.locks", ".workflow/.cache")):
            continue  # wfs's own lock files and derived index (both ignored by git)
        if skip and relative.startswith(skip):
            continue
        digest.update(relative.encode() + b"\0")
        if path.is_symlink():
            digest.update(b"link:" + os.readlink(path).encode())
        elif path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def write(relative: str, data: bytes | str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)

    return setup


def edit_task(tid: str, **changes: object) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        path = root / T / f"{tid}.json"
        task = json.loads(path.read_text())
        task.update(changes)
        path.write_text(json.dumps(task, indent=2))

    return setup


def assert_not_in_runs(root: Path, text: str) -> None:
    for record in (root / S / ".runs").rglob("*"):
        if record.is_file():
            written = record.read_text()
            assert text not in written and json.dumps(text)[1:-1] not in written, record


def step_task(command: str) -> Callable[[Path], None]:
    steps = [
        {
            "step": 1,
            "title": "s",
            "description": "d",
            "modification_points": [],
            "logic_flow": [],
            "depends_on": [],
            "output": "x",
            "command": command,
        }
    ]
    return edit_task("IMPL-2", flow_control={"pre_analysis": [], "implementation_approach": steps})


def symlink(relative: str, target: str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        os.symlink(target if target.startswith("/") else root.parent / target, root / relative)

    return setup


def nothing(root: Path) -> None:
    return None


def steps(*setups: Callable[[Path], object]) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        for one in setups:
            one(root)

    return setup


def run(*args: str, code: int = 0) -> Callable[[Path], None]:
    """A wfs command as part of a setup."""

    def setup(root: Path) -> None:
        done = wfs(*args)
        assert done.code == code, (args, done.out, done.err)

    return setup


def raw_edit(relative: str, old: bytes, new: bytes) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        path = root / relative
        data = path.read_bytes()
        assert old in data
        path.write_bytes(data.replace(old, new))

    return setup


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def deep_field(relative: str, depth: int) -> Callable[[Path], None]:
    """The JSON object file `relative` with one more key holding arrays `depth` deep."""

    def setup(root: Path) -> None:
        path = root / relative
        text = path.read_text().rstrip()
        assert text.endswith("}")
        path.write_text(text[:-1].rstrip() + f',\n  "deep": {nested(depth)}\n}}\n')

    return setup


def edit_session(**changes: object) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        path = root / S / "workflow-session.json"
        data = json.loads(path.read_text())
        data.update(changes)
        path.write_text(json.dumps(data, indent=2))

    return setup


def fifo(relative: str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        if not hasattr(os, "mkfifo"):
            pytest.skip("needs FIFOs (POSIX)")
        os.mkfifo(root / relative)

    return setup


def unreadable(relative: str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        (root / relative).chmod(0)

    return setup


def views_hold(text: str, *names: str) -> Callable[[Path, Run], None]:
    """A check: each generated view holds `text` and no raw control character."""

    def check(root: Path, done: Run) -> None:
        for name in names:
            view = (root / S / name).read_text()
            assert text in view, (name, view)
            assert not RAW.search(view), (name, view)

    return check


def paused_on_its_agent(root: Path) -> None:
    """IMPL-2 started and paused, waiting for its agent's answer."""
    assert wfs("execute", "IMPL-2").code == 3


def answer_kept(answer: str) -> Callable[[Path, Run], None]:
    """A check: IMPL-2 completed, its answer kept as text, byte for byte (in the summary,
    or beside the run record when it is long)."""

    def check(root: Path, done: Run) -> None:
        task = json.loads((root / T / "IMPL-2.json").read_text())
        assert task["status"] == "completed"
        kept = [p for p in (root / S).rglob("*") if p.is_file() and answer in p.read_text()]
        assert kept, "the answer was not kept"

    return check


def assert_once(path: Path, text: str) -> None:
    assert path.read_text().count(text) == 1, path.read_text()


def vanished_from_views(root: Path, done: Run) -> None:
    for name in ("TODO_LIST.md", "IMPL_PLAN.md"):
        assert "IMPL-2" not in (root / S / name).read_text(), name


# Raw control characters; on a color terminal, wfs's own SGR sequences are allowed.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
OWN_SGR = re.compile("\x1b\\[(?:0|1|3[123])m")
VANISH = f"{T}/IMPL-2.json"
VIEWS = (f"{S}/TODO_LIST.md", f"{S}/IMPL_PLAN.md")
# What completing IMPL-2 writes.
COMPLETED = (VANISH, f"{S}/workflow-session.json", *VIEWS, f"{S}/.runs", f"{S}/.summaries")
UNKNOWN_2 = "wfs: error: unknown task 'IMPL-2'; did you mean IMPL-1.2, IMPL-1, IMPL-1.1?\n"
LONG_TID = "IMPL-" + "1" * 295
LONG_SID = "WFS-" + "a" * 296
HOSTILE = "\x1b[2J\x1b]0;owned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[8mhidden\u202e"
SHOWN = "\\x1b[2J\\x1b]0;owned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[8mhidden\\u202e"


CACHE = ".workflow/.cache"
LOCKS = ".workflow/.locks"
SESSION_LOCK = f"{LOCKS}/WFS-h.lock"
JOURNAL = f"{LOCKS}/WFS-h.journal"
RUNS = f"{S}/.runs"
STATUS_OUT = (
    "Session:  WFS-h (active)\n"
    "Topic:    h\n"
    "Phase:    PLAN    Type: simple\n"
    "Tasks:    pending 3, active 0, completed 0, blocked 0, container 1\n"
    "Progress: 0/3 tasks completed (0%)\n"
    "Ready:    IMPL-1.1, IMPL-2\n"
    "Blocked:  -\n"
)
LIST_OUT = (
    "▸ IMPL-1  Group  pending\n"
    "  [ ] IMPL-1.1  First  pending\n"
    "  [ ] IMPL-1.2  Second  pending  (after IMPL-1.1)\n"
    "[ ] IMPL-2  Leaf  pending\n"
)
NEXT_OUT = "  [ ] IMPL-1.1  First  pending\n"
OK_OUT = "OK: WFS-h\n"
EMPTY_TASK = "wfs: error: invalid task id: it is empty\n"
EMPTY_SESSION = "wfs: error: invalid session id: it is empty\n"
NOT_REGULAR = "not a regular file (a FIFO, a device or a socket); refused"
TO_DEV_ZERO = (
    "refused: a symlink leads this path outside the project root (to /dev/zero); nothing was read"
)
# Where a case's setup may put something outside the project (a symlink's target).
ELSEWHERE = "elsewhere"
# A lock file held by another process for the length of a case.
HOLDERS: list[subprocess.Popen[str]] = []
HOLD = (
    "import sys\n"
    "from wfs import platform\n"
    "lock = platform.FileLock(sys.argv[1], 5)\n"
    "lock.acquire()\n"
    "print('held', flush=True)\n"
    "sys.stdin.read()\n"
)


class Case(NamedTuple):
    surface: str  # see the module's docstring
    name: str
    setup: Callable[[Path], None]
    args: tuple[str, ...]
    code: int
    err: str  # exact stderr, or its start when it ends with "…"; <ROOT>: the project
    out: str | None = None  # exact stdout, or its start when it ends with "…"
    env: dict[str, str] | None = None
    writes: tuple[str, ...] = ()  # what the command may change: path prefixes
    check: Callable[[Path, Run], None] | None = None  # more to assert afterwards
    process: bool = False  # as a real process (signals, a step that kills its runner)
    posix: bool = False  # needs FIFOs, signals or /dev/zero
    stdin: bytes | None = None
    vanish: str | None = None  # deleted right after wfs lists its folder
    color: bool = False  # as on a color terminal
    as_user: bool = False  # permissions must apply (not as root)
    fresh: bool = False  # on the project as planned: no cache warmed, files not aged


def outside(relative: str) -> str:
    """A path outside the project, as seen from its root (for symlink targets)."""
    return f"../{ELSEWHERE}/{relative}"


def link(relative: str, target: str) -> Callable[[Path], None]:
    """`relative` (removed first when there) a symlink to `target` (absolute, or from the
    project's parent folder)."""

    def setup(root: Path) -> None:
        path = root / relative
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif os.path.lexists(path):
            path.unlink()
        symlink(relative, target.removeprefix("../"))(root)

    return setup


def replaced_by(relative: str, kind: str) -> Callable[[Path], None]:
    """`relative` replaced by a folder, a FIFO, a socket or a file of `kind` bytes."""

    def setup(root: Path) -> None:
        path = root / relative
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif os.path.lexists(path):
            path.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "folder":
            path.mkdir()
        elif kind == "fifo":
            fifo(relative)(root)
        elif kind == "socket":
            if not hasattr(socket, "AF_UNIX"):
                pytest.skip("needs UNIX sockets")
            server = socket.socket(socket.AF_UNIX)
            server.bind(relative)  # relative: a socket's path has a short limit
            server.close()
        else:
            path.write_bytes(kind.encode())

    return setup


def sparse(relative: str, size: int) -> Callable[[Path], None]:
    """`relative` a file of `size` bytes (zeros, taking no room on disk)."""

    def setup(root: Path) -> None:
        with open(root / relative, "wb") as handle:
            handle.truncate(size)

    return setup


def truncated(relative: str, keep: float) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        path = root / relative
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * keep)])

    return setup


def scrambled(relative: str) -> Callable[[Path], None]:
    """The same size, every byte changed."""

    def setup(root: Path) -> None:
        path = root / relative
        path.write_bytes(bytes((b + 1) % 256 for b in path.read_bytes()))

    return setup


def sealed(relative: str, value: Any) -> Callable[[Path], None]:
    """A cache file whose checksum is right, holding `value` (marshal, as wfs writes)."""

    def setup(root: Path) -> None:
        (root / relative).write_bytes(index.seal(marshal.dumps(value)))

    return setup


def held(relative: str) -> Callable[[Path], None]:
    """The lock file `relative` held by another process."""

    def setup(root: Path) -> None:
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(root / relative)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        HOLDERS.append(holder)
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"

    return setup


def cli(*args: str, code: int = 0, env: dict[str, str] | None = None) -> Callable[[Path], None]:
    """A wfs command as part of a setup, as a real process."""

    def setup(root: Path) -> None:
        done = wfs_process(*args, cwd=root, env=env)
        assert done.code == code, (args, done.out, done.err)

    return setup


def same_again(*args: str) -> Callable[[Path, Run], None]:
    """A check: the command answers the same again (from what it wrote, if anything)."""

    def check(root: Path, done: Run) -> None:
        again = wfs(*args)
        assert (again.code, again.out, again.err) == (done.code, done.out, done.err)

    return check


def cache_usable(kind: str, *args: str) -> Callable[[Path, Run], None]:
    """A check: the cache file is whole again (rebuilt, or left for the next command to
    rebuild), and the command answers the same from it."""

    def check(root: Path, done: Run) -> None:
        same_again(*args)(root, done)
        loaded = index.load_cache(str(root / CACHE / f"WFS-h.{kind}"))
        if kind != "idx":  # the .idx is read in parts (index.current)
            assert loaded is not None, f"{kind} was not rebuilt"

    return check


def still(relative: str, kind: str, target: str = "") -> Callable[[Path, Run], None]:
    """A check: `relative` is still what the setup made (a symlink to `target`, a
    folder, a FIFO): wfs neither used nor replaced it."""

    def check(root: Path, done: Run) -> None:
        path = root / relative
        if kind == "link":
            assert os.readlink(path).endswith(target), os.readlink(path)
        elif kind == "folder":
            assert path.is_dir() and not path.is_symlink()
        elif kind == "fifo":
            assert path.is_fifo()
        else:
            assert path.read_text() == kind

    return check


def present(relative: str) -> Callable[[Path, Run], None]:
    def check(root: Path, done: Run) -> None:
        assert os.path.lexists(root / relative), relative

    return check


def is_file(relative: str) -> Callable[[Path, Run], None]:
    def check(root: Path, done: Run) -> None:
        assert (root / relative).is_file() and not (root / relative).is_symlink(), relative

    return check


def outside_pending(root: Path, done: Run) -> None:
    """A check: the file outside that shared IMPL-2's inode still says pending."""
    assert json.loads((root.parent / ELSEWHERE / "IMPL-2.json").read_text())["status"] == "pending"


def absent(relative: str) -> Callable[[Path, Run], None]:
    def check(root: Path, done: Run) -> None:
        assert not os.path.lexists(root / relative), relative

    return check


def task_status(tid: str, status: str) -> Callable[[Path, Run], None]:
    def check(root: Path, done: Run) -> None:
        task = json.loads((root / T / f"{tid}.json").read_text())
        assert task["status"] == status, task

    return check


def both(*checks: Callable[[Path, Run], None]) -> Callable[[Path, Run], None]:
    def check(root: Path, done: Run) -> None:
        for one in checks:
            one(root, done)

    return check


def merge_files(base: str, ours: str, theirs: str) -> Callable[[Path], None]:
    """The three sides git hands a merge driver, in `m/`."""

    def setup(root: Path) -> None:
        (root / "m").mkdir(exist_ok=True)
        for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
            if text:
                (root / "m" / name).write_text(text)

    return setup


def merged(text: str) -> Callable[[Path, Run], None]:
    """A check: what the driver left in `ours`."""

    def check(root: Path, done: Run) -> None:
        assert (root / "m" / "ours").read_text() == text

    return check


def journal(renames: Any) -> Callable[[Path], None]:
    return write(JOURNAL, json.dumps({"renames": renames}))


def staged_blocked(root: Path) -> None:
    """What a run killed after its journal and before its renames leaves: IMPL-2 blocked,
    staged beside its file, and the journal that lists it."""
    task = root / T / "IMPL-2.json"
    staged = task.with_name(".IMPL-2.json.0a1b2c3d.tmp")
    staged.write_bytes(task.read_bytes().replace(b'"pending"', b'"blocked"'))
    journal([["../WFS-h/.task/IMPL-2.json", "../WFS-h/.task/.IMPL-2.json.0a1b2c3d.tmp"]])(root)


def killing_step(signal_name: str, once: bool = False) -> Callable[[Path], None]:
    """IMPL-2's one step sends `signal_name` to its runner (the wfs process); with
    `once`, only the first time it runs."""
    command = f"kill -{signal_name} $PPID"
    if once:
        command = f"test -e killed || {{ touch killed; {command}; }}"
    return step_task(f"bash({command})")


def killed_run(root: Path) -> None:
    """IMPL-2's runner killed (SIGKILL) while its step ran: the task stays claimed by a
    process that is gone."""
    killing_step("KILL", once=True)(root)
    run = wfs_process("execute", "IMPL-2", cwd=root)
    assert run.code == -signal.SIGKILL, (run.out, run.err)


def stale(root: Path, done: Run) -> None:
    """A check: `status --json` shows IMPL-2 left by a dead runner, and how to resume it."""
    (entry,) = json.loads(done.out)["stopped"]
    assert (entry["id"], entry["state"]) == ("IMPL-2", "stale"), entry
    assert entry["resume"] == ["wfs", "--session", "WFS-h", "execute", "--resume", "IMPL-2"]


def paused(reason: str) -> Callable[[Path, Run], None]:
    def check(root: Path, done: Run) -> None:
        task = json.loads((root / T / "IMPL-2.json").read_text())
        execution = task["execution"]
        assert (task["status"], execution.get("paused_reason")) == ("active", reason), task
        assert "claimed_by" not in execution

    return check


MERGE = ("merge-json", "m/base", "m/ours", "m/theirs", f"{T}/IMPL-2.json")
WIDE_JSON = (  # the title's and the status's lines touch: a line merge conflicts
    '{{\n  "id": "IMPL-2",\n  "title": "{title}",\n  "status": "{status}",\n'
    '  "big": 123456789012345678901234567890\n}}\n'
)
BASE_JSON = '{"id": "IMPL-2", "title": "Leaf", "status": "pending"}\n'

# Values a cloned repository's `.workflow/config.json` may carry as its claims remote,
# each of which made git run a command when it reached git as given.
HOSTILE_REMOTES = [
    ("an --upload-pack option", f"--upload-pack=touch ../{ELSEWHERE}/PWNED;"),
    ("an -o option", f"-oProxyCommand=touch ../{ELSEWHERE}/PWNED"),
    ("an ext:: command URL", f"ext::sh -c touch% ../{ELSEWHERE}/PWNED"),
    ("a path to a repository the clone carries", "./carried.git"),
    ("a URL", "https://example.invalid/x.git"),
]


def claims_remote(value: str) -> Callable[[Path], None]:
    """A git repository whose committed config names `value` as the claims remote, and
    which carries a bare repository with a hook that would show it ran."""

    def setup(root: Path) -> None:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        carried = root / "carried.git"
        subprocess.run(["git", "init", "-q", "--bare", str(carried)], check=True)
        for hook in ("pre-receive", "post-update", "reference-transaction"):
            path = carried / "hooks" / hook
            path.write_text(f"#!/bin/sh\ntouch ../../{ELSEWHERE}/PWNED\n")
            path.chmod(0o755)
        config = root / ".workflow/config.json"
        config.write_text(json.dumps({"claims": {"remote": value}}))

    return setup


def not_run(root: Path, done: Run) -> None:
    assert not (root.parent / ELSEWHERE / "PWNED").exists(), "git ran the hostile command"
    assert not (root / "PWNED").exists(), "git took a value for an option"


def not_a_remote(value: str) -> str:
    shown = repr(value.encode("unicode_escape").decode("ascii")[:80])
    return (
        f"wfs: error: .workflow/config.json#/claims/remote: {shown} is not a remote of this "
        "repository (`git remote -v` lists them; the file names a remote, never a URL or a "
        "path)\n"
    )


def committed(root: Path) -> None:
    """The project a git repository with the plan committed (for `wfs diff`)."""
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "plan"], check=True)


SECRET = "SECRET-FROM-OUTSIDE"
SUMMARY = f"{S}/.summaries/IMPL-2-summary.md"


def secret_outside(name: str) -> Callable[[Path], None]:
    """A file outside the project holding SECRET (a plan document that parses)."""

    def setup(root: Path) -> None:
        text = json.dumps([{"id": "IMPL-1", "title": SECRET}])
        (root.parent / ELSEWHERE / name).write_text(text)

    return setup


def secret_nowhere(*relatives: str) -> Callable[[Path, Run], None]:
    """A check: SECRET reached no file of the project (caches included) and none of
    `relatives` (written by the command) shows it."""

    def check(root: Path, done: Run) -> None:
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink() and path.stat().st_size < 2**20:
                assert SECRET.encode() not in path.read_bytes(), path
        assert SECRET not in done.out + done.err

    return check


def task_title_of(sid: str, tid: str, title: str) -> Callable[[Path, Run], None]:
    def check(root: Path, done: Run) -> None:
        task = json.loads((root / ".workflow" / sid / ".task" / f"{tid}.json").read_text())
        assert task["title"] == title, task

    return check


def blocked_saying(text: str) -> Callable[[Path, Run], None]:
    """A check: the task is blocked, its reason names the refused ref and says `text`
    once, and the resume line that lands it follows (no step runs again)."""

    def check(root: Path, done: Run) -> None:
        first, resume, why = done.out.splitlines()
        assert first == (
            "IMPL-2: blocked: IMPL-2 completed here, but its work is not on origin: "
            + remote_refused("refs/heads/main", text).rstrip("\n")
            + "; its steps are done: once origin can be reached and takes it, "
            "`wfs --session WFS-h execute --remote origin --resume IMPL-2` lands it"
        ), done.out
        assert resume == "  Resume: wfs --session WFS-h execute --remote origin --resume IMPL-2"
        assert why == "  (its steps are done: this lands it; no step runs again)"
        assert done.out.count(text) == 1

    return check


def not_there(path: Path) -> None:
    assert not os.path.lexists(path), f"{path.name} was made"


def no_session(sid: str) -> Callable[[Path, Run], None]:
    def check(root: Path, done: Run) -> None:
        assert not os.path.lexists(root / ".workflow" / sid)
        assert not list((root / ".workflow").glob(".WFS-*")), "a staging folder was left"

    return check


def plan_again(agent: str) -> str:
    """The retry `wfs plan` prints, with the agent it was given."""
    return f"Or ask the agent again, with more rounds:\n  wfs plan t --agent {shlex.quote(agent)} --max-rounds 2\n"


def refusing_remote(refs: str, said: str) -> Callable[[Path], None]:
    """The project a clone whose remote `origin` (remote.git, beside the plan, ignored)
    refuses every push to a ref matching `refs` in its pre-receive hook, saying `said`
    (a protected branch, a server that takes no wfs refs)."""

    def setup(root: Path) -> None:
        committed(root)
        git = ["git", "-C", str(root)]
        subprocess.run([*git, "config", "user.name", "t"], check=True)
        subprocess.run([*git, "config", "user.email", "t@t"], check=True)
        (root / ".git" / "info" / "exclude").write_text("remote.git/\n")
        bare = root / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
        subprocess.run([*git, "remote", "add", "origin", str(bare)], check=True)
        subprocess.run([*git, "push", "-q", "origin", "HEAD:refs/heads/main"], check=True)
        subprocess.run([*git, "branch", "-q", "-M", "main"], check=True)
        hook = bare / "hooks" / "pre-receive"
        hook.write_text(
            "#!/bin/sh\nwhile read old new ref; do case $ref in "
            f'{refs}) echo "{said}" >&2; exit 1;; esac; done\n'
        )
        hook.chmod(0o755)

    return setup


def on_the_remote(text: str) -> Callable[[Path, Run], None]:
    """A check: the remote's main holds a commit whose message says `text`."""

    def check(root: Path, done: Run) -> None:
        log = git(root / "remote.git", "log", "--format=%s", "main").stdout
        assert any(text in line for line in log.splitlines()), log

    return check


def remote_refused(ref: str, said: str) -> str:
    return (
        f"git push origin: the remote refused {ref}: [remote rejected] (pre-receive hook "
        f"declined): {said} (no retry changes that: it is the remote's decision)\n"
    )


def remote_claim(tid: str, message: str) -> Callable[[Path], None]:
    """The project a clone whose claims remote `origin` (remote.git, ignored) holds the
    ref of `tid`'s claim, a commit whose message is `message`."""

    def setup(root: Path) -> None:
        refusing_remote("refs/nothing", "")(root)
        (root / "remote.git" / "hooks" / "pre-receive").unlink()
        git = ["git", "-C", str(root)]
        tree = subprocess.run(
            [*git, "hash-object", "-t", "tree", "-w", "/dev/null"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
        commit = subprocess.run(
            [*git, "hash-object", "-t", "commit", "-w", "--stdin"],
            input=f"tree {tree}\n\n{message}", check=True, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
        ref = f"refs/wfs/claims/WFS-h/{tid}"
        subprocess.run([*git, "push", "-q", "origin", f"{commit}:{ref}"], check=True)
        (root / ".workflow" / "config.json").write_text('{"claims": {"remote": "origin"}}\n')

    return setup


def assert_ends(text: str, pattern: str) -> None:
    assert re.search(pattern + r"\Z", text), text


def lease_json(tid: str, epoch: int = 1) -> str:
    return json.dumps(
        {"session": "WFS-h", "task": tid, "owner": "elsewhere:1", "where": "/x",
         "since": "2026-01-01T00:00:00.000000Z", "expires": "2999-01-01T00:00:00.000000Z",
         "epoch": epoch}
    )  # fmt: skip


def not_a_claim(tid: str, why: str) -> str:
    return f"Claimed:  {tid}: not a claim: origin refs/wfs/claims/WFS-h/{tid}{why}; free to take over\n"


def identified(root: Path) -> None:
    """The project committed, with a name and e-mail for git's commits."""
    committed(root)
    for key, value in (("user.name", "t"), ("user.email", "t@t")):
        subprocess.run(["git", "-C", str(root), "config", key, value], check=True)


def removed(relative: str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        shutil.rmtree(root / relative)

    return setup


def branch_with_a_commit(branch: str, name: str) -> Callable[[Path], None]:
    """`branch` made from HEAD with one commit of its own adding the file `name` (a
    conflict resolved on a task's branch, as docs/parallel.md says)."""

    def setup(root: Path) -> None:
        git = ["git", "-C", str(root)]
        subprocess.run([*git, "checkout", "-q", "-b", branch], check=True)
        (root / name).write_text("resolved\n")
        subprocess.run([*git, "add", name], check=True)
        subprocess.run([*git, "commit", "-qm", "resolved"], check=True)
        subprocess.run([*git, "checkout", "-q", "-"], check=True)

    return setup


def in_head(name: str) -> Callable[[Path, Run], None]:
    """A check: the session's branch holds `name` (the task branch's commit was kept)."""

    def check(root: Path, done: Run) -> None:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-tree", "--name-only", "HEAD", "--", name],
            check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        assert listed == f"{name}\n", listed

    return check


def said_blocked(*tids: str) -> Callable[[Path, Run], None]:
    """A check: each task is said blocked (never "not run"), with why and its way on."""

    def check(root: Path, done: Run) -> None:
        assert "not run" not in done.out, done.out
        for tid in tids:
            assert (
                f"{tid}: blocked: cannot make the task's worktree: git worktree: cannot lock ref "
                f"'refs/heads/wfs/WFS-h/{tid}'"
            ) in done.out, done.out
            assert (
                f"  Resume: wfs --session WFS-h execute --agent 'echo done' --resume {tid}\n"
                in done.out
            ), done.out

    return check


LONG_FOLDER = "WFS-" + "a" * 236  # the id check took it; its journal's staging name did not fit


def renamed_session(sid: str) -> Callable[[Path], None]:
    """The session WFS-h moved to the folder `sid`, its file saying so, and active."""

    def setup(root: Path) -> None:
        (root / S).rename(root / ".workflow" / sid)
        (root / ".workflow" / ".active-WFS-h").unlink()
        path = root / ".workflow" / sid / "workflow-session.json"
        path.write_text(path.read_text().replace('"WFS-h"', json.dumps(sid)))

    return setup


WORKTREE_2 = ".workflow/.worktrees/WFS-h/IMPL-2"


def lines_are(lines: Iterable[str]) -> Callable[[Path, Run], None]:
    """A check: stdout is these lines, in any order (tasks run at once)."""
    expected = sorted(lines)

    def check(root: Path, done: Run) -> None:
        assert sorted(done.out.splitlines()) == expected, done.out

    return check


CASES = [
    # ------------------------------------------------- the merge driver, wide numbers
    Case(
        "merge",
        "neighbouring lines changed on each side of a file with an integer wider than 64 bits",
        merge_files(
            WIDE_JSON.format(title="Leaf", status="pending"),
            WIDE_JSON.format(title="Leaf 2", status="pending"),
            WIDE_JSON.format(title="Leaf", status="blocked"),
        ),
        MERGE,
        0,
        "",
        out="",
        writes=("m/ours",),
        check=merged(WIDE_JSON.format(title="Leaf 2", status="blocked")),
    ),
    # --------------------------------------------- the validate cache, after a move
    Case(
        "caches",
        "validate after migrate --layout active names the files where they are",
        steps(
            edit_task("IMPL-2", status="done"),
            cli("validate", code=1),
            cli("migrate", "--layout", "active"),
        ),
        ("validate",),
        1,
        "",
        out='.workflow/active/WFS-h/.task/IMPL-2.json#/status: status: status "done" is not '
        "one of pending, active, completed, blocked, container\n",
    ),
    Case(
        "caches",
        "validate --all after session complete names the files where they are",
        steps(
            cli("migrate", "--layout", "active"),
            *(
                cli("task", "status", tid, "completed")
                for tid in ("IMPL-1.1", "IMPL-1.2", "IMPL-2")
            ),
            raw_edit(
                ".workflow/active/WFS-h/.task/IMPL-2.json",
                b'"title": "Leaf",',
                b'"title": "Leaf",\n  "title": "Leaf",',
            ),
            cli("validate", "--all"),
            cli("session", "complete", "WFS-h"),
        ),
        ("validate", "--all"),
        0,
        "",
        out=".workflow/archives/WFS-h/.task/IMPL-2.json#/title: duplicate-key: warning: key "
        '"title" is given 2 times; the last one counts, and `wfs migrate` keeps only it\n',
    ),
    # ---------------------------------------------------- ids every write can use
    Case(
        "argv",
        "a session folder of 240 characters: task status",
        renamed_session(LONG_FOLDER),
        ("--session", LONG_FOLDER, "task", "status", "IMPL-2", "completed"),
        2,
        f"wfs: error: invalid session id '{LONG_FOLDER[:40]}...' (240 characters): it is too "
        "long to name a file (at most 233 bytes)\n",
    ),
    # ------------------------------------------------------ leftovers and doctor
    Case(
        "leftovers",
        "doctor --fix with a temporary file left in .workflow/.scratchpad",
        write(".workflow/.scratchpad/.note.md.0a1b2c3d.tmp", "half"),
        ("doctor", "--fix"),
        0,
        "",
        out="fixed: .workflow/.scratchpad/.note.md.0a1b2c3d.tmp: leftover temporary file from "
        "an interrupted write (removed it)\n",
        writes=(".workflow/.scratchpad/",),
        check=absent(".workflow/.scratchpad/.note.md.0a1b2c3d.tmp"),
    ),
    # ------------------------------------------------- planning: wfs plan --from
    Case(
        "planning",
        "plan --from a task id of 300 digits",
        write("plan.json", json.dumps([{"id": "IMPL-" + "1" * 300, "title": "a"}])),
        ("plan", "t", "--from", "plan.json"),
        2,
        "wfs: error: plan.json: 1 problem; nothing was written:\n"
        'plan.json#/0/id: id-format: task id "IMPL-' + "1" * 70 + '..." is too long to name '
        "a file (at most 228 characters)\n",
        check=no_session("WFS-t"),
    ),
    # ------------------------------------------------------- the tasks' worktrees
    Case(
        "worktrees",
        "execute --jobs 2 with .workflow/.worktrees symlinked out",
        steps(identified, link(".workflow/.worktrees", outside(""))),
        ("execute", "--all", "--jobs", "2", "--agent", "echo done"),
        2,
        "",
        writes=(".git/",),
        check=both(
            task_status("IMPL-2", "pending"),
            lines_are(
                [
                    *(
                        f"{tid}: not run: the tasks' worktrees folder: path '.workflow/.worktrees' "
                        "leads outside the project root (through a symlink)"
                        for tid in ("IMPL-1.1", "IMPL-2")
                    ),
                    "Run: 2 not run; 3 tasks still pending.",
                ]
            ),
        ),
        process=True,
        posix=True,
    ),
    Case(
        "worktrees",
        "execute --jobs 2 with .workflow/.worktrees a file",
        steps(identified, write(".workflow/.worktrees", "")),
        ("execute", "--all", "--jobs", "2", "--agent", "echo done"),
        2,
        "",
        writes=(".git/",),
        check=both(
            task_status("IMPL-2", "pending"),
            lines_are(
                [
                    *(
                        f"{tid}: not run: the tasks' worktrees folder: .workflow/.worktrees is not a folder"
                        for tid in ("IMPL-1.1", "IMPL-2")
                    ),
                    "Run: 2 not run; 3 tasks still pending.",
                ]
            ),
        ),
        process=True,
        posix=True,
    ),
    Case(
        "worktrees",
        "execute --jobs 2 with a branch in the way of the tasks' branches",
        steps(identified, lambda root: git(root, "branch", "wfs/WFS-h")),
        ("execute", "--all", "--jobs", "2", "--agent", "echo done"),
        1,
        "",
        writes=(".git/", ".workflow/"),
        check=both(task_status("IMPL-2", "blocked"), said_blocked("IMPL-1.1", "IMPL-2")),
        process=True,
        posix=True,
    ),
    Case(
        "worktrees",
        "execute --resume of a task whose worktree was deleted by hand",
        steps(identified, cli("execute", "--all", "--jobs", "2", code=3), removed(WORKTREE_2)),
        ("execute", "--resume", "IMPL-2", "--output", "done"),
        0,
        "  IMPL-2 ▶ Leaf …\n  IMPL-2 · Leaf: done …",
        out="IMPL-2: completed → .workflow/WFS-h/.summaries/IMPL-2-summary.md\n",
        writes=(".git/", ".workflow/"),
        check=task_status("IMPL-2", "completed"),
        process=True,
        posix=True,
    ),
    Case(
        "worktrees",
        "execute --jobs 2 keeps a task branch with a commit of its own",
        steps(identified, branch_with_a_commit("wfs/WFS-h/IMPL-2", "resolved.txt")),
        ("execute", "--all", "--jobs", "2", "--agent", "echo done"),
        0,
        "…",  # each task's progress, in the order they ran
        writes=(".git/", ".workflow/", "resolved.txt"),
        check=both(task_status("IMPL-2", "completed"), in_head("resolved.txt")),
        process=True,
        posix=True,
    ),
    # --------------------------------------------------- claims on the claims remote
    *(
        Case(
            "claims",
            f"status with a claim ref {name}",
            remote_claim("IMPL-2", message),
            ("status",),
            0,
            "",
            out=STATUS_OUT + not_a_claim("IMPL-2", why),
            writes=(".git/",),
            posix=True,
        )
        for name, message, why in [
            (
                "that holds no JSON",
                "not json",
                ":1:1: invalid JSON: invalid literal, expected 'null'",
            ),
            (
                "holding the claim of another task",
                lease_json("IMPL-1.1"),
                ": holds the claim of WFS-h/IMPL-1.1",
            ),
            (
                "with an epoch at the end of 64 bits",
                lease_json("IMPL-2", 2**63 - 1),
                f"#/epoch: expected a number from 0 to 2^53, got {2**63 - 1}",
            ),
        ]
    ),
    Case(
        "claims",
        "execute with a lease of 2^63-1 seconds configured",
        write(".workflow/config.json", '{"claims": {"lease_seconds": 9223372036854775807}}'),
        ("execute", "IMPL-2", "--agent", "echo done"),
        2,
        "wfs: error: .workflow/config.json#/claims/lease_seconds: 9223372036854775807 is "
        "longer than a year (31536000 seconds); a dead holder's task waits that long\n",
        check=task_status("IMPL-2", "pending"),
    ),
    Case(
        "claims",
        "status with a claim whose lease runs to the year 9999",
        remote_claim("IMPL-2", lease_json("IMPL-2").replace("2999-01-01", "9999-12-31")),
        ("status",),
        0,
        "",
        out=STATUS_OUT + "Claimed:  IMPL-2: held by process 1 on elsewhere in /x, for …",
        writes=(".git/",),
        check=lambda root, done: assert_ends(
            done.out, r"for \d+h\d\dm; its lease ran out: free to take over\n"
        ),
        posix=True,
    ),
    Case(
        "claims",
        "execute takes over a claim ref that holds no JSON",
        steps(remote_claim("IMPL-2", "not json"), step_task("bash(true)")),
        ("execute", "IMPL-2"),
        0,
        "  IMPL-2 ▶ s …\n  IMPL-2 · s: done …",
        out="IMPL-2: completed → .workflow/WFS-h/.summaries/IMPL-2-summary.md\n",
        writes=(".git/", "remote.git", *COMPLETED),
        check=task_status("IMPL-2", "completed"),
        posix=True,
    ),
    # ------------------------------------------------------ edits: split and expand
    *(
        Case(
            "edits",
            f"task split --from {name}",
            write("sub.json", json.dumps([{"id": first, "title": "a"}, second])),
            ("task", "split", "IMPL-2", "--from", "sub.json"),
            2,
            f"wfs: error: sub.json#/1/id: {first!r} is given twice (also #/0); each subtask "
            "needs an id of its own\n",
            check=absent(f"{T}/IMPL-2.1.json"),
        )
        for name, first, second in [
            ("one id given twice", "IMPL-2.1", {"id": "IMPL-2.1", "title": "b"}),
            ("an id the next subtask is numbered with", "IMPL-2.2", {"title": "b"}),
        ]
    ),
    Case(
        "edits",
        "task expand: the agent gives one id twice",
        nothing,
        (
            "task",
            "expand",
            "IMPL-2",
            "--max-rounds",
            "1",
            "--agent",
            "echo '"
            + json.dumps([{"id": "IMPL-2.1", "title": "a"}, {"id": "IMPL-2.1", "title": "b"}])
            + "'",
        ),
        1,
        "wfs: round 1 of 1: the planning agent is writing the subtask array…\n"
        "wfs: error: the planning agent gave no valid subtask array in 1 round; nothing was "
        "written. The last problems:\n"
        "  IMPL-2-subtasks.json#/1/id: 'IMPL-2.1' is given twice (also #/0); each subtask "
        "needs an id of its own\n"
        "The last answer is kept in .workflow/.cache/IMPL-2-subtasks-draft.json: fix it, then run\n"
        "  wfs task split IMPL-2 --from .workflow/.cache/IMPL-2-subtasks-draft.json\n"
        "Or ask the agent again, with more rounds:\n  wfs task expand IMPL-2 --agent "
        + shlex.quote(
            "echo '"
            + json.dumps([{"id": "IMPL-2.1", "title": "a"}, {"id": "IMPL-2.1", "title": "b"}])
            + "'"
        )
        + " --max-rounds 2\n",
        check=absent(f"{T}/IMPL-2.1.json"),
    ),
    # ------------------------------------ paths from data: the one confinement check
    *(
        Case(
            "paths",
            f"{command} {what}: {' '.join(args)}",
            steps(
                secret_outside("s.txt"),
                link("out", outside("")),
                link("out.txt", outside("s.txt")),
                step_task(command),
            ),
            args,
            code,
            err.format(where=where) if code == 2 else "",
            out=None if code == 2 else where + "\n",
            check=both(task_status("IMPL-2", "pending"), secret_nowhere()),
            posix=True,
        )
        for command, what, where in [
            (
                "Read(out.txt)",
                "a symlink out of the root",
                f"{T}/IMPL-2.json#/flow_control/implementation_approach/0/command: "
                'implementation-approach: Read() path "out.txt" leads outside the project root '
                "(through a symlink)",
            ),
            (
                "Grep(SECRET, out/s.txt)",
                "through a folder symlinked out of the root",
                f"{T}/IMPL-2.json#/flow_control/implementation_approach/0/command: "
                'implementation-approach: Grep() path "out/s.txt" leads outside the project root '
                "(through a symlink)",
            ),
            (
                "Read({session}/../../s.txt)",
                "a placeholder path out of the root",
                f"{T}/IMPL-2.json#/flow_control/implementation_approach/0/command: "
                'implementation-approach: Read() path "{session}/../../s.txt" leads outside the '
                "project root",
            ),
        ]
        for args, code, err in [
            (("validate",), 1, ""),
            (
                ("execute", "IMPL-2", "--agent", "cat"),
                2,
                "wfs: error: IMPL-2 cannot run as written; nothing was changed (`wfs validate` "
                "reports the same):\n{where}\n",
            ),
        ]
    ),
    # ------------------------------------------------ pushes the remote refuses
    Case(
        "pushes",
        "execute --jobs 2 with a claims remote whose URL is a relative path",
        steps(
            refusing_remote("refs/nothing", ""),
            lambda root: git(root, "remote", "set-url", "origin", "remote.git"),
        ),
        ("execute", "--all", "--jobs", "2", "--remote", "origin", "--agent", "echo done"),
        0,
        "…",  # each task's progress, in the order they ran
        writes=(".git/", ".workflow/", "remote.git"),
        check=both(task_status("IMPL-2", "completed"), on_the_remote("IMPL-2 completed")),
        process=True,
        posix=True,
    ),
    Case(
        "pushes",
        "claims refused by the remote's hook",
        steps(refusing_remote("refs/wfs/*", "no wfs refs here"), step_task("bash(true)")),
        ("execute", "IMPL-2", "--remote", "origin"),
        2,
        "wfs: error: " + remote_refused("refs/wfs/claims/WFS-h/IMPL-2", "no wfs refs here"),
        writes=(".git/", "remote.git"),
        check=task_status("IMPL-2", "pending"),
        posix=True,
    ),
    Case(
        "pushes",
        "a protected main, at the end of a task",
        steps(refusing_remote("refs/heads/main", "main is protected"), step_task("bash(true)")),
        ("execute", "IMPL-2", "--remote", "origin"),
        1,  # blocked, with a resume line that lands it (no step runs again)
        "  IMPL-2 ▶ s …\n  IMPL-2 · s: done …",
        writes=(".git/", "remote.git", *COMPLETED),
        check=both(task_status("IMPL-2", "blocked"), blocked_saying("main is protected")),
        posix=True,
    ),
    # ------------------------------------------------- reading: the one guarded reader
    Case(
        "reading",
        "diff with a FIFO task file",
        steps(committed, replaced_by(f"{T}/IMPL-2.json", "fifo")),
        ("diff",),
        2,
        f"wfs: error: {T}/IMPL-2.json: {NOT_REGULAR}\n",
        writes=(".git/",),
        posix=True,
    ),
    Case(
        "reading",
        "diff with a task file symlinked out of the project",
        steps(
            committed,
            secret_outside("IMPL-2.json"),
            link(f"{T}/IMPL-2.json", outside("IMPL-2.json")),
        ),
        ("diff",),
        2,
        f"wfs: error: {T}/IMPL-2.json: is a symlink leading outside the project root; wfs "
        "does not follow it\n",
        writes=(".git/",),
        check=secret_nowhere(),
        posix=True,
    ),
    Case(
        "reading",
        "board --export with a FIFO summary",
        replaced_by(SUMMARY, "fifo"),
        ("board", "--export", "board.html"),
        0,
        "",
        out="Wrote board.html\n",
        writes=("board.html",),
        check=still(SUMMARY, "fifo"),
        posix=True,
    ),
    Case(
        "reading",
        "board --export with a summary symlinked out of the project",
        steps(
            write(f"{S}/.summaries/x", ""),
            lambda root: (root.parent / ELSEWHERE / "s.md").write_text(SECRET),
            link(SUMMARY, outside("s.md")),
        ),
        ("board", "--export", "board.html"),
        0,
        "",
        out="Wrote board.html\n",
        writes=("board.html",),
        check=secret_nowhere("board.html"),
        posix=True,
    ),
    # -------------------------------------------------- planning: the agent's answer
    Case(
        "planning",
        "an answer naming a file outside the project",
        secret_outside("plan.json"),
        ("plan", "t", "--max-rounds", "1", "--agent", f"echo ../{ELSEWHERE}/plan.json"),
        1,
        "wfs: round 1 of 1: the planning agent is writing the plan…\n"
        "wfs: error: the planning agent gave no valid plan in 1 round; nothing was written. "
        "The last problems:\n"
        f"  the answer names the file '../{ELSEWHERE}/plan.json': path '../{ELSEWHERE}/plan.json' "
        "leads outside the project root; refused, nothing was read\n"
        + plan_again(f"echo ../{ELSEWHERE}/plan.json"),
        check=both(secret_nowhere(), no_session("WFS-t")),
    ),
    Case(
        "planning",
        "an answer naming a file symlinked out of the project",
        steps(secret_outside("plan.json"), link("plan.json", outside("plan.json"))),
        ("plan", "t", "--max-rounds", "1", "--agent", "echo plan.json"),
        1,
        "wfs: round 1 of 1: the planning agent is writing the plan…\n"
        "wfs: error: the planning agent gave no valid plan in 1 round; nothing was written. "
        "The last problems:\n"
        "  the answer names the file 'plan.json': path 'plan.json' leads outside the project "
        "root (through a symlink); refused, nothing was read\n" + plan_again("echo plan.json"),
        check=both(secret_nowhere(), no_session("WFS-t")),
        posix=True,
    ),
    Case(
        "planning",
        "an answer naming a file over 64 MiB",
        sparse("big.json", 65 * 2**20),
        ("plan", "t", "--max-rounds", "1", "--agent", "echo big.json"),
        1,
        "wfs: round 1 of 1: the planning agent is writing the plan…\n"
        "wfs: error: the planning agent gave no valid plan in 1 round; nothing was written. "
        "The last problems:\n"
        "  big.json: larger than 64 MiB; refused\n" + plan_again("echo big.json"),
        check=no_session("WFS-t"),
    ),
    Case(
        "planning",
        "an answer naming a FIFO",
        replaced_by("plan.json", "fifo"),
        ("plan", "t", "--max-rounds", "1", "--agent", "echo plan.json"),
        1,
        "wfs: round 1 of 1: the planning agent is writing the plan…\n"
        "wfs: error: the planning agent gave no valid plan in 1 round; nothing was written. "
        "The last problems:\n"
        "  the answer holds no ```json block, and its last line names no file that exists: "
        "'plan.json'\n" + plan_again("echo plan.json"),
        check=no_session("WFS-t"),
        posix=True,
    ),
    Case(
        "planning",
        "the agent makes the topic's session itself",
        write("plan.json", json.dumps([{"id": "IMPL-1", "title": "made by the agent"}])),
        (
            "plan",
            "t",
            "--agent",
            f"sh -c '{sys.executable} -m wfs plan t --from plan.json >/dev/null && echo plan.json'",
        ),
        0,
        "wfs: round 1 of 3: the planning agent is writing the plan…\n"
        "wfs: plan accepted in round 1 of 3\n",
        out="WFS-t…",
        writes=(".workflow/WFS-t", ".workflow/.active-", f"{S}/workflow-session.json", *VIEWS),
        check=both(
            task_title_of("WFS-t", "IMPL-1", "made by the agent"),
            lambda root, done: not_there(root / ".workflow" / "WFS-t-002"),
        ),
    ),
    Case(
        "planning",
        "a bare JSON answer longer than a file name",
        nothing,
        (
            "plan",
            "t",
            "--agent",
            "echo '" + json.dumps([{"id": "IMPL-1", "title": "x" * 300}]) + "'",
        ),
        0,
        "wfs: round 1 of 3: the planning agent is writing the plan…\n"
        "wfs: plan accepted in round 1 of 3\n",
        out="WFS-t…",
        writes=(".workflow/WFS-t", ".workflow/.active-", f"{S}/workflow-session.json", *VIEWS),
        check=task_title_of("WFS-t", "IMPL-1", "x" * 300),
    ),
    # ------------------------------------------------------- values reaching programs
    *(
        Case(
            "programs",
            f"claims remote {name}: {' '.join(args)}",
            claims_remote(value),
            args,
            2,
            not_a_remote(value),
            check=not_run,
            posix=True,
        )
        for name, value in HOSTILE_REMOTES
        for args in [
            ("status",),
            ("board", "--export", "board.html"),
            ("execute", "--all"),
            ("execute", "IMPL-2"),
        ]
    ),
    Case(
        "programs",
        "execute --remote an option",
        claims_remote("origin"),
        ("execute", "--all", f"--remote=--upload-pack=touch ../{ELSEWHERE}/PWNED;"),
        2,
        "Usage: wfs execute [OPTIONS] [ID]\n"
        "Try 'wfs execute --help' for help.\n\n"
        "Error: Invalid value for '--remote': "
        f"'--upload-pack=touch ../{ELSEWHERE}/PWNED;': a remote's name or URL never "
        "starts with '-'\n",
        check=not_run,
        process=True,
        posix=True,
    ),
    Case(
        "programs",
        "diff an option as the revision",
        claims_remote("origin"),
        ("diff", "--", "--output=PWNED"),
        2,
        "wfs: error: bad revision '--output=PWNED'\n",
        check=not_run,
        posix=True,
    ),
    # ------------------------------------------------------------------- environment
    *(
        Case(
            "env",
            f"WFS_LOCK_TIMEOUT={shown}",
            nothing,
            ("task", "status", "IMPL-2", "blocked"),
            2,
            f"wfs: error: WFS_LOCK_TIMEOUT={said}: expected a number of seconds{more}\n",
            env={"WFS_LOCK_TIMEOUT": value},
        )
        for shown, value, said, more in [
            ("'' (empty)", "", "''", ""),
            ("' ' (a space)", " ", "' '", ""),
            ("0x10 (hexadecimal)", "0x10", "'0x10'", ""),
            ("5s (a unit)", "5s", "'5s'", ""),
            ("an escape sequence", "\x1b[2J", "'\\x1b[2J'", ""),
            ("1e400 (infinite once read)", "1e400", "'1e400'", " from 0 to 604800"),
            ("-inf", "-inf", "'-inf'", " from 0 to 604800"),
            ("-0.001", "-0.001", "'-0.001'", " from 0 to 604800"),
            (
                "500 digits",
                "9" * 500,
                f"{'9' * 40 + '...'!r} (500 characters)",
                " from 0 to 604800",
            ),
        ]
    ),
    Case(
        "env",
        "WFS_SESSION: a path",
        nothing,
        ("status",),
        2,
        "wfs: error: invalid session id '../x': it must not contain a path separator\n",
        env={"WFS_SESSION": "../x"},
    ),
    Case(
        "env",
        "WFS_SESSION: an escape sequence",
        nothing,
        ("next",),
        2,
        "wfs: error: unknown session 'h\\x1b]0;owned\\x07'; did you mean WFS-h?\n",
        env={"WFS_SESSION": "h\x1b]0;owned\x07"},
    ),
    Case(
        "env",
        "WFS_SESSION: 400 characters",
        nothing,
        ("task", "list"),
        2,
        f"wfs: error: invalid session id {'a' * 40 + '...'!r} (400 characters): it is too long to "
        "name a file (at most 233 bytes)\n",
        env={"WFS_SESSION": "a" * 400},
    ),
    Case(
        "env",
        "WFS_SESSION: the prefix alone",
        nothing,
        ("task", "status", "IMPL-2", "blocked"),
        2,
        "wfs: error: invalid session id 'WFS-': it must look like WFS-<slug>\n",
        env={"WFS_SESSION": "WFS-"},
    ),
    Case(
        "env",
        "WFS_SESSION: empty is unset",
        nothing,
        ("status",),
        0,
        "",
        out=STATUS_OUT,
        env={"WFS_SESSION": ""},
    ),
    Case(
        "env",
        "WFS_ROOT: a FIFO",
        fifo("../root.fifo"),
        ("status",),
        2,
        "wfs: error: project root '<ROOT>/../root.fifo' is not a directory\n",
        env={"WFS_ROOT": "<ROOT>/../root.fifo"},
        posix=True,
    ),
    Case(
        "env",
        "WFS_ROOT: an escape sequence",
        nothing,
        ("status",),
        2,
        "wfs: error: project root '/no/\\x1b[2J' is not a directory\n",
        env={"WFS_ROOT": "/no/\x1b[2J"},
    ),
    Case(
        "env",
        "WFS_AGENT: spaces only",
        nothing,
        ("execute", "IMPL-2"),
        2,
        "wfs: error: WFS_AGENT='   ': expected an agent command\n",
        env={"WFS_AGENT": "   "},
    ),
    Case(
        "env",
        "WFS_AGENT: an escape sequence in a command that is not there",
        nothing,
        ("execute", "IMPL-2"),
        1,
        "  IMPL-2 ▶ Leaf …\n  IMPL-2 · Leaf: failed …",
        out="IMPL-2: blocked: step task (Leaf) failed: the agent `no-such-agent-\\x1b[2J` "
        "failed: exit code 127…",
        env={"WFS_AGENT": "no-such-agent-\x1b[2J"},
        writes=COMPLETED,
        check=task_status("IMPL-2", "blocked"),
    ),
    Case(
        "env",
        "WFS_AGENT_INPUT: not a form",
        nothing,
        ("execute", "IMPL-2"),
        2,
        'wfs: error: WFS_AGENT_INPUT: expected "markdown" or "json" (what an agent command '
        "gets on stdin), got 'xml'\n",
        env={"WFS_AGENT_INPUT": "xml", "WFS_AGENT": "cat"},
    ),
    Case(
        "env",
        "WFS_AGENT_INPUT: empty",
        nothing,
        ("execute", "IMPL-2"),
        2,
        'wfs: error: WFS_AGENT_INPUT: expected "markdown" or "json" (what an agent command '
        "gets on stdin), got ''\n",
        env={"WFS_AGENT_INPUT": "", "WFS_AGENT": "cat"},
    ),
    Case(
        "env",
        "WFS_NO_CACHE with the cache folder a FIFO",
        replaced_by(CACHE, "fifo"),
        ("status",),
        0,
        "",
        out=STATUS_OUT,
        env={"WFS_NO_CACHE": "1"},
        check=still(CACHE, "fifo"),
        posix=True,
    ),
    # ------------------------------------------------------------------------ caches
    Case(
        "caches",
        ".idx cut in half",
        truncated(f"{CACHE}/WFS-h.idx", 0.5),
        ("status",),
        0,
        "",
        out=STATUS_OUT,
        check=cache_usable("idx", "status"),
    ),
    Case(
        "caches",
        ".idx empty",
        replaced_by(f"{CACHE}/WFS-h.idx", ""),
        ("next",),
        0,
        "",
        out=NEXT_OUT,
        check=cache_usable("idx", "next"),
    ),
    Case(
        "caches",
        ".idx scrambled, same size",
        scrambled(f"{CACHE}/WFS-h.idx"),
        ("task", "show", "IMPL-2"),
        0,
        "",
        out="IMPL-2  Leaf\nStatus:      pending, ready: `wfs execute IMPL-2` runs it\n…",
        check=cache_usable("idx", "task", "show", "IMPL-2"),
    ),
    Case(
        "caches",
        ".idx a FIFO",
        replaced_by(f"{CACHE}/WFS-h.idx", "fifo"),
        ("status",),
        0,
        "",
        out=STATUS_OUT,
        check=cache_usable("idx", "status"),
        posix=True,
    ),
    Case(
        "caches",
        ".idx a folder",
        replaced_by(f"{CACHE}/WFS-h.idx", "folder"),
        ("status",),
        0,
        "",
        out=STATUS_OUT,
        check=both(still(f"{CACHE}/WFS-h.idx", "folder"), same_again("status")),
    ),
    Case(
        "caches",
        ".idx larger than wfs reads",
        sparse(f"{CACHE}/WFS-h.idx", 64 * 1024 * 1024 + 1),
        ("next",),
        0,
        "",
        out=NEXT_OUT,
        check=cache_usable("idx", "next"),
    ),
    Case(
        "caches",
        ".skel cut in half",
        truncated(f"{CACHE}/WFS-h.skel", 0.5),
        ("task", "list"),
        0,
        "",
        out=LIST_OUT,
        check=cache_usable("skel", "task", "list"),
    ),
    Case(
        "caches",
        ".skel a symlink out of the root",
        steps(write(outside("skel"), "outside\n"), link(f"{CACHE}/WFS-h.skel", outside("skel"))),
        ("task", "list"),
        0,
        "",
        out=LIST_OUT,
        check=cache_usable("skel", "task", "list"),
    ),
    Case(
        "caches",
        ".skel sealed, of this format, not its shape",
        sealed(f"{CACHE}/WFS-h.skel", (index.FORMAT, ["IMPL-2.json"], [None], 5)),
        ("task", "list"),
        0,
        "",
        out=LIST_OUT,
        check=cache_usable("skel", "task", "list"),
    ),
    Case(
        "caches",
        ".skel sealed, of this format, too short",
        sealed(f"{CACHE}/WFS-h.skel", (index.FORMAT,)),
        ("next", "--all"),
        0,
        "",
        out="  [ ] IMPL-1.1  First  pending\n[ ] IMPL-2  Leaf  pending\n",
        check=cache_usable("skel", "next", "--all"),
    ),
    Case(
        "caches",
        ".skel of another Python",
        sealed(f"{CACHE}/WFS-h.skel", (("wfs-index", index.FORMAT[1], 0), [], [], [])),
        ("task", "list"),
        0,
        "",
        out=LIST_OUT,
        check=cache_usable("skel", "task", "list"),
    ),
    Case(
        "caches",
        ".valid scrambled (and no .vall)",
        steps(scrambled(f"{CACHE}/WFS-h.valid"), replaced_by(f"{CACHE}/WFS-h.vall", "")),
        ("validate",),
        0,
        "",
        out=OK_OUT,
        check=cache_usable("valid", "validate"),
    ),
    Case(
        "caches",
        ".valid sealed, of this format and these rules, its lists unmatched (and no .vall)",
        steps(
            lambda root: sealed(
                f"{CACHE}/WFS-h.valid",
                (index.FORMAT, validate._rules_stamp(root / S), ["IMPL-2.json"], [], []),
            )(root),
            replaced_by(f"{CACHE}/WFS-h.vall", ""),
        ),
        ("validate",),
        0,
        "",
        out=OK_OUT,
        check=cache_usable("valid", "validate"),
    ),
    Case(
        "caches",
        ".vall larger than wfs reads",
        sparse(f"{CACHE}/WFS-h.vall", 64 * 1024 * 1024 + 1),
        ("validate", "--all"),
        0,
        "",
        out=OK_OUT,
        check=cache_usable("vall", "validate", "--all"),
    ),
    Case(
        "caches",
        ".svalid a symlink to /dev/zero",
        link(f"{CACHE}/WFS-h.svalid", "/dev/zero"),
        ("validate",),
        0,
        "",
        out=OK_OUT,
        check=cache_usable("svalid", "validate"),
        posix=True,
    ),
    Case(
        "caches",
        "the cache folder a file",
        replaced_by(CACHE, "not a folder"),
        ("status",),
        0,
        "",
        out=STATUS_OUT,
        check=both(still(CACHE, "not a folder"), same_again("status")),
    ),
    Case(
        "caches",
        "the cache folder a symlink out of the root",
        steps(write(outside("cache/.keep"), ""), link(CACHE, outside("cache"))),
        ("status",),
        0,
        "",
        out=STATUS_OUT,
        check=both(still(CACHE, "link", "cache"), same_again("status")),
    ),
    # ------------------------------------------------------------------------- locks
    Case(
        "locks",
        "session lock a symlink out of the root, to nothing",
        link(SESSION_LOCK, outside("made.lock")),
        ("task", "status", "IMPL-2", "blocked"),
        2,
        f"wfs: error: <ROOT>/{SESSION_LOCK}: refused: the lock file is a symlink (wfs never "
        "locks or writes through one); remove it\n",
        check=still(SESSION_LOCK, "link", "made.lock"),
    ),
    Case(
        "locks",
        "session lock a symlink to a file outside",
        steps(write(outside("victim"), "keep\n"), link(SESSION_LOCK, outside("victim"))),
        ("task", "add", "--title", "x"),
        2,
        f"wfs: error: <ROOT>/{SESSION_LOCK}: refused: the lock file is a symlink (wfs never "
        "locks or writes through one); remove it\n",
    ),
    Case(
        "locks",
        "session lock a folder",
        replaced_by(SESSION_LOCK, "folder"),
        ("task", "status", "IMPL-2", "blocked"),
        2,
        f"wfs: error: <ROOT>/{SESSION_LOCK}: refused: the lock file is not a regular file (a "
        "folder, a FIFO, a device or a socket); remove it\n",
        check=still(SESSION_LOCK, "folder"),
    ),
    Case(
        "locks",
        "session lock a FIFO",
        replaced_by(SESSION_LOCK, "fifo"),
        ("task", "update", "IMPL-2", "--title", "x"),
        2,
        f"wfs: error: <ROOT>/{SESSION_LOCK}: refused: the lock file is not a regular file (a "
        "folder, a FIFO, a device or a socket); remove it\n",
        check=still(SESSION_LOCK, "fifo"),
        posix=True,
    ),
    Case(
        "locks",
        "root lock a symlink",
        link(f"{LOCKS}/workflow.lock", outside("root.lock")),
        ("switch", "h"),
        2,
        f"wfs: error: <ROOT>/{LOCKS}/workflow.lock: refused: the lock file is a symlink (wfs "
        "never locks or writes through one); remove it\n",
    ),
    Case(
        "locks",
        "the locks folder a file",
        replaced_by(LOCKS, "a file"),
        ("task", "status", "IMPL-2", "blocked"),
        2,
        f"wfs: error: {SESSION_LOCK}: Not a directory; nothing was changed\n",
        check=still(LOCKS, "a file"),
    ),
    Case(
        "locks",
        "the locks folder a symlink out of the root",
        steps(write(outside("locks/.keep"), ""), link(LOCKS, outside("locks"))),
        ("task", "status", "IMPL-2", "blocked"),
        2,
        f"wfs: error: <ROOT>/{SESSION_LOCK}: refused: a symlink leads this path outside the "
        "project root (to <PARENT>/elsewhere/locks); nothing was written\n",
    ),
    Case(
        "locks",
        "session lock held by another process",
        held(SESSION_LOCK),
        ("task", "status", "IMPL-2", "blocked"),
        4,
        "wfs: error: WFS-h is locked by another wfs process (waited 0s); try again, or set "
        "WFS_LOCK_TIMEOUT to wait longer\n",
        env={"WFS_LOCK_TIMEOUT": "0"},
    ),
    Case(
        "locks",
        "session lock held: reads do not wait",
        held(SESSION_LOCK),
        ("status",),
        0,
        "",
        out=STATUS_OUT,
        env={"WFS_LOCK_TIMEOUT": "0"},
    ),
    Case(
        "locks",
        "root lock held by another process",
        held(f"{LOCKS}/workflow.lock"),
        ("plan", "other", "--empty"),
        4,
        "wfs: error: .workflow is locked by another wfs process (waited 0s); try again, or "
        "set WFS_LOCK_TIMEOUT to wait longer\n",
        env={"WFS_LOCK_TIMEOUT": "0"},
    ),
    # ------------------------------------------------------------------- merge driver
    Case(
        "merge",
        "two fields changed, one on each side",
        merge_files(
            BASE_JSON,
            '{"id": "IMPL-2", "title": "Leaf 2", "status": "pending"}\n',
            '{"id": "IMPL-2", "title": "Leaf", "status": "blocked"}\n',
        ),
        MERGE,
        0,
        "",
        out="",
        writes=("m/ours",),
        check=merged('{\n  "id": "IMPL-2",\n  "title": "Leaf 2",\n  "status": "blocked"\n}\n'),
    ),
    Case(
        "merge",
        "one value changed on both sides",
        merge_files(
            BASE_JSON,
            '{"id": "IMPL-2", "title": "Ours", "status": "pending"}\n',
            '{"id": "IMPL-2", "title": "Theirs", "status": "pending"}\n',
        ),
        MERGE,
        1,
        "",
        out="",
        writes=("m/ours",),
        check=merged(
            f"<<<<<<< ours:{T}/IMPL-2.json\n"
            '{"id": "IMPL-2", "title": "Ours", "status": "pending"}\n'
            "=======\n"
            '{"id": "IMPL-2", "title": "Theirs", "status": "pending"}\n'
            f">>>>>>> theirs:{T}/IMPL-2.json\n"
        ),
    ),
    Case(
        "merge",
        "ours an array",
        merge_files(BASE_JSON, "[1, 2]\n", '{"id": "IMPL-2", "title": "T", "status": "pending"}\n'),
        MERGE,
        1,
        "",
        out="",
        writes=("m/ours",),
        check=merged(
            f"<<<<<<< ours:{T}/IMPL-2.json\n[1, 2]\n=======\n"
            '{"id": "IMPL-2", "title": "T", "status": "pending"}\n'
            f">>>>>>> theirs:{T}/IMPL-2.json\n"
        ),
    ),
    Case(
        "merge",
        "theirs not JSON: a conflict, never a clean merge",
        merge_files(BASE_JSON, BASE_JSON, "not json at all\n"),
        MERGE,
        1,
        "",
        out="",
        writes=("m/ours",),
        check=merged("not json at all\n"),
    ),
    Case(
        "merge",
        "theirs nested 300 deep",
        merge_files(
            BASE_JSON, BASE_JSON, '{"id": "IMPL-2", "deep": ' + "[" * 300 + "]" * 300 + "}\n"
        ),
        MERGE,
        1,
        "",
        out="",
        writes=("m/ours",),
    ),
    Case(
        "merge",
        "session type changed to unknown values",
        merge_files(
            '{"session_id": "WFS-h", "type": "simple"}\n',
            '{"session_id": "WFS-h", "type": "huge"}\n',
            '{"session_id": "WFS-h", "type": "tiny"}\n',
        ),
        ("merge-json", "m/base", "m/ours", "m/theirs", f"{S}/workflow-session.json"),
        1,
        "",
        out="",
        writes=("m/ours",),
    ),
    Case(
        "merge",
        "theirs a FIFO",
        steps(merge_files(BASE_JSON, BASE_JSON, ""), fifo("m/theirs")),
        MERGE,
        2,
        f"wfs: error: {T}/IMPL-2.json (theirs): {NOT_REGULAR}\n",
        posix=True,
    ),
    Case(
        "merge",
        "base a symlink to /dev/zero",
        steps(merge_files("", BASE_JSON, BASE_JSON), symlink("m/base", "/dev/zero")),
        MERGE,
        2,
        f"wfs: error: {T}/IMPL-2.json (base): refused: a symlink leads this path outside the "
        "project root (to /dev/zero); nothing was read\n",
        posix=True,
    ),
    Case(
        "merge",
        "ours larger than wfs reads",
        steps(merge_files(BASE_JSON, "", BASE_JSON), sparse("m/ours", 64 * 1024 * 1024 + 1)),
        MERGE,
        2,
        f"wfs: error: {T}/IMPL-2.json (ours): larger than 64 MiB; refused\n",
    ),
    Case(
        "merge",
        "a side that is a folder",
        steps(merge_files(BASE_JSON, BASE_JSON, ""), replaced_by("m/theirs", "folder")),
        MERGE,
        2,
        "Usage: …",
    ),
    Case(
        "merge",
        "views: one line changed on both sides keeps ours",
        merge_files("a\nb\nc\n", "a\nB1\nc\n", "a\nB2\nc\n"),
        ("merge-views", "m/base", "m/ours", "m/theirs", f"{S}/TODO_LIST.md"),
        0,
        "",
        out="",
        check=merged("a\nB1\nc\n"),
    ),
    Case(
        "merge",
        "views: theirs a FIFO",
        steps(merge_files("a\n", "a\n", ""), fifo("m/theirs")),
        ("merge-views", "m/base", "m/ours", "m/theirs", f"{S}/TODO_LIST.md"),
        2,
        f"wfs: error: {S}/TODO_LIST.md (theirs): {NOT_REGULAR}\n",
        posix=True,
    ),
    # -------------------------------------------------------------------- killed runs
    Case(
        "kills",
        "SIGTERM while a step runs",
        killing_step("TERM"),
        ("execute", "IMPL-2"),
        143,
        "  IMPL-2 ▶ s …\n  IMPL-2 · s: interrupted …",
        out="IMPL-2: interrupted by SIGTERM at implementation_approach/1; the task is paused.\n"
        "  Resume: wfs --session WFS-h execute --resume IMPL-2\n",
        writes=COMPLETED,
        check=paused("interrupted (SIGTERM)"),
        process=True,
        posix=True,
    ),
    Case(
        "kills",
        "SIGINT while a step runs",
        killing_step("INT"),
        ("execute", "IMPL-2"),
        130,
        "  IMPL-2 ▶ s …\n  IMPL-2 · s: interrupted …",
        out="IMPL-2: interrupted by SIGINT at implementation_approach/1; the task is paused.\n"
        "  Resume: wfs --session WFS-h execute --resume IMPL-2\n",
        writes=COMPLETED,
        check=paused("interrupted (SIGINT)"),
        process=True,
        posix=True,
    ),
    Case(
        "kills",
        "SIGKILL while a step runs: status names it",
        killed_run,
        ("status", "--json"),
        0,
        "",
        check=stale,
        posix=True,
    ),
    Case(
        "kills",
        "SIGKILL while a step runs: execute refuses to start it again",
        killed_run,
        ("execute", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 is active, not pending; resume it with "
        "`wfs --session WFS-h execute --resume IMPL-2`\n",
        posix=True,
    ),
    Case(
        "kills",
        "SIGKILL while a step runs: --resume takes the claim over",
        killed_run,
        ("execute", "--resume", "IMPL-2"),
        0,
        "IMPL-2: took over the claim of …",
        out=f"IMPL-2: completed → {S}/.summaries/IMPL-2-summary.md\n",
        writes=COMPLETED,
        check=task_status("IMPL-2", "completed"),
        process=True,
        posix=True,
    ),
    Case(
        "kills",
        "journal torn: the next write drops it",
        write(JOURNAL, '{"renames": [["../WFS-h/.task/IMPL-2.json", "../WFS-h/.ta'),
        ("task", "status", "IMPL-1.1", "blocked"),
        0,
        "",
        out="IMPL-1.1: blocked\n",
        writes=(T, *COMPLETED[1:4]),
        check=both(absent(JOURNAL), task_status("IMPL-2", "pending")),
    ),
    Case(
        "kills",
        "journal whole, renames not done: the next write finishes them",
        staged_blocked,
        ("task", "status", "IMPL-1.1", "blocked"),
        0,
        "",
        out="IMPL-1.1: blocked\n",
        writes=(T, *COMPLETED[1:4]),
        check=both(absent(JOURNAL), task_status("IMPL-2", "blocked")),
    ),
    Case(
        "kills",
        "journal whole, renames not done: validate names it",
        staged_blocked,
        ("validate",),
        1,
        "",
        out=f"{JOURNAL}: interrupted: a change to several files of this session was "
        "interrupted, so they are half written; `wfs doctor --fix` finishes it\n",
    ),
    Case(
        "kills",
        "journal a FIFO",
        fifo(JOURNAL),
        ("task", "status", "IMPL-2", "blocked"),
        2,
        f"wfs: error: <ROOT>/{JOURNAL}: {NOT_REGULAR}; remove it if no wfs process is writing\n",
        check=still(JOURNAL, "fifo"),
        posix=True,
    ),
    Case(
        "kills",
        "journal a symlink to /dev/zero",
        symlink(JOURNAL, "/dev/zero"),
        ("task", "add", "--title", "x"),
        2,
        f"wfs: error: <ROOT>/{JOURNAL}: {NOT_REGULAR}; remove it if no wfs process is writing\n",
        check=still(JOURNAL, "link", "/dev/zero"),
        posix=True,
    ),
    *(
        Case(
            "kills",
            f"journal {name}",
            setup,
            ("task", "status", "IMPL-2", "blocked"),
            2,
            f"wfs: error: <ROOT>/{JOURNAL}: not the journal of an interrupted wfs write (each "
            "entry names a file of .workflow/ and the file staged beside it); nothing was "
            "changed; remove it if no wfs process is writing\n",
            check=present(JOURNAL),
        )
        for name, setup in [
            (
                "moving a task file over README.md",
                steps(
                    write("README.md", "keep\n"),
                    journal([["../../README.md", "../WFS-h/.task/IMPL-1.json"]]),
                ),
            ),
            (
                "renaming a file that is not staged",
                journal([["../WFS-h/.task/IMPL-2.json", "../WFS-h/.task/IMPL-1.json"]]),
            ),
            ("whose renames are a number", write(JOURNAL, '{"renames": 5}')),
            ("whose renames are numbers", write(JOURNAL, '{"renames": [[1, 2]]}')),
            (
                "of an old version writing outside .workflow/",
                write(JOURNAL, '{"files": [["../../x.txt", "text"]]}'),
            ),
        ]
    ),
    Case(
        "kills",
        "a temporary file of a killed write in .task",
        write(f"{T}/.IMPL-2.json.0a1b2c3d.tmp", '{"id": "IMPL-2", "tit'),
        ("task", "list"),
        0,
        "",
        out=LIST_OUT,
    ),
    Case(
        "kills",
        "a temporary file of a killed write: doctor names it",
        write(f"{T}/.IMPL-2.json.0a1b2c3d.tmp", '{"id": "IMPL-2", "tit'),
        ("doctor",),
        1,
        "",
        out=f"found: {T}/.IMPL-2.json.0a1b2c3d.tmp: leftover temporary file from an "
        "interrupted write (`wfs doctor --fix` repairs it and reports: removed it)\n",
    ),
    Case(
        "kills",
        "a run record torn by hand: resume names it",
        steps(cli("execute", "IMPL-2", code=3), truncated(f"{RUNS}/IMPL-2.json", 0.3)),
        ("execute", "--resume", "IMPL-2", "--output", "done"),
        2,
        f"wfs: error: {RUNS}/IMPL-2.json:…",
    ),
    Case(
        "kills",
        "an output log with a torn last line: log shows what is whole",
        steps(cli("execute", "IMPL-2", code=3), truncated(f"{RUNS}/IMPL-2.output.jsonl", 0.7)),
        ("log", "IMPL-2"),
        0,
        "",
        out="IMPL-2 · Leaf: paused\n  ▶ Leaf …\n…",
    ),
    Case(
        "kills",
        "an output log that is a FIFO: resume refuses before anything",
        steps(cli("execute", "IMPL-2", code=3), replaced_by(f"{RUNS}/IMPL-2.output.jsonl", "fifo")),
        ("execute", "--resume", "IMPL-2", "--output", "done"),
        2,
        f"wfs: error: {RUNS}/IMPL-2.output.jsonl: not a regular file (a FIFO, a device, a "
        "socket, a folder or a symlink), where wfs appends a log; remove it; nothing was "
        "changed\n",
        posix=True,
    ),
    Case(
        "kills",
        "an output log that is a FIFO: log does not wait",
        steps(cli("execute", "IMPL-2", code=3), replaced_by(f"{RUNS}/IMPL-2.output.jsonl", "fifo")),
        ("log", "IMPL-2"),
        0,
        "",
        out="IMPL-2 · Leaf: paused\n…",
        posix=True,
    ),
    # -------------------------------------------------------------------------- argv
    Case("argv", "execute ''", nothing, ("execute", ""), 2, EMPTY_TASK),
    Case("argv", "execute --resume ''", nothing, ("execute", "--resume", ""), 2, EMPTY_TASK),
    Case("argv", "execute --dry-run ''", nothing, ("execute", "--dry-run", ""), 2, EMPTY_TASK),
    Case("argv", "--session '' status", nothing, ("--session", "", "status"), 2, EMPTY_SESSION),
    Case("argv", "session pause ''", nothing, ("session", "pause", ""), 2, EMPTY_SESSION),
    Case("argv", "session complete ''", nothing, ("session", "complete", ""), 2, EMPTY_SESSION),
    Case("argv", "log ''", nothing, ("log", ""), 2, EMPTY_TASK),
    Case(
        "argv",
        "plan --from ''",
        nothing,
        ("plan", "P", "--from", ""),
        2,
        "wfs: error: an empty file name: give a FILE, or - for stdin\n",
    ),
    Case(
        "argv",
        "task expand: shell metacharacters in the id, before any agent",
        nothing,
        ("task", "expand", "IMPL-1;rm -rf ~"),
        2,
        "wfs: error: invalid task id 'IMPL-1;rm -rf ~': it must look like IMPL-N or IMPL-N.M\n",
    ),
    Case(
        "argv",
        "--agent of spaces only",
        nothing,
        ("execute", "IMPL-2", "--agent", " "),
        2,
        "wfs: error: --agent=' ': expected an agent command\n",
    ),
    Case(
        "argv",
        "an id that starts with a dash, after --",
        nothing,
        ("task", "show", "--", "-IMPL-2"),
        2,
        "wfs: error: invalid task id '-IMPL-2': it must look like IMPL-N or IMPL-N.M\n",
    ),
    Case(
        "argv",
        "-- before the arguments",
        nothing,
        ("task", "status", "--", "IMPL-2", "blocked"),
        0,
        "",
        out="IMPL-2: blocked\n",
        writes=COMPLETED[:4],
        check=task_status("IMPL-2", "blocked"),
    ),
    Case(
        "argv",
        "an option after the arguments",
        nothing,
        ("task", "status", "IMPL-2", "blocked", "--json"),
        0,
        "",
        out='{\n  "task": "IMPL-2",\n  "status": "blocked"\n}\n',
        writes=COMPLETED[:4],
    ),
    Case(
        "argv",
        "one argument too many",
        nothing,
        ("task", "status", "IMPL-2", "completed", "extra"),
        2,
        "Usage: …",
    ),
    Case(
        "argv",
        "a second --root wins",
        nothing,
        ("--root", ".", "--root", "/no/such/dir", "status"),
        2,
        "wfs: error: project root '/no/such/dir' is not a directory\n",
    ),
    Case(
        "argv",
        "backslashes in a task id",
        nothing,
        ("task", "show", "IMPL-1\\..\\IMPL-2"),
        2,
        "wfs: error: invalid task id 'IMPL-1\\\\..\\\\IMPL-2': it must not contain a path "
        "separator\n",
    ),
    Case(
        "argv",
        "a trailing slash in a task id",
        nothing,
        ("task", "status", "IMPL-2/", "blocked"),
        2,
        "wfs: error: invalid task id 'IMPL-2/': it must not contain a path separator\n",
    ),
    Case(
        "argv",
        "a 100,000-character task id",
        nothing,
        ("execute", "IMPL-" + "9" * 99_995),
        2,
        f"wfs: error: invalid task id {'IMPL-' + '9' * 35 + '...'!r} (100000 characters): it is "
        "too long to name a file (at most 228 bytes)\n",
    ),
    Case(
        "argv",
        "a bidirectional override in a task id",
        nothing,
        ("task", "show", "IMPL-2\u202e"),
        2,
        "wfs: error: invalid task id 'IMPL-2\\u202e': it must look like IMPL-N or IMPL-N.M\n",
    ),
    Case(
        "argv",
        "a trailing space in a session id",
        nothing,
        ("--session", "h ", "next"),
        2,
        "wfs: error: unknown session 'h '; did you mean WFS-h?\n",
    ),
    # ------------------------------------------------------------------------- files
    Case(
        "files",
        "task file a socket",
        replaced_by(f"{T}/IMPL-3.json", "socket"),
        ("validate",),
        1,
        "",
        out=f"{T}/IMPL-3.json: file: {NOT_REGULAR}\n",
        posix=True,
    ),
    Case(
        "files",
        "session file a FIFO",
        replaced_by(f"{S}/workflow-session.json", "fifo"),
        ("status",),
        2,
        f"wfs: error: {S}/workflow-session.json: {NOT_REGULAR}\n",
        posix=True,
    ),
    Case(
        "files",
        "config.json a folder",
        replaced_by(".workflow/config.json", "folder"),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: .workflow/config.json: is a directory, expected a file\n",
    ),
    Case(
        "files",
        "config.json a symlink to /dev/zero",
        symlink(".workflow/config.json", "/dev/zero"),
        ("execute", "--dry-run", "IMPL-2"),
        2,
        "wfs: error: .workflow/config.json: refused: a symlink leads this path outside the "
        "project root (to /dev/zero); nothing was read\n",
        posix=True,
    ),
    Case(
        "files",
        "IMPL_PLAN.md a symlink to /dev/zero: render --check",
        link(f"{S}/IMPL_PLAN.md", "/dev/zero"),
        ("render", "--check"),
        1,
        "",
        out=f"{S}/IMPL_PLAN.md: stale or hand-edited; run `wfs render`\n",
        posix=True,
    ),
    Case(
        "files",
        "TODO_LIST.md a FIFO: a write replaces it",
        replaced_by(f"{S}/TODO_LIST.md", "fifo"),
        ("task", "status", "IMPL-2", "blocked"),
        0,
        "",
        out="IMPL-2: blocked\n",
        writes=COMPLETED[:4],
        check=is_file(f"{S}/TODO_LIST.md"),
        posix=True,
    ),
    Case(
        "files",
        "TODO_LIST.md a folder: refused before any change",
        replaced_by(f"{S}/TODO_LIST.md", "folder"),
        ("task", "status", "IMPL-2", "blocked"),
        2,
        f"wfs: error: {S}/TODO_LIST.md: Is a directory; nothing was changed\n",
    ),
    Case(
        "files",
        ".summaries a symlink out of the root",
        steps(write(outside("summaries/.keep"), ""), link(f"{S}/.summaries", outside("summaries"))),
        ("execute", "IMPL-2", "--agent", "cat"),
        2,
        f"wfs: error: <ROOT>/{S}/.summaries/IMPL-2-summary.md: refused: a symlink leads this "
        "path outside the project root (to <PARENT>/elsewhere/summaries); nothing was "
        "written\n",
    ),
    Case(
        "files",
        "a task file hard-linked to a file outside",
        lambda root: os.link(root / T / "IMPL-2.json", root.parent / ELSEWHERE / "IMPL-2.json"),
        ("task", "status", "IMPL-2", "blocked"),
        0,
        "",
        out="IMPL-2: blocked\n",
        writes=COMPLETED[:4],
        check=both(task_status("IMPL-2", "blocked"), outside_pending),
    ),
]


# --------------------------------------------------------------------------- Maestro-Flow

# A Maestro-Flow plan beside the session: in a scratch folder, and in a session of runs.
SCRATCH = ".workflow/scratch/20260101-plan-x"
MAESTRO_SESSION = ".workflow/sessions/20260101-y"
RUN_OUTPUTS = f"{MAESTRO_SESSION}/runs/20260101-001-plan/outputs"
MAESTRO_TASK = '{"id": "TASK-001", "title": "Write it", "status": "pending"}'
MAESTRO_LINES = (
    "Maestro-Flow plans:\n"
    "  scratch/20260101-plan-x (Maestro-Flow scratch plan): 0 of 2 tasks completed; "
    "ready: TASK-001, TASK-002\n"
    "  sessions/20260101-y (Maestro-Flow session): 0 of 1 tasks completed; ready: TASK-001\n"
    "  (`wfs import PATH` makes a wfs session of one)\n"
)


def maestro_plans(root: Path) -> None:
    """Two Maestro-Flow plans: a scratch plan of two tasks, and a session of runs."""
    write(f"{SCRATCH}/plan.json", '{"summary": "x", "task_ids": ["TASK-001", "TASK-002"]}')(root)
    write(f"{SCRATCH}/.task/TASK-001.json", MAESTRO_TASK)(root)
    write(f"{SCRATCH}/.task/TASK-002.json", MAESTRO_TASK.replace("001", "002"))(root)
    write(f"{MAESTRO_SESSION}/session.json", '{"intent": "y"}')(root)
    write(f"{RUN_OUTPUTS}/plan.json", '{"summary": "y", "task_ids": ["TASK-001"]}')(root)
    write(f"{RUN_OUTPUTS}/tasks/TASK-001.json", MAESTRO_TASK)(root)


def same_output(args: tuple[str, ...], out: str) -> Callable[[Path, Run], None]:
    """A check: another command prints `out` (the plan the case spoiled stays unlisted)."""

    def check(root: Path, done: Run) -> None:
        assert wfs(*args).out == out

    return check


def maestro(*more: Callable[[Path], None]) -> Callable[[Path], None]:
    return steps(maestro_plans, *more)


def unreadable_plan(reason: str) -> str:
    return MAESTRO_LINES.replace(
        "0 of 2 tasks completed; ready: TASK-001, TASK-002",
        f"cannot be read: {SCRATCH}/.task/TASK-002.json: {reason}",
    )


MAESTRO_CASES = [
    Case(
        "maestro",
        "artifacts.json a FIFO: status, session list and validate do not wait on it",
        maestro(fifo(f"{MAESTRO_SESSION}/artifacts.json")),
        ("status",),
        0,
        "",
        out=STATUS_OUT + MAESTRO_LINES,
        posix=True,
    ),
    Case(
        "maestro",
        "artifacts.json a FIFO: session list",
        maestro(fifo(f"{MAESTRO_SESSION}/artifacts.json")),
        ("session", "list"),
        0,
        "",
        out="* WFS-h  active  PLAN  simple  h\n" + MAESTRO_LINES,
        posix=True,
    ),
    Case(
        "maestro",
        "artifacts.json a FIFO: validate --all",
        maestro(fifo(f"{MAESTRO_SESSION}/artifacts.json")),
        ("validate", "--all"),
        0,
        "",
        out="OK: WFS-h, scratch/20260101-plan-x, sessions/20260101-y\n" + MAESTRO_LINES,
        posix=True,
    ),
    Case(
        "maestro",
        "artifacts.json a symlink to /dev/zero",
        maestro(symlink(f"{MAESTRO_SESSION}/artifacts.json", "/dev/zero")),
        ("status",),
        0,
        "",
        out=STATUS_OUT + MAESTRO_LINES,
        posix=True,
    ),
    Case(
        "maestro",
        "session.json a FIFO: import does not wait on it",
        maestro(replaced_by(f"{MAESTRO_SESSION}/session.json", "fifo")),
        ("import", MAESTRO_SESSION),
        0,
        "",
        out="WFS-y\n  1 tasks from .workflow/sessions/20260101-y: TASK-001 -> IMPL-1\n"
        "  Another session is active, and stays so: `wfs switch WFS-y` makes this one active, "
        "or run it with `wfs --session WFS-y execute --all`\n",
        writes=(".workflow/WFS-y", ".workflow/.cache", LOCKS),
        check=both(still(f"{MAESTRO_SESSION}/session.json", "fifo"), present(".workflow/WFS-y")),
        posix=True,
    ),
    Case(
        "maestro",
        "a task file a FIFO: import names it",
        maestro(replaced_by(f"{SCRATCH}/.task/TASK-002.json", "fifo")),
        ("import", SCRATCH),
        2,
        f"wfs: error: {SCRATCH}/.task/TASK-002.json: {NOT_REGULAR}\n",
        posix=True,
    ),
    Case(
        "maestro",
        "a task file a FIFO: status names it and goes on",
        maestro(replaced_by(f"{SCRATCH}/.task/TASK-002.json", "fifo")),
        ("status",),
        0,
        "",
        out=STATUS_OUT + unreadable_plan(NOT_REGULAR),
        posix=True,
    ),
    Case(
        "maestro",
        "a task file a symlink to /dev/zero: status reads none of it",
        maestro(link(f"{SCRATCH}/.task/TASK-002.json", "/dev/zero")),
        ("status",),
        0,
        "",
        out=STATUS_OUT + unreadable_plan(TO_DEV_ZERO),
        posix=True,
    ),
    Case(
        "maestro",
        "a task file a symlink to /dev/zero: import refuses it",
        maestro(link(f"{SCRATCH}/.task/TASK-002.json", "/dev/zero")),
        ("import", SCRATCH),
        2,
        f"wfs: error: {SCRATCH}/.task/TASK-002.json: {TO_DEV_ZERO}\n",
        posix=True,
    ),
    Case(
        "maestro",
        "a task file a symlink out of the project: import does not follow it",
        maestro(
            write(outside("TASK-002.json"), MAESTRO_TASK.replace("001", "002")),
            link(f"{SCRATCH}/.task/TASK-002.json", outside("TASK-002.json")),
        ),
        ("import", SCRATCH),
        2,
        f"wfs: error: {SCRATCH}/.task/TASK-002.json: refused: a symlink leads this path "
        "outside the project root (to <PARENT>/elsewhere/TASK-002.json); nothing was read\n",
    ),
    Case(
        "maestro",
        "a task folder a symlink out of the project: import does not follow it",
        maestro(
            write(outside("tasks/TASK-001.json"), MAESTRO_TASK),
            link(f"{RUN_OUTPUTS}/tasks", outside("tasks")),
        ),
        ("import", MAESTRO_SESSION),
        2,
        f"wfs: error: {RUN_OUTPUTS}/tasks/TASK-001.json: refused: a symlink leads this path "
        "outside the project root (to <PARENT>/elsewhere/tasks/TASK-001.json); nothing was "
        "read\n",
    ),
    Case(
        "maestro",
        "a plan folder a symlink out of the project: not listed, and not imported",
        maestro(
            write(outside("z/plan.json"), '{"task_ids": ["TASK-001"]}'),
            write(outside("z/.task/TASK-001.json"), MAESTRO_TASK),
            link(".workflow/scratch/20260102-plan-z", outside("z")),
        ),
        ("import", ".workflow/scratch/20260102-plan-z"),
        2,
        "wfs: error: .workflow/scratch/20260102-plan-z/plan.json: refused: a symlink leads this "
        "path outside the project root (to <PARENT>/elsewhere/z/plan.json); nothing was read\n",
        check=same_output(("status",), STATUS_OUT + MAESTRO_LINES),
    ),
    Case(
        "maestro",
        "a task file over 64 MiB: import refuses it as every command does",
        maestro(sparse(f"{SCRATCH}/.task/TASK-002.json", 64 * 1024 * 1024 + 1)),
        ("import", SCRATCH),
        2,
        f"wfs: error: {SCRATCH}/.task/TASK-002.json: larger than 64 MiB; refused\n",
    ),
]
CASES += MAESTRO_CASES
FRESH_CASES = [
    Case(
        "files",
        "malformed task JSON",
        write(f"{T}/IMPL-2.json", '{"id": "IMPL-2",\n  "title": }'),
        ("task", "list"),
        2,
        f"wfs: error: {T}/IMPL-2.json:2:12: invalid JSON: unexpected character, expected a JSON value\n",
        fresh=True,
    ),
    Case(
        "files",
        "task is an array",
        write(f"{T}/IMPL-2.json", "[1, 2]"),
        ("task", "list"),
        2,
        f"wfs: error: {T}/IMPL-2.json: expected a JSON object, got array\n",
        fresh=True,
    ),
    Case(
        "files",
        "UTF-8 BOM",
        write(f"{T}/IMPL-2.json", b'\xef\xbb\xbf{"id": "IMPL-2"}'),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json:1:1: invalid JSON: UTF-8 byte order mark (BOM) is not supported\n",
        fresh=True,
    ),
    Case(
        "files",
        "non-UTF-8 bytes",
        write(f"{T}/IMPL-2.json", b'{"id": "IMPL-2", "title": "\xff"}'),
        ("next",),
        2,
        f"wfs: error: {T}/IMPL-2.json:1:28: invalid JSON: not valid UTF-8 (byte 0xff)\n",
        fresh=True,
    ),
    Case(
        "files",
        "empty task file",
        write(f"{T}/IMPL-2.json", b""),
        ("task", "show", "IMPL-1"),
        2,
        f"wfs: error: {T}/IMPL-2.json:1:1: invalid JSON: Input is a zero-length, empty document\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "deep nesting",
        write(f"{T}/IMPL-2.json", "[" * 100_000),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json:1:1026: invalid JSON: depth limit exceeded\n",
        fresh=True,
    ),
    Case(
        "files",
        "huge malformed file",
        write(f"{T}/IMPL-2.json", '{"title": "' + "x" * 20_000_000),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json:1:20000012: invalid JSON: unexpected end of data\n",
        fresh=True,
    ),
    Case(
        "files",
        "truncated session file",
        write(f"{S}/workflow-session.json", '{"session_id": "WFS-h"'),
        ("status",),
        2,
        f"wfs: error: {S}/workflow-session.json:1:23: invalid JSON: unexpected end of data\n",
        fresh=True,
    ),
    Case(
        "files",
        "session file is a string",
        write(f"{S}/workflow-session.json", '"hello"'),
        ("session", "show"),
        2,
        f"wfs: error: {S}/workflow-session.json: expected a JSON object, got string\n",
        fresh=True,
    ),
    Case(
        "files",
        "title of the wrong type",
        edit_task("IMPL-2", title=42),
        ("validate",),
        1,
        "",
        fresh=True,
    ),
    Case(
        "files",
        "unknown status",
        edit_task("IMPL-2", status="done"),
        ("validate",),
        1,
        "",
        fresh=True,
    ),
    Case(
        "argv", "duplicate id", edit_task("IMPL-2", id="IMPL-1"), ("validate",), 1, "", fresh=True
    ),
    Case(
        "files",
        "dependency cycle",
        edit_task("IMPL-1.1", context={"depends_on": ["IMPL-1.2"], "parent": "IMPL-1"}),
        ("validate",),
        1,
        "",
        fresh=True,
    ),
    Case(
        "files",
        "missing parent",
        write(
            f"{T}/IMPL-7.1.json",
            json.dumps(
                {
                    "id": "IMPL-7.1",
                    "title": "Orphan",
                    "status": "pending",
                    "meta": {},
                    "context": {"parent": "IMPL-7"},
                    "flow_control": {},
                }
            ),
        ),
        ("validate",),
        1,
        "",
        fresh=True,
    ),
    Case(
        "files",
        "depth 3",
        write(
            f"{T}/IMPL-1.1.1.json",
            json.dumps(
                {
                    "id": "IMPL-1.1.1",
                    "title": "Deep",
                    "status": "pending",
                    "meta": {},
                    "context": {},
                    "flow_control": {},
                }
            ),
        ),
        ("validate",),
        1,
        "",
        fresh=True,
    ),
    Case(
        "argv",
        "session id with ..",
        nothing,
        ("--session", "../../etc", "status"),
        2,
        "wfs: error: invalid session id '../../etc': it must not contain a path separator\n",
        fresh=True,
    ),
    Case(
        "argv",
        "absolute session id",
        nothing,
        ("switch", "/etc/passwd"),
        2,
        "wfs: error: invalid session id '/etc/passwd': it must not contain a path separator\n",
        fresh=True,
    ),
    Case(
        "argv",
        "dot session id",
        nothing,
        ("switch", ".."),
        2,
        "wfs: error: invalid session id '..': it must not start with '.'\n",
        fresh=True,
    ),
    Case(
        "argv",
        "empty session id",
        nothing,
        ("switch", ""),
        2,
        "wfs: error: invalid session id: it is empty\n",
        fresh=True,
    ),
    Case(
        "argv",
        "NUL in session id",
        nothing,
        ("switch", "h\0x"),
        2,
        "wfs: error: invalid session id 'h\\x00x': it contains a NUL byte\n",
        fresh=True,
    ),
    Case(
        "argv",
        "task id traversal",
        nothing,
        ("task", "show", "../../etc/passwd"),
        2,
        "wfs: error: invalid task id '../../etc/passwd': it must not contain a path separator\n",
        fresh=True,
    ),
    Case(
        "argv",
        "task id with a slash",
        nothing,
        ("task", "status", "IMPL-1/../IMPL-2", "completed"),
        2,
        "wfs: error: invalid task id 'IMPL-1/../IMPL-2': it must not contain a path separator\n",
        fresh=True,
    ),
    Case(
        "argv",
        "task id not IMPL",
        nothing,
        ("execute", "REFACTOR-1"),
        2,
        "wfs: error: invalid task id 'REFACTOR-1': it must look like IMPL-N or IMPL-N.M\n",
        fresh=True,
    ),
    Case(
        "files",
        "unknown task",
        nothing,
        ("execute", "IMPL-9"),
        2,
        "wfs: error: unknown task 'IMPL-9'; did you mean IMPL-2, IMPL-1, IMPL-1.2?\n",
        fresh=True,
    ),
    Case(
        "paths",
        "Read outside the root",
        step_task("Read(../../etc/passwd)"),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 cannot run as written; nothing was changed (`wfs validate` reports "
        "the same):\n"
        f"{T}/IMPL-2.json#/flow_control/implementation_approach/0/command: "
        'implementation-approach: Read() path "../../etc/passwd" leads outside the project root\n',
        fresh=True,
    ),
    Case(
        "paths",
        "Glob outside the root",
        step_task("Glob(/etc/*)"),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 cannot run as written; nothing was changed (`wfs validate` reports "
        "the same):\n"
        f"{T}/IMPL-2.json#/flow_control/implementation_approach/0/command: "
        'implementation-approach: Glob() "/etc/*" is a path on another machine that is not in this '
        "project: nothing here ends like it, and it does not name the project's folder "
        '"project"\n',
        fresh=True,
    ),
    Case(
        "paths",
        "Grep outside the root",
        step_task("Grep(root, ../..)"),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 cannot run as written; nothing was changed (`wfs validate` reports "
        "the same):\n"
        f"{T}/IMPL-2.json#/flow_control/implementation_approach/0/command: "
        'implementation-approach: Grep() path "../.." leads outside the project root\n',
        fresh=True,
    ),
    Case(
        "paths",
        "Read through a symlink out of the root",
        lambda root: (
            step_task("Read(escape.txt)")(root),
            symlink("escape.txt", "outside.txt")(root),
        ),
        # Where a symlink leads is known before the claim: nothing runs, nothing changes,
        # and nothing of what is outside reaches a run record.
        ("execute", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 cannot run as written; nothing was changed (`wfs validate` "
        f"reports the same):\n{T}/IMPL-2.json#/flow_control/implementation_approach/0/"
        'command: implementation-approach: Read() path "escape.txt" leads outside the project '
        "root (through a symlink)\n",
        out="",
        check=lambda root, run: assert_not_in_runs(root, "outside the project\n"),
        fresh=True,
    ),
    Case(
        "paths",
        "task file symlinked out of the root",
        symlink(f"{T}/IMPL-3.json", "outside.txt"),
        ("task", "list"),
        2,
        f"wfs: error: {T}/IMPL-3.json: is a symlink leading outside the project root; "
        "wfs does not follow it\n",
        fresh=True,
    ),
    Case(
        "paths",
        "session folder symlinked out of the root",
        symlink(".workflow/WFS-out", "elsewhere"),
        ("--session", "out", "status"),
        2,
        "wfs: error: .workflow/WFS-out: is a symlink leading outside the project root; "
        "wfs does not follow it\n",
        fresh=True,
    ),
    Case(
        "files",
        "marker pointing nowhere",
        lambda root: (
            (root / ".workflow/.active-WFS-h").unlink(),
            (root / ".workflow/.active-WFS-gone").touch(),
        ),
        ("status",),
        2,
        "wfs: error: the active marker .active-WFS-gone names no session folder; run "
        "`wfs doctor --fix`, or pick a session with `wfs switch ID`\n",
        fresh=True,
    ),
    Case(
        "files",
        "marker naming a file, not a folder",
        lambda root: (
            (root / ".workflow/.active-WFS-h").unlink(),
            (root / ".workflow/WFS-file").touch(),
            (root / ".workflow/.active-WFS-file").touch(),
        ),
        ("next",),
        2,
        "wfs: error: the active marker .active-WFS-file names no session folder; run "
        "`wfs doctor --fix`, or pick a session with `wfs switch ID`\n",
        fresh=True,
    ),
    Case(
        "documents",
        "plan: tasks is not an array",
        write("plan.json", '{"tasks": {"id": "IMPL-1"}}'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json#/tasks: expected an array of tasks\n",
        fresh=True,
    ),
    Case(
        "documents",
        "plan: malformed",
        write("plan.json", '{"tasks": [}'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:12: invalid JSON: unexpected character, expected a JSON value\n",
        fresh=True,
    ),
    Case(
        "documents",
        "plan: file not found",
        nothing,
        ("plan", "P", "--from", "nope.json"),
        2,
        "wfs: error: nope.json: cannot read: No such file or directory\n",
        fresh=True,
    ),
    Case(
        "documents",
        "plan: non-UTF-8 on stdin",
        nothing,
        ("plan", "P", "--from", "-"),
        2,
        "wfs: error: <stdin>:1:10: invalid JSON: not valid UTF-8 (byte 0xff)\n",
        stdin=b'[{"id": "\xff"}]',
        fresh=True,
    ),
    Case(
        "documents",
        "plan: task without title",
        write("plan.json", '[{"id": "IMPL-1"}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json: 1 problem; nothing was written:\n"
        'plan.json#/0: required: missing required field "title"\n',
        fresh=True,
    ),
    Case(
        "documents",
        "plan: duplicate ids",
        write("plan.json", '[{"id": "IMPL-1", "title": "a"}, {"id": "IMPL-1", "title": "b"}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json: 1 problem; …",
        fresh=True,
    ),
    Case(
        "documents",
        "plan: topic escaping .workflow",
        nothing,
        ("plan", "../../x"),
        2,
        "wfs: error: invalid topic '../../x': it looks like a path outside .workflow/\n",
        fresh=True,
    ),
    Case(
        "documents",
        "plan: NUL in topic",
        nothing,
        ("plan", "a\0b"),
        2,
        "wfs: error: invalid topic: it contains a NUL byte\n",
        fresh=True,
    ),
    Case(
        "documents",
        "split: subtask of another task",
        write("subs.json", '[{"id": "IMPL-3.1", "title": "x"}]'),
        ("task", "split", "IMPL-2", "--from", "subs.json"),
        2,
        "wfs: error: subs.json#/0/id: 'IMPL-3.1' is not a subtask of IMPL-2\n",
        fresh=True,
    ),
    Case(
        "documents",
        "split: third level",
        write("subs.json", '[{"title": "x"}]'),
        ("task", "split", "IMPL-1.1", "--from", "subs.json"),
        2,
        "wfs: error: IMPL-1.1 is a subtask; tasks have at most 2 levels (IMPL-N.M)\n",
        fresh=True,
    ),
    Case(
        "documents",
        "add: dependency on a missing task",
        nothing,
        ("task", "add", "--title", "x", "--depends-on", "IMPL-99"),
        2,
        "wfs: error: the change: 1 problem; …",
        fresh=True,
    ),
    Case(
        "documents",
        "update: focus path with ..",
        nothing,
        ("task", "update", "IMPL-2", "--focus-path", "../etc"),
        2,
        "wfs: error: the change: 1 problem; …",
        fresh=True,
    ),
    Case(
        "documents",
        "update: fields that are not an object",
        write("fields.json", "[1]"),
        ("task", "update", "IMPL-2", "--from", "fields.json"),
        2,
        "wfs: error: fields.json: expected a JSON object with task fields\n",
        fresh=True,
    ),
    Case(
        "files",
        "status: not a status",
        nothing,
        ("task", "status", "IMPL-2", "done"),
        2,
        "Usage: …",
        fresh=True,
    ),
    Case(
        "files",
        "status of a container",
        nothing,
        ("task", "status", "IMPL-1", "completed"),
        2,
        "wfs: error: IMPL-1 is a container; cannot set its status to completed: its status is "
        "derived from its subtasks IMPL-1.1, IMPL-1.2\n",
        fresh=True,
    ),
    Case(
        "files",
        "malformed config.json",
        write(".workflow/config.json", "{agent"),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: .workflow/config.json:1:2: invalid JSON: unexpected character, expected a string key\n",
        fresh=True,
    ),
    Case(
        "files",
        "config agent not a string",
        write(".workflow/config.json", '{"agent": ["x"]}'),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: .workflow/config.json#/agent: expected a command string\n",
        fresh=True,
    ),
    Case(
        "files",
        "resume of a task that has not started",
        nothing,
        ("execute", "--resume", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 has not started; run it with `wfs --session WFS-h execute IMPL-2`\n",
        fresh=True,
    ),
    Case(
        "files",
        "--output without --resume",
        nothing,
        ("execute", "--output", "x"),
        2,
        "Usage: …",
        fresh=True,
    ),
    Case(
        "files",
        "bad WFS_LOCK_TIMEOUT",
        nothing,
        ("task", "status", "IMPL-2", "completed"),
        2,
        "wfs: error: WFS_LOCK_TIMEOUT='soon': expected a number of seconds\n",
        env={"WFS_LOCK_TIMEOUT": "soon"},
        fresh=True,
    ),
    Case(
        "files",
        "missing --root",
        nothing,
        ("--root", "/no/such/dir", "status"),
        2,
        "wfs: error: project root '/no/such/dir' is not a directory\n",
        fresh=True,
    ),
    # ------------------------------------------------------------------ vanishing files
    # IMPL-2.json is deleted right after wfs lists .task/ (the index cache warm): every
    # command goes on as if it had been deleted a moment earlier, or names the task.
    Case(
        "vanishing",
        "vanishing: status",
        nothing,
        ("status",),
        0,
        "",
        out="Session:  WFS-h (active)\nTopic:    h\nPhase:    PLAN    Type: simple\n"
        "Tasks:    pending 2, active 0, completed 0, blocked 0, container 1\n"
        "Progress: 0/2 tasks completed (0%)\nReady:    IMPL-1.1\nBlocked:  -\n",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: next",
        nothing,
        ("next",),
        0,
        "",
        out="  [ ] IMPL-1.1  First  pending\n",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: task list",
        nothing,
        ("task", "list"),
        0,
        "",
        out="▸ IMPL-1  Group  pending\n  [ ] IMPL-1.1  First  pending\n"
        "  [ ] IMPL-1.2  Second  pending  (after IMPL-1.1)\n",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: task show of another task",
        nothing,
        ("task", "show", "IMPL-1.1"),
        0,
        "",
        out="IMPL-1.1  First\nStatus:      pending, ready: `wfs execute IMPL-1.1` runs it\n…",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: task show",
        nothing,
        ("task", "show", "IMPL-2"),
        2,
        UNKNOWN_2,
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: task status",
        nothing,
        ("task", "status", "IMPL-2", "completed"),
        2,
        UNKNOWN_2,
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: task update",
        nothing,
        ("task", "update", "IMPL-2", "--title", "x"),
        2,
        UNKNOWN_2,
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: task add under it",
        nothing,
        ("task", "add", "--title", "x", "--parent", "IMPL-2"),
        2,
        UNKNOWN_2,
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: task split",
        write("subs.json", '[{"title": "x"}]'),
        ("task", "split", "IMPL-2", "--from", "subs.json"),
        2,
        UNKNOWN_2,
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: validate",
        nothing,
        ("validate",),
        0,
        "",
        out="OK: WFS-h\n",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: render --check",
        nothing,
        ("render", "--check"),
        1,
        "",
        out=f"{S}/TODO_LIST.md: stale or hand-edited; run `wfs render`\n"
        f"{S}/IMPL_PLAN.md: stale or hand-edited; run `wfs render`\n",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: render",
        nothing,
        ("render",),
        0,
        "",
        out=f"wrote {S}/TODO_LIST.md\nwrote {S}/IMPL_PLAN.md\n",
        vanish=VANISH,
        writes=VIEWS,
        check=vanished_from_views,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: execute --dry-run",
        nothing,
        ("execute", "--dry-run"),
        0,
        "",
        out="IMPL-1.1: First (dry run, nothing is executed)\n…",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: execute",
        nothing,
        ("execute", "IMPL-2"),
        2,
        UNKNOWN_2,
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: execute the next task",
        nothing,
        ("execute",),
        3,
        "  IMPL-1.1 ▶ First …\n  IMPL-1.1 · First: paused …",
        out="Paused: IMPL-1.1 · First (task): waiting for an agent\n…",
        vanish=VANISH,
        writes=(f"{T}/IMPL-1.1.json", f"{S}/workflow-session.json", *VIEWS, f"{S}/.runs"),
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: doctor",
        nothing,
        ("doctor",),
        1,
        "",
        out=f"found: {S}/TODO_LIST.md: stale or hand-edited view…",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: doctor --fix",
        nothing,
        ("doctor", "--fix"),
        0,
        "",
        out=f"fixed: {S}/TODO_LIST.md: stale or hand-edited view (render the view again)\n"
        f"fixed: {S}/IMPL_PLAN.md: stale or hand-edited view (render the view again)\n",
        vanish=VANISH,
        writes=(*VIEWS, ".workflow/.doctor"),
        check=vanished_from_views,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: migrate",
        nothing,
        ("migrate",),
        0,
        "",
        out="Nothing to migrate.\n",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: session list",
        nothing,
        ("session", "list"),
        0,
        "",
        out="* WFS-h  active  PLAN  simple  h\n",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: session show",
        nothing,
        ("session", "show"),
        0,
        "",
        out="WFS-h  (active)\n…",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: prime",
        nothing,
        ("prime",),
        0,
        "",
        out="wfs session WFS-h (active): phase PLAN, 0 of 2 tasks completed (0%).\n…",
        vanish=VANISH,
        fresh=True,
    ),
    Case(
        "vanishing",
        "vanishing: switch",
        run("plan", "other", "--empty"),
        ("switch", "h"),
        0,
        "",
        out="Active session: WFS-h (paused WFS-other)\n",
        vanish=VANISH,
        writes=(".workflow/.active-", ".workflow/WFS-other/", S),
        fresh=True,
    ),
    Case(
        "vanishing",
        "deleted before the run, index cache warm",
        steps(run("status"), lambda root: (root / T / "IMPL-2.json").unlink()),
        ("next", "--all"),
        0,
        "",
        out="  [ ] IMPL-1.1  First  pending\n",
        fresh=True,
    ),
    # ------------------------------------------------------------------ ids
    Case(
        "argv",
        "300-character task id",
        nothing,
        ("task", "show", LONG_TID),
        2,
        f"wfs: error: invalid task id '{LONG_TID[:40]}...' (300 characters): it is too long "
        "to name a file (at most 228 bytes)\n",
        fresh=True,
    ),
    Case(
        "argv",
        "300-character task id for a new task",
        nothing,
        ("task", "add", "--id", LONG_TID, "--title", "x"),
        2,
        f"wfs: error: invalid task id '{LONG_TID[:40]}...' (300 characters): it is too long "
        "to name a file (at most 228 bytes)\n",
        fresh=True,
    ),
    Case(
        "argv",
        "5000-digit task id",
        nothing,
        ("task", "status", "IMPL-" + "9" * 4995, "completed"),
        2,
        "wfs: error: invalid task id 'IMPL-99999999999999999999999999999999999...' "
        "(5000 characters): it is too long to name a file (at most 228 bytes)\n",
        fresh=True,
    ),
    Case(
        "argv",
        "300-character session id",
        nothing,
        ("--session", LONG_SID, "status"),
        2,
        f"wfs: error: invalid session id '{LONG_SID[:40]}...' (300 characters): it is too "
        "long to name a file (at most 233 bytes)\n",
        fresh=True,
    ),
    Case(
        "argv",
        "300-character session id to switch to",
        nothing,
        ("switch", LONG_SID),
        2,
        f"wfs: error: invalid session id '{LONG_SID[:40]}...' (300 characters): it is too "
        "long to name a file (at most 233 bytes)\n",
        fresh=True,
    ),
    Case(
        "files",
        "300-character task id in the file",
        edit_task("IMPL-2", id=LONG_TID),
        ("validate",),
        1,
        "",
        fresh=True,
    ),
    Case(
        "files",
        "300-character session id in the file",
        edit_session(session_id=LONG_SID),
        ("validate",),
        1,
        "",
        fresh=True,
    ),
    Case(
        "argv",
        "newline in a task id",
        nothing,
        ("task", "show", "IMPL-1\nIMPL-2"),
        2,
        "wfs: error: invalid task id 'IMPL-1\\nIMPL-2': it must look like IMPL-N or IMPL-N.M\n",
        fresh=True,
    ),
    Case(
        "argv",
        "NUL in a task id",
        nothing,
        ("task", "update", "IMPL-1\0", "--title", "x"),
        2,
        "wfs: error: invalid task id 'IMPL-1\\x00': it contains a NUL byte\n",
        fresh=True,
    ),
    Case(
        "argv",
        "shell metacharacters in a task id",
        nothing,
        ("execute", "IMPL-1;rm -rf ~"),
        2,
        "wfs: error: invalid task id 'IMPL-1;rm -rf ~': it must look like IMPL-N or IMPL-N.M\n",
        fresh=True,
    ),
    Case(
        "argv",
        "full-width digit in a task id",
        nothing,
        ("task", "show", "IMPL-１"),
        2,
        "wfs: error: invalid task id 'IMPL-１': it must look like IMPL-N or IMPL-N.M\n",
        fresh=True,
    ),
    Case(
        "argv",
        "Cyrillic I in a task id",
        nothing,
        ("task", "status", "ІMPL-2", "completed"),
        2,
        "wfs: error: invalid task id 'ІMPL-2': it must look like IMPL-N or IMPL-N.M\n",
        fresh=True,
    ),
    Case(
        "argv",
        "Cyrillic h in a session id",
        nothing,
        ("switch", "һ"),
        2,
        "wfs: error: unknown session 'һ'; did you mean WFS-h?\n",
        fresh=True,
    ),
    Case(
        "argv",
        "newline in a session id",
        nothing,
        ("--session", "h\nx", "next"),
        2,
        "wfs: error: unknown session 'h\\nx'; did you mean WFS-h?\n",
        fresh=True,
    ),
    Case(
        "argv",
        "shell metacharacters in a session id",
        nothing,
        ("session", "show", "h$(touch pwned)"),
        2,
        "wfs: error: unknown session 'h$(touch pwned)'\n",
        fresh=True,
    ),
    Case(
        "files",
        "ids with .. and a slash in files",
        edit_task("IMPL-2", id="IMPL-2/../x", context={"depends_on": ["../../etc/passwd"]}),
        ("validate",),
        1,
        "",
        fresh=True,
    ),
    Case(
        "files",
        "newline in a task id in the file",
        edit_task("IMPL-2", id="IMPL-2\n[ ] IMPL-9  forged"),
        ("task", "list"),
        0,
        "",
        out="▸ IMPL-1  Group  pending\n  [ ] IMPL-1.1  First  pending\n"
        # listed under its file's name: the id it writes is not its name's (invalid)
        "  [ ] IMPL-1.2  Second  pending  (after IMPL-1.1)\n[ ] IMPL-2  Leaf  pending\n",
        fresh=True,
    ),
    Case(
        "terminal",
        "newline in a title",
        edit_task("IMPL-2", title="Leaf\n[x] IMPL-9  forged  completed"),
        ("next", "--all"),
        0,
        "",
        out="  [ ] IMPL-1.1  First  pending\n[ ] IMPL-2  Leaf …  pending\n",
        fresh=True,
    ),
    Case(
        "terminal",
        "very long title",
        edit_task("IMPL-2", title="x" * 1_000_000),
        ("task", "list"),
        0,
        "",
        out="▸ IMPL-1  Group  pending\n  [ ] IMPL-1.1  First  pending\n"
        f"  [ ] IMPL-1.2  Second  pending  (after IMPL-1.1)\n[ ] IMPL-2  {'x' * 199}…  pending\n",
        fresh=True,
    ),
    # ------------------------------------------------------------------ deep nesting
    Case(
        "nesting",
        "task nested 256 deep: task show",
        deep_field(VANISH, 256),
        ("task", "show", "IMPL-2"),
        2,
        f"wfs: error: {T}/IMPL-2.json#/deep/0/0: invalid JSON: nested more than 200 levels "
        "deep (wfs reads at most 200)\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "task nested 512 deep: task status",
        deep_field(VANISH, 512),
        ("task", "status", "IMPL-2", "completed"),
        2,
        f"wfs: error: {T}/IMPL-2.json#/deep/0/0: invalid JSON: nested more than 200 levels "
        "deep (wfs reads at most 200)\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "task nested 1024 deep: status",
        deep_field(VANISH, 1024),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json:19:1035: invalid JSON: depth limit exceeded\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "task nested 256 deep: validate",
        deep_field(VANISH, 256),
        ("validate",),
        1,
        "",
        fresh=True,
    ),
    Case(
        "nesting",
        "task nested 512 deep: execute",
        deep_field(VANISH, 512),
        ("execute", "IMPL-2"),
        2,
        f"wfs: error: {T}/IMPL-2.json#/deep/0/0: invalid JSON: nested more than 200 levels "
        "deep (wfs reads at most 200)\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "session nested 256 deep: task status",
        deep_field(f"{S}/workflow-session.json", 256),
        ("task", "status", "IMPL-2", "completed"),
        2,
        f"wfs: error: {S}/workflow-session.json#/deep/0/0: invalid JSON: nested more than "
        "200 levels deep (wfs reads at most 200)\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "session nested 512 deep: session pause",
        deep_field(f"{S}/workflow-session.json", 512),
        ("session", "pause"),
        2,
        f"wfs: error: {S}/workflow-session.json#/deep/0/0: invalid JSON: nested more than "
        "200 levels deep (wfs reads at most 200)\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "session nested 1024 deep: session show",
        deep_field(f"{S}/workflow-session.json", 1024),
        ("session", "show"),
        2,
        f"wfs: error: {S}/workflow-session.json:11:1035: invalid JSON: depth limit exceeded\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "plan nested 256 deep",
        write("plan.json", '{"tasks": [{"id": "IMPL-1", "title": "t", "x": ' + nested(256) + "}]}"),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json#/tasks/0/x: invalid JSON: nested more than 200 levels deep "
        "(wfs reads at most 200)\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "plan nested 512 deep, for a replan",
        write("plan.json", '[{"id": "IMPL-3", "title": "t", "x": ' + nested(512) + "}]"),
        ("plan", "--session", "WFS-h", "--from", "plan.json"),
        2,
        "wfs: error: plan.json#/0/x/0: invalid JSON: nested more than 200 levels deep "
        "(wfs reads at most 200)\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "plan nested 1024 deep",
        write(
            "plan.json", '{"tasks": [{"id": "IMPL-1", "title": "t", "x": ' + nested(1024) + "}]}"
        ),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:1070: invalid JSON: depth limit exceeded\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "task fields nested 256 deep",
        write("fields.json", '{"notes": ' + nested(256) + "}"),
        ("task", "update", "IMPL-2", "--from", "fields.json"),
        2,
        "wfs: error: fields.json#/notes/0/0: invalid JSON: nested more than 200 levels deep "
        "(wfs reads at most 200)\n",
        fresh=True,
    ),
    Case(
        "nesting",
        "answer nested 1024 deep",
        steps(paused_on_its_agent, write("answer.json", nested(1024))),
        ("execute", "--resume", "IMPL-2", "--output-file", "answer.json"),
        0,
        "  IMPL-2 ▶ Leaf …\n  IMPL-2 · Leaf: done …",
        writes=COMPLETED,
        check=answer_kept(nested(1024)),
        fresh=True,
    ),
    Case(
        "nesting",
        "answer nested 256 deep on stdin",
        paused_on_its_agent,
        ("execute", "--resume", "IMPL-2", "--output-file", "-"),
        0,
        "  IMPL-2 ▶ Leaf …\n  IMPL-2 · Leaf: done …",
        stdin=nested(256).encode(),
        writes=COMPLETED,
        check=answer_kept(nested(256)),
        fresh=True,
    ),
    # ------------------------------------------------------------------ what --from reads
    Case(
        "documents",
        "plan from /dev/zero",
        nothing,
        ("plan", "P", "--from", "/dev/zero"),
        2,
        "wfs: error: /dev/zero: larger than 64 MiB; refused\n",
        fresh=True,
    ),
    Case(
        "documents",
        "answer from /dev/zero",
        paused_on_its_agent,
        ("execute", "--resume", "IMPL-2", "--output-file", "/dev/zero"),
        2,
        "wfs: error: /dev/zero: larger than 64 MiB; refused\n",
        fresh=True,
    ),
    Case(
        "documents",
        "plan from a FIFO nobody writes to",
        fifo("plan.fifo"),
        ("plan", "P", "--from", "plan.fifo"),
        2,
        "wfs: error: plan.fifo: is a FIFO that nobody writes to; nothing to read\n",
        fresh=True,
    ),
    Case(
        "documents",
        "task fields from a FIFO nobody writes to",
        fifo("fields.fifo"),
        ("task", "update", "IMPL-2", "--from", "fields.fifo"),
        2,
        "wfs: error: fields.fifo: is a FIFO that nobody writes to; nothing to read\n",
        fresh=True,
    ),
    Case(
        "documents",
        "answer from a FIFO nobody writes to",
        steps(paused_on_its_agent, fifo("answer.fifo")),
        ("execute", "--resume", "IMPL-2", "--output-file", "answer.fifo"),
        2,
        "wfs: error: answer.fifo: is a FIFO that nobody writes to; nothing to read\n",
        fresh=True,
    ),
    Case(
        "documents",
        "plan from a directory",
        lambda root: (root / "plans").mkdir(),
        ("plan", "P", "--from", "plans"),
        2,
        "wfs: error: plans: cannot read: Is a directory\n",
        fresh=True,
    ),
    Case(
        "documents",
        "plan from an unreadable file",
        steps(write("plan.json", "[]"), unreadable("plan.json")),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json: cannot read: Permission denied\n",
        as_user=True,
        fresh=True,
    ),
    Case(
        "files",
        "unreadable task file",
        unreadable(VANISH),
        ("task", "show", "IMPL-2"),
        2,
        f"wfs: error: {T}/IMPL-2.json: cannot read: Permission denied\n",
        as_user=True,
        fresh=True,
    ),
    Case(
        "documents",
        "plan: invalid UTF-8",
        write("plan.json", b'[{"id": "IMPL-1", "title": "\xc3\x28"}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:29: invalid JSON: not valid UTF-8 (byte 0xc3)\n",
        fresh=True,
    ),
    Case(
        "documents",
        "plan: BOM",
        write("plan.json", b'\xef\xbb\xbf[{"id": "IMPL-1", "title": "a"}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:1: invalid JSON: UTF-8 byte order mark (BOM) is not supported\n",
        fresh=True,
    ),
    Case(
        "documents",
        "plan: CRLF lines, a place counted in lines",
        write(
            "plan.json", b'[\r\n{"id": "IMPL-1", "title": "a"},\r\n{"id": "IMPL-2", "title": }\r\n]'
        ),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:3:27: invalid JSON: unexpected character, expected a JSON value\n",
        fresh=True,
    ),
    Case(
        "files",
        "task file with CRLF lines",
        raw_edit(VANISH, b"\n", b"\r\n"),
        ("task", "list"),
        0,
        "",
        out="▸ IMPL-1  Group  pending\n  [ ] IMPL-1.1  First  pending\n"
        "  [ ] IMPL-1.2  Second  pending  (after IMPL-1.1)\n[ ] IMPL-2  Leaf  pending\n",
        fresh=True,
    ),
    Case(
        "files", "0-byte task file: validate", write(VANISH, b""), ("validate",), 1, "", fresh=True
    ),
    Case(
        "files",
        "task file is a number",
        write(VANISH, "42"),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json: expected a JSON object, got integer\n",
        fresh=True,
    ),
    Case(
        "files",
        "task file is a string",
        write(VANISH, '"IMPL-2"'),
        ("next",),
        2,
        f"wfs: error: {T}/IMPL-2.json: expected a JSON object, got string\n",
        fresh=True,
    ),
    Case(
        "files",
        "task file is null",
        write(VANISH, "null"),
        ("task", "show", "IMPL-2"),
        2,
        f"wfs: error: {T}/IMPL-2.json: expected a JSON object, got null\n",
        fresh=True,
    ),
    Case(
        "files",
        "session file is null",
        write(f"{S}/workflow-session.json", "null"),
        ("status",),
        2,
        f"wfs: error: {S}/workflow-session.json: expected a JSON object, got null\n",
        fresh=True,
    ),
    Case(
        "files",
        "duplicate keys in a task file",
        raw_edit(VANISH, b'"status": "pending"', b'"status": "completed", "status": "pending"'),
        ("validate",),
        0,
        "",
        out=f'{T}/IMPL-2.json#/status: duplicate-key: warning: key "status" is given 2 times; '
        "the last one counts, and `wfs migrate` keeps only it\n",
        fresh=True,
    ),
    Case(
        "files",
        "duplicate keys: migrate keeps the last",
        raw_edit(VANISH, b'"status": "pending"', b'"status": "completed", "status": "pending"'),
        ("migrate",),
        0,
        "",
        out="WFS-h: migrated IMPL-2\n",
        writes=(VANISH, *VIEWS),
        check=lambda root, done: assert_once(root / VANISH, '"status"'),
        fresh=True,
    ),
    Case(
        "files",
        "duplicate keys in a session file",
        raw_edit(
            f"{S}/workflow-session.json",
            b'"status": "active"',
            b'"status": "active", "status": "paused"',
        ),
        ("validate",),
        0,
        "",
        out=f'{S}/workflow-session.json#/status: duplicate-key: warning: key "status" is given '
        "2 times; the last one counts, and `wfs migrate` keeps only it\n",
        fresh=True,
    ),
    Case(
        "files",
        "NaN in a task file",
        raw_edit(VANISH, b'"title": "Leaf"', b'"title": "Leaf", "x": NaN'),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json:3:25: invalid JSON: unexpected character, expected a JSON value\n",
        fresh=True,
    ),
    Case(
        "files",
        "Infinity in a plan",
        write("plan.json", '[{"id": "IMPL-1", "title": "a", "x": Infinity}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:38: invalid JSON: unexpected character, expected a JSON value\n",
        fresh=True,
    ),
    Case(
        "files",
        "number too large for a double",
        raw_edit(VANISH, b'"title": "Leaf"', b'"title": "Leaf", "x": 1e400'),
        ("next",),
        2,
        f"wfs: error: {T}/IMPL-2.json:3:25: invalid JSON: number is infinity when parsed as double\n",
        fresh=True,
    ),
    Case(
        "files",
        "huge integer in a task file",
        raw_edit(
            VANISH, b'"title": "Leaf"', b'"title": "Leaf", "x": 123456789012345678901234567890'
        ),
        ("task", "status", "IMPL-2", "completed"),
        2,
        f"wfs: error: {T}/IMPL-2.json:3:25: invalid JSON: integer 123456789012345678901234567890 "
        "does not fit in 64 bits (writing the file back would change it)\n",
        fresh=True,
    ),
    Case(
        "files",
        "huge negative integer in a task file",
        raw_edit(VANISH, b'"title": "Leaf"', b'"title": "Leaf", "x": -9223372036854775809'),
        ("validate",),
        1,
        "",
        fresh=True,
    ),
    Case(
        "files",
        "huge integer in a plan",
        write("plan.json", '[{"id": "IMPL-1", "title": "a", "estimate": 18446744073709551616}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:45: invalid JSON: integer 18446744073709551616 does not fit "
        "in 64 bits (writing the file back would change it)\n",
        fresh=True,
    ),
    Case(
        "paths",
        "task file symlinked out of the root: validate",
        symlink(f"{T}/IMPL-3.json", "outside.txt"),
        ("validate",),
        2,
        f"wfs: error: {T}/IMPL-3.json: is a symlink leading outside the project root; "
        "wfs does not follow it\n",
        fresh=True,
    ),
    Case(
        "paths",
        "task file in a symlink loop",
        steps(
            symlink(f"{T}/IMPL-3.json", f"project/{T}/IMPL-4.json"),
            symlink(f"{T}/IMPL-4.json", f"project/{T}/IMPL-3.json"),
        ),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-3.json: is a symlink loop; wfs does not follow it\n",
        fresh=True,
    ),
    Case(
        "paths",
        "task file linked to itself",
        symlink(f"{T}/IMPL-3.json", f"project/{T}/IMPL-3.json"),
        ("validate",),
        2,
        f"wfs: error: {T}/IMPL-3.json: is a symlink loop; wfs does not follow it\n",
        fresh=True,
    ),
    Case(
        "paths",
        "task file linked to nothing",
        symlink(f"{T}/IMPL-3.json", f"project/{T}/IMPL-9.json"),
        ("task", "list"),
        2,
        f"wfs: error: {T}/IMPL-3.json: No such file or directory; nothing was changed\n",
        fresh=True,
    ),
    Case(
        "paths",
        "session folder in a symlink loop",
        symlink(".workflow/WFS-loop", "project/.workflow/WFS-loop"),
        ("session", "list"),
        2,
        "wfs: error: .workflow/WFS-loop: Too many levels of symbolic links; nothing was changed\n",
        fresh=True,
    ),
    Case(
        "paths",
        "plan from a symlink loop",
        symlink("plan.json", "project/plan.json"),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json: cannot read: Too many levels of symbolic links\n",
        fresh=True,
    ),
    # ------------------------------------------------------------------ escape sequences
    Case(
        "terminal",
        "escapes in the topic: status",
        edit_session(project=f"Topic{HOSTILE}"),
        ("status",),
        0,
        "",
        out=f"Session:  WFS-h (active)\nTopic:    Topic{SHOWN}\n…",
        fresh=True,
    ),
    Case(
        "terminal",
        "escapes in a title: next",
        edit_task("IMPL-1.1", title=f"First{HOSTILE}"),
        ("next",),
        0,
        "",
        out=f"  [ ] IMPL-1.1  First{SHOWN}  pending\n",
        fresh=True,
    ),
    Case(
        "terminal",
        "escapes in a title: task list on a color terminal",
        edit_task("IMPL-2", title=f"Leaf{HOSTILE}"),
        ("task", "list"),
        0,
        "",
        out="▸ IMPL-1  Group  pending\n  [ ] IMPL-1.1  First  pending\n"
        f"  [ ] IMPL-1.2  Second  pending  (after IMPL-1.1)\n[ ] IMPL-2  Leaf{SHOWN}  pending\n",
        color=True,
        fresh=True,
    ),
    Case(
        "terminal",
        "escapes in the topic: status on a color terminal",
        edit_session(project=f"Topic{HOSTILE}"),
        ("status",),
        0,
        "",
        out=f"Session:  \x1b[1mWFS-h\x1b[0m (active)\nTopic:    Topic{SHOWN}\n…",
        color=True,
        fresh=True,
    ),
    Case(
        "terminal",
        "escapes in a title: task show",
        edit_task("IMPL-2", title=f"Leaf{HOSTILE}"),
        ("task", "show", "IMPL-2"),
        0,
        "",
        out="IMPL-2  Leaf\\x1b[2J\\x1b]0;owned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[8mhidden\\u202e\n…",
        fresh=True,
    ),
    Case(
        "terminal",
        "escapes in the topic: session list",
        edit_session(project=f"Topic{HOSTILE}\nforged line"),
        ("session", "list"),
        0,
        "",
        out=f"* WFS-h  active  PLAN  simple  Topic{SHOWN} …\n",
        color=True,
        fresh=True,
    ),
    Case(
        "terminal",
        "escapes in a title: TODO_LIST.md",
        edit_task("IMPL-2", title=f"Leaf{HOSTILE}"),
        ("render",),
        0,
        "",
        writes=VIEWS,
        check=views_hold(f"**IMPL-2**: Leaf{SHOWN}", "TODO_LIST.md"),
        fresh=True,
    ),
    Case(
        "terminal",
        "escapes in the topic and a title: IMPL_PLAN.md",
        steps(edit_task("IMPL-2", title=f"Leaf{HOSTILE}"), edit_session(project=f"Topic{HOSTILE}")),
        ("render",),
        0,
        "",
        writes=VIEWS,
        check=views_hold(f"# Implementation Plan: Topic{SHOWN}", "IMPL_PLAN.md"),
        fresh=True,
    ),
]


# What `wfs validate` prints (exit 1) for the cases that are well-formed JSON.
VALIDATE_OUT = {
    "title of the wrong type": f"{T}/IMPL-2.json#/title: type: title must be a non-empty string, got integer 42\n",
    "unknown status": f'{T}/IMPL-2.json#/status: status: status "done" is not one of pending, active, '
    "completed, blocked, container\n",
    "duplicate id": f'{T}/IMPL-2.json#/id: id-filename: id "IMPL-1" does not match the file name IMPL-2.json\n'
    f"{T}/IMPL-2.json#/id: unique-id: duplicate id IMPL-1: also used by {T}/IMPL-1.json\n",
    "dependency cycle": f"{T}/IMPL-1.1.json#/context/depends_on: dependency-cycle: dependency cycle: "
    "IMPL-1.1 -> IMPL-1.2 -> IMPL-1.1\n",
    "missing parent": f'{T}/IMPL-7.1.json#/context/parent: parent: context.parent "IMPL-7" does not exist\n',
    "depth 3": f'{T}/IMPL-1.1.1.json#/id: id-format: task id "IMPL-1.1.1" has depth 3, which exceeds '
    "the 2-level maximum (IMPL-N.M)\n",
    "300-character task id in the file": f'{T}/IMPL-2.json#/id: id-format: task id "IMPL-'
    + "1" * 70
    + '..." is too long to name a file (at most 228 characters)\n'
    + f'{T}/IMPL-2.json#/id: id-filename: id "IMPL-'
    + "1" * 70
    + '..." does not match the file name IMPL-2.json\n',
    "300-character session id in the file": f"{S}/workflow-session.json#/session_id: session-id: "
    'session_id "WFS-' + "a" * 71 + '..." does not match its folder WFS-h\n',
    "ids with .. and a slash in files": f'{T}/IMPL-2.json#/id: id-format: task id "IMPL-2/../x" has '
    'extra text "/../x" after IMPL-2; ids are IMPL-N or IMPL-N.M\n'
    f'{T}/IMPL-2.json#/id: id-filename: id "IMPL-2/../x" does not match the file name IMPL-2.json\n'
    f'{T}/IMPL-2.json#/context/depends_on/0: depends-on: depends_on entry "../../etc/passwd" '
    "does not match IMPL-N or IMPL-N.M (N and M are numbers)\n",
    "task nested 256 deep: validate": f"{T}/IMPL-2.json#/deep/0/0: json: invalid JSON: nested more "
    "than 200 levels deep (wfs reads at most 200)\n",
    "0-byte task file: validate": f"{T}/IMPL-2.json:1:1: json: invalid JSON: Input is a zero-length, "
    "empty document\n",
    "huge negative integer in a task file": f"{T}/IMPL-2.json:3:25: json: invalid JSON: integer "
    "-9223372036854775809 does not fit in 64 bits (writing the file back would change it)\n",
}


def aged(root: Path) -> None:
    """Every file of the project a minute older, as if written before this run."""
    for path in [root, *root.rglob("*")]:
        stat = path.lstat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - 60 * 10**9), follow_symlinks=False)


def test_each_case_is_named_once_and_every_surface_has_some() -> None:
    names = [f"{c.surface}: {c.name}" for c in ALL_CASES]
    assert len(set(names)) == len(names)
    assert len(ALL_CASES) >= 315
    assert {c.surface for c in ALL_CASES} == {
        "programs", "paths", "pushes", "claims", "worktrees", "leftovers", "caches", "env",
        "locks", "merge", "kills", "argv", "files", "documents", "nesting", "vanishing",
        "terminal", "planning", "edits", "reading", "maestro",
    }  # fmt: skip


class _Listing(list[os.DirEntry[str]]):
    """What os.scandir returns, already read."""

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def close(self) -> None:
        return None


@contextlib.contextmanager
def deleted_after_listing(path: Path) -> Iterator[None]:
    """Delete `path` right after the first listing of its folder, as a concurrent `rm`
    between the scan and the read would."""
    real = os.scandir

    def scandir(folder: Any = ".") -> Any:
        listing = real(folder)
        if isinstance(folder, (str, os.PathLike)) and os.path.lexists(path):
            if os.path.samefile(folder, path.parent):
                entries = _Listing(listing)
                listing.close()
                path.unlink()
                return entries
        return listing

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "scandir", scandir)
        yield


@pytest.fixture
def time_limit() -> Iterator[None]:
    """A hang (a FIFO opened for reading, a device read to its end) fails the case."""

    def expired(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError("the command did not finish within 60 s")

    if not hasattr(signal, "SIGALRM"):  # Windows: no alarm, and no FIFO to hang on
        yield
        return
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def holders() -> Iterator[None]:
    yield
    while HOLDERS:
        holder = HOLDERS.pop()
        if holder.stdin is not None:
            holder.stdin.close()
        holder.wait(timeout=60)


def outside_hash(project: Path) -> str:
    return tree_hash(project.parent / ELSEWHERE) + tree_hash(project.parent, ("project", ELSEWHERE))


ALL_CASES = sorted([*CASES, *FRESH_CASES], key=lambda c: c.surface)


@pytest.mark.slow
@pytest.mark.parametrize("case", ALL_CASES, ids=[f"{c.surface}: {c.name}" for c in ALL_CASES])
def test_hostile_surface_is_refused_cleanly(
    case: Case, project: Path, time_limit: None, holders: None
) -> None:
    if case.posix and sys.platform == "win32":
        pytest.skip("needs FIFOs, POSIX signals or /dev/zero")
    if case.as_user and hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("running as root, which reads a file whatever its permissions")
    wfs("init", "--no-git")
    assert wfs("plan", "h", "--from", "-", input=json.dumps(BASE_PLAN)).code == 0
    (project.parent / ELSEWHERE).mkdir()
    (project.parent / "outside.txt").write_text("outside the project\n")
    if not case.fresh:
        aged(project)  # every stamp old enough to be trusted: the caches get written
        for warm in (
            ("status",),
            ("next", "--all"),
            ("task", "show", "IMPL-2"),
            ("validate", "--all"),
        ):
            assert wfs(*warm).code == 0  # every cache is there to be hostile to
    case.setup(project)
    skip = case.writes + ((case.vanish,) if case.vanish else ())
    before, elsewhere = tree_hash(project, skip), outside_hash(project)
    places = {"<ROOT>": os.path.realpath(project), "<PARENT>": os.path.realpath(project.parent)}

    def placed(text: str) -> str:
        for mark, place in places.items():
            text = text.replace(mark, place)
        return text

    env = {name: placed(value) for name, value in (case.env or {}).items()}
    if case.process:
        run = wfs_process(*case.args, cwd=project, env=env, timeout=120)
    elif case.vanish:
        assert wfs("task", "list").code == 0  # the index cache is warm
        with deleted_after_listing(project / case.vanish):
            run = wfs(*case.args, input=case.stdin, env=env, color=case.color)
        assert not os.path.lexists(project / case.vanish), "a deleted task came back"
    else:
        run = wfs(*case.args, input=case.stdin, env=env, color=case.color)
    assert run.code == case.code, (run.out, run.err)
    assert "Traceback" not in run.err + run.out
    for text in (run.err, run.out):
        assert not RAW.search(OWN_SGR.sub("", text) if case.color else text), text
    err = placed(case.err)
    if err.endswith("…"):
        assert run.err.startswith(err[:-1]), run.err
    else:
        assert run.err == err
    if case.fresh and case.code == 1 and case.out is None:
        assert run.out == VALIDATE_OUT[case.name]
    elif case.out is not None and case.out.endswith("…"):
        assert run.out.startswith(case.out[:-1]), run.out
    elif case.out is not None:
        assert run.out == case.out
    assert tree_hash(project, skip) == before
    assert outside_hash(project) == elsewhere, "a file outside the project changed"
    for path in (project / ".workflow").rglob("*.json"):
        written = path.relative_to(project).as_posix().startswith(case.writes or ("-",))
        if written and path.is_file() and not path.is_symlink():
            json.loads(path.read_bytes())  # whatever was written is whole
    if case.check is not None:
        case.check(project, run)


# ------------------------------------------------------------ files, one at a time
# Hostile files, formats and ids tested one at a time with the other cases above; these
# need a project of their own.

SID = "WFS-round"
TASKS = Path(".workflow") / SID / ".task"


def step(command: str) -> dict[str, Any]:
    return {"step": 1, "title": "work", "description": "do it", "command": command,
            "modification_points": [], "logic_flow": [], "depends_on": [], "output": "o"}  # fmt: skip


def planned(tmp_path: Path) -> None:
    assert wfs("init", "--no-git").code == 0
    tasks = [
        {"id": "IMPL-1", "title": "one",
         "flow_control": {"implementation_approach": [step("bash(true)")]}},
        {"id": "IMPL-2", "title": "two",
         "flow_control": {"implementation_approach": [step(f"bash(touch {tmp_path}/ran2)")]}},
    ]  # fmt: skip
    assert wfs("plan", "Round", "--from", "-", input=json.dumps(tasks)).code == 0


def edit(tid: str, change: Any) -> bytes:
    path = TASKS / f"{tid}.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))
    return path.read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("value", [2, True, "bash(true)"])
def test_a_step_whose_commands_is_not_a_list_is_named_by_every_command(
    project: Path, tmp_path: Path, value: Any
) -> None:
    planned(tmp_path)
    edit("IMPL-1", lambda d: d["flow_control"]["implementation_approach"][0].update(commands=value))
    kind = {int: "integer", bool: "boolean", str: "string"}[type(value)]
    checked = wfs_process("validate", cwd=project)
    assert checked.code == 1
    assert (
        f"{TASKS.as_posix()}/IMPL-1.json#/flow_control/implementation_approach/0/commands: "
        f'implementation-approach: "commands" must be an array of command strings, got {kind}'
    ) in checked.out
    for argv in (["status"], ["next"], ["task", "list"], ["task", "show", "IMPL-1"],
                 ["render", "--check"], ["execute", "--dry-run"]):  # fmt: skip
        run = wfs_process(*argv, cwd=project)
        assert "Traceback" not in run.err, (argv, run.err)
        assert run.code in (0, 1), (argv, run.code, run.err)
    status = wfs_process("status", cwd=project)
    assert "Invalid:  IMPL-1: 1 validation error; `wfs validate` names them" in status.out


@pytest.mark.slow
def test_a_task_file_without_an_id_is_counted_and_never_dropped(
    project: Path, tmp_path: Path
) -> None:
    planned(tmp_path)
    before = edit("IMPL-2", lambda d: d.pop("id"))
    first = wfs_process("execute", "--all", cwd=project)  # IMPL-1 runs; IMPL-2 cannot
    assert first.out == (
        "IMPL-1: completed → .workflow/WFS-round/.summaries/IMPL-1-summary.md\n"
        "Run: 1 completed; 1 task still pending.\n"
    )
    run = wfs_process("execute", "--all", cwd=project)
    assert run.code == 1, run.out + run.err
    assert run.out.endswith(
        "IMPL-2 (.workflow/WFS-round/.task/IMPL-2.json):\n"
        '    .workflow/WFS-round/.task/IMPL-2.json: required: missing required field "id"\n'
    )
    assert not (tmp_path / "ran2").exists()
    status = wfs_process("status", cwd=project)
    assert "Progress: 1/2 tasks completed (50%)" in status.out
    assert "Invalid:  IMPL-2: 1 validation error; `wfs validate` names them" in status.out
    # An edit of it is refused, naming the file and what to add; nothing is written.
    refused = wfs_process("task", "status", "IMPL-2", "completed", cwd=project)
    assert refused.code == 2
    assert refused.err == (
        "wfs: error: .workflow/WFS-round/.task/IMPL-2.json#/id: required: missing required "
        'field "id"; add `"id": "IMPL-2"` to the file first\n'
    )
    assert (TASKS / "IMPL-2.json").read_bytes() == before


@pytest.mark.slow
@pytest.mark.parametrize("seconds", [2592000, 1e10, 1e308])
def test_a_timeout_execute_cannot_honour_is_refused_by_validate_and_execute(
    project: Path, tmp_path: Path, seconds: float
) -> None:
    planned(tmp_path)
    before = edit(
        "IMPL-1", lambda d: d["flow_control"]["implementation_approach"][0].update(timeout=seconds)
    )
    shown = json.dumps(seconds)
    checked = wfs_process("validate", cwd=project)
    assert checked.code == 1
    kind = "integer" if isinstance(seconds, int) else "number"
    assert (
        f"{TASKS.as_posix()}/IMPL-1.json#/flow_control/implementation_approach/0/timeout: "
        "implementation-approach: timeout must be a positive number of seconds up to a week "
        f"(604800), got {kind} {shown}"
    ) in checked.out
    run = wfs_process("execute", "IMPL-1", cwd=project)
    assert run.code == 2 and "Traceback" not in run.err
    assert (TASKS / "IMPL-1.json").read_bytes() == before  # refused before the claim


@pytest.mark.slow
@pytest.mark.parametrize("attempts", ["many", None, -3, True])
def test_a_hand_edited_attempts_count_is_read_as_none(
    project: Path, tmp_path: Path, attempts: Any
) -> None:
    planned(tmp_path)
    edit("IMPL-1", lambda d: d.update(execution={"attempts": attempts}))
    run = wfs_process("execute", "IMPL-1", cwd=project)
    assert run.code == 0, run.err
    saved = json.loads((TASKS / "IMPL-1.json").read_text())
    assert (saved["status"], saved["execution"]["attempts"]) == ("completed", 1)


@pytest.mark.slow
@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e9"])
def test_a_lock_timeout_that_is_no_wait_is_refused(
    project: Path, tmp_path: Path, value: str
) -> None:
    planned(tmp_path)
    before = (TASKS / "IMPL-1.json").read_bytes()
    run = wfs_process("task", "status", "IMPL-1", "blocked", cwd=project,
                      env={"WFS_LOCK_TIMEOUT": value})  # fmt: skip
    assert run.code == 2
    assert run.err == (
        f"wfs: error: WFS_LOCK_TIMEOUT={value!r}: expected a number of seconds from 0 to 604800\n"
    )
    assert (TASKS / "IMPL-1.json").read_bytes() == before


@pytest.mark.slow
def test_a_clean_merge_keeps_an_integer_wider_than_64_bits_as_written(
    tmp_path: Path, git_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    monkeypatch.chdir(root)
    git(root, "init", "-q", "-b", "main")
    assert wfs("init").code == 0
    tasks = [{"id": "IMPL-1", "title": "a", "context": {"requirements": ["r1", "r2", "r3", "r4"]}}]
    assert wfs("plan", "Wide", "--from", "-", input=json.dumps(tasks)).code == 0
    path = root / ".workflow" / "WFS-wide" / ".task" / "IMPL-1.json"
    wide = "123456789012345678901234567890"
    path.write_text(path.read_text().replace('"title": "a",', f'"title": "a",\n  "big": {wide},'))
    commit_all(root, "base")
    git(root, "checkout", "-q", "-b", "other")
    path.write_text(path.read_text().replace('"r4"', '"r4b"'))
    commit_all(root, "theirs")
    git(root, "checkout", "-q", "main")
    path.write_text(path.read_text().replace('"title": "a"', '"title": "a2"'))
    commit_all(root, "ours")
    merged = git(root, "merge", "--no-edit", "other", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    text = path.read_text()
    assert f'"big": {wide},' in text and '"title": "a2"' in text and '"r4b"' in text


@pytest.mark.slow
@needs_fifo
@pytest.mark.parametrize("where", ["task", "config"])
def test_a_fifo_where_a_file_should_be_is_named_and_nothing_waits(
    project: Path, tmp_path: Path, where: str
) -> None:
    planned(tmp_path)
    fifo = TASKS / "IMPL-3.json" if where == "task" else Path(".workflow") / "config.json"
    os.mkfifo(fifo)
    said = "not a regular file (a FIFO, a device or a socket); refused"
    dry = wfs_process("execute", "--dry-run", cwd=project, timeout=60)  # a hang fails here
    if where == "task":  # the other tasks still run
        assert dry.code == 0 and dry.out.startswith("IMPL-1: one (dry run")
    else:  # the configuration cannot be read: nothing runs
        assert (dry.code, dry.err) == (2, f"wfs: error: {fifo.as_posix()}: {said}\n")
    naming = {"task": ["status", "next", "validate"], "config": ["status"]}
    for command in ("status", "next", "validate"):
        run = wfs_process(command, cwd=project, timeout=60)  # a hang fails here
        assert "Traceback" not in run.err, (command, run.err)
        if command in naming[where]:
            assert f"{fifo.as_posix()}: " in run.out + run.err, (command, run.out, run.err)
            assert said in run.out + run.err, (command, run.out, run.err)


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_cache_that_is_a_symlink_to_a_device_is_not_read(project: Path, tmp_path: Path) -> None:
    planned(tmp_path)
    first = wfs_process("status", cwd=project)
    caches = sorted(Path(".workflow/.cache").glob("WFS-round.*"))
    assert caches, "status keeps its caches"
    for cache in caches:
        cache.unlink()
        cache.symlink_to("/dev/zero")
    again = wfs_process("status", cwd=project, timeout=60)
    assert (again.code, again.out) == (first.code, first.out)  # rebuilt, and the same


@pytest.mark.slow
def test_an_edit_in_place_whose_mtime_is_put_back_is_seen(project: Path, tmp_path: Path) -> None:
    """`cp -p`, `rsync --inplace -t`, `touch -r`: same size, same mtime, same inode; only
    the ctime tells. Then execute must not overwrite a person's `blocked`."""
    planned(tmp_path)
    path = TASKS / "IMPL-1.json"
    old = os.stat(path)
    time.sleep(0.05)  # the caches below are written at least this much after the file
    assert "Ready:    IMPL-1, IMPL-2" in wfs_process("status", cwd=project).out  # cached now
    with open(path, "r+b") as handle:  # in place: the same inode
        text = handle.read()
        handle.seek(0)
        handle.write(text.replace(b'"status": "pending"', b'"status": "blocked"'))
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    now = os.stat(path)
    assert (now.st_mtime_ns, now.st_size, now.st_ino) == (old.st_mtime_ns, old.st_size, old.st_ino)
    status = wfs_process("status", cwd=project)
    assert "Ready:    IMPL-2" in status.out and "Blocked:  IMPL-1" in status.out
    run = wfs_process("execute", "--all", cwd=project)
    assert run.out == (
        "IMPL-2: completed → .workflow/WFS-round/.summaries/IMPL-2-summary.md\nRun: 1 completed.\n"
    )
    assert json.loads(path.read_text())["status"] == "blocked"


@pytest.mark.slow
@pytest.mark.parametrize("length", [228, 229, 236])
def test_the_longest_task_id_added_is_one_whose_every_file_can_be_written(
    project: Path, tmp_path: Path, length: int
) -> None:
    assert wfs("init", "--no-git").code == 0
    task = {"id": "IMPL-1", "title": "a",
            "flow_control": {"implementation_approach": [step("bash(true)")]}}  # fmt: skip
    assert wfs("plan", "Long", "--from", "-", input=json.dumps([task])).code == 0
    tid = "IMPL-" + "1" * (length - 5)
    added = wfs_process("task", "add", "--id", tid, "--title", "long", cwd=project)
    if length > 228:
        assert added.code == 2
        assert added.err.endswith(
            f"({length} characters): it is too long to name a file (at most 228 bytes)\n"
        )
        return
    assert added.code == 0, added.err
    # Its run writes every file it has: the record, the output log, the summary.
    agent = tmp_path / "agent"
    agent.write_text("#!/bin/sh\ncat > /dev/null\necho made it\n")
    agent.chmod(0o755)
    run = wfs_process("execute", tid, cwd=project, env={"WFS_AGENT": str(agent)})
    assert run.code == 0, run.out + run.err
    assert run.out == f"{tid}: completed → .workflow/WFS-long/.summaries/{tid}-summary.md\n"


def test_an_unclosed_code_fence_in_the_overview_stays_in_the_overview(project: Path) -> None:
    assert wfs("init", "--no-git").code == 0
    plan = {"overview": "The plan.\n\n```python\nprint('never closed')",
            "requirements": ["one"], "tasks": [{"id": "IMPL-1", "title": "a"}]}  # fmt: skip
    assert wfs("plan", "Fence", "--from", "-", input=json.dumps(plan)).code == 0
    view = (project / ".workflow" / "WFS-fence" / "IMPL_PLAN.md").read_text()
    body = view[view.index("## Overview") : view.index("## Requirements")]
    assert body.rstrip().endswith("```python\nprint('never closed')\n```")
    assert wfs("render", "--check").code == 0


@pytest.mark.slow
def test_a_task_whose_id_is_not_its_file_name_is_named_by_its_file(
    project: Path, tmp_path: Path
) -> None:
    planned(tmp_path)
    before = edit("IMPL-2", lambda d: d.update(id="IMPL-6"))
    said = (
        '.workflow/WFS-round/.task/IMPL-2.json#/id: id-filename: id "IMPL-6" does not match '
        "the file name IMPL-2.json"
    )
    status = wfs_process("status", cwd=project)
    assert "Invalid:  IMPL-2: 1 validation error; `wfs validate` names them" in status.out
    shown = wfs_process("task", "show", "IMPL-6", cwd=project)
    assert shown.err == "wfs: error: unknown task 'IMPL-6'; did you mean IMPL-2, IMPL-1?\n"
    for argv in (["task", "status", "IMPL-2", "blocked"], ["execute", "IMPL-2"]):
        refused = wfs_process(*argv, cwd=project)
        assert (refused.code, refused.err) == (2, f"wfs: error: {said}; make them the same first\n")
    assert (TASKS / "IMPL-2.json").read_bytes() == before
    assert not (tmp_path / "ran2").exists()


@pytest.mark.slow
def test_doctor_fix_removes_the_leftovers_of_interrupted_writes_everywhere_wfs_writes(
    project: Path, tmp_path: Path
) -> None:
    planned(tmp_path)
    session = Path(".workflow") / SID
    leftovers = [
        session / ".summaries" / ".IMPL-1-summary.md.0a1b2c3d.tmp",
        session / ".chat" / ".notes.md.0a1b2c3d.tmp",
        session / ".scratchpad" / ".draft.md.0a1b2c3d.tmp",
        Path(".workflow") / ".doctor" / "20260101T000000" / ".IMPL-1.json.0a1b2c3d.tmp",
    ]
    for path in leftovers:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half")
    kept = session / ".chat" / "notes.md"
    kept.write_text("a person's notes\n")
    run = wfs_process("doctor", "--fix", cwd=project)
    assert run.code == 0, run.out + run.err
    for path in leftovers:
        assert f"{path.as_posix()}: leftover temporary file from an interrupted write" in run.out
        assert not path.exists()
    assert kept.read_text() == "a person's notes\n"


# --------------------------------------------------------------------------- MCP


class McpCase(NamedTuple):
    name: str
    line: bytes  # one line sent to `wfs mcp`, past its handshake
    answer: dict[str, Any] | Callable[[Any], None]  # the answer, or a check of it
    setup: Callable[[Path], None] | None = None  # what the project holds besides the plan


def request(method: str, params: Any = None, id: Any = 7) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def tool(name: str, **arguments: Any) -> bytes:
    return request("tools/call", {"name": name, "arguments": arguments})


def tool_error(body: dict[str, Any]) -> Callable[[Any], None]:
    """A check: the tool answered `body` (exit code and error), as an error result."""

    def check(answer: Any) -> None:
        assert answer["id"] == 7, answer
        assert answer["result"]["isError"] is True
        assert answer["result"]["structuredContent"] == body
        assert json.loads(answer["result"]["content"][0]["text"]) == body

    return check


def sdk_error(start: str) -> Callable[[Any], None]:
    """A check: the SDK refused the call itself, saying `start`…"""

    def check(answer: Any) -> None:
        assert answer["id"] == 7, answer
        assert answer["result"]["isError"] is True
        (content,) = answer["result"]["content"]
        assert content["text"].startswith(start), content

    return check


NOT_A_MESSAGE = "Invalid request: not a JSON-RPC 2.0 request, notification or response"
DEEP = "[" * 300 + "]" * 300

MCP_CASES = [
    McpCase(
        "a line that is not JSON",
        b"{not json",
        rpc_error(-32700, "Parse error: key must be a string at line 1 column 2"),
    ),
    McpCase(
        "two requests on one line",
        request("ping") + b"  " + request("ping", id=8),
        rpc_error(-32700, "Parse error: trailing characters at line 1 column 48"),
    ),
    McpCase(
        "a request nested 300 deep",
        request("tools/list", {"x": json.loads(DEEP)}),
        rpc_error(-32600, "Invalid request: recursion limit exceeded at line 1 column 268", 7),
    ),
    McpCase(
        "a request nested 5000 deep",
        b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"x": '
        + b"[" * 5000
        + b"]" * 5000
        + b"}}",
        rpc_error(-32700, "Parse error: recursion limit exceeded at line 1 column 262"),
    ),
    McpCase("a batch", b"[" + request("ping") + b"]", rpc_error(-32600, NOT_A_MESSAGE)),
    McpCase(
        "JSON-RPC 1.0",
        b'{"jsonrpc": "1.0", "id": 7, "method": "ping"}',
        rpc_error(-32600, NOT_A_MESSAGE, 7),
    ),
    McpCase("params not an object", request("ping", 5), rpc_error(-32600, NOT_A_MESSAGE, 7)),
    McpCase(
        "an unknown method",
        request("no/such"),
        {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32601, "message": "Method not found", "data": "no/such"},
        },
    ),
    McpCase(
        "tools/call with arguments that are an array",
        request("tools/call", {"name": "status", "arguments": [1]}),
        {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32602, "message": "Invalid request parameters", "data": ""},
        },
    ),
    McpCase("an unknown tool", tool("nope"), sdk_error("Unknown tool: nope")),
    McpCase(
        "an argument of the wrong type",
        tool("status", session=5),
        sdk_error("Error executing tool status: 1 validation error for statusArguments\n"),
    ),
    *(
        McpCase(
            f"status with a claims remote of {name}",
            tool("status"),
            tool_error({"exit_code": 2, "error": not_a_remote(value)[len("wfs: error: ") : -1]}),
            claims_remote(value),
        )
        for name, value in HOSTILE_REMOTES
    ),
    McpCase(
        "task_show of a path",
        tool("task_show", task_id="../../etc/passwd"),
        tool_error(
            {
                "exit_code": 2,
                "error": "invalid task id '../../etc/passwd': it must not contain a path separator",
            }
        ),
    ),
    McpCase(
        "plan with a NUL in the topic",
        tool("plan", topic="a\x00b"),
        tool_error({"exit_code": 2, "error": "invalid topic: it contains a NUL byte"}),
    ),
    McpCase(
        "execute of an empty task id",
        tool("execute", task_id=""),
        tool_error({"exit_code": 2, "error": "invalid task id: it is empty"}),
    ),
    McpCase(
        "plan with a document nested 300 deep, as JSON text",
        tool("plan", topic="deep", document=DEEP),
        tool_error(
            {
                "exit_code": 2,
                "error": "document#/0/0/0: invalid JSON: nested more than 200 levels deep (wfs "
                "reads at most 200)",
            }
        ),
    ),
    McpCase(
        "switch to an escape sequence",
        tool("switch", session="\x1b[2J"),
        tool_error({"exit_code": 2, "error": "unknown session '\\x1b[2J'; did you mean WFS-h?"}),
    ),
    McpCase(
        "a resource path out of the sessions",
        request("resources/read", {"uri": "wfs://sessions/../../etc/TODO_LIST.md"}),
        {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {
                "code": -32602,
                "message": "Unknown resource: wfs://sessions/../../etc/TODO_LIST.md",
                "data": {"uri": "wfs://sessions/../../etc/TODO_LIST.md"},
            },
        },
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", MCP_CASES, ids=[f"mcp: {c.name}" for c in MCP_CASES])
def test_hostile_mcp_request_gets_its_answer_and_the_server_serves_on(
    case: McpCase, project: Path
) -> None:
    wfs("init", "--no-git")
    assert wfs("plan", "h", "--from", "-", input=json.dumps(BASE_PLAN)).code == 0
    (project.parent / ELSEWHERE).mkdir()
    if case.setup is not None:
        case.setup(project)
    before, elsewhere = tree_hash(project), outside_hash(project)
    client = RawClient(project)
    try:
        answer = client.ask(case.line)
        if callable(case.answer):
            case.answer(answer)
        else:
            assert answer == case.answer
        client.ping(99)
        assert client.close() == ""
    finally:
        client.kill()
    assert tree_hash(project) == before
    assert outside_hash(project) == elsewhere, "a file outside the project changed"


# ------------------------------------------------------------------------- memory

PEAK = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(peak * (1 if sys.platform == 'darwin' else 1024), done.returncode)\n"
    "sys.stderr.write(done.stderr)\n"
)
PEAK_BOUND = 256 * 2**20  # wfs itself needs about 40 MiB; the file alone is 1 GiB


@pytest.mark.slow
def test_a_planning_answer_naming_a_1_gib_file_is_refused_before_it_is_read(
    project: Path,
) -> None:
    """The peak memory of `wfs plan` (and its agent) whose answer names a 1 GiB file:
    its size is checked before a byte of it is read (it peaked at 3.1 GiB)."""
    if sys.platform == "win32":
        pytest.skip("resource.getrusage is POSIX only")
    wfs("init", "--no-git")
    sparse("big.json", 2**30)(project)
    measured = subprocess.run(
        [sys.executable, "-c", PEAK, sys.executable, "-m", "wfs", "plan", "t",
         "--max-rounds", "2", "--agent", "echo big.json"],
        cwd=project, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    peak, code = map(int, measured.stdout.split())
    assert code == 1, measured.stderr
    assert measured.stderr.endswith(
        "The last problems:\n  big.json: larger than 64 MiB; refused\n"
        "Or ask the agent again, with more rounds:\n"
        "  wfs plan t --agent 'echo big.json' --max-rounds 4\n"
    ), measured.stderr
    assert peak < PEAK_BOUND, f"wfs plan peaked at {peak // 2**20} MiB"
    assert not (project / ".workflow" / ".cache").exists() or not [
        p for p in (project / ".workflow" / ".cache").iterdir() if "draft" in p.name
    ]


# -------------------------------------------------------------------------- board


@contextlib.contextmanager
def served_board(project: Path, files: int | None = None) -> Iterator[tuple[int, str, Any]]:
    """`wfs board --allow-actions` as a process of its own (`files`: its limit of open
    files, as a small `ulimit -n`): (port, token, the process)."""
    wfs("init", "--no-git")
    assert wfs("plan", "h", "--from", "-", input=json.dumps(BASE_PLAN)).code == 0

    def limited() -> None:
        if files is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    proc = subprocess.Popen(
        [sys.executable, "-m", "wfs", "board", "--json", "--port", "0", "--allow-actions"],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=limited if files is not None else None,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        yield first["port"], first["token"], proc
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
        assert "Traceback" not in err, err


def exchange(port: int, request: bytes) -> tuple[int, Any]:
    """One raw request on a connection of its own: the status and the JSON answered."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
        connection.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += connection.recv(65536)
        head, _, body = answer.partition(b"\r\n\r\n")
        length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
        while len(body) < length:
            body += connection.recv(65536)
    return int(head.split()[1]), json.loads(body)


def action(port: int, token: str, length: str, body: bytes) -> bytes:
    return (
        f"POST /api/action HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-WFS-Token: {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    ).encode() + body


BOARD_CASES: list[tuple[str, Callable[[int, str], bytes], int, str]] = [
    (
        "a Content-Length that is no number",
        lambda port, token: action(port, token, "abc", b"{}"),
        400,
        "Content-Length: expected a number of bytes, got 'abc'",
    ),
    (
        "a negative Content-Length",
        lambda port, token: action(port, token, "-5", b""),
        400,
        "Content-Length: expected a number of bytes, got '-5'",
    ),
    (
        "a Content-Length of 30 digits",
        lambda port, token: action(port, token, "9" * 30, b""),
        400,
        f"Content-Length: expected a number of bytes, got '{'9' * 30}'",
    ),
    (
        "a token that is not ASCII",
        lambda port, token: (
            f"GET /api/board HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-WFS-Token: \xff\xfe\r\n\r\n"
        ).encode("latin-1"),
        403,
        "a wrong or missing token",
    ),
    (
        "a task id of escape sequences",
        lambda port, token: (
            f"GET /api/task?token={token}&id=%1b%5b2J HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
        ).encode(),
        409,
        "invalid task id '\\x1b[2J': it must look like IMPL-N or IMPL-N.M",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", BOARD_CASES, ids=[f"board: {c[0]}" for c in BOARD_CASES])
def test_an_odd_board_request_gets_its_answer_and_the_board_serves_on(
    case: tuple[str, Callable[[int, str], bytes], int, str], project: Path
) -> None:
    if sys.platform == "win32":
        pytest.skip("the board is served the same; the raw socket test is POSIX only")
    _, request, status, error = case
    with served_board(project) as (port, token, proc):
        assert exchange(port, request(port, token)) == (status, {"ok": False, "error": error})
        board = f"GET /api/board?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
        code, answer = exchange(port, board.encode())
        assert code == 200 and answer["session"]["id"] == "WFS-h"


@pytest.mark.slow
def test_idle_connections_never_lock_the_board_out(project: Path) -> None:
    """Connections that never send a request (no token needed to open them) are closed
    to let others in: 300 of them against a board that may open 128 files (it stopped
    accepting once its files ran out, and a page with the token waited for ever)."""
    if sys.platform == "win32":
        pytest.skip("needs resource.setrlimit")
    with served_board(project, files=128) as (port, token, proc):
        idle = []
        try:
            for _ in range(300):
                with contextlib.suppress(OSError):  # (a board that stopped accepting)
                    idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            board = f"GET /api/board?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
            for _ in range(3):
                code, answer = exchange(port, board.encode())
                assert code == 200 and answer["session"]["id"] == "WFS-h"
        finally:
            for connection in idle:
                connection.close()
