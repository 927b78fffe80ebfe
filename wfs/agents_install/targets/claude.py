"""Claude Code: commands as /wfs:NAME, agents in .claude/agents, a SessionStart hook, and
the `wfs mcp` server in .mcp.json with its read-only tools allowed."""

from __future__ import annotations

from wfs.agents_install.base import (
    MARKDOWN_AGENT,
    MCP_TOOLS,
    SESSION_START,
    Extra,
    Form,
    Setting,
    Target,
    markdown,
)

TARGET = Target(
    "claude",
    "Claude Code",
    Form(
        ".claude/commands/wfs/{name}.md",
        markdown,
        (
            ("description", "@description"),
            ("argument-hint", "@argument-hint"),
            ("allowed-tools", "@allowed-tools"),
        ),
    ),
    Form(".claude/agents/{name}.md", markdown, (*MARKDOWN_AGENT, ("tools", "@tools"))),
    "$ARGUMENTS",
    True,
    "/wfs:",
    "claude",
    blocks=(Extra("CLAUDE.md", "editor-md.md"),),
    settings=(
        Setting(".claude/settings.json", SESSION_START, "", "claude-hook.json"),
        Setting(".mcp.json", ("mcpServers",), "wfs", "claude-mcp.json", "mcp"),
        # With the server, its read-only tools run without asking.
        *(
            Setting(".claude/settings.json", ("permissions", "allow"), "", template, MCP_TOOLS)
            for template in (
                "claude-allow-status.json",
                "claude-allow-next.json",
                "claude-allow-task_show.json",
                "claude-allow-validate.json",
            )
        ),
    ),
)
