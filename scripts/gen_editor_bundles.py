"""Write the editor bundles shipped in this repository from agents/.

    python scripts/gen_editor_bundles.py           # rewrite them
    python scripts/gen_editor_bundles.py --check   # exit 1 if one is out of date

The Claude Code plugin is editors/claude/ (listed by .claude-plugin/marketplace.json at
the repository root) and the Gemini CLI extension is editors/gemini/. Both are rendered
by wfs.agents_install from the same sources as `wfs agents install`, so
tests/test_editor_bundles.py can regenerate them and compare byte for byte.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from wfs.agents_install import BUNDLES, bundle_files

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("editors/claude", "editors/gemini")


def expected() -> dict[str, bytes]:
    return {path: data for bundle in BUNDLES for path, data in bundle_files(bundle)}


def on_disk() -> dict[str, bytes]:
    found = {
        path.relative_to(REPO).as_posix(): path.read_bytes()
        for folder in FOLDERS
        for path in (REPO / folder).rglob("*")
        if path.is_file()
    }
    marketplace = REPO / ".claude-plugin" / "marketplace.json"
    if marketplace.is_file():
        found[".claude-plugin/marketplace.json"] = marketplace.read_bytes()
    return found


def main(argv: list[str]) -> int:
    want = expected()
    if "--check" in argv:
        have = on_disk()
        stale = sorted(p for p in want.keys() | have.keys() if want.get(p) != have.get(p))
        for path in stale:
            print(f"out of date: {path}", file=sys.stderr)
        if stale:
            print("run: python scripts/gen_editor_bundles.py", file=sys.stderr)
        return 1 if stale else 0
    for folder in FOLDERS:
        shutil.rmtree(REPO / folder, ignore_errors=True)
    for path, data in want.items():
        (REPO / path).parent.mkdir(parents=True, exist_ok=True)
        (REPO / path).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
