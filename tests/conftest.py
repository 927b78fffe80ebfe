"""Shared fixtures: a real temporary project and a way to run the real CLI in it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import orjson
import pytest
from click.testing import CliRunner

from wfs import store
from wfs.cli import cli

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"

# Tests that need what one system has skip elsewhere, saying why.
posix_only = pytest.mark.skipif(
    sys.platform == "win32", reason="needs POSIX signals and process groups"
)
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash on PATH")


class Run(NamedTuple):
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return orjson.loads(self.out)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "WFS_ROOT",
        "WFS_SESSION",
        "WFS_AGENT",
        "NO_COLOR",
        "WFS_LOCK_TIMEOUT",
        "WFS_NO_CACHE",
    ):
        monkeypatch.delenv(name, raising=False)
    # Each in-process run confines writes to its project root: one test's root is not
    # another's.
    monkeypatch.setattr(store, "_PLACES", [])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project directory, made the current directory."""
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def wfs(
    *args: str,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
    color: bool = False,
) -> Run:
    """Run the CLI in-process (fast); exceptions other than SystemExit fail the test.

    `color`: as if the output were a color terminal (escape sequences are kept)."""
    result = CliRunner().invoke(
        cli, list(args), input=input, env=env, color=color, catch_exceptions=False
    )
    return Run(result.exit_code, result.stdout, result.stderr)


def wfs_process(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60
) -> Run:
    """Run the CLI as a real process."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-m", "wfs", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def read_json(path: Path) -> Any:
    return orjson.loads(path.read_bytes())


def tree_listing(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
