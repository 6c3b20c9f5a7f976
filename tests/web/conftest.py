"""Fixtures of the web client tests: headless Chromium windows (desktop size) against the real stack."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import chromium


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
