"""Long bot sweeps are their own make targets: ``make test`` deselects them instead of skipping them."""

from __future__ import annotations

import os

import pytest

SWEEP_ENV = "CHAIWALA_BOTS_STRENGTH"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out tests marked ``sweep`` unless ``make bots-strength`` asked for them."""
    if os.environ.get(SWEEP_ENV, "slice") == "full":
        return
    swept = [item for item in items if item.get_closest_marker("sweep")]
    if not swept:
        return
    config.hook.pytest_deselected(items=swept)
    items[:] = [item for item in items if not item.get_closest_marker("sweep")]
