"""The search itself on a tiny game with chance and a hidden card, where the right move is known.

"Twenty-one": seats add 1, 2 or 3 to a running total in turn; whoever makes it exactly 21 wins
and whoever passes 21 loses. Each seat also holds a hidden card that nobody uses, so the
sampler must draw it (the search averages over it), and every move rolls a die kept in the
state, so ``apply`` draws from the search's chance generator.
"""

from __future__ import annotations

from typing import Any

from services.bots.search import Budget, Search, rewards
from services.common.engine import Engine, GameConfig, Move, Result, State, View
from services.common.rng import Rng

TARGET = 21


class TwentyOne(Engine):
    """The toy engine (pure, like every engine)."""

    game_type = "twenty_one"
    name = "Twenty-one"
    min_players = 2
    max_players = 2

    def default_options(self) -> dict[str, Any]:
        return {}

    def setup(self, config: GameConfig, rng: Rng) -> State:
        return {"total": 0, "turn": 0, "cards": [rng.randbelow(10), rng.randbelow(10)], "die": 0, "winner": -1}

    def to_act(self, state: State) -> list[int]:
        return [] if state["winner"] >= 0 else [state["turn"]]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if seat not in self.to_act(state):
            return []
        return [{"add": n} for n in (1, 2, 3)]

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[dict[str, Any]]]:
        state["total"] += move["add"]
        state["die"] = rng.randbelow(6)
        if state["total"] == TARGET:
            state["winner"] = seat
        elif state["total"] > TARGET:
            state["winner"] = 1 - seat
        state["turn"] = 1 - seat
        return state, []

    def view(self, state: State, seat: int | None) -> View:
        return {k: v for k, v in state.items() if k != "cards"}

    def result(self, state: State) -> Result | None:
        if state["winner"] < 0:
            return None
        scores = [0.0, 0.0]
        scores[state["winner"]] = 1.0
        return Result.from_scores(scores)


ENGINE = TwentyOne()


def _random_policy(engine: Engine, state: State, seat: int, rng: Rng) -> Move:
    return rng.choice(engine.legal_moves(state, seat))


def _search(total: int, iterations: int, prior_visits: int = 0) -> Search:
    known = {"total": total, "turn": 0, "die": 0, "winner": -1}

    def sample(rng: Rng) -> State:
        return {**known, "cards": [rng.randbelow(10), rng.randbelow(10)]}  # the hidden part, drawn afresh

    return Search(
        engine=ENGINE,
        seat=0,
        legal=ENGINE.legal_moves({**known, "cards": [0, 0]}, 0),
        sample=sample,
        policy=_random_policy,
        evaluate=lambda state: [0.0, 0.0],
        budget=Budget(iterations=iterations, rollout_depth=30, prior_visits=prior_visits),
    )


def test_it_takes_the_winning_move() -> None:
    assert _search(18, 60).best_move(Rng(1)) == {"add": 3}
    assert _search(20, 60).best_move(Rng(2)) == {"add": 1}


def test_it_leaves_the_opponent_a_lost_position() -> None:
    # From 16, adding 1 leaves 17: whatever the opponent adds (1-3), 21 is one move away for us.
    assert _search(16, 300).best_move(Rng(4)) == {"add": 1}


def test_the_same_generator_gives_the_same_move_and_others_agree_when_it_is_clear() -> None:
    moves = {repr(_search(10, 40).best_move(Rng(seed))) for seed in range(3)}
    again = {repr(_search(10, 40).best_move(Rng(seed))) for seed in range(3)}
    assert moves == again
    assert {repr(_search(18, 60).best_move(Rng(seed))) for seed in range(5)} == {repr({"add": 3})}


def test_rewards_rank_first_and_count_the_margin() -> None:
    budget = Budget(iterations=1, margin_weight=0.2, margin_scale=1.0)
    won, lost = rewards(Result.from_scores([3.0, 1.0]), budget)
    assert won > 0.9 and lost < 0.1
    tied = rewards(Result.from_scores([2.0, 2.0]), budget)
    assert tied[0] == tied[1] and lost < tied[0] < won  # a shared win is worth less than a win
