"""The summary of a completed task, `.summaries/<ID>-summary.md` (templates/summary.md.j2).

It is what the tasks that depend on this one read first: each step's outcome, the
outputs it bound, and the files it changed. A summary that wfs did not write (it has
no mark, wfs/render.py) is kept beside it, byte for byte, and linked from it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from wfs import templating
from wfs.render import keep_unmarked, one_line
from wfs.tasks import Task, obj
from wfs.text import printable

OUTPUT_CHARS = 2000  # an output longer than this is cut in the summary, and linked
OUTPUT_LINES = 40


def needs_link(output: str) -> bool:
    """Whether a summary shows only the start of `output`, and links the whole."""
    return len(output) > OUTPUT_CHARS or output.count("\n") >= OUTPUT_LINES


def fence(text: str) -> str:
    """A code fence longer than any run of backticks in `text`, so the text stays whole."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def keep_authored_summary(path: Path) -> list[str]:
    """Keep aside, byte for byte, the summary at `path` when wfs did not write it; the
    names of every summary kept beside it, for the new one to link."""
    return keep_unmarked(path)


def render_summary(
    task: Task,
    steps: list[dict[str, Any]],
    changed: list[str],
    links: dict[str, str] | None = None,
    kept: list[str] | None = None,
) -> str:
    """The summary of `task`. `links`: output name -> where its whole text is, for the
    outputs too long to show whole (see `needs_link`): those show their start only.
    `kept`: the summaries someone else wrote for it, kept beside it (linked)."""
    links = links or {}
    outputs = []
    for step in steps:
        name = step.get("bind")
        if name and step.get("status") == "done":
            value = str(step.get("output", "")).rstrip("\n")
            if name in links:
                value = "\n".join(value.splitlines()[:OUTPUT_LINES])[:OUTPUT_CHARS]
            value = printable(value)
            shown = {"name": name, "value": value, "fence": fence(value)}
            outputs.append({**shown, "link": links.get(name)})
    return templating.template("summary.md.j2").render(
        id=task.get("id"),
        title=one_line(task.get("title")),
        agent=one_line(obj(task, "meta").get("agent")),
        steps=steps,
        outputs=outputs,
        changed=changed,
        kept=kept or [],
    )
