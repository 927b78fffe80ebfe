"""The brief: everything an agent needs to do a task's step(s) (SPEC §3.15).

One agent gets the whole task: the task JSON, the step(s) to do with every known
`[variable]` resolved, every output gathered so far (`pre_analysis` and earlier steps)
by name, the summaries of the tasks it depends on, the session's paths, the focus
paths, acceptance criteria, target files and artifacts, the agent definition to follow,
the answer contract, and the command that resumes the run.

`as_json` is what an agent command gets on stdin; `as_text` is the same brief for
people and for CLI tools that take a prompt.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wfs import agents_install, store, templating
from wfs.errors import WfsError
from wfs.flow.answer import CONTRACT
from wfs.flow.variables import as_text as value_text
from wfs.flow.variables import substitute_prose, substitute_session
from wfs.flow.work import Step
from wfs.formats import canonical_task
from wfs.index import load_skeletons
from wfs.layout import parse_task_id
from wfs.rules import localized
from wfs.tasks import Task, TaskIndex, depends_on, obj

if TYPE_CHECKING:
    from wfs.flow.engine import Runner

INLINE_LIMIT = 8 * 1024  # a larger value goes to a file, passed by path
FILE_LIMIT = 1024 * 1024  # what such a file keeps at most
SUMMARY_LIMIT = 16 * 1024  # of each dependency summary, in the brief
PROSE_FIELDS = ("title", "description", "action", "phase", "validation", "cli_prompt")
LIST_FIELDS = (
    "modification_points",
    "logic_flow",
    "steps",
    "requirements",
    "acceptance",
    "focus_paths",
)


def resolved_step(
    runner: Runner, step: Step, values: dict[str, Any], command: str | None
) -> dict[str, Any]:
    """One step as the agent reads it: every known `[variable]` resolved."""
    resolved: dict[str, Any] = {"key": step.key, "name": step.name}
    for field in PROSE_FIELDS:
        if isinstance(step.spec.get(field), str):
            resolved[field] = substitute_prose(
                substitute_session(step.spec[field], runner.sid), values
            )
    for field in LIST_FIELDS:
        items = step.spec.get(field)
        if isinstance(items, list):
            resolved[field] = [substitute_prose(value_text(i), values) for i in items]
    if command:
        resolved["command"] = substitute_prose(command, values)
    if step.output:
        resolved["output"] = step.output
    for field in ("output", "output_to"):
        label = step.spec.get(field)
        if isinstance(label, str) and label.strip() and label != step.output:
            resolved["deliverable"] = label  # an output written as prose: what to deliver
    if step.checks:
        resolved["checks"] = [
            {
                "command": substitute_prose(substitute_session(c.command, runner.sid), values),
                **({"phase": c.phase} if c.phase else {}),
                "must": "fail" if c.must_fail else "pass",
                **({"expected_failure": c.expected} if c.expected else {}),
            }
            for c in step.checks
        ]
    return resolved


def build(
    runner: Runner,
    task: Task,
    steps: list[dict[str, Any]],
    outputs: dict[str, tuple[str, str]],
    **extra: Any,
) -> dict[str, Any]:
    """The brief for `steps` (already resolved) of `task`. `outputs`: every value bound
    so far, by name, with the step that bound it. `extra`: `checkpoints`, `fix`."""
    tid = task["id"]
    brief: dict[str, Any] = {
        "task": task,
        "workflow": {"session": runner.sid, "phase": runner.session_phase()},
        "steps": steps,
        "outputs": _outputs(runner, tid, outputs),
        "dependencies": [_cut(dep) for dep in dependencies(runner, task)],
        "paths": session_paths(runner, tid),
        "context": task_context(runner, task),
        "agent": agent_entry(task),
    }
    brief.update((key, value) for key, value in extra.items() if value)
    brief["contract"] = CONTRACT
    brief["resume"] = runner.resume_argv(tid)
    return brief


def _outputs(runner: Runner, tid: str, outputs: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """Each output inline, or written to a file next to the run record when large."""
    shown: dict[str, Any] = {}
    for name, (key, text) in outputs.items():
        data = text.encode("utf-8")
        if len(data) <= INLINE_LIMIT:
            shown[name] = {"from": key, "text": text}
            continue
        path = runner.output_path(tid, name)
        store.write_bytes(path, data[:FILE_LIMIT], durable=False)
        shown[name] = {
            "from": key,
            "path": runner.layout.relative(path),
            "bytes": len(data),
            **({"cut_to": FILE_LIMIT} if len(data) > FILE_LIMIT else {}),
        }
    return shown


def dependencies(runner: Runner, task: Task) -> list[dict[str, Any]]:
    """The tasks this one depends on (a container: its children), with the whole text
    of their summaries (a missing summary, or one leading outside the project root: None)."""
    if not runner.sid:
        return []

    index = TaskIndex(load_skeletons(runner.layout, runner.sid))
    found = []
    for dep in depends_on(task):
        for tid in index.children.get(dep) or [dep]:
            path = runner.summary_path(tid)
            text = read_summary(runner, path)
            if text is None:
                found.append({"task": tid, "summary": None})
            else:
                found.append({"task": tid, "summary": runner.layout.relative(path), "text": text})
    return found


def _cut(dependency: dict[str, Any]) -> dict[str, Any]:
    text = dependency.get("text")
    if text is None or len(text) <= SUMMARY_LIMIT:
        return dependency
    return {**dependency, "text": text[:SUMMARY_LIMIT], "cut_to": SUMMARY_LIMIT}


def read_summary(runner: Runner, path: Path) -> str | None:
    """A summary's text, unless it is missing or leads outside the project root."""
    try:
        runner.layout.check_inside(path)
        raw = store.read_optional(path, runner.layout.relative(path))
    except (OSError, WfsError):
        return None
    return None if raw is None else raw.decode("utf-8", "replace")


def session_paths(runner: Runner, tid: str) -> dict[str, str]:
    """Where things are, relative to the project root (the agent's working directory).
    An inline flow has no task file, and may have no session."""
    place = runner.worktree
    paths = {"project": "."}
    if place is not None:
        # The task works in its own worktree (its working directory); the session's
        # files stay in the main worktree, so they are named in full.
        paths = {"worktree": str(place.path), "branch": place.branch}

    def relative(path: Path) -> str:
        return runner.layout.relative(path) if place is None else str(path.resolve())

    if runner.sid:
        folder = runner.layout.session_dir(runner.sid)
        paths["session"] = relative(folder)
        if parse_task_id(tid):
            paths["task_file"] = relative(runner.layout.task_file(runner.sid, tid))
        paths["summaries"] = relative(folder / ".summaries")
        paths["process"] = relative(folder / ".process")
    paths["run_record"] = relative(runner.record_path(tid))
    return paths


# What the brief's `context` carries besides the lists, each from its seed place
# (wfs/formats.py reads every format into it): (key in the brief, place in the seed form).
NOTES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("description", ("description",)),
    ("inherited", ("context", "inherited")),
    ("shared_context", ("context", "shared_context")),
    ("analysis", ("context", "analysis")),
    ("convergence", ("convergence",)),
    ("files", ("files",)),
    ("cli_execution", ("cli_execution",)),
    ("execution_config", ("meta", "execution_config")),
    ("context_package_path", ("context_package_path",)),
)


def task_context(runner: Runner, task: Task) -> dict[str, Any]:
    """Where to work and what done means, whatever format the task file is in (read in
    the seed form: `acceptance_criteria`, `convergence.criteria`, top-level
    `focus_paths`, `files`, … are where the seed keeps them); artifacts resolved to the
    files that exist. A path written on another machine is given where it is in this
    project (wfs.rules.localized), as the steps read it."""
    seed = localized(canonical_task(task), runner.layout.root)
    context = obj(seed, "context")
    found: dict[str, Any] = {}
    for name, place in NOTES[:1]:
        value = _at(seed, place)
        if value:
            found[name] = value
    for name in ("requirements", "focus_paths", "acceptance"):
        value = context.get(name)
        if value:
            found[name] = value
    target_files = obj(seed, "flow_control").get("target_files")
    if target_files:
        found["target_files"] = target_files
    artifacts = context.get("artifacts")
    if isinstance(artifacts, list) and artifacts:
        found["artifacts"] = [_artifact(runner, a) for a in artifacts if isinstance(a, dict)]
    for name, place in NOTES[1:]:
        value = _at(seed, place)
        if value and not (name == "files" and all(isinstance(f, str) for f in value)):
            found[name] = value  # files given as plain paths are the target files
    return found


def _at(data: Any, place: tuple[str, ...]) -> Any:
    for key in place:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _artifact(runner: Runner, artifact: dict[str, Any]) -> dict[str, Any]:
    entry = dict(artifact)
    path = artifact.get("path")
    if isinstance(path, str) and path.strip():
        entry["files"] = existing_files(runner, substitute_session(path, runner.sid))
    return entry


def existing_files(runner: Runner, pattern: str) -> list[str]:
    """The files `pattern` names (a path or a glob) inside the project root."""
    root = runner.layout.root.resolve()
    if os.path.isabs(pattern) or ".." in Path(pattern).parts:
        return []
    matches = glob.glob(pattern, root_dir=root, recursive=True)
    files = []
    for match in sorted(matches):
        real = (root / match).resolve()
        if root in real.parents and real.is_file():
            files.append(Path(match).as_posix())
    return files


def agent_entry(task: Task) -> dict[str, Any]:
    """The agent named by `meta.agent`, with its definition when wfs ships one."""
    name = obj(task, "meta").get("agent")
    if not isinstance(name, str) or not name:
        return {}
    entry: dict[str, Any] = {"name": name}
    definition = agent_definition(name)
    if definition is not None:
        entry["definition"] = definition
    return entry


def agent_definition(name: str) -> str | None:
    """The shipped definition of `@name`, as text, or None when wfs has none."""
    wanted = name.lstrip("@")
    for source in agents_install.sources("definitions"):
        if source.name == wanted:
            text = agents_install.render_text(source.body, agents_install.TARGETS["claude"])
            return text.strip() + "\n"
    return None


# ---------------------------------------------------------------- as text


def as_text(brief: dict[str, Any], full: bool = True) -> str:
    """The brief for CLI tools that take a prompt, and for people (templates/brief.md.j2):
    at a terminal (`full=False`) the agent definition and the dependency summaries are
    named by path rather than shown whole."""
    return templating.template("brief.md.j2").render(
        task=brief["task"],
        workflow=brief["workflow"],
        fix=brief.get("fix"),
        steps=brief["steps"],
        checkpoints=brief.get("checkpoints", []),
        task_context=brief["context"],
        outputs=brief["outputs"],
        dependencies=brief["dependencies"],
        paths=brief["paths"],
        agent=brief["agent"],
        contract=brief["contract"],
        full=full,
        value_text=value_text,
    )
