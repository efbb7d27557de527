"""Headless Chromium for the browser tests (the built site, and notebooks in JupyterLab).

`chromium_driver(tmp)` yields a selenium driver for Debian's `chromium` through `chromedriver`,
with the flags a closed network needs (no background fetches, no sync, no first-run pages) and a
fresh profile in `tmp`. Where Chromium, chromedriver or selenium is missing, `locate_browser`
skips the test on a learner's machine (pytest's summary says what to install) and fails it where
the browser is required: `.ci/run` sets `CAFE_REQUIRE_BROWSER=1`, and `CI=true` counts the same.
`CAFE_SKIP_BROWSER=1` skips on purpose, except in a run that requires the browser.
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
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # JavaScript runs in V8's interpreter and baseline compiler only: the optimizing compilers'
    # work (on threads of their own) did not pay back in a test's short life. Measured on two
    # notebooks in JupyterLab (s04, s08), A/B on a loaded 2-core machine, 7 Dec 2026: the renderer
    # 14.9/14.2 s without, 12.2/13.6 s with; all of Chromium 14.6/14.9/17.7 s, 13.7/13.6/17.5 s.
    "--js-flags=--max-opt=1",
)
WINDOW = (1400, 1000)


INSTALL = "sudo apt-get install chromium chromium-driver"  # Debian and Ubuntu package names


def browser_required() -> bool:
    """True in CI: `.ci/run` sets CAFE_REQUIRE_BROWSER=1; CI services set CI=true."""
    return (
        os.environ.get("CAFE_REQUIRE_BROWSER") == "1" or os.environ.get("CI", "").lower() == "true"
    )


def _missing(reason: str) -> None:
    """Fail where the browser is required, skip (saying how to install it) everywhere else."""
    if browser_required():
        pytest.fail(
            f"{reason}, and this run requires the browser tests (CAFE_REQUIRE_BROWSER=1 or CI=true). "
            f"Install it: {INSTALL}; pip install selenium.",
            pytrace=False,
        )
    pytest.skip(
        f"browser test not run: {reason}. To run it: {INSTALL} (and pip install selenium), "
        "then pytest -m browser"
    )


def locate_browser() -> tuple[str, str]:
    """(chromium binary, chromedriver) from PATH; skips or fails, saying what to install, when missing."""
    if os.environ.get("CAFE_SKIP_BROWSER") == "1":
        if browser_required():
            pytest.fail(
                "CAFE_SKIP_BROWSER=1, but this run requires the browser tests (CAFE_REQUIRE_BROWSER=1 "
                "or CI=true); unset one of them",
                pytrace=False,
            )
        pytest.skip("CAFE_SKIP_BROWSER=1: browser test skipped on purpose")
    try:
        import selenium  # noqa: F401
    except ImportError:
        _missing("selenium is not installed")
    binary = next(
        (
            shutil.which(name)
            for name in ("chromium", "chromium-browser", "google-chrome")
            if shutil.which(name)
        ),
        None,
    )
    chromedriver = shutil.which("chromedriver")
    if binary is None:
        _missing(
            "Chromium is not installed (no chromium, chromium-browser or google-chrome on PATH)"
        )
    if chromedriver is None:
        _missing("chromedriver is not installed (no chromedriver on PATH)")
    return binary, chromedriver  # type: ignore[return-value]


@contextmanager
def chromium_driver(profile: Path, window: tuple[int, int] = WINDOW) -> Iterator[Any]:
    binary, chromedriver = locate_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (
        *CHROMIUM_FLAGS,
        f"--user-data-dir={profile}",
        f"--window-size={window[0]},{window[1]}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    try:
        yield driver
    finally:
        driver.quit()
