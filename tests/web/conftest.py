"""Fixtures of the web client tests: headless Chromium windows (desktop size) against the real stack."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import chromium

WEB_SDK = Path(__file__).resolve().parents[2] / "web" / "sdk" / "index.js"


@pytest.fixture(autouse=True)
def built_sdk() -> None:
    """The page imports the SDK from web/sdk/, which `make sdk` builds (make test does): say so, not a blank page."""
    assert WEB_SDK.is_file(), "web/sdk/ is missing: run make sdk (the web client imports the built SDK)"


@pytest.fixture
def url(stack: dict[str, Any]) -> str:
    """The suite's gateway, as the pages and :mod:`tests.support.webgames` are given it."""
    return str(stack["url"])


@pytest.fixture
def browser() -> Iterator[Any]:
    """A fresh headless Chromium at a desktop size."""
    with chromium() as driver:
        driver.set_window_size(1280, 900)
        yield driver


@pytest.fixture
def second_browser() -> Iterator[Any]:
    """Another Chromium with its own profile: a second person (a spectator, or the one who joins)."""
    with chromium() as driver:
        driver.set_window_size(1280, 900)
        yield driver
