"""`wfs board`: the plan as a live page on 127.0.0.1, a file for a pull request, or
columns in the terminal (wfs/board/)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from wfs import jsonio, store
from wfs.cli import Env, pass_env, refuse_unreadable, root_option


@click.command()
@click.option(
    "--port",
    type=click.IntRange(min=0, max=65535),
    default=None,
    help="The port on 127.0.0.1 (0: a free one), kept for the next starts (default: the "
    "project's, else a free one).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the browser.")
@click.option(
    "--allow-actions",
    is_flag=True,
    help="Add buttons for resume, skip, a leaf's status and a switch of session "
    "(read-only without it).",
)
@click.option(
    "--export",
    "export_file",
    metavar="FILE.html",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the board of now as one self-contained HTML file, and exit.",
)
@click.option("--tui", is_flag=True, help="Show the board in this terminal instead.")
@pass_env
def board(
    env: Env,
    port: int | None,
    open_browser: bool,
    allow_actions: bool,
    export_file: Path | None,
    tui: bool,
) -> None:
    """Show the session as a live board: its graph, its tasks by status, who runs what.

    Serves a page on 127.0.0.1 only, at a URL with a random token, and prints the URL;
    the page follows the files as `wfs execute`, `wfs task status`, an editor or `git
    pull` change them. The URL stays the same from one start to the next in a project
    (its port and token are kept in .workflow/.cache/board.json, which git ignores;
    delete it for a new one). Read-only unless --allow-actions, which gets a new token
    at every start. --json prints the URL, token and port on one line, then serves.
    --export writes one HTML file that opens with no network (for a pull request or a CI
    artifact). --tui shows the columns and the running tasks in the terminal, redrawn as
    they change; q or Ctrl-C ends it.

    \b
    Example:
      wfs board --open
      wfs board --export plan.html
      wfs board --tui
    """
    given = {"--port": port is not None, "--open": open_browser, "--allow-actions": allow_actions}
    serving = [name for name, value in given.items() if value]
    if (tui or export_file is not None) and serving:
        alone = "--tui" if tui else "--export"
        raise click.UsageError(f"{alone} starts no server: it takes no {', '.join(serving)}")
    if tui and export_file is not None:
        raise click.UsageError("--tui and --export: one or the other")
    # deferred: only `wfs board` loads the board, jinja2 and the engine's readers
    from wfs.board import server

    if export_file is not None:
        page, unreadable = server.export_page(env.layout, env.session, root_option(env))
        store.confine(export_file.resolve().parent)
        store.write_bytes(export_file.resolve(), page.encode("utf-8"), durable=False)
        env.emit({"written": str(export_file)}, lambda: env.echo(f"Wrote {export_file}"))
        refuse_unreadable(env, unreadable)
        return
    if tui:
        from wfs.board import tui as terminal  # deferred: only --tui draws in the terminal

        terminal.run(env.layout, env.session, color=env.color)
        return
    env.current_session()  # no session: say so before listening
    # A read-only board keeps its URL for its next start; one that can act gets a token
    # of its own each time (docs/board.md, Security).
    kept = None if allow_actions else server.kept_address(env.layout)
    shown = server.Board(
        env.layout, env.session, root_option(env), allow_actions, kept.token if kept else None
    )
    moved = False  # the kept port is someone else's now: this start only is elsewhere
    if port is None and kept is not None:
        listening_on = server.listen(shown, kept.port, fallback=True)
        moved = shown.port != kept.port
        if moved:
            env.echo(
                f"wfs: port {kept.port}, where this project's board was, is taken: the "
                "board is on another one this time",
                err=True,
            )
    else:
        listening_on = server.listen(shown, port or 0)
    if not allow_actions and not moved:
        server.keep_address(env.layout, server.Address(shown.port, shown.token))

    def ready(listening: server.Board) -> None:
        if env.json:
            line = {"url": listening.url(), "token": listening.token, "port": listening.port}
            sys.stdout.buffer.write(jsonio.compact(line) + b"\n")
            sys.stdout.flush()
        else:
            env.echo(f"Board: {listening.url()}")
            env.echo("Ctrl-C stops it.")
        if open_browser:
            import webbrowser  # deferred: only --open starts a browser

            webbrowser.open(listening.url())

    server.serve(listening_on, ready)
