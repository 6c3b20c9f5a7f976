"""The search itself on a tiny game where the improvement over the base policy is provable.

"Twenty-one": seats add 1, 2 or 3 to a running total in turn; whoever makes it exactly 21 wins
and whoever passes 21 loses. Each seat also holds a hidden card that nobody uses, so the search
must determinize it, and every move rolls a die kept in the state, so ``apply`` draws chance.

The base policy always adds 1. Against it the game is decided by parity: after my move, if the
distance left to 21 is even, the opponent and I alternate single steps and I make the last one.
The policy wins from an even total and loses from an odd one; one playout of each candidate
shows that adding 2 from an odd total wins, so the improved bot wins from *every* total, and
where the policy already wins it keeps the policy's move (no rival is better).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from services.bots.levels import SearchBot, search_levels
from services.bots.roster import bots_for
from services.bots.search import RACE_AFTER, Budget, Playout, candidates, estimate, improve, rewards, wall_cap
from services.common.engine import Engine, GameConfig, Move, Result, Seen, State, View
from services.common.registry import engine_for
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

    def determinize(self, seen: Seen, rng: Rng) -> State:
        return {**seen.view, "cards": [rng.randbelow(10), rng.randbelow(10)]}  # the hidden part, drawn afresh

    def result(self, state: State) -> Result | None:
        if state["winner"] < 0:
            return None
        scores = [0.0, 0.0]
        scores[state["winner"]] = 1.0
        return Result.from_scores(scores)


ENGINE = TwentyOne()


class AddOne:
    """The base policy: the smallest step, whatever the total (a bot over ``seen.legal``)."""

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        return min(seen.legal, key=lambda move: move["add"])


def _seen(total: int, seat: int = 0) -> Seen:
    state = {"total": total, "turn": seat, "die": 0, "winner": -1, "cards": [0, 0]}
    return Seen(seat=seat, view=ENGINE.view(state, seat), legal=ENGINE.legal_moves(state, seat))


class Counted(TwentyOne):
    """The toy engine, counting its determinizations (one per sample of a decision)."""

    def __init__(self) -> None:
        self.samples = 0

    def determinize(self, seen: Seen, rng: Rng) -> State:
        self.samples += 1
        return super().determinize(seen, rng)


def _improved(seen: Seen, rng: Rng, samples: int = 4, engine: TwentyOne = ENGINE) -> Move:
    budget = Budget(candidates=3, samples=samples)
    playout = Playout(engine=engine, policy=AddOne(), evaluate=lambda state: [0.0, 0.0], budget=budget)
    return improve(playout, seen, candidates(AddOne(), engine, seen, rng, budget.candidates), rng)


def test_candidates_are_the_policys_move_then_its_runners_up() -> None:
    assert candidates(AddOne(), ENGINE, _seen(5), Rng(1), 3) == [{"add": 1}, {"add": 2}, {"add": 3}]
    assert candidates(AddOne(), ENGINE, _seen(5), Rng(1), 2) == [{"add": 1}, {"add": 2}]


class Remembering(AddOne):
    """The base policy, remembering every list of legal moves it was asked to choose from."""

    def __init__(self) -> None:
        self.asked: list[list[Move]] = []

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        self.asked.append(list(seen.legal))
        return super().choose(engine, seen, rng)


def test_runners_up_are_asked_of_a_copy_so_the_policy_remembers_only_the_real_position() -> None:
    policy, seen = Remembering(), _seen(5)
    assert candidates(policy, ENGINE, seen, Rng(1), 3) == [{"add": 1}, {"add": 2}, {"add": 3}]
    assert policy.asked == [list(seen.legal)]


@pytest.mark.parametrize("total", range(0, 19))
def test_it_wins_from_every_total_where_the_policy_keeps_or_fixes_its_move(total: int) -> None:
    move = _improved(_seen(total), Rng(total))
    if total % 2 == 0:
        assert move == {"add": 1}, "the policy's move already wins: keep it"
    else:
        assert (TARGET - total - move["add"]) % 2 == 0, "a move that leaves an even distance wins"


def test_it_takes_the_winning_move_and_avoids_the_losing_one() -> None:
    assert _improved(_seen(17), Rng(2)) == {"add": 2}
    assert _improved(_seen(19), Rng(3)) == {"add": 2}
    assert _improved(_seen(20, seat=1), Rng(4)) == {"add": 1}


def test_the_improved_bot_beats_the_policy_from_either_seat() -> None:
    wins = 0
    for game in range(6):
        improved_seat = game % 2
        state = ENGINE.setup(GameConfig(players=2), Rng(game))
        chance = Rng(100 + game)
        while ENGINE.result(state) is None:
            seat = ENGINE.to_act(state)[0]
            seen = Seen(seat=seat, view=ENGINE.view(state, seat), legal=ENGINE.legal_moves(state, seat))
            bot_rng = Rng(1000 * game + state["total"])
            move = _improved(seen, bot_rng) if seat == improved_seat else AddOne().choose(ENGINE, seen, bot_rng)
            state, _events = ENGINE.apply(state, seat, move, chance)
        result = ENGINE.result(state)
        assert result is not None
        wins += result.winners == [improved_seat]
    assert wins == 6  # the policy alone wins only as the seat whose parity it has (half the games)


def test_racing_ends_a_decision_once_no_rival_can_beat_the_policy() -> None:
    # From 16 the policy's move wins; adding 2 loses and adding 3 wins no better: both drop out.
    settled = Counted()
    assert _improved(_seen(16), Rng(5), samples=50, engine=settled) == {"add": 1}
    assert settled.samples == RACE_AFTER
    # From 17 adding 2 wins where the policy loses: the rival stays in the race to the end.
    open_race = Counted()
    assert _improved(_seen(17), Rng(6), samples=12, engine=open_race) == {"add": 2}
    assert open_race.samples == 12


def test_the_same_generator_gives_the_same_move() -> None:
    moves = [_improved(_seen(total), Rng(seed)) for total in (3, 8, 15) for seed in range(3)]
    again = [_improved(_seen(total), Rng(seed)) for total in (3, 8, 15) for seed in range(3)]
    assert moves == again


def test_rewards_rank_first_and_count_the_margin() -> None:
    budget = Budget(candidates=1, samples=1, margin_weight=0.2, margin_scale=1.0)
    won, lost = rewards(Result.from_scores([3.0, 1.0]), budget)
    assert won > 0.9 and lost < 0.1
    tied = rewards(Result.from_scores([2.0, 2.0]), budget)
    assert tied[0] == tied[1] and lost < tied[0] < won  # a shared win is worth less than a win


def test_a_higher_solo_score_always_earns_a_higher_reward() -> None:
    # Solo: no place, no margin over anyone. The old logistic of the score (margin scale 8) was 1.0 to the float
    # from ~295 points and within 0.001 of it from ~55: every decent playout looked alike.
    bot = search_levels(engine_for("alubari"), bots_for(engine_for("alubari"))["heuristic"])["mcts"]
    assert isinstance(bot, SearchBot)
    budget = bot.budget
    scores = [float(points) / 2 for points in range(0, 2 * 400)]  # half points: tea leaves
    final = [rewards(Result.from_scores([score]), budget)[0] for score in scores]
    estimated = [estimate([score], budget)[0] for score in scores]
    assert all(low < high for low, high in itertools.pairwise(final))
    assert final == estimated, "a capped playout's estimate is on the final score's scale"
    # A rival clears the edge with a few points more on average, at any stage of the game.
    for score in (20.0, 210.0, 380.0):
        gain = rewards(Result.from_scores([score + 3]), budget)[0] - rewards(Result.from_scores([score]), budget)[0]
        assert gain > budget.edge


def test_the_wall_cap_is_lifted_or_scaled_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHAIWALA_SEARCH_WALL_CAP", raising=False)
    assert wall_cap(4.0) == 4.0
    monkeypatch.setenv("CHAIWALA_SEARCH_WALL_CAP", "off")
    assert wall_cap(4.0) == float("inf")
    monkeypatch.setenv("CHAIWALA_SEARCH_WALL_CAP", "2.5")
    assert wall_cap(4.0) == 10.0
