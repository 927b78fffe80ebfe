"""The shells around wfs: bash for steps (Git Bash or WSL on Windows) with a step's
environment, and the kind of shell the user pastes a printed command into."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import sys
from collections.abc import Iterator, Mapping

from wfs.platform.windows import WINDOWS

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


def user_shell(environ: Mapping[str, str] | None = None, system: str = sys.platform) -> str:
    """The kind of shell a printed command will be pasted into: "posix", "powershell"
    or "cmd". On Windows: the shell wfs was started from, as shellingham finds it among
    its parent processes; where none is found (or `environ` is given), a guess from the
    environment: a POSIX shell when one set MSYSTEM or SHELL (Git Bash, MSYS2, Cygwin);
    PowerShell when PSModulePath has the entries PowerShell adds to the system's two;
    else cmd.exe."""
    if system != "win32":
        return "posix"
    if environ is None:
        detected = _detected_shell()
        if detected is not None:
            return detected
        environ = os.environ
    if environ.get("MSYSTEM") or environ.get("SHELL"):
        return "posix"
    modules = [part for part in environ.get("PSModulePath", "").split(";") if part]
    return "powershell" if len(modules) >= 3 else "cmd"


def shell_kind(name: str) -> str:
    """The kind of the shell called `name` as shellingham names it (`pwsh`, `cmd`,
    `bash`): "powershell", "cmd", or "posix" for the others (all of them Bourne-like
    or C shells, which read a POSIX-quoted word alike)."""
    name = name.lower().removesuffix(".exe")
    if name in ("powershell", "pwsh"):
        return "powershell"
    return "cmd" if name == "cmd" else "posix"


@functools.cache
def _detected_shell() -> str | None:
    """The kind of the shell among this process's parents (Windows), looked for once."""
    import shellingham  # deferred: only a command printed on Windows asks for its shell

    try:
        name, _ = shellingham.detect_shell()
    except (shellingham.ShellDetectionFailure, RuntimeError, OSError):
        return None
    return shell_kind(str(name))
