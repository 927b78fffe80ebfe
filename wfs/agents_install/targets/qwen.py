"""Qwen Code: commands as /wfs:NAME, foreground subagents, a SessionStart hook, and the
rules it needs to run `wfs` unattended; answers reach wfs through a file."""

from __future__ import annotations

from wfs.agents_install.base import (
    MARKDOWN_AGENT,
    SESSION_START,
    Extra,
    Form,
    Setting,
    Target,
    markdown,
)

TARGET = Target(
    "qwen",
    "Qwen Code",
    Form(
        ".qwen/commands/wfs/{name}.md",
        markdown,
        (("description", "@description"), ("argument-hint", "@argument-hint")),
    ),
    # Qwen Code runs a subagent in the background unless told otherwise; wfs's run
    # in the foreground, so that the answer comes back before the loop goes on.
    Form(".qwen/agents/{name}.md", markdown, (*MARKDOWN_AGENT, ("background", "false"))),
    "{{args}}",
    True,
    "/wfs:",
    "qwen",
    blocks=(Extra("QWEN.md", "editor-md.md"),),
    settings=(
        Setting(".qwen/settings.json", SESSION_START, "", "qwen-hook.json"),
        # Headless, Qwen Code offers no shell tool unless a rule allows it, and only
        # one spelled with the tool's own name (`Shell`, not `Bash`) does.
        Setting(".qwen/settings.json", ("permissions", "allow"), "", "qwen-allow.json"),
        # Its subagents run unattended: in the default ("auto") mode, headless, no
        # agent gets a tool that edits files.
        Setting(".qwen/settings.json", ("tools",), "approvalMode", "qwen-mode.json"),
    ),
    answers="file",
)
