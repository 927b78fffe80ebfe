"""Files shipped with wfs: JSON Schemas and agent definitions."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


def resource_dir(name: str) -> Traversable:
    """The shipped folder `name` ("schemas" or "agents").

    A wheel carries `schemas/` and `agents/` inside the `wfs` package. An editable
    install runs from the source tree, where they sit beside the package. Only a
    zipped install needs importlib.resources (whose import costs more than a write).
    """
    package = Path(__file__).resolve().parent
    for folder in (package / name, package.parent / name):
        if folder.is_dir():
            return folder
    from importlib.resources import files  # deferred: only a zipped install needs it

    return files("wfs").joinpath(name)


def read_text(folder: str, filename: str) -> str:
    return resource_dir(folder).joinpath(filename).read_text(encoding="utf-8")
