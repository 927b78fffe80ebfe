"""The house of wfs in rooms of a size a person can hold: no hand-written module over
800 lines, no class over 400, no function over 100 (the code that jinja2 and
fastjsonschema write, in wfs/templates/compiled/ and wfs/checks/, aside)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "wfs"
GENERATED = ({"templates", "compiled"}, {"checks"})  # folders of written code, by their parts
LIMITS = {"module": 800, "class": 400, "function": 100}


def generated(path: Path) -> bool:
    parts = set(path.relative_to(PACKAGE).parts[:-1])
    return any(folder <= parts for folder in GENERATED)


def rooms(path: Path, root: Path = REPO) -> Iterator[tuple[str, str, int]]:
    """(kind, name, lines) of the module at `path` (named from `root`) and of every
    class and function in it, methods and nested functions included (a function's
    lines count from its `def` to its last line)."""
    text = path.read_text(encoding="utf-8")
    name = path.relative_to(root).as_posix()
    yield "module", name, len(text.splitlines())

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                kind = "class" if isinstance(child, ast.ClassDef) else "function"
                assert child.end_lineno is not None
                qualified = f"{prefix}{child.name}"
                yield kind, f"{name}::{qualified}", child.end_lineno - child.lineno + 1
                yield from walk(child, f"{qualified}.")
            else:
                yield from walk(child, prefix)

    yield from walk(ast.parse(text), "")


def modules() -> list[Path]:
    return [path for path in sorted(PACKAGE.rglob("*.py")) if not generated(path)]


def oversized(paths: list[Path] | None = None, root: Path = REPO) -> list[str]:
    """Every room of `paths` (the package's modules) over its limit."""
    found = []
    for path in modules() if paths is None else paths:
        for kind, name, lines in rooms(path, root):
            if lines > LIMITS[kind]:
                found.append(f"{name}: a {kind} of {lines} lines (at most {LIMITS[kind]})")
    return found


def test_no_room_of_the_package_is_over_its_size() -> None:
    assert oversized() == []


def test_the_size_check_counts_modules_classes_functions_and_methods(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("class Big:\n    def method(self):\n" + "        x = 1\n" * 101)
    assert list(rooms(probe, tmp_path)) == [
        ("module", "probe.py", 103),
        ("class", "probe.py::Big", 103),
        ("function", "probe.py::Big.method", 102),
    ]
    assert oversized([probe], tmp_path) == [
        "probe.py::Big.method: a function of 102 lines (at most 100)"
    ]
