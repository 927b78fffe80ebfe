"""`wfs execute --dry-run`: what the real run will do, exactly, and what it cannot resolve.

Commands are shown as bash will see them, with every known value written out as a
quoted literal (lists as separate words where the real run passes separate words).
Everything the run cannot resolve is named: unknown `[variables]`, unfilled template
placeholders, inputs that come from a later step, prose where a built-in expects a path,
programs missing from PATH (a CLI tool, a program a bash command starts, the agent's
command), and the steps that go to an agent.
"""

from __future__ import annotations

import re
import shlex
import shutil
from typing import Any

from wfs import git
from wfs.command_forms import PLACEHOLDER, named_path
from wfs.flow import steps as run_steps
from wfs.flow.brief import base_values
from wfs.flow.context import RunContext
from wfs.flow.routing import Handoff
from wfs.flow.shell import TOKEN
from wfs.flow.stepping import fix_budget, hands_off_with
from wfs.flow.variables import (
    known_spelling,
    lookup,
    preview_shell,
    substitute_prose,
    substitute_session,
)
from wfs.flow.work import (
    Check,
    Criterion,
    Step,
    Uninterpretable,
    has_agent_work,
    task_criteria,
    task_steps,
)
from wfs.layout import is_absolute_path, project_path
from wfs.query import one_line
from wfs.rules import TaskSource, refusal
from wfs.tasks import Task

_SHELL_OPERATORS = re.compile(r"[|&;<>()$`\n]")


def dry_run(context: RunContext, task: Task) -> dict[str, Any]:
    """The resolved plan of a task's steps; runs nothing, changes nothing."""
    tid = task["id"]
    path = context.layout.task_file(context.sid, tid)
    where = context.layout.relative(path)
    refused = refusal(TaskSource(where, task, path.name[: -len(".json")], context.layout.root))
    try:
        plan = task_steps(task)
    except Uninterpretable as err:
        refused.append(f"{where}{err.message}")
        plan = []
    values = base_values(context, task)
    handoff = context.routes.for_task(task)
    position = {s.key: n for n, s in enumerate(plan)}
    producers = {s.output: s for s in plan if s.output}
    leaders: dict[str, str] = {}  # step key -> the first step of its hand-off
    for before, step in zip(plan, plan[1:], strict=False):
        if context.scope == "task" and hands_off_with(before, step):
            leaders[step.key] = leaders.get(before.key, before.key)
    rows = []
    agent_before = False  # agent work in an earlier step: a failing check goes back to it
    for n, step in enumerate(plan):
        problems: list[str] = []
        parts = [
            _part(context, handoff, step, text, values, problems) for text in step.parts or ("",)
        ]
        for text in _texts(step):
            for match in TOKEN.finditer(text):
                name = match.group(1)
                head = name.split(".")[0]
                if lookup(name, values)[0]:
                    continue
                producer = producers.get(head)
                if producer is None:
                    problems.append(f"[{name}] is not a known variable: it stays as written")
                elif position[producer.key] >= n:
                    when = "is this step" if producer.key == step.key else "runs later"
                    effect = (
                        "this command fails with `Missing required input`"
                        if text in step.parts
                        else "it stays as written"
                    )
                    problems.append(f"[{name}] is bound by {producer.key}, which {when}: {effect}")
            for match in PLACEHOLDER.finditer(substitute_session(text, context.sid)):
                if (
                    match.group(0) == "{session}"
                    or _is_shell_variable(step, match.group(0))
                    or known_spelling(match.group(0), values)  # {{name}} of a known name
                ):
                    continue
                problems.append(f"placeholder {match.group(0)} is not filled in")
        checks = [_check(context, check, values, producers, problems) for check in step.checks]
        if step.key.startswith("acceptance/"):  # a check of the task: its command must pass
            budget = fix_budget(step) if agent_before else 0
            checks.append({"of": "task", "from": step.pointer, "must": "pass", "fixes": budget})
        agent_before = agent_before or has_agent_work(step)
        on_error = step.spec.get("on_error", "fail")
        rows.append(
            {
                "key": step.key,
                "name": step.name,
                "output": step.output,
                "on_error": on_error,
                "parts": parts,
                **({"checks": checks} if checks else {}),
                "problems": sorted(set(problems), key=problems.index),
                **({"handoff_with": leaders[step.key]} if step.key in leaders else {}),
            }
        )
        if step.output:
            values[step.output] = f"<output of {step.key}>"
    checks = [] if refused and not plan else [_criterion(c) for c in task_criteria(task)]
    return {
        "task": tid,
        "title": task.get("title"),
        "refused": refused,
        "steps": rows,
        "checks": checks,
    }


def _criterion(criterion: Criterion) -> dict[str, Any]:
    """A check the author wrote, and how it is done: `run` (the command) or `agent`
    (verified by the agent, with what made it words rather than a command)."""
    row: dict[str, Any] = {"from": criterion.pointer, "of": criterion.of, "text": criterion.text}
    if criterion.command is not None:
        row.update(how="run", command=criterion.command)
    else:
        row.update(how="agent", why=criterion.why)
    return row


def _check(
    context: RunContext,
    check: Check,
    values: dict[str, Any],
    producers: dict[str, Step],
    problems: list[str],
) -> dict[str, Any]:
    """A check of the step as it will run: its command as bash sees it, what it must
    do, how many fixes a failure gets, and whether the step is reverted at the end."""
    text = substitute_session(check.command, context.sid)
    command = run_steps.classify(text)
    row: dict[str, Any] = {"of": "step", "from": check.pointer, "kind": command.kind}
    row["shell"], refused = preview_shell(command.text, values)
    problems.extend(refused)
    if command.kind == "cli":
        program = command.text.split(None, 1)[0]
        if shutil.which(program) is None:
            problems.append(f"{program} is not on PATH: the check {check.command} will fail")
    elif command.kind == "bash":
        problems += [
            f"{name} is not on PATH: the check {check.command} will fail"
            for name in missing_programs(row["shell"])
        ]
    for match in TOKEN.finditer(text):
        name = match.group(1)
        if name.split(".")[0] in producers and not lookup(name, values)[0]:
            problems.append(
                f"[{name}] in the check {check.command} has no value when it runs: "
                "it fails with `Missing required input`"
            )
    row["phase"] = check.phase
    row["must"] = "fail" if check.must_fail else "pass"
    if check.expected:
        row["expected_failure"] = check.expected
    row["fixes"] = check.fixes
    row["auto_revert"] = check.auto_revert
    if check.auto_revert and not git.is_work_tree(context.layout.root):
        problems.append("auto_revert needs a git work tree: nothing will be reverted here")
    return row


def _texts(step: Step) -> list[str]:
    """Every text of the step the run substitutes: its commands and its prose."""
    texts = list(step.parts)
    for field in ("title", "description", "action"):
        if isinstance(step.spec.get(field), str):
            texts.append(step.spec[field])
    for field in ("modification_points", "logic_flow"):
        items = step.spec.get(field)
        if isinstance(items, list):
            texts.extend(i for i in items if isinstance(i, str))
    return texts


def _is_shell_variable(step: Step, placeholder: str) -> bool:
    """`${HOME}` in a bash command is bash's own business."""
    return placeholder.startswith("${") and any(
        run_steps.classify(text).kind in ("bash", "cli") and placeholder in text
        for text in step.parts
    )


def _part(
    context: RunContext,
    handoff: Handoff | None,
    step: Step,
    text: str,
    values: dict[str, Any],
    problems: list[str],
) -> dict[str, Any]:
    text = substitute_session(text, context.sid)
    command = run_steps.classify(text) if text.strip() else run_steps.Command("agent", "")
    row: dict[str, Any] = {"kind": command.kind}
    if command.kind in ("bash", "cli"):
        row["shell"], refused = preview_shell(command.text, values)
        problems.extend(refused)
        if command.kind == "bash":
            problems += [
                f"{name} is not on PATH: this command fails unless an earlier step installs it"
                for name in missing_programs(row["shell"])
            ]
        if command.kind == "cli":
            program = command.text.split(None, 1)[0]
            if not _SHELL_OPERATORS.search(command.text):  # a plain command line
                row["argv"] = shlex.split(row["shell"])
            if shutil.which(program) is None:
                problems.append(f"{program} is not on PATH: this step will fail")
    elif command.kind in ("read", "glob", "grep"):
        row["argument"] = substitute_prose(command.text, values)
        if command.kind == "read":  # the file it reads, as a path in this project
            row["path"] = run_steps.in_project(
                context.layout.root, run_steps.read_target(row["argument"])[0]
            )
        if command.kind != "grep" and _is_prose(row["argument"]):
            problems.append(
                f"{command.kind.capitalize()}({row['argument']}) holds prose, not a path: "
                "it will fail"
            )
        named = named_path(command)
        if named is not None and is_absolute_path(named.text):
            mapped = project_path(context.layout.root, named.text, named.pattern)
            if mapped is not None:
                problems.append(f"{named.text} is a path on another machine: read as {mapped}")
        why = run_steps.escapes_root(command, context.layout.root)
        if why:
            problems.append(why)
    else:
        row["agent"] = handoff.command if handoff else None
        if handoff is not None:
            problems += [
                f"{name} is not on PATH: the agent `{handoff.command}` cannot start"
                for name in missing_programs(handoff.command)
            ]
        description = step.spec.get("description") or step.spec.get("action") or step.name
        row["brief"] = substitute_prose(command.text or str(description), values)
    return row


# What bash runs itself: no program on PATH is needed for these words.
_BASH_OWN = frozenset(
    "! . : [ [[ ]] { } alias bg bind break builtin caller case cd command compgen complete "
    "compopt continue coproc declare dirs disown do done echo elif else enable esac eval "
    "exec exit export false fc fg fi for function getopts hash help history if in jobs kill "
    "let local logout mapfile popd printf pushd pwd read readarray readonly return select "
    "set shift shopt source suspend test then time times trap true type typeset ulimit "
    "umask unalias unset until wait while".split()
)
_SEPARATORS = frozenset({";", ";;", "&", "&&", "|", "||", "|&", "(", ")"})
# Words after which a command starts (`if cmd`, `then cmd`, `! cmd`).
_LEADING = frozenset({"!", "{", "do", "elif", "else", "if", "then", "time", "until", "while"})
_REDIRECTS = frozenset({"<", ">", ">>", "<&", ">&", "&>", "<>", ">|", "&>>"})


def missing_programs(text: str) -> list[str]:
    """The programs a bash command line starts that are not on PATH: the first word of
    each command, unless bash runs it itself, it names a path (`./greet.sh`) or it is
    not a plain word (`$TOOL`). Read up to a here-document, whose lines are data; a
    line bash could not read names nothing."""
    lexer = shlex.shlex(text.split("<<", 1)[0].replace("\n", " ; "), punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:  # unbalanced quotes: bash will say so
        return []
    missing: list[str] = []
    start, target = True, False
    for word in words:
        if word in _SEPARATORS:
            start, target = True, False
        elif word in _REDIRECTS:
            target = True
        elif target:
            target = False
        elif start:
            if word in _LEADING or ("=" in word.split("/")[0] and not word.startswith("=")):
                continue  # a keyword, or NAME=value, before the command
            start = False
            plain = not any(c in word for c in "/$`'\"*?[]{}~") and not word.isdigit()
            if plain and word not in _BASH_OWN and shutil.which(word) is None:
                missing.append(word)
    return sorted(set(missing), key=missing.index)


def _is_prose(argument: str) -> bool:
    words = argument.strip("'\" ").split()
    return len(words) >= 3 and not any(c in argument for c in "/*.")


def human_lines(plan: dict[str, Any]) -> list[str]:
    # Titles and names are one line each: a newline in one cannot forge a line of its own.
    lines = [f"{plan['task']}: {one_line(plan['title'])} (dry run, nothing is executed)"]
    if plan["refused"]:
        lines.append("  refused: `wfs execute` will not run this task as written:")
        lines.extend(f"    {problem}" for problem in plan["refused"])
    for row in plan["steps"]:
        binds = f" → [{row['output']}]" if row["output"] else ""
        kinds = ", ".join(part["kind"] for part in row["parts"])
        name = one_line(row["name"])
        lines.append(f"  {row['key']} {name} [{kinds}]{binds} on_error={row['on_error']}")
        for part in row["parts"]:
            if "shell" in part:
                lines.append(f"      {part['kind']}: {part['shell']}")
            elif "argument" in part:
                lines.append(f"      {part['kind'].capitalize()}({part['argument']})")
            else:
                who = f"the agent `{part['agent']}`" if part["agent"] else "an agent (pauses)"
                lines.append(f"      to {who}: {part['brief']}")
        lines.extend(check_lines(row.get("checks", [])))
        if row.get("handoff_with"):
            lines.append(f"      (in one hand-off with {row['handoff_with']})")
        lines.extend(f"      ! {problem}" for problem in row["problems"])
    if plan.get("checks"):
        lines.append("  checks the author wrote:")
        for check in plan["checks"]:
            if check["how"] == "run":
                lines.append(f"    run: {one_line(check['command'])} ({check['from']})")
            else:
                lines.append(
                    f"    checked by the agent: {one_line(check['text'])} "
                    f"({check['from']}: {one_line(check['why'])})"
                )
    return lines


def check_lines(checks: list[dict[str, Any]]) -> list[str]:
    """`check (green: must pass; up to 3 fixes, then auto_revert): bash: npm test`."""
    lines = []
    for check in checks:
        terms = [f"{check['phase']}: " if check.get("phase") else ""]
        terms.append(f"must {check['must']}")
        if check.get("expected_failure"):
            terms.append(f" ({one_line(check['expected_failure'])})")
        fixes = check["fixes"]
        after = ""
        if fixes and check["must"] == "pass":
            after = f"; up to {fixes} fix{'es' if fixes != 1 else ''}"
        if check.get("auto_revert"):
            after += ", then auto_revert" if after else "; auto_revert"
        what = "".join(terms) + after
        if check["of"] == "task":
            lines.append(f"      check of the task ({check['from']}): {what}")
        else:
            lines.append(f"      check ({what}): {check['kind']}: {check['shell']}")
    return lines
