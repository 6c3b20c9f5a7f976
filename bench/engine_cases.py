"""Cases every game's benchmark shares: engine steps and whole games, played as the service plays them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bench.harness import Case
from services.bots.roster import bots_for
from services.common.engine import Engine
from services.common.rng import KIND_PCG32, Seed
from services.common.runner import Match, play_out


class Stepper:
    """One bot move per call through :class:`Match` (legality check, state copy, apply); a new game when one ends."""

    def __init__(
        self,
        engine: Engine,
        players: int,
        bot: str = "random",
        options: Mapping[str, Any] | None = None,
        generator: str = KIND_PCG32,
    ):
        self.engine = engine
        self.players = players
        self.bot = bots_for(engine)[bot]
        self.options = options
        self.generator = generator  # PCG32 unless told: the figures of earlier runs were measured with it
        self.seed = 0
        self.moves = 0
        self.match = Match.start(engine, players, Seed(self.seed, generator), options)

    def __call__(self) -> None:
        """Play one move, starting a fresh game when the current one is over."""
        if self.engine.is_over(self.match.state):
            self.seed += 1
            self.match = Match.start(self.engine, self.players, Seed(self.seed, self.generator), self.options)
        seat = self.match.to_act()[0]
        self.match.play(seat, self.match.bot_move(self.bot, seat, self.moves))
        self.moves += 1


def random_position(engine: Engine, players: int, moves: int, seed: int) -> tuple[Match, list[dict[str, Any]]]:
    """A game after up to ``moves`` random-bot moves (fewer if it ends), and the last move's events."""
    match = Match.start(engine, players, seed)
    bot = bots_for(engine)["random"]
    events: list[dict[str, Any]] = []
    for step in range(moves):
        if engine.is_over(match.state):
            break
        seat = match.to_act()[0]
        events = match.play(seat, match.bot_move(bot, seat, step))
    return match, events


def step_case(engine: Engine, players: int, bot: str = "random", options: Mapping[str, Any] | None = None) -> Case:
    """Engine steps per second at ``players`` seats."""
    return Case(f"{engine.game_type}-{bot}-step-{players}p", Stepper(engine, players, bot, options), unit="step")


def game_case(engine: Engine, players: int, bot: str = "random", options: Mapping[str, Any] | None = None) -> Case:
    """Whole games per second, every seat played by ``bot``, a new seed each game."""
    player = bots_for(engine)[bot]
    seeds = iter(range(1, 1 << 30))

    def game() -> int:
        match = Match.start(engine, players, next(seeds), options)
        return play_out(match, dict.fromkeys(range(players), player))

    return Case(f"{engine.game_type}-{bot}-game-{players}p", game, unit="game")
