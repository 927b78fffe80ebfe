"""docs/configuration.md names every setting wfs reads, and a pause for want of an agent
says how to configure one, in commands that work as printed."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, Run, needs_bash, wfs

PAGE = REPO / "docs" / "configuration.md"
SOURCES = sorted(
    path
    for path in (REPO / "wfs").rglob("*.py")
    if not {"compiled", "checks"} & set(path.relative_to(REPO / "wfs").parts)
)

# A line that reads the environment, and the quoted names on it.
READS_ENVIRONMENT = re.compile(
    r"os\.environ|environ\.get\(|environ\[|\bin environ\b|envvar=|getenv\("
)
QUOTED_NAME = re.compile(r"""["']([A-Za-z_][A-Za-z0-9_()]*)["']""")
# A variable wfs sets or reads by its own prefix, f-strings included (`f"WFS_V{n}"`).
WFS_NAME = re.compile(r"""["']\b(WFS_[A-Z0-9_]*)""")
# A tuple of names the code reads one by one (`_PATH_VARIABLES = ("GIT_DIR", ...)`).
NAME_TUPLE = re.compile(r"^\s*_?[A-Z_]*VARIABLES\s*=")
# In a module that opens .workflow/config.json, each key it looks up.
OPENS_CONFIG = re.compile(r"""["']config\.json["']""")
# `.get("key"` or `x["key"`: a subscription follows a name, a call or a subscription
# (never a `[` inside a string literal).
KEY_LOOKUP = re.compile(r"""(?:\.get\(|(?<=[\w\])])\[)\s*f?["']([^"'{]+)""")


def environment_names() -> set[str]:
    names: set[str] = set()
    for path in SOURCES:
        for line in path.read_text(encoding="utf-8").splitlines():
            if READS_ENVIRONMENT.search(line) or NAME_TUPLE.match(line):
                names.update(QUOTED_NAME.findall(line))
            names.update(WFS_NAME.findall(line))
    return names


def config_keys() -> set[str]:
    keys: set[str] = set()
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        if OPENS_CONFIG.search(text):
            keys.update(KEY_LOOKUP.findall(text))
    return keys


def documented(name: str, page: str) -> bool:
    """`name` is written on the page as code (inside backticks)."""
    return any(name in span for span in re.findall(r"`([^`\n]+)`", page))


@pytest.mark.slow
def test_the_source_scan_finds_the_settings_we_know() -> None:
    # The scan must see what it is meant to see, or the test below proves nothing.
    assert {
        "WFS_ROOT",
        "WFS_SESSION",
        "WFS_AGENT",
        "WFS_LOCK_TIMEOUT",
        "WFS_NO_CACHE",
        "WFS_STEP",
        "WFS_V",
        "NO_COLOR",
        "PATH",
        "GITHEAD_",
        "GIT_DIR",
        "ProgramFiles(x86)",
    } <= environment_names()
    assert {"agent", "agents", "default", "cli:"} <= config_keys()
    assert documented("WFS_AGENT", "x `WFS_AGENT=CMD` y")
    assert not documented("WFS_AGENT", "WFS_AGENT, not as code")


@pytest.mark.slow
def test_every_environment_variable_and_config_key_is_on_the_configuration_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    missing = sorted(name for name in environment_names() if not documented(name, page))
    assert missing == [], f"read by wfs/ but not in docs/configuration.md: {missing}"
    missing = sorted(key for key in config_keys() if not documented(key, page))
    assert missing == [], f"config.json keys not in docs/configuration.md: {missing}"
    # The settings the agent hand-off and the planning agent are configured by.
    for name in ("agent_input", "WFS_AGENT_INPUT", "@action-planning-agent", "_WFS_COMPLETE"):
        assert documented(name, page), name


def test_the_readme_links_the_configuration_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "(docs/configuration.md)" in readme


# --------------------------------------------------------------------------- the pause

PLAN = {"tasks": [{"id": "IMPL-1", "title": "Write the notes", "description": "Notes."}]}
AGENT = "#!/usr/bin/env bash\ncat > /dev/null\necho 'Notes written.'\n"
SETUP = [
    "No agent is configured; an agent is a command CMD (the brief on its stdin, the answer "
    'on its stdout), such as "claude -p":',
    "  wfs --session WFS-notes execute --resume IMPL-1 --agent CMD",
    '  or set WFS_AGENT=CMD, or put {"agents": {"default": "CMD"}} in .workflow/config.json',
    '  (one per agent of the plan: {"agents": {"@test-fix-agent": "CMD2", "default": "CMD"}})',
]


def paused(project: Path) -> Run:
    assert wfs("init").code == 0
    (project / "plan.json").write_text(json.dumps(PLAN))
    assert wfs("plan", "Notes", "--from", "plan.json").code == 0
    return wfs("execute")


def resumed(project: Path, argv: list[str], env: dict[str, str] | None = None) -> Run:
    """Run a command the pause printed, as a real process (`wfs` is this checkout's)."""
    assert argv[0] == "wfs", argv
    proc = subprocess.run(
        [sys.executable, "-m", "wfs", *argv[1:]],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def agent_script(project: Path) -> str:
    script = project.parent / "agent.sh"
    script.write_text(AGENT)
    script.chmod(0o755)
    return str(script)


@pytest.mark.slow
def test_a_pause_for_want_of_an_agent_says_how_to_configure_one(project: Path) -> None:
    run = paused(project)
    assert run.code == 3
    assert run.out.splitlines()[-6:] == [
        "Resume: wfs --session WFS-notes execute --resume IMPL-1 --output-file F",
        "  (F holds the answer; `-` reads it from stdin. Or --output TEXT, or --skip.)",
        *SETUP,
    ]


@pytest.mark.slow
@needs_bash
@pytest.mark.parametrize("way", ["--agent", "WFS_AGENT", "config.json", "routes"])
def test_each_way_the_pause_names_gives_the_step_to_the_agent(project: Path, way: str) -> None:
    lines = paused(project).out.splitlines()
    (first,) = [i for i, line in enumerate(lines) if line.startswith("No agent is configured;")]
    with_agent, elsewhere = lines[first + 1], lines[first + 2]
    if way == "routes":  # the last line's config, put there as it says, CMD2 failing
        routes = re.search(r"(\{.*\})", lines[first + 3])
        assert routes, lines[first + 3]
        elsewhere = f"put {routes.group(1).replace('CMD2', 'exit 9')} in .workflow/config.json"
    agent = agent_script(project)
    argv = shlex.split(with_agent)
    resume = argv[: argv.index("--agent")]
    if way == "--agent":
        run = resumed(project, [agent if word == "CMD" else word for word in argv])
    elif way == "WFS_AGENT":
        assert "set WFS_AGENT=CMD" in elsewhere
        run = resumed(project, resume, {"WFS_AGENT": agent})
    else:
        config = re.search(r"put (\{.*\}) in \.workflow/config\.json", elsewhere)
        assert config, elsewhere
        text = config.group(1).replace('"CMD"', json.dumps(agent))
        (project / ".workflow" / "config.json").write_text(text)
        run = resumed(project, resume)
    assert (run.code, run.out) == (
        0,
        "IMPL-1: completed → .workflow/WFS-notes/.summaries/IMPL-1-summary.md\n",
    ), run.err
    summary = project / ".workflow/WFS-notes/.summaries/IMPL-1-summary.md"
    assert "Notes written." in summary.read_text(encoding="utf-8")


@pytest.mark.slow
@needs_bash
def test_a_pause_with_an_agent_configured_does_not_ask_for_one(project: Path) -> None:
    assert wfs("init").code == 0
    (project / "plan.json").write_text(json.dumps(PLAN))
    assert wfs("plan", "Notes", "--from", "plan.json").code == 0
    script = project.parent / "checkpoint.sh"
    script.write_text(
        "#!/usr/bin/env bash\ncat > /dev/null\nprintf '## CHECKPOINT REACHED\\nhalf done\\n'\n"
    )
    script.chmod(0o755)
    run = wfs("execute", "--agent", str(script))
    assert run.code == 3
    assert run.out.splitlines()[0] == (
        "Paused: IMPL-1 · Write the notes (task): "
        "checkpoint reached; the agent continues from its partial answer"
    )
    assert "No agent is configured" not in run.out
