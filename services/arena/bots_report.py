"""The committed bots report: win-rate tables for every game and player count, and balance.

``make bots-report`` (``chaiwala arena-report --jobs 2``) plays every run of :func:`plan_runs`
and rewrites ``docs/bots-report.md`` with its plots in ``docs/bots-report/`` and every
run's statistics in ``docs/bots-report/summary.json``:

* **heuristic against random** — one heuristic seat, the others random, at every player
  count of every game (a solo game: the heuristic's and the random bot's score on the
  same seeds, compared seed by seed);
* **search against heuristic** — the search bot (``mcts``) in one seat, the heuristic in the
  others, at 2 players and more, and a solo game seed by seed against the heuristic's solo
  scores;
* **balance** — the heuristic against itself at every count on hundreds of tables (fewer where a
  table costs more), so seats differ only by position and content: win rate by seat and by turn
  position (first-player advantage) and the content table of :mod:`services.arena.content`;
* **strongest** — the search bot, the strongest bot, against itself at every count of every game
  (tens of tables, a table costs the seat count times a search seat), and the heuristic against
  itself on *the same* tables (the same derived seeds and seating) in the same run, so the two
  bots' turn-position rates are compared deal for deal.

How many tables each run plays is the game's to say: its unit's ``arena``
(:class:`~services.arena.report_runs.ReportTables`); the games are those that declare it.

Every run is an *entry* of ``summary.json`` with its own provenance (seed, tables, date, commit,
processes, wall time, load). ``--only SPEC`` / ``--skip SPEC`` (``SECTION:GAME:PLAYERS``, shell
wildcards, missing parts match anything: ``search:india_rails:2``, ``versus:alubari:*``, ``balance``)
re-play only some runs and replace their entries, keeping the others. Entries are written run by
run, so a run cut short loses only itself. Without a selection every run is played and entries the
plan no longer has are dropped.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import orjson

from services.arena.bots_report_text import markdown, plot_game, section
from services.arena.report_runs import ReportTables, Run, report_games, report_tables
from services.arena.schedule import plan, run_tables
from services.arena.stats import summarize, wilson
from services.arena.tables import TableResult
from services.bots.roster import bots_for
from services.common.registry import engine_for

# Every game that declares its tables (``GameUnit.arena``, :class:`ReportTables`), the costliest first.
GAMES = report_games()
SECTIONS = ("solo", "versus", "search", "balance", "strongest")
SOLO_TABLES = 60
# How many tables a game's unit declares, per section and seat count: search against heuristic 24
# at 2 players (a 65 % rate is then told from a coin flip) and where a table costs under a minute;
# fewer, a whole number of seat rotations, where it costs more. Balance: hundreds of tables, fewer
# where a self-play table costs more. Strongest (the search bot in every seat): a table costs about
# the seat count times a search seat, so tens of tables, a whole number of seat rotations; enough
# to show a lead of about 20 points or a pattern unlike the heuristic's on the same tables, not
# the few-point leads the balance runs measure. Solo games: SOLO_TABLES, and the search bot against
# the heuristic's solo scores on the same seeds.
BASELINE_BOT = "heuristic"
"""The bot the strongest bot's self-play is compared with, on the same tables."""
SEARCH_BOT = "mcts"
"""The search bot of the "search against heuristic" section (``--search-bot`` picks another level)."""
ROOT = Path(__file__).resolve().parents[2]


def _counts(game: str) -> range:
    engine = engine_for(game)
    return range(engine.min_players, engine.max_players + 1)


def _scaled(tables: int, scale: float, players: int) -> int:
    """At least one full rotation of the seats, whatever the scale."""
    return max(players, round(tables * scale))


def _runs_at(game: str, players: int, scale: float, balance_bot: str, search_bot: str) -> list[Run]:
    """The runs of one game and seat count, in the report's section order."""
    declared: ReportTables = report_tables(game)
    runs: list[Run] = []
    if players == 1:
        runs += [Run("solo", game, 1, (bot,), _scaled(SOLO_TABLES, scale, 1)) for bot in ("heuristic", "random")]
    else:
        versus = ("heuristic",) + ("random",) * (players - 1)
        runs.append(Run("versus", game, players, versus, _scaled(declared.versus, scale, players)))
    searched = declared.search.get(players)
    if searched and search_bot in bots_for(engine_for(game)):
        bots = (search_bot,) + ("heuristic",) * (players - 1)
        runs.append(Run("search", game, players, bots, _scaled(searched, scale, players)))
    if players > 1:
        mirror = (balance_bot,) * players
        tables = declared.balance_at.get(players, declared.balance)
        runs.append(Run("balance", game, players, mirror, _scaled(tables, scale, players)))
    strongest = declared.strongest.get(players)
    if strongest and search_bot in bots_for(engine_for(game)):
        runs.append(Run("strongest", game, players, (search_bot,) * players, _scaled(strongest, scale, players)))
    return runs


def played_tables(run: Run) -> int:
    """Tables a run plays: a strongest-bot run plays its tables twice, the second time with the baseline."""
    return run.tables * (2 if run.section == "strongest" else 1)


def plan_runs(
    scale: float = 1.0, balance_bot: str = "heuristic", games: Sequence[str] = GAMES, search_bot: str = SEARCH_BOT
) -> list[Run]:
    """Every run of the report, longest games first."""
    return [
        run
        for game in games
        for players in _counts(game)
        for run in _runs_at(game, players, scale, balance_bot, search_bot)
    ]


def matches(run: Run, spec: str) -> bool:
    """Whether ``run`` is one ``spec`` names: ``SECTION:GAME:PLAYERS``, shell wildcards, missing parts ``*``."""
    parts = spec.strip().split(":")
    if len(parts) > 3 or not all(parts):
        raise ValueError(f"run {spec!r} is not SECTION[:GAME[:PLAYERS]], e.g. search:india_rails:2")
    return all(fnmatchcase(value, part) for value, part in zip(run.key.split(":"), parts, strict=False))


def select(runs: Sequence[Run], only: Sequence[str] = (), skip: Sequence[str] = ()) -> list[Run]:
    """The runs ``only`` names (all when empty) less those ``skip`` names.

    Raises :class:`ValueError` for a spec that names no run of the plan (a typo must not
    silently play nothing, or everything).
    """
    for spec in (*only, *skip):
        if not any(matches(run, spec) for run in runs):
            known = ", ".join(sorted({run.key for run in runs}))
            raise ValueError(f"run {spec!r} names no run of the report; its runs: {known}")
    chosen = [run for run in runs if not only or any(matches(run, spec) for spec in only)]
    return [run for run in chosen if not any(matches(run, spec) for spec in skip)]


def play_run(
    run: Run, jobs: int, seed: int, on_result: Callable[[TableResult], None] | None = None
) -> list[TableResult]:
    """Every table of one run, in table order.

    Every run derives its table seeds from the same ``seed``, so the solo runs of two
    bots play the same deals and can be compared seed by seed.
    """
    return run_tables(
        plan(run.game, run.players, list(run.bots), run.tables, seed=seed), jobs=jobs, on_result=on_result
    )


def play_baseline(
    run: Run, jobs: int, seed: int, on_result: Callable[[TableResult], None] | None = None
) -> list[TableResult] | None:
    """A strongest-bot run's tables again with :data:`BASELINE_BOT` in every seat (other runs: ``None``)."""
    if run.section != "strongest":
        return None
    return play_run(replace(run, bots=(BASELINE_BOT,) * run.players), jobs, seed, on_result)


# ---- entries of summary.json ----------------------------------------------------------------------


def _commit() -> tuple[str, bool]:
    """The checkout's commit, and whether ``services/`` differs from it (``unknown`` outside git)."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()

    try:
        return git("rev-parse", "HEAD"), bool(git("status", "--porcelain", "--untracked-files=no", "--", "services"))
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M")


def provenance(
    run: Run, seed: int, jobs: int, scale: float, started: str, minutes: float, load: list[float]
) -> dict[str, Any]:
    """How one run was played: enough to re-play it and to read its wall time honestly."""
    commit, modified = _commit()
    return {
        "seed": seed,
        "tables": run.tables,
        "jobs": jobs,
        "date": started,
        "commit": commit,
        "code_modified": modified,
        "minutes": minutes,
        "load": load,
        "command": f"chaiwala arena-report --only {run.key} --seed {seed} --scale {scale} --jobs {jobs}",
    }


def entry(
    run: Run, results: Sequence[TableResult], made: dict[str, Any], baseline: Sequence[TableResult] | None = None
) -> dict[str, Any]:
    """One run's entry of ``summary.json``: the run, the arena's statistics, the provenance.

    One-seat runs keep every seed's score (``solo_scores``: ``[seed, score or None when
    unfinished]``), so two bots' solo runs can be compared seed by seed when either is re-played.
    A strongest-bot run keeps the baseline's statistics on the same tables (``same_tables``).
    """
    data: dict[str, Any] = {
        "run": {
            "section": run.section,
            "game": run.game,
            "players": run.players,
            "bots": list(run.bots),
            "tables": run.tables,
        },
        "summary": summarize(run.game, run.players, results),
        "provenance": made,
    }
    if baseline is not None:
        data["same_tables"] = {"bot": BASELINE_BOT, "summary": summarize(run.game, run.players, baseline)}
    if run.players == 1:
        data["solo_scores"] = [[r.spec.seed, r.scores[0] if r.finished else None] for r in results]
    return data


def _order(data: dict[str, Any]) -> tuple[int, int, int, tuple[str, ...]]:
    section_name, game, players, bots = Run.from_entry(data).identity
    place = GAMES.index(game) if game in GAMES else len(GAMES)
    return place, players, SECTIONS.index(section_name), bots


def merge(entries: Sequence[dict[str, Any]], new: dict[str, Any]) -> list[dict[str, Any]]:
    """``entries`` with ``new`` in place of the entry of the same run (or added), in report order."""
    replaced = Run.from_entry(new).identity
    kept = [e for e in entries if Run.from_entry(e).identity != replaced]
    return sorted([*kept, new], key=_order)


def compare_solo(better: dict[str, Any], worse: dict[str, Any]) -> dict[str, Any]:
    """Seed by seed, how often ``better``'s solo score is strictly higher than ``worse``'s.

    Only seeds both runs played and finished count; a tie is not higher (ties are counted apart).
    """
    theirs = {seed: score for seed, score in worse["solo_scores"] if score is not None}
    pairs = [(score, theirs[seed]) for seed, score in better["solo_scores"] if score is not None and seed in theirs]
    higher, ties = sum(a > b for a, b in pairs), sum(a == b for a, b in pairs)
    return {
        "game": better["summary"]["game"],
        "better": better["run"]["bots"][0],
        "worse": worse["run"]["bots"][0],
        "seeds": len(pairs),
        "higher": higher,
        "ties": ties,
        "rate": higher / len(pairs) if pairs else 0.0,
        "rate_ci95": list(wilson(higher, len(pairs))),
        "mean_scores": [sum(p[i] for p in pairs) / len(pairs) if pairs else 0.0 for i in (0, 1)],
        "cpu_seconds_per_game": better["summary"].get("cpu_seconds_per_game", 0.0),
    }


def solo_comparisons(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Heuristic against random, then every solo search run against the heuristic, on shared seeds."""
    solo = {e["run"]["bots"][0]: e for e in section(entries, "solo") if "solo_scores" in e}
    if "heuristic" not in solo:
        return []
    searched = [e for e in section(entries, "search") if e["summary"]["players"] == 1 and "solo_scores" in e]
    pairs = [(solo["heuristic"], solo["random"])] if "random" in solo else []
    return [compare_solo(better, worse) for better, worse in pairs + [(e, solo["heuristic"]) for e in searched]]


# ---- the command ---------------------------------------------------------------------------------


def _read(folder: Path) -> dict[str, Any]:
    path = folder / "summary.json"
    if not path.exists() or not path.stat().st_size:
        return {"meta": {}, "runs": []}
    document: dict[str, Any] = orjson.loads(path.read_bytes())
    return document


def _write(folder: Path, document: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")


@contextmanager
def _updating(folder: Path) -> Iterator[dict[str, Any]]:
    """``summary.json`` read, changed by the caller and written back under an exclusive lock.

    Two re-plays may run at once (say the solo runs beside the others): each merges its run into
    the file as it is *then*, so neither loses the other's entries.
    """
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "summary.json").open("ab") as lock:  # the file itself is the lock (created if missing)
        fcntl.flock(lock, fcntl.LOCK_EX)
        document = _read(folder)
        yield document
        _write(folder, document)


def build_report(
    out: Path,
    jobs: int = 2,
    scale: float = 1.0,
    seed: int = 1,
    balance_bot: str = "heuristic",
    games: Sequence[str] = GAMES,
    search_bot: str = SEARCH_BOT,
    on_start: Callable[[int], Callable[[TableResult], None]] | None = None,
    only: Sequence[str] = (),
    skip: Sequence[str] = (),
) -> Path:
    """Play the runs (all, or those ``only``/``skip`` select) into ``out/bots-report/summary.json`` and
    write ``out/bots-report.md`` and its plots; return the report.

    A selection (``only``, ``skip`` or fewer ``games``) replaces the entries of the runs it plays
    and keeps every other entry; the whole report also drops entries its plan no longer has.
    """
    everything = plan_runs(scale, balance_bot, GAMES, search_bot)
    runs = select(plan_runs(scale, balance_bot, games, search_bot), only, skip)
    folder = out / "bots-report"
    on_result = on_start(sum(played_tables(r) for r in runs)) if on_start is not None else None
    for run in runs:
        started, load, clock = _now(), [os.getloadavg()[0]], time.perf_counter()
        results = play_run(run, jobs, seed, on_result)
        baseline = play_baseline(run, jobs, seed, on_result)
        minutes = (time.perf_counter() - clock) / 60
        made = provenance(run, seed, jobs, scale, started, minutes, [*load, os.getloadavg()[0]])
        with _updating(folder) as document:  # run by run: a report cut short keeps every run already played
            document["runs"] = merge(document["runs"], entry(run, results, made, baseline))
    with _updating(folder) as document:
        if not only and not skip and set(games) == set(GAMES):
            planned = {run.identity for run in everything}
            document["runs"] = [e for e in document["runs"] if Run.from_entry(e).identity in planned]
        document["meta"] = {
            "full_tables": sum(played_tables(r) for r in plan_runs(1.0, balance_bot, GAMES, search_bot)),
            "updated": _now(),
            "search_bot": search_bot,
            "balance_bot": balance_bot,
        }
    return render_report(out)


def render_report(out: Path) -> Path:
    """Write ``out/bots-report.md`` and its plots from ``out/bots-report/summary.json`` (no table is
    played: the text and plots can be redone after a change of wording without the hour of games)."""
    folder = out / "bots-report"
    document = _read(folder)
    entries, meta = document["runs"], dict(document["meta"])
    plots = []
    for game in GAMES:
        mine = [e for e in entries if e["summary"]["game"] == game]
        if any(e["run"]["section"] in ("versus", "balance") for e in mine):
            plot_game(game, mine, folder / f"{game}.png")
            plots.append(game)
    meta["plots"] = plots
    played = {Run.from_entry(e).identity for e in entries}
    planned = plan_runs(1.0, meta.get("balance_bot", "heuristic"), GAMES, meta.get("search_bot", SEARCH_BOT))
    meta["full_tables"] = sum(played_tables(run) for run in planned)
    meta["missing"] = sorted({run.key for run in planned if run.identity not in played})
    report = out / "bots-report.md"
    report.write_text(markdown(entries, solo_comparisons(entries), meta), encoding="utf-8")
    return report
