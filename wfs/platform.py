"""Every difference between the operating systems wfs runs on, in one place.

- the flags wfs opens its own files with, and syncing a folder;
- the lock of a session (filelock: flock(2) on POSIX, LockFileEx on Windows);
- this machine's name and whether a process still runs;
- starting a command in a process group of its own (a job object on Windows), and
  stopping the whole group; seeing that no group outlives this process (a watcher on
  POSIX, the job object on Windows); starting one detached in the background; running
  a function in a child process that can be killed;
- a terminal's keys read one at a time (termios on POSIX, msvcrt on Windows);
- finding the processes of steps that outlived their runner (/proc, ps);
- which signals stop wfs;
- how a printed command is quoted for the user's shell (POSIX shells, PowerShell, cmd);
- where bash is (Git Bash or WSL on Windows).

Each branch is chosen by what the running Python has (`os.killpg`, `os.O_NOFOLLOW`,
`fcntl` importable), not by the name of the system alone, so a platform that lacks a
POSIX call takes the portable branch instead of failing. Only what exists on Windows
alone (its job objects, its process handles) is chosen by `sys.platform`.

Every command imports this module (through wfs/store.py), so the costly imports of a
part (filelock ~20 ms, multiprocessing ~11 ms, subprocess ~3 ms) are made when the part
is first used, each marked where it is: a command pays only for what it uses.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import shutil
import signal
import stat
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:  # imported when first used (see the module's docstring)
    import subprocess

    from filelock import BaseFileLock

T = TypeVar("T")

WINDOWS = sys.platform == "win32"

# ------------------------------------------------------------------ files

# Added to every open of a file wfs writes: never follow a symlink at the last
# component (the folder is checked by store.guard), never leak the descriptor into a
# step, never translate line ends.
OWN_FILE_FLAGS = (
    getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)


NOT_REGULAR = "not a regular file (a FIFO, a device or a socket); refused"


def open_own(path: str | os.PathLike[str], flags: int, mode: int = 0o666) -> int:
    """`os.open` for a file wfs writes, which must not be a symlink: refused by the
    kernel where O_NOFOLLOW exists, and checked just before opening where it does not.
    Nor a FIFO (opening one to write waits for a reader, for ever), a device or a
    socket: refused, naming it."""
    if not hasattr(os, "O_NOFOLLOW") and os.path.islink(path):
        raise OSError(errno.ELOOP, "is a symlink; wfs does not write through one", str(path))
    nonblocking = getattr(os, "O_NONBLOCK", 0) if hasattr(os, "set_blocking") else 0
    try:
        fd = os.open(path, flags | OWN_FILE_FLAGS | nonblocking, mode)
    except OSError as err:
        if err.errno == errno.ENXIO:  # a FIFO nobody reads
            raise OSError(errno.ENXIO, NOT_REGULAR, str(path)) from None
        raise
    if not _is_regular(fd):
        os.close(fd)
        raise OSError(errno.EINVAL, NOT_REGULAR, str(path))
    if nonblocking:
        os.set_blocking(fd, True)
    return fd


def _is_regular(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


def open_to_read(path: str) -> int:
    """A descriptor to read the file `path` from, without waiting for ever on a FIFO
    that nobody writes to (it then reads as empty); Windows has no such FIFOs."""
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    set_blocking: Callable[[int, bool], None] | None = getattr(os, "set_blocking", None)
    if set_blocking is None:
        nonblocking = 0
    fd = os.open(path, os.O_RDONLY | nonblocking | getattr(os, "O_BINARY", 0))
    if nonblocking and set_blocking is not None:
        set_blocking(fd, True)
    return fd


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """Make the renames in `folder` durable. POSIX systems sync a folder through a
    descriptor; Windows cannot open one (NTFS journals the rename itself)."""
    if WINDOWS:
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a folder; the rename is done all the same
    finally:
        os.close(fd)


# ------------------------------------------------------------------ locks

# How often a waiting writer tries the lock again.
LOCK_POLL_SECONDS = 0.01


def lock_class(system: str = sys.platform, flock: bool | None = None) -> type[BaseFileLock]:
    """The filelock class that locks a session here: LockFileEx on Windows; flock(2)
    where it exists (the lock earlier wfs versions take, so they exclude each other);
    else filelock's marker file, which a crashed holder's peers on this machine reclaim.

    `system` and `flock` are what this Python has unless given (the tests choose)."""
    import filelock  # deferred on purpose: ~20 ms, paid by writes only

    if system == "win32":
        return filelock.WindowsFileLock
    if filelock.has_fcntl if flock is None else flock:
        return filelock.UnixFileLock
    soft: type[BaseFileLock] = filelock.SoftFileLock
    return soft


class FileLock:
    """Holds the lock file at `path` for a `with` block (or from acquire() to
    release()), waiting at most `timeout` seconds (then TimeoutError). Re-entrant within
    a thread: a nested hold of the same path is counted, and the lock is released when
    the outermost one ends, or when this object is collected (keep a reference while
    holding). The system releases a native lock when its process dies, whatever its
    state; the fallback's marker file is reclaimed by the next waiter on this machine."""

    def __init__(self, path: str, timeout: float, kind: type[BaseFileLock] | None = None) -> None:
        import filelock  # deferred: ~20 ms, paid by writes only

        kind = lock_class() if kind is None else kind
        # (Not issubclass(kind, SoftFileLock): naming that class imports its modules.)
        soft = not issubclass(kind, (filelock.UnixFileLock, filelock.WindowsFileLock))
        # One instance per path (is_singleton) is what makes a nested hold re-entrant.
        # No soft fallback for the native locks: a marker file would outlive a crash.
        self.lock = kind(
            path,
            is_singleton=True,
            poll_interval=LOCK_POLL_SECONDS,
            fallback_to_soft=False,
            preserve_lock_file=not soft,
        )
        self.timeout = timeout

    def acquire(self) -> None:
        """Take the lock (or count one more hold of it); TimeoutError when another
        process keeps it past the timeout."""
        import filelock  # deferred: ~20 ms, paid by writes only

        try:
            self.lock.acquire(timeout=self.timeout)
        except filelock.Timeout:
            raise TimeoutError(f"{self.lock.lock_file}: held by another process") from None

    def release(self) -> None:
        self.lock.release()

    def __enter__(self) -> None:
        self.acquire()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()

    @property
    def is_held(self) -> bool:
        return bool(self.lock.is_locked)


# ------------------------------------------------------------------ hosts and processes


def host_name() -> str:
    """This machine's name, as claims record it (`host:pid`)."""
    import socket  # deferred: only a claim names its host

    return socket.gethostname()


def process_alive(pid: int) -> bool:
    """Whether the process `pid` of this machine may still run (one that cannot be
    inspected, such as another user's, is assumed to)."""
    if pid <= 0:
        return False
    if WINDOWS:
        return _windows_process_alive(pid)
    try:
        os.kill(pid, 0)  # signal 0: the existence test POSIX defines
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Whether `pid` has ended and waits to be reaped (a process whose parent was
    killed may stay so for a while): known where /proc tells it, else assumed not."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
    except OSError:
        return False
    return bool(fields) and fields[0] == b"Z"


# ------------------------------------------------------------------ terminals

# Clears a terminal's line from the cursor to its end (a status line rewritten in
# place): the ANSI sequence every POSIX terminal reads. Windows' console reads it only
# once asked to (VT mode), so there the line is padded with spaces instead ("").
CLEAR_TO_END = "" if WINDOWS else "\x1b[K"
# Back up over lines drawn before and clear them (rewriting several status lines in
# place); empty where the console may not understand it: one line is drawn instead.
CLEAR_LINES_UP = "" if WINDOWS else "\x1b[{count}F\x1b[J"


def terminal_columns(stream: Any) -> int:
    """The width of the terminal `stream` writes to, asked of the terminal itself (a
    COLUMNS variable may be left from another one); 80 when it cannot say."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return shutil.get_terminal_size((80, 24)).columns


# Redraw a whole screen in place (a terminal board): cursor home, clear to the end.
# Windows' console reads it once VT mode is on (Windows 10 and later turn it on for
# Python's own console writes); elsewhere it is plain ANSI.
CLEAR_SCREEN = "\x1b[H\x1b[J"


class Keys:
    """The keys a person presses while a screen redraws itself, one at a time and
    without Enter: the terminal in cbreak mode (POSIX, termios) or the console's
    keyboard (Windows, msvcrt); given back as it was on leaving."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.saved: Any = None

    def __enter__(self) -> Keys:
        if sys.platform != "win32":  # (as mypy reads it for Windows too)
            import termios  # deferred: only a terminal board reads keys
            import tty  # deferred: only a terminal board reads keys

            fd = self.stream.fileno()
            self.saved = termios.tcgetattr(fd)
            tty.setcbreak(fd)
        return self

    def __exit__(self, *exc: object) -> None:
        if sys.platform != "win32" and self.saved is not None:
            import termios  # deferred: only a terminal board reads keys

            termios.tcsetattr(self.stream.fileno(), termios.TCSADRAIN, self.saved)

    def read(self, seconds: float) -> str | None:
        """A key pressed within `seconds`, else None."""
        if WINDOWS:
            import msvcrt  # deferred: Windows' console only

            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                if msvcrt.kbhit():  # type: ignore[attr-defined,unused-ignore]
                    return str(msvcrt.getwch())  # type: ignore[attr-defined,unused-ignore]
                time.sleep(0.02)
            return None
        import select  # deferred: only a terminal board waits for keys

        ready, _, _ = select.select([self.stream], [], [], seconds)
        if not ready:
            return None
        return os.read(self.stream.fileno(), 1).decode("utf-8", "replace")


# ------------------------------------------------------------------ signals


def stop_signals() -> tuple[int, ...]:
    """The signals that ask wfs to stop: SIGINT (Ctrl-C), SIGTERM, and SIGHUP (the
    terminal closed) where it exists (not on Windows)."""
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    return tuple(int(getattr(signal, name)) for name in names if hasattr(signal, name))


def signal_number(name: str) -> int | None:
    """The number of the signal called `name` (`SIGTERM`) here, or None."""
    number = getattr(signal, name, None) if name.startswith("SIG") else None
    return int(number) if number is not None else None


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def raise_signal(signum: int) -> None:
    """Deliver `signum` to this process, as if it came from outside."""
    signal.raise_signal(signum)


def _kill_signal() -> int:
    """SIGKILL where it exists; elsewhere the strongest signal there is."""
    return int(getattr(signal, "SIGKILL", signal.SIGTERM))


def kill_self() -> None:
    """End this process at once, as a SIGKILL from outside would: no `finally`, no
    `atexit`, no buffer flushed (Windows: TerminateProcess). The crash point of
    `store.write_point`."""
    os.kill(os.getpid(), _kill_signal())
    os._exit(137)  # not reached where the signal kills


# ------------------------------------------------------------------ process groups

GRACE_SECONDS = 3.0  # between asking a stopped step's group to end and killing it
# Signals a process group, where this Python can start a process in a session (and so a
# group) of its own; None elsewhere (Windows: job objects).
_killpg: Callable[[int, int], None] | None = (
    getattr(os, "killpg", None) if hasattr(os, "setsid") else None
)
POSIX_GROUPS = _killpg is not None
_setpgid: Callable[[int, int], None] | None = getattr(os, "setpgid", None)
_CREATE_SUSPENDED = 0x00000004  # Windows: a process that runs once it is in its job


def start_detached(argv: list[str], cwd: str | os.PathLike[str]) -> int:
    """Start `argv` in the background, apart from this process (POSIX: a session of
    its own; Windows: a detached process group), reading and writing nothing here
    (it keeps its own records); its pid. A thread reaps it when it ends, so that no
    zombie is left while this process runs on."""
    import subprocess  # deferred: only a command that runs a process pays for it
    import threading  # deferred: with the process it waits for

    options: dict[str, Any] = {}
    if POSIX_GROUPS:
        options["start_new_session"] = True
    elif sys.platform == "win32":
        options["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        **options,
    )
    threading.Thread(target=process.wait, daemon=True).start()
    return process.pid


class Group:
    """A command started in a process group of its own (POSIX: a new session; Windows:
    a new process group inside a job object), with its output piped, so that a timeout
    or an interruption stops everything it started.

    It never outlives this process, however this process ends (SIGKILL, its process
    group killed, out of memory): on POSIX the runner's watcher kills the group (see
    `watch_group`); on Windows the job object kills its processes when its last handle,
    this process's, closes. The command starts suspended there and runs only once it
    is in its job, so that nothing it starts escapes.

    `watched=False`: a command that may outlive this process, and must not be killed
    whole when it dies (no watcher, no job object): another wfs that runs a task, whose
    own git commands must end whole (a killed git leaves lock files for a person to
    clear), and which watches its steps itself."""

    def __init__(
        self,
        argv: list[str],
        cwd: str | os.PathLike[str],
        env: Mapping[str, str],
        stdin: bool,
        watched: bool = True,
    ) -> None:
        import subprocess  # deferred: only a command that runs a process pays for it

        options: dict[str, Any] = {}
        if POSIX_GROUPS:
            options["start_new_session"] = True
        elif sys.platform == "win32":
            options["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP | _CREATE_SUSPENDED
        if POSIX_GROUPS and watched:
            ready_watcher()
        self.process: subprocess.Popen[bytes] = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **options,
        )
        self.job: int | None = None
        self.pumped = False  # stdout and stderr are read (and closed) by threads
        self.watched = False  # the runner's watcher knows its group (POSIX)
        if POSIX_GROUPS:
            self.watched = watched and watch_group(self.process.pid, True)
        elif WINDOWS:
            if watched:
                self.job = _windows_job_for(self.process.pid)
            if not _windows_resume(self.process.pid):
                self.process.kill()
                self.process.wait()
                self.close()
                raise OSError(errno.ECHILD, "its process could not be resumed")

    def communicate(
        self,
        data: bytes | None,
        timeout: float | None,
        watch: Watch | None = None,
        threads: bool = WINDOWS,
    ) -> tuple[bytes, bytes, bool]:
        """Feed `data` to its stdin and read its stdout and stderr until they close;
        (stdout, stderr, timed out). After `timeout` seconds the group is killed and
        what it wrote so far is kept.

        `watch` sees the output as it comes: `watch.output(1 or 2, chunk)` for each
        chunk of stdout (1) or stderr (2), and `watch.idle()` every TICK_SECONDS in
        which nothing came. The pipes are read with selectors where the system can
        select on pipes, else (Windows; `threads`) by a thread each."""
        if watch is not None:
            if threads:
                return self._threaded(data, timeout, watch)
            return self._selected(data, timeout, watch)
        import subprocess  # deferred: only a command that runs a process pays for it

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                out, err = self.process.communicate(data, _interruptible(_left_until(deadline)))
                return out, err, False
            except subprocess.TimeoutExpired:
                if deadline is not None and time.monotonic() >= deadline:
                    break
            data = None  # sent already: communicate goes on where it stopped
        self.kill()
        try:
            # Read what is left; a process that left the group may keep a pipe open.
            out, err = self.process.communicate(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired as late:
            out, err = _as_bytes(late.output), _as_bytes(late.stderr)
        self.close()
        return out, err, True

    def _selected(
        self, data: bytes | None, timeout: float | None, watch: Watch
    ) -> tuple[bytes, bytes, bool]:
        """`communicate` with a watch, where pipes can be selected on (POSIX), as
        subprocess itself reads them: one thread, no copy of what was read."""
        import selectors  # deferred: only a command that runs a process pays for it

        process = self.process
        assert process.stdout is not None and process.stderr is not None
        chunks: dict[int, list[bytes]] = {1: [], 2: []}
        streams = {process.stdout.fileno(): 1, process.stderr.fileno(): 2}
        deadline = None if timeout is None else time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            for fd in streams:
                selector.register(fd, selectors.EVENT_READ)
            sending = memoryview(data or b"")
            if process.stdin is not None:
                if sending:
                    selector.register(process.stdin.fileno(), selectors.EVENT_WRITE)
                else:
                    process.stdin.close()
            while selector.get_map():
                wait = TICK_SECONDS
                left = _left_until(deadline)
                if left is not None:
                    if left <= 0:
                        return self._timed_out(chunks)
                    wait = min(wait, left)
                ready = selector.select(wait)
                if not ready:
                    watch.idle()
                    continue
                for key, _ in ready:
                    fd = key.fd
                    if fd not in streams:  # stdin: the next piece of `data`
                        try:
                            sending = sending[os.write(fd, sending[:_PIPE_BUF]) :]
                        except BrokenPipeError:
                            sending = sending[:0]  # it stopped reading: what it read is read
                        if not sending:
                            selector.unregister(fd)
                            assert process.stdin is not None
                            process.stdin.close()
                        continue
                    chunk = os.read(fd, _READ_SIZE)
                    if not chunk:
                        selector.unregister(fd)
                        continue
                    chunks[streams[fd]].append(chunk)
                    watch.output(streams[fd], chunk)
        return b"".join(chunks[1]), b"".join(chunks[2]), False

    def _threaded(
        self, data: bytes | None, timeout: float | None, watch: Watch
    ) -> tuple[bytes, bytes, bool]:
        """`communicate` with a watch, where pipes cannot be selected on (Windows): a
        thread reads each pipe (and one feeds stdin), and this one waits for what they
        read, in short waits that Ctrl-C can interrupt."""
        import queue  # deferred: only a command that runs a process pays for it
        import threading  # deferred: as above

        process = self.process
        assert process.stdout is not None and process.stderr is not None
        self.pumped = True  # the reading threads own stdout and stderr now
        came: queue.SimpleQueue[tuple[int, bytes]] = queue.SimpleQueue()
        for number, pipe in ((1, process.stdout), (2, process.stderr)):
            threading.Thread(target=_pump, args=(pipe, number, came), daemon=True).start()
        if process.stdin is not None:
            threading.Thread(target=_feed, args=(process.stdin, data or b""), daemon=True).start()
        chunks: dict[int, list[bytes]] = {1: [], 2: []}
        open_pipes = 2
        deadline = None if timeout is None else time.monotonic() + timeout
        while open_pipes:
            wait: float = TICK_SECONDS
            left = _left_until(deadline)
            if left is not None:
                if left <= 0:
                    return self._timed_out(chunks, came)
                wait = min(wait, left)
            try:
                number, chunk = came.get(timeout=_interruptible(wait))
            except queue.Empty:
                watch.idle()
                continue
            if not chunk:
                open_pipes -= 1
                continue
            chunks[number].append(chunk)
            watch.output(number, chunk)
        return b"".join(chunks[1]), b"".join(chunks[2]), False

    def _timed_out(
        self, chunks: dict[int, list[bytes]], came: Any = None
    ) -> tuple[bytes, bytes, bool]:
        """The timeout of a watched command: kill the group, and keep what it wrote
        (what a reading thread still gets within the grace period included)."""
        import queue  # deferred: only a command that runs a process pays for it

        self.kill()
        if came is not None:
            deadline = time.monotonic() + GRACE_SECONDS
            while (left := _left_until(deadline)) and left > 0:
                try:
                    number, chunk = came.get(timeout=left)
                except queue.Empty:
                    break
                chunks[number].append(chunk)
        else:
            for pipe, number in ((self.process.stdout, 1), (self.process.stderr, 2)):
                if pipe is not None:
                    chunks[number].append(_drain(pipe.fileno()))
        self.close()
        return b"".join(chunks[1]), b"".join(chunks[2]), True

    def wait(self) -> int:
        """Its exit code (negative: the signal that ended it)."""
        code = self.process.wait()
        self.close()
        return code

    def kill(self) -> None:
        """Kill the whole group at once."""
        if _killpg is not None:
            try:
                _killpg(self.process.pid, _kill_signal())
            except (ProcessLookupError, PermissionError):
                pass
        elif WINDOWS and self.job is not None:
            _windows_terminate_job(self.job)
        else:
            self.process.kill()

    def stop(self, grace: float = GRACE_SECONDS) -> None:
        """Ask the whole group to end (SIGTERM; Ctrl-Break on Windows), kill what is
        left after `grace` seconds, and reap it."""
        import subprocess  # deferred: only a command that runs a process pays for it

        try:
            if _killpg is not None:
                _killpg(self.process.pid, signal.SIGTERM)
            elif sys.platform == "win32":
                os.kill(self.process.pid, signal.CTRL_BREAK_EVENT)
            else:
                self.process.terminate()
        except OSError:
            pass  # gone already, or (Windows) no console to send Ctrl-Break through
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            pass
        self.kill()  # whatever of the group is left
        self.process.wait()
        self.close()

    def interrupt(self, signum: int) -> None:
        """Pass a stop signal on to the command itself, not to its group: a wfs that
        runs steps stops them as it would on Ctrl-C (Windows: Ctrl-Break)."""
        try:
            if sys.platform == "win32":
                os.kill(self.process.pid, signal.CTRL_BREAK_EVENT)
            else:
                self.process.send_signal(signum)
        except OSError:
            pass  # gone already

    def close(self) -> None:
        """Close its pipes and release its job (which ends what is left in it). Pipes
        that threads read are theirs to close: closed here, a descriptor could be
        reused under a thread still reading it."""
        pipes = [self.process.stdin]
        if not self.pumped:
            pipes += [self.process.stdout, self.process.stderr]
        for pipe in pipes:
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        if WINDOWS and self.job is not None:
            _windows_close(self.job)
            self.job = None
        if self.watched:  # ended or killed: nothing of it is left for the watcher
            self.watched = False
            watch_group(self.process.pid, False)


TICK_SECONDS = 0.25  # how often a watched command's watch hears that nothing came
_READ_SIZE = 64 * 1024
_PIPE_BUF = 512  # written to a child's stdin at once: never blocks a writable pipe


class Watch(Protocol):
    """What sees a command's output as it comes (Group.communicate)."""

    def output(self, stream: int, chunk: bytes) -> None: ...

    def idle(self) -> None: ...


def _pump(pipe: Any, number: int, came: Any) -> None:
    """A reading thread: each chunk of `pipe` to `came`, then b"" at its end; the
    thread closes the pipe, so that its descriptor is never reused under it."""
    try:
        fd = pipe.fileno()
        while chunk := os.read(fd, _READ_SIZE):
            came.put((number, chunk))
    except (OSError, ValueError):
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass
        came.put((number, b""))


def _feed(pipe: Any, data: bytes) -> None:
    """A feeding thread: `data` to a child's stdin, then its end."""
    try:
        if data:
            pipe.write(data)
    except (OSError, ValueError):  # it stopped reading, or it is gone
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass


def _drain(fd: int) -> bytes:
    """What is left in a pipe of a killed command, for at most GRACE_SECONDS: a
    process that left its group may keep the pipe open."""
    import selectors  # deferred: only a command that runs a process pays for it

    parts = []
    deadline = time.monotonic() + GRACE_SECONDS
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while (left := _left_until(deadline)) and selector.select(left):
            chunk = os.read(fd, _READ_SIZE)
            if not chunk:
                break
            parts.append(chunk)
    return b"".join(parts)


def _interruptible(seconds: float | None) -> float | None:
    """How long to block at once: on Windows a wait on a thread or a pipe cannot be
    interrupted, so Ctrl-C is only seen between short waits."""
    if not WINDOWS:
        return seconds
    return 0.2 if seconds is None else min(seconds, 0.2)


def _left_until(deadline: float | None) -> float | None:
    return None if deadline is None else max(deadline - time.monotonic(), 0.0)


def _as_bytes(data: bytes | str | None) -> bytes:
    if data is None:
        return b""
    return data.encode() if isinstance(data, str) else data


# ------------------------------------------------------------------ the runner's watcher

# The watcher (POSIX): a shell in a session of its own, one per wfs process that starts
# groups, so that a SIGKILL of wfs or of its process group does not reach it. It waits
# on a pipe whose other end only wfs holds, and nothing is ever written to it: its end
# of file says that wfs has ended, however. It then reads the groups still running from
# a file without a name that wfs keeps (`+G` a group started, `-G` it ended; emptied
# whenever no group runs: every step, agent and built-in goes through here), kills them
# (a process G that has no group of its own yet, by its pid), and ends.
#
# An end of file is a parent-death signal that holds for the whole group, whichever
# thread started it, for the price of a write to a file a group, which wakes no
# process (a watcher started with each step, or a prctl(PR_SET_PDEATHSIG) in a
# preexec_fn, would cost a process or the fast start of each, and the latter reaches
# the step's bash alone). The watcher is started before the first group, so that a
# group is known to it an instant after it exists; its starter shell ends at once, the
# watcher being its child in the background: nothing here waits for it or leaves a
# zombie of it. wfs only writes the file at given offsets, so the watcher, which shares
# its offset (its stdout), reads it from the start.
_WATCHER = """exec 3<&0 4<&1; (
read -r _
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups${line#+} " ;;
    -*) g=${line#-}
        case $groups in *" $g "*) groups="${groups%% $g *} ${groups#* $g }" ;; esac ;;
  esac
done <&4
for g in $groups; do kill -s KILL -- "-$g" || kill -s KILL "$g"; done
) <&3 3<&- >/dev/null &"""
# "lock"; "pipe" (wfs's end of the watcher's pipe), "file" (the file of groups), "size"
# (what it holds), "groups" (the groups running); "off" (no watcher could be started).
_watcher: dict[str, Any] = {}


def watch_group(group: int, started: bool) -> bool:
    """Tell this process's watcher that process group `group` started (`started`) or
    ended. Whether the watcher knows the group."""
    if sys.platform == "win32":  # a job object does it there (Group)
        return False
    with _watcher_lock():
        groups: set[int] = _watcher.setdefault("groups", set())
        if started:
            groups.add(group)
        else:
            groups.discard(group)
        if not _ready_watcher():
            return False
        fd = _watcher["file"].fileno()
        try:
            if groups:
                line = f"{'+' if started else '-'}{group}\n".encode()
                _watcher["size"] += os.pwrite(fd, line, _watcher["size"])
            else:  # none runs: the file starts again, and stays small
                os.ftruncate(fd, 0)
                _watcher["size"] = 0
        except OSError:  # a full disk: what outlives wfs, --resume stops
            _watcher["off"] = True
            return False
        return started


def ready_watcher() -> bool:
    """Start this process's watcher, if none runs: before a group is started, so that
    the watcher knows the group an instant after it exists. Whether one runs."""
    with _watcher_lock():
        return _ready_watcher()


def _watcher_lock() -> Any:
    import threading  # deferred: already loaded with subprocess, by Group

    return _watcher.setdefault("lock", threading.Lock())


def _ready_watcher() -> bool:
    """(With the lock held.) Whether a watcher runs; one is started if none was."""
    if _watcher.get("off"):
        return False
    if "pipe" not in _watcher:
        started = _start_watcher()
        if started is None:
            _watcher["off"] = True  # steps still run; what outlives wfs, --resume stops
            return False
        _watcher["pipe"], _watcher["file"] = started
        _watcher["size"] = 0
    return True


def _start_watcher() -> tuple[int, Any] | None:
    """Start the watcher: wfs's end of its pipe and the file of groups (neither
    inherited by any other process), or None."""
    import subprocess  # deferred: only a command that runs a process pays for it
    import tempfile  # deferred: with the first group

    shell = "/bin/sh" if os.path.exists("/bin/sh") else shutil.which("sh")
    if shell is None:
        return None
    reading, writing = os.pipe()
    try:
        groups = tempfile.TemporaryFile(prefix="wfs-groups-")
        subprocess.run(
            [shell, "-c", _WATCHER],
            stdin=reading,
            stdout=groups,
            stderr=subprocess.DEVNULL,
            cwd=os.sep,
            env={},
            start_new_session=True,
        )
    except OSError:
        os.close(writing)
        return None
    finally:
        os.close(reading)
    return writing, groups


def _forget_watcher() -> None:
    """In a child forked from wfs (multiprocessing): the watcher is not its own, and
    its end of the pipe would keep the watcher from seeing wfs end."""
    pipe = _watcher.pop("pipe", None)
    groups = _watcher.pop("file", None)
    for key in ("lock", "groups", "size"):  # another thread may have held the lock
        _watcher.pop(key, None)
    if pipe is not None:
        with contextlib.suppress(OSError):
            os.close(pipe)
    if groups is not None:
        with contextlib.suppress(OSError):
            groups.close()  # this process's descriptor: the watcher has its own


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_watcher)


# This process's environment, copied once for a run of steps (steady_environment).
_STEADY: dict[str, str] | None = None


@contextlib.contextmanager
def steady_environment() -> Iterator[None]:
    """For the duration of a run of steps, which never changes this process's
    environment: copy it once, not before every step (decoding it costs about as much
    as starting the step's bash)."""
    global _STEADY
    _STEADY = os.environ.copy()
    try:
        yield
    finally:
        _STEADY = None


def environment(extra: Mapping[str, str], bash: str | None = None) -> dict[str, str]:
    """This process's environment with `extra`, for a step. WSL's bash passes on only
    the variables WSLENV names, so it names `extra` (paths in `*_FILE` translated)."""
    env = dict(_STEADY) if _STEADY is not None else os.environ.copy()
    env.update(extra)
    if bash is not None and is_wsl_launcher(bash) and extra:
        names = [f"{name}/p" if name.endswith("_FILE") else name for name in extra]
        env["WSLENV"] = ":".join(filter(None, [env.get("WSLENV", ""), *names]))
    return env


# ------------------------------------------------------------------ bash

BASH_MISSING = (
    "bash not found: bash steps need Git Bash or WSL on Windows"
    if WINDOWS
    else "bash: not found on PATH"
)

_BASH: dict[str, str | None] = {}


def find_bash() -> str | None:
    """bash for steps, looked up once per PATH: on PATH; on Windows, Git Bash first
    (on PATH, or where Git for Windows installs it), then WSL's launcher."""
    path = os.environ.get("PATH", os.defpath)
    if path not in _BASH:
        found = shutil.which("bash", path=path)
        _BASH[path] = windows_bash(found, os.environ) if WINDOWS else found
    return _BASH[path]


def windows_bash(on_path: str | None, environ: Mapping[str, str]) -> str | None:
    """On Windows: bash on PATH unless it is WSL's launcher; else Git for Windows' bash
    (beside git on PATH, or where its installer puts it); else WSL's, or None."""
    if on_path is not None and not is_wsl_launcher(on_path):
        return on_path

    places = [environ.get(name, "") for name in ("ProgramW6432", "ProgramFiles")]
    places.append(environ.get("ProgramFiles(x86)", ""))
    local = environ.get("LOCALAPPDATA", "")
    if local:
        places.append(os.path.join(local, "Programs"))
    candidates = [os.path.join(place, "Git", "bin", "bash.exe") for place in places if place]
    git = shutil.which("git", path=environ.get("PATH", ""))
    if git is not None:  # ...\Git\cmd\git.exe -> ...\Git\bin\bash.exe
        candidates.insert(0, os.path.join(os.path.dirname(os.path.dirname(git)), "bin", "bash.exe"))
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    return on_path  # WSL's, or none


def is_wsl_launcher(path: str) -> bool:
    """Windows' own bash.exe (System32, WindowsApps) starts WSL, not Git Bash."""
    folder = os.path.basename(os.path.dirname(path)).lower()
    return folder in ("system32", "windowsapps", "sysnative")


# ------------------------------------------------------------------ isolated work


def run_isolated(
    function: Callable[..., T],
    args: tuple[Any, ...],
    timeout: float | None,
    waiting: Callable[[], AbstractContextManager[None]],
    start: str | None = None,
) -> T:
    """`function(*args)` run in a child process, so that a slow disk, a huge tree or a
    catastrophic regular expression can be stopped: TimeoutError after `timeout`
    seconds, and whatever `waiting()` raises while it waits (an interruption) stops it
    too. ChildProcessError when the child ends without an answer.

    The child is forked where the system can fork, else spawned (Windows), where
    `function` and `args` must be picklable (a function at a module's top level);
    `start` ("fork" or "spawn") chooses. Like a step, it never outlives this process:
    it is a process group of its own that the watcher knows (POSIX), or in a job
    object (Windows)."""
    import multiprocessing  # deferred on purpose: ~11 ms, paid by runs with built-ins

    start = start or ("fork" if hasattr(os, "fork") else "spawn")
    context: Any = multiprocessing.get_context(start)
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_isolated_child, args=(sender, function, args), daemon=True)
    watched, job = False, None
    if POSIX_GROUPS:
        ready_watcher()
    try:
        child.start()
        sender.close()
        if POSIX_GROUPS and _setpgid is not None:
            # Known to the watcher first, then out of this process's group: dead with
            # this process's group until then, killed by its pid the instant between.
            watched = watch_group(child.pid, True)
            with contextlib.suppress(OSError):
                _setpgid(child.pid, child.pid)
        elif WINDOWS:
            job = _windows_job_for(child.pid)
        deadline = None if timeout is None else time.monotonic() + timeout
        with waiting():
            while not receiver.poll(_interruptible(_left_until(deadline))):
                if deadline is not None and time.monotonic() >= deadline:
                    raise TimeoutError(timeout)
            try:
                answer: T = receiver.recv()
            except EOFError:
                raise ChildProcessError("the child ended without an answer") from None
        child.join()
        return answer
    except BaseException:
        if child.pid is not None:
            child.kill()
            child.join()
        raise
    finally:
        receiver.close()
        if watched:
            watch_group(child.pid, False)
        if job is not None:
            _windows_close(job)


def _isolated_child(sender: Any, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    for signum in stop_signals():  # the parent decides; this child just ends
        signal.signal(signum, signal.SIG_DFL)
    try:
        answer = function(*args)
    except BaseException:
        sys.exit(70)  # no traceback: the parent reports a built-in without an answer
    sender.send(answer)
    sender.close()


# ------------------------------------------------------------------ orphaned steps


def stop_orphans(token: str, how: str | None = None) -> list[int]:
    """Kill the process groups of steps that outlived their runner, and wait until they
    are gone; the groups stopped. They are found by `WFS_STEP=token` in their
    environment (the runner's session, task and process), so no other process is ever
    hit: through /proc on Linux, through `ps` elsewhere (`how`: "proc" or "ps" to
    choose). On Windows a step's job object ends with its runner: nothing outlives it.
    """
    if WINDOWS:
        return []

    found = step_processes(token, how)
    groups = sorted(set(found.values()))
    for group in groups:
        _kill_group_now(group, [pid for pid, g in found.items() if g == group])
    deadline = time.monotonic() + 30
    while found and time.monotonic() < deadline:
        time.sleep(0.02)
        found = step_processes(token, how)
    return groups


def _kill_group_now(group: int, pids: list[int]) -> None:
    if _killpg is not None:
        targets = [(_killpg, group)]
    else:
        targets = [(os.kill, pid) for pid in pids]
    for kill, target in targets:
        try:
            kill(target, _kill_signal())
        except (ProcessLookupError, PermissionError):
            pass


def step_processes(token: str, how: str | None = None) -> dict[int, int]:
    """Live (not zombie) processes whose environment holds `WFS_STEP=token`:
    pid -> process group. Never this process or its group."""
    if how is None:
        how = "proc" if os.path.exists("/proc/self/environ") else "ps"
    found = _from_proc(token) if how == "proc" else _from_ps(token)
    mine = os.getpid()
    getpgid: Callable[[int], int] | None = getattr(os, "getpgid", None)
    own_group = getpgid(mine) if getpgid is not None else None
    return {pid: g for pid, g in found.items() if pid != mine and g != own_group}


def _from_proc(token: str) -> dict[int, int]:
    """Linux: each process's environment and state from /proc."""
    wanted = f"WFS_STEP={token}".encode()
    found: dict[int, int] = {}
    try:
        entries = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return found
    for name in entries:
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if wanted not in handle.read().split(b"\0"):
                    continue
            with open(f"/proc/{name}/stat", encoding="utf-8", errors="replace") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[0] != "Z":
            found[int(name)] = int(fields[2])
    return found


def _from_ps(token: str) -> dict[int, int]:
    """Other POSIX systems (macOS): `ps` shows each process's environment after its
    command line (`-E` on BSD and macOS, `e` for procps)."""
    import subprocess  # deferred: only a command that runs a process pays for it

    columns = ["-o", "pid=", "-o", "pgid=", "-o", "stat=", "-o", "command="]
    forms = (["ps", "-A", "-E", "-ww", *columns], ["ps", "-A", "-ww", *columns, "e"])
    for argv in forms:
        try:
            shown = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL)
        except OSError:
            return {}
        if shown.returncode == 0:
            return parse_ps(shown.stdout.decode("utf-8", "replace"), token)
    return {}


def parse_ps(text: str, token: str) -> dict[int, int]:
    """pid -> group of the live processes in `ps -o pid=,pgid=,stat=,command=` output
    (environment shown) whose environment holds WFS_STEP=token as a whole word."""
    wanted = f"WFS_STEP={token}"
    found: dict[int, int] = {}
    for line in text.splitlines():
        parts = line.split(None, 3)
        if len(parts) < 4 or not parts[0].isdigit() or not parts[1].isdigit():
            continue
        pid, group, state, rest = parts
        if wanted in rest.split() and not state.startswith("Z"):
            found[int(pid)] = int(group)
    return found


# ------------------------------------------------------------------ quoting for display


def user_shell(environ: Mapping[str, str] | None = None, system: str = sys.platform) -> str:
    """The kind of shell a printed command will be pasted into: "posix", "powershell"
    or "cmd". On Windows: a POSIX shell when one set MSYSTEM or SHELL (Git Bash,
    MSYS2, Cygwin); PowerShell when PSModulePath has the entries PowerShell adds to
    the system's two; else cmd.exe."""
    if system != "win32":
        return "posix"
    environ = os.environ if environ is None else environ
    if environ.get("MSYSTEM") or environ.get("SHELL"):
        return "posix"
    modules = [part for part in environ.get("PSModulePath", "").split(";") if part]
    return "powershell" if len(modules) >= 3 else "cmd"


def shell_join(argv: list[str], shell: str | None = None) -> str:
    """`argv` as one command line for `shell` (default: the user's, see user_shell),
    quoted so that pasting it runs exactly this argv."""
    shell = user_shell() if shell is None else shell
    if shell == "powershell":
        return powershell_join(argv)
    if shell == "cmd":
        return cmd_join(argv)

    return shlex.join(argv)


# What PowerShell reads as a plain word in argument mode.
_POWERSHELL_PLAIN = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./\\:=+%"
)
_POWERSHELL_QUOTES = "'\u2018\u2019\u201a\u201b"  # all of them close a '...' string


def powershell_join(argv: list[str]) -> str:
    """PowerShell: a word with anything special is put in '...', with every single
    quote (PowerShell counts the typographic ones too) doubled. A quoted program name
    is called with `&`."""
    words = []
    for arg in argv:
        if arg and all(c in _POWERSHELL_PLAIN for c in arg):
            words.append(arg)
        else:
            words.append("'" + "".join(c + c if c in _POWERSHELL_QUOTES else c for c in arg) + "'")
    if words and argv and words[0] != argv[0]:
        words[0] = "& " + words[0]
    return " ".join(words)


_CMD_SPECIAL = frozenset(' \t"&|<>^()%!,;=')


def cmd_join(argv: list[str]) -> str:
    """cmd.exe: each argument as Windows programs split their command line
    (subprocess.list2cmdline), and one holding a character cmd.exe acts on put in
    double quotes, where cmd.exe leaves it alone."""
    import subprocess  # deferred: only a command that runs a process pays for it

    words = []
    for arg in argv:
        word = subprocess.list2cmdline([arg])
        if not word.startswith('"') and any(c in _CMD_SPECIAL for c in arg):
            trailing = len(word) - len(word.rstrip("\\"))
            word = '"' + word + "\\" * trailing + '"'
        words.append(word)
    return " ".join(words)


# ------------------------------------------------------------------ Windows only

if sys.platform == "win32":
    import ctypes
    from ctypes import wintypes

    _kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    _kernel32.OpenProcess.restype = wintypes.HANDLE
    _kernel32.OpenProcess.argtypes = (wintypes.DWORD, wintypes.BOOL, wintypes.DWORD)
    _kernel32.CreateJobObjectW.restype = wintypes.HANDLE
    _kernel32.CreateJobObjectW.argtypes = (wintypes.LPVOID, wintypes.LPCWSTR)
    _kernel32.SetInformationJobObject.argtypes = (
        wintypes.HANDLE,
        ctypes.c_int,
        wintypes.LPVOID,
        wintypes.DWORD,
    )
    _kernel32.AssignProcessToJobObject.argtypes = (wintypes.HANDLE, wintypes.HANDLE)
    _kernel32.TerminateJobObject.argtypes = (wintypes.HANDLE, wintypes.UINT)
    _kernel32.GetExitCodeProcess.argtypes = (wintypes.HANDLE, ctypes.POINTER(wintypes.DWORD))
    _kernel32.CloseHandle.argtypes = (wintypes.HANDLE,)
    _kernel32.CreateToolhelp32Snapshot.restype = wintypes.HANDLE
    _kernel32.CreateToolhelp32Snapshot.argtypes = (wintypes.DWORD, wintypes.DWORD)
    _kernel32.OpenThread.restype = wintypes.HANDLE
    _kernel32.OpenThread.argtypes = (wintypes.DWORD, wintypes.BOOL, wintypes.DWORD)
    _kernel32.ResumeThread.restype = wintypes.DWORD
    _kernel32.ResumeThread.argtypes = (wintypes.HANDLE,)

    _PROCESS_TERMINATE = 0x0001
    _PROCESS_SET_QUOTA = 0x0100
    _PROCESS_QUERY_LIMITED_INFORMATION = 0x1000
    _STILL_ACTIVE = 259
    _ERROR_ACCESS_DENIED = 5
    _JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9
    _JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
    _TH32CS_SNAPTHREAD = 0x00000004
    _THREAD_SUSPEND_RESUME = 0x0002
    _RESUME_FAILED = 0xFFFFFFFF
    _INVALID_HANDLE = wintypes.HANDLE(-1).value

    class _ThreadEntry(ctypes.Structure):  # THREADENTRY32
        _fields_ = [
            ("dwSize", wintypes.DWORD),
            ("cntUsage", wintypes.DWORD),
            ("th32ThreadID", wintypes.DWORD),
            ("th32OwnerProcessID", wintypes.DWORD),
            ("tpBasePri", wintypes.LONG),
            ("tpDeltaPri", wintypes.LONG),
            ("dwFlags", wintypes.DWORD),
        ]

    _kernel32.Thread32First.argtypes = (wintypes.HANDLE, ctypes.POINTER(_ThreadEntry))
    _kernel32.Thread32Next.argtypes = (wintypes.HANDLE, ctypes.POINTER(_ThreadEntry))

    class _BasicLimits(ctypes.Structure):
        _fields_ = [
            ("PerProcessUserTimeLimit", ctypes.c_int64),
            ("PerJobUserTimeLimit", ctypes.c_int64),
            ("LimitFlags", wintypes.DWORD),
            ("MinimumWorkingSetSize", ctypes.c_size_t),
            ("MaximumWorkingSetSize", ctypes.c_size_t),
            ("ActiveProcessLimit", wintypes.DWORD),
            ("Affinity", ctypes.c_size_t),
            ("PriorityClass", wintypes.DWORD),
            ("SchedulingClass", wintypes.DWORD),
        ]

    class _IoCounters(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_uint64)
            for name in ("Read", "Write", "Other", "ReadBytes", "WriteBytes", "OtherBytes")
        ]

    class _ExtendedLimits(ctypes.Structure):
        _fields_ = [
            ("BasicLimitInformation", _BasicLimits),
            ("IoInfo", _IoCounters),
            ("ProcessMemoryLimit", ctypes.c_size_t),
            ("JobMemoryLimit", ctypes.c_size_t),
            ("PeakProcessMemoryUsed", ctypes.c_size_t),
            ("PeakJobMemoryUsed", ctypes.c_size_t),
        ]

    def _windows_process_alive(pid: int) -> bool:
        handle = _kernel32.OpenProcess(_PROCESS_QUERY_LIMITED_INFORMATION, False, pid)
        if not handle:
            return ctypes.get_last_error() == _ERROR_ACCESS_DENIED
        try:
            code = wintypes.DWORD()
            if not _kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return True
            return code.value == _STILL_ACTIVE
        finally:
            _kernel32.CloseHandle(handle)

    def _windows_job_for(pid: int) -> int | None:
        """A job object holding process `pid` that kills all its processes when its
        last handle closes: when the step ends, is stopped, or wfs dies. The process is
        started suspended (Group), so that nothing it starts escapes the job; None when
        it cannot be put in one (it then runs outside any job)."""
        job = _kernel32.CreateJobObjectW(None, None)
        if not job:
            return None
        limits = _ExtendedLimits()
        limits.BasicLimitInformation.LimitFlags = _JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        process = _kernel32.OpenProcess(_PROCESS_SET_QUOTA | _PROCESS_TERMINATE, False, pid)
        assigned = bool(process) and bool(
            _kernel32.SetInformationJobObject(
                job,
                _JOB_OBJECT_EXTENDED_LIMIT_INFORMATION,
                ctypes.byref(limits),
                ctypes.sizeof(limits),
            )
        )
        assigned = assigned and bool(_kernel32.AssignProcessToJobObject(job, process))
        if process:
            _kernel32.CloseHandle(process)
        if not assigned:
            _kernel32.CloseHandle(job)
            return None
        return int(job)

    def _windows_resume(pid: int) -> bool:
        """Let process `pid`, started suspended, run: resume its thread (a process
        created suspended has one). Whether it was resumed."""
        snapshot = _kernel32.CreateToolhelp32Snapshot(_TH32CS_SNAPTHREAD, 0)
        if not snapshot or snapshot == _INVALID_HANDLE:
            return False
        resumed = False
        try:
            entry = _ThreadEntry()
            entry.dwSize = ctypes.sizeof(_ThreadEntry)
            more = _kernel32.Thread32First(snapshot, ctypes.byref(entry))
            while more:
                if entry.th32OwnerProcessID == pid:
                    thread = _kernel32.OpenThread(_THREAD_SUSPEND_RESUME, False, entry.th32ThreadID)
                    if thread:
                        if _kernel32.ResumeThread(thread) != _RESUME_FAILED:
                            resumed = True
                        _kernel32.CloseHandle(thread)
                entry.dwSize = ctypes.sizeof(_ThreadEntry)
                more = _kernel32.Thread32Next(snapshot, ctypes.byref(entry))
        finally:
            _kernel32.CloseHandle(snapshot)
        return resumed

    def _windows_terminate_job(job: int) -> None:
        _kernel32.TerminateJobObject(job, 1)

    def _windows_close(handle: int) -> None:
        _kernel32.CloseHandle(handle)

else:

    def _windows_process_alive(pid: int) -> bool:
        raise NotImplementedError("Windows only")

    def _windows_job_for(pid: int) -> int | None:
        raise NotImplementedError("Windows only")

    def _windows_resume(pid: int) -> bool:
        raise NotImplementedError("Windows only")

    def _windows_terminate_job(job: int) -> None:
        raise NotImplementedError("Windows only")

    def _windows_close(handle: int) -> None:
        raise NotImplementedError("Windows only")
