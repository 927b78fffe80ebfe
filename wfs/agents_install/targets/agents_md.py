"""Any agent that reads AGENTS.md: plain files it is pointed to, and the managed block."""

from __future__ import annotations

from wfs.agents_install.base import Extra, Form, Target, plain

TARGET = Target(
    "agents-md",
    "any agent that reads AGENTS.md",
    Form(".agents/wfs/commands/{name}.md", plain),
    Form(".agents/wfs/agents/{name}.md", plain),
    "ARGS",
    False,
    "wfs-",
    "none",
    blocks=(Extra("AGENTS.md", "agents-md.md"),),
)
