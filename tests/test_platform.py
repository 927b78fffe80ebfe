"""wfs/platform/, the one package that holds every OS difference: each branch that
Python allows here, with real files, real processes and real bash; and every common
command run by a Python without the POSIX-only names (a rough simulation of Windows)."""

from __future__ import annotations

import contextlib
import operator
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import filelock
import pytest
from conftest import REPO

from wfs import platform, store
from wfs.errors import WfsError

POSIX = sys.platform != "win32"
posix_only = pytest.mark.skipif(not POSIX, reason="POSIX process groups and signals")
needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash on PATH")


# ------------------------------------------------------------------ quoting


def test_posix_quoting_is_shlex_join_and_bash_reads_back_the_same_argv() -> None:
    argv = ["wfs", "--session", "WFS-a b", "execute", "--output", "it's $(rm -rf /) `x`", ""]
    joined = platform.shell_join(argv, "posix")
    assert joined == shlex.join(argv)
    if shutil.which("bash"):
        echoed = subprocess.run(
            ["bash", "-c", 'for a in "$@"; do printf "<%s>" "$a"; done', "_", *shlex.split(joined)],
            capture_output=True,
            text=True,
        ).stdout
        assert echoed == "".join(f"<{a}>" for a in argv)


def test_powershell_quoting_doubles_single_quotes_of_every_kind() -> None:
    argv = ["wfs", "--session", "WFS-x", "execute", "--output", "it's $(Get-Item) `n ‘a’ ;x"]
    assert platform.shell_join(argv, "powershell") == (
        "wfs --session WFS-x execute --output 'it''s $(Get-Item) `n ‘‘a’’ ;x'"
    )
    # Plain words stay bare; an empty argument, a comma (an array) and @ are quoted.
    assert platform.powershell_join(["wfs", "--root", "C:\\work\\repo", "", "a,b", "@x"]) == (
        "wfs --root C:\\work\\repo '' 'a,b' '@x'"
    )
    # A quoted program name is a string to PowerShell: `&` calls it.
    assert platform.powershell_join(["C:\\Program Files\\wfs.exe", "status"]) == (
        "& 'C:\\Program Files\\wfs.exe' status"
    )


def test_cmd_quoting_escapes_what_cmd_acts_on_and_reads_back_the_same_argv() -> None:
    import mslex

    argv = ["wfs", "--session", "WFS-x", "a&b", "x y", 'say "hi"', "end\\", "dir\\sub", "50%"]
    joined = platform.shell_join(argv, "cmd")
    assert joined == 'wfs --session WFS-x a^&b "x y" "say "\\^"hi\\^" end\\ dir\\sub 50^%'
    # As cmd.exe and then the program split it (mslex.split does both).
    assert mslex.split(joined) == argv
    # cmd.exe expands %VAR% and !VAR! even inside double quotes, and a quote inside a
    # word would end the quoting before an `&`: each is escaped with a caret.
    assert platform.cmd_join(["%PATH%", "!x!", 'a"&b']) == '^%PATH^% ^!x^! a\\^""&b"'
    assert platform.cmd_join(["a|b\\"]) == "a^|b\\"
    assert platform.cmd_join([""]) == '""'
    for words in (["%PATH%", "!x!", 'a"&b'], ["a|b\\", ""], ["C:\\Program Files\\x", "it's"]):
        assert mslex.split(platform.cmd_join(words)) == words


@pytest.mark.parametrize(
    ("system", "environ", "shell"),
    [
        ("linux", {"PSModulePath": "a;b;c"}, "posix"),
        ("darwin", {}, "posix"),
        # PowerShell adds the user's module folder to the system's two.
        ("win32", {"PSModulePath": "C:\\u\\Modules;C:\\p\\Modules;C:\\w\\Modules"}, "powershell"),
        ("win32", {"PSModulePath": "C:\\p\\Modules;C:\\w\\Modules"}, "cmd"),
        ("win32", {}, "cmd"),
        ("win32", {"PSModulePath": "a;b;c", "MSYSTEM": "MINGW64"}, "posix"),  # Git Bash
    ],
)
def test_the_users_shell_is_read_from_the_environment(
    system: str, environ: dict[str, str], shell: str
) -> None:
    assert platform.user_shell(environ, system) == shell


@pytest.mark.parametrize(
    ("name", "kind"),
    [("pwsh", "powershell"), ("powershell", "powershell"), ("PowerShell.exe", "powershell"),
     ("cmd", "cmd"), ("bash", "posix"), ("sh", "posix"), ("zsh", "posix")],
)  # fmt: skip
def test_the_shell_shellingham_finds_is_read_as_its_kind(name: str, kind: str) -> None:
    assert platform.shell_kind(name) == kind


@posix_only
def test_a_posix_system_is_pasted_into_a_posix_shell_whatever_runs_wfs() -> None:
    assert platform.user_shell() == "posix"


def test_printed_commands_use_the_one_quoting_function(project: Path) -> None:
    from conftest import wfs

    assert wfs("init").code == 0
    plan = project / "plan.json"
    plan.write_text('[{"id": "IMPL-1", "title": "x"}]')
    assert wfs("plan", "Quote me", "--from", str(plan)).code == 0
    assert wfs("task", "status", "IMPL-1", "active").code == 0
    status = wfs("status").out
    assert (
        "resume: "
        + platform.shell_join(["wfs", "--session", "WFS-quote-me", "execute", "--resume", "IMPL-1"])
        in status
    )


# ------------------------------------------------------------------ files


def test_own_files_are_opened_without_following_a_symlink(tmp_path: Path) -> None:
    assert platform.OWN_FILE_FLAGS & getattr(os, "O_NOFOLLOW", 0) == getattr(os, "O_NOFOLLOW", 0)
    assert platform.OWN_FILE_FLAGS & getattr(os, "O_CLOEXEC", 0) == getattr(os, "O_CLOEXEC", 0)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    link = tmp_path / "link.txt"
    try:
        link.symlink_to(outside)
    except OSError:
        pytest.skip("cannot make a symlink here")
    with pytest.raises(OSError):
        platform.open_own(link, os.O_WRONLY | os.O_APPEND)
    assert outside.read_text() == "keep"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_nobody_writes_to_reads_as_empty_instead_of_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    fd = platform.open_to_read(str(fifo))
    with open(fd, "rb") as handle:
        assert handle.read() == b""


# ------------------------------------------------------------------ locks


def test_the_lock_class_is_chosen_by_what_the_system_has() -> None:
    assert platform.lock_class("win32") is filelock.WindowsFileLock
    assert platform.lock_class("linux", flock=True) is filelock.UnixFileLock
    assert platform.lock_class("darwin", flock=True) is filelock.UnixFileLock
    assert platform.lock_class("linux", flock=False) is filelock.SoftFileLock
    expected = filelock.WindowsFileLock if sys.platform == "win32" else filelock.UnixFileLock
    assert platform.lock_class() is expected


HOLD = """
import sys, time
from wfs import platform
kind = {"native": None, "soft": platform.lock_class("linux", flock=False)}[sys.argv[2]]
with platform.FileLock(sys.argv[1], 0, kind):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["native", "soft"])
def test_a_lock_is_reentrant_excludes_other_processes_and_dies_with_its_holder(
    tmp_path: Path, kind: str
) -> None:
    path = str(tmp_path / "x.lock")
    chosen = None if kind == "native" else platform.lock_class("linux", flock=False)
    outer = platform.FileLock(path, 0, chosen)
    with outer:
        with platform.FileLock(path, 0, chosen):
            assert outer.is_held
        assert outer.is_held  # the inner hold ended, the outer one holds on
    assert not outer.is_held
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, path, kind], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(TimeoutError):
            with platform.FileLock(path, 0.2, chosen):
                pass
    finally:
        holder.kill()
        holder.wait()
    with platform.FileLock(path, 10, chosen):  # the system let go of the dead holder's lock
        pass


@pytest.mark.skipif(not filelock.has_fcntl, reason="flock(2) is POSIX")
def test_the_lock_is_the_flock_earlier_wfs_versions_take(tmp_path: Path) -> None:
    """Earlier versions locked with flock(2) on the same file: both exclude each other."""
    path = tmp_path / "x.lock"
    probe = (
        "import fcntl, os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
        "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n    print('free')\n"
        "except BlockingIOError:\n    print('busy')\n"
    )
    with platform.FileLock(str(path), 0):
        held = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True)
        assert held.stdout == b"busy\n"
    assert subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True).stdout == (
        b"free\n"
    )


def test_a_symlinked_lock_file_is_refused_and_nothing_is_written_outside(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    (root / ".locks").mkdir(parents=True)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    lock = root / ".locks" / "WFS-x.lock"
    try:
        lock.symlink_to(outside)
    except OSError:
        pytest.skip("cannot make a symlink here")
    store.confine(root)
    with pytest.raises(WfsError) as refused:
        with store.locked(lock, "session WFS-x"):
            pass
    assert refused.value.message == (
        f"{lock}: refused: the lock file is a symlink (wfs never locks or writes through "
        "one); remove it"
    )
    assert outside.read_text() == "keep"


# ------------------------------------------------------------------ hosts and processes


def test_host_name_and_liveness() -> None:
    assert platform.host_name() == socket.gethostname()
    assert platform.process_alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not platform.process_alive(child.pid)
    assert not platform.process_alive(0)


def test_the_signals_that_stop_wfs() -> None:
    expected = [signal.SIGINT, signal.SIGTERM]
    if hasattr(signal, "SIGHUP"):
        expected.append(signal.SIGHUP)
    assert platform.stop_signals() == tuple(expected)
    assert platform.signal_number("SIGTERM") == signal.SIGTERM
    assert platform.signal_number("SIGNOPE") is None
    assert platform.signal_number("NSIG") is None
    assert platform.signal_name(signal.SIGINT) == "SIGINT"


# ------------------------------------------------------------------ process groups


def _token(tmp_path: Path) -> str:
    return f"WFS-test/IMPL-1/{socket.gethostname()}:{abs(hash(str(tmp_path))) % 10**9}"


def _group(script: str, tmp_path: Path, token: str) -> platform.Group:
    bash = platform.find_bash()
    assert bash is not None
    env = platform.environment({"WFS_STEP": token}, bash)
    return platform.Group([bash, "-c", script], tmp_path, env, stdin=False)


def _wait_until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(1000):
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"never happened: {what}")


@needs_bash
def test_a_group_feeds_stdin_and_collects_stdout_and_stderr(tmp_path: Path) -> None:
    bash = platform.find_bash()
    assert bash is not None
    group = platform.Group(
        [bash, "-c", "tr a-z A-Z; echo err >&2; exit 3"], tmp_path, dict(os.environ), stdin=True
    )
    assert group.communicate(b"brief", None) == (b"BRIEF", b"err\n", False)
    assert group.wait() == 3


class Seen:
    """A platform.Watch that keeps what it sees."""

    def __init__(self) -> None:
        self.chunks: dict[int, list[bytes]] = {1: [], 2: []}
        self.idle_calls = 0

    def output(self, stream: int, chunk: bytes) -> None:
        self.chunks[stream].append(chunk)

    def idle(self) -> None:
        self.idle_calls += 1


# Selectors where pipes can be selected on; threads elsewhere (Windows), tried here too.
READERS = pytest.mark.parametrize("threads", [False, True], ids=["selectors", "threads"])


@needs_bash
@READERS
def test_a_watched_group_shows_its_output_as_it_comes_and_returns_it_whole(
    tmp_path: Path, threads: bool
) -> None:
    bash = platform.find_bash()
    assert bash is not None
    script = "tr a-z A-Z; echo err >&2; while [ ! -f go ]; do sleep 0.05; done; echo done"
    group = platform.Group([bash, "-c", script], tmp_path, dict(os.environ), stdin=True)
    seen = Seen()

    class Go(Seen):
        def output(self, stream: int, chunk: bytes) -> None:
            super().output(stream, chunk)
            seen.output(stream, chunk)
            if b"".join(self.chunks[2]) == b"err\n":  # seen while it runs: let it end
                (tmp_path / "go").touch()

    brief = b"brief " * 20000  # more than a pipe holds at once
    out, err, timed_out = group.communicate(brief, None, Go(), threads=threads)
    assert (out, err, timed_out) == (b"BRIEF " * 20000 + b"done\n", b"err\n", False)
    assert b"".join(seen.chunks[1]) == out and b"".join(seen.chunks[2]) == err
    assert group.wait() == 0


@pytest.mark.slow
@posix_only
@needs_bash
@READERS
def test_a_watched_group_that_times_out_is_killed_and_keeps_its_output(
    tmp_path: Path, threads: bool
) -> None:
    token = _token(tmp_path)
    group = _group("sleep 300 & echo started; wait", tmp_path, token)
    seen = Seen()
    out, err, timed_out = group.communicate(None, 1, seen, threads=threads)
    assert (out, timed_out) == (b"started\n", True)
    assert seen.chunks[1] == [b"started\n"]
    group.wait()
    _wait_until(lambda: not platform.step_processes(token), "the group is gone")


@pytest.mark.slow
@posix_only
@needs_bash
def test_a_timeout_kills_the_whole_group_and_keeps_its_output(tmp_path: Path) -> None:
    token = _token(tmp_path)
    group = _group("sleep 300 & sleep 300 & echo started; wait", tmp_path, token)
    out, err, timed_out = group.communicate(None, 1)
    assert (out, timed_out) == (b"started\n", True)
    group.wait()
    _wait_until(lambda: not platform.step_processes(token), "the group is gone")


@posix_only
@needs_bash
def test_stopping_a_group_stops_what_it_started(tmp_path: Path) -> None:
    token = _token(tmp_path)
    group = _group("trap '' TERM; sleep 300 & sleep 300 & wait", tmp_path, token)
    _wait_until(lambda: len(platform.step_processes(token)) == 3, "the group started")
    group.stop(grace=0.2)  # bash ignores SIGTERM: the SIGKILL after the grace ends it
    assert group.process.returncode is not None
    _wait_until(lambda: not platform.step_processes(token), "the group is gone")


@posix_only
@needs_bash
def test_orphaned_step_processes_are_found_by_their_token_and_stopped(tmp_path: Path) -> None:
    token = _token(tmp_path)
    other = _group("sleep 300 & wait", tmp_path, token + "0")  # a token that only starts alike
    group = _group("sleep 300 & sleep 300 & wait", tmp_path, token)
    try:
        _wait_until(lambda: len(platform.step_processes(token)) == 3, "the group started")
        found = platform.step_processes(token)
        assert set(found.values()) == {group.process.pid}
        assert group.process.pid in found
        assert platform.stop_orphans(token) == [group.process.pid]
        assert platform.step_processes(token) == {}
        assert len(platform.step_processes(token + "0")) == 2  # untouched
    finally:
        other.stop(grace=0)
        group.stop(grace=0)


# A process that starts a group of three (bash and two sleeps) and waits to be killed;
# with "fork", a child forked from it first, which holds whatever it inherited.
GROUP_RUNNER = """
import os, sys
from wfs import platform
bash = platform.find_bash()
env = platform.environment({"WFS_STEP": sys.argv[1]}, bash)
group = platform.Group([bash, "-c", "sleep 300 & sleep 300 & wait"], ".", env, stdin=False)
forked = 0
if sys.argv[2] == "fork":
    forked = os.fork()
    if forked == 0:
        sys.stdin.read()
        os._exit(0)
print(group.process.pid, forked, flush=True)
sys.stdin.read()
"""


@posix_only
@needs_bash
@pytest.mark.parametrize("fork", ["", "fork"])
@pytest.mark.parametrize("kill", ["process", "process group"])
def test_a_group_dies_with_the_process_that_started_it(
    tmp_path: Path, kill: str, fork: str
) -> None:
    token = _token(tmp_path)
    runner = subprocess.Popen(
        [sys.executable, "-c", GROUP_RUNNER, token, fork],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert runner.stdout is not None
    leader, forked = map(int, runner.stdout.readline().split())
    try:
        _wait_until(lambda: len(platform.step_processes(token)) == 3, "the group started")
        assert set(platform.step_processes(token).values()) == {leader}
        if kill == "process":
            runner.kill()
        else:
            os.killpg(runner.pid, signal.SIGKILL)
        runner.wait()
        # A forked child (multiprocessing) that outlives it does not keep the group alive.
        _wait_until(lambda: not platform.step_processes(token), "the group is gone")
        assert forked == 0 or platform.process_alive(forked) == (kill == "process")
    finally:
        if forked:
            with contextlib.suppress(ProcessLookupError):
                os.kill(forked, signal.SIGKILL)
            _wait_until(lambda: not platform.process_alive(forked), "the fork is gone")
        assert runner.stdin is not None and runner.stdout is not None
        runner.stdin.close()
        runner.stdout.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(leader, signal.SIGKILL)


def test_bash_on_windows_is_git_bash_before_wsl(tmp_path: Path) -> None:
    wsl = str(tmp_path / "Windows" / "System32" / "bash.exe")
    git_bash = tmp_path / "Program Files" / "Git" / "bin" / "bash.exe"
    environ = {"ProgramFiles": str(tmp_path / "Program Files"), "PATH": ""}
    assert platform.windows_bash(wsl, environ) == wsl  # no Git Bash: WSL's will do
    git_bash.parent.mkdir(parents=True)
    git_bash.write_text("")
    assert platform.windows_bash(wsl, environ) == str(git_bash)
    assert platform.windows_bash(None, environ) == str(git_bash)
    on_path = str(tmp_path / "msys64" / "usr" / "bin" / "bash.exe")
    assert platform.windows_bash(on_path, environ) == on_path
    assert platform.windows_bash(None, {"PATH": ""}) is None


def test_wsl_gets_the_step_variables_through_wslenv() -> None:
    wsl = "C:\\Windows\\System32\\bash.exe".replace("\\", os.sep)
    env = platform.environment({"WFS_STEP": "t", "V1_FILE": "C:\\t\\v"}, wsl)
    assert env["WSLENV"].split(":")[-2:] == ["WFS_STEP", "V1_FILE/p"]
    other = platform.environment({"WFS_STEP": "t"}, "/usr/bin/bash")
    assert other.get("WSLENV") == os.environ.get("WSLENV")


def test_a_bash_step_without_bash_fails_with_one_line(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wfs.flow import steps

    empty = project / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    for place in ("ProgramW6432", "ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA"):
        monkeypatch.setenv(place, str(empty))  # where Git for Windows would be
    result = steps.run_shell("true", {}, project, 10)
    assert result == steps.StepResult(127, "", platform.BASH_MISSING)
    expected = (
        "bash not found: bash steps need Git Bash or WSL on Windows"
        if sys.platform == "win32"
        else "bash: not found on PATH"
    )
    assert platform.BASH_MISSING == expected


# ------------------------------------------------------------------ isolated work


@pytest.mark.slow
@pytest.mark.parametrize(
    "start",
    [
        pytest.param("fork", marks=pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX")),
        "spawn",
    ],
)
def test_isolated_work_answers_times_out_and_fails_cleanly(start: str) -> None:
    quiet = contextlib.nullcontext
    assert platform.run_isolated(operator.add, (2, 3), None, quiet, start) == 5
    with pytest.raises(TimeoutError):
        platform.run_isolated(time.sleep, (60,), 0.5, quiet, start)
    with pytest.raises(ChildProcessError):
        platform.run_isolated(operator.truediv, (1, 0), 10, quiet, start)


class _Stop(BaseException):
    pass


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs a POSIX timer signal")
def test_an_interruption_while_isolated_work_runs_kills_the_child(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"

    def work() -> None:
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)

    def stop(_signum: int, _frame: object) -> None:
        raise _Stop

    @contextlib.contextmanager
    def waiting() -> Iterator[None]:
        previous = signal.signal(signal.SIGALRM, stop)
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    with pytest.raises(_Stop):
        platform.run_isolated(work, (), None, waiting, "fork")
    assert not platform.process_alive(int(pid_file.read_text()))


# A process whose isolated work (a built-in step) writes its pid and sleeps, until the
# test kills the process.
ISOLATED_RUNNER = """
import contextlib, os, sys, time
from wfs import platform

def work(path):
    with open(path + ".new", "w") as handle:
        handle.write(str(os.getpid()))
    os.replace(path + ".new", path)
    time.sleep(300)

platform.run_isolated(work, (sys.argv[1],), None, contextlib.nullcontext, "fork")
"""


@posix_only
@pytest.mark.parametrize("kill", ["process", "process group"])
def test_isolated_work_dies_with_the_process_that_started_it(tmp_path: Path, kill: str) -> None:
    pid_file = tmp_path / "pid"
    runner = subprocess.Popen(
        [sys.executable, "-c", ISOLATED_RUNNER, str(pid_file)],
        cwd=tmp_path,
        start_new_session=True,
    )
    _wait_until(lambda: pid_file.exists(), "the work started")
    child = int(pid_file.read_text())
    try:
        if kill == "process":
            runner.kill()
        else:
            os.killpg(runner.pid, signal.SIGKILL)
        runner.wait()
        _wait_until(lambda: not platform.process_alive(child), "the work is gone")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)


# ------------------------------------------------------------------ no POSIX names

# Run before wfs: the names Windows' Python lacks are removed (and `import fcntl`
# fails), so wfs and its libraries see a Python without them, and must choose their
# portable branches by what exists. The standard library's own POSIX implementation
# (subprocess, shutil...) keeps a private copy of the names: on Windows it has its own.
WITHOUT_POSIX = """
import os, signal, sys, types, warnings
import selectors, shutil, subprocess, tempfile

def private_copy(module):
    copy = types.ModuleType(module.__name__)
    copy.__dict__.update(module.__dict__)
    return copy

for library in (subprocess, selectors, shutil, tempfile):
    for name in ("os", "_os", "signal"):
        if isinstance(getattr(library, name, None), types.ModuleType):
            setattr(library, name, private_copy(getattr(library, name)))
for name in (
    "O_NOFOLLOW", "O_CLOEXEC", "O_NONBLOCK", "fork", "forkpty", "posix_spawn",
    "posix_spawnp", "killpg", "getpgid", "setsid", "setpgid", "getpgrp", "getsid", "uname",
    "WNOHANG", "set_blocking", "get_blocking", "register_at_fork", "wait3", "wait4",
    "getuid", "geteuid", "getgid", "getegid", "getppid", "mkfifo",
):
    if hasattr(os, name):
        delattr(os, name)
for name in (
    "SIGHUP", "SIGKILL", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGCHLD", "SIGPIPE",
    "SIGXFSZ", "SIGTSTP", "SIGCONT", "SIGSTOP",
):
    if hasattr(signal, name):
        delattr(signal, name)
for name in ("fcntl", "pwd", "grp", "termios", "resource"):
    sys.modules[name] = None  # import fails
# filelock warns when it must use its marker file (on Windows it uses LockFileEx).
warnings.filterwarnings("ignore", "only soft file lock is available")
sys.argv[0] = "wfs"
from wfs.cli import main
sys.exit(main())
"""

COMMON_COMMANDS = [
    ["init"],
    ["plan", "Portable", "--from", "plan.json"],
    ["status"],
    ["next"],
    ["task", "list"],
    ["task", "show", "IMPL-1"],
    ["task", "status", "IMPL-2", "active"],
    ["task", "add", "--title", "Third"],
    ["validate"],
    ["render", "--check"],
    ["session", "list"],
    ["switch", "WFS-portable"],
    ["execute", "IMPL-1"],
]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="simulates Windows on Linux")
def test_every_common_command_runs_without_the_posix_only_names(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    step = {
        "step": 1,
        "title": "Write",
        "description": "d",
        "modification_points": [],
        "logic_flow": [],
        "depends_on": [],
        "output": "o",
        "command": "bash(printf 'from bash' > out.txt)",
    }
    plan = [
        {"id": "IMPL-1", "title": "First", "flow_control": {"implementation_approach": [step]}},
        {"id": "IMPL-2", "title": "Second"},
    ]
    import json

    (project / "plan.json").write_text(json.dumps(plan))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for command in COMMON_COMMANDS:
        run = subprocess.run(
            [sys.executable, "-c", WITHOUT_POSIX, *command],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert (run.returncode, "Traceback" in run.stderr) == (0, False), (command, run.stderr)
    assert (project / "out.txt").read_text() == "from bash"
    task = json.loads((project / ".workflow/WFS-portable/.task/IMPL-1.json").read_text())
    assert task["status"] == "completed"
    # The marker-file locks were all released.
    locks = project / ".workflow/.locks"
    assert list(locks.iterdir()) == [locks / ".gitignore"]  # it keeps them out of git


# Names of os and signal that Windows' Python lacks, and modules it cannot import.
POSIX_ONLY_NAMES = {
    "os": {
        "O_NOFOLLOW", "O_CLOEXEC", "O_NONBLOCK", "fork", "forkpty", "posix_spawn",
        "posix_spawnp", "killpg", "getpgid", "setsid", "setpgid", "getpgrp", "getsid",
        "uname", "WNOHANG", "set_blocking", "get_blocking", "register_at_fork", "wait3",
        "wait4", "getuid", "geteuid", "getppid", "mkfifo", "POSIX_SPAWN_OPEN",
        "POSIX_SPAWN_DUP2", "kill",
    },
    "signal": {
        "SIGHUP", "SIGKILL", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGCHLD",
        "SIGPIPE", "SIGXFSZ", "alarm", "setitimer", "pthread_sigmask",
    },
}  # fmt: skip
POSIX_ONLY_MODULES = {"fcntl", "termios", "tty", "pwd", "grp", "resource", "posix"}


def test_nothing_posix_only_is_used_outside_the_platform_package() -> None:
    import ast

    found = []
    for path in sorted((REPO / "wfs").rglob("*.py")):
        if REPO / "wfs" / "platform" in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(REPO).as_posix()}:{getattr(node, 'lineno', 0)}"
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.attr in POSIX_ONLY_NAMES.get(node.value.id, ())
            ):
                found.append(f"{where}: {node.value.id}.{node.attr}")
            elif isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                names.append(getattr(node, "module", None) or "")
                found += [f"{where}: import {n}" for n in names if n in POSIX_ONLY_MODULES]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.value.startswith("/proc"):
                    found.append(f"{where}: {node.value!r}")
    assert found == []
