"""A resident bash for a run of steps (POSIX): one bash, started for a run's first bash
step and ended with the run, forks each step as a subshell of its own, where a step
would otherwise start a bash (its exec, linking and start: most of what a
`bash -c true` costs). A step keeps what it had as its own bash:

- a process group of its own (the resident bash runs with job control, `set -m`), which
  a timeout or an interruption stops whole, and which the runner's watcher kills if
  the runner dies;
- its own stdout and stderr: two FIFOs made for it, which end when everything that
  holds them has ended (a step that leaves a process writing to them ends with it, as
  a bash of its own would);
- the run's environment and what the step adds to it, its folder, no stdin, and its
  exit code.

What differs: `$$` is the resident bash's pid (`$BASHPID` is the step's own), a
syntax error is reported by `eval` (`bash: eval: line 1: ...`), and a step ended by a
signal N exits 128 + N, as a shell reports it. Each step is given to it as a small
script in a private folder (mode 0700, under the system's temporary folder) that also
holds the FIFOs; the folder goes with the run, or, when its wfs was killed, with the
next run's first step.

Windows (and WSL's launcher) start a bash for each step (groups.Group)."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shlex
import signal
import sys
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from wfs.platform.groups import (
    GRACE_SECONDS,
    POSIX_GROUPS,
    Watch,
    drain,
    killpg,
    left_until,
    pump,
    wait_readable,
)
from wfs.platform.processes import host_name, process_alive
from wfs.platform.shells import environment, is_wsl_launcher, steady_environment
from wfs.platform.signals import kill_signal
from wfs.platform.watcher import ready_watcher, watch_group

if TYPE_CHECKING:
    import subprocess

# The resident bash: each line it reads names the script of one step in its folder, which
# it reads and runs (as `eval`, so that what bash says of the step begins with its own
# name, as for `bash -c`), answering with two lines: the step's pid once it started and
# its exit code once it ended. Job control gives each step a process group of its own;
# its reports of jobs go to the resident's stderr, which is /dev/null.
_LOOP = (
    "set -m; while IFS= read -r __wfs_step; do "
    'IFS= read -r -d "" __wfs_step < "./$__wfs_step"; eval "$__wfs_step"; done'
)
# A step: its FIFOs opened by the resident bash (the runner opened their other ends),
# then a subshell that closes them but as its stdout and stderr, goes to its folder,
# puts back OLDPWD as the run's environment has it, adds the step's variables and
# runs the script as `bash -c` would.
_STEP = (
    "exec 5>{out} 6>{err}; "
    "( exec 5>&- 6>&-; set +m; unset __wfs_step; cd -- {cwd} || exit 126; {oldpwd}{env}"
    "eval {script} ) </dev/null >&5 2>&6 & exec 5>&- 6>&-; echo $!; wait $!; echo $?"
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# A run's folder: wfs-steps-<pid of its wfs>-<its host>-<random>. The host, because a
# temporary folder may be shared by machines (containers) whose pids are not ours.
_FOLDER = "wfs-steps-"
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9.-]")
_run: dict[str, Shell | None] = {}  # "shell": this run's resident bash, once started


@contextlib.contextmanager
def run_of_steps() -> Iterator[None]:
    """For a run of steps: this process's environment copied once
    (shells.steady_environment) and, where it can be, one resident bash that forks
    each bash step, started for the first one and ended with the run."""
    with steady_environment():
        _run["shell"] = None
        try:
            yield
        finally:
            shell = _run.pop("shell", None)
            if shell is not None:
                shell.close()


def resident(bash: str) -> Shell | None:
    """The run's resident bash, started now if it is not yet (or no longer) running;
    None outside a run of steps, on Windows, for WSL's launcher, or when it cannot be
    started."""
    if "shell" not in _run or not POSIX_GROUPS or is_wsl_launcher(bash):
        return None
    shell = _run["shell"]
    if shell is not None and (shell.bash != bash or shell.process.poll() is not None):
        shell.abandon()
        shell = None
    if shell is None:
        try:
            shell = Shell(bash)
        except OSError:
            return None
        _run["shell"] = shell
    return shell


class Shell:
    """A resident bash (see the module's docstring)."""

    def __init__(self, bash: str) -> None:
        import subprocess  # deferred: only a command that runs a process pays for it
        import tempfile  # deferred: as above

        self.bash = bash
        clear_left(tempfile.gettempdir())
        self.folder = tempfile.mkdtemp(prefix=f"{_FOLDER}{os.getpid()}-{_host()}-")
        # The next step, as it reads it: written over for each step.
        self.script = os.open(os.path.join(self.folder, "step"), os.O_WRONLY | os.O_CREAT, 0o600)
        self.count = 0  # FIFOs made
        self.fds: list[int] = []
        self.fifos: list[str] = []
        self.pending = b""  # what it said and was not read yet
        env = environment({}, bash)
        old = env.get("OLDPWD")
        self.oldpwd = "unset OLDPWD; " if old is None else f"OLDPWD={one_line(old)}; "
        ready_watcher()
        try:
            self.process: subprocess.Popen[bytes] = subprocess.Popen(
                [bash, "-c", _LOOP, bash],
                cwd=self.folder,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            os.close(self.script)
            os.unlink(os.path.join(self.folder, "step"))
            os.rmdir(self.folder)
            raise
        watch_group(self.process.pid, True)

    def start(
        self, script: str, cwd: str | os.PathLike[str], extra: Mapping[str, str]
    ) -> Job | None:
        """Hand it `script` as a step in `cwd` with `extra` added to the run's
        environment; that the step started is read later (Job.began), so that the runner
        can do its own work while it is forked. None when it cannot (`extra` names a
        variable bash cannot export, or the resident bash has gone): the step then
        starts a bash of its own. FileNotFoundError when `cwd` is not a folder, as for
        a bash of its own."""
        if sys.platform == "win32" or not all(_NAME.match(name) for name in extra):
            return None  # (never made on Windows: `resident`)
        if not os.path.isdir(cwd):  # as a bash of its own would fail to start
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(cwd))
        try:
            out, err = self.streams()
            step = _STEP.format(
                out=one_line(out),
                err=one_line(err),
                cwd=one_line(os.fspath(cwd)),
                oldpwd=self.oldpwd,
                env="".join(f"export {k}={one_line(v)}; " for k, v in extra.items()),
                script=shlex.quote(script),
            )
            data = step.encode("utf-8", "surrogateescape")
            os.pwrite(self.script, data, 0)
            os.ftruncate(self.script, len(data))
            assert self.process.stdin is not None
            os.write(self.process.stdin.fileno(), b"step\n")
        except OSError:
            self.abandon()
            return None
        except BaseException:
            self.abandon()
            raise
        return Job(self)

    def streams(self) -> tuple[str, str]:
        """The FIFOs that are a step's stdout and stderr, their reading ends open here
        (`self.fds`): made for the first step, and again after a step that may have left
        a process writing to them (`renew`)."""
        if sys.platform != "win32" and not self.fds:  # (never made on Windows: `resident`)
            self.count += 1
            for number in (1, 2):
                path = os.path.join(self.folder, f"{self.count}.{number}")
                os.mkfifo(path, 0o600)
                self.fds.append(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
                self.fifos.append(path)
        return self.fifos[0], self.fifos[1]

    def renew(self) -> None:
        """New FIFOs for the next step."""
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        for path in self.fifos:
            with contextlib.suppress(OSError):
                os.unlink(path)
        self.fds, self.fifos = [], []

    def said(self, timeout: float | None) -> str | None:
        """Its next line; None if none came within `timeout` seconds. OSError when it
        has ended."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.pending:
            if deadline is not None and not wait_readable(fd, left_until(deadline)):
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                raise OSError(errno.EPIPE, "the resident bash of the run has ended")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode()

    def close(self) -> None:
        """The run is over: it ends (its input closed), or is killed after a grace."""
        import subprocess  # deferred: only a command that runs a process pays for it

        assert self.process.stdin is not None
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            pass
        self.abandon()

    def abandon(self) -> None:
        """Kill it (what it runs has its own groups) and remove its folder; again, nothing."""
        if self.process.returncode is None and killpg is not None:
            with contextlib.suppress(OSError):
                killpg(self.process.pid, kill_signal())
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        watch_group(self.process.pid, False)
        self.renew()
        script, self.script = self.script, -1  # closed once: its number may be reused
        if script >= 0:
            with contextlib.suppress(OSError):
                os.close(script)
        with contextlib.suppress(OSError):
            for left in os.listdir(self.folder):
                os.unlink(os.path.join(self.folder, left))
            os.rmdir(self.folder)


def clear_left(temp: str) -> None:
    """Remove the folders that runs of this user on this machine left in `temp` when
    their wfs was killed (its pid, in the folder's name, no longer runs)."""
    import shutil  # deferred: with the first step of a run

    if sys.platform == "win32":
        return  # (no resident bash there)
    try:
        names = [name for name in os.listdir(temp) if name.startswith(_FOLDER)]
    except OSError:
        return
    host = _host()
    for name in names:
        pid, _, rest = name[len(_FOLDER) :].partition("-")
        if rest.rpartition("-")[0] != host:
            continue  # another machine's (or no run's)
        path = os.path.join(temp, name)
        try:
            owned = os.lstat(path).st_uid == os.getuid()
        except OSError:
            continue
        if owned and pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


def _host() -> str:
    """This machine's name as a run's folder carries it."""
    return _NOT_IN_NAME.sub("_", host_name())[:64]


def one_line(value: str) -> str:
    """`value` quoted for bash on one line: everything before the script of a step is,
    so that its lines are numbered from 1 ($LINENO) as in a bash of its own."""
    if not _CONTROL.search(value):
        return shlex.quote(value)
    escaped = value.replace("\\", "\\\\").replace("'", "\\'")
    return "$'" + _CONTROL.sub(lambda c: f"\\x{ord(c.group()):02x}", escaped) + "'"


class Job:
    """A step handed to a resident bash: what groups.Group is to a bash of its own."""

    def __init__(self, shell: Shell) -> None:
        self.shell = shell
        self.pid: int | None = None  # once it said the step started (`began`)
        self.gone = False  # it ended before it said so
        self.cut = {1: 0, 2: 0}  # bytes of stdout (1) and stderr (2) not kept

    def began(self, timeout: float | None = None) -> bool:
        """Whether the step started: its pid, which the resident bash says once it
        forked it (its FIFOs are open then), is read here once, and its group told to
        the watcher. False when the resident bash ended first (it was killed), or said
        nothing within `timeout` seconds."""
        if self.pid is None and not self.gone:
            try:
                said = self.shell.said(timeout)
            except OSError:
                said = ""
            if said is None:
                return False
            if not said.isdigit():
                self.shell.abandon()
                self.gone = True
                return False
            self.pid = int(said)
            watch_group(self.pid, True)
        return self.pid is not None

    def communicate(
        self, data: bytes | None, timeout: float | None, watch: Watch, keep: int | None = None
    ) -> tuple[bytes, bytes, bool]:
        """Read its stdout and stderr until they end, as groups.Group.communicate
        (`data` is None: a step has no stdin)."""
        assert data is None
        if not self.began():
            return b"", b"", False
        fds = self.shell.fds
        deadline = None if timeout is None else time.monotonic() + timeout
        chunks, late = pump({fds[0]: 1, fds[1]: 2}, watch, keep, deadline)
        if late:
            self.kill()
            for fd, number in zip(fds, (1, 2), strict=True):
                chunks[number].add(drain(fd))
            self.shell.renew()  # what left its group may still hold them
        out, err = chunks[1].value(), chunks[2].value()
        self.cut = {number: kept.cut for number, kept in chunks.items()}
        return out, err, late

    def wait(self) -> int:
        """Its exit code (128 + N: the signal N that ended it; the resident bash was
        killed when it ended before it said one)."""
        if not self.began() or self.pid is None:
            return 128 + int(kill_signal())
        try:
            code = int(self.shell.said(None) or "0")
        except OSError:
            self.shell.abandon()
            code = 128 + int(kill_signal())
        watch_group(self.pid, False)
        return code

    def kill(self) -> None:
        """Kill its whole group at once."""
        if killpg is not None and self.pid is not None:
            with contextlib.suppress(OSError):
                killpg(self.pid, kill_signal())

    def stop(self, grace: float = GRACE_SECONDS) -> None:
        """Ask its group to end (SIGTERM), kill what is left after `grace` seconds; the
        resident bash goes too (an interruption ends the run's steps)."""
        deadline = time.monotonic() + grace
        if self.began(grace) and self.pid is not None and killpg is not None:
            with contextlib.suppress(OSError):
                killpg(self.pid, signal.SIGTERM)
            with contextlib.suppress(OSError):
                self.shell.said(left_until(deadline))
        self.kill()
        self.shell.abandon()
        if self.pid is not None:
            watch_group(self.pid, False)
