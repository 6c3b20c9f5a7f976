"""The A/B micro benchmarks' report (:func:`bench.checkouts.report`): a case's sides together, its
median and minimum, and no line for a side that lacks the case (a checkout from before it)."""

from __future__ import annotations

import pytest

from bench.checkouts import report


def test_a_case_is_reported_side_by_side_and_a_missing_one_is_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    figures = {
        "before": {"plain": [3.0, 1.0, 2.0]},
        "after": {"plain": [1.5, 0.5, 1.0, 2.0], "masked": [0.25]},
    }
    report(figures, "darjeeling", lambda case: f"CPU ms per {case} call", digits=3, runs="runs of 32 moves")
    assert capsys.readouterr().out.splitlines() == [
        "darjeeling before plain  CPU ms per plain call: median 2.000, min 1.000 (3 runs of 32 moves)",
        "darjeeling after  plain  CPU ms per plain call: median 1.250, min 0.500 (4 runs of 32 moves)",
        "darjeeling after  masked CPU ms per masked call: median 0.250, min 0.250 (1 runs of 32 moves)",
    ]
