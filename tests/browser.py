"""Headless Chromium for the browser tests (the built site, and notebooks in JupyterLab).

`chromium_driver(tmp)` yields a selenium driver for Debian's `chromium` through `chromedriver`,
with the flags a closed network needs (no background fetches, no sync, no first-run pages) and a
fresh profile in `tmp`. Where Chromium, chromedriver or selenium is missing, `locate_browser` fails
the test saying what to install, unless `CAFE_SKIP_BROWSER=1` says to skip it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
)
WINDOW = (1400, 1000)


def _skip_or_fail(reason: str) -> None:
    if os.environ.get("CAFE_SKIP_BROWSER") == "1":
        pytest.skip(f"CAFE_SKIP_BROWSER=1: {reason}")
    pytest.fail(f"{reason}. Install it (Debian: apt-get install chromium chromium-driver; "
                f"pip install selenium), or set CAFE_SKIP_BROWSER=1 to skip the browser test.", pytrace=False)


def locate_browser() -> tuple[str, str]:
    """(chromium binary, chromedriver) from PATH; fails saying what to install, or skips on request."""
    if os.environ.get("CAFE_SKIP_BROWSER") == "1":
        pytest.skip("CAFE_SKIP_BROWSER=1")
    try:
        import selenium  # noqa: F401
    except ImportError:
        _skip_or_fail("selenium is not installed")
    binary = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
                   if shutil.which(name)), None)
    chromedriver = shutil.which("chromedriver")
    if binary is None:
        _skip_or_fail("Chromium is not installed (no chromium, chromium-browser or google-chrome on PATH)")
    if chromedriver is None:
        _skip_or_fail("chromedriver is not installed (no chromedriver on PATH)")
    return binary, chromedriver  # type: ignore[return-value]


@contextmanager
def chromium_driver(profile: Path, window: tuple[int, int] = WINDOW) -> Iterator[Any]:
    binary, chromedriver = locate_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size={window[0]},{window[1]}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    try:
        yield driver
    finally:
        driver.quit()
