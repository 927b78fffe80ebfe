"""Files shipped with wfs: JSON Schemas, agent definitions and view templates."""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path


def resource_dir(name: str) -> Traversable:
    """The shipped folder `name` ("schemas", "agents" or "templates").

    A wheel carries `schemas/` and `agents/` inside the `wfs` package. An editable
    install runs from the source tree, where they sit beside the package.
    """
    packaged = files("wfs").joinpath(name)
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / name


def read_text(folder: str, filename: str) -> str:
    return resource_dir(folder).joinpath(filename).read_text(encoding="utf-8")
