"""Measure how the plans of ../shared/corpus/realworld/ run, as a new user would run them.

Each repository is copied into a fresh git repository; stand-ins on PATH take the place
of the programs its checks call (each records its argv and succeeds), and a fake agent
records the brief it gets (the Markdown brief) and answers "done". Then:

- the plans wfs lists (`session list --json`): its sessions and the Maestro-Flow plans;
- each unfinished task (a wfs session's, or a Maestro plan's) is run: a wfs session with
  `wfs --session ID execute --all`, the Maestro plans with `wfs execute --all` (or, with
  --import, each imported by hand first with `wfs import PATH`, as a user who knows the
  command would);
- for each task that was to do: whether it completed; whether every check its author
  wrote was run (the programs it names were called) or given to the agent (its text is
  in a brief); whether every field the author wrote reached the agent (each value of
  the task file is in its brief, but the tool's bookkeeping: ids, statuses, times).

    python scripts/measure_realworld.py                   # this checkout
    python scripts/measure_realworld.py --wfs ../main     # another checkout of wfs
    python scripts/measure_realworld.py --wfs ../main --import

Nothing here is asserted: it prints the figures (docs/formats.md quotes them).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "realworld"
REAL = {"bash", "sh", "env", "git", "wfs"}
BOOKKEEPING = {
    "id", "task_id", "status", "_meta", "$schema", "status_history", "completed_at",
    "actual_duration", "executed_at", "execution",
    # what wfs consumes itself: the order of the tasks, the agent's route
    "depends_on", "deps", "type",
}  # fmt: skip
DONE = ("completed", "completed_with_deviations", "done")
AGENT = """#!{python}
import sys
brief = sys.stdin.read()
with open({briefs!r}, "a", encoding="utf-8") as f:
    f.write(brief + "\\n\\x00\\n")
print("done")
"""
# A stand-in succeeds, but for a call a check negates (`! grep -q old src/a.ts`): the
# work the fake agent stands for removed what such a check looks for.
STANDIN = """#!/bin/sh
called=$(printf '%s\\037' "$(basename "$0")" "$@")
printf '%s\\n' "$called" >> "{log}"
"{grep}" -qxF -- "$called" "{negated}" 2>/dev/null && exit 1
exit 0
"""


def load(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (ValueError, OSError):
        return None


def checks_of(doc: dict[str, Any]) -> list[str]:
    """Every check the task's author wrote: step verifications, convergence verification
    and criteria, test commands, verify, verification, acceptance criteria."""
    found: list[Any] = []
    flow = doc.get("flow_control") if isinstance(doc.get("flow_control"), dict) else {}
    steps = [
        flow.get("implementation_approach"),
        flow.get("pre_analysis"),
        doc.get("implementation"),
    ]
    for group in steps:
        for step in group if isinstance(group, list) else []:
            if isinstance(step, dict):
                found.append(step.get("verification"))
    convergence = doc.get("convergence")
    if isinstance(convergence, dict):
        found += [convergence.get("verification"), convergence.get("criteria")]
    else:
        found.append(convergence)
    test = doc.get("test") if isinstance(doc.get("test"), dict) else {}
    commands = test.get("commands")
    found.append(list(commands.values()) if isinstance(commands, dict) else commands)
    context = doc.get("context") if isinstance(doc.get("context"), dict) else {}
    for key in (
        "verify",
        "verification",
        "acceptance_criteria",
        "convergence_criteria",
        "acceptance",
    ):
        found.append(doc.get(key))
    found.append(context.get("acceptance"))
    texts: list[str] = []
    for value in found:
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and text.strip():
                texts.append(text)
    return texts


def commands_of(doc: dict[str, Any]) -> list[str]:
    """The commands of a task's steps (they need their programs, as its checks do)."""
    flow = doc.get("flow_control") if isinstance(doc.get("flow_control"), dict) else {}
    groups = [flow.get("pre_analysis"), flow.get("implementation_approach")]
    groups += [doc.get("implementation"), doc.get("pre_analysis")]
    found: list[str] = []
    for group in groups:
        for step in group if isinstance(group, list) else []:
            if isinstance(step, dict):
                for value in (step.get("command"), step.get("commands")):
                    items = value if isinstance(value, list) else [value]
                    found += [v for v in items if isinstance(v, str)]
    return found


def programs(text: str) -> set[str]:
    """The programs a check calls (the first word of each command), when it reads as
    shell at all; empty for words."""
    text = text.strip()
    text = text[5:-1] if text.startswith("bash(") and text.endswith(")") else text
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return set()
    words, first = set(), True
    for token in tokens:
        if set(token) <= set("|&;()<>"):
            first = True
            continue
        if first and re.fullmatch(r"[a-z][a-z0-9._+-]*", token):
            words.add(token)
        first = False
    return words - REAL


def holds_value(value: Any) -> bool:
    """Whether a value holds anything but empty objects, arrays and strings."""
    if isinstance(value, dict):
        return any(holds_value(v) for v in value.values())
    if isinstance(value, list):
        return any(holds_value(v) for v in value)
    return value not in (None, "")


def leaves(value: Any) -> list[str]:
    """The strings a value holds (of more than two characters)."""
    if isinstance(value, str):
        return [value] if len(value.strip()) > 2 else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in leaves(v)]
    if isinstance(value, list):
        return [s for v in value for s in leaves(v)]
    return []


# What wfs consumes itself inside meta and context: the agent's route, the dependencies.
CONSUMED = {"type", "agent", "depends_on"}
# Steps: wfs runs them (their commands) or gives them to the agent as steps to do.
STEPS = {"pre_analysis", "implementation_approach", "implementation", "implementation_steps"}


def fields_carried(doc: dict[str, Any], brief: str) -> tuple[int, int]:
    """(fields of the task file, those whose every value is in the brief)."""
    text = " ".join(brief.split())
    fields = [k for k in doc if k not in BOOKKEEPING]
    carried = counted = 0
    for key in fields:
        value = doc[key]
        if key in ("meta", "context") and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k not in CONSUMED}
        if key == "flow_control" and isinstance(value, dict):  # steps run, or go as steps
            value = {k: v for k, v in value.items() if k not in STEPS}
        if key in STEPS:
            continue
        if key in ("verification", "verify") and isinstance(value, (str, list)):
            continue  # checks: counted as checks, run or given to the agent
        values = [" ".join(s.split())[:60] for s in leaves(value)]
        if value in (None, "", [], {}) or not holds_value(value):
            continue  # nothing to carry (`{"target_files": []}` holds no value either)
        counted += 1
        if all(v in text for v in values) and (values or key in text):
            carried += 1
        elif os.environ.get("MEASURE_DEBUG"):
            missing = [v for v in values if v not in text][:2]
            print(f"  not carried: {doc.get('id')} {key}: {missing}", file=sys.stderr)
    return counted, carried


def named_files(doc: Any) -> set[str]:
    """The project's files a task names (Read(path), files, read_first, focus_paths,
    target_files): the corpus holds the plans, not the projects, so they are made."""
    found: set[str] = set()
    for text in leaves(doc):
        for read in re.findall(r"Read\(([^()]*)\)", text):  # a line range after the path
            found.add(re.split(r"[: ]", read.strip("'\" "), maxsplit=1)[0])
    for key in ("files", "read_first", "focus_paths", "target_files"):
        value = doc.get(key) if isinstance(doc, dict) else None
        for entry in value if isinstance(value, list) else []:
            path = entry.get("path") if isinstance(entry, dict) else entry
            if isinstance(path, str):
                found.add(path)
    return {f for f in found if re.fullmatch(r"[\w./@-]+\.\w+", f) and ".." not in f}


def reset(folder: Path) -> None:
    """A Maestro plan as it was before Maestro ran it: no summary, every status to do."""
    shutil.rmtree(folder / ".summaries", ignore_errors=True)
    for path in folder.rglob("*.json"):
        if path.parent.name in (".task", "tasks"):
            text = path.read_text(encoding="utf-8")
            for done in DONE:
                text = re.sub(rf'("status"\s*:\s*)"{done}"', r'\1"pending"', text)
            path.write_text(text, encoding="utf-8")


def plan_folders(workflow: Path) -> list[Path]:
    """The Maestro-Flow plans by the rule of docs/formats.md."""
    found: list[Path] = []
    for folder in sorted(p for p in workflow.rglob("*") if p.is_dir()):
        rel = folder.relative_to(workflow).parts
        if any(p.startswith("WFS-") for p in rel) or rel[0] in ("active", "archives"):
            continue
        if any(folder.is_relative_to(f) for f in found):
            continue
        if (
            rel[0] == "sessions"
            and len(rel) == 2
            and list((folder / "runs").glob("*/outputs/plan.json"))
        ):
            found.append(folder)
        elif rel[0] != "sessions" and len(rel) <= 5:
            tasks = next((folder / d for d in (".task", "tasks") if (folder / d).is_dir()), None)
            has_plan = (folder / "plan.json").is_file() or (folder / "index.json").is_file()
            if tasks is not None and has_plan and list(tasks.glob("*.json")):
                found.append(folder)
    return found


def maestro_tasks(folder: Path) -> list[tuple[Path, dict[str, Any], bool]]:
    """(file, task, done as Maestro's files say) of a plan's tasks."""
    runs = sorted((folder / "runs").glob("*/outputs/tasks"))
    task_dir = (
        runs[-1] if runs else next(folder / d for d in (".task", "tasks") if (folder / d).is_dir())
    )
    out = []
    for path in sorted(task_dir.glob("*.json")):
        doc = load(path)
        if not isinstance(doc, dict):
            continue
        meta = doc.get("meta") if isinstance(doc.get("meta"), dict) else {}
        status = doc.get("status", meta.get("status"))
        summary = folder / ".summaries" / f"{doc.get('id')}-summary.md"
        out.append((path, doc, status in DONE or summary.is_file()))
    return out


class Run:
    def __init__(self, checkout: Path, root: Path, env: dict[str, str]) -> None:
        self.checkout, self.root, self.env = checkout, root, env

    def wfs(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "wfs", "--root", str(self.root), *args],
            capture_output=True,
            text=True,
            env={**self.env, "PYTHONPATH": str(self.checkout)},
            cwd=self.root,  # not this checkout's folder, which `-m` would import wfs from
            stdin=subprocess.DEVNULL,
            timeout=600,
        )


def measure(repo: Path, checkout: Path, by_hand: bool, tmp: Path, again: bool) -> dict[str, int]:
    root = tmp / "project"
    shutil.copytree(repo, root, symlinks=True)
    if again:
        for folder in plan_folders(root / ".workflow"):
            reset(folder)
    for path in root.rglob("*.json"):
        if path.parent.name in (".task", "tasks"):
            for name in named_files(load(path)):
                target = root / name
                if not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(f"source file {name}\n")
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "plan"],
    ):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    workflow = root / ".workflow"
    # What was to do, from the files as they are.
    # A session in two places is worked on where wfs looks first (active/, .workflow/,
    # archives/): the other copy is left alone, by design.
    places = {"active": 0, ".workflow": 1, "archives": 2}
    folders: dict[str, Path] = {}
    for folder in sorted(workflow.rglob("WFS-*"), key=lambda f: places.get(f.parent.name, 3)):
        if folder.is_dir() and (folder / ".task").is_dir():
            folders.setdefault(folder.name, folder)
    wfs_tasks = [
        (p, doc) for folder in folders.values() for p in sorted((folder / ".task").glob("*.json"))
        if isinstance(doc := load(p), dict) and doc.get("status") not in ("completed", "container")
    ]  # fmt: skip
    plans = plan_folders(workflow)
    todo_maestro = [(f, p, d) for f in plans for p, d, done in maestro_tasks(f) if not done]
    docs = [d for _, d in wfs_tasks] + [d for _, _, d in todo_maestro]
    texts = [c for d in docs for c in checks_of(d) + commands_of(d)]
    bin_dir, log, briefs = tmp / "bin", tmp / "argv.log", tmp / "briefs.md"
    bin_dir.mkdir()
    negated = tmp / "negated"
    calls = []
    for text in texts:
        line = text.strip().removeprefix("bash(").removesuffix(")")
        if line.startswith("! ") and not re.search(r"[|&;<>()$`]", line):
            calls.append("".join(f"{arg}\x1f" for arg in shlex.split(line[2:])))
    negated.write_text("".join(f"{c}\n" for c in calls))
    grep = shutil.which("grep") or "grep"
    for name in {w for t in texts for w in programs(t)}:
        (bin_dir / name).write_text(STANDIN.format(log=log, negated=negated, grep=grep))
        (bin_dir / name).chmod(0o755)
    agent = tmp / "agent"
    agent.write_text(AGENT.format(python=sys.executable, briefs=str(briefs)))
    agent.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFS_")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", WFS_AGENT=str(agent), NO_COLOR="1")
    run = Run(checkout, root, env)
    listed = json.loads(run.wfs("--json", "session", "list").stdout or "{}")
    found = {r.get("name") for r in listed.get("maestro", [])}
    figures = {
        "sessions": len(listed.get("sessions", [])),
        "plans": len(plans),
        "plans listed": sum(
            1 for f in plans if f.relative_to(workflow).as_posix() in found or f.name in found
        ),
    }
    for sid in sorted({p.parent.parent.name for p, _ in wfs_tasks}):
        done = run.wfs("--session", sid, "execute", "--all", "--force")
        if os.environ.get("MEASURE_DEBUG"):
            print(done.stdout[-1500:], done.stderr[-1500:], file=sys.stderr)
    if plans and by_hand:
        for folder in plans:
            made = json.loads(run.wfs("--json", "import", str(folder)).stdout or "{}")
            if made.get("session"):
                run.wfs("--session", made["session"], "execute", "--all")
    elif plans:
        done = run.wfs("execute", "--all")
        if os.environ.get("MEASURE_DEBUG"):
            print(done.stdout[-3000:], done.stderr[-3000:], file=sys.stderr)
    called = (
        {line.split("\x1f")[0] for line in log.read_text(encoding="utf-8").splitlines()}
        if log.exists()
        else set()
    )
    text = briefs.read_text(encoding="utf-8") if briefs.exists() else ""
    by_task: dict[tuple[str, str], str] = {}
    for brief in text.split("\n\x00\n"):
        head = re.match(r"# (\S+): .*\n\nSession (\S+),", brief)
        if head:
            by_task[(head.group(2), head.group(1))] = (
                by_task.get((head.group(2), head.group(1)), "") + brief
            )
    todo: list[tuple[dict[str, Any], str, str]] = [
        (d, p.parent.parent.name, str(d.get("id", d.get("task_id")))) for p, d in wfs_tasks
    ]
    for folder, _, doc in todo_maestro:  # the session each plan went to, and its id there
        for session in workflow.glob("WFS-*/workflow-session.json"):
            record = (load(session) or {}).get("imported_from") or {}
            if record.get("session") == folder.relative_to(root).as_posix():
                todo.append(
                    (doc, session.parent.name, record.get("ids", {}).get(str(doc.get("id")), "?"))
                )
                break
        else:
            todo.append((doc, "", ""))
    figures.update(
        tasks=len(todo),
        completed=0,
        checks=0,
        checks_done=0,
        every_check=0,
        every_field=0,
        fields=0,
        fields_carried=0,
    )
    statuses: dict[tuple[str, str], str] = {}
    for sid in {sid for _, sid, _ in todo if sid}:
        listing = json.loads(run.wfs("--json", "--session", sid, "task", "list").stdout or "{}")
        statuses.update(((sid, row["id"]), row["status"]) for row in listing.get("tasks", []))
    for doc, sid, tid in todo:
        completed = statuses.get((sid, tid)) == "completed"
        brief = by_task.get((sid, tid), "")
        checks = checks_of(doc)
        flat = " ".join(brief.split())
        handled = [
            c
            for c in checks
            if (programs(c) and programs(c) <= called) or " ".join(c.split()) in flat
        ]
        fields, carried = fields_carried(doc, brief)
        figures["completed"] += completed
        figures["checks"] += len(checks)
        figures["checks_done"] += len(handled)
        figures["every_check"] += completed and len(handled) == len(checks)
        figures["fields"] += fields
        figures["fields_carried"] += carried
        figures["every_field"] += completed and len(handled) == len(checks) and carried == fields
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--wfs", default=str(Path(__file__).resolve().parents[1]), help="a checkout of wfs"
    )
    parser.add_argument(
        "--import",
        dest="by_hand",
        action="store_true",
        help="import each Maestro plan by hand first",
    )
    parser.add_argument(
        "--again", action="store_true", help="set each Maestro plan back to its start first"
    )
    parser.add_argument("--only", help="one repository of the corpus")
    args = parser.parse_args()
    total: dict[str, int] = {}
    for repo in sorted(p for p in CORPUS.iterdir() if p.is_dir() and args.only in (None, p.name)):
        with tempfile.TemporaryDirectory() as tmp:
            figures = measure(repo, Path(args.wfs).resolve(), args.by_hand, Path(tmp), args.again)
        print(repo.name, figures)
        for key, value in figures.items():
            total[key] = total.get(key, 0) + value
    print("total", total)


if __name__ == "__main__":
    main()
