"""Planning with an agent: `wfs plan TOPIC`, `wfs plan --from-doc FILE.md` and
`wfs task expand ID`.

wfs renders a planning brief (wfs/templates/plan-brief.md.j2, expand-brief.md.j2) and
hands it to the planning agent: the command `.workflow/config.json` maps
`@action-planning-agent` to, else its `default`; `--agent CMD` or `WFS_AGENT` win when
given. The agent answers with the plan in a fenced ```json block, or with the path of a
file it wrote. The plan goes through the very writer of `--from` (all or nothing); when
it is refused, its problems (`file#/pointer: rule: message`) go back to the agent in a
fix brief (plan-fix.md.j2), up to a number of rounds. Nothing is written until a plan
is accepted.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from wfs import git, jsonio, store
from wfs.errors import BusyError, ProblemsError, WfsError
from wfs.flow import steps as run_steps
from wfs.flow.routing import agent_routes
from wfs.layout import Layout
from wfs.resources import read_text
from wfs.sessions import load_session, session_ids, shown_status
from wfs.tasks import session_topic
from wfs.templating import template
from wfs.text import for_terminal

T = TypeVar("T")

PLANNER = "@action-planning-agent"
MAX_ROUNDS = 3
LISTED_FILES = 200  # tracked files shown in the brief; the rest are counted
README_LINES = 40
EXAMPLE_PLAN = "plan.example.json"  # in schemas/, shipped in the wheel
DRAFTS = ".cache"  # under .workflow/, ignored by git: the last refused answer

_FENCED_JSON = re.compile(
    r"^[ \t]*```+[ \t]*json[^\n]*\n(.*?)^[ \t]*```+[ \t]*$", re.S | re.M | re.I
)
_README = re.compile(r"readme(\.(md|markdown|rst|txt))?", re.I)


class Request(NamedTuple):
    """What to plan: a topic, or a requirements document (its text and name)."""

    topic: str
    document: str | None = None
    document_name: str | None = None


class PlanningFailed(WfsError):
    """The agent gave no acceptable answer in the rounds allowed; nothing was written.
    `problems`: the last answer's problem lines; `draft`: where its plan was kept (the
    project-relative path), or None when it held none."""

    def __init__(self, message: str, problems: list[str], draft: str | None) -> None:
        super().__init__(message, exit_code=1)
        self.problems = problems
        self.draft = draft


def planner_command(layout: Layout, option: str | None) -> str | None:
    """The planning agent's command: `option` (--agent) or WFS_AGENT, else the config's
    route for @action-planning-agent, else its default; None when there is none."""
    routes = agent_routes(layout, option)
    if routes.override:
        return routes.override
    for key in (PLANNER, PLANNER.removeprefix("@")):
        if key in routes.by_name:
            return routes.by_name[key]
    return routes.default


def no_agent_message(layout: Layout, retry: str, alternatives: str) -> str:
    """Why planning with an agent cannot start, and each way on, said whole (the docs
    are not where a user installed wfs). `retry`: the command again with --agent;
    `alternatives`: what works without an agent."""
    config = layout.relative(layout.workflow / "config.json")
    return (
        f"no planning agent is configured: give one with `{retry}` (a command that reads "
        f'the brief on stdin and answers on stdout, such as "claude -p"), set WFS_AGENT, '
        f'or map "{PLANNER}" (or "default") to a command in {config} '
        f'(`{{"agents": {{"{PLANNER}": "claude -p"}}}}`); {alternatives}'
    )


# ---------------------------------------------------------------- the briefs


def repository(layout: Layout) -> dict[str, Any]:
    """The project's tracked files (up to LISTED_FILES, and how many more) and the
    head of its README, for a brief."""
    files: list[str] | None = None
    if git.is_work_tree(layout.root):
        found = git.run(layout.root, "ls-files", "-z")
        if found.code == 0:
            files = [os.fsdecode(n) for n in found.out.split(b"\0") if n]
    readme = None
    try:
        names = sorted(os.listdir(layout.root))
    except OSError:
        names = []
    for name in names:
        path = layout.root / name
        if _README.fullmatch(name) and path.is_file():
            try:
                lines = store.read_text(path, name).splitlines()
            except WfsError:
                continue  # a README out of the project, or too large: the brief goes without
            readme = {
                "name": name,
                "head": "\n".join(lines[:README_LINES]),
                "more": max(len(lines) - README_LINES, 0),
            }
            break
    return {
        "root": str(layout.root),
        "files": None if files is None else files[:LISTED_FILES],
        "more_files": 0 if files is None else max(len(files) - LISTED_FILES, 0),
        "readme": readme,
    }


def sessions(layout: Layout) -> list[dict[str, Any]]:
    """Each session of the project: id, status, topic and task ids."""
    rows = []
    for sid in session_ids(layout):
        data = load_session(layout, sid)
        folder = layout.session_dir(sid) / ".task"
        try:
            tasks = sorted(n[: -len(".json")] for n in os.listdir(folder) if n.endswith(".json"))
        except OSError:
            tasks = []
        rows.append(
            {
                "id": sid,
                "status": shown_status(layout, sid, data),
                "topic": session_topic(data) or "",
                "tasks": tasks,
            }
        )
    return rows


def _formats() -> dict[str, str]:
    """The task format's part of a planning brief: the example plan (the schemas are
    named by the command that prints them, `wfs schema task`, not copied: they were
    most of the brief, and of every fix round)."""
    return {"example": read_text("schemas", EXAMPLE_PLAN).strip()}


def plan_brief(layout: Layout, request: Request, existing: str | None) -> str:
    """The planning brief for `request` (`existing`: the topic's session, which the
    plan updates)."""
    rows = sessions(layout)
    return template("plan-brief.md.j2").render(
        request=request,
        planner=PLANNER,
        repo=repository(layout),
        sessions=rows,
        existing=next((row for row in rows if row["id"] == existing), None),
        **_formats(),
    )


def expand_brief(layout: Layout, sid: str, task: dict[str, Any], siblings: list[Any]) -> str:
    """The brief that asks the planning agent to split `task` of session `sid` into
    subtasks (`siblings`: (id, title, status) of the session's other tasks)."""
    return template("expand-brief.md.j2").render(
        sid=sid,
        task=task,
        task_json=jsonio.dumps(task).decode("utf-8").strip(),
        siblings=siblings,
        planner=PLANNER,
        repo=repository(layout),
        **_formats(),
    )


def fix_brief(
    what: str, problems: list[str], answered: str | None, brief: str, round: int, rounds: int
) -> str:
    """The brief of the next round: the problems of the last answer, that answer, and
    the first brief again (the agent may start afresh each round)."""
    return template("plan-fix.md.j2").render(
        what=what, problems=problems, answered=answered, brief=brief, round=round, rounds=rounds
    )


# ---------------------------------------------------------------- the answer


def answer_document(answer: str, root: Path, name: str) -> tuple[bytes, str]:
    """The JSON the agent answered: its last fenced ```json block (named `name`), the
    answer itself when it is bare JSON, else the file named on its last non-empty line
    (named by that path). That file is one of the project's (the one confinement check
    of paths that come from data, wfs.flow.steps.confined) and is read by the guarded
    reader, whose size limit is checked before a byte is read."""
    blocks = _FENCED_JSON.findall(answer)
    if blocks:
        return blocks[-1].encode("utf-8"), name
    bare = answer.strip()
    if bare.startswith(("{", "[")):
        return bare.encode("utf-8"), name
    lines = [line.strip() for line in answer.splitlines() if line.strip()]
    if not lines:
        raise WfsError("the answer is empty: answer with the plan in a ```json block")
    named = lines[-1].strip("`'\" ")
    shown = for_terminal(named)[:200]
    path: Path | None = None
    try:
        path = run_steps.confined(root, named) if named and len(named) < 4096 else None
        found = path is not None and path.is_file()
    except OSError:  # a name too long for a file, a loop
        found = False
    except WfsError as err:
        raise WfsError(
            f"the answer names the file {shown!r}: {err.message}; refused, nothing was read"
        ) from None
    if path is None or not found:
        raise WfsError(
            "the answer holds no ```json block, and its last line names no file that exists: "
            f"{for_terminal(lines[-1])[:200]!r}"
        )
    return store.read_file(path, shown), named


def problem_lines(err: WfsError) -> list[str]:
    """What was wrong with an answer, one problem a line."""
    if isinstance(err, ProblemsError):
        return [str(p) for p in err.problems if getattr(p, "severity", "error") == "error"]
    return err.message.splitlines()


def save_draft(layout: Layout, name: str, raw: bytes) -> str | None:
    """Keep the last refused plan where git does not see it; its path, or None when
    there is no .workflow/ to keep it in (nothing is created for it)."""
    if not layout.workflow.is_dir():
        return None
    path = layout.workflow / DRAFTS / name
    store.make_dirs(path.parent)
    store.write_bytes(path, raw)
    return layout.relative(path)


def converse(
    layout: Layout,
    command: str,
    brief: str,
    accept: Callable[[bytes, str], T],
    *,
    what: str,
    name: str,
    rounds: int,
    progress: Callable[[str], None],
) -> tuple[T, int]:
    """Ask the agent `command` with `brief` until `accept` takes its answer (and writes
    it, all or nothing), at most `rounds` times; (what `accept` returned, the rounds
    used). `what`: "plan" or "subtask array"; `name`: what its problems are named by."""
    if rounds < 1:
        raise WfsError(f"--max-rounds must be at least 1, got {rounds}")
    current = brief
    problems: list[str] = []
    raw: bytes | None = None
    for number in range(1, rounds + 1):
        progress(f"round {number} of {rounds}: the planning agent is writing the {what}…")
        result = run_steps.run_agent(command, current, layout.root)
        if result.exit_code != 0:
            tail = (result.error.strip().splitlines() or [""])[-1]
            raise WfsError(
                f"the planning agent failed (exit code {result.exit_code})"
                + (f": {tail}" if tail else "")
                + "; nothing was written",
                exit_code=1,
            )
        raw = None
        try:
            raw, where = answer_document(result.output, layout.root, name)
            return accept(raw, where), number
        except BusyError:
            raise
        except WfsError as err:
            if err.exit_code != 2:
                raise
            problems = problem_lines(err)
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        if number < rounds:
            them = "them" if len(problems) != 1 else "it"
            progress(f"round {number} of {rounds}: {count}; sending {them} back to the agent")
            answered = None if raw is None else raw.decode("utf-8", "replace").strip()
            current = fix_brief(what, problems, answered, brief, number + 1, rounds)
    draft = None if raw is None else save_draft(layout, f"{Path(name).stem}-draft.json", raw)
    raise PlanningFailed(
        f"the planning agent gave no valid {what} in {rounds} round"
        f"{'s' if rounds != 1 else ''}; nothing was written. The last problems:\n"
        + "\n".join(f"  {line}" for line in problems),
        problems,
        draft,
    )
