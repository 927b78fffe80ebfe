"""Cursor: commands as /wfs-NAME, agents in .cursor/agents, a rule, a sessionStart hook
and the CLI's permission for `wfs` commands."""

from __future__ import annotations

from wfs.agents_install.base import (
    MARKDOWN_AGENT,
    SHARED,
    Extra,
    Form,
    Setting,
    Target,
    markdown,
    plain,
)

TARGET = Target(
    "cursor",
    "Cursor",
    Form(".cursor/commands/wfs-{name}.md", plain),
    # A subagent runs in the foreground unless its file says otherwise.
    Form(".cursor/agents/{name}.md", markdown, (*MARKDOWN_AGENT, ("is_background", "false"))),
    "ARGS",
    False,
    "/wfs-",
    "cursor",
    extras=(Extra(".cursor/rules/wfs.mdc", "cursor-rule.mdc"),),
    settings=(
        # hooks.json needs its version; a user's own hooks file has it too.
        Setting(".cursor/hooks.json", (), "version", "cursor-hooks-version.json", SHARED),
        Setting(".cursor/hooks.json", ("hooks", "sessionStart"), "", "cursor-hook.json"),
        # The Cursor CLI's project permissions: `wfs ...` shell commands run unasked.
        Setting(".cursor/cli.json", ("permissions", "allow"), "", "cursor-permission.json"),
    ),
)
