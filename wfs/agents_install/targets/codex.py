"""Codex CLI: commands as skills ($wfs-NAME), agents in TOML (its own format), its rules
file and a SessionStart hook."""

from __future__ import annotations

from wfs import jsonio
from wfs.agents_install.base import (
    SESSION_START,
    Extra,
    Form,
    Setting,
    Target,
    markdown,
    toml_string,
)


def agent_toml(name: str, header: dict[str, str], body: str, fields: list[tuple[str, str]]) -> str:
    """An agent as Codex CLI reads one: TOML with its name, description and instructions."""
    return (
        f"name = {jsonio.string(name)}\n"
        f"description = {jsonio.string(header['description'])}\n"
        f"developer_instructions = {toml_string(body)}\n"
    )


TARGET = Target(
    "codex",
    "Codex CLI",
    Form(
        ".agents/skills/wfs-{name}/SKILL.md",
        markdown,
        (("name", "wfs-{name}"), ("description", "@description")),
    ),
    Form(".codex/agents/{name}.toml", agent_toml),
    "ARGS",
    False,
    # The skills are also loaded by opencode, Copilot CLI, Qwen Code and Gemini CLI:
    # they are named as skills ($wfs-execute is Codex's own way to mention one).
    "wfs-",
    "codex",
    extras=(Extra(".codex/rules/wfs.rules", "codex.rules"),),
    blocks=(Extra("AGENTS.md", "agents-md.md"),),  # Codex's instruction file
    settings=(Setting(".codex/hooks.json", SESSION_START, "", "codex-hook.json"),),
)
