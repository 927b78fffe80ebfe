"""What a run is, for the parts that read about it: `RunContext`.

The brief, the dry run, `wfs log` and an inline flow need to know where the run works
and how it goes on (the project, the session, the agent routes, where its records are,
the task's worktree, the command that resumes a task), not how it claims, steps or
lands. They get this small context, never the engine (wfs.flow.engine.Runner), which
makes one per run and a new one when the task moves into a worktree of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from wfs.flow.record import Records
from wfs.flow.routing import AgentRoutes
from wfs.flow.worktrees import Place
from wfs.index import answers
from wfs.layout import Layout

NO_ROUTES = AgentRoutes(None, {}, None)


def resume_command(prefix: list[str], options: list[str]) -> Callable[[str], list[str]]:
    """How a task's run is resumed, as an argv: `prefix` (how wfs is called again),
    `execute`, the `options` of the run that a resumed run needs too, `--resume ID`."""

    def argv(tid: str) -> list[str]:
        return [*prefix, "execute", *options, "--resume", tid]

    return argv


class RunContext(NamedTuple):
    """Where a run works and how it goes on (see the module's docstring). A NamedTuple:
    making a frozen dataclass took every command that imports the engine over 1 ms."""

    layout: Layout
    sid: str
    records: Records
    resume: Callable[[str], list[str]]  # the argv that resumes the run of a task
    routes: AgentRoutes = NO_ROUTES
    scope: str = "task"  # "task": consecutive agent steps in one hand-off; "step": one each
    worktree: Place | None = None  # the task's own worktree (--jobs N), else none

    @property
    def workdir(self) -> Path:
        """Where the task's steps and agent work."""
        return self.worktree.path if self.worktree is not None else self.layout.root

    def resume_argv(self, tid: str) -> list[str]:
        return self.resume(tid)

    def session_phase(self) -> str | None:
        """The session's phase as its file says it, else derived from its tasks (files
        other tools wrote have none); None outside a session."""
        if not self.sid:
            return None
        return str(answers(self.layout, self.sid)["summary"]["phase"])

    def moved_to(self, worktree: Place | None) -> RunContext:
        """The same run, working in `worktree`."""
        return self._replace(worktree=worktree)
