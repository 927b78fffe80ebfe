"""Bundles shipped in this repository rather than installed into a project: the Claude
Code plugin (with the marketplace file at the repository root) and the Gemini CLI
extension, each a target's files in other places. Paths are relative to the repository
root."""

from __future__ import annotations

from wfs.agents_install.base import Extra, Target
from wfs.agents_install.targets import TARGETS

BUNDLES: dict[str, tuple[Target, tuple[Extra, ...]]] = {
    "claude-plugin": (
        TARGETS["claude"]._replace(
            name="claude-plugin",
            commands=TARGETS["claude"].commands._replace(path="editors/claude/commands/{name}.md"),
            agents=TARGETS["claude"].agents._replace(path="editors/claude/agents/{name}.md"),
            agent_prefix="wfs:",
            # Claude Code replaces the variable in a plugin's commands.
            agents_shown="${{CLAUDE_PLUGIN_ROOT}}/agents/{name}.md",
        ),
        (
            Extra("editors/claude/.claude-plugin/plugin.json", "claude-plugin.json"),
            Extra(".claude-plugin/marketplace.json", "claude-marketplace.json"),
        ),
    ),
    "gemini-extension": (
        TARGETS["gemini"]._replace(
            name="gemini-extension",
            commands=TARGETS["gemini"].commands._replace(
                path="editors/gemini/commands/wfs/{name}.toml"
            ),
            agents=TARGETS["gemini"].agents._replace(path="editors/gemini/agents/{name}.md"),
            agents_shown="~/.gemini/extensions/wfs/agents/{name}.md",
        ),
        (Extra("editors/gemini/gemini-extension.json", "gemini-extension.json"),),
    ),
}
