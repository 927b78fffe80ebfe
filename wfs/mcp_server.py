"""`wfs mcp`: the wfs commands as an MCP server over stdio (the extra `wfs-sessions[mcp]`).

Eight tools, each doing what its command does (wfs/actions/) and answering with
the JSON that command prints with `--json`, plus its exit code first:
`{"exit_code": 3, "session": ..., "status": "paused", ...}`. An error the command
would print on stderr is `{"exit_code": 2, "error": "..."}`, with the `problems` of a
refused plan as objects. Exit codes other than 0, 1 and 3 also set `isError`.

A line that is no JSON-RPC message gets its error answer (-32700 when it is not JSON,
-32600 when it is JSON but no message the server can take, such as one nested deeper
than the SDK reads), with the request's id when it can be read, else null; the server
then reads the next line. The SDK alone would drop such a line without an answer, and
its client would wait for ever.

The tools run on the event loop's thread, which is the main thread, one at a time:
the engine installs signal handlers while it runs steps (a SIGTERM stops the step and
leaves the task resumable, then ends the server), and it expects a single thread
while it starts a step's process.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    ErrorData,
    JSONRPCError,
    Resource,
    TextContent,
    ToolAnnotations,
)
from pydantic import Field, ValidationError

from wfs import __version__, actions, jsonio, platform, store
from wfs.errors import ProblemsError, WfsError
from wfs.flow import session_run
from wfs.flow.answer import read_answer
from wfs.layout import Layout
from wfs.resources import read_text
from wfs.schemas import COMPLEXITIES
from wfs.sessions import current_session, require_session, session_ids

SCHEMAS = ("task", "session", "plan")
TODO_LIST_URI = "wfs://sessions/{session}/TODO_LIST.md"

INSTRUCTIONS = """\
wfs keeps this project's plan in .workflow/ as task JSON files, the single source of
truth. Read it with status, next and task_show; create or change it with plan; run
it with execute, and when execute pauses (exit_code 3) do the work its brief
describes and answer with resume. Never edit the JSON under .workflow/ yourself, and
never mark a task completed by hand: execute completes a task once its steps ran."""

PLAN_PROMPT = """\
Plan "{topic}" with the wfs tools.

1. Read the resource wfs://schemas/plan.schema.json. Write a plan document:
   {{"overview": "...", "requirements": [...], "tasks": [...]}}, one task per unit
   of work (id IMPL-1, IMPL-2, ...; subtasks IMPL-1.1), each with a title, its
   context (requirements, focus_paths, acceptance, depends_on) and its steps.
2. Call the plan tool with topic "{topic}" and the document. With exit_code 2 the
   plan was refused and nothing was written: fix each problem (`where` points into
   your document, `rule` and `message` say what is wrong) and call plan again.
3. Call validate, then status, and report the session id and the ready tasks."""

EXECUTE_PROMPT = """\
Drive the wfs session{which} to completion with the wfs tools.

1. Call execute{task}. Then, by its exit_code:
   - 0 with status "completed": call execute again; status "idle" means nothing is
     ready: report what `stopped` lists, or that every task is done.
   - 3 (paused): the task's `brief` says what to do: its steps, outputs gathered so
     far, dependencies, focus paths and acceptance. Do that work in the project, then
     call resume with the task id and your answer in plain text (what you did, the
     files you changed). Follow the brief's `contract`: start the answer with
     `## TASK BLOCKED: why` if you cannot do it.
   - 1 (a step failed, the task is blocked): read `reason` and `tail`, fix the cause,
     then call resume with the task id (the step runs again), or skip=true.
   - 2: read `error` and correct the call.
2. Never edit the JSON under .workflow/ and never mark a task completed by hand."""


def _answer(work: Callable[[], tuple[dict[str, Any], int]]) -> CallToolResult:
    """Run a command's work; its JSON and exit code, or the error it reports."""
    try:
        data, code = work()
        body: dict[str, Any] = {"exit_code": code, **data}
    except WfsError as err:
        code = err.exit_code
        body = {"exit_code": code, "error": err.message}
        if isinstance(err, ProblemsError):
            body["problems"] = [p._asdict() for p in err.problems]
    return CallToolResult(
        content=[TextContent(type="text", text=jsonio.dumps(body).decode())],
        structured_content=body,
        is_error=code not in (0, 1, 3),
    )


def _ok(data: dict[str, Any]) -> tuple[dict[str, Any], int]:
    return data, 0


def _plan_source(document: Any) -> Callable[[], tuple[bytes, str]]:
    """A plan document given as JSON text or as a JSON value, named `document`; one
    larger than the CLI reads (store.INPUT_LIMIT) is refused the same way."""
    if isinstance(document, str):
        raw = document.encode()
    else:
        jsonio.check_depth(document, "document")  # before writing it out as text
        raw = jsonio.compact(document)
    store.check_input_size(raw, "document")
    return lambda: (raw, "document")


def _unreadable(error: Exception) -> JSONRPCError:
    """The answer to a line the SDK's transport could not read as a JSON-RPC message
    (`error`: what its reading raised, a pydantic ValidationError)."""
    details = error.errors() if isinstance(error, ValidationError) else []
    if not details or details[0]["type"] == "json_invalid":
        reason = (details[0]["msg"] if details else str(error)).removeprefix("Invalid JSON: ")
        line = details[0]["input"] if details else None
        try:
            # orjson reads deeper than the SDK does: JSON too deep for the SDK is still
            # JSON, and its id is answered.
            value = jsonio.loads(line) if isinstance(line, str) else None
        except ValueError:
            line = None
        if line is None:
            return _error(PARSE_ERROR, f"Parse error: {reason}", None)
        return _error(INVALID_REQUEST, f"Invalid request: {reason}", value)
    # A field missing at the top (loc: the model, the field), or a top that is no object
    # (loc: the model), shows the whole message.
    whole = next(
        (
            d["input"]
            for d in details
            if len(d["loc"]) == 1 or (len(d["loc"]) == 2 and d["type"] == "missing")
        ),
        None,
    )
    return _error(
        INVALID_REQUEST,
        "Invalid request: not a JSON-RPC 2.0 request, notification or response",
        whole,
    )


def _error(code: int, message: str, request: Any) -> JSONRPCError:
    """A JSON-RPC error answering `request` (its parsed JSON): with its id when it has a
    valid one, else with id null."""
    given = request.get("id") if isinstance(request, dict) else None
    valid = isinstance(given, str) or (isinstance(given, int) and not isinstance(given, bool))
    return JSONRPCError(
        jsonrpc="2.0", id=given if valid else None, error=ErrorData(code=code, message=message)
    )


class _Answering:
    """The stdio transport's read stream, less the lines that are no message: each gets
    its error answer on `answers` here, and the server reads on."""

    def __init__(self, lines: Any, answers: Any) -> None:
        self.lines = lines
        self.answers = answers

    @property
    def last_context(self) -> Any:
        return getattr(self.lines, "last_context", None)

    async def receive(self) -> SessionMessage:
        while True:
            item = await self.lines.receive()
            if not isinstance(item, Exception):
                return item  # type: ignore[no-any-return]
            await self.answers.send(SessionMessage(_unreadable(item)))

    def __aiter__(self) -> _Answering:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self.lines.aclose()

    async def __aenter__(self) -> _Answering:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


Session = Annotated[
    str | None,
    Field(description="Session id (WFS-x or x); default: the active session."),
]
TaskId = Annotated[str, Field(description="Task id, e.g. IMPL-2 or IMPL-1.3.")]

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


class WfsServer(MCPServer[Any]):
    """Lists each session's TODO_LIST.md among the resources, as sessions come and go."""

    def __init__(self, layout: Layout, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.layout = layout

    async def run_stdio_async(self) -> None:
        """The SDK's stdio serving, with each unreadable line answered (_Answering)."""
        async with stdio_server() as (lines, answers):
            lowlevel = self._lowlevel_server
            await lowlevel.run(
                _Answering(lines, answers), answers, lowlevel.create_initialization_options()
            )

    async def list_resources(self) -> list[Resource]:
        listed = await super().list_resources()
        for sid in session_ids(self.layout):
            if (self.layout.session_dir(sid) / "TODO_LIST.md").is_file():
                listed.append(
                    Resource(
                        uri=TODO_LIST_URI.format(session=sid),
                        name=f"{sid}/TODO_LIST.md",
                        description=f"The task list of {sid}, rendered from its task files.",
                        mime_type="text/markdown",
                    )
                )
        return listed


# The session a tool works on: the one it was given, else the server's default.
Chosen = Callable[[str | None], str | None]


def build_server(layout: Layout, session: str | None, root_option: str | None) -> WfsServer:
    """The server for the project at `layout`; `session`: the default session
    (`wfs --session`), `root_option`: a `--root` the printed commands keep."""
    server = WfsServer(
        layout, name="wfs", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    def chosen(requested: str | None) -> str | None:
        return requested or session

    _add_reading_tools(server, layout, chosen, root_option)
    _add_planning_tools(server, layout, chosen)
    _add_running_tools(server, layout, chosen, root_option)
    _add_switch_tool(server, layout)
    for name in SCHEMAS:
        _add_schema(server, name)
    _add_todo_list(server, layout)
    _add_prompts(server)
    return server


def _add_reading_tools(
    server: WfsServer, layout: Layout, chosen: Chosen, root_option: str | None
) -> None:
    """status, next and task_show: what the session holds, read only."""

    @server.tool(annotations=READ_ONLY)
    async def status(session: Session = None) -> CallToolResult:
        """The session's phase, type, task counts, progress, ready tasks, and the stopped
        (paused, blocked, running) tasks with the command that resumes each."""
        return _answer(lambda: _ok(actions.status(layout, chosen(session), root_option)))

    @server.tool(name="next", annotations=READ_ONLY)
    async def next_task(
        all: Annotated[bool, Field(description="Every ready task, not just the first.")] = False,
        session: Session = None,
    ) -> CallToolResult:
        """The next ready task (lowest id whose dependencies are completed), or all of
        them; when none is ready, `stopped` says what holds the tasks up."""
        return _answer(
            lambda: _ok(actions.next_tasks(layout, chosen(session), all, root_option)[0])
        )

    @server.tool(annotations=READ_ONLY)
    async def task_show(task_id: TaskId, session: Session = None) -> CallToolResult:
        """One task: its JSON, derived status, whether it is ready and what it waits on."""
        return _answer(lambda: _ok(actions.show_task(layout, chosen(session), task_id)[0]))


def _add_planning_tools(server: WfsServer, layout: Layout, chosen: Chosen) -> None:
    """plan (a new session, or tasks added to one) and validate."""

    @server.tool(annotations=ToolAnnotations(destructive_hint=False, open_world_hint=False))
    async def plan(
        topic: Annotated[
            str | None, Field(description="Topic of a new session (it becomes the active one).")
        ] = None,
        document: Annotated[
            dict[str, Any] | list[Any] | str | None,
            Field(
                description='Plan document: {"overview", "requirements", "tasks": [...]} or a '
                "task array (resource wfs://schemas/plan.schema.json), as JSON or JSON text."
            ),
        ] = None,
        session: Annotated[
            str | None,
            Field(description="Instead of a new session: add or replace tasks in this one."),
        ] = None,
        type: Annotated[
            str | None,
            Field(description="Complexity to start from: simple, medium or complex."),
        ] = None,
    ) -> CallToolResult:
        """Create a session for a topic with the tasks of a plan document, or add and
        replace tasks in an existing session. The whole plan is validated first: when it
        is refused nothing is written, and `problems` lists each one as `where`
        (document#/json/pointer), `rule` and `message`."""

        def work() -> tuple[dict[str, Any], int]:
            if session is None and topic is None:
                raise WfsError("give a topic (a new session) or a session (to replan it)")
            if session is not None and document is None:
                raise WfsError("replanning a session needs a plan document")
            if type is not None and type not in COMPLEXITIES:
                expected = f"{', '.join(COMPLEXITIES[:-1])} or {COMPLEXITIES[-1]}"
                raise WfsError(f"type {type!r}: expected {expected}")
            source = None if document is None else _plan_source(document)
            return _ok(actions.plan(layout, topic, source, type, session))

        return _answer(work)

    @server.tool(annotations=READ_ONLY)
    async def validate(
        all: Annotated[bool, Field(description="Every session, not just the active one.")] = False,
        session: Session = None,
    ) -> CallToolResult:
        """Check the task and session files against every rule; one problem per broken
        rule (`where`: file#/json/pointer, `rule`, `message`, `severity`). exit_code 1
        when any is an error."""

        def work() -> tuple[dict[str, Any], int]:
            sids = actions.validated_sessions(layout, chosen(session), all)
            result = actions.validate(layout, sids)
            return result.data, result.exit_code

        return _answer(work)


def _add_running_tools(
    server: WfsServer, layout: Layout, chosen: Chosen, root_option: str | None
) -> None:
    """execute and resume: a task's steps run, and a stopped task continued."""

    def run(
        requested: str | None,
        task_id: str | None = None,
        resume_id: str | None = None,
        answer: str | None = None,
        skip: bool = False,
        run_all: bool = False,
        dry_run: bool = False,
        force: bool = False,
    ) -> tuple[dict[str, Any], int]:
        sid = current_session(layout, chosen(requested))
        runner = session_run.runner(layout, sid, root_option=root_option)
        if dry_run:
            return actions.dry_run(layout, runner, task_id), 0
        outcome = session_run.execute(
            runner, task_id, resume_id, answer, skip, run_all, force=force
        )
        stop = outcome.signum or next(
            (
                platform.signal_number(t["signal"])
                for t in outcome.data["tasks"]
                if t["status"] == "interrupted"
            ),
            None,
        )
        if stop is not None:
            # The client (or the system) asked this server to stop: the task is left
            # resumable, and now the server goes as it would have without the engine.
            platform.raise_signal(stop)
        return outcome.data, outcome.exit_code

    @server.tool(annotations=ToolAnnotations(destructive_hint=False, open_world_hint=True))
    async def execute(
        task_id: Annotated[
            str | None, Field(description="Task to run; default: the next ready task.")
        ] = None,
        all: Annotated[bool, Field(description="Keep going until no task is ready.")] = False,
        dry_run: Annotated[
            bool, Field(description="Show every step as it would run; run nothing.")
        ] = False,
        force: Annotated[
            bool, Field(description="Run tasks of a completed or archived session again.")
        ] = False,
        session: Session = None,
    ) -> CallToolResult:
        """Run a task's steps (commands, and agent steps through the configured agents).
        A task is completed only when every step ran and succeeded. exit_code 3: paused
        for an agent, and the task's `brief` says what to do; answer with resume.
        exit_code 1: a step failed and the task is blocked (`reason`, `tail`)."""
        return _answer(
            lambda: run(session, task_id=task_id, run_all=all, dry_run=dry_run, force=force)
        )

    @server.tool(annotations=ToolAnnotations(destructive_hint=False, open_world_hint=True))
    async def resume(
        task_id: TaskId,
        answer: Annotated[
            str | None,
            Field(
                description="The paused step's answer, in plain text (`## TASK BLOCKED: why` "
                "blocks the task; `## CHECKPOINT REACHED` keeps partial work and pauses)."
            ),
        ] = None,
        skip: Annotated[bool, Field(description="Skip the step where it stopped.")] = False,
        force: Annotated[
            bool, Field(description="Resume a task of a completed or archived session.")
        ] = False,
        session: Session = None,
    ) -> CallToolResult:
        """Continue a stopped task where it stopped: give a paused agent step its answer,
        run a failed step again (neither answer nor skip), or skip the step. Finished
        steps never run again."""

        def work() -> tuple[dict[str, Any], int]:
            if answer is not None and skip:
                raise WfsError("give either an answer or skip, not both")
            if answer is not None:
                store.check_input_size(answer.encode(), "`answer`")
                read_answer(answer, "`answer`")  # an empty one is refused before any change
            return run(session, resume_id=task_id, answer=answer, skip=skip, force=force)

        return _answer(work)


def _add_switch_tool(server: WfsServer, layout: Layout) -> None:

    @server.tool(
        annotations=ToolAnnotations(
            destructive_hint=False, idempotent_hint=True, open_world_hint=False
        )
    )
    async def switch(
        session: Annotated[str, Field(description="Session id (WFS-x or x).")],
    ) -> CallToolResult:
        """Make a session the single active one; the others become paused."""
        return _answer(lambda: _ok(actions.switch(layout, session)))


def _add_todo_list(server: WfsServer, layout: Layout) -> None:
    """Each session's TODO_LIST.md, a resource."""

    @server.resource(
        TODO_LIST_URI,
        name="TODO_LIST.md",
        description="A session's task list, rendered from its task files.",
        mime_type="text/markdown",
    )
    def todo_list(session: str) -> str:
        try:
            sid = require_session(layout, session)
        except WfsError as err:
            raise ResourceNotFoundError(err.message) from None
        path = layout.session_dir(sid) / "TODO_LIST.md"
        try:
            return store.read_text(path, layout.relative(path))
        except WfsError as err:
            raise ResourceNotFoundError(err.message) from None


def _add_prompts(server: WfsServer) -> None:
    """The prompts that plan a topic and drive a session with the tools."""

    @server.prompt(name="plan", description="Plan a topic into a wfs session, with the tools.")
    def plan_prompt(
        topic: Annotated[str, Field(description="What to plan.")],
    ) -> str:
        return PLAN_PROMPT.format(topic=topic)

    @server.prompt(name="execute", description="Run a wfs session's tasks until done.")
    def execute_prompt(
        session: Annotated[str | None, Field(description="Session id; default: active.")] = None,
    ) -> str:
        which = f" {session}" if session else ""
        task = f' with session "{session}"' if session else ""
        return EXECUTE_PROMPT.format(which=which, task=task)


def _add_schema(server: WfsServer, name: str) -> None:
    def schema() -> str:
        return read_text("schemas", f"{name}.schema.json")

    server.resource(
        f"wfs://schemas/{name}.schema.json",
        name=f"{name}.schema.json",
        description=f"JSON Schema of a {name} document (draft 2020-12).",
        mime_type="application/schema+json",
    )(schema)


def serve(layout: Layout, session: str | None, root_option: str | None) -> None:
    """Serve until the client closes stdin."""
    build_server(layout, session, root_option).run("stdio")
