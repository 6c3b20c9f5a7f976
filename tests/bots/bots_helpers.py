"""Per game: seeded positions, a test-side perturbation of what a seat cannot see, and where hidden parts live.

The perturbations are written here, independently of the engines' ``determinize``: each builds a
second state that differs from the first only in what ``seat`` cannot see (other seats' hidden
holdings exchanged with the unseen pool, unseen deck orders reshuffled).
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from services.alubari.content import CONTRACTS
from services.common.engine import Engine, Move, RandomBot, Seen, State
from services.common.registry import engine_for
from services.common.rng import Rng
from services.common.runner import Match, json_key
from services.india_rails.content import EVENT_CARDS

# ``make bots-fair`` sets this to sweep many more positions than ``make test`` does.
SWEEP = int(os.environ.get("CHAIWALA_BOTS_SWEEP", "1"))

Perturb = Callable[[State, int, Rng], State]


@dataclass(frozen=True)
class Game:
    """What the fairness tests need to know of one game."""

    game_type: str
    counts: tuple[int, ...]
    perturb: Perturb
    # State paths (``/``-joined keys and indices) a determinized state may differ in from the real one.
    hidden: tuple[str, ...] = ()
    # Whether the engine samples hidden parts (``Engine.determinize``) for look-ahead bots.
    determinizes: bool = True

    @property
    def engine(self) -> Engine:
        """The game's shared engine."""
        return engine_for(self.game_type)


def seen_of(engine: Engine, state: State, seat: int) -> Seen:
    """What ``seat`` may know of ``state``, built without any reference to the state itself."""
    return Seen(seat=seat, view=engine.view(state, seat), legal=engine.legal_moves(state, seat))


def legal_keys(moves: list[Move]) -> set[bytes]:
    """A list of moves as a canonical set."""
    return {json_key(move) for move in moves}


def positions(game: Game, players: int, seed: int, stops: int) -> Iterator[tuple[Match, int]]:
    """Positions of one random game (seeded), ``stops`` of them spread over the whole game, with the seat to act."""
    engine = game.engine
    match = Match.start(engine, players, seed)
    rng = Rng(seed * 31 + players)
    bot = RandomBot()
    moves = 0
    every = 1 + rng.randbelow(60)
    while not engine.is_over(match.state) and stops > 0:
        seat = match.to_act()[0]
        if moves % every == 0:
            stops -= 1
            yield match, seat
            every = 1 + rng.randbelow(120)
        match.play(seat, match.bot_move(bot, seat, moves))
        moves += 1


def differing_paths(a: Any, b: Any, path: str = "") -> Iterator[str]:
    """Every leaf path where ``a`` and ``b`` differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                if a.get(key, 0) != 0 or b.get(key, 0) != 0:  # a sparse count map may leave zeros out
                    yield f"{path}/{key}"
            else:
                yield from differing_paths(a[key], b[key], f"{path}/{key}")
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from differing_paths(x, y, f"{path}/{index}")
        return
    if a != b:
        yield path


def unexplained(game: Game, real: State, sampled: State, seat: int) -> list[str]:
    """Paths where ``sampled`` differs from ``real`` that are not hidden from ``seat``."""
    patterns = [re.compile(p.replace("{seat}", str(seat))) for p in game.hidden]
    return [p for p in differing_paths(real, sampled) if not any(pattern.fullmatch(p) for pattern in patterns)]


def json_copy(state: State) -> State:
    """A deep copy the way the framework makes one."""
    copied: State = orjson.loads(orjson.dumps(state))
    return copied


# ---- Darjeeling ----------------------------------------------------------------------------


def perturb_darjeeling(state: State, seat: int, rng: Rng) -> State:
    """Other screens' tea and action tiles exchanged with the bag and the supply (played tiles stay put)."""
    other = copy.deepcopy(state)
    if other["phase"] == "GAME_OVER":
        return other
    others = [s for s in range(other["players"]) if s != seat]
    pool = list(other["bag"]) + [t for s in others for t in other["seats"][s]["tiles"]]
    rng.shuffle(pool)
    for s in others:
        count = len(other["seats"][s]["tiles"])
        other["seats"][s]["tiles"], pool = pool[:count], pool[count:]
    other["bag"] = pool
    played = other["shipment"]["played_tiles"] if other["shipment"] else []
    actions = [t for t in other["action_supply"] if t not in played]
    actions += [t for s in others for t in other["seats"][s]["actions"]]
    rng.shuffle(actions)
    for s in others:
        count = len(other["seats"][s]["actions"])
        other["seats"][s]["actions"], actions = actions[:count], actions[count:]
    other["action_supply"] = sorted(actions + played)
    return other


DARJEELING = Game(
    game_type="darjeeling",
    counts=(2, 3, 4, 5),
    perturb=perturb_darjeeling,
    hidden=(
        r"/bag(/\d+)?",
        r"/action_supply(/\d+)?",
        r"/seats/(?!{seat}/)\d+/(tiles|actions)(/\d+)?",
        # The seat's own tiles: the view lists them sorted, the engine in the order they were taken.
        r"/seats/{seat}/tiles/\d+",
        r"/shipment/played_tiles/\d+",
        # Figures of the loading that only the ship_loaded event reports.
        r"/shipment/loading/(returned/\d+|from_supply)",
    ),
)


# ---- India Rails ---------------------------------------------------------------------------


def perturb_india_rails(state: State, seat: int, rng: Rng) -> State:
    """Other players' hidden cash changed; deck, discard pile and face-down removed cards exchanged."""
    other = copy.deepcopy(state)
    if not other["cash_public"]:
        for s, player in enumerate(other["players"]):
            if s != seat:
                player["cash"] += 1 + rng.randbelow(40)
    taxes = {c for c, spec in EVENT_CARDS.items() if spec["kind"] == "tax"}
    known = [c for c in other["removed"] if other["options"]["fast_game_no_tax"] and c in taxes]
    pool = other["deck"] + other["discard"] + [c for c in other["removed"] if c not in known]
    rng.shuffle(pool)
    decks, discards = len(other["deck"]), len(other["discard"])
    other["deck"], other["discard"] = pool[:decks], pool[decks : decks + discards]
    other["removed"] = known + pool[decks + discards :]
    return other


INDIA_RAILS = Game(
    game_type="india_rails",
    counts=(2, 3, 4, 5, 6),
    perturb=perturb_india_rails,
    hidden=(
        r"/players/(?!{seat}/)\d+/cash",
        r"/(deck|discard|removed)(/\d+)?",
        r"/game_key",
    ),
)


# ---- Tea & Rum -----------------------------------------------------------------------------


def perturb_tea_rum(state: State, seat: int, rng: Rng) -> State:
    """Decks, automa bag and face-down victory cards reshuffled; closed chests and secret exchanges changed."""
    other = copy.deepcopy(state)
    if other["phase"] == "over":
        return other
    for key in ("captain_deck", "contract_deck", "victory_hidden"):
        rng.shuffle(other[key])
    rng.shuffle(other["automa"]["bag"])
    for player in other["players"]:
        if player["seat"] == seat:
            continue
        if player["chest"]:
            player["blue"] += 1 + rng.randbelow(4)
            player["red"] += rng.randbelow(4)
        if other["phase"] == "exchange" and player["money"] >= 10:
            player["money"] -= 10
            player["red"] += 1
            player["exchanged"]["red"] += 1
    return other


TEA_RUM = Game(
    game_type="tea_rum",
    counts=(2, 3, 4),
    perturb=perturb_tea_rum,
    hidden=(
        r"/players/(?!{seat}/)\d+/(blue|red|money|exchange_done|exchanged/(blue|red))",
        # Another player's queue: not in the view (only the awaited decision and its length are).
        r"/players/(?!{seat}/)\d+/pending(/.*)?",
        r"/(captain_deck|contract_deck|victory_hidden)(/\d+)?",
        r"/automa/bag(/\d+)?",
    ),
)


# ---- Alubari -------------------------------------------------------------------------------


def perturb_alubari(state: State, seat: int, rng: Rng) -> State:
    """The contract deck reshuffled under a top card of the same (public) weather.

    That is all a seat cannot see: the bag's contents are public (every cube goes in and comes out
    in view, so the table can count them), and so are the discard pile and every holding.
    """
    other = copy.deepcopy(state)
    deck = other["deck"]
    if deck:
        weather = CONTRACTS[deck[-1]]["weather"]
        rest = deck[:-1]
        rng.shuffle(rest)
        same = [i for i, card in enumerate(rest) if CONTRACTS[card]["weather"] == weather]
        if same:
            i = same[rng.randbelow(len(same))]
            rest[i], deck[-1] = deck[-1], rest[i]
        other["deck"] = [*rest, deck[-1]]
    return other


ALUBARI = Game(game_type="alubari", counts=(1, 2, 3, 4, 5), perturb=perturb_alubari, hidden=(r"/deck(/\d+)?",))

GAMES = {game.game_type: game for game in (DARJEELING, TEA_RUM, INDIA_RAILS, ALUBARI)}
