"""The documents whose commands must work: docs/walkthrough.md and the examples'
READMEs are run as real bash sessions (rules in runnable_docs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO
from runnable_docs import (
    Command,
    File,
    missing_commands,
    output_matches,
    parse,
    run_doc,
)

WALKTHROUGH = REPO / "docs" / "walkthrough.md"


def test_walkthrough_is_parsed_into_commands_and_files() -> None:
    steps = parse(WALKTHROUGH.read_text(encoding="utf-8"))
    commands = [s for s in steps if isinstance(s, Command)]
    assert [s.name for s in steps if isinstance(s, File)] == [
        "plan.json",
        "planner.sh",
        "readme.txt",
        "reviewer.sh",
    ]
    assert len(commands) >= 25
    texts = [c.text for c in commands]
    for expected in (
        "wfs --version",
        "wfs init",
        'wfs plan "Greeter" --from plan.json',
        'wfs plan "Greeter" --agent ./planner.sh',
        "wfs log IMPL-1",
        "wfs doctor",
    ):
        assert expected in texts
    assert [c.code for c in commands if c.code] == [3, 1, 1]
    assert any(c.text.startswith("wfs execute --resume IMPL-2") for c in commands)


def test_parse_reads_prompts_outputs_exit_codes_and_indented_blocks() -> None:
    doc = (
        "text\n\n"
        "```console\n$ a  # exit 3\nout 1\nout 2\n$ b\n```\n\n"
        "- item\n\n  ```sh file=x.sh\n  echo hi\n  ```\n\n"
        "  ```console\n  $ c\n  ```\n"
        "```bash\n$ not run\n```\n"
    )
    assert parse(doc) == [
        Command(4, "a  # exit 3", 3, ["out 1", "out 2"]),
        Command(7, "b", 0, None),
        File(12, "x.sh", "echo hi\n"),
        Command(17, "c", 0, None),
    ]


def test_output_matching_rules() -> None:
    assert output_matches(["a", "b"], "a\nb\n")
    assert not output_matches(["a", "b"], "a\nb\nc\n")
    assert not output_matches(["a"], "a\nb\n")
    assert output_matches(["...", "b", "..."], "a\nb\nc\nd\n")
    assert output_matches(["...", "b"], "b\n")
    assert output_matches(["Initialized .../x/.workflow"], "Initialized /tmp/p/x/.workflow\n")
    assert not output_matches(["done (...)"], "failed (0.1s)\n")
    assert output_matches(["a.b"], "a.b")
    assert not output_matches(["a.b"], "axb\n")


def test_unknown_commands_are_found_in_the_click_tree() -> None:
    assert missing_commands("wfs --session X task show IMPL-1 && wfs status") == set()
    assert missing_commands("wfs stauts") == {"stauts"}
    assert missing_commands("wfs task shw IMPL-1") == {"shw"}
    assert missing_commands("git add -A && wfs --root d nope x") == {"nope"}
    assert missing_commands("echo wfs-not-a-command") == set()


@pytest.mark.slow
def test_every_command_of_the_walkthrough_works(tmp_path: Path) -> None:
    failures = run_doc(WALKTHROUGH, REPO, cwd=tmp_path, tmp=tmp_path)
    assert not failures, "\n\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize("example", ["offline-demo", "jwt-auth"])
def test_every_command_of_the_example_readme_works(example: str, tmp_path: Path) -> None:
    # They start from the wfs checkout and work in `mktemp -d`, here under tmp_path.
    readme = REPO / "examples" / example / "README.md"
    assert parse(readme.read_text(encoding="utf-8"))
    failures = run_doc(readme, REPO, cwd=REPO, tmp=tmp_path)
    assert not failures, "\n\n".join(failures)
