"""What the commands do, as plain functions: the one door through which the CLI, the
MCP server and the board reach what more than one of them answers (as copier's
`run_copy` is the one door of its CLI and its users).

Each returns the data that `--json` prints (and, where it is not 0, the exit code),
so `wfs mcp` answers with exactly what the command line prints, and the board shows
what `wfs status` says. The click commands (wfs/commands/) add only option parsing
and the human-readable text. The actions live in a module by area (reading, tasks,
planning, sessions, checking); this module is their one public face.

Not through this door: `execute` (and `--resume`), whose door for the CLI and the MCP
server is wfs/flow/session_run.py, and the commands that only the command line has
(`agents`, `diff`, the git drivers and hooks, `board`), which call the one module of
their feature directly, as pre-commit's commands do: a door with one caller adds a
hop, and git runs its drivers on every merge, where importing this package (the
index, the queries, the leases) would be paid for nothing.
"""

from wfs.actions.checking import (
    Outcome,
    Validation,
    chosen_sessions,
    doctor,
    dry_run,
    dry_run_all,
    render,
    validate,
    validated_sessions,
)
from wfs.actions.planning import (
    import_session,
    init,
    plan,
    plan_brief,
    plan_with_agent,
    planning_request,
    require_project,
)
from wfs.actions.reading import (
    KIND_NAMES,
    explain_stuck,
    next_tasks,
    prime,
    running_step,
    session_list,
    session_show,
    show_task,
    status,
    task_card,
    task_list,
    task_path,
    validate_line,
)
from wfs.actions.sessions import change_session, migrate, migrate_layout, switch
from wfs.actions.tasks import expand_brief, expand_task, task_add, task_status

__all__ = [
    "KIND_NAMES",
    "Outcome",
    "Validation",
    "change_session",
    "chosen_sessions",
    "doctor",
    "dry_run",
    "dry_run_all",
    "expand_brief",
    "expand_task",
    "explain_stuck",
    "import_session",
    "init",
    "migrate",
    "migrate_layout",
    "next_tasks",
    "plan",
    "plan_brief",
    "plan_with_agent",
    "planning_request",
    "prime",
    "running_step",
    "render",
    "require_project",
    "session_list",
    "session_show",
    "show_task",
    "status",
    "switch",
    "task_add",
    "task_card",
    "task_list",
    "task_path",
    "task_status",
    "validate",
    "validate_line",
    "validated_sessions",
]
