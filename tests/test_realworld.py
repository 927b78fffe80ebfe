"""Every session of the real-world corpus is read, validated and run (issue 13).

`../shared/corpus/realworld/` holds `.workflow/` trees people committed while using the
tool this design comes from: every layout (`.workflow/WFS-*` with one or two markers,
`active/` and `archives/`, one session in both), every task format (seed v2, v1 and
other object approaches, the flat format, `task_id`, dependencies in five places) and
files broken in their repositories. Each session is run through the real CLI (a
subprocess), both in place, as part of its repository's whole tree (read-only commands,
with the cache off so that nothing is written there), and copied alone into a fresh
project, where the next ready task is executed with fake CLIs and a fake agent.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import orjson
import pytest
from conftest import CORPUS

REALWORLD = CORPUS / "realworld"
MISSING = (
    f"the real-world corpus is not available at {REALWORLD} (it is kept outside the repository)"
)


class Session(NamedTuple):
    repo: str
    folder: str  # inside the repository
    counts: dict[str, int]  # pending, active, completed, blocked (no containers in the corpus)
    ready: list[str]
    steps: list[tuple[str, list[str]]]  # the dry run of the next ready task: key, part kinds
    executed: tuple[str, ...]  # execute: overall status, then the task's status and reason


def counts(pending: int = 0, completed: int = 0) -> dict[str, int]:
    return {"pending": pending, "active": 0, "completed": completed, "blocked": 0, "container": 0}


ZZQ = "zzq12345-cq__AI-Ideological-and-Political-Education-Teaching-System"
HAPI = ".workflow/{}/WFS-add-multi-user-support-to-hapi-with-data-isolation"
AGENT = "agent"
# Every session file of the corpus, with what its tasks say: how many there are, which
# are ready whatever places their dependencies are written in, what the next one runs,
# and how a real run of it ends (the projects' source files are not in the corpus, so
# a step reading one fails, and the task is blocked rather than completed).
SESSIONS = [
    Session(
        "Johnhpure__music",
        ".workflow/WFS-miniprogram-api-integration",  # task_id, top-level depends_on
        counts(pending=1, completed=3),
        ["IMPL-004"],
        # an object approach (strategy, phases) and notes as pre_analysis: one step
        [("implementation_approach/1", [AGENT])],
        ("completed", "IMPL-004", "completed"),
    ),
    Session(
        "Johnhpure__music",
        ".workflow/WFS-music-platform-analysis",
        counts(completed=1),
        [],
        [],
        ("idle",),
    ),
    Session(
        "Rorschach3__credit-clarity",
        ".workflow/active/WFS-brainstorm-for-a-prd",
        counts(completed=6),
        [],
        [],
        ("idle",),
    ),
    Session(
        "Rorschach3__credit-clarity",
        ".workflow/archives/WFS-brainstorm-for-a-prd",
        counts(completed=6),
        [],
        [],
        ("idle",),
    ),
    Session(
        "Rorschach3__credit-clarity",
        ".workflow/active/WFS-diagnose-tradeline-extraction",  # no .task folder
        counts(),
        [],
        [],
        ("idle",),
    ),
    Session(
        "Rorschach3__credit-clarity",
        ".workflow/active/WFS-implement-credit-clarity-platform",  # meta.depends_on
        counts(pending=12),
        ["IMPL-001", "IMPL-002"],
        [("task", [AGENT])],  # no steps: one agent step for the whole task
        ("completed", "IMPL-001", "completed"),
    ),
    Session(
        "Timeink88__tvbox-aggregator",
        ".workflow/active/WFS-fix-config-data-inconsistency",  # IMPL-005 is invalid JSON
        counts(pending=1, completed=5),
        [],
        [],
        ("invalid", "IMPL-005"),  # nothing ran because of it: exit 1, naming it
    ),
    Session(
        "Timeink88__tvbox-aggregator",
        ".workflow/active/WFS-fix-deno-deploy-api-routes-404",
        counts(pending=4),
        ["IMPL-001"],
        [
            # Read({{context_package_path}}), and Read() of D:\...\.workflow\... paths
            ("pre_analysis/1", ["read"]),
            ("pre_analysis/2", ["read", "read"]),
            ("pre_analysis/3", ["bash"]),
            ("implementation_approach/1", [AGENT]),
            ("implementation_approach/2", [AGENT]),
            ("implementation_approach/3", [AGENT]),
            ("implementation_approach/4", [AGENT]),
        ],
        ("completed", "IMPL-001", "completed"),
    ),
    Session(
        "flintttan__hapi",
        HAPI.format("active"),
        counts(pending=8),
        ["IMPL-001"],
        [
            ("pre_analysis/1", ["read"]),
            ("pre_analysis/2", ["read", AGENT]),
            ("pre_analysis/3", ["bash"]),
            ("implementation_approach/1", [AGENT]),
            ("implementation_approach/2", [AGENT]),
            ("implementation_approach/3", [AGENT]),
            ("implementation_approach/4", [AGENT]),
        ],
        (
            "failed",
            "IMPL-001",
            "blocked",
            "step pre_analysis/2 (analyze_existing_schema) failed: exit code 1: "
            "Read(server/src/store/index.ts): no such file",
        ),
    ),
    Session(
        "flintttan__hapi",
        HAPI.format("archives"),
        counts(pending=3, completed=5),
        ["IMPL-002", "IMPL-004"],
        [
            # reads .workflow/active/<this session>/..., found where the session is now
            ("pre_analysis/1", ["read"]),
            ("pre_analysis/2", ["read", AGENT]),
            ("pre_analysis/3", ["bash"]),
            ("implementation_approach/1", [AGENT]),
            ("implementation_approach/2", [AGENT]),
            ("implementation_approach/3", [AGENT]),
            ("implementation_approach/4", [AGENT]),
            ("implementation_approach/5", [AGENT]),
        ],
        (
            "failed",
            "IMPL-002",
            "blocked",
            "step pre_analysis/2 (analyze_auth_flow) failed: exit code 1: "
            "Read(server/src/web/routes/auth.ts): no such file",
        ),
    ),
    Session(
        "njiokm7788-jpg__note-make",
        ".workflow/archives/WFS-image-mask-refactor",  # flat, `dependencies`
        counts(completed=14),
        [],
        [],
        ("idle",),
    ),
    Session(
        "njiokm7788-jpg__note-make",
        ".workflow/archives/WFS-optimize-frontend",  # flat, task_id, implementation_steps
        counts(completed=4),
        [],
        [],
        ("idle",),
    ),
    Session(
        "timi233__QDmgt",
        ".workflow/WFS-channel-management",
        counts(pending=8),
        ["IMPL-001"],
        [
            ("pre_analysis/1", ["read"]),
            ("pre_analysis/2", ["read"]),
            ("pre_analysis/3", ["read"]),
            ("implementation_approach/1", [AGENT]),
            ("implementation_approach/2", [AGENT]),
            ("implementation_approach/3", [AGENT]),
        ],
        ("completed", "IMPL-001", "completed"),
    ),
    Session(
        ZZQ,
        ".workflow/WFS-class-data-analytics",  # flat, task_id, `dependencies`
        counts(pending=5),
        ["IMPL-1"],
        [("task", [AGENT])],
        ("completed", "IMPL-1", "completed"),
    ),
    Session(
        ZZQ,
        ".workflow/WFS-notification-system",  # meta.dependencies, implementation_steps
        counts(pending=5),
        ["IMPL-1"],
        [
            ("pre_analysis/1", ["read", "read"]),
            ("pre_analysis/2", ["bash"]),
            ("implementation_approach/1", [AGENT]),
            ("implementation_approach/2", [AGENT]),
            ("implementation_approach/3", [AGENT]),
        ],
        (
            "failed",
            "IMPL-1",
            "blocked",
            "step pre_analysis/1 (load_reference_patterns) failed: exit code 1: "
            "Read(src/hotspot/NewsItem.h): no such file",
        ),
    ),
    Session(
        ZZQ,
        ".workflow/WFS-teacher-lesson-workflow",
        counts(pending=3, completed=1),
        ["IMPL-002"],
        [
            # pre_analysis steps with a target file and no command go to the agent
            ("pre_analysis/1", [AGENT]),
            ("pre_analysis/2", [AGENT]),
            ("pre_analysis/3", [AGENT]),
            ("implementation_approach/1", [AGENT]),
            ("implementation_approach/2", [AGENT]),
            ("implementation_approach/3", [AGENT]),
            ("implementation_approach/4", [AGENT]),
            ("implementation_approach/5", [AGENT]),
        ],
        ("completed", "IMPL-002", "completed"),
    ),
]

# What `validate --all` must name in each repository: every error, and the folders that
# are not one session each. Everything else it reports is a warning naming `wfs migrate`.
PROBLEMS = {
    "Johnhpure__music": [
        ".workflow/WFS-music-platform-analysis/.task/ANALYSIS-001.json#/id: id-format: task id "
        '"ANALYSIS-001" has the prefix "ANALYSIS-"; ids are IMPL-N or IMPL-N.M',
        # Its step's output "ANALYSIS_RESULTS.md" is a label: no later step uses it.
    ],
    "Rorschach3__credit-clarity": [
        ".workflow/archives/WFS-brainstorm-for-a-prd: layout: warning: session "
        "WFS-brainstorm-for-a-prd is in 2 places (.workflow/active/WFS-brainstorm-for-a-prd/, "
        ".workflow/archives/WFS-brainstorm-for-a-prd/); wfs works on "
        ".workflow/active/WFS-brainstorm-for-a-prd/ and leaves the others alone: keep one",
    ],
    "Timeink88__tvbox-aggregator": [
        ".workflow/active/WFS-fix-config-data-inconsistency/.task/IMPL-005.json:133:12: json: "
        "invalid JSON: no digit after sign",
    ],
    "flintttan__hapi": [
        f"{HAPI.format('archives')}: layout: warning: session "
        "WFS-add-multi-user-support-to-hapi-with-data-isolation is in 2 places "
        f"({HAPI.format('active')}/, {HAPI.format('archives')}/); wfs works on "
        f"{HAPI.format('active')}/ and leaves the others alone: keep one",
    ],
    "njiokm7788-jpg__note-make": [],
    "timi233__QDmgt": [],
    ZZQ: [],
}
UNREADABLE = {
    "WFS-fix-config-data-inconsistency": ".workflow/active/WFS-fix-config-data-inconsistency/"
    ".task/IMPL-005.json:133:12: invalid JSON: no digit after sign",
}


def sid_of(session: Session) -> str:
    return Path(session.folder).name


def shadowed(session: Session) -> bool:
    """A second copy of a session (in archives/ while it is also in active/), which
    `--session` does not reach in its repository."""
    return any(
        o.repo == session.repo and sid_of(o) == sid_of(session) and "/active/" in o.folder
        for o in SESSIONS
        if o is not session
    )


def ids(session: Session) -> str:
    return f"{session.repo}:{session.folder}"


# ---------------------------------------------------------------- running wfs


class Run(NamedTuple):
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return orjson.loads(self.out)

    def result(self) -> Any:
        """What `wfs execute --json` ends with: its last line (events come before it)."""
        return orjson.loads(self.out.splitlines()[-1])


def run_wfs(root: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    proc = subprocess.run(
        [sys.executable, "-m", "wfs", "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    run = Run(proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in run.out + run.err, run
    return run


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(path.relative_to(root).as_posix().encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def tools(tmp_path: Path) -> dict[str, str]:
    """PATH with fake CLIs (gemini, qwen, codex, claude) and a fake agent executable."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("gemini", "qwen", "codex", "claude"):
        tool = bin_dir / name
        tool.write_text(f'#!/bin/sh\necho "{name} was asked: $*"\n')
        tool.chmod(0o755)
    agent = bin_dir / "fake-agent"
    agent.write_text('#!/bin/sh\ncat > "$0.brief"\necho "## TASK COMPLETE"\necho "Done."\n')
    agent.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "WFS_AGENT": str(agent)}


def corpus() -> Path:
    if not REALWORLD.is_dir():
        pytest.skip(MISSING)
    return REALWORLD


def check_reads(root: Path, session: Session, env: dict[str, str]) -> None:
    """status, task list, next and the dry run of one session give the expected answers."""
    sid = sid_of(session)
    status = run_wfs(root, "--session", sid, "status", "--json", env=env)
    summary = status.json()
    assert summary["counts"] == session.counts
    assert summary["ready"] == session.ready
    if sid in UNREADABLE:  # answered from every readable task, then named (exit 2)
        assert (status.code, status.err) == (2, f"wfs: error: {UNREADABLE[sid]}\n")
        assert summary["stopped"] == [
            {"id": "IMPL-005", "state": "invalid", "reason": UNREADABLE[sid]}
        ]
    else:
        assert status.code == 0, status.err
    listing = run_wfs(root, "--session", sid, "task", "list", "--json", env=env).json()
    assert len(listing["tasks"]) == sum(session.counts.values())
    ready = run_wfs(root, "--session", sid, "next", "--all", "--json", env=env).json()
    assert [row["id"] for row in ready["tasks"]] == session.ready
    dry = run_wfs(root, "--session", sid, "execute", "--dry-run", "--json", env=env)
    assert dry.code == 0, dry.err
    plan = dry.json()
    if not session.ready:
        assert plan == {"session": sid, "task": None}
        return
    assert (plan["task"], plan["refused"]) == (session.ready[0], [])
    assert [(s["key"], [p["kind"] for p in s["parts"]]) for s in plan["steps"]] == session.steps


# ---------------------------------------------------------------- in place


@pytest.mark.slow
@pytest.mark.parametrize("session", [s for s in SESSIONS if not shadowed(s)], ids=ids)
def test_every_session_reads_in_place_in_its_repository(session: Session) -> None:
    root = corpus() / session.repo
    before = tree_digest(root)
    check_reads(root, session, {"WFS_NO_CACHE": "1"})
    assert tree_digest(root) == before  # nothing written in the corpus


@pytest.mark.slow
@pytest.mark.parametrize("session", [s for s in SESSIONS if shadowed(s)], ids=ids)
def test_a_session_in_two_places_is_read_from_active_and_named_by_status(
    session: Session,
) -> None:
    root = corpus() / session.repo
    run = run_wfs(root, "--session", sid_of(session), "status", "--json", env={"WFS_NO_CACHE": "1"})
    active = session.folder.replace("/archives/", "/active/")
    message = (
        f"session {sid_of(session)} is in 2 places ({active}/, {session.folder}/); wfs works on "
        f"{active}/ and leaves the others alone: keep one"
    )
    assert (run.code, run.json()["warnings"], run.err) == (
        0,
        [message],
        f"wfs: warning: {message}\n",
    )
    doctor = run_wfs(root, "doctor", "--json", env={"WFS_NO_CACHE": "1"}).json()
    assert {
        "where": session.folder,
        "problem": message,
        "action": "none: wfs does not choose for you",
        "fixable": False,
        "fixed": False,
    } in doctor["findings"]


@pytest.mark.slow
@pytest.mark.parametrize("repo", sorted(PROBLEMS))
def test_validate_all_names_exactly_the_real_problems_of_each_repository(repo: str) -> None:
    root = corpus() / repo
    run = run_wfs(root, "validate", "--all", "--json", env={"WFS_NO_CACHE": "1"})
    found = run.json()
    problems = [
        f"{p['where']}: {p['rule']}: "
        + ("warning: " if p["severity"] == "warning" else "")
        + p["message"]
        for p in found["problems"]
        if p["severity"] == "error" or p["rule"] == "layout"
    ]
    assert problems == PROBLEMS[repo]
    assert run.code == (1 if found["errors"] else 0)
    # The rest are readable deviations from the seed form, each naming the migration.
    warnings = [
        p for p in found["problems"] if p["severity"] == "warning" and p["rule"] != "layout"
    ]
    assert all("`wfs migrate`" in p["message"] for p in warnings), warnings


def test_the_sessions_listed_are_every_session_file_of_the_corpus() -> None:
    files = sorted(
        p.parent.relative_to(corpus()).as_posix() for p in corpus().rglob("workflow-session.json")
    )
    assert files == sorted(f"{s.repo}/{s.folder}" for s in SESSIONS)


# ---------------------------------------------------------------- copied and run


def copy_alone(session: Session, project: Path) -> Path:
    """The session copied into a fresh project, at the place it has in its repository."""
    assert run_wfs(project, "init", "--no-git").code == 0
    target = project / session.folder
    shutil.copytree(corpus() / session.repo / session.folder, target)
    return target


@pytest.mark.slow
@pytest.mark.parametrize("session", SESSIONS, ids=ids)
def test_every_session_copied_alone_reads_and_runs_its_next_ready_task(
    session: Session, tmp_path: Path, tools: dict[str, str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    folder = copy_alone(session, project)
    check_reads(project, session, tools)
    sid = sid_of(session)
    session_file = folder / "workflow-session.json"
    session_before = session_file.read_bytes()
    command = ["--session", sid, "execute", "--json"]
    finished = "/archives/" in session.folder or (
        orjson.loads(session_before).get("status") == "completed"
    )
    if finished:  # a finished session runs again only with --force
        refused = run_wfs(project, *command, env=tools)
        assert (refused.code, refused.out) == (2, ""), refused
        assert "--force" in refused.err
        command.append("--force")
    run = run_wfs(project, *command, env=tools)
    result = run.result()
    assert result["status"] == session.executed[0], run
    if session.executed[0] == "idle":
        assert (run.code, result["tasks"]) == (0, [])
        return
    if session.executed[0] == "invalid":
        where = f"{session.folder}/.task/{session.executed[1]}.json"
        assert (run.code, result["tasks"]) == (1, [])
        # as `wfs validate` names it: with its rule
        reason = UNREADABLE[sid].replace(": invalid JSON", ": json: invalid JSON", 1)
        assert result["invalid"] == [
            {"task": session.executed[1], "file": where, "reasons": [reason]}
        ]
        return
    _, tid, status, *reason = session.executed
    [task] = result["tasks"]
    assert (task["task"], task["status"]) == (tid, status)
    assert run.code == (0 if status == "completed" else 1)
    if reason:
        assert task["reason"] == reason[0]
    # The task file says what happened, in its own format; nothing else in it changed.
    written = orjson.loads((folder / ".task" / f"{tid}.json").read_bytes())
    original = orjson.loads(
        (corpus() / session.repo / session.folder / ".task" / f"{tid}.json").read_bytes()
    )
    assert written["status"] == status
    assert {k: v for k, v in written.items() if k not in ("status", "execution")} == {
        k: v for k, v in original.items() if k != "status"
    }
    # The session file is another tool's: wfs does not rewrite it.
    assert session_file.read_bytes() == session_before
    if status == "completed":
        assert (folder / ".summaries" / f"{tid}-summary.md").is_file()
        assert tid not in run_wfs(project, "--session", sid, "status", "--json").json()["ready"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "session", [s for s in SESSIONS if s.folder.startswith(".workflow/active/")], ids=ids
)
def test_a_session_alone_in_active_is_the_active_one_without_markers(
    session: Session, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    copy_alone(session, project)
    run = run_wfs(project, "status", "--json", env={"WFS_NO_CACHE": "1"})
    assert run.json()["session"] == sid_of(session)


# ---------------------------------------------------------------- migrate


@pytest.mark.slow
@pytest.mark.parametrize("repo", sorted(PROBLEMS))
def test_migrate_then_validate_leaves_only_the_real_problems(repo: str, tmp_path: Path) -> None:
    root = tmp_path / repo
    shutil.copytree(corpus() / repo, root)
    before = {
        s.folder: run_wfs(root, "--session", sid_of(s), "status", "--json").json()
        for s in SESSIONS
        if s.repo == repo and not shadowed(s)
    }
    migrated = run_wfs(root, "migrate", "--all")
    assert migrated.code == 0, migrated.err
    run = run_wfs(root, "validate", "--all")
    assert run.out.splitlines() == PROBLEMS[repo] or (
        not PROBLEMS[repo] and run.out.startswith("OK: ")
    )
    # Migration changes how the files are written, never what they mean.
    for folder, summary in before.items():
        sid = Path(folder).name
        after = run_wfs(root, "--session", sid, "status", "--json").json()
        keys = ("counts", "ready", "blocked", "progress")
        assert {k: after[k] for k in keys} == {k: summary[k] for k in keys}
    assert run_wfs(root, "migrate", "--all").out == "Nothing to migrate.\n"
