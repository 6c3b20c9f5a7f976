"""Turn flow: ending a turn, the building rounds, the next turn (or a lost one), round ends and the end of the game."""

from __future__ import annotations

from services.common.engine import Event, State
from services.common.rng import Rng
from services.india_rails import basics
from services.india_rails import cards as deck
from services.india_rails import operations as ops
from services.india_rails import track as tracks
from services.india_rails.content import (
    COSTS,
)


def settle(state: State, rng: Rng, events: list[Event], earned: list[int]) -> None:
    """After a step: repay the loans of those who earned money, then end a turn an event cut short.

    A loan is repaid (double) as soon as income — a payoff, a fee, a sale — brings the cash to the
    debt; the loan's own money never repays it.
    """
    for seat in earned:
        basics.repay(state, seat, state["players"][seat], events)
    if state["pending"] or state["over"]:
        return
    if state["abort_turn"]:
        state["abort_turn"] = False
        finish_turn(state, rng, events)


def finish_turn(state: State, rng: Rng, events: list[Event]) -> None:
    seat = state["current"]
    player = state["players"][seat]
    normal = state["phase"] in ("operations", "build") and not player["declared"]
    if normal and player["cash"] >= state["win_cash"] and tracks.connected_majors(player["track"]):
        player["declared"] = True
        events.append({"victory_declared": {"seat": seat}})
    events.append({"turn_ended": {"seat": seat}})
    _close_turn(state, seat, events)
    advance(state, rng, events)


def _close_turn(state: State, seat: int, events: list[Event]) -> None:
    """Bookkeeping at the end of any turn of ``seat`` (played or lost)."""
    player = state["players"][seat]
    player["turns"] += 1
    deck.end_events_of(state, seat, events)
    keep = []
    for stored in state["warehouse"]:
        if stored["by"] == seat and player["turns"] >= stored["expires"]:
            state["tray"][stored["load"]] += 1
        else:
            keep.append(stored)
    state["warehouse"] = keep
    state["reserved"] = [r for r in state["reserved"] if not (r["owner"] == seat and r["armed"])]


def advance(state: State, rng: Rng, events: list[Event]) -> None:
    n = len(state["players"])
    while not state["over"]:
        state["pos"] += 1
        if state["phase"] in ("initial_build", "initial_discard"):
            if state["pos"] >= n and not _next_building_round(state, events):
                return
        elif state["pos"] >= n:
            state["pos"] = 0
            state["round"] += 1
            if _round_end(state, events):
                return
        state["current"] = state["order"][state["pos"]]
        if _begin_turn(state, events):
            return


def _next_building_round(state: State, events: list[Event]) -> bool:
    """Switch to the next building round, the five-card discard, or the first normal round.

    The five-card discard comes after the first two building rounds (a third fast-game building
    round, if any, follows it).
    """
    state["pos"] = 0
    if state["phase"] == "initial_discard":
        _after_building_round(state)
        return True
    state["building_round"] += 1
    if state["options"]["fast_game_five_cards"] and state["building_round"] == 2:
        state["phase"] = "initial_discard"
        state["order"] = _forward(state)
        state["current"] = state["order"][0]
        return _discard_needed(state, events)
    _after_building_round(state)
    return True


def _forward(state: State) -> list[int]:
    n = len(state["players"])
    return [(state["first"] + i) % n for i in range(n)]


def _after_building_round(state: State) -> None:
    """Set up the next building round (switchback order) or the first normal round."""
    forward = _forward(state)
    if state["building_round"] < state["initial_rounds"]:
        state["phase"] = "initial_build"
        state["order"] = forward if state["building_round"] % 2 == 0 else forward[::-1]
        return
    state["phase"] = "operations"
    state["order"] = forward


def _discard_needed(state: State, events: list[Event]) -> bool:
    """Skip players already holding a normal hand in the five-card discard."""
    size = deck.hand_size(state)
    n = len(state["players"])
    while state["pos"] < n and len(state["players"][state["order"][state["pos"]]]["hand"]) <= size:
        state["pos"] += 1
    if state["pos"] >= n:
        state["pos"] = 0
        _after_building_round(state)
        return True
    state["current"] = state["order"][state["pos"]]
    events.append({"turn_started": {"seat": state["current"], "phase": "initial_discard", "round": 0}})
    return False


def _begin_turn(state: State, events: list[Event]) -> bool:
    """Start the current seat's turn; ``False`` if the turn is lost to an event."""
    seat = state["current"]
    player = state["players"][seat]
    state["turn"] = basics.fresh_turn()
    if state["phase"] == "initial_discard":
        if len(player["hand"]) <= deck.hand_size(state):
            return False
        events.append({"turn_started": {"seat": seat, "phase": "initial_discard", "round": 0}})
        return True
    if state["phase"] not in ("initial_build",):
        state["phase"] = "operations"
        if player["lost"] > 0:
            player["lost"] -= 1
            events.append({"turn_lost": {"seat": seat}})
            _close_turn(state, seat, events)
            return False
    for reserved in state["reserved"]:
        if reserved["owner"] == seat and reserved["open"]:
            reserved["armed"] = True
    ops.start_trains(state, seat)
    events.append({"turn_started": {"seat": seat, "phase": state["phase"], "round": state["round"]}})
    return True


def _round_end(state: State, events: list[Event]) -> bool:
    """Settle victory claims and the tournament time limit; ``True`` if the game ended."""
    players = state["players"]
    declared = [s for s, p in enumerate(players) if p["declared"]]
    for p in players:
        p["declared"] = False
    eligible = [s for s in declared
                if players[s]["cash"] >= state["win_cash"] and tracks.connected_majors(players[s]["track"])]
    if eligible:
        best = max(players[s]["cash"] for s in eligible)
        top = [s for s in eligible if players[s]["cash"] == best]
        if len(top) == 1:
            _game_over(state, top, "victory", events)
            return True
        state["win_cash"] += int(COSTS["tie_raise"])
        events.append({"threshold_raised": {"win_cash": state["win_cash"]}})
    limit = state["options"]["time_limit_rounds"]
    if limit and state["round"] >= limit:
        _game_over(state, time_limit_winners(state), "time_limit", events)
        return True
    cap = state["options"].get("round_limit", 0)
    if cap and state["round"] >= cap:
        _game_over(state, time_limit_winners(state), "round_limit", events)
        return True
    return _stall_end(state, events)


def time_limit_winners(state: State) -> list[int]:
    """The tournament rule's winners: a connected network first, then the most cash."""
    keys = [(1 if tracks.connected_majors(p["track"]) else 0, p["cash"]) for p in state["players"]]
    best_key = max(keys)
    return [s for s, k in enumerate(keys) if k == best_key]


def _stall_end(state: State, events: list[Event]) -> bool:
    """End a table where no seat has delivered, built or upgraded for ``stall_rounds`` rounds."""
    options = state["options"]
    limit = options.get("stall_rounds", 0)
    if not limit or state["round"] - state.get("last_progress", 0) < limit:
        return False
    winners = time_limit_winners(state) if options.get("stall_ending") == "time_limit" else []
    _game_over(state, winners, "stalled", events)
    return True


def _game_over(state: State, winners: list[int], reason: str, events: list[Event]) -> None:
    """End the game: the ranking follows the ending (victory first, else network then cash)."""
    """Move on to the next seat that gets a turn, through building rounds, round ends and lost turns."""
    """End the current seat's turn (declaring victory if it may) and start the next one."""
    players = state["players"]
    if reason == "victory":
        keys = [(1 if s in winners else 0, p["cash"]) for s, p in enumerate(players)]
    elif not winners:
        keys = [(0, 0) for _ in players]  # a stalled table ended without a winner: everyone shares the place
    else:
        keys = [(1 if tracks.connected_majors(p["track"]) else 0, p["cash"]) for p in players]
    state["ranking"] = [1 + sum(1 for other in keys if other > keys[s]) for s in range(len(keys))]
    state["over"] = True
    state["phase"] = "over"
    state["winners"] = sorted(winners)
    state["finish_reason"] = reason
    state["cash_public"] = True
    events.append({"game_over": {"winners": sorted(winners), "reason": reason}})

# ---- views and results --------------------------------------------------------------

