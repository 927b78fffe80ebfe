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
from typing import Any

from wfs import store, templating
from wfs.errors import WfsError
from wfs.flow.answer import CONTRACT
from wfs.flow.context import RunContext
from wfs.flow.variables import as_text as value_text
from wfs.flow.variables import substitute_prose, substitute_session, task_values
from wfs.flow.work import Step, task_criteria
from wfs.formats import canonical_task
from wfs.index import load_skeletons
from wfs.layout import parse_task_id
from wfs.rules import localized
from wfs.tasks import Task, TaskIndex, depends_on, obj

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
# What the engine reads of a step itself (how it runs, what it binds, its checks), or
# the brief shows above; any other field of the step reaches the agent as written.
STEP_CONSUMED = frozenset(
    {*PROSE_FIELDS, *LIST_FIELDS, "step", "name", "command", "commands", "output", "output_to"}
    | {"depends_on", "on_error", "success_criteria", "timeout", "verification", "tdd_phase"}
    | {"expected_failure", "test_fix_cycle", "max_iterations"}
)


def resolved_step(
    context: RunContext, step: Step, values: dict[str, Any], command: str | None
) -> dict[str, Any]:
    """One step as the agent reads it: every known `[variable]` resolved."""
    resolved: dict[str, Any] = {"key": step.key, "name": step.name}
    for field in PROSE_FIELDS:
        if isinstance(step.spec.get(field), str):
            resolved[field] = substitute_prose(
                substitute_session(step.spec[field], context.sid), values
            )
    for field in LIST_FIELDS:
        items = step.spec.get(field)
        if isinstance(items, list):
            resolved[field] = [substitute_prose(value_text(i), values) for i in items]
    if command:
        resolved["command"] = substitute_prose(command, values)
    extra = _written(step.spec, STEP_CONSUMED)
    if extra:
        resolved["fields"] = extra  # what else the author wrote in the step (`target`, …)
    if step.output:
        resolved["output"] = step.output
    for field in ("output", "output_to"):
        label = step.spec.get(field)
        if isinstance(label, str) and label.strip() and label != step.output:
            resolved["deliverable"] = label  # an output written as prose: what to deliver
    if step.checks:
        resolved["checks"] = [
            {
                "command": substitute_prose(substitute_session(c.command, context.sid), values),
                **({"phase": c.phase} if c.phase else {}),
                "must": "fail" if c.must_fail else "pass",
                **({"expected_failure": c.expected} if c.expected else {}),
            }
            for c in step.checks
        ]
    return resolved


def build(
    context: RunContext,
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
        "workflow": {"session": context.sid, "phase": context.session_phase()},
        "steps": steps,
        "outputs": _outputs(context, tid, outputs),
        "dependencies": [_cut(dep) for dep in dependencies(context, task)],
        "paths": session_paths(context, tid),
        "context": task_context(context, task),
        "agent": agent_entry(task),
    }
    brief.update((key, value) for key, value in extra.items() if value)
    brief["contract"] = CONTRACT
    brief["resume"] = context.resume_argv(tid)
    return brief


def _outputs(context: RunContext, tid: str, outputs: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """Each output inline, or written to a file next to the run record when large."""
    shown: dict[str, Any] = {}
    for name, (key, text) in outputs.items():
        data = text.encode("utf-8")
        if len(data) <= INLINE_LIMIT:
            shown[name] = {"from": key, "text": text}
            continue
        path = context.records.output_path(tid, name)
        store.write_bytes(path, data[:FILE_LIMIT], durable=False)
        shown[name] = {
            "from": key,
            "path": context.layout.relative(path),
            "bytes": len(data),
            **({"cut_to": FILE_LIMIT} if len(data) > FILE_LIMIT else {}),
        }
    return shown


def dependencies(context: RunContext, task: Task) -> list[dict[str, Any]]:
    """The tasks this one depends on (a container: its children), with the whole text
    of their summaries (a missing summary, or one leading outside the project root: None)."""
    needed = depends_on(task)
    if not context.sid or not needed:
        return []  # no session's index to read
    index = TaskIndex(load_skeletons(context.layout, context.sid))
    found = []
    for dep in needed:
        for tid in index.children.get(dep) or [dep]:
            path = context.records.summary_path(tid)
            text = read_summary(context, path)
            if text is None:
                found.append({"task": tid, "summary": None})
            else:
                found.append({"task": tid, "summary": context.layout.relative(path), "text": text})
    return found


def _cut(dependency: dict[str, Any]) -> dict[str, Any]:
    text = dependency.get("text")
    if text is None or len(text) <= SUMMARY_LIMIT:
        return dependency
    return {**dependency, "text": text[:SUMMARY_LIMIT], "cut_to": SUMMARY_LIMIT}


def read_summary(context: RunContext, path: Path) -> str | None:
    """A summary's text, unless it is missing or leads outside the project root."""
    try:
        context.layout.check_inside(path)
        raw = store.read_optional(path, context.layout.relative(path))
    except (OSError, WfsError):
        return None
    return None if raw is None else raw.decode("utf-8", "replace")


def session_paths(context: RunContext, tid: str) -> dict[str, str]:
    """Where things are, relative to the project root (the agent's working directory).
    An inline flow has no task file, and may have no session."""
    place = context.worktree
    paths = {"project": "."}
    if place is not None:
        # The task works in its own worktree (its working directory); the session's
        # files stay in the main worktree, so they are named in full.
        paths = {"worktree": str(place.path), "branch": place.branch}

    def relative(path: Path) -> str:
        return context.layout.relative(path) if place is None else str(path.resolve())

    if context.sid:
        folder = context.layout.session_dir(context.sid)
        paths["session"] = relative(folder)
        if parse_task_id(tid):
            paths["task_file"] = relative(context.layout.task_file(context.sid, tid))
        paths["summaries"] = relative(folder / ".summaries")
        paths["process"] = relative(folder / ".process")
    paths["run_record"] = relative(context.records.record_path(tid))
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


def task_context(run: RunContext, task: Task) -> dict[str, Any]:
    """Where to work and what done means, whatever format the task file is in (read in
    the seed form: `acceptance_criteria`, `convergence.criteria`, top-level
    `focus_paths`, `files`, … are where the seed keeps them); artifacts resolved to the
    files that exist. A path written on another machine is given where it is in this
    project (wfs.rules.localized), as the steps read it."""
    seed = localized(canonical_task(task), run.layout.root)
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
        found["artifacts"] = [
            _artifact(run, a if isinstance(a, dict) else {"path": a})
            for a in artifacts
            if isinstance(a, dict) or (isinstance(a, str) and a.strip())  # a path alone
        ]
    for name, place in NOTES[1:]:
        value = _at(seed, place)
        if value and not (name == "files" and all(isinstance(f, str) for f in value)):
            found[name] = value  # files given as plain paths are the target files
    fields = authored_fields(seed)
    if fields:
        found["fields"] = fields
    verify = [
        {"text": c.text, "from": c.pointer}
        for c in task_criteria(task)
        if c.command is None and not c.pointer.startswith(ACCEPTANCE_PLACES)
    ]
    if verify:
        found["verify"] = verify
    return found


# What wfs reads of a task itself (its steps, its checks, its place in the plan) or shows
# in a part of the brief of its own; every other field reaches the agent as it is
# (docs/formats.md, "Task fields": the table of every field, which a test holds to these).
CONSUMED = frozenset(
    {"id", "task_id", "title", "status", "meta", "context", "flow_control", "execution"}
    | {name for name, place in NOTES if len(place) == 1}
)
# Bookkeeping of the tool that wrote the file, not the author's word: its format tag, and
# the times and history of an earlier run (the brief says what to do, not what was).
IGNORED = frozenset(
    {"_meta", "$schema", "status_history", "completed_at", "actual_duration", "executed_at"}
)
CONSUMED_META = frozenset(
    {"type", "agent", "execution_config", "depends_on", "dependencies", "blocked_by"}
    | {"focus_paths", "tdd_phase", "max_iterations"}
)
CONSUMED_CONTEXT = frozenset(
    {"depends_on", "focus_paths", "requirements", "acceptance", "artifacts", "parent"}
    | {"inherited", "shared_context", "analysis", "dependencies", "blocked_by"}
)
CONSUMED_FLOW = frozenset(
    {"pre_analysis", "implementation_approach", "implementation_steps", "target_files"}
    | {"test_fix_cycle"}
)
# Acceptance criteria are in the brief's Acceptance part, wherever the file keeps them.
ACCEPTANCE_PLACES = ("/context/acceptance", "/convergence/criteria", "/acceptance")


def authored_fields(seed: Task) -> dict[str, Any]:
    """Every field of the task (in the seed form) that wfs does not consume itself, under
    its own name, unknown ones included: `goal`, `action`, `read_first`, `objective`,
    `deliverables`, `files_to_create`, `test`, `rationale`, … Nothing the author wrote is
    dropped on the way to the agent. What is left of `meta`, `context` and
    `flow_control` comes under those names."""
    fields = _written(seed, CONSUMED | IGNORED)
    if isinstance(fields.get("verification"), (str, list)):
        del fields["verification"]  # the task's checks: run, or listed for the agent
    for name, consumed in (
        ("meta", CONSUMED_META),
        ("context", CONSUMED_CONTEXT),
        ("flow_control", CONSUMED_FLOW),
    ):
        rest = _written(obj(seed, name), consumed)
        if rest:
            fields[name] = rest
    return fields


def _written(holder: dict[str, Any], consumed: frozenset[str]) -> dict[str, Any]:
    """The fields of `holder` that hold something and are not `consumed`."""
    return {k: v for k, v in holder.items() if k not in consumed and v not in (None, "", [], {})}


def _at(data: Any, place: tuple[str, ...]) -> Any:
    for key in place:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _artifact(context: RunContext, artifact: dict[str, Any]) -> dict[str, Any]:
    entry = dict(artifact)
    path = artifact.get("path")
    if isinstance(path, str) and path.strip():
        entry["files"] = existing_files(context, substitute_session(path, context.sid))
    return entry


def existing_files(context: RunContext, pattern: str) -> list[str]:
    """The files `pattern` names (a path or a glob) inside the project root."""
    root = context.layout.root.resolve()
    if os.path.isabs(pattern) or ".." in Path(pattern).parts:
        return []
    matches = glob.glob(pattern, root_dir=root, recursive=True)
    files = []
    for match in sorted(matches):
        real = (root / match).resolve()
        if root in real.parents and real.is_file():
            files.append(Path(match).as_posix())
    return files


def base_values(context: RunContext, task: Task) -> dict[str, Any]:
    """The values a task's steps start with: its fields, whatever format its file is in,
    its session's id and folder, and the summaries of the tasks it depends on."""
    folder = context.layout.relative(context.records.session_dir) if context.sid else None
    values = task_values(canonical_task(task), context.sid, folder)
    if context.sid:
        texts = [d["text"] for d in dependencies(context, task) if "text" in d]
        values["dependency_summaries"] = "\n".join(texts)
    return values


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
    """The role of `@name` (agents/roles/, the part of its shipped definition about its
    work: what an agent started with a brief needs, and nothing about editors), as
    text; None when wfs ships none."""
    from wfs import agents_install  # deferred: only a brief for an agent reads its role

    roles = {path.stem: path for path in (agents_install.agents_dir() / "roles").glob("*.md")}
    path = roles.get(name.lstrip("@"))
    if path is None:
        return None
    body = path.read_text(encoding="utf-8")
    return agents_install.render_text(body, agents_install.TARGETS["claude"]).strip() + "\n"


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
