"""India Rails as the platform sees it: engine, protos (``chaiwala.india_rails.v1``), web table, port slot,
and its board: the milepost map (a subset of ``seeds/india_rails/map.json``: mileposts with x/y in km
and terrain, cities, rivers as lon/lat lines and the projection that puts them on the same km grid,
deserts, and the edges with their river and strait flags, which a table needs to price a path of
segments before it is played, issue #42), served once per game type instead of in every view."""

from __future__ import annotations

from typing import Any

from services.common.registry import GameUnit

# The search bot's settings for this game (services.bots.levels.SearchProfile's fields).
# India Rails. An India Rails game is ~2,000 moves (~32 a round at 2 players) at ~3 ms each: a
# playout to the end would cost seconds, so its playouts cover about a round (the rest of the seat's
# turn and the next seat's), and its estimate values loads on the train, track and locos (a playout
# of 120 moves valuing cash alone had the search stop trains to keep cash). Samples: its moves cost
# ~3 ms each (the heuristic plans from a fresh determinization at every step), and its estimate, not
# the playout's luck, carries most of a decision: fewer samples, same bar.
# Rivals: India Rails runs a train and lays track one mile at a time (nine in ten of its ~2,000
# moves are steps of the heuristic's route plan): its runners-up were "stop the train here" and
# "stop building", which a short playout scores as cash kept and the long game pays for, and asking
# the heuristic with its favourite taken away fed its memory (refused segments, a plan's progress)
# positions that never happened. The rivals are what the plan does not weigh: another load to pick
# up (the heuristic takes only its target's), another delivery.
# Second thoughts: its heuristic drops any load but its target's once a train carries two (and,
# while delivering a carried load, even that one): keeping it on is the rival, else a load the
# search picked up would be dropped at the next city.
# Plans: the game is won on the heuristic's plan (which demand to chase), which pays off far beyond a
# move's playout: once per hand of demand cards the search races committing to the heuristic's
# runners-up against its own choice over playouts of 100 moves a seat (:mod:`services.bots.plans`:
# 200 at 2 players, about 6 rounds, 500 at 5; a fixed 200 left a 5-player plan ~40 moves of its own
# seat, too few to see a delivery; ~12 plan searches a seat and game), then plays the heuristic's moves:
# ``decisions`` is empty, because the move-level search (rivals and second thoughts above; list
# ``MOVE_DECISIONS`` to turn it on) measured level with the heuristic (22 of 48 tables) at ~49 CPU
# s a table, and changed 10 of 101 searched moves on an instrumented table.
MOVE_DECISIONS = frozenset({"pick_up", "deliver", "drop_load"})
SEARCH: dict[str, Any] = dict(
    margin_scale=40.0,
    depth=40,
    samples={"mcts-easy": 2, "mcts": 3, "mcts-hard": 6},
    decisions=frozenset(),
    rivals=frozenset({"pick_up", "deliver"}),
    second_thoughts=frozenset({"drop_load"}),
    plan_moves_per_seat=100,
    plan_samples={"mcts-easy": 2, "mcts": 3, "mcts-hard": 4},
)


# The bots report's tables (services.arena.report_runs.ReportTables). A two-seat heuristic table is
# ~3.2 CPU s (~2,100 moves), the costliest of the games, so it is played first. Balance: 192
# two-seat tables, because the first player's lead is a few points, which 48 tables cannot tell
# from chance (seeds/india_rails/README.md, Balance); fewer above 2 seats, where heuristic rail
# barons take ~6 CPU s a table at 3 seats, ~8 at 4, ~12 at 5 and ~20 at 6 (3,000-5,500 moves), in
# whole seat rotations. Search: a 6-seat table is ~5,000 moves and ~2.6 CPU minutes, so fewer
# tables above 2 seats. Strongest: ~105 CPU s a table at 3 seats, 2.5, 6 and 8 CPU minutes at 4-6:
# two or three rotations at 4 and 5 seats, one at 6 (a smoke test for a lead of 40 points or more,
# not a measure).
ARENA: dict[str, Any] = dict(table_seconds=3.2, versus=12, balance=192, balance_at={3: 48, 4: 96, 5: 100, 6: 96},
                             search={2: 24, 3: 12, 4: 12, 5: 10, 6: 12}, strongest={2: 12, 3: 12, 4: 12, 5: 10, 6: 6})


UNIT = GameUnit.built_in(
    "india_rails", "IndiaRailsEngine", slot=3, estimated=True, search=SEARCH, arena=ARENA,
    board=(
        "india_rails/map.json",
        ("provenance", "spacing_km", "projection", "mileposts", "cities", "river_lines", "desert_areas", "edges"),
    ),
)
