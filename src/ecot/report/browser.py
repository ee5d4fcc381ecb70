"""A headless Chromium for looking at a report the way a user does (the browser tests and
bench/report_scale.py use it). Needs Debian's `chromium` and `chromium-driver` (scripts/setup.sh
installs them) and Selenium (the `test` extra); Selenium is pointed at both executables, so it never
downloads a browser or a driver.

The flags keep Chromium from reaching the network on its own (no first-run page, background
updates, component updates or sync) and run it without a sandbox, which containers often lack; each
session gets a fresh profile folder.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

BROWSERS = ("chromium", "chromium-browser")
DRIVERS = ("chromedriver",)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def executables() -> tuple[str | None, str | None]:
    """(chromium, chromedriver) as found on PATH."""
    browser = next((path for name in BROWSERS if (path := shutil.which(name))), None)
    driver = next((path for name in DRIVERS if (path := shutil.which(name))), None)
    return browser, driver


def unavailable() -> str | None:
    """Why no headless Chromium can be started here, or None when it can."""
    browser, driver = executables()
    if browser is None:
        return "chromium is not installed (scripts/setup.sh installs Debian's chromium)"
    if driver is None:
        return "chromedriver is not installed (scripts/setup.sh installs Debian's chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package is not installed (pip install -e '.[test]')"
    return None


@contextmanager
def headless_chromium(width: int = 1400, height: int = 1000) -> Iterator[Any]:
    """A Selenium WebDriver on a fresh headless Chromium, with its network log recorded."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = executables()
    reason = unavailable()
    if reason is not None:
        raise RuntimeError(reason)
    with tempfile.TemporaryDirectory(prefix="ecot-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = str(browser)
        for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        driver = webdriver.Chrome(service=Service(str(driver_path)), options=options)
        try:
            driver.get("about:blank")  # leave Chromium's own start page, whose requests are not ours
            driver.get_log("performance")
            yield driver
        finally:
            driver.quit()


def requested_urls(driver: Any) -> list[tuple[str, str]]:
    """(URL, URL of the document that asked) of every request since the last call (DevTools network log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            params = message["params"]
            urls.append((str(params["request"]["url"]), str(params.get("documentURL", ""))))
    return urls


def full_page_screenshot(driver: Any, path: str, width: int = 1400, limit: int = 8000) -> None:
    """A screenshot of the whole page (up to `limit` pixels high), not just the window."""
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    driver.set_window_size(width, min(max(height, 600), limit))
    driver.save_screenshot(path)
