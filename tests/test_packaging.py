"""The built wheel carries schemas/, agents/ and the templates, and finds them from anywhere."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import orjson
import pytest
from conftest import REPO, VIEW_MARK

from wfs import templating


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(REPO)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("wfs-*.whl")
    return built


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
    metadata = zipfile.ZipFile(wheel).read("wfs-0.1.0.dist-info/METADATA").decode()
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist: mcp")]
    # The MCP SDK only comes with the `mcp` extra (and the test extra, for its tests).
    assert requires == [
        "Requires-Dist: mcp<3,>=2.3; extra == 'mcp'",
        "Requires-Dist: mcp<3,>=2.3; extra == 'test'",
    ]


def test_installed_wheel_finds_its_resources(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
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
    wfs = venv / "bin" / "wfs"
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
    created = subprocess.run(
        [str(wfs), "plan", "Packaged", "--empty"],
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
    # Without the `mcp` extra, everything above works, and `wfs mcp` says what to install.
    server = subprocess.run([str(wfs), "mcp"], cwd=work, capture_output=True, text=True)
    assert (server.returncode, server.stdout, server.stderr) == (
        2,
        "",
        "wfs: error: wfs mcp needs the MCP Python SDK 2.x (mcp>=2.3,<3), which is not "
        "installed; install it with: pip install 'wfs[mcp]'\n",
    )
