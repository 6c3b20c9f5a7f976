"""The committed bots report: win-rate tables for every game and player count, and balance.

``make bots-report`` (``chaiwala arena-report --jobs 2``) plays every run of :func:`plan_runs`
and rewrites ``docs/bots-report.md`` with its plots in ``docs/bots-report/`` and every
run's statistics in ``docs/bots-report/summary.json``:

* **heuristic against random** — one heuristic seat, the others random, at every player
  count of every game (solo Alubari: the heuristic's and the random bot's score on the
  same seeds, compared seed by seed);
* **search against heuristic** — once a game offers the search bot (``mcts``);
* **balance** — the strongest bot against itself at every count (India Rails: 2 seats,
  see ``BALANCE_PLAYERS``), so seats differ only by position and content: win rate by
  seat and by turn position (first-player advantage) and the content table of
  :mod:`services.arena.content`.

Table counts are sized so that the whole report takes about a quarter of an hour on two
free cores (``--scale`` multiplies them; the report states the counts it used).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from services.arena.content import flagged
from services.arena.report import content_table, error_bars
from services.arena.schedule import plan, run_tables
from services.arena.stats import summarize, unfair_seats, wilson
from services.arena.tables import TableResult
from services.common.registry import engine_for

# India Rails first: its tables are the longest, so they start while the others fill the pool.
GAMES = ("india_rails", "alubari", "tea_rum", "darjeeling")
TITLES = {"india_rails": "India Rails", "alubari": "Alubari", "tea_rum": "Tea & Rum", "darjeeling": "Darjeeling"}
VERSUS_TABLES = {"india_rails": 12, "alubari": 60, "tea_rum": 100, "darjeeling": 200}
SOLO_TABLES = 60
SEARCH_TABLES = {"india_rails": 4, "alubari": 6, "tea_rum": 6, "darjeeling": 12}
SEARCH_PLAYERS = {"india_rails": (2,), "alubari": (2,), "tea_rum": (2,), "darjeeling": (2, 3)}
BALANCE_TABLES = {"india_rails": 16, "alubari": 60, "tea_rum": 150, "darjeeling": 200}
# A self-play table of 3-6 heuristic rail barons takes 20-35 s: only 2 seats fit the budget.
BALANCE_PLAYERS = {"india_rails": (2,)}
SEARCH_BOT = "mcts"
"""The search bot of the "search against heuristic" section (``--search-bot`` picks another level)."""


@dataclass(frozen=True)
class Run:
    """One arena run of the report: its section, game, seat count, bot list and table count."""

    section: str
    game: str
    players: int
    bots: tuple[str, ...]
    tables: int


def _counts(game: str) -> range:
    engine = engine_for(game)
    return range(engine.min_players, engine.max_players + 1)


def _scaled(tables: int, scale: float, players: int) -> int:
    """At least one full rotation of the seats, whatever the scale."""
    return max(players, round(tables * scale))


def plan_runs(
    scale: float = 1.0, balance_bot: str = "heuristic", games: Sequence[str] = GAMES, search_bot: str = SEARCH_BOT
) -> list[Run]:
    """Every run of the report, longest games first."""
    runs: list[Run] = []
    for game in games:
        bots = engine_for(game).bots()
        for players in _counts(game):
            if players == 1:
                for bot in ("heuristic", "random"):
                    runs.append(Run("solo", game, 1, (bot,), _scaled(SOLO_TABLES, scale, 1)))
                continue
            versus = ("heuristic",) + ("random",) * (players - 1)
            runs.append(Run("versus", game, players, versus, _scaled(VERSUS_TABLES[game], scale, players)))
            if search_bot in bots and players in SEARCH_PLAYERS[game]:
                search = (search_bot, "heuristic")
                runs.append(Run("search", game, players, search, _scaled(SEARCH_TABLES[game], scale, players)))
            if players in BALANCE_PLAYERS.get(game, (players,)):
                mirror = (balance_bot,) * players
                runs.append(Run("balance", game, players, mirror, _scaled(BALANCE_TABLES[game], scale, players)))
    return runs


def play_runs(
    runs: Sequence[Run], jobs: int, seed: int, on_result: Callable[[TableResult], None] | None = None
) -> list[list[TableResult]]:
    """Play every table of every run in one process pool; the results grouped by run.

    Every run derives its table seeds from the same ``seed``, so the solo runs of two
    bots play the same deals and can be compared seed by seed.
    """
    specs, owners = [], []
    for index, run in enumerate(runs):
        for spec in plan(run.game, run.players, list(run.bots), run.tables, seed=seed):
            specs.append(spec)
            owners.append(index)
    grouped: list[list[TableResult]] = [[] for _ in runs]
    for owner, result in zip(owners, run_tables(specs, jobs=jobs, on_result=on_result), strict=True):
        grouped[owner].append(result)
    return grouped


def solo_comparison(better: Sequence[TableResult], worse: Sequence[TableResult]) -> dict[str, Any]:
    """Seed by seed: how often the first bot's solo score beats the second's (ties count as not)."""
    pairs = [
        (a.scores[0], b.scores[0])
        for a, b in zip(better, worse, strict=True)
        if a.finished and b.finished and a.spec.seed == b.spec.seed
    ]
    higher = sum(a > b for a, b in pairs)
    return {
        "seeds": len(pairs),
        "higher": higher,
        "rate": higher / len(pairs) if pairs else 0.0,
        "rate_ci95": list(wilson(higher, len(pairs))),
        "mean_scores": [sum(p[i] for p in pairs) / len(pairs) if pairs else 0.0 for i in (0, 1)],
    }


# ---- Markdown ------------------------------------------------------------------------------------


def _pct(value: float) -> str:
    return f"{100 * value:.1f} %"


def _interval(ci: Sequence[float]) -> str:
    return f"{_pct(ci[0])}–{_pct(ci[1])}"


def _entries(entries: Sequence[dict[str, Any]], section: str) -> list[dict[str, Any]]:
    return [e for e in entries if e["run"]["section"] == section]


def _versus_lines(entries: Sequence[dict[str, Any]], bot: str, against: str) -> list[str]:
    rows = [
        f"| game | players | tables | {bot} win rate | 95 % interval | {bot} mean rank (95 %) "
        f"| {against} win rate (per seat) | mean moves |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for entry in entries:
        summary = entry["summary"]
        mine, theirs = summary["bots"].get(bot), summary["bots"].get(against)
        if mine is None or theirs is None:
            continue
        rank_low, rank_high = mine["mean_rank_ci95"]
        rows.append(
            f"| {TITLES[summary['game']]} | {summary['players']} | {summary['games']} | {_pct(mine['win_rate'])} "
            f"| {_interval(mine['win_rate_ci95'])} | {mine['mean_rank']:.2f} ({rank_low:.2f}–{rank_high:.2f}) "
            f"| {_pct(theirs['win_rate'])} | {summary['mean_moves']:.0f} |"
        )
    return rows


def _solo_lines(solo: dict[str, Any] | None) -> list[str]:
    if solo is None:
        return []
    return [
        "### Solo Alubari (same seeds)",
        "",
        f"On {solo['seeds']} seeds the heuristic scored higher than the random bot on **{solo['higher']}** "
        f"({_pct(solo['rate'])}, 95 % interval {_interval(solo['rate_ci95'])}); mean scores "
        f"{solo['mean_scores'][0]:.1f} against {solo['mean_scores'][1]:.1f}.",
        "",
    ]


def _positions(summary: dict[str, Any], key: str) -> str:
    rates, intervals = summary.get(key) or [], summary.get(f"{key}_ci95") or []
    unfair = set(unfair_seats(summary, key))
    cells = [
        f"{'**' if place in unfair else ''}{_pct(rate)}{'**' if place in unfair else ''} ({_interval(ci)})"
        for place, (rate, ci) in enumerate(zip(rates, intervals, strict=True))
    ]
    return " / ".join(cells) if cells else "–"


def _balance_lines(entries: Sequence[dict[str, Any]]) -> list[str]:
    rows = [
        "| game | players | bot | tables | win rate by seat (95 %) | by turn position, 1 = start player (95 %) "
        "| fair share | mean moves |",
        "|---|---:|---|---:|---|---|---:|---:|",
    ]
    for entry in entries:
        summary = entry["summary"]
        rates = summary["seat_win_rate"]
        share = sum(rates) / len(rates) if rates else 0.0
        rows.append(
            f"| {TITLES[summary['game']]} | {summary['players']} | {entry['run']['bots'][0]} | {summary['games']} "
            f"| {_positions(summary, 'seat_win_rate')} | {_positions(summary, 'turn_position_win_rate')} "
            f"| {_pct(share)} | {summary['mean_moves']:.0f} |"
        )
    return rows


def _content_lines(entries: Sequence[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for entry in entries:
        summary = entry["summary"]
        rows = summary.get("content") or []
        if not rows:
            continue
        title = f"{TITLES[summary['game']]}, {summary['players']} players ({summary['games']} tables)"
        outside = flagged(rows)
        lines += [f"#### {title}", ""]
        if outside:
            lines += ["Items whose interval leaves out the base rate:", "", *content_table(outside), ""]
        else:
            lines += ["No item's interval leaves out the base rate.", ""]
        lines += ["<details><summary>every item</summary>", "", *content_table(rows), "", "</details>", ""]
    return lines


def _provenance(meta: dict[str, Any]) -> str:
    """Which command made this copy of the report, and at what size."""
    full = f"`make bots-report` plays {meta.get('full_tables', meta['tables'])} tables at scale 1."
    if meta.get("note"):
        return f"Regenerated by `make bots-report`. {meta['tables']} tables in this copy; {full}"
    return (
        f"Regenerated by `make bots-report`; this copy by `chaiwala arena-report --jobs {meta['jobs']} "
        f"--scale {meta['scale']} --search-bot {meta.get('search_bot', SEARCH_BOT)}`: {meta['tables']} tables, "
        f"seed {meta['seed']}, {meta['minutes']:.1f} min of wall time with {meta['jobs']} processes; {full}"
    )


def markdown(entries: Sequence[dict[str, Any]], solo: dict[str, Any] | None, meta: dict[str, Any]) -> str:
    """The whole committed report."""
    search = _entries(entries, "search")
    search_bot = meta.get("search_bot", SEARCH_BOT)
    lines = [
        "# Bots and balance: the arena report",
        "",
        *([f"> {meta['note']}", ""] if meta.get("note") else []),
        _provenance(meta) + " Seats are rotated table by table and every table's seed is derived from "
        "the run's seed, so the same command gives the same figures. Intervals are Wilson 95 % intervals for "
        "rates and normal-approximation 95 % intervals for mean ranks. A shared victory counts for every "
        "seat that shares it. Statistics of each run: [`bots-report/summary.json`](bots-report/summary.json).",
        "",
        "## Heuristic against random",
        "",
        "One heuristic seat, every other seat random (the heuristic visits every seat in turn).",
        "",
        *(
            _versus_lines(_entries(entries, "versus"), "heuristic", "random")
            if _entries(entries, "versus")
            else ["No runs in this copy."]
        ),
        "",
        *_solo_lines(solo),
        "## Search against heuristic",
        "",
    ]
    if search:
        lines += [
            f"`{search_bot}` against the heuristic, seats rotated.",
            "",
            *_versus_lines(search, search_bot, "heuristic"),
            "",
        ]
    else:
        lines += [f"No search runs in this copy (`make bots-report` plays `{search_bot}` where a game offers it).", ""]
    lines += [
        "## Balance: seat and turn position in self-play",
        "",
        "Every seat plays the same bot, so a seat differs from the others only by its position and the "
        "content it drew. **Bold**: the 95 % interval leaves out the fair share (the mean of the seats' "
        "win rates).",
        "",
        *_balance_lines(_entries(entries, "balance")),
        "",
        *[f"![{game}](bots-report/{game}.png)" for game in meta["plots"]],
        "",
        "## Balance: content",
        "",
        "Win rate of the seats that had an item (owned or used it by the end) against those that did not, "
        "in the self-play runs above. Correlation is not cause: a seat that owns more tends to win whatever "
        "it owns, so an item matters when it stands out among the items of its kind. Ids are those of "
        "`Engine.content_facts` (see each game's `facts.py`). With dozens of items a table, about one in "
        "twenty is flagged by chance alone: an item is worth a look when it is flagged the same way at two "
        "or more player counts. What was measured at larger counts, what was tried and what was decided is "
        "in each game's `seeds/<game>/README.md`, section *Balance*.",
        "",
        *_content_lines(_entries(entries, "balance")),
    ]
    return "\n".join(lines).rstrip() + "\n"


# ---- plots ---------------------------------------------------------------------------------------


def _plot_game(game: str, entries: Sequence[dict[str, Any]], path: Path) -> None:
    """Left: the heuristic's win rate against random by player count; right: self-play seat rates."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    versus = [e["summary"] for e in entries if e["run"]["section"] == "versus"]
    balance = [e["summary"] for e in entries if e["run"]["section"] == "balance"]
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(11, 4))
    counts = [s["players"] for s in versus]
    rates = [s["bots"]["heuristic"]["win_rate"] for s in versus]
    errors = error_bars(rates, [s["bots"]["heuristic"]["win_rate_ci95"] for s in versus])
    left.bar([str(c) for c in counts], rates, yerr=errors, capsize=4, label="heuristic")
    left.plot([str(c) for c in counts], [1 / c for c in counts], "k--", label="fair share")
    left.set_ylim(0, 1.05)
    left.set_xlabel("players")
    left.set_title(f"{TITLES[game]}: heuristic win rate against random")
    left.legend(loc="lower left")
    width = 0.8 / max((s["players"] for s in balance), default=1)
    labelled: set[int] = set()
    for index, summary in enumerate(balance):
        key = "turn_position_win_rate" if summary.get("turn_position_win_rate") else "seat_win_rate"
        for place, (rate, ci) in enumerate(zip(summary[key], summary[f"{key}_ci95"], strict=True)):
            label = None if place in labelled else f"position {place + 1}"
            labelled.add(place)
            right.bar(
                index + place * width,
                rate,
                width,
                yerr=error_bars([rate], [ci]),
                capsize=2,
                color=f"C{place}",
                label=label,
            )
        share = sum(summary[key]) / len(summary[key]) if summary[key] else 0.0
        right.hlines(share, index - width / 2, index + width * summary["players"], "k", "dashed")
    right.set_xticks(
        [i + width * (s["players"] - 1) / 2 for i, s in enumerate(balance)], [f"{s['players']}p" for s in balance]
    )
    right.set_title("self-play win rate by turn position (95 %)")
    right.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    pyplot.close(figure)


# ---- the command ---------------------------------------------------------------------------------


def build_report(
    out: Path,
    jobs: int = 2,
    scale: float = 1.0,
    seed: int = 1,
    balance_bot: str = "heuristic",
    games: Sequence[str] = GAMES,
    search_bot: str = SEARCH_BOT,
    on_start: Callable[[int], Callable[[TableResult], None]] | None = None,
) -> Path:
    """Play every run and write ``out/bots-report.md``, its plots and ``summary.json``; return the report."""
    runs = plan_runs(scale, balance_bot, games, search_bot)
    started = time.perf_counter()
    on_result = on_start(sum(r.tables for r in runs)) if on_start is not None else None
    grouped = play_runs(runs, jobs, seed, on_result)
    entries = [
        {
            "run": {"section": r.section, "bots": list(r.bots), "tables": r.tables},
            "summary": summarize(r.game, r.players, results),
        }
        for r, results in zip(runs, grouped, strict=True)
    ]
    solo_runs = {r.bots[0]: results for r, results in zip(runs, grouped, strict=True) if r.section == "solo"}
    solo = solo_comparison(solo_runs["heuristic"], solo_runs["random"]) if len(solo_runs) == 2 else None
    meta = {
        "full_tables": sum(r.tables for r in plan_runs(1.0, balance_bot, games, search_bot)),
        "jobs": jobs,
        "scale": scale,
        "seed": seed,
        "tables": sum(r.tables for r in runs),
        "minutes": (time.perf_counter() - started) / 60,
        "search_bot": search_bot,
        "balance_bot": balance_bot,
    }
    folder = out / "bots-report"
    folder.mkdir(parents=True, exist_ok=True)
    document = {"meta": meta, "solo": solo, "runs": entries}
    (folder / "summary.json").write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    return render_report(out)


def render_report(out: Path) -> Path:
    """Write ``out/bots-report.md`` and its plots from ``out/bots-report/summary.json`` (no table is
    played: the text and plots can be redone after a change of wording without the hour of games)."""
    folder = out / "bots-report"
    document = orjson.loads((folder / "summary.json").read_bytes())
    entries, meta = document["runs"], document["meta"]
    searched = [e["run"]["bots"][0] for e in entries if e["run"]["section"] == "search"]
    meta.setdefault("search_bot", searched[0] if searched else SEARCH_BOT)
    plots = []
    for game in GAMES:
        mine = [e for e in entries if e["summary"]["game"] == game]
        if any(e["run"]["section"] in ("versus", "balance") for e in mine):
            _plot_game(game, mine, folder / f"{game}.png")
            plots.append(game)
    meta["plots"] = plots
    report = out / "bots-report.md"
    report.write_text(markdown(entries, document["solo"], meta), encoding="utf-8")
    return report
