"""Compile wfs/templates/*.j2 into wfs/templates/compiled/ with jinja2 (see wfs/templating.py).

    python scripts/compile_templates.py           # compile them again
    python scripts/compile_templates.py --check   # exit 1 if the compiled copy is stale

Run it after editing a template (tests/test_templates.py fails until then; wfs itself
compiles a template from source while its compiled copy is stale).
"""

from __future__ import annotations

import filecmp
import sys
import tempfile
from pathlib import Path

from wfs import templating


def stale(compiled: Path = templating.COMPILED) -> list[str]:
    """The files of `compiled` that differ from a fresh compile (missing or extra ones too)."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        templating.compile_all(fresh)
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
            print(f"stale: {', '.join(found)}; run python scripts/compile_templates.py")
            return 1
        print("OK: the compiled templates are current")
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    templating.compile_all(templating.COMPILED)
    print(f"compiled {', '.join(templating.sources())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
