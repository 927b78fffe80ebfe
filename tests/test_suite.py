"""The suite's two loops, as README.md shows them: the whole suite (what CI runs) and
the fast loop that leaves out the tests marked slow."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest
from conftest import REPO

FAST = 'python -m pytest -q -m "not slow"'
WHOLE = "python -m pytest -q"


def test_the_readme_shows_the_whole_suite_and_the_fast_loop_and_ci_runs_the_whole() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"^\. \.venv/bin/activate && (python -m pytest.*)$", readme, re.M)
    assert commands == [WHOLE, FAST]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.findall(r"^python -m pytest.*$", ci, re.M) == [WHOLE]


def test_the_slow_marker_is_registered_and_strict() -> None:
    options = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_options = options["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in pytest_options["addopts"].split()
    assert [m.split(":")[0] for m in pytest_options["markers"]] == ["slow"]


@pytest.mark.slow
def test_the_fast_loop_keeps_at_least_a_thousand_tests_and_leaves_some_out() -> None:
    # One collection says both: "2632/4282 tests collected (1650 deselected)".
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-m", "not slow"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    found = re.search(r"^(\d+)/(\d+) tests collected", run.stdout, re.M)
    assert found is not None, run.stdout[-2000:]
    fast, whole = int(found.group(1)), int(found.group(2))
    assert 1000 <= fast < whole
