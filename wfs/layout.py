"""Where things live: the project root, `.workflow/`, session and task ids, paths.

Every id that becomes part of a path is checked here, so nothing a user or a file
supplies can point outside `.workflow/`.

Sessions live in one of three places (SPEC §1, "Layouts in use"):

- `.workflow/WFS-*`, active when an `.active-WFS-*` marker names them (the seed);
- `.workflow/active/WFS-*`, active unless paused (markers optional);
- `.workflow/archives/WFS-*`, completed.

A session is looked up in that order (`active/` first); a new one is created where the
project already keeps its sessions.
"""

from __future__ import annotations

import errno
import functools
import itertools
import os
import re
import unicodedata
from pathlib import Path
from typing import NamedTuple

from wfs.errors import WfsError

WORKFLOW_DIR = ".workflow"
SESSION_PREFIX = "WFS-"
MARKER_PREFIX = ".active-"
SESSION_FILE = "workflow-session.json"
ACTIVE_DIR = "active"
ARCHIVE_DIR = "archives"
# Where a session folder may be, in lookup order: "" is `.workflow/` itself.
PLACES = (ACTIVE_DIR, "", ARCHIVE_DIR)
MARKERS_LAYOUT = "markers"
ACTIVE_LAYOUT = "active"
TASK_DIR = ".task"
SUMMARY_DIR = ".summaries"
LOCK_DIR = ".locks"
MAX_SESSION_ID = 50
SCRATCHPAD_DIR = ".scratchpad"  # under .workflow/: what `wfs capture` keeps with no session
MAX_NAME = 255  # bytes in a file name, on every file system wfs runs on
# The longest ids whose files still have legal names: a task's longest name is the
# temporary file an atomic write of its output log goes through
# (`.IMPL-N.output.jsonl.XXXXXXXX.tmp`, beside its summary's `.IMPL-N-summary.md.…`);
# a session's, the temporary file its journal is staged through
# (`.WFS-x.journal.XXXXXXXX.tmp`, beside its `.active-WFS-x` marker's).
MAX_TASK_ID = MAX_NAME - len("..output.jsonl.XXXXXXXX.tmp")
MAX_FOLDER_ID = MAX_NAME - len("..journal.XXXXXXXX.tmp")

# What `wfs init` writes to `.workflow/.gitignore`: everything wfs keeps for itself
# (locks, run records, caches) stays out of git; the plan itself is committed. So do
# the `.active-*` markers: which session is active is each person's own (`wfs switch`),
# and a marker committed by one would churn in everyone's tree. (A marker git already
# tracks stays tracked: the rule only keeps new ones out.)
MARKERS_RULE = ".active-*"
GITIGNORE = f"""\
# Written by `wfs init`: local run state, never committed.
.locks/
.runs/
.cache/
WFS-*/.runs/
active/WFS-*/.runs/
archives/WFS-*/.runs/
# Which session is active is each person's own (wfs switch):
{MARKERS_RULE}
"""

_SLUG_JUNK = re.compile(r"[^a-z0-9]+")


def find_root(explicit: str | None = None, start: Path | None = None) -> Path:
    """The project root: `--root`, then `WFS_ROOT`, then the nearest ancestor of the
    current directory holding `.workflow/`, then the current directory."""
    chosen = explicit or os.environ.get("WFS_ROOT")
    if chosen:
        root = Path(chosen).expanduser()
        if not root.is_dir():
            raise WfsError(f"project root {chosen!r} is not a directory")
        return root.resolve()
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / WORKFLOW_DIR).is_dir():
            return candidate
    return here


class Layout(NamedTuple):
    """Paths of one project."""

    root: Path

    @property
    def workflow(self) -> Path:
        return self.root / WORKFLOW_DIR

    @property
    def locks(self) -> Path:
        return self.workflow / LOCK_DIR

    def session_dir(self, session_id: str) -> Path:
        """The folder of a session: where it is (`active/`, then `.workflow/`, then
        `archives/`), else where a new one would be made."""
        sid = check_session_id(session_id)
        for place in PLACES:
            folder = self.workflow / place / sid if place else self.workflow / sid
            if folder.is_dir():
                return folder
        return self.new_session_dir(sid)

    def place_dir(self, place: str) -> Path:
        return self.workflow / place if place else self.workflow

    def new_session_dir(self, session_id: str) -> Path:
        """Where a new session goes: `active/` in a project that uses it, else `.workflow/`."""
        sid = check_session_id(session_id)
        if self.kind() == ACTIVE_LAYOUT:
            return self.workflow / ACTIVE_DIR / sid
        return self.workflow / sid

    def kind(self) -> str:
        """ACTIVE_LAYOUT when the project keeps sessions in `active/` or `archives/` (and
        none directly in `.workflow/`), else MARKERS_LAYOUT (the seed's)."""
        if (self.workflow / ACTIVE_DIR).is_dir():
            return ACTIVE_LAYOUT
        if (self.workflow / ARCHIVE_DIR).is_dir():
            try:
                names = os.listdir(self.workflow)
            except OSError:
                names = []
            if not any(n.startswith(SESSION_PREFIX) for n in names):
                return ACTIVE_LAYOUT
        return MARKERS_LAYOUT

    def archive_dir(self, session_id: str) -> Path:
        return self.workflow / ARCHIVE_DIR / check_session_id(session_id)

    def place_of(self, folder: Path) -> str:
        """ACTIVE_DIR, ARCHIVE_DIR or "" for a session folder."""
        parent = folder.parent.name if folder.parent != self.workflow else ""
        return parent if parent in (ACTIVE_DIR, ARCHIVE_DIR) else ""

    def session_file(self, session_id: str) -> Path:
        return self.session_dir(session_id) / SESSION_FILE

    def marker(self, session_id: str) -> Path:
        return self.workflow / (MARKER_PREFIX + check_session_id(session_id))

    def task_dir(self, session_id: str) -> Path:
        return self.session_dir(session_id) / TASK_DIR

    def task_file(self, session_id: str, task_id: str) -> Path:
        """The file of a task: `<id>.json`, or the one `<id>-<label>.json` that exists
        (the design names its test gates `IMPL-001.3-validation.json`); where a new
        task goes, `<id>.json`."""
        folder = self.task_dir(session_id)
        path = folder / f"{check_task_id(task_id)}.json"
        if path.exists():
            return path
        return labelled_task_file(folder, task_id) or path

    def journal(self, session_id: str) -> Path:
        """Pending multi-file write of a session (see store.write_together)."""
        return self.locks / f"{check_session_id(session_id)}.journal"

    def session_lock(self, session_id: str) -> Path:
        return self.locks / f"{check_session_id(session_id)}.lock"

    @property
    def root_lock(self) -> Path:
        return self.locks / "workflow.lock"

    def check_inside(self, path: Path) -> None:
        """Refuse a symlink that leads outside the project root."""
        real_root = self.root.resolve()
        try:
            resolved = path.resolve()
        except (RuntimeError, OSError) as err:  # RuntimeError: a loop, before Python 3.13
            if isinstance(err, OSError) and err.errno != errno.ELOOP:
                raise
            raise WfsError(
                f"{self.relative(path)}: is a symlink loop; wfs does not follow it"
            ) from None
        if resolved != real_root and real_root not in resolved.parents:
            raise WfsError(
                f"{self.relative(path)}: is a symlink leading outside the project root; "
                "wfs does not follow it"
            )

    def relative(self, path: Path) -> str:
        """`path` as shown to users: relative to the project root when inside it."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def confined(root: Path, relative: str) -> Path:
    """`relative`, a path that comes from data (a task, an agent's answer), resolved
    inside the project root, or an error naming why not: absolute, `..`, or a symlink
    that leads out. The one confinement check of such paths."""
    if not relative or "\0" in relative:
        raise WfsError(f"invalid path {relative!r}")
    candidate = Path(relative)
    if is_absolute_path(relative) or candidate.is_absolute() or ".." in candidate.parts:
        raise WfsError(f"path {relative!r} leads outside the project root")
    real_root = root.resolve()
    try:
        resolved = (real_root / candidate).resolve()
    except (RuntimeError, OSError):  # a symlink loop, a path too long
        raise WfsError(f"path {relative!r} cannot be resolved (a symlink loop?)") from None
    if resolved != real_root and real_root not in resolved.parents:
        raise WfsError(f"path {relative!r} leads outside the project root (through a symlink)")
    return resolved


def _check_component(value: str, what: str, limit: int = MAX_NAME) -> str:
    """Refuse anything that is not one plain file name of at most `limit` bytes."""
    if not value:
        raise WfsError(f"invalid {what}: it is empty")
    if len(value.encode("utf-8", "surrogateescape")) > limit:
        raise WfsError(
            f"invalid {what} {value[:40] + '...'!r} ({len(value)} characters): it is too "
            f"long to name a file (at most {limit} bytes)"
        )
    if "\0" in value:
        raise WfsError(f"invalid {what} {value!r}: it contains a NUL byte")
    if "/" in value or "\\" in value or os.path.isabs(value):
        raise WfsError(f"invalid {what} {value!r}: it must not contain a path separator")
    if value in (".", "..") or value.startswith("."):
        raise WfsError(f"invalid {what} {value!r}: it must not start with '.'")
    return value


def check_session_id(session_id: str) -> str:
    """`session_id` if it names a session folder directly inside `.workflow/`."""
    _check_component(session_id, "session id", MAX_FOLDER_ID)
    if not session_id.startswith(SESSION_PREFIX) or len(session_id) == len(SESSION_PREFIX):
        raise WfsError(f"invalid session id {session_id!r}: it must look like WFS-<slug>")
    return session_id


def normalize_session_id(value: str) -> str:
    """Accept `WFS-x` or `x` and return `WFS-x`."""
    _check_component(value, "session id", MAX_FOLDER_ID)
    return check_session_id(value if value.startswith(SESSION_PREFIX) else SESSION_PREFIX + value)


def slugify(topic: str) -> str:
    """Lowercase ASCII with runs of anything else turned into single hyphens."""
    ascii_text = unicodedata.normalize("NFKD", topic).encode("ascii", "ignore").decode()
    return _SLUG_JUNK.sub("-", ascii_text.lower()).strip("-")


def check_topic(topic: str) -> str:
    """The slug of `topic`, refusing topics that look like a way out of `.workflow/`."""
    if "\0" in topic:
        raise WfsError("invalid topic: it contains a NUL byte")
    if os.path.isabs(topic) or ".." in re.split(r"[/\\]", topic):
        raise WfsError(f"invalid topic {topic!r}: it looks like a path outside .workflow/")
    slug = slugify(topic)
    if not slug:
        raise WfsError(f"invalid topic {topic!r}: it has no letters or digits to name a session")
    return slug


def session_id_candidates(slug: str) -> list[str]:
    """`WFS-<slug>`, then `-002`, `-003`, … variants; all at most 50 characters."""
    room = MAX_SESSION_ID - len(SESSION_PREFIX)
    base = slug[:room].rstrip("-")
    candidates = [SESSION_PREFIX + base]
    for n in range(2, 10000):
        suffix = f"-{n:03d}"
        candidates.append(SESSION_PREFIX + slug[: room - len(suffix)].rstrip("-") + suffix)
    return candidates


class TaskId(NamedTuple):
    """A parsed `IMPL-N` or `IMPL-N.M`; sorts numerically."""

    major: int
    minor: int | None


def parse_task_id(value: str) -> TaskId | None:
    """The parts of a task id, or None when it is not `IMPL-N` / `IMPL-N.M`."""
    return _parse_task_id(value) if isinstance(value, str) else None


@functools.cache  # runs for every task of every command, often several times
def _parse_task_id(value: str) -> TaskId | None:
    if not value.startswith("IMPL-") or not value.isascii() or len(value) > MAX_NAME:
        return None  # too long to name a file (and to be read as a number)
    major, dot, minor = value[5:].partition(".")
    if not major.isdigit() or (dot and not minor.isdigit()):
        return None
    return TaskId(int(major), int(minor) if dot else None)


_TYPED_ID = re.compile(r"(?:impl-?)?([0-9]+)(?:\.([0-9]+))?", re.I)


def typed_task_id(value: str) -> TaskId | None:
    """What a person means by a task id typed loosely: `IMPL-2`, `impl-2`, `impl2`, `2`,
    `IMPL-002`, `2.1`; None when it names no task id."""
    match = _TYPED_ID.fullmatch(value.strip()) if len(value) <= MAX_TASK_ID else None
    if match is None:
        return None
    return TaskId(int(match.group(1)), None if match.group(2) is None else int(match.group(2)))


def parent_of(task_id: str) -> str | None:
    """`IMPL-1` for `IMPL-1.2` (keeping its spelling, e.g. `IMPL-001`); None for a main task."""
    return task_id.rsplit(".", 1)[0] if "." in task_id else None


def check_task_id(value: str) -> str:
    if parse_task_id(value) is None or len(value) > MAX_TASK_ID:
        _check_component(value, "task id", MAX_TASK_ID)
        raise WfsError(f"invalid task id {value!r}: it must look like IMPL-N or IMPL-N.M")
    return value


# A task file may carry a label after the id: `IMPL-001.3-validation.json`.
_LABELLED = re.compile(r"(IMPL-[0-9]+(?:\.[0-9]+)?)-([A-Za-z][A-Za-z0-9_-]*)")


def file_task_id(stem: str) -> str:
    """The task id a task file's name gives (its name without `.json`): the name
    itself, or the id before a label (`IMPL-001.3` for `IMPL-001.3-validation`)."""
    match = _LABELLED.fullmatch(stem)
    return match.group(1) if match else stem


def labelled_task_file(folder: Path, task_id: str) -> Path | None:
    """The file `<task_id>-<label>.json` in `folder`, when there is exactly one."""
    prefix = f"{task_id}-"
    try:
        names = [
            name
            for name in os.listdir(folder)
            if name.startswith(prefix)
            and name.endswith(".json")
            and file_task_id(name[: -len(".json")]) == task_id
        ]
    except OSError:
        return None
    return folder / names[0] if len(names) == 1 else None


@functools.cache
def task_sort_key(task_id: str) -> tuple[int, int, str]:
    """Numeric order of ids (a task file's name sorts as the id it gives)."""
    parsed = parse_task_id(task_id) or parse_task_id(file_task_id(task_id))
    if parsed is None:
        return (1 << 62, 0, task_id)
    return (parsed.major, -1 if parsed.minor is None else parsed.minor, task_id)


# ---------------------------------------------------------------- paths from another machine

_DRIVE = re.compile(r"[A-Za-z]:(?=[\\/]|$)")
_WILDCARD = re.compile(r"[*?\[]")


def is_absolute_path(text: str) -> bool:
    """An absolute path on any system: `/x`, `\\x`, `\\\\server\\x` or `D:\\x`."""
    return text.startswith(("/", "\\")) or bool(_DRIVE.match(text))


def project_path(root: Path, text: str, pattern: bool = False) -> str | None:
    """Where an absolute path, written on the author's machine, is in this project
    (relative, with `/`), or None when it is not in it. In order:

    - a path inside the project root as it is here;
    - a path into a `.workflow/` folder: the same path in this project's;
    - the longest suffix of it that exists here (for a glob `pattern`, whose folders
      before the first wildcard exist);
    - the part after a folder named as the project's folder (a file still to create).
    """
    try:
        inside = Path(text).relative_to(root)
    except ValueError:
        inside = None
    if inside is not None and Path(text).is_absolute() and ".." not in inside.parts:
        return inside.as_posix() if inside.parts else "."
    parts = [p for p in re.split(r"[/\\]+", text) if p not in ("", ".")]
    drive = bool(_DRIVE.match(text))
    if drive and parts:
        parts = parts[1:]
    if ".." in parts:
        return None
    if WORKFLOW_DIR in parts:
        return "/".join(parts[parts.index(WORKFLOW_DIR) :])
    for start in range(len(parts)):
        suffix = parts[start:]
        static = (
            list(itertools.takewhile(lambda p: not _WILDCARD.search(p), suffix))
            if pattern
            else suffix
        )
        if static and root.joinpath(*static).exists():
            return "/".join(suffix)
    name = root.name.casefold() if drive else root.name
    named = [i for i, p in enumerate(parts) if (p.casefold() if drive else p) == name]
    if named:
        rest = parts[named[-1] + 1 :]
        return "/".join(rest) if rest else "."
    return None
