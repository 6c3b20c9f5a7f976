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


def turn_position_table(summary: dict[str, Any]) -> list[str]:
    """Markdown rows: win rate by place in the first round's turn order (1 = start player)."""
    rates = summary.get("turn_position_win_rate") or []
    if not rates:
        return []
    unfair = set(unfair_seats(summary, "turn_position_win_rate"))
    rows = ["| turn position | win rate | 95 % interval | fair? |", "|---:|---:|---:|---|"]
    for place, rate in enumerate(rates):
        low, high = summary["turn_position_win_rate_ci95"][place]
        verdict = "**outside**" if place in unfair else "within"
        rows.append(f"| {place + 1} | {_percent(rate)} | {_percent(low)}–{_percent(high)} | {verdict} |")
    return rows


def content_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Markdown rows: per content id, the win rate with it and without it, flagged off the base rate,
    and its wins against its peers (seats holding as many items of its kind)."""
    if not rows:
        return []
    lines = [
        f"Base rate (all seats): {_percent(rows[0]['base_rate'])}; **high**/**low** = the 95 % interval "
        "of the with-item win rate leaves out the base rate. *Peers*: its wins over those of the seats that "
        "held as many items of its kind (1.00 = no better than they; flagged beyond 1.96 standard deviations).",
        "",
        "| item | seats | win rate with | 95 % interval | without | lift | verdict | against peers |",
        "|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    for row in rows:
        low, high = row["win_rate_ci95"]
        without = "–" if row["without_win_rate"] is None else _percent(row["without_win_rate"])
        lift = "–" if row["lift"] is None else f"{100 * row['lift']:+.1f}"
        lines.append(
            f"| `{row['item']}` | {row['seats']} | {_percent(row['win_rate'])} | {_percent(low)}–{_percent(high)} "
            f"| {without} | {lift} | {_flag(row['verdict'])} | {_peers(row)} |"
        )
    return lines


def _flag(verdict: str) -> str:
    return verdict if verdict == "within" else f"**{verdict}**"


def _peers(row: dict[str, Any]) -> str:
    """``1.24 **high**``; ``–`` for a row from before peers were measured."""
    ratio = row.get("peer_ratio")
    if ratio is None:
        return "–"
    verdict = row["peer_verdict"]
    return f"{ratio:.2f}" if verdict == "within" else f"{ratio:.2f} {_flag(verdict)}"


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
    positions = turn_position_table(summary)
    if positions:
        lines += ["## Turn order (first-player advantage)", "", *positions, ""]
    if summary.get("content"):
        lines += ["## Content", "", *content_table(summary["content"]), ""]
    lines += [f"![{Path(plot).stem}]({Path(plot).name})" for plot in plots]
    return "\n".join(lines) + "\n"


def error_bars(rates: Sequence[float], intervals: Sequence[Sequence[float]]) -> list[list[float]]:
    """Matplotlib's ``yerr`` (below, above) of rates and their intervals, never negative
    (a Wilson bound of 0 % or 100 % can land a rounding error inside the rate)."""
    below = [max(0.0, rate - ci[0]) for rate, ci in zip(rates, intervals, strict=True)]
    above = [max(0.0, ci[1] - rate) for rate, ci in zip(rates, intervals, strict=True)]
    return [below, above]


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
    figure, (left, right, length) = pyplot.subplots(1, 3, figsize=(14, 4))
    left.boxplot([scores[bot] for bot in bots], tick_labels=bots)
    left.set_title("final score by bot")
    rates = summary["seat_win_rate"]
    errors = error_bars(rates, summary["seat_win_rate_ci95"])
    right.bar([str(s + 1) for s in range(len(rates))], rates, yerr=errors, capsize=4)
    right.axhline(sum(rates) / len(rates) if rates else 0, linestyle="--", color="grey")
    right.set_title("win rate by seat (95 % interval)")
    length.hist([r.moves for r in results if r.finished], bins=20)
    length.set_title("game length (moves)")
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
