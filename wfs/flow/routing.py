"""Which command does a task's agent work (SPEC §3.16).

In order: `--agent CMD` or `WFS_AGENT`; for a task whose `meta.execution_config.method`
is `cli`, the CLI tool it names (`cli_tool`), which gets one hand-off prompt on stdin;
the command `.workflow/config.json` maps the task's `meta.agent` to (`@codex` and
`codex` name one agent); a `meta.agent` that names a CLI tool on PATH (`codex`,
`gemini`, `claude`, `qwen`: the agent the author used), which gets the prompt too; the
config's `default` (or the older top-level `"agent"`). With none, execution pauses for
an agent.

    {"agents": {"@code-developer": "claude -p", "@test-fix-agent": "codex exec -",
                "cli:gemini": "gemini --yolo", "default": "my-agent"},
     "agent_input": "markdown"}

Every agent gets the brief on stdin as the Markdown prompt coding agents take
(wfs.flow.brief.as_text); an agent command (not a CLI tool) gets it as one line of
JSON instead where `WFS_AGENT_INPUT=json` or the config's `"agent_input": "json"` says
so (the environment wins).
"""

from __future__ import annotations

import os
import shutil
from typing import Any, NamedTuple

from wfs import jsonio, store
from wfs.errors import WfsError
from wfs.layout import Layout
from wfs.schemas import AGENT_INPUTS
from wfs.tasks import Task, obj

# How each CLI tool takes a prompt on stdin and works without asking; `cli:<tool>` in
# the config replaces one.
CLI_TOOLS = {
    "claude": "claude -p --permission-mode acceptEdits",
    "codex": "codex exec --full-auto -",
    "gemini": "gemini --yolo",
    "qwen": "qwen --yolo",
}


class Handoff(NamedTuple):
    command: str  # run with bash in the project root; the brief on stdin
    form: str  # "text": the Markdown prompt; "json": the brief as JSON


class AgentRoutes(NamedTuple):
    override: str | None  # --agent CMD or WFS_AGENT
    by_name: dict[str, str]  # from .workflow/config.json "agents"
    default: str | None
    form: str = "text"  # what agent commands get: "text" (Markdown) or "json"

    def for_task(self, task: Task) -> Handoff | None:
        if self.override:
            return Handoff(self.override, self.form)
        config = obj(obj(task, "meta"), "execution_config")
        tool = config.get("cli_tool")
        if config.get("method") == "cli" and isinstance(tool, str) and tool != "auto":
            command = self.by_name.get(f"cli:{tool}") or CLI_TOOLS.get(tool)
            if command:
                return Handoff(command, "text")
        name = obj(task, "meta").get("agent")
        named = self.named(name.strip()) if isinstance(name, str) and name.strip() else None
        if named is not None:
            return named
        return Handoff(self.default, self.form) if self.default else None

    def named(self, name: str) -> Handoff | None:
        """The agent `meta.agent` names, by either spelling (`@codex` or `codex`): the
        command the config maps it to, else the CLI tool of that name when it is on
        PATH (`codex`, `gemini`, `claude`, `qwen`: the author's own agent)."""
        bare = name.removeprefix("@")
        for key in (name, f"@{bare}", bare):
            if key in self.by_name:
                return Handoff(self.by_name[key], self.form)
        tool = bare.lower()
        if tool in CLI_TOOLS and (f"cli:{tool}" in self.by_name or shutil.which(tool)):
            return Handoff(self.by_name.get(f"cli:{tool}") or CLI_TOOLS[tool], "text")
        return None


def agent_routes(layout: Layout, option: str | None) -> AgentRoutes:
    """Where agent steps go: `option` (--agent), then WFS_AGENT, then the routes of
    .workflow/config.json. An empty one is not given; one of spaces only is refused, as
    the config's are (it would run as an agent that answers nothing)."""
    for value, where in ((option, "--agent"), (os.environ.get("WFS_AGENT"), "WFS_AGENT")):
        if value:
            if not value.strip():
                raise WfsError(f"{where}={value!r}: expected an agent command")
            return load_routes(layout, value)
    return load_routes(layout, None)


def load_routes(layout: Layout, override: str | None) -> AgentRoutes:
    """The routes of `.workflow/config.json`, checked, with `override` first."""
    path = layout.workflow / "config.json"
    where = layout.relative(path)
    chosen = os.environ.get(INPUT_VARIABLE)
    if chosen is not None:
        form = input_form(chosen, INPUT_VARIABLE)
    if not path.exists():
        return AgentRoutes(override, {}, None, form if chosen is not None else "text")
    data: Any = store.read_json(path, where)
    if not isinstance(data, dict):
        raise WfsError(f"{where}: expected a JSON object")
    if chosen is None:
        form = input_form(data.get("agent_input", "markdown"), f"{where}#/agent_input")
    legacy = data.get("agent")
    if legacy is not None and (not isinstance(legacy, str) or (legacy and not legacy.strip())):
        raise WfsError(f"{where}#/agent: expected a command string")
    agents = data.get("agents", {})
    if not isinstance(agents, dict):
        raise WfsError(f"{where}#/agents: expected an object mapping agent names to commands")
    for name, command in agents.items():
        if not isinstance(command, str) or not command.strip():
            pointer = name.replace("~", "~0").replace("/", "~1")
            raise WfsError(f"{where}#/agents/{pointer}: expected a command string")
    routes = {k: v for k, v in agents.items() if k != "default"}
    return AgentRoutes(override, routes, agents.get("default") or legacy, form)


INPUT_VARIABLE = "WFS_AGENT_INPUT"


def input_form(value: Any, where: str) -> str:
    """The Handoff form of an `agent_input` value ("markdown" or "json"), else the
    error naming where the value came from."""
    if value not in AGENT_INPUTS:
        shown = repr(value) if isinstance(value, str) else jsonio.compact(value).decode()
        choices = " or ".join(f'"{choice}"' for choice in AGENT_INPUTS)
        raise WfsError(
            f"{where}: expected {choices} (what an agent command gets on stdin), got {shown}"
        )
    return "json" if value == "json" else "text"
