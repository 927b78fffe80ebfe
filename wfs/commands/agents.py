"""`wfs agents install|list` and `wfs mcp`: what the editors get, and the MCP server."""

from __future__ import annotations

from typing import Any

import click

from wfs.agents_install import TARGET_ALIASES, TARGETS, mcp_install_hint, mcp_requirement
from wfs.cli import Env, pass_env, root_option
from wfs.errors import WfsError

AGENT_TARGETS = tuple(TARGETS)  # the editors, in the order --help lists them
# What --target accepts: the editors, and the other names some answer to (windsurf).
TARGET_CHOICE = click.Choice([*AGENT_TARGETS, *TARGET_ALIASES])


def _canonical(target: str | None) -> str | None:
    return TARGET_ALIASES.get(target, target) if target else target


@click.group()
def agents() -> None:
    """Editor commands, skills and agent definitions: install, check, remove, list.

    \b
    Example:
      wfs agents install --target claude
    """


@agents.command("install")
@click.option(
    "--target",
    type=TARGET_CHOICE,
    help="The editor (windsurf: the same as devin). Needed, except with --check (which "
    "then checks only this one).",
)
@click.option("--force", is_flag=True, help="Replace (or remove) files that differ from wfs's.")
@click.option(
    "--check",
    is_flag=True,
    help="Change nothing; exit 1 if an installed file is missing or stale (all targets "
    "installed, or --target).",
)
@click.option("--remove", is_flag=True, help="Remove the files wfs installed for --target.")
@click.option(
    "--allow-shell",
    is_flag=True,
    help="gemini: also the user policy ~/.gemini/policies/wfs.toml that lets Gemini CLI "
    "run wfs commands without asking.",
)
@click.option(
    "--mcp/--no-mcp",
    default=None,
    help="claude: also (or not) the server `wfs mcp` in .mcp.json. Default: installed "
    "when the mcp extra is (pip install 'wfs-sessions[mcp]'), kept when already there.",
)
@pass_env
def agents_install(
    env: Env,
    target: str | None,
    force: bool,
    check: bool,
    remove: bool,
    allow_shell: bool,
    mcp: bool | None,
) -> None:
    """Install the wfs commands and agent definitions for an editor.

    Files go under the project root. An editor with hooks also gets one running `wfs
    prime` as a session starts, in its settings file (opencode a plugin), some a
    permission for `wfs` commands there too, and AGENTS.md, CLAUDE.md, GEMINI.md,
    QWEN.md and .github/copilot-instructions.md a marked block: the rest of those files
    is left alone. What no project file of the editor can hold (Copilot CLI's permission
    to run wfs headless) is printed, to add by hand. A file (or entry) that exists and
    differs is only replaced with --force; without it nothing is written and the command
    exits 2. Installing twice changes nothing. --remove deletes only what wfs installed
    (a block another installed target shares stays), and restores nothing else.

    \b
    Example:
      wfs agents install --target claude
      wfs agents install --target gemini --allow-shell
      wfs agents install --check
      wfs agents install --target codex --remove
    """
    from wfs import agents_install as installer  # deferred: only `wfs agents` loads it

    target = _canonical(target)
    if check and remove:
        raise click.UsageError("give at most one of --check and --remove")
    if allow_shell and target != "gemini":
        raise click.UsageError("--allow-shell goes with --target gemini")
    if mcp is not None and target != "claude":
        raise click.UsageError("--mcp and --no-mcp go with --target claude")
    if check:
        mode = installer.mcp_mode(target, mcp, installing=False)
        _agents_check(env, installer, target, allow_shell, mode)
        return
    if target is None:
        raise click.UsageError("Missing option '--target'.")
    mode = installer.mcp_mode(target, mcp, installing=not remove)
    if remove:
        actions = installer.remove(env.layout, target, force, allow_shell, mode)
    else:
        actions = installer.install(env.layout, target, force, allow_shell, mode)
    rows = [{"path": path, "action": action} for path, action in actions]

    def human() -> None:
        env.lines([f"{row['action']}: {row['path']}" for row in rows])
        if TARGETS[target].setup and not remove:
            env.echo(TARGETS[target].setup, err=True)
        if allow_shell and not remove:
            env.echo(
                "The user policy ~/.gemini/policies/wfs.toml lets Gemini CLI run `wfs ...` "
                "shell commands without asking, in every project; other policies are "
                "left alone.",
                err=True,
            )

    env.emit({"target": target, "files": rows}, human)


def _agents_check(
    env: Env, installer: Any, target: str | None, allow_shell: bool, mcp: str
) -> None:
    checked = installer.check(env.layout, [target] if target else None, allow_shell, mcp)
    rows = [{"target": c.target, "path": c.relative, "state": c.state} for c in checked]
    problems = [row for row in rows if row["state"] != "installed"]

    def human() -> None:
        if not rows:
            env.echo("no wfs editor files are installed here")
        for name in dict.fromkeys(row["target"] for row in rows):
            mine = [row for row in rows if row["target"] == name]
            bad = [row for row in mine if row["state"] != "installed"]
            if not bad:
                env.echo(f"{name}: {len(mine)} files installed and up to date")
            for row in bad:
                env.echo(f"{name}: {row['state']}: {row['path']}")
        if problems:
            fix = f" --target {target}" if target else " --target T"
            env.echo(f"fix with: wfs agents install{fix} --force", err=True)

    env.emit({"files": rows, "problems": len(problems)}, human)
    if problems:
        raise SystemExit(1)


@agents.command("list")
@click.option("--target", type=TARGET_CHOICE, help="Only this editor (default: all).")
@pass_env
def agents_list(env: Env, target: str | None) -> None:
    """List the files each editor gets, and whether this project has them up to date.

    State: installed (identical), differs (changed or outdated), missing.

    \b
    Example:
      wfs agents list --target codex
    """
    from wfs.agents_install import listing  # deferred: only `wfs agents` loads it

    target = _canonical(target)
    rows = listing(env.layout, [target] if target else AGENT_TARGETS)
    width = max(len(name) for name in AGENT_TARGETS)
    env.emit(
        {"files": rows},
        lambda: env.echo(
            "\n".join(f"{row['target']:<{width}} {row['state']:<10} {row['path']}" for row in rows)
        ),
    )


@click.command("mcp")
@pass_env
def mcp_server(env: Env) -> None:
    """Serve wfs to an MCP client over stdio (extra: pip install 'wfs-sessions[mcp]').

    Eight tools (status, next, task_show, plan, validate, execute, resume, switch)
    answer with the JSON of the matching command and its exit code; the JSON Schemas
    and each session's TODO_LIST.md are resources; `plan` and `execute` are prompts.
    --root and --session given to `wfs` apply to every call. Without the MCP SDK it
    exits 2 and prints the command that installs it into the Python wfs runs in.

    \b
    Example:
      claude mcp add wfs -- wfs mcp
    """
    try:
        from wfs.mcp_server import serve  # deferred: only `wfs mcp` loads it
    except ImportError as err:
        if (err.name or "").startswith("wfs"):
            raise
        raise WfsError(
            f"wfs mcp needs the MCP Python SDK ({mcp_requirement()}), which is not installed; "
            f"install it with: {mcp_install_hint()}"
        ) from None
    serve(env.layout, env.session, root_option(env))
