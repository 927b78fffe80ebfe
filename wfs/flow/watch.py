"""A running step's output, as it comes: in the task's output log beside its run record,
and as progress events.

While a task runs, each chunk its steps' commands write (stdout and stderr, an agent's
answer included) is appended to the task's output log, `.runs/<ID>.output.jsonl`, at
once, so that `wfs log ID --follow` can show it from another terminal; the output a
step's value and success criteria are taken from is collected as before
(wfs/flow/steps.py). One log per task, opened once per run: opening a file costs about
as much as a short step's bookkeeping, a write does not.

The log is JSON Lines, one event each, each written whole by one write (a killed run
leaves the last one whole or absent; a reader ignores a torn last line):

    {"event": "step_started", "step": KEY, "name": NAME, "started_at": ISO, "started": EPOCH}
    {"event": "output", "step": KEY, "stream": "stdout"|"stderr", "text": TEXT}   (a chunk)
    {"event": "output_cut", "step": KEY, "after": CHARACTERS}   (the rest is kept beside the record)
    {"event": "step_finished", "step": KEY, "outcome": STATUS, "elapsed": SECONDS}

A step's output is logged up to LOG_LIMIT characters per run (it is kept whole once,
beside the run record: wfs.flow.steps.Spool); the progress events carry all of it. A
resumed run appends to the log; a run that starts the task over starts it over. The
engine's progress callback gets the same output cut into lines (`output` events), and a
`tick` event when nothing came for a while, so that a display can update its clock.
"""

from __future__ import annotations

import codecs
import functools
import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wfs import jsonio, platform, store

STREAMS = {1: "stdout", 2: "stderr"}
LONGEST_LINE = 64 * 1024  # characters: a longer line without an end is shown in pieces
# What the log keeps of one run of a step: the whole output is kept once beside the run
# record, the log is for watching it (a step that writes gigabytes must not write them
# twice).
LOG_LIMIT = 4 * 1024 * 1024
_LINE_END = r"\r\n|\r|\n"

Progress = Callable[[str, dict[str, Any]], None]


LOG_SUFFIX = ".output.jsonl"  # a task's output log: its id, then this


def log_path(record: Path) -> Path:
    """The output log of the task whose run record is at `record`."""
    return record.with_name(record.stem + LOG_SUFFIX)


class Lines:
    """Text as it comes, cut into lines: at `\\n`, `\\r\\n` or a lone `\\r` (a progress
    bar redraws its line with it); a `\\r` at the end of a piece waits for the next."""

    def __init__(self) -> None:
        self.partial = ""

    def feed(self, text: str) -> list[str]:
        text = self.partial + text
        held = text.endswith("\r")
        if held:
            text = text[:-1]
        lines = re.split(_LINE_END, text)
        self.partial = lines.pop() + ("\r" if held else "")
        if len(self.partial) > LONGEST_LINE:
            lines.append(self.partial)
            self.partial = ""
        return lines

    def end(self) -> list[str]:
        """What is left: the last line, without an end of line."""
        last, self.partial = self.partial.rstrip("\r"), ""
        return [last] if last else []


class TaskLog:
    """The output log of one run of a task (see the module's docstring). `progress`
    hears each step start; its output too when someone is `listening`."""

    def __init__(
        self,
        appender: store.Appender,
        path: Path,
        task: str,
        progress: Progress,
        listening: bool,
        fresh: bool,
    ) -> None:
        self.appender = appender
        self.path = path
        self.task = task
        self.progress = progress
        self.listening = listening
        self.ended: Callable[[], None] | None = None  # the last step's end, to tell
        appender.open(path, os.O_TRUNC if fresh else 0)

    def write(self, event: dict[str, Any]) -> None:
        self.appender.append(self.path, jsonio.compact(event) + b"\n")

    def flush(self) -> None:
        """Tell the end of the last step, if it is not told yet: as the next step is on
        its way, before anything else is told, or when the run stops."""
        ended, self.ended = self.ended, None
        if ended is not None:
            ended()

    def step(self, key: str, name: str) -> StepLog:
        """A step's run is about to start: what sees its output."""
        return StepLog(self, key, name)

    def close(self) -> None:
        self.appender.close()


class StepLog:
    """The live output of one run of a step (a wfs.flow.steps.StepWatch): into the
    task's log, and as the progress events `output` (one per line) and `tick`. Its start
    is told (`started`: the progress event `start`, the log's `step_started`) once its
    first command is on its way, or before anything else it tells."""

    def __init__(self, log: TaskLog, key: str, name: str) -> None:
        self.log = log
        self.key = key
        self.name = name
        self.progress = log.progress if log.listening else None
        # Made when a stream first writes: most steps of a plan write nothing.
        self.decoders: dict[int, codecs.IncrementalDecoder] = {}
        self.lines: dict[int, Lines] = {}
        self.logged = 0  # characters of output written to the log (LOG_LIMIT)
        self.told = False  # its start

    def started(self) -> None:
        """Tell its start, once; first, the last step's end (TaskLog.flush)."""
        self.log.flush()
        if self.told:
            return
        self.told = True
        log = self.log
        log.progress("start", {"task": log.task, "step": self.key, "name": self.name})
        started = time.time()
        log.write(
            {
                "event": "step_started",
                "step": self.key,
                "name": self.name,
                "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
                "started": round(started, 3),
            }
        )

    def output(self, stream: int, chunk: bytes) -> None:
        self.started()
        decoder = self.decoders.get(stream)
        if decoder is None:
            decoder = self.decoders[stream] = codecs.getincrementaldecoder("utf-8")("replace")
            self.lines[stream] = Lines()
        text = decoder.decode(chunk)
        if text:
            self.write(stream, text)

    def write(self, stream: int, text: str) -> None:
        if self.logged < LOG_LIMIT:
            kept = text[: LOG_LIMIT - self.logged]
            event = {"event": "output", "step": self.key, "stream": STREAMS[stream], "text": kept}
            self.log.write(event)
            self.logged += len(kept)
            if self.logged >= LOG_LIMIT:
                self.log.write({"event": "output_cut", "step": self.key, "after": self.logged})
        if self.progress is not None:
            self.emit(stream, self.lines[stream].feed(text))

    def emit(self, stream: int, lines: list[str]) -> None:
        assert self.progress is not None
        for line in lines:
            data = {"task": self.log.task, "step": self.key, "stream": STREAMS[stream]}
            self.progress("output", {**data, "text": line})

    def idle(self) -> None:
        self.started()
        if self.progress is not None:
            self.progress("tick", {"task": self.log.task, "step": self.key})

    def finish(self, outcome: str, elapsed: float) -> None:
        """The step's run ended (done, failed, paused, ...), and its record says so: the
        rest of its output and the lines that say how are told with what comes next
        (TaskLog.flush), so that the next step need not wait for them."""
        self.started()
        self.log.ended = functools.partial(self.end, outcome, elapsed)

    def end(self, outcome: str, elapsed: float) -> None:
        log = self.log
        for stream, decoder in self.decoders.items():
            rest = decoder.decode(b"", final=True)
            if rest:
                self.write(stream, rest)
            if self.progress is not None:
                self.emit(stream, self.lines[stream].end())
        end = {"event": "step_finished", "step": self.key, "outcome": outcome, "elapsed": elapsed}
        log.write(end)
        shown = {"task": log.task, "step": self.key, "name": self.name}
        log.progress("step", {**shown, "outcome": outcome, "elapsed": elapsed})


def read_events(path: Path, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
    """The events of a step's log from byte `offset` to its last whole line, and the
    offset after that line (where the next read starts)."""
    try:
        fd = platform.open_to_read(os.fspath(path))
    except FileNotFoundError:
        return [], offset
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return [], offset  # a FIFO, a device or a folder is no log wfs wrote: none to show
    with open(fd, "rb") as handle:
        handle.seek(offset)
        data = handle.read()
    end = data.rfind(b"\n") + 1
    return list(parse(data[:end])), offset + end


def parse(data: bytes) -> Iterator[dict[str, Any]]:
    for line in data.split(b"\n"):
        if not line:
            continue
        try:
            event = jsonio.loads(line)
        except ValueError:
            return  # torn by a crash: nothing after it is this run's
        if isinstance(event, dict) and isinstance(event.get("event"), str):
            yield event
