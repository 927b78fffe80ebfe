"""`wfs mcp`: the stdio MCP server, driven by the official SDK's own client over stdio
(a real `python -m wfs mcp` subprocess in a temporary project).

The SDK is part of the `test` extra: when it is missing, this module fails to import
and the suite fails; it never skips.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import REPO, Run, posix_only, tree_listing, wfs, wfs_process
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_raw import RawClient, rpc_error

from wfs import platform, store

STEP = {
    "step": 1,
    "title": "Build",
    "description": "Build it.",
    "modification_points": [],
    "logic_flow": [],
    "depends_on": [],
    "output": "built",
    "command": "bash(echo built > built.txt && echo ok)",
}

PLAN = {
    "overview": "Login",
    "tasks": [
        {"id": "IMPL-1", "title": "Build", "flow_control": {"implementation_approach": [STEP]}},
        {
            "id": "IMPL-2",
            "title": "Write the docs",
            "context": {"depends_on": ["IMPL-1"], "acceptance": ["docs/login.md exists"]},
        },
    ],
}

TOOLS = ["execute", "next", "plan", "resume", "status", "switch", "task_show", "validate"]
READ_ONLY = {"next", "status", "task_show", "validate"}


def server(project: Path, *options: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "wfs", *options, "mcp"], cwd=str(project)
    )


def session_with(
    project: Path, scenario: Callable[[Client], Awaitable[None]], **client: Any
) -> None:
    """Start `wfs mcp` in `project` and run `scenario` against it with the SDK client."""

    async def main() -> None:
        async with Client(server(project), **client) as connected:
            await scenario(connected)

    anyio.run(main)


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured result; its text content is the same JSON."""
    result = await client.call_tool(tool, arguments)
    body = result.structured_content
    assert isinstance(body, dict)
    assert len(result.content) == 1 and json.loads(result.content[0].text) == body  # type: ignore[union-attr]
    assert result.is_error == (body["exit_code"] not in (0, 1, 3))
    return body


def cli_json(project: Path, *args: str) -> tuple[int, Any]:
    run = wfs_process("--json", *args, cwd=project)
    return run.code, json.loads(run.out) if run.out else None


def cli_error(run: Run) -> str:
    assert run.err.startswith("wfs: error: ")
    return run.err.removeprefix("wfs: error: ").removesuffix("\n")


@pytest.mark.slow
def test_mcp_drives_a_plan_to_a_completed_session(project: Path) -> None:
    async def scenario(client: Client) -> None:
        planned = await call(client, "plan", topic="Login", document=PLAN)
        assert planned == {
            "exit_code": 0,
            "session": "WFS-login",
            "path": ".workflow/WFS-login",
            "tasks": 2,
            "existing": None,
            "updated": False,
        }
        assert await call(client, "status") == {"exit_code": 0, **cli_json(project, "status")[1]}
        assert await call(client, "next") == {"exit_code": 0, **cli_json(project, "next")[1]}

        built = await call(client, "execute")
        assert (built["exit_code"], built["status"]) == (0, "completed")
        assert [(t["task"], t["status"]) for t in built["tasks"]] == [("IMPL-1", "completed")]
        assert (project / "built.txt").read_text() == "built\n"

        paused = await call(client, "execute")
        assert (paused["exit_code"], paused["status"]) == (3, "paused")
        (stop,) = paused["tasks"]
        assert (stop["task"], stop["status"], stop["step"]) == ("IMPL-2", "paused", "task")
        assert stop["resume"] == ["wfs", "--session", "WFS-login", "execute", "--resume", "IMPL-2"]
        brief = stop["brief"]
        assert brief["task"]["id"] == "IMPL-2"
        assert brief["workflow"] == {"session": "WFS-login", "phase": "IMPLEMENT"}
        assert brief["context"]["acceptance"] == ["docs/login.md exists"]
        assert brief["resume"] == stop["resume"]
        assert [d["task"] for d in brief["dependencies"]] == ["IMPL-1"]
        # What the tools show now is what the CLI shows.
        status = await call(client, "status")
        assert status == {"exit_code": 0, **cli_json(project, "status")[1]}
        assert [(e["id"], e["state"]) for e in status["stopped"]] == [("IMPL-2", "paused")]
        shown = await call(client, "task_show", task_id="IMPL-2")
        assert shown == {"exit_code": 0, **cli_json(project, "task", "show", "IMPL-2")[1]}

        empty = await call(client, "resume", task_id="IMPL-2", answer="  \n")
        assert empty == {
            "exit_code": 2,
            "error": "the answer from `answer` is empty; a step is only done with an answer "
            "(give one, or skip the step with --skip)",
        }
        done = await call(client, "resume", task_id="IMPL-2", answer="Wrote docs/login.md.")
        assert (done["exit_code"], done["status"]) == (0, "completed")
        assert done["tasks"] == [
            {
                "task": "IMPL-2",
                "status": "completed",
                "summary": ".workflow/WFS-login/.summaries/IMPL-2-summary.md",
                "steps": [
                    {
                        "key": "task",
                        "name": "Write the docs",
                        "status": "done",
                        "elapsed": done["tasks"][0]["steps"][0]["elapsed"],
                    }
                ],
            }
        ]
        idle = await call(client, "execute")
        assert idle == {
            "exit_code": 0,
            "session": "WFS-login",
            "status": "idle",
            "tasks": [],
            "stopped": [],
        }
        final = await call(client, "status")
        assert (final["phase"], final["progress"]["completed"], final["progress"]["total"]) == (
            "REVIEW",
            2,
            2,
        )
        assert final == {"exit_code": 0, **cli_json(project, "status")[1]}
        assert await call(client, "validate") == {
            "exit_code": 0,
            "sessions": ["WFS-login"],
            "problems": [],
            "errors": 0,
            "warnings": 0,
        }

    session_with(project, scenario)
    summary = (project / ".workflow/WFS-login/.summaries/IMPL-2-summary.md").read_text()
    assert "Wrote docs/login.md." in summary
    todo = (project / ".workflow/WFS-login/TODO_LIST.md").read_text()
    assert "- [x] **IMPL-1**" in todo and "- [x] **IMPL-2**" in todo


@pytest.mark.slow
def test_mcp_has_at_most_eight_tools_and_marks_the_read_only_ones(project: Path) -> None:
    async def scenario(client: Client) -> None:
        tools = (await client.list_tools()).tools
        assert sorted(t.name for t in tools) == TOOLS
        assert len(tools) <= 8
        for tool in tools:
            assert tool.annotations is not None
            assert (tool.annotations.read_only_hint is True) == (tool.name in READ_ONLY), tool.name
            assert tool.description
        schemas = {t.name: t.input_schema for t in tools}
        assert schemas["resume"]["required"] == ["task_id"]
        assert schemas["task_show"]["required"] == ["task_id"]
        assert schemas["switch"]["required"] == ["session"]
        assert "required" not in schemas["status"]

    session_with(project, scenario)


@pytest.mark.slow
def test_mcp_lists_and_reads_the_schemas_and_each_todo_list(project: Path) -> None:
    wfs("init", "--no-git")
    assert wfs("plan", "Login", "--from", "-", input=json.dumps(PLAN)).code == 0
    assert wfs("plan", "Other", "--empty").code == 0
    todo = "wfs://sessions/{}/TODO_LIST.md"

    async def scenario(client: Client) -> None:
        listed = (await client.list_resources()).resources
        assert [(r.uri, r.mime_type) for r in listed] == [
            ("wfs://schemas/task.schema.json", "application/schema+json"),
            ("wfs://schemas/session.schema.json", "application/schema+json"),
            ("wfs://schemas/plan.schema.json", "application/schema+json"),
            (todo.format("WFS-login"), "text/markdown"),
            (todo.format("WFS-other"), "text/markdown"),
        ]
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == [todo.format("{session}")]
        for name in ("task", "session", "plan"):
            (content,) = (await client.read_resource(f"wfs://schemas/{name}.schema.json")).contents
            assert content.text == (REPO / "schemas" / f"{name}.schema.json").read_text()  # type: ignore[union-attr]
        for sid in ("WFS-login", "WFS-other"):
            (content,) = (await client.read_resource(todo.format(sid))).contents
            assert content.text == (project / ".workflow" / sid / "TODO_LIST.md").read_text()  # type: ignore[union-attr]
        # A session planned while the server runs is listed too.
        await call(client, "plan", topic="Third")
        uris = [r.uri for r in (await client.list_resources()).resources]
        assert uris[-1] == todo.format("WFS-third")
        with pytest.raises(MCPError, match="unknown session 'WFS-nope'"):
            await client.read_resource(todo.format("WFS-nope"))

    session_with(project, scenario)


@pytest.mark.slow
def test_mcp_prompts_plan_and_execute(project: Path) -> None:
    async def scenario(client: Client) -> None:
        prompts = (await client.list_prompts()).prompts
        assert [(p.name, [(a.name, a.required) for a in p.arguments or []]) for p in prompts] == [
            ("plan", [("topic", True)]),
            ("execute", [("session", False)]),
        ]
        (planning,) = (await client.get_prompt("plan", {"topic": "Login"})).messages
        text = planning.content.text  # type: ignore[union-attr]
        assert text.startswith('Plan "Login" with the wfs tools.\n')
        assert 'Call the plan tool with topic "Login"' in text
        (running,) = (await client.get_prompt("execute", {})).messages
        text = running.content.text  # type: ignore[union-attr]
        assert text.startswith("Drive the wfs session to completion with the wfs tools.\n")
        assert "call resume with the task id and your answer" in text
        (named,) = (await client.get_prompt("execute", {"session": "WFS-login"})).messages
        assert 'Call execute with session "WFS-login".' in named.content.text  # type: ignore[union-attr]

    session_with(project, scenario)


BAD_PLAN = {
    "tasks": [
        {"id": "IMPL-1", "title": "Build", "context": {"focus_paths": ["../outside"]}},
        {"id": "IMPL-2", "title": "Test", "context": {"depends_on": ["IMPL-9"]}},
    ]
}


@pytest.mark.slow
def test_mcp_refuses_an_invalid_plan_with_its_problems_and_writes_nothing(
    project: Path, tmp_path: Path
) -> None:
    # The CLI, given the same document in a file named `document`, says the same.
    elsewhere = tmp_path / "cli"
    elsewhere.mkdir()
    (elsewhere / "document").write_text(json.dumps(BAD_PLAN))
    wfs_process("init", "--no-git", cwd=elsewhere)
    refused = wfs_process("plan", "Login", "--from", "document", cwd=elsewhere)
    assert refused.code == 2

    async def scenario(client: Client) -> None:
        for document in (BAD_PLAN, json.dumps(BAD_PLAN)):
            result = await call(client, "plan", topic="Login", document=document)
            assert result["exit_code"] == 2
            assert result["error"] == cli_error(refused)
            assert result["problems"] == [
                {
                    "where": "document#/tasks/0/context/focus_paths/0",
                    "rule": "focus-paths",
                    "message": "focus path \"../outside\" contains '..'; focus paths stay "
                    "inside the project",
                    "severity": "error",
                },
                {
                    "where": "document#/tasks/1/context/depends_on/0",
                    "rule": "depends-on",
                    "message": "IMPL-2 depends on IMPL-9, which does not exist",
                    "severity": "error",
                },
            ]
            listing = result["error"].split("\n")[1:]
            assert listing == [
                f"{p['where']}: {p['rule']}: {p['message']}" for p in result["problems"]
            ]
        broken = await call(client, "plan", topic="Login", document="{not json")
        assert broken["exit_code"] == 2
        assert broken["error"].startswith("document:1:2: invalid JSON")
        assert "problems" not in broken

    session_with(project, scenario)
    assert not any(p.name.startswith("WFS-") for p in (project / ".workflow").glob("*"))


@pytest.mark.slow
def test_mcp_errors_are_the_cli_errors_with_their_exit_codes(project: Path) -> None:
    wfs("init", "--no-git")
    assert wfs("plan", "Login", "--from", "-", input=json.dumps(PLAN)).code == 0

    async def scenario(client: Client) -> None:
        unknown = await call(client, "task_show", task_id="IMPL-7")
        expected = cli_error(wfs_process("task", "show", "IMPL-7", cwd=project))
        assert unknown == {"exit_code": 2, "error": expected}
        assert (await call(client, "switch", session="nope"))["exit_code"] == 2
        both = await call(client, "resume", task_id="IMPL-2", answer="x", skip=True)
        assert both == {"exit_code": 2, "error": "give either an answer or skip, not both"}
        assert (await call(client, "plan"))["exit_code"] == 2
        switched = await call(client, "switch", session="login")
        assert switched == {
            "exit_code": 0,
            "session": "WFS-login",
            "status": "active",
            "paused": [],
        }
        dry = await call(client, "execute", dry_run=True)
        assert dry == {"exit_code": 0, **cli_json(project, "execute", "--dry-run")[1]}

    session_with(project, scenario)


@pytest.mark.slow
def test_mcp_runs_a_completed_session_again_only_with_force(project: Path) -> None:
    one = {"overview": "Build", "tasks": [PLAN["tasks"][0]]}
    wfs("init", "--no-git")
    assert wfs("plan", "Build", "--from", "-", input=json.dumps(one)).code == 0
    assert wfs("session", "complete", "WFS-build").code == 0
    refused = cli_error(wfs_process("--session", "WFS-build", "execute", cwd=project))
    assert refused.startswith("session WFS-build is completed; ")
    task = project / ".workflow" / "WFS-build" / ".task" / "IMPL-1.json"
    before = task.read_bytes()

    async def scenario(client: Client) -> None:
        again = await call(client, "execute", session="WFS-build")
        assert again == {"exit_code": 2, "error": refused}
        resumed = await call(client, "resume", task_id="IMPL-1", session="WFS-build")
        assert resumed == {"exit_code": 2, "error": refused}
        assert task.read_bytes() == before  # nothing ran
        forced = await call(client, "execute", session="WFS-build", force=True)
        assert forced["exit_code"] == 0, forced
        assert [t["status"] for t in forced["tasks"]] == ["completed"]

    session_with(project, scenario)
    assert (project / "built.txt").read_text() == "built\n"


@pytest.mark.slow
def test_mcp_speaks_the_initialize_handshake_of_older_clients(project: Path) -> None:
    async def scenario(client: Client) -> None:
        assert sorted(t.name for t in (await client.list_tools()).tools) == TOOLS
        assert await call(client, "status") == {"exit_code": 0, "session": None}

    session_with(project, scenario, mode="legacy")


@pytest.mark.slow
@posix_only
def test_sigterm_during_execute_leaves_the_task_resumable_and_ends_the_server(
    project: Path,
) -> None:
    """The step tells the test the server's pid through a fifo, then sleeps."""
    fifo = project / "started"
    os.mkfifo(fifo)
    slow = {**STEP, "command": "bash(echo $PPID $$ > started; sleep 600)"}
    slow_plan = {
        "tasks": [
            {"id": "IMPL-1", "title": "Slow", "flow_control": {"implementation_approach": [slow]}}
        ]
    }
    wfs("init", "--no-git")
    assert wfs("plan", "Slow", "--from", "-", input=json.dumps(slow_plan)).code == 0
    seen: dict[str, Any] = {}

    async def execute(client: Client) -> None:
        try:
            seen["result"] = await client.call_tool("execute", {})
        except Exception as err:  # the server goes away before it answers
            seen["error"] = err

    async def scenario(client: Client) -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(execute, client)
            # A bound, not a synchronisation: a broken server fails the test, never hangs it.
            with anyio.fail_after(120):
                started = await anyio.to_thread.run_sync(fifo.read_text, abandon_on_cancel=True)
            server_pid, _step_pid = map(int, started.split())
            seen["server"] = server_pid
            os.kill(server_pid, signal.SIGTERM)

    session_with(project, scenario)
    error = seen["error"]
    assert isinstance(error, MCPError) and (error.code, error.message) == (
        -32000,
        "Connection closed",
    )
    stopped = wfs("status", "--json").json()["stopped"]
    assert stopped == [
        {
            "id": "IMPL-1",
            "step": "implementation_approach/1",
            "state": "paused",
            "reason": "interrupted (SIGTERM)",
            "resume": ["wfs", "--session", "WFS-slow", "execute", "--resume", "IMPL-1"],
        }
    ]
    # The step's process group is gone (a zombie waiting for its reaper at most).
    token = f"WFS-slow/IMPL-1/{platform.host_name()}:{seen['server']}"
    assert platform.step_processes(token) == {}


@pytest.mark.slow
def test_mcp_without_the_sdk_exits_2_and_says_how_to_install_it(project: Path) -> None:
    script = (
        "import sys\n"
        "sys.modules['mcp'] = None  # as if the extra were not installed\n"
        "sys.argv = ['wfs', 'mcp']\n"
        "from wfs.cli import main\n"
        "main()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=project, capture_output=True, text=True, timeout=60
    )
    # The range is the `mcp` extra's, read from the installed metadata; the second
    # command installs it into this very interpreter (a clone's venv, pipx's, uv's).
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        2,
        "",
        "wfs: error: wfs mcp needs the MCP Python SDK (mcp<3,>=2.3), which is not "
        "installed; install it with: pip install 'wfs-sessions[mcp]', or into the Python "
        f"wfs runs in: {shlex.quote(sys.executable)} -m pip install 'mcp<3,>=2.3'\n",
    )


@pytest.mark.slow
def test_no_other_command_imports_the_sdk(project: Path) -> None:
    (project / "plan.json").write_text(json.dumps(PLAN))
    commands = [
        ["init"],
        ["plan", "Login", "--from", "plan.json"],
        ["status"],
        ["next", "--all"],
        ["task", "show", "IMPL-1"],
        ["validate", "--all"],
        ["execute", "--all"],
        ["prime"],
        ["prime", "--hook-json"],
        ["render", "--check"],
        ["doctor"],
        ["session", "list"],
        ["--help"],
        ["mcp", "--help"],
        ["agents", "list"],
        ["schema", "plan"],
    ]
    script = (
        "import json, sys\n"
        "from click.testing import CliRunner\n"
        "from wfs.cli import cli\n"
        f"for args in {commands!r}:\n"
        "    result = CliRunner().invoke(cli, args, catch_exceptions=False)\n"
        "    assert result.exit_code in (0, 3), (args, result.output)\n"
        "sdk = ('mcp', 'mcp_types', 'pydantic', 'anyio')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in sdk), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=project, capture_output=True, text=True, timeout=120
    )
    assert (proc.returncode, proc.stderr) == (0, "[]\n")


NOT_A_MESSAGE = "Invalid request: not a JSON-RPC 2.0 request, notification or response"


@pytest.mark.slow
def test_mcp_answers_each_malformed_line_with_a_jsonrpc_error_and_serves_on(
    project: Path,
) -> None:
    client = RawClient(project)
    answers = [
        (b"{not json", rpc_error(-32700, "Parse error: key must be a string at line 1 column 2")),
        (
            b'{"jsonrpc":"2.0","id":3,"method":"ping"',
            rpc_error(-32700, "Parse error: EOF while parsing an object at line 2 column 0"),
        ),
        (b"", rpc_error(-32700, "Parse error: EOF while parsing a value at line 2 column 0")),
        # Bytes that are no UTF-8 are read as U+FFFD, which is no JSON either.
        (b"\xff\xfe{}", rpc_error(-32700, "Parse error: expected value at line 1 column 1")),
        # JSON, but no JSON-RPC message: the id, when there is a valid one, is answered.
        (b"5", rpc_error(-32600, NOT_A_MESSAGE)),
        (b"[]", rpc_error(-32600, NOT_A_MESSAGE)),
        (b'{"jsonrpc":"1.0","id":4,"method":"ping"}', rpc_error(-32600, NOT_A_MESSAGE, 4)),
        (
            b'{"jsonrpc":"2.0","id":"x","method":"ping","params":5}',
            rpc_error(-32600, NOT_A_MESSAGE, "x"),
        ),
        (b'{"jsonrpc":"2.0","id":[1],"result":{},"error":{}}', rpc_error(-32600, NOT_A_MESSAGE)),
    ]
    for number, (line, answer) in enumerate(answers, start=1):
        assert client.ask(line) == answer, line
        client.ping(100 + number)
    assert client.close() == ""


def nested(depth: int, inner: str = "") -> str:
    return "[" * depth + inner + "]" * depth


@pytest.mark.slow
def test_mcp_answers_a_request_nested_deeper_than_it_reads(project: Path) -> None:
    """The SDK reads 200 levels of nesting; a deeper request is answered with its id
    while it can be read at all (up to orjson's 1024 levels), else with id null."""
    client = RawClient(project)
    too_deep = rpc_error(
        -32600, "Invalid request: recursion limit exceeded at line 1 column 260", 7
    )
    request = '{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":' + nested(300) + "}}"
    assert client.ask(request.encode()) == too_deep
    client.ping(1)
    bare = client.ask(nested(300).encode())
    assert bare == rpc_error(
        -32600, "Invalid request: recursion limit exceeded at line 1 column 202"
    )
    client.ping(2)
    for depth in (5000, 1_000_000):
        deeper = '{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":' + nested(depth) + "}}"
        assert client.ask(deeper.encode()) == rpc_error(
            -32700, "Parse error: recursion limit exceeded at line 1 column 254"
        )
        client.ping(depth)
    # The tools still answer after all of it.
    listed = client.ask({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
    assert sorted(t["name"] for t in listed["result"]["tools"]) == TOOLS
    assert client.close() == ""


@pytest.mark.slow
def test_mcp_plan_refuses_a_document_larger_than_the_cli_reads(
    project: Path, tmp_path: Path
) -> None:
    """The `plan` tool applies the CLI's input limit (store.INPUT_LIMIT, 64 MiB) to the
    document, given as JSON text or as a JSON value, and writes nothing."""
    wfs("init", "--no-git")
    before = tree_listing(project)
    elsewhere = tmp_path / "cli"
    elsewhere.mkdir()
    wfs_process("init", "--no-git", cwd=elsewhere)
    # The SDK reads a text that is JSON as its value: this one stays text.
    big = " " * store.INPUT_LIMIT + "{not json"
    (elsewhere / "document").write_text(big)
    refused = wfs_process("plan", "Big", "--from", "document", cwd=elsewhere)
    assert (refused.code, refused.err) == (2, "wfs: error: document: larger than 64 MiB; refused\n")

    async def scenario(client: Client) -> None:
        as_text = await call(client, "plan", topic="Big", document=big)
        assert as_text == {"exit_code": 2, "error": cli_error(refused)}
        as_value = {"overview": "x" * store.INPUT_LIMIT, "tasks": []}
        assert await call(client, "plan", topic="Big", document=as_value) == as_text
        # At the limit, the document is read (and this one is refused for what it says).
        at_limit = " " * (store.INPUT_LIMIT - 9) + "{not json"
        read = await call(client, "plan", topic="Big", document=at_limit)
        assert read["exit_code"] == 2 and "larger than" not in read["error"], read
        assert await call(client, "status") == {"exit_code": 0, "session": None}

    session_with(project, scenario)
    assert tree_listing(project) == before
