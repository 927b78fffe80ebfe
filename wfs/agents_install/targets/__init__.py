"""The editor targets of `wfs agents install`, one module each, in the order they are
listed (and in which targets that share a file write their block into it)."""

from __future__ import annotations

from wfs.agents_install.base import Target
from wfs.agents_install.targets import (
    agents_md,
    claude,
    codex,
    copilot,
    cursor,
    devin,
    gemini,
    opencode,
    qwen,
)
from wfs.errors import WfsError

TARGETS: dict[str, Target] = {
    module.TARGET.name: module.TARGET
    for module in (claude, gemini, codex, cursor, copilot, opencode, qwen, devin, agents_md)
}

# Other names a target answers to: Windsurf is now Devin Desktop.
TARGET_ALIASES = {"windsurf": "devin"}


def target(name: str) -> Target:
    """The target called `name` (or one of its other names)."""
    found = TARGETS.get(TARGET_ALIASES.get(name, name))
    if found is None:
        raise WfsError(f"unknown target {name!r}: expected one of {', '.join(TARGETS)}")
    return found
