"""All file I/O of the plan: JSON files (through wfs.jsonio), atomic writes, locks;
and the documents a command reads from a file or stdin.

A write goes to a temporary file in the same directory, is fsynced, then renamed over
the target, so a reader (or a process killed mid-write) only ever sees the old or the
new file whole. Read-modify-write cycles run under a file lock (filelock, through
wfs.platform).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wfs import jsonio, platform
from wfs.errors import BusyError, WfsError, WrittenInPart

DEFAULT_LOCK_TIMEOUT = 10.0

# The folders of wfs's runtime files: caches, locks and journals, run records, and the
# copies `wfs doctor --fix` keeps of what it repairs. Each one
# holds a `.gitignore` of `*`, written before anything else in it (as pytest, mypy and
# ruff do for their caches), so that git ignores the folder wherever it is: in a
# repository whose `.workflow/` has no `.gitignore` of wfs's, in every worktree, and
# without running git (docs/formats.md, "Runtime files").
RUNTIME_DIRS = frozenset({".cache", ".locks", ".runs", ".doctor"})
RUNTIME_IGNORE = b"# Written by wfs: local runtime files, never committed.\n*\n"


def read_json(path: Path, where: str | None = None) -> Any:
    """The parsed contents of `path`; `where` is the name shown in errors."""
    return read_document(path, where)[0]


def read_document(path: Path, where: str | None = None) -> tuple[Any, bytes]:
    """The parsed contents of `path` and its bytes (to write it back as it is laid
    out, wfs.jsonedit.rewrite); `where` is the name shown in errors."""
    where = where or str(path)
    raw = read_file(path, where)
    return jsonio.parse(raw, where), raw


INPUT_LIMIT = 64 * 1024 * 1024  # a plan document or an answer larger than this is refused


def read_file(path: Path | str, where: str | None = None, limit: int = INPUT_LIMIT) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them; `where` is the
    name shown in errors. The one way wfs reads a file of the project: a FIFO (which
    would wait for a writer for ever), a device (`/dev/zero` would fill the memory), a
    socket, a file over `limit` (refused by its size, before a byte is read), or a
    symlink that leads out of the places wfs works in (refused before it is opened),
    naming the file."""
    where = where or str(path)
    if _PLACES:
        real = os.path.realpath(path)
        if not any(real == place or real.startswith(place + os.sep) for place in _PLACES):
            raise WfsError(
                f"{where}: refused: a symlink leads this path outside the project root "
                f"(to {real}); nothing was read"
            )
    handle = open_regular(path, limit)
    if isinstance(handle, str):
        raise WfsError(f"{where}: {handle}")
    return handle


def read_text(path: Path | str, where: str | None = None, limit: int = INPUT_LIMIT) -> str:
    """`read_file` as text (UTF-8, undecodable bytes replaced, line ends as a text file
    reads them)."""
    data = read_file(path, where, limit).decode("utf-8", "replace")
    return data.replace("\r\n", "\n").replace("\r", "\n")


def read_optional(
    path: Path | str, where: str | None = None, limit: int = INPUT_LIMIT
) -> bytes | None:
    """`read_file`, or None when there is no such file (a missing summary, an absent
    `.gitignore`)."""
    if not os.path.lexists(path):
        return None
    try:
        return read_file(path, where, limit)
    except WfsError as err:
        if err.message.endswith(": file not found"):
            return None  # removed meanwhile
        raise


def read_cache_file(path: Path | str, limit: int = INPUT_LIMIT) -> bytes | None:
    """The bytes of one of wfs's own files (a cache), or None when it is not there or
    not a regular file of at most `limit` bytes: a cache that cannot be trusted is not
    used, and rebuilt."""
    found = open_regular(path, limit)
    return None if isinstance(found, str) else found


def open_regular(path: Path | str, limit: int) -> bytes | str:
    """The bytes of `path` when it is a regular file of at most `limit` bytes, else why
    not (a short phrase)."""
    try:
        fd = platform.open_to_read(os.fspath(path))
    except FileNotFoundError:
        return "file not found"
    except IsADirectoryError:
        return "is a directory, expected a file"
    except OSError as err:
        if err.errno == errno.ENXIO:  # a socket (or a device with nothing behind it)
            return platform.NOT_REGULAR
        return f"cannot read: {err.strerror}"
    found = os.fstat(fd)
    mode = found.st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)  # (a folder opens on some systems, and cannot be read)
        if stat.S_ISDIR(mode):
            return "is a directory, expected a file"
        return platform.NOT_REGULAR
    if found.st_size > limit:  # refused by its size: nothing of it is read
        os.close(fd)
        return _too_large(limit)
    with open(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew while it was read
        return _too_large(limit)
    return data


def _too_large(limit: int) -> str:
    if limit >= 1024 * 1024:
        return f"larger than {limit // (1024 * 1024)} MiB; refused"
    return f"larger than {limit // 1024} KiB; refused"


def read_input(source: str) -> tuple[bytes, str]:
    """Bytes of FILE, or of stdin for "-", and the name to show in messages.

    At most INPUT_LIMIT bytes: a device such as /dev/zero, or a runaway pipe, is refused
    instead of filling the memory."""
    if not source:
        raise WfsError("an empty file name: give a FILE, or - for stdin")
    name = "<stdin>" if source == "-" else source
    fifo = False
    try:
        if source == "-":
            data = sys.stdin.buffer.read(INPUT_LIMIT + 1)
        else:
            # Opening a FIFO waits for a writer, maybe for ever; without waiting, a FIFO
            # nobody writes to reads as empty (one being written to, as `<(cmd)`, reads).
            fd = platform.open_to_read(source)
            with open(fd, "rb") as handle:
                fifo = stat.S_ISFIFO(os.fstat(fd).st_mode)
                data = handle.read(INPUT_LIMIT + 1)
    except OSError as err:
        raise WfsError(f"{name}: cannot read: {err.strerror}") from None
    if fifo and not data:
        raise WfsError(f"{name}: is a FIFO that nobody writes to; nothing to read")
    check_input_size(data, name)
    return data, name


def check_input_size(data: bytes, name: str) -> None:
    """Refuse an input (a plan document, an answer) larger than INPUT_LIMIT bytes, as
    `wfs plan --from` does, whichever way it came: a file, stdin, an MCP call."""
    if len(data) > INPUT_LIMIT:
        raise WfsError(f"{name}: larger than {INPUT_LIMIT // (1024 * 1024)} MiB; refused")


# Where wfs may write, symlinks resolved: the project root, and what a command allows
# besides (git's hooks folder, the user's Gemini policy). Empty: not confined (wfs used
# as a library, by tests of one function).
_PLACES: list[str] = []


def confine(*places: Path | str) -> None:
    """Allow writes under `places` from now on, and (once called) nowhere else."""
    for place in places:
        real = os.path.realpath(place)
        if real not in _PLACES:
            _PLACES.append(real)


def guard(path: Path | str) -> None:
    """Refuse (exit 2) to create, replace, move or delete `path` when its folder, with
    every symlink resolved, is outside the places allowed: a symlinked `.workflow`,
    session folder or `.runs` must not lead a write out of the project."""
    if not _PLACES:
        return
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    for place in _PLACES:
        if folder == place or folder.startswith(place.rstrip(os.sep) + os.sep):
            return
    raise WfsError(
        f"{path}: refused: a symlink leads this path outside the project root "
        f"(to {folder}); nothing was written"
    )


def make_dirs(path: Path) -> None:
    guard(path / "_")
    make_folder(path)


def make_folder(folder: Path) -> None:
    """Make `folder` and the folders above it that are missing; a runtime folder (one
    of RUNTIME_DIRS) gets its `.gitignore` before anything else is written in it."""
    if folder.is_dir():
        if folder.name in RUNTIME_DIRS and not os.path.lexists(folder / ".gitignore"):
            _ignore(folder)  # made by an earlier wfs
        return
    missing = [folder]
    while not missing[-1].parent.is_dir() and missing[-1].parent != missing[-1]:
        missing.append(missing[-1].parent)
    for made in reversed(missing):
        write_point("mkdir", made)
        made.mkdir(exist_ok=True)
        if made.name in RUNTIME_DIRS:
            _ignore(made)


def ignore_folder(folder: Path) -> None:
    """Make git ignore `folder` (a folder of wfs's own outside RUNTIME_DIRS, such as
    the tasks' worktrees), unless it has its `.gitignore` already."""
    if not os.path.lexists(folder / ".gitignore"):
        _ignore(folder)


def _ignore(folder: Path) -> None:
    """Write the `.gitignore` that makes git ignore the runtime folder `folder`."""
    target = folder / ".gitignore"
    try:
        fd, tmp = _temporary(target)
    except OSError:
        return  # a read-only folder: nothing is written in it either
    with os.fdopen(fd, "wb") as handle:
        handle.write(RUNTIME_IGNORE)
    write_point("replace", target)
    with contextlib.suppress(FileNotFoundError):  # `wfs doctor --fix` took it for a leftover
        os.replace(tmp, target)


def touch(path: Path) -> None:
    guard(path)
    write_point("touch", path)
    path.touch()
    os.utime(path)


def remove(path: Path) -> None:
    """Delete the file (or the symlink itself) at `path`; absent is fine."""
    guard(path)
    write_point("remove", path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def remove_tree(path: Path) -> None:
    """Delete the folder `path` and all in it (a symlink: only the link)."""
    guard(path)
    if path.is_symlink() or not path.is_dir():
        remove(path)
        return

    guard(path / "_")
    write_point("remove-tree", path)
    shutil.rmtree(path)


def move(source: Path, target: Path) -> None:
    """Rename `source` to `target` (replacing a file there)."""
    guard(source)
    guard(target)
    make_folder(target.parent)
    write_point("move", target)
    os.replace(source, target)


def write_bytes(path: Path, data: bytes, durable: bool = True, private: bool = False) -> None:
    """Replace `path` with `data` atomically, creating its directory on demand.

    `durable=False` skips the fsyncs, for derived files (caches) only: a crash may lose
    them but never tears them. `private`: readable by its owner only (a secret)."""
    tmp = stage(path, data, durable, private)
    try:
        write_point("replace", path)
        with _naming(path):
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)


def _temporary(path: Path, private: bool = False) -> tuple[int, str]:
    """A new file `.NAME.XXXXXXXX.tmp` beside `path`, opened for writing, with the mode
    a new file gets from the umask (tempfile.mkstemp makes it 0600, and a task file
    renamed over would no longer be readable by the group that shares the plan); 0600
    when `private`."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL
    while True:
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(4).hex()}.tmp")
        try:
            return platform.open_own(tmp, flags, 0o600 if private else _file_mode()), tmp
        except FileExistsError:
            continue


_MODE: int | None = None


def _file_mode() -> int:
    global _MODE
    if _MODE is None:
        umask = os.umask(0o022)
        os.umask(umask)
        _MODE = 0o666 & ~umask
    return _MODE


def check_appendable(path: Path, shown: Callable[[Path], str] = str) -> None:
    """Refuse (exit 2) a file that an Appender would add to and that is there but not a
    regular file (a FIFO, a device, a socket, a folder, a symlink): before a run
    changes anything, rather than when it opens its log. `shown`: how to name it."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise WfsError(
            f"{shown(path)}: not a regular file (a FIFO, a device, a socket, a folder or a "
            "symlink), where wfs appends a log; remove it; nothing was changed"
        )


# ---------------------------------------------------------- write points (a test hook)
# Every change wfs makes to the tree goes through this module, and each one is a
# numbered write point: a file renamed into place (a write), a file or folder moved,
# removed or created, a line appended. Two environment variables, for tests only and
# inert unless set, make a crash land exactly there, whatever the machine's speed:
# WFS_TEST_WRITE_LOG=FILE appends one line per write point to FILE
# (`<number> <pid> <kind> <path>`); WFS_TEST_CRASH_AT=K, a positive integer, kills the
# process (as SIGKILL would) right before its K-th write point. With a log the points are
# numbered across every process that shares it (a `git merge` runs wfs's drivers and
# hooks one after another), else within the process. Anything else in WFS_TEST_CRASH_AT
# is ignored. The derived caches (`.workflow/.cache/`) are not numbered: whether one is
# written depends on the clock (a stamp too new is not trusted), and a crash there is a
# crash before the next write.
CRASH_AT = "WFS_TEST_CRASH_AT"
WRITE_LOG = "WFS_TEST_WRITE_LOG"
_write_points = 0  # in this process


def write_point(kind: str, path: Path | str) -> None:
    """Count one change to the tree (`kind`: replace, move, remove, remove-tree, touch,
    mkdir, append) about to be made at `path`; see WRITE_LOG and CRASH_AT above."""
    if CRASH_AT not in os.environ and WRITE_LOG not in os.environ:
        return  # the path of every real run: two lookups
    if ".cache" in Path(path).parts[-2:]:
        return
    global _write_points
    _write_points += 1
    number = _write_points
    log = os.environ.get(WRITE_LOG)
    if log:
        with open(log, "a+b") as handle:
            handle.seek(0)
            number = handle.read().count(b"\n") + 1
            handle.write(f"{number} {os.getpid()} {kind} {os.path.abspath(path)}\n".encode())
    crash_at = os.environ.get(CRASH_AT, "")
    if crash_at.isdigit() and crash_at.isascii() and int(crash_at) == number:
        platform.kill_self()


class Appender:
    """Appends to one file at a time, for logs of lines: the file is opened (and its
    folder checked) once, then every line is one write, so a killed process leaves a
    line whole or absent; a reader ignores a last line that a power cut or a full disk
    cut short."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.fd = -1
        self.lines = 0

    def append(self, path: Path, data: bytes) -> None:
        if path != self.path:
            self.open(path, 0)
        self.write(path, data)

    def start(self, path: Path, data: bytes) -> None:
        """Start the file at `path` over, with `data` as its first line(s)."""
        self.open(path, os.O_TRUNC)
        self.write(path, data)

    def open(self, path: Path, flags: int) -> None:
        self.close()
        guard(path)
        with _naming(path):
            make_folder(path.parent)
            flags |= os.O_WRONLY | os.O_APPEND | os.O_CREAT
            self.fd = platform.open_own(path, flags, _file_mode())
        self.path = path

    def write(self, path: Path, data: bytes) -> None:
        write_point("append", path)
        with _naming(path):
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view) :]
        self.lines += 1

    def close(self) -> None:
        if self.fd != -1:
            os.close(self.fd)
        self.path, self.fd, self.lines = None, -1, 0


def write_json(path: Path, data: Any) -> None:
    write_bytes(path, jsonio.dumps(data))


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def differs(path: Path, data: bytes) -> bool:
    """Whether the file at `path` does not hold `data`. What is there is read as a file
    only (a FIFO or a device differs, and is replaced, never read)."""
    return open_regular(path, len(data)) != data


def write_each(files: list[tuple[Path, bytes]]) -> None:
    """Replace each file atomically, syncing each folder once for them all (for files
    that need not change together, such as the two views of a session)."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, data in files:
            staged.append((path, stage(path, data)))
        for path, temporary in staged:
            write_point("replace", path)
            with _naming(path):
                os.replace(temporary, path)
    except BaseException:
        for _, temporary in staged:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        raise
    for folder in dict.fromkeys(path.parent for path, _ in files):
        _fsync_dir(folder)


def write_together(
    files: list[tuple[Path, bytes]],
    journal: Path,
    derived: list[tuple[Path, bytes]] | None = None,
) -> None:
    """Write several files so that a crash leaves all of them written or none.

    Every new content is first staged in a temporary file beside its target and made
    durable: a full disk, a read-only folder or a permission refused stops the change
    there, with nothing changed. Then a journal lists the renames that remain, and they
    are done; after a crash, `replay(journal)` (run under the same lock before anything
    else) finishes them.

    `derived`: files made from `files` (a session's views). They join the journal when
    there is one, so that a replay leaves them agreeing with what it finishes; a change
    of one file goes without a journal, and they are written after it.
    """
    derived = derived or []
    for path, _ in files + derived:  # a folder in the way: refused before any change
        if os.path.isdir(path) and not os.path.islink(path):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if len(files) <= 1:
        for path, data in files:
            write_bytes(path, data)
        try:
            write_each(derived)
        except OSError as err:
            written = "the change was written, but not the views (`wfs render` writes them)"
            raise WrittenInPart(err, written) from None
        return
    files = files + derived
    base = journal.parent
    staged: list[tuple[Path, Path]] = []
    try:
        for path, data in files:
            staged.append((path, stage(path, data)))
        renames = [[os.path.relpath(t, base), os.path.relpath(s, base)] for t, s in staged]
        write_bytes(journal, jsonio.dumps({"renames": renames}))
    except BaseException:
        for _, temporary in staged:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise
    for target, temporary in staged:
        write_point("replace", target)
        os.replace(temporary, target)
    for folder in {target.parent for target, _ in staged}:
        _fsync_dir(folder)
    write_point("remove", journal)
    journal.unlink()
    _fsync_dir(base)


def stage(path: Path, data: bytes, durable: bool = True, private: bool = False) -> Path:
    """`data` in a temporary file beside `path` (made durable unless told otherwise;
    readable by its owner only when `private`), ready to be renamed over it."""
    guard(path)
    with _naming(path):
        make_folder(path.parent)
        fd, tmp = _temporary(path, private)
    try:
        with _naming(path):
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                if durable:
                    handle.flush()
                    os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return Path(tmp)


JOURNAL_LIMIT = 16 * 1024 * 1024  # a journal lists renames: far less than this


def replay(journal: Path) -> bool:
    """Finish an interrupted `write_together`; True when there was one to finish.

    A journal that is not one wfs wrote (not a regular file, not the list of renames
    of files staged beside their targets in `.workflow/`) is refused, naming it, with
    nothing changed: replaying it could move any file of the project over another."""
    raw = open_regular(journal, JOURNAL_LIMIT)
    if raw == "file not found":
        return False
    if isinstance(raw, str):
        raise WfsError(f"{journal}: {raw}; remove it if no wfs process is writing")
    base = journal.parent
    try:
        data = jsonio.loads(raw)
        renames = data.get("renames")
        files = data.get("files")  # journals of earlier versions hold the contents
    except (ValueError, AttributeError):
        # Torn before it was complete: no file was renamed yet (the staged ones are
        # leftovers `wfs doctor --fix` removes).
        remove(journal)
        return True
    pairs = _journal_pairs(base, renames, staged=True), _journal_pairs(base, files)
    if pairs[0] is None or pairs[1] is None:
        raise WfsError(
            f"{journal}: not the journal of an interrupted wfs write (each entry names a "
            "file of .workflow/ and the file staged beside it); nothing was changed; "
            "remove it if no wfs process is writing"
        )
    for target, temporary in pairs[0]:
        if (base / temporary).exists():  # not renamed yet
            move(base / temporary, base / target)
    for relative, text in pairs[1]:
        write_bytes(base / relative, text.encode("utf-8"))
    remove(journal)
    return True


def _journal_pairs(base: Path, entries: Any, staged: bool = False) -> list[list[str]] | None:
    """The [target, temporary] (`staged`) or [target, text] pairs of a journal field, or
    None when they are not what write_together writes: targets in `.workflow/` (the
    folder of the journal's folder), each temporary a `.NAME.XXXXXXXX.tmp` beside it."""
    if entries is None:
        return []
    if not isinstance(entries, list):
        return None
    workflow = os.path.normpath(base.parent)
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) == 2):
            return None
        target, second = entry
        if not (isinstance(target, str) and isinstance(second, str)):
            return None
        where = os.path.normpath(os.path.join(base, target))
        if not where.startswith(workflow + os.sep):
            return None
        if staged:
            beside = os.path.normpath(os.path.join(base, second))
            name = os.path.basename(where)
            if os.path.dirname(beside) != os.path.dirname(where) or not (
                os.path.basename(beside).startswith(f".{name}.") and beside.endswith(".tmp")
            ):
                return None
    return entries


@contextlib.contextmanager
def _naming(path: Path) -> Iterator[None]:
    """An I/O error without a file name (a full disk on write) names `path`, and so
    does one of a rename into `path` (not the temporary file renamed)."""
    try:
        yield
    except OSError as err:
        if err.filename and not err.filename2:
            raise
        raise OSError(err.errno, err.strerror, str(path)) from None


def _fsync_dir(directory: Path) -> None:
    platform.sync_folder(directory)  # makes the rename itself durable


MAX_LOCK_TIMEOUT = 86400.0 * 7  # a week: longer is a mistake


def lock_timeout() -> float:
    raw = os.environ.get("WFS_LOCK_TIMEOUT")
    if raw is None:
        return DEFAULT_LOCK_TIMEOUT
    # A long value is shown by its start and length, as a long id is.
    shown = repr(raw) if len(raw) <= 40 else f"{raw[:40] + '...'!r} ({len(raw)} characters)"
    try:
        value = float(raw)
    except ValueError:
        raise WfsError(f"WFS_LOCK_TIMEOUT={shown}: expected a number of seconds") from None
    if not 0 <= value < MAX_LOCK_TIMEOUT:  # nan and inf too: neither is a wait
        raise WfsError(
            f"WFS_LOCK_TIMEOUT={shown}: expected a number of seconds from 0 to {MAX_LOCK_TIMEOUT:g}"
        )
    return value


@contextlib.contextmanager
def locked(lock_path: Path, what: str) -> Iterator[None]:
    """Hold the lock file `lock_path`; raise BusyError (exit 4) after the timeout.

    The operating system releases it when the process dies (wfs.platform.FileLock), so
    a crash never leaves a session locked. Re-entrant within one process: a locked
    helper may call another that takes the same lock.
    """
    timeout = lock_timeout()
    guard(lock_path)
    try:
        mode: int | None = os.lstat(lock_path).st_mode
    except FileNotFoundError:
        mode = None  # the lock makes it
    if mode is not None and stat.S_ISLNK(mode):
        raise WfsError(
            f"{lock_path}: refused: the lock file is a symlink (wfs never locks or writes "
            "through one); remove it"
        )
    if mode is not None and not stat.S_ISREG(mode):
        # A FIFO or a device is no lock to rely on on every system, and a folder none.
        raise WfsError(
            f"{lock_path}: refused: the lock file is not a regular file (a folder, a FIFO, "
            "a device or a socket); remove it"
        )
    make_folder(lock_path.parent)
    lock = platform.FileLock(os.fspath(lock_path), timeout)
    try:
        lock.acquire()
    except TimeoutError:
        raise BusyError(
            f"{what} is locked by another wfs process (waited {timeout:g}s); "
            "try again, or set WFS_LOCK_TIMEOUT to wait longer"
        ) from None
    try:
        yield
    finally:
        lock.release()
