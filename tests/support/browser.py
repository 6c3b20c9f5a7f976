"""Headless Chromium (Debian's ``chromium`` and ``chromium-driver``) driven by selenium, and a page server.

``make test`` installs both packages where it can (``make browser``); a missing browser is a test
failure with the reason, never a skip.  Chromium runs with the flags this closed network needs
(no background networking, no component updates, no sync) and a fresh profile each time.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.support.local_http import answer, serve, shut
from tests.support.stoppable import Stoppable

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def require_browser() -> None:
    """Fail (not skip) with the fix when Chromium or its driver is missing."""
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing:
        pytest.fail(
            f"browser tests need Debian's chromium and chromium-driver ({', '.join(missing)} missing): "
            "run `make browser` (apt-get install chromium chromium-driver, as root)",
            pytrace=False,
        )


@contextmanager
def chromium(performance: bool = False) -> Iterator[Any]:
    """A selenium WebDriver on headless Chromium with a fresh profile, its console log captured
    (and with ``performance``, Chrome's performance log: every request, ``driver.get_log("performance")``)."""
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chaiwala-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", **({"performance": "ALL"} if performance else {})})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        driver.set_script_timeout(120)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver: Any) -> list[str]:
    """Console messages of level SEVERE since the last call."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


class PageServer(Stoppable):
    """Serves fixed pages from another origin than the gateway (a plain HTTP server on its own port)."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.pages = pages
        self.server = serve({"GET": self._page})

    def _page(self, request: BaseHTTPRequestHandler) -> None:
        body = self.pages.get(request.path.split("?")[0])
        if body is None:
            request.send_error(404)
            return
        answer(request, 200, body.encode(), "text/html; charset=utf-8")

    @property
    def origin(self) -> str:
        """scheme://host:port of the pages."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        """Stop serving."""
        shut(self.server)
