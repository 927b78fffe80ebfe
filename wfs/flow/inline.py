"""The inline `[FLOW_CONTROL]` markdown format (seed: Inline Format), run by `wfs flow`.

    1. **load_topic_framework**
       - Action: Load structured topic discussion framework
       - Command: Read(.workflow/WFS-{session}/.brainstorming/guidance-specification.md)
       - Output: topic_framework

Steps run in order and their outputs accumulate as variables; there are no dependencies.
A run that stops keeps a run record per file (`.workflow/.runs/flow-<digest>.json`), and
`wfs flow FILE --resume` continues it.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

from wfs import platform, query
from wfs.errors import WfsError
from wfs.flow import signals
from wfs.flow.engine import Progress, Runner, run_until_stop
from wfs.flow.record import RUNS_DIR, Records, new_record
from wfs.flow.routing import AgentRoutes, agent_routes
from wfs.flow.work import pre_analysis_step
from wfs.layout import Layout
from wfs.lifecycle import init
from wfs.sessions import active_ids

FLOW = "FLOW"

_STEP = re.compile(r"^\s*(\d+)\.\s+\*\*(.+?)\*\*\s*$")
_FIELD = re.compile(
    r"^\s*[-*]\s+(Action|Command|Commands|Output|On_error|On error)\s*:\s*(.*)$", re.IGNORECASE
)


def parse_inline(text: str, where: str) -> list[dict[str, Any]]:
    """pre_analysis-style steps from the markdown list after `[FLOW_CONTROL]`."""
    if "[FLOW_CONTROL]" not in text:
        raise WfsError(f"{where}: no [FLOW_CONTROL] marker")
    body = text.split("[FLOW_CONTROL]", 1)[1]
    steps: list[dict[str, Any]] = []
    for line in body.splitlines():
        step = _STEP.match(line)
        if step:
            steps.append({"step": step.group(2).strip()})
            continue
        field = _FIELD.match(line)
        if field and steps:
            key = field.group(1).lower().replace(" ", "_")
            value = field.group(2).strip()
            if key in ("command", "commands"):
                steps[-1].setdefault("commands", []).append(value)
            elif key == "output":
                steps[-1]["output_to"] = value.strip("`[] ")
            else:
                steps[-1][key] = value
    if not steps:
        raise WfsError(f"{where}: [FLOW_CONTROL] has no numbered steps like `1. **name**`")
    return steps


class FlowRecords(Records):
    """The run record of an inline flow file: one per file, in `.workflow/.runs/`."""

    def __init__(self, layout: Layout, sid: str, file: str) -> None:
        super().__init__(layout, sid)
        self.digest = hashlib.sha256(os.path.abspath(file).encode()).hexdigest()[:16]

    def record_path(self, tid: str) -> Path:
        return self.layout.workflow / RUNS_DIR / f"flow-{self.digest}.json"


class FlowRunner(Runner):
    """Runs the steps of an inline flow file; its run record is kept per file."""

    def __init__(
        self,
        layout: Layout,
        sid: str,
        routes: AgentRoutes,
        progress: Progress | None,
        command_prefix: list[str],
        file: str,
        agent_option: str | None = None,
    ) -> None:
        options = ["--agent", agent_option] if agent_option else []
        records = FlowRecords(layout, sid, file)
        super().__init__(
            layout,
            sid,
            routes,
            progress,
            command_prefix,
            scope="step",
            resume_options=options,
            records=records,
        )
        self.file = file

    def resume_argv(self, tid: str) -> list[str]:
        return [
            *self.command_prefix,
            "flow",
            os.path.abspath(self.file),
            *self.resume_options,
            "--resume",
        ]


def run_flow(
    runner: FlowRunner, specs: list[dict[str, Any]], where: str, resume: dict[str, Any] | None
) -> dict[str, Any]:
    """Run (or, with `resume`, continue) the steps of a flow file in order."""
    task = {"id": FLOW, "title": where}
    plan = [pre_analysis_step(i, spec, f"/{i}") for i, spec in enumerate(specs)]
    if resume is None:
        init(runner.layout)  # the record goes in .workflow/.runs/, which git ignores
        runner.records.save(new_record(FLOW))
    elif not runner.records.record_path(FLOW).exists():
        raise WfsError(f"{where} has no stopped run to resume; run it with `wfs flow {where}`")
    else:
        record = runner.records.load(FLOW)
        if record.get("finished_at"):
            raise WfsError(f"the last run of {where} completed; nothing to resume")
    result, release = run_until_stop(runner, task, resume, plan)
    if release is not None:
        return result
    bound = {s.output: result["values"][s.output] for s in plan if s.output}
    return {
        "status": "completed",
        "task": FLOW,
        "steps": [s.key for s in plan],
        "values": bound,
    }


# `wfs flow`'s exit code by how the run ended; an interrupted run carries its own.
EXIT_CODES = {"completed": 0, "blocked": 1, "refused": 2, "paused": 3}


def run_file(
    layout: Layout,
    requested: str | None,
    file: str,
    specs: list[dict[str, Any]],
    where: str,
    *,
    agent_option: str | None,
    root_option: str | None,
    progress: Progress | None,
    resume: dict[str, Any] | None,
) -> tuple[dict[str, Any], int]:
    """`wfs flow FILE`: run (or, with `resume`, continue) its parsed steps `specs`; the
    result and the exit code.

    The run belongs to the session `requested`, else the first active one, else none.
    SIGINT, SIGTERM and SIGHUP (where the system has it) stop the running step and leave
    the run resumable.
    """
    sid = requested or (active_ids(layout) or [""])[0]
    prefix = query.command_prefix(sid, root_option) if sid else ["wfs"]
    routes = agent_routes(layout, agent_option)
    runner = FlowRunner(layout, sid, routes, progress, prefix, file, agent_option)
    with signals.handled(), platform.run_of_steps():
        result = run_flow(runner, specs, where, resume)
    return result, result.get("exit_code", EXIT_CODES.get(result["status"], 1))
