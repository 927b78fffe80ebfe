"""Real git for the tests, sealed off from the user's and the system's git config.

`wfs` on PATH runs this checkout (git runs it as a merge driver and from hooks).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed:\n{proc.stdout}{proc.stderr}")
    return proc


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").stdout.strip()


@pytest.fixture
def git_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A sealed git environment; returns the folder holding the `wfs` on PATH."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Tester")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "tester@example.com")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "wfs"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m wfs "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def git_daemon(base: Path, probe: Path, name: str) -> Iterator[str]:
    """A real `git daemon` on 127.0.0.1 serving the repositories under `base` (push
    allowed); yields the URL of `base / name`, once `probe` (a repository) can read it."""
    exec_path = git(probe, "--exec-path").stdout.strip()
    found = [Path(exec_path, n) for n in ("git-daemon", "git-daemon.exe")]
    program = next((str(path) for path in found if path.exists()), None)
    if program is None:
        pytest.skip("git-daemon is not installed with this git")
    port = free_port()
    # The program itself, not `git daemon`: killing git's wrapper would leave it running.
    proc = subprocess.Popen(
        [program, "--export-all", "--enable=receive-pack", "--reuseaddr",
         f"--base-path={base}", "--listen=127.0.0.1", f"--port={port}", str(base)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"git://127.0.0.1:{port}/{name}"
    try:
        for _ in range(300):
            if git(probe, "ls-remote", url, check=False).returncode == 0:
                break
            if proc.poll() is not None:
                pytest.fail(f"git daemon exited with {proc.returncode}")
            time.sleep(0.1)
        else:
            pytest.fail("git daemon did not answer on 127.0.0.1")
        yield url
    finally:
        proc.kill()
        proc.wait()
