"""The `wfs` entry point: answer the hottest commands without importing click.

Agents call `wfs status`, `wfs next`, `wfs task show ID` and `wfs task list` hundreds
of times per session. When the call is one of those plain forms and the index cache
(wfs/index.py) is current, the answer is printed from it directly (`task list` from the
skeletons, as the CLI reads them). Anything else
(another command, an unusual option, a stale cache, any doubt at all) goes to the
full click CLI, which is authoritative and refreshes the cache. Both print through
wfs/query.py, so the output is the same bytes.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing itself costs more to import than a fast answer
if TYPE_CHECKING:
    from typing import Any

WORKFLOW_DIR = ".workflow"


def main() -> None:
    output = None
    try:
        output = answer(sys.argv[1:], os.environ)
    except Exception:  # an optimization only: the full CLI decides and reports
        output = None
    if output is not None:
        sys.stdout.buffer.write(output)
        sys.stdout.flush()
        return
    if write(sys.argv[1:], os.environ):
        return
    from wfs.cli import main as full_cli

    full_cli()


def answer(argv: list[str], environ: Any) -> bytes | None:
    """The bytes to print for argv, or None to leave the call to the full CLI."""
    root = environ.get("WFS_ROOT")
    root_option = None  # a --root given on the command line goes into resume commands
    session = environ.get("WFS_SESSION")
    json_out = False
    color = "NO_COLOR" not in environ
    args = iter(argv)
    command: list[str] = []
    for arg in args:
        if command:
            command.append(arg)
        elif arg == "--json":
            json_out = True
        elif arg == "--no-color":
            color = False
        elif arg in ("--root", "--session"):
            value = next(args, None)
            if value is None:
                return None
            if arg == "--root":
                root = root_option = value
            else:
                session = value
        elif arg.startswith("-"):
            return None
        else:
            command.append(arg)
    if "--json" in command:
        json_out = True
        command = [a for a in command if a != "--json"]
    if command[:1] == ["prime"]:
        return _prime(command[1:], root, session, json_out)
    reads = (["status"], ["next"], ["next", "--all"], ["task", "list"])
    if command not in reads and command[:2] != ["task", "show"]:
        return None
    if command[:2] == ["task", "show"] and len(command) != 3:
        return None

    workflow = _workflow(root)
    chosen = _session(workflow, session) if workflow else None
    if workflow is None or chosen is None:
        return None
    sid, folder = chosen
    if command == ["task", "list"]:
        return _task_list(workflow, sid, json_out)
    from wfs import index, query

    parts = {"status": index.HEAD, "task": index.MAPS}.get(command[0], index.HEAD)
    if command == ["next", "--all"]:
        parts = index.ROWS
    found = index.cached_answers(workflow, sid, parts, folder=folder)
    if found is None or found["summary"].get("unreadable"):
        return None  # the full CLI answers, then names the broken files (exit 2)
    prefix = query.command_prefix(sid, root_option)
    if command == ["status"]:
        data = query.status_data(found["summary"], prefix)
        lines = query.status_lines(data, _bold if color and sys.stdout.isatty() else str)
    elif command[0] == "next":
        data = query.next_data(sid, found, len(command) == 2, prefix)
        lines = query.next_lines(data)
    else:
        tid = command[2]
        if tid not in found["status"]:
            return None
        data = query.show_data(sid, found, tid, _read_task(folder, tid))
        if data["task"] is None:
            return None
        lines = query.show_lines(data)
    return _json(data) if json_out else _printed(lines)


def _task_list(workflow: str, sid: str, json_out: bool) -> bytes | None:
    """`wfs task list`, as wfs.actions.task_list says it; None when a task file cannot
    be read (the full CLI names it, exit 2)."""
    from pathlib import Path

    from wfs import actions, query, store
    from wfs.layout import Layout

    root = Path(workflow).parent
    store.confine(root)  # the skeletons' cache is written as the CLI would write it
    data, unreadable = actions.task_list(Layout(root), sid, None, False)
    if unreadable:
        return None
    return _json(data) if json_out else _printed(query.list_lines(data))


def _json(data: Any) -> bytes:
    from wfs import jsonio  # orjson: only when JSON is printed

    return jsonio.dumps(data)


def _printed(lines: list[str]) -> bytes:
    """The bytes the CLI prints for these lines (made safe for a terminal)."""
    from wfs.text import for_terminal

    return "".join(for_terminal(line) + "\n" for line in lines).encode()


# `wfs task add` options that take a value: option -> (field name, repeatable).
ADD_OPTIONS = {
    "--title": ("title", False),
    "--id": ("task_id", False),
    "--parent": ("parent", False),
    "--agent": ("agent", False),
    "--depends-on": ("depends", True),
    "--requirement": ("requirements", True),
    "--acceptance": ("acceptance", True),
    "--focus-path": ("focus", True),
}


def write(argv: list[str], environ: Any) -> bool:
    """Run `task status ID STATUS` or a plain `task add`; False (nothing done) for any
    other form, which the full CLI then runs. Exits with the CLI's code on an error."""
    root, session, json_out = environ.get("WFS_ROOT"), environ.get("WFS_SESSION"), False
    args = iter(argv)
    command: list[str] = []
    for arg in args:
        if arg == "--json":
            json_out = True
        elif command:
            command.append(arg)
        elif arg in ("--root", "--session"):
            value = next(args, None)
            if value is None:
                return False
            root, session = (value, session) if arg == "--root" else (root, value)
        elif arg == "--no-color":
            pass  # nothing written here has colour
        elif arg.startswith("-"):
            return False
        else:
            command.append(arg)
    if command[:2] != ["task", "status"] and command[:2] != ["task", "add"]:
        return False
    if command[1] == "status":
        from wfs.tasks import LEAF_STATUSES

        if len(command) != 4 or command[3] not in LEAF_STATUSES or command[2].startswith("-"):
            return False
        return _run(root, session, json_out, "status", command[2], command[3])
    options: dict[str, Any] = {}
    given = iter(command[2:])
    for option in given:
        known = ADD_OPTIONS.get(option)
        value = next(given, None)
        if known is None or value is None or value.startswith("-"):
            return False
        name, repeatable = known
        if repeatable:
            options[name] = (*options.get(name, ()), value)
        elif name in options:
            return False
        else:
            options[name] = value
    if not options.get("title"):
        return False  # the full CLI says what is missing
    return _run(root, session, json_out, "add", options)


def _run(root: str | None, session: str | None, json_out: bool, what: str, *args: Any) -> bool:
    from wfs import actions
    from wfs.errors import WfsError, os_error_message
    from wfs.text import for_terminal, printable

    layout = None
    try:
        from wfs import store
        from wfs.layout import Layout, find_root

        layout = Layout(find_root(root))
        store.confine(layout.root)
        if what == "status":
            data, text = actions.task_status(layout, session, *args)
        else:
            data, text = actions.task_add(layout, session, **args[0])
    except WfsError as err:
        sys.stderr.write(f"wfs: error: {printable(err.message)}\n")
        sys.exit(err.exit_code)
    except OSError as err:
        message = os_error_message(err, layout.root if layout is not None else None)
        sys.stderr.write(f"wfs: error: {printable(message)}\n")
        sys.exit(2)
    if json_out:
        sys.stdout.buffer.write(_json(data))
    else:
        sys.stdout.write(for_terminal(text) + "\n")
    sys.stdout.flush()
    return True


def _prime(
    options: list[str], root: str | None, session: str | None, json_out: bool
) -> bytes | None:
    """`wfs prime [--hook-json [--editor E]]` from the index, as wfs.actions.prime says it."""
    from wfs import prime

    hook = False
    editor = None
    given = iter(options)
    for option in given:
        if option == "--hook-json":
            hook = True
        elif option == "--editor":
            editor = next(given, None)
            if editor is None:
                return None
        elif option.startswith("--editor="):
            editor = option[len("--editor=") :]
        else:
            return None
    if editor is not None and (not hook or editor not in prime.EDITORS):
        return None
    workflow = _workflow(root)
    from wfs import query

    if workflow is None:
        # No .workflow/ anywhere: no session, in any layout. (An editor's hook may run
        # in projects that have none yet.)
        if session is not None or (root is not None and not os.path.isdir(root)):
            return None
        sid, text = None, prime.no_session_text()
    else:
        chosen = _session(workflow, session)
        if chosen is None:
            return None
        from wfs import index

        sid, folder = chosen
        found = index.cached_answers(workflow, sid, index.HEAD, folder=folder)
        if found is None or found["summary"].get("unreadable"):
            return None
        prefix = query.command_prefix(sid)
        text = prime.digest(query.status_data(found["summary"], prefix), found["next"], prefix)
    if hook:
        return prime.hook_json(text, editor or "claude")
    if json_out:
        return _json(prime.json_data(sid, text))
    return text.encode()


def _bold(text: str) -> str:
    return f"\x1b[1m{text}\x1b[0m"


def _workflow(root: str | None) -> str | None:
    """The `.workflow` folder, found as wfs.layout.find_root finds it, else None."""
    if root is not None:
        if not root or not os.path.isdir(root):
            return None
        start = os.path.realpath(os.path.expanduser(root))
        folder = os.path.join(start, WORKFLOW_DIR)
        return folder if os.path.isdir(folder) else None
    here = os.path.realpath(os.getcwd())
    while True:
        folder = os.path.join(here, WORKFLOW_DIR)
        if os.path.isdir(folder):
            return folder
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


PLACES = ("active", "", "archives")  # as in wfs/layout.py, in lookup order


def _session(workflow: str, requested: str | None) -> tuple[str, str] | None:
    """(session id, folder) when the session is plain and unambiguous, else None.

    Plain means: named by `--session`, by the one marker, or (no markers) the one
    session of `active/` that is not paused; found in exactly one place; no placeholder,
    symlink or missing session file. Anything else is the full CLI's to answer."""
    names = os.listdir(workflow)
    if requested is not None:
        sid = requested
    else:
        markers = [n for n in names if n.startswith(".active-")]
        if len(markers) > 1:
            return None
        if markers:
            sid = markers[0][len(".active-") :]
        else:
            live = _unpaused(os.path.join(workflow, "active")) if "active" in names else []
            if len(live) != 1:
                return None
            sid = live[0]
    if not sid.startswith("WFS-") or any(c in sid for c in "/\\[]{}<>$") or sid == "WFS-":
        return None
    found = [
        os.path.join(workflow, place, sid) if place else os.path.join(workflow, sid)
        for place in PLACES
    ]
    found = [path for path in found if os.path.isdir(path)]
    if len(found) != 1 or os.path.islink(found[0]):
        return None
    if requested is None and markers and found[0].endswith(os.sep + "archives" + os.sep + sid):
        return None  # a marker naming an archived session: the full CLI says so
    return sid, found[0]


def _unpaused(active: str) -> list[str]:
    from wfs import jsonio

    live = []
    for name in os.listdir(active):
        if not name.startswith("WFS-"):
            continue
        try:
            with open(os.path.join(active, name, "workflow-session.json"), "rb") as handle:
                data = jsonio.loads(handle.read())
        except (OSError, ValueError):
            return []  # unreadable: the full CLI reports it
        if not isinstance(data, dict) or data.get("status") not in ("paused", "completed"):
            live.append(name)
    return live


def _read_task(folder: str, tid: str) -> Any:
    """The task as the index saw it (its stamp matched just now), or None."""
    from wfs import index, jsonio

    with open(os.path.join(folder, index.TASK_DIR, tid + ".json"), "rb") as handle:
        task = jsonio.loads(handle.read())
    if not isinstance(task, dict):
        return None
    return task if task.get("id", task.get("task_id")) == tid else None
