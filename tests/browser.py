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
