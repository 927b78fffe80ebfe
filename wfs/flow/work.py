"""What a task asks to be done: its steps, in the order they run (SPEC §3.2 and §3.12).

Every unit of work a task holds becomes a Step, so that "completed" means that all of
it ran:

- `pre_analysis` steps, in array order;
- `implementation_approach` steps (or the flat format's top-level `implementation`,
  or `implementation_steps`), in `depends_on` order, ties kept in array order; a step's
  number is its position; a string step is an agent step with that text;
- an object approach (the v1 form, or another object): the one step `wfs migrate`
  makes of it;
- no implementation steps at all: one agent step for the whole task;
- then the acceptance checks that are commands (the flat format's
  `convergence.verification` and `test.commands`), which run before the task is
  completed and go back to the agent when they fail (`max_iterations`, default 1).

A step with `commands`/`command` runs them in order as its parts; a part that is natural
language or an MCP tool is done by an agent. A step with no command is one agent part.

A step's own checks (`step_checks`) are the commands of its `verification`, run after
the step: test-driven steps say by `tdd_phase` (`red`, `green`, `refactor`) and
`expected_failure` whether the check must fail (red) or pass, and by `test_fix_cycle`
(`max_iterations`, `auto_revert`) how many times a failing check goes back to the agent
and whether the step's changes are reverted when it finally fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from wfs.command_forms import check_form
from wfs.errors import WfsError
from wfs.flow.steps import classify
from wfs.formats import canonical
from wfs.tasks import Task, obj

WHOLE_TASK = "task"
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME_LENGTH = 60
TDD_PHASES = ("red", "green", "refactor")
CYCLE_ITERATIONS = 3  # a `test_fix_cycle` that does not say how many fixes it allows
CHECK_FIXES = 1  # a check that must pass, with no budget written anywhere (as acceptance)


class Check(NamedTuple):
    """A command the author wrote to check a step, run after it."""

    command: str  # as written
    pointer: str  # where it is in the task file (JSON pointer)
    phase: str | None  # the step's tdd_phase: red, green or refactor
    must_fail: bool  # red (expected_failure): passing fails the step
    expected: str | None  # the author's words on how it fails (a string expected_failure)
    fixes: int  # how many times a failing check goes back to the agent
    auto_revert: bool  # when it finally fails, the step's changes are reverted


class Step(NamedTuple):
    key: str  # "pre_analysis/1", "implementation_approach/2", "task"
    name: str  # for people: the step's name or title
    spec: dict[str, Any]  # the step as the engine reads it
    output: str | None  # the variable its result binds to
    pointer: str  # where it is in the task file (JSON pointer)
    parts: tuple[str, ...]  # its commands; empty: the whole step is one agent part
    checks: tuple[Check, ...] = ()  # run after the step (its `verification`)


def task_steps(task: Task) -> list[Step]:
    """Every step of the task, in the order it runs, whatever format its file is in: it
    is read in the seed form first (wfs/formats.py), so the flat format's top-level
    `pre_analysis` and `implementation`, `implementation_steps` and an object
    `implementation_approach` run like the seed's steps. Pointers name the place in the
    file as written."""
    read = canonical(task)
    seed = read.task
    flow = obj(seed, "flow_control")

    def where(canonical_pointer: tuple[str | int, ...]) -> str:
        found = read.origins.get(canonical_pointer, canonical_pointer)
        return "".join(f"/{part}" for part in found)

    steps = []
    _, items = _array(flow, "pre_analysis")
    for i, spec in enumerate(items):
        steps.append(pre_analysis_step(i, spec, where(("flow_control", "pre_analysis", i))))
    taken = {s.output for s in steps if s.output}
    approach = flow.get("implementation_approach")
    if isinstance(approach, list) and approach:
        # Step keys (in run records) name the array the steps come from.
        moved = read.origins.get(("flow_control", "implementation_approach", 0))
        prefix = "implementation_approach"
        if moved is not None and moved[0] != "flow_control":
            prefix = str(moved[0])
        items = approach
    elif approach not in (None, []):
        raise Uninterpretable(
            "/flow_control/implementation_approach",
            "is neither an array of steps nor an object",
        )
    else:
        return with_checks(seed, steps + [_whole_task(seed, taken)] + acceptance_steps(seed, where))
    implementation = [
        _implementation_step(prefix, i, spec, where(("flow_control", "implementation_approach", i)))
        for i, spec in enumerate(items)
    ]
    return with_checks(
        seed,
        steps
        + _in_dependency_order(
            implementation, items, where(("flow_control", "implementation_approach"))
        )
        + acceptance_steps(seed, where),
    )


def with_checks(task: Task, plan: list[Step]) -> list[Step]:
    """The steps with their own checks (see step_checks). A failing check goes back to
    an agent only where an agent did work: in the step or before it."""
    agent_seen = False
    out = []
    for step in plan:
        agent_seen = agent_seen or has_agent_work(step)
        checks = step_checks(task, step)
        if checks and not agent_seen:
            checks = tuple(c._replace(fixes=0) for c in checks)
        out.append(step._replace(checks=checks) if checks else step)
    return out


def has_agent_work(step: Step) -> bool:
    return not step.parts or any(classify(p).kind == "agent" for p in step.parts)


def step_checks(task: Task, step: Step) -> tuple[Check, ...]:
    """The commands of the step's `verification` (a string or a list of them), as checks.

    - The phase is the step's `tdd_phase`, else the task's `meta.tdd_phase`.
    - The check must fail when `expected_failure` is true (or a text saying how), or,
      without `expected_failure`, when the phase is red; otherwise it must pass.
    - A check that must pass goes back to the agent up to N times: N is the first of the
      step's `test_fix_cycle.max_iterations` (3 when the cycle does not say), the step's
      `max_iterations`, the task's `test_fix_cycle.max_iterations` (in `flow_control` or
      at the top; 3 when it does not say), the task's `meta.max_iterations`, 1 for
      `on_error: retry_once`, else 1.
    - `auto_revert: true` in the step's `test_fix_cycle` (else the task's) reverts the
      step's changes when its check finally fails.

    Words that are not a command (`"manual: open the page"`) are for the agent: its brief
    shows them, and nothing runs."""
    spec = step.spec
    written = spec.get("verification")
    if isinstance(written, str):
        found = [(f"{step.pointer}/verification", written)]
    elif isinstance(written, list):
        found = [(f"{step.pointer}/verification/{i}", v) for i, v in enumerate(written)]
    else:
        return ()
    commands = [(pointer, command) for pointer, text in found if (command := check_command(text))]
    if not commands:
        return ()
    meta = obj(task, "meta")
    phase = spec.get("tdd_phase", meta.get("tdd_phase"))
    phase = phase.lower() if isinstance(phase, str) and phase.lower() in TDD_PHASES else None
    expected = spec.get("expected_failure")
    if isinstance(expected, str) and expected.strip():
        must_fail, words = True, expected
    elif isinstance(expected, bool):
        must_fail, words = expected, None
    else:
        must_fail, words = phase == "red", None
    task_cycle = obj(task, "test_fix_cycle") or obj(obj(task, "flow_control"), "test_fix_cycle")
    cycle = spec.get("test_fix_cycle")
    cycle = cycle if isinstance(cycle, dict) else {}
    fixes = next(
        (
            n
            for n in (
                _count(cycle, "max_iterations", CYCLE_ITERATIONS if cycle else None),
                _count(spec, "max_iterations", None),
                _count(task_cycle, "max_iterations", CYCLE_ITERATIONS if task_cycle else None),
                _count(meta, "max_iterations", None),
                1 if spec.get("on_error") == "retry_once" else None,
            )
            if n is not None
        ),
        CHECK_FIXES,
    )
    revert = cycle.get("auto_revert", task_cycle.get("auto_revert")) is True
    return tuple(
        Check(text, pointer, phase, must_fail, words, 0 if must_fail else fixes, revert)
        for pointer, text in commands
    )


def check_command(text: Any) -> str | None:
    """The command a check written as `text` runs, or None when it is a criterion for
    the agent to verify (wfs.command_forms.check_form says which, and why)."""
    if not isinstance(text, str):
        return None
    return check_form(text).command


def _count(holder: dict[str, Any], key: str, default: int | None) -> int | None:
    """A whole number of fixes at `key` (0 or more), else `default`."""
    value = holder.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return default


Where = Callable[[tuple[str | int, ...]], str]


def task_check_texts(task: Task, where: Where) -> list[tuple[str, str]]:
    """Every check of the task as a whole that its author wrote, as (the place in the
    file, the text): `convergence.verification`, `test.commands` (a list, or commands
    by name), the flat format's top-level `verification`, then the acceptance criteria
    (wherever the file keeps them: `convergence.criteria`, `acceptance_criteria`, …)."""
    found: list[tuple[str, str]] = []

    def add(place: tuple[str | int, ...], value: Any) -> None:
        if isinstance(value, str) and value.strip():
            found.append((where(place), value))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                add((*place, i), item)
        elif isinstance(value, dict):
            for key, item in value.items():
                add((*place, key), item)

    add(("convergence", "verification"), obj(task, "convergence").get("verification"))
    commands = obj(task, "test").get("commands")
    if isinstance(commands, (list, dict)):
        add(("test", "commands"), commands)
    verification = task.get("verification")
    if isinstance(verification, (str, list)):
        add(("verification",), verification)
    acceptance = obj(task, "context").get("acceptance")
    if isinstance(acceptance, list):
        add(("context", "acceptance"), acceptance)
    return found


def acceptance_steps(task: Task, where: Where) -> list[Step]:
    """The task's checks (task_check_texts) that are commands, as steps that run last,
    each command once."""
    budget = obj(task, "convergence").get("max_iterations", 1)
    found: list[Step] = []
    seen: set[str] = set()
    for pointer, written in task_check_texts(task, where):
        command = check_command(written)
        if command is None or command in seen:
            continue  # a criterion for the agent (its brief shows it), or run already
        seen.add(command)
        n = len(found) + 1
        spec = {"title": f"Acceptance check {n}", "command": command, "max_iterations": budget}
        name = f"acceptance check {n}"
        found.append(Step(f"acceptance/{n}", name, spec, None, pointer, (command,)))
    return found


class Criterion(NamedTuple):
    """A check the author wrote, and how it is done: run (`command`) or verified by the
    agent (`command` None; `why` says what made it words)."""

    pointer: str  # where it is in the task file
    text: str  # as written
    command: str | None
    why: str
    of: str  # "step" (after a step) or "task" (after all of them)


def task_criteria(task: Task) -> list[Criterion]:
    """Every check the task's author wrote, step by step and then for the task, each with
    whether wfs runs it or the agent verifies it (what `--dry-run` lists)."""
    read = canonical(task)

    def where(place: tuple[str | int, ...]) -> str:
        return "".join(f"/{part}" for part in read.origins.get(place, place))

    texts: list[tuple[str, str, str]] = []
    for step in task_steps(task):
        written = step.spec.get("verification")
        items = written if isinstance(written, list) else [written]
        for i, text in enumerate(items):
            if isinstance(text, str) and text.strip():
                suffix = f"/{i}" if isinstance(written, list) else ""
                texts.append((f"{step.pointer}/verification{suffix}", text, "step"))
    texts += [(p, t, "task") for p, t in task_check_texts(read.task, where)]
    found = []
    for pointer, text, of in texts:
        form = check_form(text)
        found.append(Criterion(pointer, text, form.command, form.why, of))
    return found


class Uninterpretable(WfsError):
    """Part of a task that wfs cannot run as a step; `pointer` says where."""

    def __init__(self, pointer: str, problem: str) -> None:
        super().__init__(f"#{pointer}: {problem}")
        self.pointer = pointer
        self.problem = problem


def _array(flow: dict[str, Any], key: str) -> tuple[str, list[Any]]:
    """`flow_control.<key>` of the task in the seed form."""
    value, base = flow.get(key, []), f"/flow_control/{key}"
    if not isinstance(value, list):
        raise Uninterpretable(base, "must be an array of steps")
    return base, value


def _parts(spec: dict[str, Any], pointer: str) -> tuple[str, ...]:
    commands = spec.get("commands")
    if commands is not None:
        if not isinstance(commands, list) or not all(
            isinstance(c, str) and c.strip() for c in commands
        ):
            raise Uninterpretable(f"{pointer}/commands", "must be an array of command strings")
        return tuple(commands)
    command = spec.get("command")
    if command is None:
        return ()
    if not isinstance(command, str) or not command.strip():
        raise Uninterpretable(f"{pointer}/command", "must be a command string")
    return (command,)


def _output(spec: dict[str, Any], field: str) -> str | None:
    """The variable a step binds; an output written as prose ("5 failing test cases")
    is a label for what the step delivers, which binds nothing (the agent reads it in
    the step)."""
    value = spec.get(field)
    return value if isinstance(value, str) and _VARIABLE.fullmatch(value) else None


def pre_analysis_step(index: int, spec: Any, pointer: str) -> Step:
    if not isinstance(spec, dict):
        raise Uninterpretable(pointer, "a pre_analysis step must be an object")
    name = spec.get("step")
    name = name if isinstance(name, str) and name.strip() else _short(spec) or f"step {index + 1}"
    return Step(
        f"pre_analysis/{index + 1}",
        name,
        spec,
        _output(spec, "output_to"),
        pointer,
        _parts(spec, pointer),
    )


def _implementation_step(prefix: str, index: int, spec: Any, pointer: str) -> Step:
    if isinstance(spec, str) and spec.strip():
        spec = {"description": spec}
    if not isinstance(spec, dict):
        raise Uninterpretable(pointer, "an implementation step must be an object or a string")
    name = _short(spec) or f"step {index + 1}"
    return Step(
        f"{prefix}/{index + 1}", name, spec, _output(spec, "output"), pointer, _parts(spec, pointer)
    )


def _short(spec: dict[str, Any]) -> str:
    """A one-line name from the step's own words."""
    for field in ("title", "step", "action", "phase", "description", "task_description"):
        value = spec.get(field)
        if isinstance(value, str) and value.strip():
            line = " ".join(value.split())
            return line if len(line) <= _NAME_LENGTH else line[: _NAME_LENGTH - 1] + "…"
    return ""


def _whole_task(task: Task, taken: set[str]) -> Step:
    """One agent step for a task that lists no implementation steps."""
    context = obj(task, "context")
    spec: dict[str, Any] = {"title": task.get("title") or task.get("id")}
    description = task.get("description", context.get("description"))
    if isinstance(description, str) and description.strip():
        spec["description"] = description
    for name in ("requirements", "acceptance", "focus_paths"):
        value = context.get(name, task.get(name))
        if value:
            spec[name] = value
    output = "implementation"
    n = 1
    while output in taken:
        n += 1
        output = f"implementation_{n}"
    spec["output"] = output
    return Step(WHOLE_TASK, str(spec["title"]), spec, output, "", ())


def _in_dependency_order(steps: list[Step], items: list[Any], base: str) -> list[Step]:
    """Topological order by `depends_on` (step numbers are positions), stable by position."""
    ordered: list[Step] = []
    state: dict[int, str] = {}

    def visit(i: int) -> None:
        if state.get(i) == "done":
            return
        if state.get(i) == "visiting":
            raise Uninterpretable(f"{base}/{i}/depends_on", "steps depend on each other in a cycle")
        state[i] = "visiting"
        item = items[i]
        deps = item.get("depends_on") if isinstance(item, dict) else None
        for dep in deps if isinstance(deps, list) else []:
            if isinstance(dep, int) and not isinstance(dep, bool) and 1 <= dep <= len(items):
                visit(dep - 1)
        state[i] = "done"
        ordered.append(steps[i])

    for i in range(len(steps)):
        visit(i)
    return ordered
