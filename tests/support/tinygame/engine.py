"""Pile's rules: take 1-3 counters from the pile in turn; the last take wins."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from services.common.engine import BadConfig, Engine, Event, GameConfig, Move, Result, Seen, State, View
from services.common.rng import Rng

MOST = 3


class PileEngine(Engine):
    """Two players, one pile, one secret number each (seen by its holder only)."""

    game_type: ClassVar[str] = "tinygame"
    name: ClassVar[str] = "Pile"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2

    def default_options(self) -> dict[str, Any]:
        """A pile of 7."""
        return {"pile": 7}

    def validate_options(self, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """A pile of 1 to 40 counters."""
        merged = super().validate_options(players, options)
        merged["pile"] = merged["pile"] or 7
        if not 1 <= merged["pile"] <= 40:
            raise BadConfig("a pile holds 1-40 counters", code="bad_pile")
        return merged

    def setup(self, config: GameConfig, rng: Rng) -> State:
        """The full pile, seat 0 to take, a secret for each seat."""
        secrets = [rng.randint(1, 9) for _ in range(config.players)]
        return {"pile": config.options["pile"], "turn": 0, "secrets": secrets, "taken": [0, 0], "winner": None}

    def to_act(self, state: State) -> list[int]:
        """The seat whose turn it is, until somebody took the last counter."""
        return [] if state["winner"] is not None else [state["turn"]]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Take 1, 2 or 3 (no more than the pile holds)."""
        if seat not in self.to_act(state):
            return []
        return [{"take": {"count": count}} for count in range(1, min(MOST, state["pile"]) + 1)]

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Take the counters; the last one wins, else the other seat is to take."""
        count = move["take"]["count"]
        state["pile"] -= count
        state["taken"][seat] += count
        if state["pile"] == 0:
            state["winner"] = seat
        else:
            state["turn"] = 1 - seat
        return state, [{"took": {"seat": seat, "count": count, "left": state["pile"]}}]

    def view(self, state: State, seat: int | None) -> View:
        """Everything but the other seats' secrets."""
        holders = [
            {"secret": secret if seat == holder else 0, "taken": state["taken"][holder]}
            for holder, secret in enumerate(state["secrets"])
        ]
        view: View = {"pile": state["pile"], "to_act": self.to_act(state), "holders": holders}
        if state["winner"] is not None:
            view["winner"] = state["winner"]
        return view

    def result(self, state: State) -> Result | None:
        """The last taker wins."""
        if state["winner"] is None:
            return None
        scores = [1.0 if seat == state["winner"] else 0.0 for seat in range(2)]
        return Result.from_scores(scores)

    def determinize(self, seen: Seen, rng: Rng) -> State:
        """The other seat's secret drawn afresh (it changes nothing of the play)."""
        view = seen.view
        secrets = [holder["secret"] or rng.randint(1, 9) for holder in view["holders"]]
        winner = view.get("winner")
        turn = view["to_act"][0] if view["to_act"] else seen.seat
        taken = [holder["taken"] for holder in view["holders"]]
        return {"pile": view["pile"], "turn": turn, "secrets": secrets, "taken": taken, "winner": winner}
