"""The collector's pace of a serving process (services.common.gctune): thresholds read from the
setting, startup's objects frozen; a bad setting refused, an empty one leaves Python's own."""

from __future__ import annotations

import subprocess
import sys

import pytest

from services.common import gctune


def _after_tune(setting: str) -> str:
    """``gc``'s thresholds and frozen count in a fresh interpreter after ``tune(setting)``."""
    code = (
        "import gc; from services.common import gctune; "
        f"gctune.tune({setting!r}); print(gc.get_threshold(), gc.get_freeze_count() > 0)"
    )
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.strip()


def test_the_default_setting_freezes_startup_and_slows_the_collector() -> None:
    from services.common.settings import ServiceSettings

    default = ServiceSettings.model_fields["gc_thresholds"].default
    assert _after_tune(default) == f"{tuple(int(part) for part in default.split(','))} True"


def test_an_empty_setting_leaves_pythons_own() -> None:
    assert _after_tune("") == "(700, 10, 10) False"


@pytest.mark.parametrize("setting", ["0,10,10", "a", "1,2,3,4", "-5"])
def test_a_bad_setting_is_refused(setting: str) -> None:
    with pytest.raises(ValueError):
        gctune.thresholds(setting)


def test_one_to_three_thresholds_are_read() -> None:
    assert gctune.thresholds("5000") == (5000,)
    assert gctune.thresholds(" 10000, 20 ,20") == (10000, 20, 20)
