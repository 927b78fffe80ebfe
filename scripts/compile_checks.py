"""Compile the hot checks of wfs/schemas.py (PRECOMPILED) into wfs/checks/ with
fastjsonschema, from the schema files of schemas/.

    python scripts/compile_checks.py           # compile them again
    python scripts/compile_checks.py --check   # exit 1 if the compiled copy is stale

Run it after editing a schema or wfs/schemas.py (tests/test_schema_checks.py fails
until then; wfs itself compiles a check from the schemas while its copy is stale).
"""

from __future__ import annotations

import filecmp
import sys
import tempfile
from pathlib import Path

from wfs import schemas


def stale(compiled: Path = schemas.COMPILED) -> list[str]:
    """The files of `compiled` that differ from a fresh compile (missing or extra ones too)."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        schemas.compile_all(fresh)
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
        found = stale()
        if found:
            print(f"stale: {', '.join(found)}; run python scripts/compile_checks.py")
            return 1
        print("OK: the compiled checks are current")
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    schemas.compile_all()
    print(f"compiled {', '.join(schemas.check_module(*c) for c in schemas.PRECOMPILED)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
