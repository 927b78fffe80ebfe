"""A command in a process group of its own (a job object on Windows), its output piped
and watched as it comes, and stopped whole; and a command started detached in the
background. subprocess (~3 ms) is imported when a command is first started."""

from __future__ import annotations

import collections
import errno
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING, Any, Protocol

from wfs.platform import windows
from wfs.platform.signals import kill_signal
from wfs.platform.watcher import ready_watcher, watch_group
from wfs.platform.windows import WINDOWS

if TYPE_CHECKING:  # imported when first used (see the module's docstring)
    import selectors
    import subprocess

GRACE_SECONDS = 3.0  # between asking a stopped step's group to end and killing it
# Signals a process group, where this Python can start a process in a session (and so a
# group) of its own; None elsewhere (Windows: job objects).
killpg: Callable[[int, int], None] | None = (
    getattr(os, "killpg", None) if hasattr(os, "setsid") else None
)
POSIX_GROUPS = killpg is not None
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
        self.cut = {1: 0, 2: 0}  # bytes of stdout (1) and stderr (2) not kept (communicate)
        self.pumped = False  # stdout and stderr are read (and closed) by threads
        self.watched = False  # the runner's watcher knows its group (POSIX)
        if POSIX_GROUPS:
            self.watched = watched and watch_group(self.process.pid, True)
        elif WINDOWS:
            if watched:
                self.job = windows.job_for(self.process.pid)
            if not windows.resume(self.process.pid):
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
        keep: int | None = None,
    ) -> tuple[bytes, bytes, bool]:
        """Feed `data` to its stdin and read its stdout and stderr until they close;
        (stdout, stderr, timed out). After `timeout` seconds the group is killed and
        what it wrote so far is kept. With `keep` (and a watch, which sees it all), only
        the last `keep` bytes of each stream are kept, so that a command that writes
        gigabytes holds no more than that in memory; `self.cut` says how many bytes of
        each stream (1, 2) came before them.

        `watch` sees the output as it comes: `watch.output(1 or 2, chunk)` for each
        chunk of stdout (1) or stderr (2), and `watch.idle()` every TICK_SECONDS in
        which nothing came. The pipes are read with selectors where the system can
        select on pipes, else (Windows; `threads`) by a thread each."""
        if watch is not None:
            if threads:
                return self._threaded(data, timeout, watch, keep)
            return self._selected(data, timeout, watch, keep)
        import subprocess  # deferred: only a command that runs a process pays for it

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                out, err = self.process.communicate(data, interruptible(left_until(deadline)))
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
        self, data: bytes | None, timeout: float | None, watch: Watch, keep: int | None
    ) -> tuple[bytes, bytes, bool]:
        """`communicate` with a watch, where pipes can be selected on (POSIX)."""
        process = self.process
        assert process.stdout is not None and process.stderr is not None
        streams = {process.stdout.fileno(): 1, process.stderr.fileno(): 2}
        deadline = None if timeout is None else time.monotonic() + timeout
        chunks, late = pump(streams, watch, keep, deadline, process.stdin, data)
        if late:
            return self._timed_out(chunks)
        return self.collected(chunks, False)

    def _threaded(
        self, data: bytes | None, timeout: float | None, watch: Watch, keep: int | None
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
        chunks = {1: Collected(keep), 2: Collected(keep)}
        open_pipes = 2
        deadline = None if timeout is None else time.monotonic() + timeout
        while open_pipes:
            wait: float = TICK_SECONDS
            left = left_until(deadline)
            if left is not None:
                if left <= 0:
                    return self._timed_out(chunks, came)
                wait = min(wait, left)
            try:
                number, chunk = came.get(timeout=interruptible(wait))
            except queue.Empty:
                watch.idle()
                continue
            if not chunk:
                open_pipes -= 1
                continue
            chunks[number].add(chunk)
            watch.output(number, chunk)
        return self.collected(chunks, False)

    def collected(self, chunks: dict[int, Collected], timed_out: bool) -> tuple[bytes, bytes, bool]:
        """What `communicate` returns; `self.cut`: the bytes of each stream left out."""
        out, err = chunks[1].value(), chunks[2].value()
        self.cut = {number: kept.cut for number, kept in chunks.items()}
        return out, err, timed_out

    def _timed_out(
        self, chunks: dict[int, Collected], came: Any = None
    ) -> tuple[bytes, bytes, bool]:
        """The timeout of a watched command: kill the group, and keep what it wrote
        (what a reading thread still gets within the grace period included)."""
        import queue  # deferred: only a command that runs a process pays for it

        self.kill()
        if came is not None:
            deadline = time.monotonic() + GRACE_SECONDS
            while (left := left_until(deadline)) and left > 0:
                try:
                    number, chunk = came.get(timeout=left)
                except queue.Empty:
                    break
                chunks[number].add(chunk)
        else:
            for pipe, number in ((self.process.stdout, 1), (self.process.stderr, 2)):
                if pipe is not None:
                    chunks[number].add(drain(pipe.fileno()))
        self.close()
        return self.collected(chunks, True)

    def wait(self) -> int:
        """Its exit code (negative: the signal that ended it)."""
        code = self.process.wait()
        self.close()
        return code

    def kill(self) -> None:
        """Kill the whole group at once."""
        if killpg is not None:
            try:
                killpg(self.process.pid, kill_signal())
            except (ProcessLookupError, PermissionError):
                pass
        elif WINDOWS and self.job is not None:
            windows.terminate_job(self.job)
        else:
            self.process.kill()

    def stop(self, grace: float = GRACE_SECONDS) -> None:
        """Ask the whole group to end (SIGTERM; Ctrl-Break on Windows), kill what is
        left after `grace` seconds, and reap it."""
        import subprocess  # deferred: only a command that runs a process pays for it

        try:
            if killpg is not None:
                killpg(self.process.pid, signal.SIGTERM)
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
            windows.close(self.job)
            self.job = None
        if self.watched:  # ended or killed: nothing of it is left for the watcher
            self.watched = False
            watch_group(self.process.pid, False)


TICK_SECONDS = 0.25  # how often a watched command's watch hears that nothing came
_READ_SIZE = 64 * 1024
_PIPE_BUF = 512  # written to a child's stdin at once: never blocks a writable pipe


class Collected:
    """What a stream of a command wrote: all of it, or with `keep`, its last `keep`
    bytes (at least; whole chunks are dropped from the front) and how many came before
    them (`cut`)."""

    def __init__(self, keep: int | None) -> None:
        self.keep = keep
        self.chunks: collections.deque[bytes] = collections.deque()
        self.size = 0  # of the chunks kept
        self.cut = 0

    def add(self, chunk: bytes) -> None:
        self.chunks.append(chunk)
        self.size += len(chunk)
        if self.keep is not None:
            while self.size - len(self.chunks[0]) >= self.keep:
                dropped = self.chunks.popleft()
                self.size -= len(dropped)
                self.cut += len(dropped)

    def value(self) -> bytes:
        data = b"".join(self.chunks)
        self.chunks.clear()
        if self.keep is not None and len(data) > self.keep:
            self.cut += len(data) - self.keep
            data = data[-self.keep :]
        return data


class Watch(Protocol):
    """What sees a command's output as it comes (Group.communicate)."""

    def output(self, stream: int, chunk: bytes) -> None: ...

    def idle(self) -> None: ...


def pump(
    streams: dict[int, int],
    watch: Watch,
    keep: int | None,
    deadline: float | None,
    stdin: IO[bytes] | None = None,
    data: bytes | None = None,
) -> tuple[dict[int, Collected], bool]:
    """Read the pipes `streams` (descriptor: 1 for stdout, 2 for stderr) until each
    ends, as subprocess itself reads them (one thread, no copy of what was read),
    feeding `data` to `stdin` (closed once it is sent), where pipes can be selected on
    (POSIX). `watch` sees each chunk as it comes, and hears every TICK_SECONDS in which
    nothing came. (What each stream wrote, its last `keep` bytes; whether `deadline`
    came first.)"""
    import selectors  # deferred: only a command that runs a process pays for it

    chunks = {1: Collected(keep), 2: Collected(keep)}
    with _selector() as selector:
        for fd in streams:
            selector.register(fd, selectors.EVENT_READ)
        sending = memoryview(data or b"")
        if stdin is not None:
            if sending:
                selector.register(stdin.fileno(), selectors.EVENT_WRITE)
            else:
                stdin.close()
        while selector.get_map():
            wait = TICK_SECONDS
            left = left_until(deadline)
            if left is not None:
                if left <= 0:
                    return chunks, True
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
                        assert stdin is not None
                        stdin.close()
                    continue
                chunk = os.read(fd, _READ_SIZE)
                if not chunk:
                    selector.unregister(fd)
                    continue
                chunks[streams[fd]].add(chunk)
                watch.output(streams[fd], chunk)
    return chunks, False


def wait_readable(fd: int, timeout: float | None) -> bool:
    """Whether `fd` has something to read (or its end) within `timeout` seconds."""
    with _selector() as selector:
        selector.register(fd, 1)  # selectors.EVENT_READ
        return bool(selector.select(timeout))


def _selector() -> selectors.BaseSelector:
    """A selector for a few pipes, as subprocess chooses one: poll where there is one
    (no descriptor of its own to make and close, unlike epoll), else select."""
    import selectors  # deferred: only a command that runs a process pays for it

    return getattr(selectors, "PollSelector", selectors.SelectSelector)()


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


def drain(fd: int) -> bytes:
    """What is left in a pipe of a killed command, for at most GRACE_SECONDS: a
    process that left its group may keep the pipe open."""
    import selectors  # deferred: only a command that runs a process pays for it

    parts = []
    deadline = time.monotonic() + GRACE_SECONDS
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while (left := left_until(deadline)) and selector.select(left):
            chunk = os.read(fd, _READ_SIZE)
            if not chunk:
                break
            parts.append(chunk)
    return b"".join(parts)


def interruptible(seconds: float | None) -> float | None:
    """How long to block at once: on Windows a wait on a thread or a pipe cannot be
    interrupted, so Ctrl-C is only seen between short waits."""
    if not WINDOWS:
        return seconds
    return 0.2 if seconds is None else min(seconds, 0.2)


def left_until(deadline: float | None) -> float | None:
    return None if deadline is None else max(deadline - time.monotonic(), 0.0)


def _as_bytes(data: bytes | str | None) -> bytes:
    if data is None:
        return b""
    return data.encode() if isinstance(data, str) else data
