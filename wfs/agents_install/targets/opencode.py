"""opencode: commands as /wfs-NAME, subagents in .opencode/agents, a plugin that primes
the session, and a permission rule for `wfs` commands."""

from __future__ import annotations

from wfs.agents_install.base import Extra, Form, Setting, Target, markdown

TARGET = Target(
    "opencode",
    "opencode",
    Form(".opencode/commands/wfs-{name}.md", markdown, (("description", "@description"),)),
    Form(
        ".opencode/agents/{name}.md",
        markdown,
        (("description", "@description"), ("mode", "subagent")),
    ),
    "$ARGUMENTS",
    True,
    "/wfs-",
    "opencode",
    # opencode loads every .js file of .opencode/plugins/ as a plugin.
    extras=(Extra(".opencode/plugins/wfs-prime.js", "opencode-plugin.js"),),
    blocks=(Extra("AGENTS.md", "agents-md.md"),),
    # A rule of `permission.bash`: `wfs ...` runs without asking, here-documents
    # included. opencode applies the last rule that matches, and merges this file
    # after the user's (global, then the project's opencode.json and .jsonc).
    settings=(
        Setting(
            ".opencode/opencode.json",
            ("permission", "bash"),
            "wfs *",
            "opencode-permission.json",
        ),
    ),
)
