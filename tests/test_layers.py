"""The house of wfs: layers that import only downwards, no import cycle, no private name
of one module used by another, and a function-local import only where it defers a heavy
import on purpose (saying so on its line)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "wfs"


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (the compiled templates and schema
    checks aside: jinja2 and fastjsonschema write them)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if {"templates", "checks"} & set(path.relative_to(PACKAGE).parts):
            continue
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


class Import:
    def __init__(self, module: str, target: str, names: list[str], node: ast.stmt) -> None:
        self.module, self.target, self.names, self.node = module, target, names, node


def imports_of(name: str, path: Path, local: bool | None = None) -> Iterator[Import]:
    """The imports of `path` (`local`: only those inside a function, or only those
    outside), with the module each one reads from; `TYPE_CHECKING` blocks left out."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def walk(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.stmt, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, in_function
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            yield from walk(child, inner)

    for node, in_function in walk(ast.parse(path.read_text(encoding="utf-8")), False):
        if local is not None and in_function != local:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(name, alias.name, [], node)
        else:
            assert isinstance(node, ast.ImportFrom)
            target = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            yield Import(name, target, [alias.name for alias in node.names], node)


def graph() -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (function-local imports too)."""
    known = modules()
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for found in imports_of(name, path):
            if not found.target.startswith("wfs"):
                continue
            targets = [f"{found.target}.{n}" for n in found.names] or [found.target]
            for target in targets:
                while target not in known and "." in target:
                    target = target.rpartition(".")[0]  # a name, not a module
                if target != name:
                    edges[name].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


@pytest.mark.slow
def test_no_module_imports_a_module_that_imports_it_back() -> None:
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.slow
def test_the_layers_hold() -> None:
    """import-linter's contract in pyproject.toml: each layer imports only downwards."""
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports_command;"
            " sys.exit(lint_imports_command())",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "Contracts: 2 kept, 0 broken." in run.stdout


def layers(container: str = "wfs") -> list[list[str]]:
    """The layers of the contract on `container` (the package, or `wfs.flow`), top first."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if c["containers"] == [container]]
    split = [layer.replace("|", ":").split(":") for layer in contract["layers"]]
    return [[m.strip() for m in layer] for layer in split]


def readme_table(heading: str) -> list[list[str]]:
    """The modules of each row of README.md's table under the header `heading`."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme.split(heading, 1)[1].split("\n\n", 1)[0]
    rows = [line for line in table.splitlines()[2:] if line.startswith("|")]
    return [sorted(cell.strip(" `/") for cell in row.split("|")[2].split(",")) for row in rows]


def test_every_module_is_in_a_layer() -> None:
    placed = {f"wfs.{m}" for layer in layers() for m in layer}
    for name in modules():
        if name == "wfs":
            continue
        parts = name.split(".")
        assert any(".".join(parts[:n]) in placed for n in range(2, len(parts) + 1)), name


def test_the_readme_shows_the_layers() -> None:
    """README.md's table of layers names every module of each layer, in the same order."""
    assert readme_table("| layer | modules |") == [
        sorted(m if (PACKAGE / m).is_dir() else f"{m}.py" for m in layer) for layer in layers()
    ]


def test_the_readme_shows_the_layers_of_the_engine() -> None:
    """README.md's table of the layers of flow/ names every module of each, in order."""
    assert readme_table("| layer of `flow/` | modules |") == [
        sorted(f"{m}.py" for m in layer) for layer in layers("wfs.flow")
    ]


@pytest.mark.slow
def test_no_private_name_of_a_module_is_used_by_another() -> None:
    known = modules()
    found = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {}
        for item in imports_of(name, path):
            if not item.target.startswith("wfs"):
                continue
            node = item.node
            for alias in node.names:
                full = (
                    f"{item.target}.{alias.name}"
                    if isinstance(node, ast.ImportFrom)
                    else alias.name
                )
                if full in known:
                    aliases[alias.asname or alias.name.split(".")[0]] = full
                elif alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{path.name}:{node.lineno}: {alias.name} from {item.target}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}")
    assert found == []


@pytest.mark.slow
def test_a_function_imports_only_what_it_defers_on_purpose_and_says_why() -> None:
    """A function-local import carries a comment (on its line, or on its own line just
    above) saying what it defers and why; a
    module of wfs that every command reads anyway is never imported in a function."""
    light = {"wfs.errors", "wfs.layout", "wfs.text", "wfs.jsonio", "wfs.platform", "wfs.store"}
    light |= {"wfs.tasks", "wfs.sessions", "wfs.index", "wfs.query", "wfs.schemas"}
    silent, needless = [], []
    for name, path in modules().items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for item in imports_of(name, path, local=True):
            where = f"{path.relative_to(REPO)}:{item.node.lineno}"
            said = lines[item.node.lineno - 1] + lines[item.node.lineno - 2].strip()
            if "# deferred" not in said:
                silent.append(where)
            targets = [f"{item.target}.{n}" for n in item.names] if item.target == "wfs" else []
            if item.target in light or any(t in light for t in targets):
                needless.append(where)
    assert (silent, needless) == ([], [])


@pytest.mark.parametrize("comment", ["", "  # deferred: the writers"])
def test_the_import_check_sees_an_import_in_a_function(tmp_path: Path, comment: str) -> None:
    module = tmp_path / "probe.py"
    module.write_text(f"def f():\n    from wfs import edit{comment}\n")
    (found,) = list(imports_of("wfs.probe", module, local=True))
    assert (found.target, found.names) == ("wfs", ["edit"])
    assert ("# deferred" in module.read_text().splitlines()[1]) == bool(comment)
