"""The real editor programs of tests/test_real_editors.py: installed from npm, run headless.

The versions verified with wfs are pinned in tests/editors/package.json, and nowhere
else. They are installed with npm into a cache folder outside the repository
(`$WFS_EDITORS_CACHE`, by default ~/.cache/wfs-test-editors), one folder per content of
that package.json, and reused while it is unchanged. When they cannot be installed (no
npm, the registry out of reach) `EditorsUnavailable` says why, and the tests fail with
that reason: they never skip.

Each editor runs with a home folder of its own and a minimal environment: fake API keys,
its model API pointed at a loopback stand-in (tests/model_standins.py), and this
environment's `wfs` first on PATH.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent / "editors" / "package.json"
PROGRAMS = {
    "@anthropic-ai/claude-code": "claude",
    "@google/gemini-cli": "gemini",
    "@openai/codex": "codex",
    "opencode-ai": "opencode",
}
RUN_TIMEOUT = 120  # seconds for one headless editor run; they take a few seconds


class EditorsUnavailable(Exception):
    """The pinned editors could not be installed; the message says why."""


def pinned() -> dict[str, str]:
    """npm package -> the exact version verified with wfs."""
    versions: dict[str, str] = json.loads(PACKAGE.read_text())["dependencies"]
    return versions


def cache_root() -> Path:
    configured = os.environ.get("WFS_EDITORS_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "wfs-test-editors"


def install_editors() -> Path:
    """The folder holding the `claude`, `gemini` and `codex` programs, installed if needed."""
    data = PACKAGE.read_bytes()
    folder = cache_root() / hashlib.sha256(data).hexdigest()[:16]
    bin_dir = folder / "node_modules" / ".bin"
    done = folder / "installed.json"
    if done.is_file() and all((bin_dir / name).exists() for name in PROGRAMS.values()):
        return bin_dir
    npm = shutil.which("npm")
    if npm is None:
        raise EditorsUnavailable("npm is not on PATH; the real-editor tests need Node.js and npm")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_bytes(data)
    wanted = ", ".join(f"{name}@{version}" for name, version in pinned().items())
    try:
        proc = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=900,
        )
    except subprocess.TimeoutExpired:
        raise EditorsUnavailable(f"npm install of {wanted} took over 15 minutes") from None
    if proc.returncode != 0:
        raise EditorsUnavailable(
            f"npm install of {wanted} failed (is the npm registry reachable?): "
            + (proc.stderr.strip() or proc.stdout.strip())[-2000:]
        )
    found = {}
    for package, name in PROGRAMS.items():
        program = bin_dir / name
        version = subprocess.run(
            [str(program), "--version"], capture_output=True, text=True, timeout=120
        )
        if pinned()[package] not in version.stdout:
            raise EditorsUnavailable(
                f"{program} --version says {version.stdout.strip()!r}{version.stderr.strip()!r}, "
                f"expected {pinned()[package]}"
            )
        found[package] = version.stdout.strip()
    done.write_text(json.dumps(found, indent=2) + "\n")
    return bin_dir


def base_environment(home: Path) -> dict[str, str]:
    """A minimal environment: nothing of the caller's credentials or editor settings."""
    node = shutil.which("node")
    folders = [str(Path(sys.executable).parent)]  # this environment's wfs
    if node:
        folders.append(str(Path(node).resolve().parent))
    folders += ["/usr/local/bin", "/usr/bin", "/bin"]
    return {
        "PATH": os.pathsep.join(folders),
        "HOME": str(home),
        "TERM": "dumb",
        "LANG": "C.UTF-8",
        "TMPDIR": str(home / "tmp"),
        "NO_COLOR": "1",
    }


def run(argv: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> Any:
    (Path(env["HOME"]) / "tmp").mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=RUN_TIMEOUT
    )


def stream_events(stdout: str) -> list[dict[str, Any]]:
    """The JSON lines of a stream-json output (other lines are ignored)."""
    events = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
    return events
