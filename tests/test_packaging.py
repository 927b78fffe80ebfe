"""The built wheel and sdist carry schemas/, agents/ and the templates; the wheel installs
into a fresh venv under its own name, runs the demo and finds its resources from anywhere."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import NamedTuple

import orjson
import pytest
from conftest import REPO, VIEW_MARK
from runnable_docs import run_doc

from wfs import __version__, templating

# The board's page: its template, its own CSS and JS, and the vendored dagre with its licence.
BOARD_PAGE = (
    "templates/board.html.j2",
    "static/board.css",
    "static/board.js",
    "static/dagre.min.js",
    "static/dagre.LICENSE",
)


class Dist(NamedTuple):
    wheel: Path
    sdist: Path


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--sdist", "--outdir", str(out), str(REPO)],
        check=True,
        capture_output=True,
    )
    # Named for the distribution, `wfs-sessions` (`wfs` on the package index is another
    # project); the package and the command inside stay `wfs`.
    (wheel,) = out.glob("wfs_sessions-*.whl")
    (sdist,) = out.glob("wfs_sessions-*.tar.gz")
    assert sorted(p.name for p in out.iterdir()) == [wheel.name, sdist.name]
    return Dist(wheel, sdist)


@pytest.fixture(scope="module")
def wheel(dist: Dist) -> Path:
    return dist.wheel


def venv_bin(venv: Path) -> Path:
    return venv / ("Scripts" if sys.platform == "win32" else "bin")


@pytest.mark.slow
def test_sdist_holds_the_package_schemas_agents_and_templates(dist: Dist) -> None:
    with tarfile.open(dist.sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert dist.sdist.name == f"wfs_sessions-{__version__}.tar.gz"
    assert {"pyproject.toml", "README.md", "wfs/__init__.py", "wfs/cli.py"} <= names
    assert {"wfs/commands/execute.py", "wfs/flow/engine.py", "wfs/checks/MANIFEST"} <= names
    for schema in ("task", "session", "plan"):
        assert f"schemas/{schema}.schema.json" in names
    assert {"agents/README.md", "agents/commands/execute.md"} <= names
    assert {"agents/definitions/code-developer.md", "agents/partials/brief.md"} <= names
    for template in ("views.md.j2", "TODO_LIST.md.j2", "summary.md.j2", "brief.md.j2"):
        assert f"wfs/templates/{template}" in names
    assert "wfs/templates/compiled/MANIFEST" in names
    assert {"examples/offline-demo/run.sh", "docs/configuration.md"} <= names
    assert {f"wfs/board/{name}" for name in BOARD_PAGE} <= names


@pytest.mark.slow
def test_wheel_contains_the_shipped_folders(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for schema in ("task", "session", "plan"):
        assert f"wfs/schemas/{schema}.schema.json" in names
    assert "wfs/agents/README.md" in names
    for source in ("commands/execute.md", "definitions/code-developer.md", "partials/brief.md"):
        assert f"wfs/agents/{source}" in names
    for template in ("views.md.j2", "TODO_LIST.md.j2", "summary.md.j2", "brief.md.j2"):
        assert f"wfs/templates/{template}" in names
    compiled = [name for name in names if name.startswith("wfs/templates/compiled/")]
    assert "wfs/templates/compiled/MANIFEST" in compiled
    assert len(compiled) == len(templating.sources()) + 1, compiled
    assert {"wfs/checks/MANIFEST", "wfs/checks/task_errors.py"} <= names
    # The board's page and the layout library it draws with (no CDN: it works offline).
    assert {f"wfs/board/{name}" for name in BOARD_PAGE} <= names
    info = f"wfs_sessions-{__version__}.dist-info"
    metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    assert metadata.splitlines()[1:3] == ["Name: wfs-sessions", f"Version: {__version__}"]
    entry_points = zipfile.ZipFile(wheel).read(f"{info}/entry_points.txt").decode()
    assert entry_points == "[console_scripts]\nwfs = wfs.__main__:main\n"
    requires = [
        line for line in metadata.splitlines() if re.match(r"Requires-Dist: (mcp|wfs)", line)
    ]
    # The MCP SDK only comes with the `mcp` extra (the test extra takes that extra, and
    # the build writes its requirement out), its range written once, in pyproject.toml.
    assert requires == [
        "Requires-Dist: mcp<3,>=2.3; extra == 'mcp'",
        "Requires-Dist: mcp<3,>=2.3; extra == 'test'",
    ]


@pytest.mark.slow
def test_installed_wheel_finds_its_resources(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv_bin(venv) / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True
    )
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = subprocess.run(
        [
            str(python),
            "-c",
            "from wfs.resources import resource_dir; print(resource_dir('schemas'))",
        ],
        cwd=work,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert where.startswith(str(venv)), where
    wfs = venv_bin(venv) / "wfs"
    version = subprocess.run([str(wfs), "--version"], capture_output=True, text=True)
    assert (version.returncode, version.stdout) == (0, f"wfs, version {__version__}\n")
    schema = subprocess.run(
        [str(wfs), "schema", "task"], cwd=work, check=True, capture_output=True
    ).stdout
    assert orjson.loads(schema)["$id"].endswith("task.schema.json")
    subprocess.run([str(wfs), "init", "--no-git"], cwd=work, check=True, capture_output=True)
    # The planning brief holds the example plan shipped in the wheel.
    brief = subprocess.run(
        [str(wfs), "plan", "Packaged", "--dry-run"], cwd=work, check=True, capture_output=True
    ).stdout.decode()
    assert '"title": "Add the login rate limiter"' in brief
    (work / "plan.json").write_text('{"tasks": [{"id": "IMPL-1", "title": "Pack it"}]}')
    created = subprocess.run(
        [str(wfs), "plan", "Packaged", "--from", "plan.json"],
        cwd=work,
        check=True,
        capture_output=True,
        text=True,
    )
    assert created.stdout == "WFS-packaged\n"
    assert (
        (work / ".workflow/WFS-packaged/TODO_LIST.md")
        .read_text()
        .startswith(VIEW_MARK + "# Tasks: Packaged")
    )
    # The installed templates are loaded compiled (their copy is current there too).
    loader = subprocess.run(
        [
            str(python),
            "-c",
            "from wfs.templating import environment; print(type(environment().loader.loaders[0]))",
        ],
        cwd=work,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert loader == "<class 'jinja2.loaders.ModuleLoader'>\n"
    # So are the hot schema checks.
    check = subprocess.run(
        [
            str(python),
            "-c",
            "from wfs.schemas import precompiled; print(precompiled('task', True) is not None)",
        ],
        cwd=work,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert check == "True\n"
    installed = subprocess.run(
        [str(wfs), "agents", "install", "--target", "gemini"], cwd=work, capture_output=True
    )
    assert installed.returncode == 0, installed.stderr
    assert (work / ".gemini/commands/wfs/execute.toml").read_text().startswith("description = ")
    # Without the `mcp` extra, everything above works, and `wfs mcp` says what to install,
    # into this very venv too: the command it names installs the SDK and the server starts.
    server = subprocess.run([str(wfs), "mcp"], cwd=work, capture_output=True, text=True)
    here = [str(python), "-m", "pip", "install", "mcp<3,>=2.3"]
    assert (server.returncode, server.stdout, server.stderr) == (
        2,
        "",
        "wfs: error: wfs mcp needs the MCP Python SDK (mcp<3,>=2.3), which is not "
        "installed; install it with: pip install 'wfs-sessions[mcp]', or into the Python "
        f"wfs runs in: {shlex.join(here)}\n",
    )
    named = shlex.split(server.stderr.split("runs in: ", 1)[1])
    assert named == here
    subprocess.run([*named, "-q"], check=True, capture_output=True)
    served = subprocess.run([str(wfs), "mcp"], cwd=work, input="", capture_output=True, text=True)
    assert (served.returncode, served.stderr) == (0, "")


@pytest.mark.slow
def test_installed_wheel_runs_the_demo_and_the_first_hour(wheel: Path, tmp_path: Path) -> None:
    """The README's first example, with nothing from the checkout on the path but the
    example itself: the wheel's `wfs` first on PATH; then the newcomer's first hour of
    docs/walkthrough.md (init, a plan by hand, planning with an agent, executing and
    watching, resuming, reviewing in git) with that same installed `wfs`."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv_bin(venv) / "python"), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    path = os.pathsep.join([str(venv_bin(venv)), os.environ.get("PATH", "")])
    demo = subprocess.run(
        ["bash", str(REPO / "examples/offline-demo/run.sh")],
        cwd=tmp_path,
        env={**os.environ, "PATH": path, "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert demo.returncode == 0, demo.stderr
    last = demo.stdout.splitlines()[-1]
    assert last.startswith("Project left in "), last
    project = Path(last.removeprefix("Project left in "))
    assert project.parent == tmp_path
    todo = (project / ".workflow/WFS-offline-demo/TODO_LIST.md").read_text(encoding="utf-8")
    boxes = re.findall(r"^- \[(.)\] \*\*(IMPL-\d+)\*\*", todo, re.M)
    assert boxes == [("x", "IMPL-1"), ("x", "IMPL-2"), ("x", "IMPL-3")]
    assert todo in demo.stdout  # the view it printed is the one on disk

    walk = tmp_path / "walk"
    walk.mkdir()
    doc = REPO / "docs" / "walkthrough.md"
    failures = run_doc(doc, REPO, cwd=walk, tmp=walk, bin_dir=venv_bin(venv))
    assert not failures, "\n\n".join(failures)
    assert (walk / "greeter/README.md").read_text() == (
        "# greet\n\nRun `./greet.sh NAME` to be greeted.\n"
    )


def test_the_mcp_hint_installs_into_the_python_wfs_runs_in_however_it_was_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wfs import agents_install

    index = "pip install 'wfs-sessions[mcp]', or into the Python wfs runs in: "
    exe = shlex.quote(sys.executable)
    # A venv of its own (a clone's, the test's): its pip.
    assert agents_install.mcp_install_hint() == f"{index}{exe} -m pip install 'mcp<3,>=2.3'"
    # uv's tool environments have no pip: uv installs into them.
    monkeypatch.setitem(sys.modules, "pip", None)
    assert agents_install.mcp_install_hint() == (
        f"{index}uv pip install --python {exe} 'mcp<3,>=2.3'"
    )
    # pipx's have no pip either, and pipx keeps what it injects across its upgrades.
    (tmp_path / "pipx_metadata.json").write_text("{}")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    assert agents_install.mcp_install_hint() == (f"{index}pipx inject wfs-sessions 'mcp<3,>=2.3'")
    # Run from a source tree it was never installed from: pyproject.toml says the range.
    monkeypatch.setattr(agents_install, "DISTRIBUTION", "wfs-sessions-not-installed")
    assert agents_install.mcp_requirement() == "mcp>=2.3,<3"


def test_the_wfs_program_imports_without_collections_then_runs_with_them() -> None:
    """The entry point imports wfs with the garbage collector off, freezes what the
    imports made, and runs the command with the collector on again."""
    code = (
        "import gc, sys\n"
        "from wfs.__main__ import main\n"
        "assert 'wfs.cli' not in sys.modules and gc.isenabled()\n"
        "sys.argv = ['wfs', '--version']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as end:\n"
        "    print(end.code, gc.isenabled(), gc.get_freeze_count() > 10_000)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [f"wfs, version {__version__}", "0 True True"]
