"""The templates (wfs/templates/) and their one Environment (wfs/templating.py): views,
summaries and briefs are the bytes earlier versions wrote, views are recognized as
generated, the compiled templates are what jinja2 compiles from the sources and a stale
copy is never used, and reads never import jinja2."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import jinja2
import pytest
from conftest import CORPUS, REPO, VIEW_MARK, wfs
from hypothesis import given, settings
from hypothesis import strategies as st

from wfs import render, templating

FIXTURES = Path(__file__).parent / "fixtures" / "views"

# A session that shows every part of both views: kept authored copies, a container
# with subtasks, every status, dependencies in and out of the session, agents,
# acceptance criteria, and titles holding what Markdown, Mermaid and the terminal treat
# specially.
SESSION: dict[str, Any] = {
    "session_id": "WFS-every-part",
    "project": "Every part | of `the` **views** 🚀",
    "type": "feature",
    "current_phase": "IMPLEMENT",
    "status": "active",
    "plan": {
        "overview": "First line.\n\nSecond paragraph with a | pipe and \x1b[2J an escape.",
        "requirements": ["One", "Two | three", None, 4],
    },
}
TASKS: list[dict[str, Any]] = [
    {"id": "IMPL-1", "title": 'A "quoted" title', "status": "completed"},
    {"id": "IMPL-2", "title": "Container", "status": "container"},
    {
        "id": "IMPL-2.1",
        "title": "Sub | with a pipe",
        "status": "active",
        "meta": {"agent": "@code-developer"},
        "context": {"depends_on": ["IMPL-1"], "acceptance": ["works", "is | tested"]},
    },
    {"id": "IMPL-2.2", "title": "Sub `code` *star*", "status": "blocked"},
    {"id": "IMPL-3", "title": "Emoji ✅ → [📋](./x) and tab\there", "status": "pending"},
    {
        "id": "IMPL-4",
        "title": "Control \x07 and \u202e bidi",
        "context": {"depends_on": ["IMPL-2", "IMPL-3", "IMPL-99"]},
    },
    {"id": "IMPL-5", "title": "   spaced\n  out   ", "status": "in_review"},
]
KEPT = {"TODO_LIST.md": ["TODO_LIST.authored.md"], "IMPL_PLAN.md": ["IMPL_PLAN.authored.md"]}


MARK = VIEW_MARK.encode("utf-8")


def test_the_views_are_the_bytes_the_previous_version_wrote_after_the_mark() -> None:
    # tests/fixtures/views/ was written by wfs before the views were templates, and
    # before the mark: a committed plan gains one line when it is rendered again.
    views = render.render_views(SESSION, TASKS, None, KEPT)
    earlier = render.render_views(SESSION, TASKS, None, KEPT, marked=False)
    for name, text in views.items():
        written = (FIXTURES / name).read_bytes()
        assert earlier[name].encode("utf-8") == written, name
        assert text.encode("utf-8") == MARK + written, name
        assert render.is_marked(text) and not render.is_marked(earlier[name])


def _folder(tmp: Path, views: dict[str, str], kept: dict[str, list[str]]) -> Path:
    for copies in kept.values():
        for copy in copies:
            (tmp / copy).write_text("kept\n", encoding="utf-8")
    for name, text in views.items():
        (tmp / name).write_bytes(text.encode("utf-8"))
    return tmp


def test_a_view_of_an_earlier_version_is_wfs_s_only_when_it_is_exactly_its_render(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path, {n: (FIXTURES / n).read_text("utf-8") for n in render.VIEWS}, KEPT)
    assert render.authored_views(folder, SESSION, TASKS) == []
    assert render.stale_views(folder, SESSION, TASKS) == []  # no churn on upgrade
    # The same view for other data (a title changed since) is no render of this plan.
    renamed = [{**TASKS[0], "title": "Renamed"}, *TASKS[1:]]
    assert render.authored_views(folder, SESSION, renamed) == list(render.VIEWS)
    # One byte more is someone's text, however close to wfs's format.
    plan = folder / "IMPL_PLAN.md"
    plan.write_bytes(plan.read_bytes() + b"\n")
    assert render.authored_views(folder, SESSION, TASKS) == ["IMPL_PLAN.md"]


# ---------------------------------------------------------------- recognizing views

odd = st.sampled_from(
    ["a | b", "`x`", "**bold**", "*", "🚀", "\x1b[31m", "\t", "→ [📋](./.task/X.json)", '"']
)
titles = st.lists(odd | st.text(max_size=8), max_size=4).map("".join)
statuses = st.sampled_from(["pending", "active", "completed", "blocked", "in_review", None])


@st.composite
def sessions(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    tasks: list[dict[str, Any]] = []
    for n in range(1, draw(st.integers(0, 5)) + 1):
        context = {"depends_on": [f"IMPL-{draw(st.integers(1, 6))}"]} if n > 1 else {}
        context["acceptance"] = draw(st.lists(titles, max_size=2))
        task = {"id": f"IMPL-{n}", "title": draw(titles), "status": draw(statuses)}
        tasks.append({**task, "context": context, "meta": {"agent": draw(titles)}})
        for m in range(1, draw(st.integers(0, 2)) + 1):
            tasks.append({"id": f"IMPL-{n}.{m}", "title": draw(titles), "status": draw(statuses)})
    session = {
        "session_id": draw(titles),
        "project": draw(titles),
        "status": draw(titles),
        "plan": {"overview": draw(st.text(max_size=30)), "requirements": [draw(titles)]},
    }
    kept = draw(st.sampled_from([{}, KEPT]))
    return session, tasks, kept


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(sessions())
def test_every_rendered_view_is_marked_and_its_earlier_form_recognized(
    case: tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]],
) -> None:
    session, tasks, kept = case
    for name, text in render.render_views(session, tasks, None, kept).items():
        assert render.is_marked(text), (name, text)
    with tempfile.TemporaryDirectory() as tmp:
        earlier = render.render_views(session, tasks, None, kept, marked=False)
        folder = _folder(Path(tmp), earlier, kept)
        assert render.authored_views(folder, session, tasks) == []


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(sessions(), st.text(min_size=1, max_size=30), st.integers(0, 200))
def test_an_earlier_todo_list_with_a_line_of_prose_is_authored(
    case: tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]], note: str, at: int
) -> None:
    session, tasks, kept = case
    earlier = render.render_views(session, tasks, None, kept, marked=False)
    lines = earlier["TODO_LIST.md"].splitlines()
    lines.insert(1 + at % len(lines), "Note to self: " + " ".join(note.split()))
    with tempfile.TemporaryDirectory() as tmp:
        folder = _folder(Path(tmp), {**earlier, "TODO_LIST.md": "\n".join(lines) + "\n"}, kept)
        assert render.authored_views(folder, session, tasks) == ["TODO_LIST.md"]


def test_the_views_of_the_corpus_are_authored() -> None:
    """Real sessions' views, written by the design's origin and by people."""
    if not CORPUS.is_dir():
        pytest.skip(f"the corpus is absent ({CORPUS})")
    found = sorted(CORPUS.rglob("TODO_LIST.md")) + sorted(CORPUS.rglob("IMPL_PLAN.md"))
    assert len(found) >= 20
    for path in found:
        assert not render.is_marked(path.read_text(encoding="utf-8")), path


def test_views_written_by_people_or_other_tools_are_authored(tmp_path: Path) -> None:
    earlier = render.render_views(SESSION, TASKS, marked=False)
    todo, plan = earlier["TODO_LIST.md"], earlier["IMPL_PLAN.md"]
    for name, text in [
        ("TODO_LIST.md", ""),
        ("TODO_LIST.md", "- [ ] **IMPL-1**: buy milk\n"),  # no heading
        ("TODO_LIST.md", todo.replace("## Status Legend", "## Legend")),
        ("TODO_LIST.md", todo.replace(" → [📋]", " [📋]", 1)),
        ("TODO_LIST.md", "<!-- generated by hand -->\n" + todo),
        ("IMPL_PLAN.md", ""),
        ("IMPL_PLAN.md", "# Implementation Plan: x\n\nWritten by an agent.\n"),
        ("IMPL_PLAN.md", plan.replace("- **Session**", "- **Sessions**")),
        ("IMPL_PLAN.md", "Preface\n" + plan),
    ]:
        (tmp_path / name).write_text(text, encoding="utf-8", newline="")
        assert render.authored_views(tmp_path, SESSION, TASKS) == [name], text
        (tmp_path / name).unlink()
    (tmp_path / "TODO_LIST.md").write_bytes(b"\xff not UTF-8\n")
    assert render.authored_views(tmp_path, SESSION, TASKS) == ["TODO_LIST.md"]
    # Line ends that git converts on checkout (core.autocrlf) are not authorship.
    (tmp_path / "TODO_LIST.md").write_bytes(todo.replace("\n", "\r\n").encode("utf-8"))
    assert render.authored_views(tmp_path, SESSION, TASKS) == []


def test_the_marks_a_partial_update_cuts_by_are_what_a_full_render_writes() -> None:
    marks = render.marks()
    plan = render.render_views(SESSION, TASKS)["IMPL_PLAN.md"]
    todo = render.render_views(SESSION, TASKS)["TODO_LIST.md"]
    assert todo.count(marks.legend) == 1
    assert plan.count(marks.overview) == plan.count(marks.graph) == 1
    assert plan.count(marks.criteria) == 1
    graph = plan[plan.index(marks.graph) + len(marks.graph) : plan.index(marks.criteria)]
    # Seven node lines (one opens a subgraph), one subgraph end, then the edges.
    assert graph.count(marks.node_end) == 7
    assert graph.count("\n" + marks.subgraph_end) == 1
    assert graph.index(marks.subgraph_end) < graph.index(" --> ")


# ---------------------------------------------------------------- the Environment


def test_one_environment_renders_views_summaries_briefs_and_editor_files() -> None:
    env = templating.environment()
    assert env is templating.environment()
    assert isinstance(env.undefined, type) and issubclass(env.undefined, jinja2.StrictUndefined)
    for name in ("TODO_LIST.md.j2", "summary.md.j2", "brief.md.j2", "files/agents-md.md"):
        assert templating.template(name).environment is env
    # No module builds an Environment of its own.
    builders = [
        path.relative_to(REPO).as_posix()
        for path in (REPO / "wfs").rglob("*.py")
        if "compiled" not in path.parts
        and re.search(r"\bEnvironment\(", path.read_text(encoding="utf-8"))
    ]
    assert builders == ["wfs/templating.py"]


def test_the_compiled_templates_are_what_jinja2_compiles_from_the_sources(
    tmp_path: Path,
) -> None:
    templating.compile_all(tmp_path)
    fresh = sorted(p.name for p in tmp_path.iterdir())
    assert templating.MANIFEST in fresh and len(fresh) == len(templating.sources()) + 1
    ours = sorted(p.name for p in templating.COMPILED.iterdir() if p.is_file())
    assert ours == fresh, "run python scripts/compile.py"
    for name in fresh:
        assert (templating.COMPILED / name).read_bytes() == (tmp_path / name).read_bytes(), (
            f"{name} is stale: run python scripts/compile.py"
        )


def test_the_environment_loads_the_compiled_templates() -> None:
    loader = templating.environment().loader
    assert isinstance(loader, jinja2.ChoiceLoader)
    assert isinstance(loader.loaders[0], jinja2.ModuleLoader)


@pytest.mark.parametrize(
    "change",
    [
        "an edited template",
        "another jinja2",
        "other options",
        "a new template",
        "no manifest",
    ],
)
def test_a_stale_compiled_copy_is_never_used(tmp_path: Path, change: str) -> None:
    compiled = tmp_path / "compiled"
    templating.compile_all(compiled)
    manifest = compiled / templating.MANIFEST
    current = manifest.read_bytes()
    lines = manifest.read_text(encoding="utf-8").splitlines(keepends=True)
    if change == "an edited template":
        lines[1] = "00000000" + lines[1][8:]
    elif change == "another jinja2":
        lines[0] = lines[0].replace(f"jinja2 {jinja2.__version__} ", "jinja2 0.1 ")
    elif change == "other options":
        lines[0] = lines[0].replace("trim_blocks=True", "trim_blocks=False")
    elif change == "a new template":
        del lines[-1]
    if change == "no manifest":
        manifest.unlink()
    else:
        manifest.write_text("".join(lines), encoding="utf-8")
    assert isinstance(templating.templates_loader(compiled), jinja2.FileSystemLoader)
    manifest.write_bytes(current)
    assert isinstance(templating.templates_loader(compiled), jinja2.ModuleLoader)


READ = (
    "import sys\n"
    "from wfs.cli import main\n"
    "try:\n"
    "    main()\n"
    "finally:\n"
    "    print(sorted(m for m in sys.modules if m.split('.')[0] == 'jinja2'), file=sys.stderr)\n"
)


@pytest.mark.slow
def test_reads_never_import_jinja2(project: Path) -> None:
    tasks = '[{"id": "IMPL-1", "title": "One"}, {"id": "IMPL-2", "title": "Two"}]'
    assert wfs("init", "--no-git").code == 0
    assert wfs("plan", "Demo", "--from", "-", input=tasks).code == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFS_")}
    reads = (["status"], ["next"], ["task", "show", "IMPL-2"], ["task", "show", "IMPL-2", "--json"])
    for args in (*reads, ["status", "--json"]):
        for _ in range(2):  # before and after the index is saved
            proc = subprocess.run(
                [sys.executable, "-c", READ, *args],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert (proc.returncode, proc.stderr) == (0, "[]\n"), args


# ---------------------------------------------------------------- summaries and briefs

SUMMARY_TASK: dict[str, Any] = {
    "id": "IMPL-3",
    "title": "Build | the `thing`",
    "meta": {"agent": "@code-developer"},
}
SUMMARY_STEPS: list[dict[str, Any]] = [
    {"key": "pre_analysis/1", "name": "Read | docs", "status": "done", "elapsed": 0.1234},
    {
        "key": "impl/1",
        "name": "Write",
        "status": "done",
        "how": "by the agent",
        "elapsed": 12,
        "bind": "notes",
        "output": "has ``` fences ```` inside\n\x1b[31mred\n",
    },
    {
        "key": "impl/2",
        "name": "Long",
        "status": "done",
        "bind": "log",
        "output": "line\n" * 60,
    },
    {"key": "impl/3", "name": "Skipped", "status": "skipped", "bind": "never", "elapsed": None},
]
BRIEF: dict[str, Any] = {
    "task": {"id": "IMPL-3", "title": "Build | the `thing`"},
    "workflow": {"session": "WFS-x", "phase": "IMPLEMENT"},
    "fix": {
        "iteration": 1,
        "of": 3,
        "step": "impl/2",
        "command": "pytest -q",
        "error": "exit code 1",
        "stdout": ["F", "1 failed"],
    },
    "steps": [
        {
            "key": "impl/1",
            "name": "Write",
            "description": "Write it",
            "action": "Write",
            "cli_prompt": "do it",
            "modification_points": ["a.py: b", "c.py"],
            "output": "notes",
        },
        {"key": "impl/2", "name": "Check", "command": "pytest -q", "steps": ["run"]},
    ],
    "checkpoints": ["## CHECKPOINT REACHED\nhalf done\n"],
    "context": {
        "requirements": ["R1", {"k": "v"}],
        "acceptance": ["passes"],
        "focus_paths": ["src/"],
        "artifacts": [{"type": "doc", "path": "docs/x.md", "files": []}, {"path": "y"}],
    },
    "outputs": {
        "notes": {"from": "impl/1", "text": "short\n"},
        "big": {"from": "impl/0", "path": ".workflow/x/out.txt", "bytes": 9000},
    },
    "dependencies": [
        {"task": "IMPL-1", "summary": None},
        {"task": "IMPL-2", "summary": ".summaries/IMPL-2-summary.md", "text": "# IMPL-2\n"},
    ],
    "paths": {"project": ".", "session": ".workflow/WFS-x", "task_file": ""},
    "agent": {"name": "@code-developer", "definition": "You write code.\n"},
    "contract": "Answer in plain text.",
}


def test_summaries_and_briefs_are_the_bytes_the_previous_version_wrote() -> None:
    from wfs.flow.brief import as_text
    from wfs.flow.summary import render_summary

    links = {"log": "../.runs/IMPL-3.log.txt"}
    cases = {
        "summary.md": render_summary(SUMMARY_TASK, SUMMARY_STEPS, ["a.py", "b c.py"], links),
        "summary-empty.md": render_summary({"id": "IMPL-9"}, [], []),
        "brief.md": as_text(BRIEF),
        "brief-terminal.md": as_text(BRIEF, full=False),
        "brief-one-step.md": as_text({**BRIEF, "steps": BRIEF["steps"][:1], "fix": None}),
    }
    for name, text in cases.items():
        written = (FIXTURES / name).read_bytes()
        if name.startswith("summary"):  # which now open with their mark
            tid = "IMPL-9" if name == "summary-empty.md" else "IMPL-3"
            mark = f"<!-- generated by wfs: the summary of {tid}, written when it completed -->\n"
            written = mark.encode("utf-8") + written
        assert text.encode("utf-8") == written, name
    kept = render_summary(SUMMARY_TASK, [], [], kept=["IMPL-3-summary.authored.md"])
    assert kept.splitlines()[1:5] == [
        "# IMPL-3: Build | the `thing`",
        "",
        "> Kept as written before wfs wrote this summary: "
        "[IMPL-3-summary.authored.md](./IMPL-3-summary.authored.md)",
        "",
    ]
