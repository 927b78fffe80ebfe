"""Compile what wfs keeps compiled in its package: the templates of wfs/templates/ (by
jinja2, into wfs/templates/compiled/) and the hot schema checks (by fastjsonschema,
into wfs/checks/). Each folder has a MANIFEST of what it was made from; wfs never uses
a stale copy, and the tests fail until it is compiled again.

    python scripts/compile.py           # compile both again
    python scripts/compile.py --check   # exit 1 if either compiled copy is stale

Run it after editing a template, a schema or wfs/schemas.py.
"""

from __future__ import annotations

import filecmp
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from wfs import schemas, templating

# What is compiled: its folder, and what writes it there.
COMPILED: list[tuple[Path, Callable[[Path], None]]] = [
    (templating.COMPILED, templating.compile_all),
    (schemas.COMPILED, schemas.compile_all),
]


def stale(compiled: Path, compile_all: Callable[[Path], None]) -> list[str]:
    """The files of `compiled` that differ from a fresh compile (missing or extra ones too)."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        compile_all(fresh)
        names = {p.name for p in fresh.iterdir()} | {
            p.name for p in compiled.glob("*") if p.is_file()
        }
        return sorted(
            name
            for name in names
            if not (fresh / name).is_file()
            or not (compiled / name).is_file()
            or not filecmp.cmp(fresh / name, compiled / name, shallow=False)
        )


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        found = [
            f"{folder.name}/{name}" for folder, make in COMPILED for name in stale(folder, make)
        ]
        if found:
            print(f"stale: {', '.join(found)}; run python scripts/compile.py")
            return 1
        print("OK: the compiled templates and checks are current")
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    for folder, compile_all in COMPILED:
        compile_all(folder)
        print(f"compiled {folder.relative_to(Path(templating.__file__).parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
