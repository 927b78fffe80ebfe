"""`wfs capture`: run a command and keep its output where the seed says (SPEC §4)."""

from __future__ import annotations

import subprocess
from datetime import datetime
from pathlib import Path

from wfs import platform, store
from wfs.errors import WfsError
from wfs.layout import SCRATCHPAD_DIR, Layout, slugify
from wfs.sessions import active_ids, current_session


def capture(
    layout: Layout, session: str | None, kind: str, description: str, command: list[str]
) -> tuple[Path, int]:
    """Run `command` (no shell) and save a markdown record; returns (path, exit code)."""
    kind_slug, desc_slug = slugify(kind), slugify(description)
    if not kind_slug or not desc_slug:
        raise WfsError('KIND and DESC need letters or digits, e.g. `analyze "auth flow"`')
    if session or active_ids(layout):
        folder = layout.session_dir(current_session(layout, session)) / ".chat"
    else:
        folder = layout.workflow / SCRATCHPAD_DIR
    started = datetime.now()
    try:
        proc = subprocess.run(
            command, cwd=layout.root, capture_output=True, stdin=subprocess.DEVNULL
        )
    except OSError as err:
        raise WfsError(f"cannot run {command[0]!r}: {err.strerror}") from None
    output = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    text = (
        f"# {kind}: {description}\n\n"
        f"- **Command**: `{platform.shell_join(command)}`\n"
        f"- **Exit code**: {proc.returncode}\n"
        f"- **When**: {started.isoformat(timespec='seconds')}\n\n"
        f"## Output\n\n````text\n{output.rstrip()}\n````\n"
    )
    stem = f"{kind_slug}-{desc_slug}-{started:%Y%m%d-%H%M%S}"
    path = folder / f"{stem}.md"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"{stem}-{n}.md"
    store.write_text(path, text)
    return path, proc.returncode
