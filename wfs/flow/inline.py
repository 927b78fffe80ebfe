"""The inline `[FLOW_CONTROL]` markdown format (seed: Inline Format), run by `wfs flow`.

    1. **load_topic_framework**
       - Action: Load structured topic discussion framework
       - Command: Read(.workflow/WFS-{session}/.brainstorming/guidance-specification.md)
       - Output: topic_framework

Steps run in order and their outputs accumulate as variables; there are no dependencies.
"""

from __future__ import annotations

import re
from typing import Any

from wfs.errors import WfsError

_STEP = re.compile(r"^\s*(\d+)\.\s+\*\*(.+?)\*\*\s*$")
_FIELD = re.compile(
    r"^\s*[-*]\s+(Action|Command|Commands|Output|On_error|On error)\s*:\s*(.*)$", re.IGNORECASE
)


def parse_inline(text: str, where: str) -> list[dict[str, Any]]:
    """pre_analysis-style steps from the markdown list after `[FLOW_CONTROL]`."""
    if "[FLOW_CONTROL]" not in text:
        raise WfsError(f"{where}: no [FLOW_CONTROL] marker")
    body = text.split("[FLOW_CONTROL]", 1)[1]
    steps: list[dict[str, Any]] = []
    for line in body.splitlines():
        step = _STEP.match(line)
        if step:
            steps.append({"step": step.group(2).strip()})
            continue
        field = _FIELD.match(line)
        if field and steps:
            key = field.group(1).lower().replace(" ", "_")
            value = field.group(2).strip()
            if key in ("command", "commands"):
                steps[-1].setdefault("commands", []).append(value)
            elif key == "output":
                steps[-1]["output_to"] = value.strip("`[] ")
            else:
                steps[-1][key] = value
    if not steps:
        raise WfsError(f"{where}: [FLOW_CONTROL] has no numbered steps like `1. **name**`")
    return steps
