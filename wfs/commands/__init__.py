"""The commands of `wfs`, one small module per group, as pre-commit keeps them.

Each module holds the click commands of its group: they parse options, call the
library (wfs/actions/ and the modules it names) and print the result. The root group
(wfs/cli.py) imports a module only when one of its commands runs.
"""

# Command name -> "module:attribute" in this package.
COMMANDS = {
    "agents": "agents:agents",
    "board": "board:board",
    "capture": "execute:capture",
    "diff": "git:diff",
    "doctor": "check:doctor",
    "execute": "execute:execute",
    "flow": "execute:flow",
    "hook": "git:hook",
    "import": "plan:import_session",
    "init": "plan:init",
    "log": "execute:log",
    "mcp": "agents:mcp_server",
    "merge-json": "git:merge_json",
    "merge-views": "git:merge_views",
    "migrate": "check:migrate",
    "next": "status:next_task",
    "plan": "plan:plan",
    "prime": "status:prime",
    "render": "check:render",
    "schema": "check:schema",
    "session": "session:session",
    "status": "status:status",
    "switch": "plan:switch",
    "task": "task:task",
    "validate": "check:validate",
}

# The commands that work where there is no project (no `.workflow/` here or above, and
# no --root or WFS_ROOT naming one); every other reads a plan, and there it says so and
# suggests `wfs init` (wfs.cli.not_a_project). `plan` decides for itself.
WITHOUT_PROJECT = frozenset(
    {
        None,  # a bare `wfs`: the help
        "agents",
        "capture",
        "flow",
        "hook",
        "import",
        "init",
        "mcp",
        "merge-json",
        "merge-views",
        "plan",
        "schema",
    }
)
