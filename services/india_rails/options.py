"""India Rails options (variants, endings) and the opening position: deck, hands, first player."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.common.engine import BadConfig, GameConfig, State
from services.common.rng import Rng
from services.india_rails import basics
from services.india_rails import cards as deck
from services.india_rails.content import (
    COSTS,
    DEMAND_CARDS,
    EVENT_CARDS,
    LOADS,
)

OPTION_DEFAULTS: dict[str, Any] = {
    "fast_trains": False,
    "fast_game": False,
    "fast_game_start": False,
    "fast_game_discard_initial_events": False,
    "fast_game_no_tax": False,
    "fast_game_five_cards": False,
    "mercy_borrowing": False,
    "mercy_late_fees": False,
    "mercy_backtracking": False,
    "crossgrading": False,
    "open_contracts": False,
    "field_warehousing": False,
    "cost_to_move": False,
    "cost_to_load": False,
    "reshuffle_on_tax": False,
    "track_trading": False,
    "additional_trains": False,
    "four_card_hands": False,
    "time_limit_rounds": 0,
    "stall_rounds": 25,
    "round_limit": 400,
    "stall_ending": "time_limit",
}
STALL_ENDINGS = ("time_limit", "no_winner")

FAST_GAME_PARTS = ("fast_game_start", "fast_game_discard_initial_events", "fast_game_no_tax", "fast_game_five_cards")


def _train(loco: str) -> dict[str, Any]:
    return {"loco": loco, "at": -1, "prev": -1, "loads": [], "left": 0}


def _check_option_type(key: str, default: Any, value: Any) -> None:
    """An option keeps the type of its default (flags, counts, names)."""
    if isinstance(default, bool) and not isinstance(value, bool):
        raise BadConfig(f"option {key} must be true or false", code="bad_option_type")
    if isinstance(default, str) and not isinstance(value, str):
        raise BadConfig(f"option {key} must be a string", code="bad_option_type")
    is_count = isinstance(default, int) and not isinstance(default, bool)
    if is_count and (isinstance(value, bool) or not isinstance(value, int)):
        raise BadConfig(f"option {key} must be an integer", code="bad_option_type")


def check_options(merged: dict[str, Any]) -> dict[str, Any]:
    """Check types and ranges of options merged over the defaults; ``fast_game`` switches on its four parts."""
    for key, default in OPTION_DEFAULTS.items():
        _check_option_type(key, default, merged[key])
    if not 0 <= merged["time_limit_rounds"] <= 1000:
        raise BadConfig("time_limit_rounds must be between 0 and 1000", code="bad_time_limit")
    for key in ("stall_rounds", "round_limit"):
        if not 0 <= merged[key] <= 1000:
            raise BadConfig(f"{key} must be between 0 and 1000", code=f"bad_{key}")
    if merged["stall_ending"] not in STALL_ENDINGS:
        raise BadConfig(f"stall_ending must be one of {', '.join(STALL_ENDINGS)}", code="bad_stall_ending")
    if merged["fast_game"]:
        for part in FAST_GAME_PARTS:
            merged[part] = True
    return merged


def setup_state(config: GameConfig, rng: Rng, choose_first: Callable[[State], int]) -> State:
    """Shuffle the deck, deal demand cards (setting events aside) and pick the first player (``choose_first``)."""
    options = dict(OPTION_DEFAULTS)
    options.update(config.options)
    n = config.players
    tax_cards = [c for c, spec in EVENT_CARDS.items() if spec["kind"] == "tax"]
    removed = tax_cards if options["fast_game_no_tax"] else []
    events = [c for c in EVENT_CARDS if c not in removed]
    deck_cards = sorted(DEMAND_CARDS) + sorted(events)
    rng.shuffle(deck_cards)
    start_cash = int(COSTS["fast_game_cash"] if options["fast_game_start"] else COSTS["starting_cash"])
    locos = ["freight", "fast_freight"] if options["additional_trains"] else ["freight"]
    players = [
        {"cash": start_cash, "debt": 0, "owed": [], "trains": [_train(loco) for loco in locos],
         "hand": [], "track": [], "turns": 0, "lost": 0, "declared": False}
        for _ in range(n)
    ]
    state: State = {
        "options": options, "players": players, "deck": deck_cards, "discard": [], "removed": list(removed),
        "tray": dict(LOADS), "active": [], "reserved": [], "pending": [], "abort_turn": False,
        "open_contracts": [], "warehouse": [], "offer": None, "cash_public": False,
        "win_cash": int(COSTS["winning_cash"]), "over": False, "winners": [], "finish_reason": "",
        "ranking": [], "round": 0, "building_round": 0, "last_progress": 0,
        "initial_rounds": 3 if options["fast_game_start"] else 2, "turn": basics.fresh_turn(),
    }
    deal(state, rng)
    first = choose_first(state)
    state["first"] = first
    state["order"] = [(first + i) % n for i in range(n)]
    state["pos"] = 0
    state["current"] = first
    state["phase"] = "initial_build"
    # This draw once gave the state a "game_key" for the bot's notes (the bot now keeps none between
    # moves); it stays so that the generator goes on as before and seed + moves replays of games
    # begun earlier stay valid.  Snapshots that still carry a "game_key" load as they are: nothing reads it.
    rng.randbelow(1 << 30)
    return state


def deal(state: State, rng: Rng) -> None:
    """Deal every hand to its size; event cards drawn meanwhile go back into the deck (or out, fast game)."""
    options = state["options"]
    size = 5 if options["fast_game_five_cards"] else deck.hand_size(state)
    set_aside: list[int] = []
    for player in state["players"]:
        while len(player["hand"]) < size:
            card = int(state["deck"].pop())
            if deck.is_event(card):
                set_aside.append(card)
            else:
                player["hand"].append(card)
    if options["fast_game_discard_initial_events"]:
        state["removed"].extend(set_aside)
    else:
        state["deck"].extend(set_aside)
        rng.shuffle(state["deck"])


def first_player(state: State) -> int:
    """Largest single payout goes first; ties look at the next largest, then the lower seat."""

    def key(seat: int) -> tuple[list[int], int]:
        payouts = sorted((d["payout"] for c in state["players"][seat]["hand"]
                          for d in DEMAND_CARDS[c]["demands"]), reverse=True)
        return payouts, -seat

    return max(range(len(state["players"])), key=key)

# ---- whose decision -----------------------------------------------------------
