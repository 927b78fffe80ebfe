"""Every difference between the operating systems wfs runs on, in one package, a module
for each concern:

- files: the flags wfs opens its own files with, and syncing a folder;
- locks: the lock of a session (filelock: flock(2) on POSIX, LockFileEx on Windows);
- processes: this machine's name and whether a process still runs;
- signals: which signals stop wfs, and the strongest one;
- terminal: a terminal's width, and its keys read one at a time (termios on POSIX,
  msvcrt on Windows);
- resident: one bash for a run of steps, which forks each step (POSIX);
- groups: starting a command in a process group of its own (a job object on Windows),
  and stopping the whole group; starting one detached in the background;
- watcher: seeing that no group outlives this process (a watcher on POSIX, the job
  object on Windows);
- isolated: running a function in a child process that can be killed;
- orphans: finding the processes of steps that outlived their runner;
- shells: where bash is (Git Bash or WSL on Windows), a step's environment, and the
  kind of shell the user pastes a printed command into;
- quoting: how a printed command is quoted for that shell (POSIX shells, PowerShell,
  cmd);
- windows: what exists on Windows alone (its job objects, its process handles).

Each branch is chosen by what the running Python has (`os.killpg`, `os.O_NOFOLLOW`,
`fcntl` importable), not by the name of the system alone, so a platform that lacks a
POSIX call takes the portable branch instead of failing. Only what exists on Windows
alone is chosen by `sys.platform`.

Every command imports this package (through wfs/store.py), so the costly imports of a
part (filelock ~20 ms, multiprocessing ~11 ms, subprocess ~3 ms) are made when the part
is first used, each marked where it is: a command pays only for what it uses. The names
below are the package's face (`platform.Group`); each is defined in its module.
"""

from wfs.platform.files import NOT_REGULAR, OWN_FILE_FLAGS, open_own, open_to_read, sync_folder
from wfs.platform.groups import (
    GRACE_SECONDS,
    POSIX_GROUPS,
    TICK_SECONDS,
    Group,
    Watch,
    start_detached,
)
from wfs.platform.isolated import run_isolated
from wfs.platform.locks import LOCK_POLL_SECONDS, FileLock, lock_class
from wfs.platform.orphans import step_processes, stop_orphans
from wfs.platform.processes import host_name, process_alive
from wfs.platform.quoting import cmd_join, powershell_join, shell_join
from wfs.platform.resident import Job, resident, run_of_steps
from wfs.platform.shells import (
    BASH_MISSING,
    environment,
    find_bash,
    is_wsl_launcher,
    shell_kind,
    user_shell,
    windows_bash,
)
from wfs.platform.signals import (
    kill_self,
    kill_signal,
    raise_signal,
    signal_name,
    signal_number,
    stop_signals,
)
from wfs.platform.terminal import CLEAR_LINES_UP, CLEAR_SCREEN, CLEAR_TO_END, Keys, terminal_columns
from wfs.platform.watcher import ready_watcher, watch_group
from wfs.platform.windows import WINDOWS

__all__ = [
    "BASH_MISSING",
    "CLEAR_LINES_UP",
    "CLEAR_SCREEN",
    "CLEAR_TO_END",
    "GRACE_SECONDS",
    "LOCK_POLL_SECONDS",
    "NOT_REGULAR",
    "OWN_FILE_FLAGS",
    "POSIX_GROUPS",
    "TICK_SECONDS",
    "WINDOWS",
    "FileLock",
    "Group",
    "Job",
    "Keys",
    "Watch",
    "cmd_join",
    "environment",
    "find_bash",
    "host_name",
    "is_wsl_launcher",
    "kill_self",
    "kill_signal",
    "lock_class",
    "open_own",
    "open_to_read",
    "powershell_join",
    "process_alive",
    "raise_signal",
    "ready_watcher",
    "resident",
    "run_of_steps",
    "run_isolated",
    "shell_join",
    "shell_kind",
    "signal_name",
    "signal_number",
    "start_detached",
    "step_processes",
    "stop_orphans",
    "stop_signals",
    "sync_folder",
    "terminal_columns",
    "user_shell",
    "watch_group",
    "windows_bash",
]
