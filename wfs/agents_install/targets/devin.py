"""Devin Local (Devin Desktop, which Windsurf became) and Devin CLI, one format: commands
and agents as skills, a rule, its permission for `wfs` and a SessionStart hook."""

from __future__ import annotations

from wfs.agents_install.base import MARKDOWN_AGENT, Extra, Form, Setting, Target, markdown

TARGET = Target(
    "devin",
    "Devin",
    Form(
        ".devin/skills/wfs-{name}/SKILL.md",
        markdown,
        (
            ("name", "wfs-{name}"),
            ("description", "@description"),
            ("argument-hint", "@argument-hint"),
        ),
    ),
    Form(".devin/agents/{name}/AGENT.md", markdown, MARKDOWN_AGENT),
    "ARGS",
    False,
    "/wfs-",
    "devin",
    extras=(Extra(".devin/rules/wfs.md", "devin-rule.md"),),
    settings=(
        Setting(".devin/config.json", ("permissions", "allow"), "", "devin-permission.json"),
        # The project's hooks file is the hooks object itself (Claude Code's events).
        Setting(".devin/hooks.v1.json", ("SessionStart",), "", "devin-hook.json"),
    ),
    # Windsurf before Devin Local read the agents as skills there (and Devin still
    # reads .windsurf/skills): an earlier install's files stay wfs's own.
    agent_copies=(
        Form(
            ".windsurf/skills/{name}/SKILL.md",
            markdown,
            (("name", "{name}"), ("description", "@description")),
        ),
    ),
)
