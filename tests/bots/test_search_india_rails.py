"""The India Rails search bot: what its rivals are, that it asks the real heuristic only about the
real position (the heuristic remembers), that its depth-cap estimate values a seat's means of
earning, not only its cash, and its plans (the demands it may commit a seat to chase)."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import orjson

from services.bots.levels import SearchBot, rival_moves
from services.bots.roster import bots_for
from services.bots.search import Budget, move_key
from services.common.engine import Bot, Engine, Move, Seen, State
from services.common.registry import engine_for
from services.common.rng import Rng
from services.common.runner import Match
from services.india_rails.bots import HeuristicBot, demand_key
from services.india_rails.content import BOARD, DEMAND_CARDS, LOAD_SOURCES
from services.india_rails.estimate import estimate
from services.india_rails.unit import MOVE_DECISIONS

ENGINE = engine_for("india_rails")


@dataclass
class Recorder:
    """The heuristic, noting the legal moves of every question the real bot is asked."""

    heuristic: Bot
    asked: list[list[bytes]] = field(default_factory=list)

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        self.asked.append(sorted(move_key(move) for move in seen.legal))
        return self.heuristic.choose(engine, seen, rng)


def _first_position(seed: int, found: Callable[[Seen, Move], bool], greedy: bool = False) -> Seen:
    """The first position where ``found(seen, heuristic's move)`` holds in a heuristic game.

    ``greedy``: the trains take on every load they pass (so that the heuristic has some to drop).
    """
    heuristic = bots_for(ENGINE)["heuristic"]
    match = Match.start(ENGINE, 2, seed=seed)
    for step in range(3000):
        seat = match.to_act()[0]
        seen = match.seen(seat)
        if found(seen, match.bot_move(copy.deepcopy(heuristic), seat, step)):
            return seen
        pick_ups = [move for move in seen.legal if greedy and next(iter(move)) == "pick_up"]
        match.play(seat, pick_ups[0] if pick_ups else match.bot_move(heuristic, seat, step))
    raise AssertionError("no such position")


def _position_with_rivals(seed: int) -> Seen:
    """The first position where the heuristic has a pick-up or delivery it does not take."""
    return _first_position(seed, lambda seen, move: len(rival_moves(move, seen.legal, RIVAL_KINDS, 3)) > 1)


RIVAL_KINDS = frozenset({"pick_up", "deliver"})


def test_rivals_are_the_legal_moves_of_the_rival_kinds_after_the_base_move() -> None:
    legal: list[Move] = [
        {"move_train": {"train": 0, "to_milepost": 5}},
        {"pick_up": {"train": 0, "load": "Tea", "from_warehouse": False}},
        {"end_operations": {}},
        {"pick_up": {"train": 0, "load": "Salt", "from_warehouse": False}},
        {"deliver": {"train": 0, "slot": 0, "card": 1, "demand": 0, "open_contract": False}},
    ]
    base = legal[3]
    assert rival_moves(base, legal, frozenset({"pick_up", "deliver"}), 3) == [base, legal[1], legal[4]]
    assert rival_moves(legal[0], legal, frozenset({"pick_up"}), 2) == [legal[0], legal[1]]
    assert rival_moves(legal[2], legal, frozenset({"upgrade_train"}), 3) == [legal[2]]


def _move_searching(level: str) -> SearchBot:
    """The level with its move-level search on (the India Rails profile searches plans only)."""
    bot = bots_for(ENGINE)[level]
    assert isinstance(bot, SearchBot)
    return replace(bot, decisions=MOVE_DECISIONS, plans=None)


def test_the_real_heuristic_is_asked_only_about_the_real_position() -> None:
    seen = _position_with_rivals(seed=7)
    bot = _move_searching("mcts-easy")
    recorder = Recorder(bot.rollout)
    tiny = replace(bot, rollout=recorder, budget=replace(Budget(candidates=3, samples=2, depth=4), margin_scale=40.0))
    played = tiny.choose(ENGINE, seen, Rng(3))
    assert played in seen.legal
    # Once, with every legal move: a heuristic asked with its favourite taken away would plan (and
    # remember refusals and progress) for positions the game never reaches.
    assert recorder.asked == [sorted(move_key(move) for move in seen.legal)]


def test_the_search_leaves_the_heuristic_deciding_as_a_fresh_one() -> None:
    # The heuristic keeps no notes between moves (issue 31): after a search it holds nothing but its
    # commitments, and decides the next position as a heuristic that never searched.
    seen = _position_with_rivals(seed=7)
    bot = _move_searching("mcts-easy")
    replace(bot, budget=replace(Budget(candidates=3, samples=2, depth=4), margin_scale=40.0)).choose(
        ENGINE, seen, Rng(3)
    )
    used = bot.rollout
    assert isinstance(used, HeuristicBot)
    assert set(vars(used)) == {"focus"}
    fresh = HeuristicBot()
    fresh.focus = dict(used.focus)
    assert used.choose(ENGINE, seen, Rng(3).fork(2)) == fresh.choose(ENGINE, seen, Rng(3).fork(2))


def _midgame() -> State:
    """A private copy of one mid-game position (played once per test run)."""
    return copy.deepcopy(_played(seed=11, moves=600))


@functools.cache
def _played(seed: int, moves: int) -> State:
    heuristic = bots_for(ENGINE)["heuristic"]
    match = Match.start(ENGINE, 2, seed=seed)
    for step in range(moves):
        seat = match.to_act()[0]
        match.play(seat, match.bot_move(heuristic, seat, step))
    return match.state


def test_a_carried_load_a_demand_card_wants_is_worth_part_of_its_payout() -> None:
    state = _midgame()
    player = state["players"][0]
    demand = DEMAND_CARDS[player["hand"][0]]["demands"][0]
    origin = BOARD.cities[BOARD.city_at[LOAD_SOURCES[demand["load"]][0]]].region
    player["trains"][0]["loads"] = []
    empty = estimate(state)[0]
    player["trains"][0]["loads"] = [[demand["load"], origin]]
    loaded = estimate(state)[0]
    assert empty < loaded < empty + demand["payout"]


def test_track_and_an_upgraded_train_count_beside_cash() -> None:
    state = _midgame()
    player = state["players"][0]
    base = estimate(state)[0]
    player["track"].pop()  # the same cash, one segment fewer
    assert estimate(state)[0] < base
    player["trains"][0]["loco"] = "freight"
    before = estimate(state)[0]
    player["trains"][0]["loco"] = "fast_freight"
    assert estimate(state)[0] > before


def test_a_drop_the_heuristic_would_make_has_keeping_the_load_as_its_rival() -> None:
    seen = _first_position(11, lambda _seen, move: next(iter(move)) == "drop_load", greedy=True)
    bot = _move_searching("mcts")
    recorder = Recorder(copy.deepcopy(bot.rollout))
    moves = replace(bot, rollout=recorder)._candidates(ENGINE, seen, Rng(5))
    assert next(iter(moves[0])) == "drop_load"
    assert len(moves) >= 2 and next(iter(moves[1])) != "drop_load" and moves[1] in seen.legal
    assert len(recorder.asked) == 1  # the runner-up was asked of a throwaway copy


def _heuristic() -> HeuristicBot:
    heuristic = bots_for(ENGINE)["heuristic"]
    assert isinstance(heuristic, HeuristicBot)
    return heuristic


def _target_key(bot: HeuristicBot, state: State, seat: int) -> tuple[int, int] | None:
    target = bot._plan(state, seat)["target"]
    return None if target is None else demand_key(target["card"], target["demand"])


def test_the_plans_are_the_heuristics_best_demands_its_own_first_and_a_commitment_is_chased() -> None:
    state = _midgame()
    options = _heuristic().plan_options(state, 0, 4)
    assert len(options) >= 2 and len(set(options)) == len(options)
    assert options[0] == _target_key(_heuristic(), state, 0)
    for option in options:
        committed = _heuristic()
        committed.commit(state, 0, option)
        assert _target_key(committed, state, 0) == option
        committed.commit(state, 0, None)
        assert _target_key(committed, state, 0) == options[0]


def test_a_commitment_holds_only_while_the_hand_it_was_chosen_from_does() -> None:
    state = _midgame()
    bot = _heuristic()
    option = bot.plan_options(state, 0, 2)[1]
    bot.commit(state, 0, option)
    assert bot.committed(state, 0) == option
    state["players"][0]["hand"] = state["players"][0]["hand"][::-1]
    assert bot.committed(state, 0) is None
    assert bot.committed(state, 1) is None  # one seat's commitment is not another's


def test_the_plans_depend_only_on_what_the_seat_may_see() -> None:
    state = _midgame()
    seen = ENGINE.seen(state, 0)
    options = [_heuristic().plan_options(ENGINE.determinize(seen, Rng(salt)), 0, 4) for salt in range(3)]
    assert options[0] == options[1] == options[2]
    twin = copy.deepcopy(state)
    twin["players"][1]["hand"] = twin["players"][1]["hand"][::-1]  # another seat's hidden cards
    twin["deck"] = twin["deck"][::-1]
    assert _heuristic().plan_options(twin, 0, 4) == _heuristic().plan_options(state, 0, 4)


def _tiny_planner() -> tuple[SearchBot, Seen]:
    """The ``mcts`` level with a short plan search, and a midgame seat's view to ask it in."""
    played = _midgame()
    seen = ENGINE.seen(played, ENGINE.to_act(played)[0])
    bot = bots_for(ENGINE)["mcts"]
    assert isinstance(bot, SearchBot) and bot.plans is not None
    return replace(bot, plans=replace(bot.plans, samples=2, depth=30)), seen


def test_the_plan_search_commits_the_real_heuristic_to_one_of_its_plans_and_plays_a_legal_move() -> None:
    tiny, seen = _tiny_planner()
    seat = seen.seat
    assert tiny.plans is not None
    state = ENGINE.determinize(seen, Rng(0))
    options = _heuristic().plan_options(state, seat, tiny.plans.candidates)
    move, memory = tiny.choose_remembering(ENGINE, seen, Rng(8), None)
    assert len(seen.legal) > 1 and move in seen.legal
    assert tiny.rollout.committed(state, seat) in [None, *options[1:]]  # type: ignore[attr-defined]
    # The memory names the context (the hand) and the plan, as JSON would give them back.
    assert memory["context"] == list(state["players"][seat]["hand"])
    assert memory["plan"] in [None, *(list(option) for option in options[1:])]


def test_a_remembered_plan_is_followed_by_any_bot_object_and_not_searched_again() -> None:
    tiny, seen = _tiny_planner()
    _, memory = tiny.choose_remembering(ENGINE, seen, Rng(8), None)
    # Another process's bot (a fresh copy) given the stored memory keeps it: same plan, same memory.
    stored = orjson.loads(orjson.dumps(memory))
    other = copy.deepcopy(tiny)
    _, again = other.choose_remembering(ENGINE, seen, Rng(9), stored)
    assert again == memory
    # A memory of another context (another hand) is not followed: the plan is searched for this one.
    stale = {"context": [-1], "plan": [0, 0]}
    _, renewed = copy.deepcopy(tiny).choose_remembering(ENGINE, seen, Rng(8), stale)
    assert renewed == memory
