"""Gemini CLI: commands in TOML (its own format), agents in .gemini/agents, wfs's digest
with each prompt, and the opt-in shell policy in the user's home."""

from __future__ import annotations

from wfs import jsonio
from wfs.agents_install.base import (
    MARKDOWN_AGENT,
    RETIRED,
    SESSION_START,
    Extra,
    Form,
    Setting,
    Target,
    markdown,
    toml_string,
)


def command_toml(
    name: str, header: dict[str, str], body: str, fields: list[tuple[str, str]]
) -> str:
    """A command as Gemini CLI reads one: TOML with its description and prompt."""
    return (
        f"description = {jsonio.string(header.get('description', ''))}\n"
        f"prompt = {toml_string(body)}\n"
    )


TARGET = Target(
    "gemini",
    "Gemini CLI",
    Form(".gemini/commands/wfs/{name}.toml", command_toml),
    Form(
        ".gemini/agents/{name}.md",
        markdown,
        (
            *MARKDOWN_AGENT,
            ("kind", "local"),
            ("max_turns", "@max-turns"),
            ("timeout_mins", "@timeout-mins"),
        ),
    ),
    "{{args}}",
    True,
    "/wfs:",
    "gemini",
    blocks=(Extra("GEMINI.md", "editor-md.md"),),
    settings=(
        # Headless (-p), Gemini CLI puts a SessionStart hook's text before the prompt,
        # and a /wfs: command is then no command: wfs's digest comes with the prompt
        # instead (BeforeAgent puts it after), and an earlier SessionStart hook goes.
        Setting(".gemini/settings.json", ("hooks", "BeforeAgent"), "", "gemini-hook.json"),
        Setting(".gemini/settings.json", SESSION_START, "", "gemini-hook.json", RETIRED),
        # Its subagents run unattended: in the default mode they may not write.
        Setting(".gemini/settings.json", ("general",), "defaultApprovalMode", "gemini-mode.json"),
    ),
    shell_policy=(Extra(".gemini/policies/wfs.toml", "gemini-policy.toml"),),
)
