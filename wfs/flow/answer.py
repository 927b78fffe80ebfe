"""The agent's answer contract (SPEC §3.13): what an answer may say, and how it is read."""

from __future__ import annotations

import re
from typing import NamedTuple

from wfs.errors import WfsError

CONTRACT = (
    "Answer in plain text: what you did, the files you changed, the decisions you took "
    "and any value a later step needs. Your answer is this step's output. "
    "If you cannot do the step, answer `## TASK BLOCKED: <why>`: the task is blocked with "
    "that reason and nothing after it runs. To hand back partial work and continue later, "
    "start with `## CHECKPOINT REACHED`: the partial answer is kept and the step pauses. "
    "`## TASK COMPLETE` (optional) or plain text completes the step. "
    "An empty answer is refused."
)

_MARKER = re.compile(r"#{2,}\s*(TASK BLOCKED|CHECKPOINT REACHED|TASK COMPLETE)\b[\s:.-]*", re.I)
MAX_REASON = 1000


class Answer(NamedTuple):
    kind: str  # complete | blocked | checkpoint
    text: str  # the whole answer
    reason: str  # for `blocked`: why, in a few lines


class EmptyAnswer(WfsError):
    """An agent answered nothing: the step stays paused (exit 2)."""


def read_answer(text: str, source: str) -> Answer:
    """Classify an answer; an empty one raises EmptyAnswer naming its `source`."""
    if not text.strip():
        raise EmptyAnswer(
            f"the answer from {source} is empty; a step is only done with an answer "
            "(give one, or skip the step with --skip)"
        )
    first, _, rest = text.strip().partition("\n")
    match = _MARKER.match(first)
    if match is None:
        return Answer("complete", text, "")
    kind = {"task blocked": "blocked", "checkpoint reached": "checkpoint"}.get(
        match.group(1).lower(), "complete"
    )
    reason = "\n".join(p for p in (first[match.end() :].strip(), rest.strip()) if p)
    if kind == "blocked":
        reason = reason or "the agent reported TASK BLOCKED without a reason"
        if len(reason) > MAX_REASON:
            reason = reason[:MAX_REASON] + " …"
    return Answer(kind, text, reason)
