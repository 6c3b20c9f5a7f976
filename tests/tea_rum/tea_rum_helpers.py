"""Helpers for Tea & Rum tests: games driven to a known point, and hand-made situations."""

from __future__ import annotations

from typing import Any

from services.common.runner import Match
from services.tea_rum.content import RESOURCES
from services.tea_rum.effects import action_task
from services.tea_rum.engine import TeaRumEngine

ENGINE = TeaRumEngine()


def start(players: int, seed: int = 1) -> Match:
    """A new game (it waits in the round I ship phase)."""
    return Match.start(ENGINE, players, seed)


def pass_ships(match: Match) -> None:
    """Everyone passes in the ship phase (overflow decisions cannot happen here)."""
    while match.state["phase"] == "ships":
        seat = match.to_act()[0]
        match.play(seat, {"pass_ships": {}})


def at_worker_choice(players: int, seed: int = 1) -> Match:
    """A game at the first worker decision of round I."""
    match = start(players, seed)
    pass_ships(match)
    assert match.state["phase"] == "actions" and match.state["stage"] == "choose"
    return match


def set_warehouse(match: Match, seat: int, **resources: int) -> None:
    """Give ``seat`` exactly these resources (the rest back to the supply)."""
    player = match.state["players"][seat]
    for r in RESOURCES:
        match.state["supply"][r] += player["res"][r]
        player["res"][r] = resources.get(r, 0)
        match.state["supply"][r] -= player["res"][r]


def give_action(match: Match, seat: int, kind: str, discount: int = 0) -> None:
    """Put a trade/build/contract/captain action at the head of the seat's queue, as a row would."""
    match.state["players"][seat]["pending"].insert(0, action_task(kind, discount, from_row=True))


def moves_of(match: Match, seat: int, kind: str) -> list[dict[str, Any]]:
    """The legal moves of one kind, as their bodies."""
    return [m[kind] for m in ENGINE.legal_moves(match.state, seat) if kind in m]


def actor(match: Match) -> int:
    """The single seat to act."""
    seats = match.to_act()
    assert len(seats) == 1
    return seats[0]


def check_invariants(match: Match, *_: Any) -> None:
    """Components conserved, nothing negative, workers within their count and board capacity."""
    state = match.state
    n = state["n"]
    for p in state["players"]:
        assert p["money"] >= 0 and p["blue"] >= 0 and p["red"] >= 0
        assert all(v >= 0 for v in p["res"].values())
    for r in RESOURCES:
        held = sum(p["res"][r] for p in state["players"])
        assert state["supply"][r] >= 0
        assert held + state["supply"][r] == {"wheat": 22, "wood": 22, "ore": 22}.get(r, 12)
    colours = [*range(n), *([-1] if n == 2 else [])]
    on_boards = [w for b in state["boards"] for w in b["workers"]]
    for colour in colours:
        count = on_boards.count(colour)
        assert count <= 4
        if state["phase"] == "ships" or state["phase"] == "income":
            assert count == (4 if state["round"] % 2 == 1 else 0)
    cap = 4 if n == 4 else 3
    assert all(len(b["workers"]) <= cap for b in state["boards"])


def nicolas_at_the_scale() -> tuple[Match, int]:
    """The rulebook's trade example: Nicolas, with 2 ore, 1 wood and $9, starts a trade."""
    match = at_worker_choice(3)
    nicolas = actor(match)
    set_warehouse(match, nicolas, ore=2, wood=1)
    match.state["players"][nicolas]["money"] = 9
    give_action(match, nicolas, "trade")
    return match, nicolas


def public_record(match: Match, plays: list[tuple[int, dict[str, Any]]], viewers: tuple[int | None, ...]) -> list[Any]:
    """What ``viewers`` receive as ``plays`` are made: per move its version, event ids and events, then the view."""
    record: list[Any] = []
    for version, (seat, move) in enumerate(plays, start=1):
        events = match.play(seat, move)
        for viewer in viewers:
            shown = [(version, i, ENGINE.event_view(e, viewer)) for i, e in enumerate(events)]
            record.append([item for item in shown if item[2] is not None])
            record.append(ENGINE.view(match.state, viewer))
    return record
