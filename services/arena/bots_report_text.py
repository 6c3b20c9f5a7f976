"""The committed bots report's Markdown and plots, from the entries of ``docs/bots-report/summary.json``.

:mod:`services.arena.bots_report` plays the runs and keeps their entries; this module only reads
them. An entry is ``{"run": {...}, "summary": <the arena's --json object>, "provenance": {...}}``
(``solo_scores`` too for one-seat runs), see :func:`services.arena.bots_report.entry`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from services.arena.content import flagged
from services.arena.report import content_table, error_bars
from services.arena.report_runs import Run
from services.arena.stats import fair_share, unfair_seats
from services.common.registry import engine_for


def _title(game: str) -> str:
    """The game's name, as its engine gives it."""
    return engine_for(game).name


# Issue #17's targets for the search bot against the heuristic.
SEARCH_SEAT_TARGET = 0.65
"""2 players: the search bot wins at least this share of its head-to-head seats."""
SOLO_TARGET = 0.65
"""Solo: the search bot scores strictly higher than the heuristic on at least this share of seeds."""
HEURISTIC_SOLO_TARGET = 0.9
"""Solo: the heuristic scores strictly higher than the random bot on at least this share of seeds."""


def _pct(value: float) -> str:
    return f"{100 * value:.1f} %"


def _interval(ci: Sequence[float]) -> str:
    return f"{_pct(ci[0])}–{_pct(ci[1])}"


def section(entries: Sequence[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The entries of one section (``solo``, ``versus``, ``search``, ``balance``, ``strongest``), in their order."""
    return [e for e in entries if e["run"]["section"] == name]


UNRECORDED = "†"
"""Marks a run whose provenance was not recorded (see the report's last section)."""


def _tables(entry: dict[str, Any]) -> str:
    """The run's finished tables, marked when the run's provenance is unknown."""
    recorded = "commit" in (entry.get("provenance") or {})
    return f"{entry['summary']['games']}{'' if recorded else ' ' + UNRECORDED}"


def _row(*cells: object) -> str:
    """One Markdown table row."""
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


Cells = tuple[object, ...] | None
CellsOf = Callable[[dict[str, Any]], Cells]


def _table(head: str, align: str, entries: Sequence[dict[str, Any]], cells: CellsOf) -> list[str]:
    """A Markdown table of ``entries``: the header row ``head``, its alignment row ``align``, then a
    row of ``cells(entry)`` per entry (``None`` leaves an entry out: a run without the bots compared)."""
    rows = [head, align]
    for entry in entries:
        found = cells(entry)
        if found is not None:
            rows.append(_row(*found))
    return rows


def _run_cells(entry: dict[str, Any]) -> tuple[str, int, str]:
    """The cells that open a run's row: game, players, tables."""
    summary = entry["summary"]
    return _title(summary["game"]), summary["players"], _tables(entry)


def _rank(bot: dict[str, Any]) -> str:
    """A bot's mean rank with its 95 % interval."""
    low, high = bot["mean_rank_ci95"]
    return f"{bot['mean_rank']:.2f} ({low:.2f}–{high:.2f})"


def _copy_line(entries: Sequence[dict[str, Any]]) -> str:
    """What this copy holds: how many runs, played when and from which commits."""
    made = [e["provenance"] for e in entries if "commit" in (e.get("provenance") or {})]
    if not made:
        return "No run of this copy has a recorded provenance."
    dates = sorted(m["date"] for m in made)
    commits = sorted({m["commit"][:10] for m in made})
    unknown = len(entries) - len(made)
    rest = f"; {unknown} runs marked {UNRECORDED} were not played by it (see the last section)" if unknown else ""
    return (
        f"This copy: {len(made)} runs played by `chaiwala arena-report` between {dates[0]} and {dates[-1]} UTC "
        f"from commit{'s' if len(commits) > 1 else ''} {', '.join(f'`{c}`' for c in commits)}{rest}."
    )


def _missing_in(missing: Sequence[str], name: str) -> list[str]:
    keys = [key for key in missing if key.startswith(f"{name}:")]
    return [f"Not in this copy: {', '.join(f'`{key}`' for key in keys)}.", ""] if keys else []


def _versus_lines(entries: Sequence[dict[str, Any]], bot: str, against: str) -> list[str]:
    def cells(entry: dict[str, Any]) -> Cells:
        summary = entry["summary"]
        mine, theirs = summary["bots"].get(bot), summary["bots"].get(against)
        if mine is None or theirs is None:
            return None
        return (*_run_cells(entry), _pct(mine["win_rate"]), _interval(mine["win_rate_ci95"]), _rank(mine),
                _pct(theirs["win_rate"]), f"{summary['mean_moves']:.0f}")

    return _table(
        f"| game | players | tables | {bot} win rate | 95 % interval | {bot} mean rank (95 %) "
        f"| {against} win rate (per seat) | mean moves |",
        "|---|---:|---:|---:|---:|---:|---:|---:|", entries, cells,
    )


def search_verdict(summary: dict[str, Any], bot: str) -> str:
    """Issue #17's target for one search row: ≥ 65 % of seats at 2 players, a better mean rank at more.

    "met" reads the point estimate; the interval says how sure that is.
    """
    mine, theirs = summary["bots"][bot], summary["bots"]["heuristic"]
    if summary["players"] == 2:
        low = mine["win_rate_ci95"][0]
        met = mine["win_rate"] >= SEARCH_SEAT_TARGET
        sure = " (lower bound too)" if low >= SEARCH_SEAT_TARGET else f" (lower bound {_pct(low)})"
        return f"≥ 65 % of seats: **{'met' if met else 'not met'}**{sure if met else ''}"
    met = mine["mean_rank"] < theirs["mean_rank"]
    apart = mine["mean_rank_ci95"][1] < theirs["mean_rank_ci95"][0]
    sure = " (intervals apart)" if apart else " (intervals overlap)"
    return f"better mean rank: **{'met' if met else 'not met'}**{sure if met else ''}"


def _search_cells(entry: dict[str, Any]) -> Cells:
    summary, bot = entry["summary"], entry["run"]["bots"][0]
    mine, theirs = summary["bots"].get(bot), summary["bots"].get("heuristic")
    if mine is None or theirs is None:
        return None
    wins = f"{mine['wins']} of {mine['seats']} ({_pct(mine['win_rate'])}, {_interval(mine['win_rate_ci95'])})"
    return (*_run_cells(entry), f"`{bot}`", wins, _rank(mine), _rank(theirs), _cpu(summary),
            search_verdict(summary, bot))


def _search_lines(entries: Sequence[dict[str, Any]]) -> list[str]:
    return _table(
        "| game | players | tables | search bot | wins (rate, 95 %) | mean rank (95 %) | heuristic mean rank (95 %) "
        "| CPU s per table | target |",
        "|---|---:|---:|---|---|---|---|---:|---|", entries, _search_cells,
    )


def _cpu(summary: dict[str, Any]) -> str:
    cpu = summary.get("cpu_seconds_per_game")
    return f"{cpu:.1f}" if cpu else "–"


def _solo_lines(comparisons: Sequence[dict[str, Any]]) -> list[str]:
    if not comparisons:
        return []
    lines = [
        f"### Solo {_title(comparisons[0]['game'])} (same seeds)",
        "",
        "Both bots play the same seeds alone; a seed is won by the strictly higher score, and a tie counts "
        "as not won (ties are listed).",
        "",
        "| bot | against | seeds | higher | ties | lower | rate higher (95 %) | mean scores | CPU s per game "
        "| target |",
        "|---|---|---:|---:|---:|---:|---|---|---:|---|",
    ]
    for solo in comparisons:
        target = HEURISTIC_SOLO_TARGET if solo["better"] == "heuristic" else SOLO_TARGET
        met = "met" if solo["rate"] >= target else "not met"
        lower = solo["seeds"] - solo["higher"] - solo["ties"]
        lines.append(
            f"| `{solo['better']}` | `{solo['worse']}` | {solo['seeds']} | {solo['higher']} | {solo['ties']} "
            f"| {lower} | {_pct(solo['rate'])} ({_interval(solo['rate_ci95'])}) "
            f"| {solo['mean_scores'][0]:.1f} vs {solo['mean_scores'][1]:.1f} | {_cpu(solo)} "
            f"| ≥ {100 * target:.0f} %: **{met}** |"
        )
    return [*lines, ""]


def _positions(summary: dict[str, Any], key: str) -> str:
    rates, intervals = summary.get(key) or [], summary.get(f"{key}_ci95") or []
    unfair = set(unfair_seats(summary, key))
    cells = [
        f"{'**' if place in unfair else ''}{_pct(rate)}{'**' if place in unfair else ''} ({_interval(ci)})"
        for place, (rate, ci) in enumerate(zip(rates, intervals, strict=True))
    ]
    return " / ".join(cells) if cells else "–"


def _balance_cells(entry: dict[str, Any]) -> Cells:
    summary = entry["summary"]
    return (_title(summary["game"]), summary["players"], entry["run"]["bots"][0], _tables(entry),
            _positions(summary, "seat_win_rate"), _positions(summary, "turn_position_win_rate"),
            _pct(fair_share(summary)), f"{summary['mean_moves']:.0f}")


def _balance_lines(entries: Sequence[dict[str, Any]]) -> list[str]:
    return _table(
        "| game | players | bot | tables | win rate by seat (95 %) | by turn position, 1 = start player (95 %) "
        "| fair share | mean moves |",
        "|---|---:|---|---:|---|---|---:|---:|", entries, _balance_cells,
    )


def _strongest_cells(entry: dict[str, Any]) -> Cells:
    summary = entry["summary"]
    baseline = entry.get("same_tables") or {}
    theirs = _positions(baseline["summary"], "turn_position_win_rate") if baseline else "–"
    return (*_run_cells(entry), f"`{entry['run']['bots'][0]}`", _positions(summary, "turn_position_win_rate"),
            theirs, _pct(fair_share(summary, "turn_position_win_rate")), f"{summary['cpu_seconds_per_game']:.0f}")


def _strongest_lines(entries: Sequence[dict[str, Any]]) -> list[str]:
    return _table(
        "| game | players | tables | search bot | its win rate by turn position (95 %) "
        "| the heuristic on the same tables (95 %) | fair share | CPU s per table |",
        "|---|---:|---:|---|---|---|---:|---:|", entries, _strongest_cells,
    )


def _content_lines(entries: Sequence[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for entry in entries:
        summary = entry["summary"]
        rows = summary.get("content") or []
        if not rows:
            continue
        title = f"{_title(summary['game'])}, {summary['players']} players ({summary['games']} tables)"
        outside = flagged(rows)
        lines += [f"#### {title}", ""]
        if outside:
            lines += ["Items flagged against the base rate or their peers:", "", *content_table(outside), ""]
        else:
            lines += ["No item is flagged against the base rate or its peers.", ""]
        lines += ["<details><summary>every item</summary>", "", *content_table(rows), "", "</details>", ""]
    return lines


def _load(provenance: dict[str, Any]) -> str:
    load = provenance.get("load") or []
    return "–".join(f"{value:.1f}" for value in load) if load else "–"


def provenance_lines(entries: Sequence[dict[str, Any]]) -> list[str]:
    """One row per run: how, when and from which commit it was played (the copy may mix runs)."""
    rows = [
        "| run | bots | tables | seed | played (UTC) | commit | processes | wall min | load average (start–end) |",
        "|---|---|---:|---:|---|---|---:|---:|---|",
    ]
    notes: list[str] = []
    for entry in entries:
        run, made = entry["run"], entry.get("provenance") or {}
        key, bots = Run.from_entry(entry).key, ",".join(run["bots"])
        if "commit" not in made:
            note = made.get("note", "not recorded")
            if note not in notes:
                notes.append(note)
            rows.append(f"| `{key}` | {bots} | {run['tables']} | – | – | – | – | – | note {notes.index(note) + 1} |")
            continue
        commit = made["commit"][:10] + (" (modified)" if made.get("code_modified") else "")
        rows.append(
            f"| `{key}` | {bots} | {run['tables']} | {made['seed']} | {made['date']} | `{commit}` "
            f"| {made['jobs']} | {made['minutes']:.1f} | {_load(made)} |"
        )
    return rows + [""] + [f"Note {i + 1}: {note}" for i, note in enumerate(notes)]


def _missing_lines(missing: Sequence[str]) -> list[str]:
    if not missing:
        return []
    runs = ", ".join(f"`{key}`" for key in missing)
    return ["", f"Runs of `make bots-report` not in this copy (`--only` plays them): {runs}."]


def _intro(entries: Sequence[dict[str, Any]], meta: dict[str, Any]) -> list[str]:
    """The title, how the report is made and read, and what this copy holds."""
    return [
        "# Bots and balance: the arena report",
        "",
        f"Regenerated by `make bots-report` (every run, {meta['full_tables']} tables at scale 1); "
        "`chaiwala arena-report --only SPEC` re-plays some runs and keeps the others (each run's command, "
        "date, commit and machine load are at the end). Seats are rotated table by table and every table's "
        "seed is derived from the run's seed, so the same command and commit give the same figures (the bots "
        "have no time limit in the arena). Intervals are Wilson 95 % intervals for rates and normal-approximation "
        "95 % intervals for mean ranks. A shared victory counts for every seat that shares it. Statistics of "
        "each run: [`bots-report/summary.json`](bots-report/summary.json).",
        "",
        _copy_line(entries),
        "",
    ]


def _section(title: str, about: str, lines: Sequence[str]) -> list[str]:
    """One section of the report: its title, what it shows, then its lines."""
    return [f"## {title}", "", about, "", *lines]


def _versus_section(
    entries: Sequence[dict[str, Any]], solo: Sequence[dict[str, Any]], missing: Sequence[str]
) -> list[str]:
    """Heuristic against random, at every count, then the solo comparisons."""
    versus = section(entries, "versus")
    return _section(
        "Heuristic against random",
        "One heuristic seat, every other seat random (the heuristic visits every seat in turn).",
        [
            *(_versus_lines(versus, "heuristic", "random") if versus else ["No runs in this copy."]),
            "",
            *_missing_in(missing, "versus"),
            *_solo_lines(solo),
        ],
    )


def _search_section(entries: Sequence[dict[str, Any]], missing: Sequence[str]) -> list[str]:
    """The search bot in one seat against the heuristic, with issue #17's targets."""
    search = section(entries, "search")
    if not search:
        none = "No search runs in this copy (`make bots-report` plays `mcts` where a game offers it)."
        return _section("Search against heuristic", none, [])
    return _section(
        "Search against heuristic",
        "The search bot in one seat, the heuristic in every other, seats rotated. Target (issue #17): "
        "win ≥ 65 % of the head-to-head seats at 2 players, a better (lower) mean rank than the heuristic "
        "at more. CPU s per table is the whole table, every seat, on one core (the load does not change it).",
        [*_search_lines([e for e in search if e["summary"]["players"] > 1]), "", *_missing_in(missing, "search")],
    )


def _balance_section(entries: Sequence[dict[str, Any]], missing: Sequence[str], plots: Sequence[str]) -> list[str]:
    """Self-play: win rate by seat and by turn position, and the plots."""
    return _section(
        "Balance: seat and turn position in self-play",
        "Every seat plays the same bot, so a seat differs from the others only by its position and the "
        "content it drew. **Bold**: the 95 % interval leaves out the fair share (the mean of the seats' "
        "win rates).",
        [
            *_balance_lines(section(entries, "balance")),
            "",
            *_missing_in(missing, "balance"),
            *[f"![{game}](bots-report/{game}.png)" for game in plots],
            "",
        ],
    )


def _strongest_section(entries: Sequence[dict[str, Any]], missing: Sequence[str]) -> list[str]:
    """The search bot against itself, and the heuristic on the same tables."""
    strongest = section(entries, "strongest")
    return _section(
        "Balance with the strongest bot",
        "The search bot in every seat, then the heuristic in every seat on the same tables (the same "
        "derived seeds and seating), in the same run. A search table costs the seat count times a search "
        "seat, so these runs have tens of tables, not hundreds: they show whether the strongest bot's "
        "turn-position pattern differs from the heuristic's on the same deals, and a lead of about 20 "
        "points, not the few-point leads the runs above measure. **Bold**: the 95 % interval leaves out "
        "the fair share.",
        [
            *(_strongest_lines(strongest) if strongest else ["No runs in this copy."]),
            "",
            *_missing_in(missing, "strongest"),
        ],
    )


def _content_section(entries: Sequence[dict[str, Any]]) -> list[str]:
    """Win rates with and without each content item, in self-play."""
    return _section(
        "Balance: content",
        "Win rate of the seats that had an item (owned or used it by the end) against those that did not, "
        "in the self-play runs above. Correlation is not cause: a seat that owns more tends to win whatever "
        "it owns, so an item matters when it stands out among the items of its kind: *against peers* "
        "compares its wins with those of the seats that held as many items of its kind (a seat with three "
        "Equipment cards against the other seats with three). Ids are those of "
        "`Engine.content_facts` (see each game's `facts.py`). With dozens of items a table, about one in "
        "twenty is flagged by chance alone on each of the two measures: an item is worth a look when it is "
        "flagged the same way at two "
        "or more player counts. What was measured at larger counts, what was tried and what was decided is "
        "in each game's `seeds/<game>/README.md`, section *Balance*.",
        _content_lines(section(entries, "balance")),
    )


def _provenance_section(entries: Sequence[dict[str, Any]], missing: Sequence[str]) -> list[str]:
    """How each run was produced, and the runs this copy lacks."""
    return _section(
        "How each run was produced",
        "Wall minutes and load average (1 minute, at the run's start and end) describe the shared machine the "
        "run was played on, not the bots: the results depend only on the seed, the table count and the "
        'commit. Commit "(modified)": the tree had uncommitted changes under `services/`. '
        f"{UNRECORDED} in the tables above: a run whose provenance was not recorded (its note is below).",
        [*provenance_lines(entries), *_missing_lines(missing)],
    )


def markdown(entries: Sequence[dict[str, Any]], solo: Sequence[dict[str, Any]], meta: dict[str, Any]) -> str:
    """The whole committed report, section by section."""
    missing = meta.get("missing") or []
    lines = [
        *_intro(entries, meta),
        *_versus_section(entries, solo, missing),
        *_search_section(entries, missing),
        *_balance_section(entries, missing, meta["plots"]),
        *_strongest_section(entries, missing),
        *_content_section(entries),
        *_provenance_section(entries, missing),
    ]
    return "\n".join(lines).rstrip() + "\n"


# ---- plots ---------------------------------------------------------------------------------------


def plot_game(game: str, entries: Sequence[dict[str, Any]], path: Path) -> None:
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
    left.set_title(f"{_title(game)}: heuristic win rate against random")
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
        right.hlines(fair_share(summary, key), index - width / 2, index + width * summary["players"], "k", "dashed")
    right.set_xticks(
        [i + width * (s["players"] - 1) / 2 for i, s in enumerate(balance)], [f"{s['players']}p" for s in balance]
    )
    right.set_title("self-play win rate by turn position (95 %)")
    if labelled:
        right.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    pyplot.close(figure)
