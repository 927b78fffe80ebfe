"""Recording a run: the run record of a task, the outputs kept beside it, its summary.

A task's run record (`<session>/.runs/<ID>.json`, ignored by git) holds the outcome
and output of every step, so that a resumed run never repeats a finished step, nor a
finished command of a step. A step that finishes appends one line to the record's log
(`<ID>.<name>.log`) instead of rewriting the whole record; `load` folds it back in.
An output too large to keep inline goes to a file beside the record.

`Records` knows where these files are for one session and reads and writes them; an
inline flow keeps its record elsewhere (wfs.flow.inline overrides `record_path`).
"""

from __future__ import annotations

import functools
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wfs import jsonio, store
from wfs.errors import WfsError
from wfs.flow import watch
from wfs.flow.summary import keep_authored_summary, needs_link, render_summary
from wfs.layout import Layout, check_task_id
from wfs.tasks import Task

RUNS_DIR = ".runs"
RUN_MARKER = "run.json"  # in RUNS_DIR: the process of the session's `--all` run going on
RECORD_INLINE = 256 * 1024  # a larger step output is kept in a file beside the record
FINISHED = ("done", "skipped")
LOG_LINES = 1000  # finished steps appended to a run record's log before it is rewritten


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_record(tid: str) -> dict[str, Any]:
    return {"task": tid, "started_at": now(), "steps": {}, "paused": None}


def record_log(path: Path, name: Any) -> Path | None:
    """The log of finished steps that goes with the run record at `path` (its `log`
    field names it), or None for a record without one."""
    if not isinstance(name, str) or len(name) != 8 or not name.isalnum():
        return None
    return path.with_name(f"{path.stem}.{name}.log")


class Records:
    """The run records of one session's tasks, and the files kept beside them."""

    def __init__(self, layout: Layout, sid: str) -> None:
        self.layout = layout
        self.sid = sid
        self.log = store.Appender()  # the current run record's log
        self.paths: dict[str, Path] = {}  # each task's run record, found once

    @functools.cached_property
    def session_dir(self) -> Path:
        """The session's folder, looked up once (the run writes there after every step)."""
        return self.layout.session_dir(self.sid)

    def record_path(self, tid: str) -> Path:
        path = self.paths.get(tid)
        if path is None:  # the record is saved after every step: its path is kept
            path = self.paths[tid] = self.session_dir / RUNS_DIR / f"{check_task_id(tid)}.json"
        return path

    def output_log_path(self, tid: str) -> Path:
        """Where the task's steps' output goes as it comes (wfs.flow.watch)."""
        return watch.log_path(self.record_path(tid))

    def run_marker_path(self) -> Path:
        """Where an `--all` run says which process runs it (wfs.flow.session_run.announced),
        for `wfs log --follow` to follow it to its end."""
        return self.session_dir / RUNS_DIR / RUN_MARKER

    def output_path(self, tid: str, name: str) -> Path:
        """Where a step output too long to show is kept whole, next to the run record."""
        return self.record_path(tid).with_suffix("") / f"{name}.txt"

    def summary_path(self, tid: str) -> Path:
        return self.session_dir / ".summaries" / f"{tid}-summary.md"

    def guard(self, tid: str) -> None:
        """Refuse (WfsError) now, before a run of `tid`, any place it would write to
        that it cannot: rather than after the work is done."""
        store.guard(self.record_path(tid))
        store.guard(self.output_path(tid, "output"))
        if self.sid:
            store.guard(self.summary_path(tid))
        store.check_appendable(self.output_log_path(tid), self.layout.relative)

    def load(self, tid: str) -> dict[str, Any]:
        """The run record, with the steps its log holds folded in (see save)."""
        path = self.record_path(tid)
        if not path.exists():
            return new_record(tid)
        data = store.read_json(path, self.layout.relative(path))
        if not isinstance(data, dict) or not isinstance(data.get("steps"), dict):
            raise WfsError(f"{self.layout.relative(path)}: not a wfs run record")
        log = record_log(path, data.get("log"))
        try:
            raw = log.read_bytes() if log is not None else b""
        except FileNotFoundError:
            raw = b""
        for line in raw.split(b"\n")[:-1]:  # after the last newline: nothing, or a torn line
            try:
                change = jsonio.loads(line)
            except ValueError:
                break
            if not isinstance(change, dict) or not isinstance(change.get("steps"), dict):
                break
            data["steps"].update(change["steps"])
            data["paused"] = change.get("paused")
        return data

    def save(self, record: dict[str, Any], finished: tuple[str, ...] = ()) -> None:
        """Save the run record. `finished`: the steps that just finished (or finished a
        part), and nothing else changed: they are appended to the record's log (one
        short write), so a task of many quick steps does not rewrite its whole record
        after each one.
        Anything else writes the record whole, under a new log name (a log that is
        not the record's own is never read), and removes the old log.

        Atomic but not fsynced: a killed process loses nothing (the page cache
        survives it, and a log line is one write), and after a power cut the
        unrecorded steps simply run again."""
        path = self.record_path(record["task"])
        log = record_log(path, record.get("log"))
        if finished and log is not None and self.log.lines < LOG_LINES:
            change = {"steps": {k: record["steps"][k] for k in finished}, "paused": None}
            self.log.append(log, jsonio.compact(change) + b"\n")
            return
        self.log.close()
        record["log"] = os.urandom(4).hex()
        store.write_bytes(path, jsonio.dumps(record), durable=False)
        if log is not None:
            store.remove(log)

    def stored_output(
        self, tid: str, key: str, output: str, part: int | None = None
    ) -> dict[str, Any]:
        """How the output of step `key` (or of its part number `part`) goes into the
        run record: inline, or (when large) in a file next to it, so that the record
        stays small to rewrite after every step."""
        data = output.encode("utf-8", "surrogateescape")
        if len(data) <= RECORD_INLINE:
            return {"output": output}
        name = key.replace("/", "-") + ("" if part is None else f".part-{part}")
        path = self.output_path(tid, name + ".output")
        store.write_bytes(path, data, durable=False)
        return {"output_file": self.layout.relative(path), "output_bytes": len(data)}

    def entry_output(self, entry: dict[str, Any]) -> str:
        """A recorded step's output, from the record or the file it was put in."""
        if "output_file" not in entry:
            return str(entry.get("output", ""))
        where = str(entry["output_file"])
        try:
            return (self.layout.root / where).read_bytes().decode("utf-8", "surrogateescape")
        except OSError as err:
            raise WfsError(f"{where}: cannot read a recorded output: {err.strerror}") from None

    def keep_large(self, tid: str, name: str, text: str) -> str:
        """Keep `text` whole in a file beside the record (named `name`); its path,
        relative to the project root."""
        path = self.output_path(tid, name)
        store.write_bytes(path, text.encode("utf-8", "surrogateescape"), durable=False)
        return self.layout.relative(path)

    def write_summary(self, task: Task, result: dict[str, Any], changed: list[str]) -> Path:
        """Write `.summaries/<ID>-summary.md` of a completed run (`result`: its steps,
        each with its output); an output too long to show is linked, kept whole."""
        tid = task["id"]
        path = self.summary_path(tid)
        links: dict[str, str] = {}
        for step in result["steps"]:
            name, output = step.get("bind"), str(step.get("output", ""))
            if name and step.get("status") == "done" and needs_link(output):
                if "output_file" in step:  # already kept whole beside the record
                    full = self.layout.root / step["output_file"]
                else:
                    full = self.output_path(tid, name)
                    store.write_bytes(full, output.encode("utf-8"), durable=False)
                links[name] = os.path.relpath(full, path.parent)
        kept = keep_authored_summary(path)  # one someone else wrote stays, linked
        store.write_text(path, render_summary(task, result["steps"], changed, links, kept))
        return path
