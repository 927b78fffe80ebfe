"""A real headless Chromium for the board's page tests: Debian's `chromium` driven
through its `chromedriver` by Selenium. `.ci/run` installs both when missing; without
them the tests that ask for the fixture skip, saying why.

A test module makes its fixture of `driver()`:

    @pytest.fixture(scope="module")
    def chromium() -> Iterator[WebDriver]:
        yield from browser.driver()
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# Fixed, so that layouts and screenshots do not depend on the machine.
WINDOW = (1400, 900)


def missing() -> str | None:
    """Why Chromium cannot be driven here, or None when it can."""
    for binary, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (binary.is_file() and os.access(binary, os.X_OK)):
            return f"needs {binary} (apt-get install {package}), as .ci/run installs it"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "needs selenium (pip install -e '.[test]')"
    return None


def start(width: int = WINDOW[0], height: int = WINDOW[1]) -> Any:
    """A new headless Chromium WebDriver; the caller quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    options.add_argument("--headless=new")
    options.add_argument(f"--window-size={width},{height}")
    # Containers give a small /dev/shm; Chromium then crashes tabs without this.
    options.add_argument("--disable-dev-shm-usage")
    options.add_argument("--disable-gpu")
    options.add_argument("--no-first-run")
    options.add_argument("--disable-extensions")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # Chromium refuses to run as root inside its sandbox.
        options.add_argument("--no-sandbox")
    # The console, so a test can see a script's errors.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    return driver


def driver() -> Iterator[Any]:
    """A headless Chromium for a fixture (one a module: starting one takes a second or
    two; each test loads its own page), quit after it; skips when it cannot run here."""
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    driver = start()
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[str]:
    """The page's console messages of level SEVERE since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


# ------------------------------------------------------------------ the page, stood in
#
# Until `wfs board` serves it, the tests render the page as the server will: the
# template with the contract's four variables (data, token, actions, assets). With no
# token that is exactly what `wfs board --export` writes.

BOARD = Path(__file__).resolve().parent.parent / "wfs" / "board"


def assets() -> dict[str, str]:
    static = BOARD / "static"
    return {
        name: (static / file).read_text(encoding="utf-8")
        for name, file in (("css", "board.css"), ("js", "board.js"), ("dagre", "dagre.min.js"))
    }


def render_page(data: dict[str, Any], token: str | None = None, actions: bool = False) -> str:
    """The page's HTML for `data` (the board, as /api/board answers)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(BOARD / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    template = env.get_template("board.html.j2")
    return template.render(data=data, token=token, actions=actions, assets=assets())


def board_data(
    tasks: list[dict[str, Any]], session: str = "WFS-demo", topic: str = "a demo"
) -> dict[str, Any]:
    """Board data in the contract's shape for `tasks` (each at least id, title, column;
    the rest defaults), with the counts, edges and sessions they imply."""
    full = []
    for task in tasks:
        full.append(
            {
                "status": task["column"],
                "parent": None,
                "container": False,
                "depends_on": [],
                "waiting_on": [],
                "reason": None,
                "continue": None,
                "critical": False,
                "claim": None,
            }
            | task
        )
    counts = {c: sum(t["column"] == c for t in full) for c in COLUMNS}
    completed = counts["completed"]
    return {
        "session": {"id": session, "topic": topic, "status": "active", "phase": "IMPLEMENT"},
        "sessions": [
            {
                "id": session,
                "topic": topic,
                "status": "active",
                "completed": completed,
                "total": len(full),
            },
        ],
        "stamp": "1",
        "counts": counts,
        "tasks": full,
        "edges": [[dep, t["id"]] for t in full for dep in t["depends_on"]],
        "critical_path": [t["id"] for t in full if t["critical"]],
    }


COLUMNS = ("pending", "ready", "active", "blocked", "completed")
