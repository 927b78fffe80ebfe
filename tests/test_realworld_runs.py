"""Every real plan runs as its author meant (issue 28).

Each repository of `../shared/corpus/realworld/` is copied into a fresh git repository
and run as its author would: a fake agent answers every agent step, and stand-ins on
PATH take the place of the programs the plans' commands call, recording their argv.
Nothing here names a file of the corpus: what each session must do is read from its
own files, so the same test checks any set of real sessions.

- Read commands leave `git status` clean.
- `validate --all` reports errors exactly for the files that truly break a plan (not
  JSON, a name that is not the id, two files for one id, a missing dependency, a cycle).
- Every unfinished leaf task whose JSON is valid is accepted by `execute ID --dry-run`,
  which lists every step and every check its file holds.
- `execute --all` completes every such task, and each verification command ran.
- Every file the author wrote is still there byte for byte, or, for a task file, differs
  only in the lines that say what the run did.
- A status change in a file with CRLF line ends is a one-line diff.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import orjson
import pytest
from conftest import CORPUS


@pytest.fixture(autouse=True)
def json_briefs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake agents here read the brief as JSON: ask for it (the default is the
    Markdown brief, tests/test_friction.py)."""
    monkeypatch.setenv("WFS_AGENT_INPUT", "json")


REALWORLD = CORPUS / "realworld"
MISSING = (
    f"the real-world corpus is not available at {REALWORLD} (it is kept outside the repository)"
)
REPOS = sorted(p.name for p in REALWORLD.iterdir() if p.is_dir()) if REALWORLD.is_dir() else []
GIT = shutil.which("git") or "git"
BASH = shutil.which("bash")
GREP = shutil.which("grep") or "grep"  # the real one: a stand-in may take its name

pytestmark = [
    pytest.mark.skipif(not REPOS, reason=MISSING),
    pytest.mark.skipif(
        sys.platform == "win32" or BASH is None, reason="the stand-ins are sh scripts"
    ),
]

# Programs the stand-ins never replace: wfs runs steps through them, and the tests and
# the engine's reverts use the real git.
REAL = {"bash", "sh", "env", "git", "wfs"}


class Run(NamedTuple):
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return orjson.loads(self.out)

    def result(self) -> Any:
        """What `wfs execute --json` ends with: its last line (events come before it)."""
        return orjson.loads(self.out.splitlines()[-1])


def git(root: Path, *args: str) -> str:
    return subprocess.run([GIT, *args], cwd=root, check=True, capture_output=True, text=True).stdout


class Project(NamedTuple):
    root: Path
    env: dict[str, str]
    log: Path  # one line per stand-in call: its argv, fields separated by \x1f

    def wfs(self, *args: str) -> Run:
        proc = subprocess.run(
            [sys.executable, "-m", "wfs", "--root", str(self.root), *args],
            capture_output=True,
            text=True,
            timeout=300,
            env=self.env,
            stdin=subprocess.DEVNULL,
        )
        run = Run(proc.returncode, proc.stdout, proc.stderr)
        assert "Traceback" not in run.out + run.err, run
        return run

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return [line.split("\x1f")[:-1] for line in text.splitlines() if line]


# ---------------------------------------------------------------- the files as written


def task_files(root: Path) -> Iterator[Path]:
    """The task files of the wfs sessions (`WFS-*` folders)."""
    for folder in root.rglob(".task"):
        if folder.is_dir() and folder.parent.name.startswith("WFS-"):
            yield from sorted(p for p in folder.iterdir() if p.suffix == ".json")


def load(path: Path) -> Any:
    return load_bytes(path.read_bytes())


def load_bytes(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return None


def task_id(doc: Any) -> Any:
    return doc.get("id", doc.get("task_id")) if isinstance(doc, dict) else None


def dependencies(doc: dict[str, Any]) -> list[str]:
    """Every place real task files keep their dependencies."""
    found: list[str] = []
    context = doc.get("context") if isinstance(doc.get("context"), dict) else {}
    meta = doc.get("meta") if isinstance(doc.get("meta"), dict) else {}
    for value in (
        context.get("depends_on"),
        doc.get("depends_on"),
        meta.get("depends_on"),
        meta.get("dependencies"),
        doc.get("dependencies"),
    ):
        if isinstance(value, list):
            found += [v for v in value if isinstance(v, str)]
    return found


def steps_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    flow = doc.get("flow_control") if isinstance(doc.get("flow_control"), dict) else {}
    found = []
    for key in ("pre_analysis", "implementation_approach"):
        value = flow.get(key)
        if isinstance(value, list):
            found += [s for s in value if isinstance(s, dict)]
    for key in ("implementation", "implementation_steps"):
        value = doc.get(key)
        if isinstance(value, list):
            found += [s for s in value if isinstance(s, dict)]
    return found


def verifications(doc: dict[str, Any]) -> list[str]:
    """The verification commands a task's steps hold."""
    found = []
    for step in steps_of(doc):
        value = step.get("verification")
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and text.strip():
                found.append(text)
    return found


def broken(session: Path) -> set[str]:
    """The task files of a session that truly break its plan, as paths relative to it:
    not JSON, an id that is not `IMPL-N[.M]`, a name that is not the id, one id in two
    files, a dependency on a task that does not exist, a dependency cycle."""
    files = sorted(p for p in (session / ".task").glob("*.json"))
    docs = {p: load(p) for p in files}
    bad = {p for p, d in docs.items() if not isinstance(d, dict)}
    by_id: dict[str, list[Path]] = {}
    for path, doc in docs.items():
        tid = task_id(doc) if path not in bad else path.stem  # unreadable: named by its file
        if not isinstance(tid, str):
            continue
        by_id.setdefault(tid, []).append(path)
        if path in bad:
            continue
        if not re.fullmatch(r"IMPL-[0-9]+(\.[0-9]+)?", tid):
            bad.add(path)  # the id format the spec fixes (SPEC section 2)
        if not (path.stem == tid or path.stem.startswith(tid + "-")):
            bad.add(path)
    bad.update(p for paths in by_id.values() if len(paths) > 1 for p in paths)
    graph = {
        tid: dependencies(docs[paths[0]])
        for tid, paths in by_id.items()
        if len(paths) == 1 and paths[0] not in bad
    }
    for tid, deps in graph.items():
        if any(d not in by_id for d in deps):
            bad.update(by_id[tid])
    # a cycle: a task that reaches itself
    for start in graph:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            tid = todo.pop()
            if tid == start:
                bad.update(by_id[start])
                break
            if tid in seen or tid not in graph:
                continue
            seen.add(tid)
            todo += graph[tid]
    return {p.relative_to(session).as_posix() for p in bad}


# ---------------------------------------------------------------- stand-ins


def command_words(shell: str) -> set[str]:
    """The programs a bash command line calls: the first word of each simple command."""
    try:
        lexer = shlex.shlex(shell, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return set()
    words, first = set(), True
    for token in tokens:
        if token and set(token) <= set("|&;()<>"):
            first = token not in ("<", ">", ">>", "<<", "2>", "&>")
            continue
        if first and "=" in token and not token.startswith("="):
            continue  # NAME=value before the command
        if first:
            words.add(token)
        first = False
    return {w for w in words if w and "/" not in w and "$" not in w and "[" not in w}


def builtins() -> set[str]:
    out = subprocess.run(
        [BASH or "bash", "-c", "compgen -b; compgen -k"], capture_output=True, text=True
    ).stdout
    return set(out.split())


# A stand-in records its argv, and succeeds, unless the fake agent's last work left the
# checks failing, or the call is one a check negates (`! grep -q old src/a.ts`): the
# work the agent did is what such a check wants, so the program finds nothing.
STANDIN = """#!/bin/sh
called=$(printf '%s\\037' "$(basename "$0")" "$@")
printf '%s\\n' "$called" >> "{log}"
[ "$(cat "{state}" 2>/dev/null)" = fail ] && exit 1
"{grep}" -qxF -- "$called" "{negated}" 2>/dev/null && exit 1
exit 0
"""

# The fake agent does what each brief asks: a red step writes failing tests (every
# check fails until the next green step), anything else makes them pass.
AGENT = """#!{python}
import json, sys
brief = json.loads(sys.stdin.read() or "{{}}")
task = brief.get("task") or {{}}
flow = task.get("flow_control") if isinstance(task.get("flow_control"), dict) else {{}}
phase = None
for step in brief.get("steps") or []:
    part, _, n = str(step.get("key", "")).partition("/")
    specs = flow.get(part) if isinstance(flow.get(part), list) else []
    if n.isdigit() and 0 < int(n) <= len(specs) and isinstance(specs[int(n) - 1], dict):
        phase = specs[int(n) - 1].get("tdd_phase", phase)
if brief.get("fix"):
    phase = "green"
with open({state!r}, "w") as f:
    f.write("fail" if phase == "red" else "pass")
with open({briefs!r}, "a") as f:
    f.write(json.dumps(brief) + "\\n")
print("## TASK COMPLETE")
print("Done as the brief asks.")
"""


def standins(tmp: Path, shells: set[str]) -> tuple[dict[str, str], Path]:
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    log, state = tmp / "argv.log", tmp / "state"
    skip = REAL | builtins()
    names = {w for shell in shells for w in command_words(shell)} - skip
    names |= {"gemini", "qwen", "codex", "claude"}
    negated = tmp / "negated"
    negated.write_text("".join(f"{line}\n" for line in negated_calls(shells)))
    for name in names:
        tool = bin_dir / name
        tool.write_text(STANDIN.format(log=log, state=state, negated=negated, grep=GREP))
        tool.chmod(0o755)
    agent = tmp / "fake-agent"
    agent.write_text(
        AGENT.format(python=sys.executable, state=str(state), briefs=str(tmp / "briefs.jsonl"))
    )
    agent.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "WFS_AGENT": str(agent),
        "NO_COLOR": "1",
    }
    for name in ("WFS_ROOT", "WFS_SESSION", "WFS_NO_CACHE", "WFS_LOCK_TIMEOUT"):
        env.pop(name, None)
    return env, log


def negated_calls(shells: set[str]) -> list[str]:
    """The argv (fields ended by \\x1f, as the stand-ins log them) of each command a
    check negates with `!`."""
    found = []
    for shell in shells:
        text = shell.strip()
        if text.startswith("! ") and not re.search(r"[|&;<>()$`]", text):
            try:
                argv = shlex.split(text[2:])
            except ValueError:
                continue
            found.append("".join(f"{arg}\x1f" for arg in argv))
    return found


def all_shells(root: Path) -> set[str]:
    """Every command text in the task files, of wfs sessions and Maestro-Flow plans:
    step commands and verifications, and the checks of the task as a whole."""
    found: set[str] = set()
    paths = [*task_files(root), *(p for plan in maestro_plans(root).values() for p in plan.tasks)]
    for path in paths:
        doc = load(path)
        if not isinstance(doc, dict):
            continue
        texts: list[Any] = [t for t in task_checks(doc) if names_a_program(t)]
        for step in steps_of(doc):
            for key in ("command", "commands", "verification"):
                value = step.get(key)
                texts += value if isinstance(value, list) else [value]
        for text in texts:
            if isinstance(text, str):
                found.add(text.removeprefix("bash(").removesuffix(")").strip("'\""))
    return found


# Words that open a sentence in a check, never a program a project calls: no stand-in
# takes their name (one would make the sentence look like a command line).
SENTENCE_WORDS = frozenset("all the a an verify run check ensure confirm open read see use".split())


def names_a_program(text: str) -> bool:
    """Whether a check may call a program the project has: it opens with a word in
    lowercase ASCII, or `bash(`, `!`, `cd` (a criterion in words opens with a capital, a
    word of another script, or a sentence's word)."""
    first = text.strip().split(None, 1)[0] if text.strip() else ""
    return bool(re.fullmatch(r"[a-z][a-z0-9._+-]*|bash\(.*|!", first)) and (
        first not in SENTENCE_WORDS
    )


def task_checks(doc: dict[str, Any]) -> Iterator[str]:
    """The checks of a task as a whole, as its file writes them: convergence
    verification and criteria (or convergence itself as a string or an array), test
    commands, verify, verification, acceptance criteria."""
    convergence = doc.get("convergence")
    if isinstance(convergence, dict):
        values = [convergence.get("verification"), convergence.get("criteria")]
    else:
        values = [convergence]
    test = doc.get("test") if isinstance(doc.get("test"), dict) else {}
    commands = test.get("commands")
    values += [commands if not isinstance(commands, dict) else list(commands.values())]
    values += [doc.get(k) for k in ("verify", "verification", "acceptance_criteria")]
    values += [doc.get("convergence_criteria")]
    for value in values:
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and text.strip():
                yield text


# ---------------------------------------------------------------- Maestro-Flow plans


class Plan(NamedTuple):
    """A Maestro-Flow (or lite-plan) plan as its files are, found by the rule of
    docs/formats.md: plan.json or index.json beside a task folder of JSON files, under
    .workflow/ (not in a wfs session), or a session of .workflow/sessions/ with a plan
    run."""

    folder: Path  # where its plan.json, .task/ and .summaries/ are
    tasks: list[Path]


def maestro_plans(root: Path) -> dict[str, Plan]:
    """Plan name (its place under .workflow/) -> the plan."""
    workflow = root / ".workflow"
    found: dict[str, Plan] = {}
    for folder in sorted(p for p in workflow.rglob("*") if p.is_dir()):
        rel = folder.relative_to(workflow)
        if any(part.startswith("WFS-") for part in rel.parts) or rel.parts[0] in (
            "active",
            "archives",
        ):
            continue
        if rel.parts[0] == "sessions" and len(rel.parts) == 2:
            runs = sorted((folder / "runs").glob("*/outputs/plan.json"))
            if runs:
                tasks = sorted((runs[-1].parent / "tasks").glob("*.json"))
                found[rel.as_posix()] = Plan(runs[-1].parent, tasks)
            continue
        if rel.parts[0] == "sessions" or len(rel.parts) > 5:
            continue
        task_dir = next((folder / d for d in (".task", "tasks") if (folder / d).is_dir()), None)
        plan_file = (folder / "plan.json").is_file() or (folder / "index.json").is_file()
        if task_dir is not None and plan_file and any(task_dir.glob("*.json")):
            if not any(rel.as_posix().startswith(f"{name}/") for name in found):
                found[rel.as_posix()] = Plan(folder, sorted(task_dir.glob("*.json")))
    return found


DONE = ("completed", "completed_with_deviations", "done")


def is_done(plan: Plan, doc: dict[str, Any]) -> bool:
    """As Maestro's own files say: its status (at the top, in meta, in its execution
    record) or the summary Maestro writes when a task succeeds."""
    meta = doc.get("meta") if isinstance(doc.get("meta"), dict) else {}
    execution = doc.get("execution") if isinstance(doc.get("execution"), dict) else {}
    status = doc.get("status", meta.get("status", execution.get("status")))
    source = task_id(doc)
    summaries = plan.folder / ".summaries"
    summarized = any((summaries / f"{source}-summary{ext}").is_file() for ext in (".md", ".json"))
    return status in DONE or summarized


def plan_rows(project: Project) -> dict[str, dict[str, Any]]:
    run = project.wfs("session", "list", "--json")
    assert run.code == 0, run
    return {row["name"]: row for row in run.json().get("maestro", [])}


@pytest.mark.slow
def test_every_maestro_plan_is_listed_with_its_tasks_counted_from_its_files(
    project: Project,
) -> None:
    plans = maestro_plans(project.root)
    rows = plan_rows(project)
    assert sorted(rows) == sorted(plans)
    for name, plan in plans.items():
        docs = [load(p) for p in plan.tasks]
        assert all(isinstance(d, dict) for d in docs), name  # the corpus's plans are whole
        done = sum(1 for d in docs if is_done(plan, d))
        assert (rows[name]["tasks"], rows[name]["completed"]) == (len(docs), done), name
    status = project.wfs("status")
    for name in plans:
        assert name in status.out
    checked = project.wfs("validate", "--all", "--json")
    assert [
        p
        for p in checked.json()["problems"]
        if p["severity"] == "error"
        and p["where"].split("#")[0].startswith(tuple(f".workflow/{n}" for n in plans))
    ] == []


def named_files(doc: dict[str, Any]) -> list[str]:
    """The files of the project a task names (`files`, `read_first`, `focus_paths`)."""
    found = []
    files = doc.get("files")
    entries = files if isinstance(files, list) else []
    if isinstance(files, dict):
        entries = [e for v in files.values() if isinstance(v, list) for e in v]
    for entry in entries + list(doc.get("read_first") or []) + list(doc.get("focus_paths") or []):
        path = entry.get("path") if isinstance(entry, dict) else entry
        if isinstance(path, str) and re.fullmatch(r"[\w./@-]+\.\w+", path) and ".." not in path:
            found.append(path)
    return found


def reset(plan: Plan) -> None:
    """The plan as it was before Maestro ran it: no summary, every status to do."""
    shutil.rmtree(plan.folder / ".summaries", ignore_errors=True)
    for path in plan.tasks:
        text = path.read_text(encoding="utf-8")
        for done in DONE:
            text = re.sub(rf'("status"\s*:\s*)"{done}"', r'\1"pending"', text)
        path.write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_a_fresh_clone_of_maestro_plans_runs_them_to_completed_with_every_check(
    repo: str, tmp_path: Path
) -> None:
    """As a new user would: a clone that holds Maestro-Flow plans (each plan set back to
    its start, so that every task runs), `wfs status` names the plans, and `wfs execute
    --all` runs them to completed, running every check that is a command and giving the
    agent every other one; Maestro's files stay as they are."""
    if not maestro_plans(REALWORLD / repo):
        pytest.skip(f"{repo} holds no Maestro-Flow plan")
    root = tmp_path / "project"
    shutil.copytree(REALWORLD / repo, root, symlinks=True)
    plans = maestro_plans(root)
    for plan in plans.values():
        reset(plan)
        for path in plan.tasks:  # the project's files the tasks name, which the corpus lacks
            for name in named_files(load(path)):
                target = root / name
                if not target.exists() and root in target.resolve().parents:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(f"source file {name}\n")
    project = make_project_at(root, tmp_path)
    maestro_files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for plan in plans.values()
        for p in plan.folder.parent.rglob("*")
        if p.is_file()
    }
    status = project.wfs("status")
    assert status.code == 0, status
    assert all(name in status.out for name in plans), status.out
    run = project.wfs("execute", "--all", "--json")
    assert run.code == 0, run
    rows = plan_rows(project)
    for name, plan in plans.items():
        assert rows[name]["completed"] == rows[name]["tasks"] == len(plan.tasks), rows[name]
    called = {argv[0] for argv in project.calls()}
    shown: set[str] = set()  # what the briefs gave the agent to verify, or as acceptance
    for line in (tmp_path / "briefs.jsonl").read_text(encoding="utf-8").splitlines():
        context = orjson.loads(line)["context"]
        shown |= {c["text"] for c in context.get("verify", [])}
        shown |= set(context.get("acceptance", []))
        shown |= {context["convergence"].get("verification")} if "convergence" in context else set()
    for plan in plans.values():
        for path in plan.tasks:
            for check in task_checks(load(path)):
                words = command_words(check) - REAL - builtins()
                ran = bool(words) and words <= called
                assert ran or check in shown, (path.name, check)
    for rel, data in maestro_files.items():
        assert (root / rel).read_bytes() == data, f"{rel} was written"
    new = {line[3:].split("/")[1] for line in git_status(root)}
    assert all(n == ".gitignore" or n.startswith("WFS-") for n in new), git_status(root)


# ---------------------------------------------------------------- the project


def make_project(repo: str, tmp_path: Path) -> Project:
    root = tmp_path / "project"
    shutil.copytree(REALWORLD / repo, root, symlinks=True)
    return make_project_at(root, tmp_path)


def make_project_at(root: Path, tmp_path: Path) -> Project:
    """The files at `root` committed in a fresh git repository, with the stand-ins."""
    git(root, "init", "-q")
    git(root, "config", "user.email", "author@example.com")
    git(root, "config", "user.name", "Author")
    git(root, "config", "core.autocrlf", "false")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the plan as committed")
    env, log = standins(tmp_path, all_shells(root))
    return Project(root, env, log)


def git_status(root: Path) -> list[str]:
    return git(root, "status", "--porcelain").splitlines()


@pytest.fixture(params=REPOS)
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Project:
    return make_project(request.param, tmp_path)


@pytest.fixture(params=REPOS)
def repo(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def sessions(project: Project) -> list[dict[str, Any]]:
    run = project.wfs("session", "list", "--json")
    assert run.code == 0, run
    return list(run.json()["sessions"])


def session_dir(project: Project, sid: str) -> Path:
    places = [p for p in project.root.rglob(sid) if (p / ".task").is_dir() or p.is_dir()]
    places = [p for p in places if p.parent.name in (".workflow", "active", "archives")]
    places.sort(key=lambda p: p.parent.name == "archives")  # wfs works on active/ first
    assert places, sid
    return places[0]


def runnable(project: Project, sid: str) -> list[str]:
    """The unfinished leaf tasks of a session whose JSON is valid, with every task they
    depend on valid too."""
    rows = project.wfs("--session", sid, "task", "list", "--json").json()["tasks"]
    files = [Path(name).stem for name in broken(session_dir(project, sid))]
    bad = {
        row["id"]
        for row in rows
        if any(f == row["id"] or f.startswith(f"{row['id']}-") for f in files)
    }
    while True:  # a task that waits on an invalid one cannot run either
        more = {row["id"] for row in rows if set(row["depends_on"]) & bad} - bad
        if not more:
            break
        bad |= more
    return [
        row["id"]
        for row in rows
        if not row["container"] and row["status"] != "completed" and row["id"] not in bad
    ]


# ---------------------------------------------------------------- the tests


@pytest.mark.slow
def test_read_commands_leave_git_status_clean(project: Project) -> None:
    for session in sessions(project):
        sid = session["id"]
        for args in (
            ("status",),
            ("status", "--json"),
            ("next",),
            ("task", "list"),
            ("execute", "--dry-run"),
            ("render", "--check"),
        ):
            project.wfs("--session", sid, *args)
    project.wfs("validate", "--all")
    project.wfs("session", "list")
    assert git_status(project.root) == []


@pytest.mark.slow
def test_validate_reports_errors_exactly_for_what_breaks_a_plan(project: Project) -> None:
    run = project.wfs("validate", "--all", "--json")
    found = run.json()
    errors = {
        p["where"].split("#")[0].split(":")[0]
        for p in found["problems"]
        if p["severity"] == "error"
    }
    expected = set()
    for folder in {p.parent for p in task_files(project.root)}:
        session = folder.parent
        rel = session.relative_to(project.root).as_posix()
        expected |= {f"{rel}/{name}" for name in broken(session)}
    assert errors == expected, found["problems"]
    assert run.code == (1 if expected else 0)


def read_targets(plan: dict[str, Any]) -> list[str]:
    return [
        part["path"] for step in plan["steps"] for part in step["parts"] if part["kind"] == "read"
    ]


def step_checks(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for step in plan["steps"] for c in step.get("checks", []) if c["of"] == "step"]


def dry_run(project: Project, sid: str, tid: str) -> dict[str, Any]:
    run = project.wfs("--session", sid, "execute", tid, "--dry-run", "--json")
    assert run.code == 0, run
    plan = run.json()
    assert (plan["task"], plan["refused"]) == (tid, []), plan
    return plan


def task_doc(project: Project, sid: str, tid: str) -> dict[str, Any]:
    folder = session_dir(project, sid)
    [doc] = [d for p in (folder / ".task").glob("*.json") if task_id(d := load(p)) == tid]
    return doc


@pytest.mark.slow
def test_every_unfinished_valid_task_is_accepted_with_every_step_and_check(
    project: Project,
) -> None:
    for session in sessions(project):
        sid = session["id"]
        for tid in runnable(project, sid):
            plan = dry_run(project, sid, tid)
            doc = task_doc(project, sid, tid)
            keys = [step["key"] for step in plan["steps"]]
            flow = doc.get("flow_control") if isinstance(doc.get("flow_control"), dict) else {}
            for part in ("pre_analysis", "implementation_approach"):
                written = flow.get(part)
                if isinstance(written, list):  # each step as written, in its order
                    listed = [k for k in keys if k.startswith(f"{part}/")]
                    assert listed == [f"{part}/{n}" for n in range(1, len(written) + 1)], tid
            assert keys, tid
            assert len(step_checks(plan)) == len(verifications(doc)), (tid, plan)


@pytest.mark.slow
def test_execute_all_completes_every_unfinished_valid_task_running_every_check(
    project: Project,
) -> None:
    authored = {
        p.relative_to(project.root).as_posix(): p.read_bytes()
        for p in project.root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(project.root).parts
    }
    for session in sessions(project):
        sid = session["id"]
        todo = runnable(project, sid)
        if not todo:
            continue
        for tid in todo:  # the project's own files, which the corpus does not hold
            for target in read_targets(dry_run(project, sid, tid)):
                path = project.root / target
                if not Path(target).is_absolute() and "*" not in target and not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(f"source file {target}\n")
        finished = session["status"] in ("completed", "archived") or "/archives/" in str(
            session_dir(project, sid).as_posix()
        )
        run = project.wfs(
            "--session", sid, "execute", "--all", "--json", *(["--force"] if finished else [])
        )
        assert run.code == 0, run
        rows = project.wfs("--session", sid, "task", "list", "--json").json()["tasks"]
        status = {row["id"]: row["status"] for row in rows}
        assert {tid: status[tid] for tid in todo} == dict.fromkeys(todo, "completed"), run
        called = {argv[0] for argv in project.calls()}
        for tid in todo:
            for command in verifications(task_doc(project, sid, tid)):
                words = command_words(command) - REAL - builtins()
                assert words <= called, (tid, command, sorted(called))
    # What the authors wrote is all still there: a task file differs only in what the
    # run did (its status line, and the execution record added), every other file is
    # byte for byte where it was or in a copy next to it.
    changed = {
        line.split("\t")[2]: int(line.split("\t")[1])
        for line in git(project.root, "diff", "--numstat").splitlines()
    }
    for rel, data in authored.items():
        path = project.root / rel
        before = load_bytes(data)
        if path.parent.name == ".task" and isinstance(before, dict):
            after = load(path)
            drop = ("status", "execution")
            assert {k: v for k, v in after.items() if k not in drop} == {
                k: v for k, v in before.items() if k not in drop
            }, rel
            if "execution" not in before:  # the status line, and a comma before the record
                assert changed.get(rel, 0) <= 2, git(project.root, "diff", "--", rel)
            continue
        kept = path.exists() and path.read_bytes() == data
        copies = [p for p in path.parent.glob(f"{path.stem}*") if p.read_bytes() == data]
        assert kept or copies, f"{rel} was overwritten and no copy kept"


@pytest.mark.slow
def test_a_status_change_is_a_one_line_diff_in_lf_and_crlf_files(project: Project) -> None:
    for session in sessions(project):
        sid = session["id"]
        todo = runnable(project, sid)
        if not todo:
            continue
        folder = session_dir(project, sid)
        [path] = [p for p in (folder / ".task").glob("*.json") if task_id(load(p)) == todo[0]]
        for ends in (b"\n", b"\r\n"):
            data = path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", ends)
            path.write_bytes(data)
            git(project.root, "add", "-A")
            git(project.root, "commit", "-qm", "line ends", "--allow-empty")
            run = project.wfs("--session", sid, "task", "status", todo[0], "blocked")
            assert run.code == 0, run
            rel = path.relative_to(project.root).as_posix()
            numstat = git(project.root, "diff", "--numstat", "--", rel)
            assert numstat == f"1\t1\t{rel}\n", git(project.root, "diff", "--", rel)
            # and nothing else a person wrote changed: a view written by hand stays as it
            # is (`wfs render` takes it over when asked), so the diff is that one line
            changed = git(project.root, "diff", "--numstat").splitlines()
            others = [line for line in changed if not line.endswith(rel)]
            assert all("workflow-session.json" in line for line in others), changed
            assert path.read_bytes().count(ends) == data.count(ends)
            git(project.root, "checkout", "--", rel)
        return


TDD_TASK = {
    "id": "IMPL-900",
    "title": "Users table, test first",
    "status": "pending",
    "meta": {"type": "feature", "agent": "@code-developer"},
    "context": {"requirements": ["a users table"], "focus_paths": ["server/src"]},
    "flow_control": {
        "implementation_approach": [
            {
                "step": 1,
                "title": "Write the failing test",
                "description": "A test of the users table",
                "tdd_phase": "red",
                "verification": "npm test -- users",
                "expected_failure": "the users table does not exist",
            },
            {
                "step": 2,
                "title": "Make it pass",
                "description": "Create the users table",
                "tdd_phase": "green",
                "verification": "npm test -- users",
                "test_fix_cycle": {"max_iterations": 3, "auto_revert": True},
            },
            {
                "step": 3,
                "title": "Clean up",
                "description": "Name things well",
                "tdd_phase": "refactor",
                "verification": "npm test -- users",
            },
        ]
    },
}


@pytest.mark.slow
def test_a_test_driven_task_as_the_design_writes_it_runs_each_check(tmp_path: Path) -> None:
    repo = next((r for r in REPOS if any(task_files(REALWORLD / r))), None)
    if repo is None:
        pytest.skip(MISSING)
    project = make_project(repo, tmp_path)
    sid = sessions(project)[0]["id"]
    folder = session_dir(project, sid)
    (folder / ".task" / "IMPL-900.json").write_bytes(orjson.dumps(TDD_TASK))
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "a test-driven task")
    standin = STANDIN.format(
        log=project.log, state=tmp_path / "state", negated=tmp_path / "negated", grep=GREP
    )
    (tmp_path / "bin" / "npm").write_text(standin)
    (tmp_path / "bin" / "npm").chmod(0o755)
    plan = dry_run(project, sid, "IMPL-900")
    assert [(c["phase"], c["must"]) for c in step_checks(plan)] == [
        ("red", "fail"),
        ("green", "pass"),
        ("refactor", "pass"),
    ]
    run = project.wfs("--session", sid, "execute", "IMPL-900", "--json")
    assert run.code == 0, run
    [task] = run.result()["tasks"]
    assert task["status"] == "completed", task
    # The red check ran and failed (the agent had written the test), then green and
    # refactor saw it pass: npm ran three times with the author's argv.
    assert [argv for argv in project.calls() if argv[0] == "npm"] == [
        ["npm", "test", "--", "users"]
    ] * 3
