"""The real editor programs of tests/test_real_editors.py: installed from npm, run headless.

The tests take the newest version of each program that the npm registry has (`npm view
PACKAGE version`), so that a release that changes behaviour shows up here first.
tests/editors/package.json lists the programs with the versions last verified with wfs:
they are what the docs name, and what is installed when the registry cannot say which
version is the newest. A failing test names the versions it ran (`versions_note`), and
says which of them differ from the verified ones.

They are installed with npm into a cache folder outside the repository
(`$WFS_EDITORS_CACHE`, by default ~/.cache/wfs-test-editors), one folder per set of
versions, and reused while the set is unchanged. Concurrent test processes install one
at a time (a file lock beside the folder). When they cannot be installed (no npm, the
registry out of reach) `EditorsUnavailable` says why, and the tests fail with that
reason: they never skip.

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

from filelock import FileLock

PACKAGE = Path(__file__).resolve().parent / "editors" / "package.json"
PROGRAMS = {
    "@anthropic-ai/claude-code": "claude",
    "@google/gemini-cli": "gemini",
    "@openai/codex": "codex",
    "@qwen-code/qwen-code": "qwen",
    "@github/copilot": "copilot",
    "opencode-ai": "opencode",
}
# Programs that need a newer Node.js than the machine may have (Qwen Code: 22 or later):
# they run with the one of the `node` package in package.json first on PATH (`node_path`).
OWN_NODE = ("qwen",)
RUN_TIMEOUT = 120  # seconds for one headless editor run; they take a few seconds


class EditorsUnavailable(Exception):
    """The editors could not be installed; the message says why."""


def verified() -> dict[str, str]:
    """npm package -> the version last verified with wfs (tests/editors/package.json)."""
    versions: dict[str, str] = json.loads(PACKAGE.read_text())["dependencies"]
    return versions


def newest() -> dict[str, str]:
    """npm package -> the newest version on the registry; the verified one for a package
    the registry does not answer for, and for what is not an editor (Node.js itself)."""
    npm = shutil.which("npm")
    found = {}
    for package, version in verified().items():
        if npm is not None and package in PROGRAMS:
            try:
                proc = subprocess.run(
                    [npm, "view", package, "version"],
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
                answer = proc.stdout.strip().splitlines()
                if proc.returncode == 0 and answer:
                    version = answer[-1].strip().strip("'")
            except subprocess.TimeoutExpired:
                pass
        found[package] = version
    return found


def cache_root() -> Path:
    configured = os.environ.get("WFS_EDITORS_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "wfs-test-editors"


def versions_note(versions: dict[str, str]) -> str:
    """The versions a test ran, for its failure report."""
    verified_versions = verified()
    parts = []
    for package, version in versions.items():
        if package not in PROGRAMS:
            continue
        known = verified_versions.get(package)
        note = "" if known == version else f" (verified with wfs: {known}; this one is newer)"
        parts.append(f"{PROGRAMS.get(package, package)} {version}{note}")
    return "ran with " + ", ".join(parts)


# The versions installed by this test process (for failure reports; see conftest.py).
INSTALLED: dict[str, str] = {}


def install_editors() -> Path:
    """The folder holding the editor programs, installed if needed (INSTALLED: which)."""
    versions = newest()
    data = (json.dumps({"private": True, "dependencies": versions}, indent=2) + "\n").encode()
    folder = cache_root() / hashlib.sha256(data).hexdigest()[:16]
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        bin_dir = _install(folder, data, versions)
    INSTALLED.update(versions)
    return bin_dir


def _install(folder: Path, data: bytes, versions: dict[str, str]) -> Path:
    bin_dir = folder / "node_modules" / ".bin"
    done = folder / "installed.json"
    if done.is_file() and all((bin_dir / name).exists() for name in PROGRAMS.values()):
        return bin_dir
    npm = shutil.which("npm")
    if npm is None:
        raise EditorsUnavailable("npm is not on PATH; the real-editor tests need Node.js and npm")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_bytes(data)
    wanted = ", ".join(f"{name}@{version}" for name, version in versions.items())
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
        # Copilot CLI unpacks its binary (some 235 MB) on a first run: into the cache.
        env = os.environ | {"COPILOT_CACHE_HOME": str(folder / "copilot-cache")}
        if name in OWN_NODE:
            env["PATH"] = node_path(bin_dir, os.environ.get("PATH", ""))
        version = subprocess.run(
            [str(program), "--version"], capture_output=True, text=True, timeout=120, env=env
        )
        if versions[package] not in version.stdout:
            raise EditorsUnavailable(
                f"{program} --version says {version.stdout.strip()!r}{version.stderr.strip()!r}, "
                f"expected {versions[package]}"
            )
        found[package] = version.stdout.strip()
    done.write_text(json.dumps(found, indent=2) + "\n")
    return bin_dir


def node_path(bin_dir: Path, path: str) -> str:
    """`path` with the Node.js of the `node` package installed beside the editors first:
    its folder holds that one program (node_modules/node/bin/node)."""
    return os.pathsep.join([str(bin_dir.parent / "node" / "bin"), path])


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
