"""The arena's Markdown report and its plots (PNG, matplotlib)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from services.arena.stats import unfair_seats
from services.arena.tables import TableResult


def _percent(value: float) -> str:
    return f"{100 * value:.1f} %"


def bot_table(summary: dict[str, Any]) -> list[str]:
    """Markdown rows: each bot's win rate with its interval, mean rank, seats, scores."""
    rows = [
        "| bot | win rate | 95 % interval | mean rank | seats | mean score |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for bot, data in summary["bots"].items():
        low, high = data["win_rate_ci95"]
        score = data["score"].get("mean", 0.0)
        rows.append(
            f"| {bot} | {_percent(data['win_rate'])} | {_percent(low)}–{_percent(high)} "
            f"| {data['mean_rank']:.2f} | {data['seats']} | {score:.1f} |"
        )
    return rows


def seat_table(summary: dict[str, Any]) -> list[str]:
    """Markdown rows: each seat position's win rate, flagged when it is outside the fair share."""
    unfair = set(unfair_seats(summary))
    rows = ["| seat | win rate | 95 % interval | fair? |", "|---:|---:|---:|---|"]
    for seat, rate in enumerate(summary["seat_win_rate"]):
        low, high = summary["seat_win_rate_ci95"][seat]
        verdict = "**outside**" if seat in unfair else "within"
        rows.append(f"| {seat + 1} | {_percent(rate)} | {_percent(low)}–{_percent(high)} | {verdict} |")
    return rows


def markdown(summary: dict[str, Any], plots: Sequence[str] = ()) -> str:
    """The whole report as Markdown."""
    lines = [
        f"# Arena: {summary['game']}, {summary['players']} players",
        "",
        f"{summary['games']} finished games ({summary['unfinished']} unfinished), "
        f"{summary['mean_moves']:.0f} moves on average, {summary['seconds_per_game']:.2f} s per game.",
        "",
        "## Bots",
        "",
        *bot_table(summary),
        "",
        "## Seat positions",
        "",
        *seat_table(summary),
        "",
    ]
    lines += [f"![{Path(plot).stem}]({Path(plot).name})" for plot in plots]
    return "\n".join(lines) + "\n"


def _plot_scores(summary: dict[str, Any], results: Sequence[TableResult], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    bots = list(summary["bots"])
    scores = {bot: [] for bot in bots}  # type: dict[str, list[float]]
    for result in results:
        if result.finished:
            for seat, bot in enumerate(result.spec.bots):
                scores[bot].append(result.scores[seat])
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(10, 4))
    left.boxplot([scores[bot] for bot in bots], tick_labels=bots)
    left.set_title("final score by bot")
    rates = summary["seat_win_rate"]
    errors = [
        [r - ci[0] for r, ci in zip(rates, summary["seat_win_rate_ci95"], strict=True)],
        [ci[1] - r for r, ci in zip(rates, summary["seat_win_rate_ci95"], strict=True)],
    ]
    right.bar([str(s + 1) for s in range(len(rates))], rates, yerr=errors, capsize=4)
    right.axhline(sum(rates) / len(rates) if rates else 0, linestyle="--", color="grey")
    right.set_title("win rate by seat (95 % interval)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


def write_report(summary: dict[str, Any], results: Sequence[TableResult], folder: Path) -> Path:
    """Write ``summary.json``, ``report.md`` and its plot into ``folder``; return the report's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))
    plot = folder / "scores.png"
    _plot_scores(summary, results, plot)
    report = folder / "report.md"
    report.write_text(markdown(summary, [str(plot)]), encoding="utf-8")
    return report
