"""The one jinja2 Environment of wfs.

Every text wfs renders from a template goes through it: the views (TODO_LIST.md,
IMPL_PLAN.md), task summaries and agent briefs from `wfs/templates/`, and the editor
files from `agents/` (`wfs agents install`, and the agent definitions in briefs).
HTML pages (the board's, wfs/board/templates/) have one of their own, built here too:
HTML is escaped where Markdown is not (`html_environment`).

jinja2 is imported on first use only: reads render nothing, and its import costs more
than a read is allowed. A write renders a few pieces of a view, so compiling the
templates from source on every write would cost more than loading them: jinja2 itself
compiles them once into `wfs/templates/compiled/` (`python scripts/compile.py`;
a test holds that folder equal to a fresh compile), and they are loaded from there.
The folder's MANIFEST names the jinja2 version, the options and the sources it was
compiled from; when any of them differs (an edited template, another jinja2), the
sources are compiled as they are instead, so the compiled copy is never stale.
"""

from __future__ import annotations

import re
import zlib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wfs import jsonio
from wfs.resources import resource_dir

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"
COMPILED = TEMPLATES / "compiled"
MANIFEST = "MANIFEST"
# Markdown is not HTML: nothing is escaped. Block tags take their line with them.
OPTIONS: dict[str, Any] = {
    "trim_blocks": True,
    "lstrip_blocks": True,
    "keep_trailing_newline": True,
    "autoescape": False,
}


def cell(text: str) -> str:
    """`text` inside a Markdown table cell."""
    return text.replace("|", "\\|")


def mermaid_id(text: str) -> str:
    """`text` as a Mermaid node id."""
    return re.sub(r"[^A-Za-z0-9]", "_", text)


def _new(loader: jinja2.BaseLoader) -> jinja2.Environment:
    import jinja2  # deferred on purpose (see the module's docstring)

    env = jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined, **OPTIONS)
    env.filters.update(cell=cell, node=mermaid_id)
    return env


@cache
def environment() -> jinja2.Environment:
    """The Environment, built once per process."""
    import jinja2  # deferred on purpose (see the module's docstring)

    agents = jinja2.FileSystemLoader(str(resource_dir("agents")))
    return _new(jinja2.ChoiceLoader([templates_loader(), agents]))


@cache
def html_environment(folder: str) -> jinja2.Environment:
    """The Environment of the HTML pages in `folder`: every value escaped (autoescape),
    and `|tojson` written by wfs's one JSON engine (jinja2 then escapes `<`, `>`, `&`
    and `'`, so a text from a file never closes the script it is embedded in)."""
    import jinja2  # deferred on purpose (see the module's docstring)

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.policies["json.dumps_function"] = lambda value, **_: jsonio.compact(value).decode()
    env.policies["json.dumps_kwargs"] = {}
    return env


def templates_loader(compiled: Path = COMPILED) -> jinja2.BaseLoader:
    """The loader of `wfs/templates/`: their compiled copy in `compiled` when it is
    current, else the sources."""
    import jinja2  # deferred on purpose (see the module's docstring)

    if _read(compiled / MANIFEST) == manifest():
        return jinja2.ModuleLoader(str(compiled))
    return jinja2.FileSystemLoader(str(TEMPLATES))


def template(name: str) -> jinja2.Template:
    """A template of `wfs/templates/` (or of `agents/`), by file name."""
    return environment().get_template(name)


@cache
def macros(name: str) -> Any:
    """The macros of the template `name`, as attributes (each returns its text)."""
    return template(name).module


# ---------------------------------------------------------------- compiling


def sources() -> list[str]:
    """The template files of `wfs/templates/`, sorted."""
    return sorted(path.name for path in TEMPLATES.glob("*.j2"))


def manifest() -> str:
    """What the compiled templates must have been compiled from and by."""
    import jinja2  # deferred on purpose (see the module's docstring)

    options = " ".join(f"{key}={value}" for key, value in sorted(OPTIONS.items()))
    lines = [f"jinja2 {jinja2.__version__} {options}"]
    for name in sources():
        lines.append(f"{zlib.crc32((TEMPLATES / name).read_bytes()):08x} {name}")
    return "\n".join(lines) + "\n"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def compile_all(target: Path) -> None:
    """Compile every template of `wfs/templates/` into `target` (emptied first), with
    the MANIFEST that lets `environment` use them."""
    import jinja2  # deferred on purpose (see the module's docstring)

    target.mkdir(parents=True, exist_ok=True)
    for old in target.iterdir():
        if old.is_file():
            old.unlink()
    env = _new(jinja2.FileSystemLoader(str(TEMPLATES)))
    env.compile_templates(
        str(target), zip=None, filter_func=lambda name: name in sources(), ignore_errors=False
    )
    (target / MANIFEST).write_text(manifest(), encoding="utf-8")
