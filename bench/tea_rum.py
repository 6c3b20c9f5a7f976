"""Tea & Rum benchmarks: engine steps per second and whole random games per second."""

from __future__ import annotations

from collections.abc import Callable

from bench.harness import Case
from services.common.engine import RandomBot
from services.common.runner import Match, play_out
from services.tea_rum.engine import TeaRumEngine

ENGINE = TeaRumEngine()


class _Stepper:
    """Plays one random move per call (legality check, state copy and apply, as the service does)."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.seed = 0
        self.moves = 0
        self.match = Match.start(ENGINE, players, self.seed)
        self.bot = RandomBot()

    def __call__(self) -> None:
        if ENGINE.is_over(self.match.state):
            self.seed += 1
            self.match = Match.start(ENGINE, self.players, self.seed)
        seat = self.match.to_act()[0]
        self.match.play(seat, self.match.bot_move(self.bot, seat, self.moves))
        self.moves += 1


def _full_game(players: int) -> Callable[[], int]:
    counter = {"seed": 0}

    def run() -> int:
        counter["seed"] += 1
        match = Match.start(ENGINE, players, counter["seed"])
        return play_out(match, {s: RandomBot() for s in range(players)})

    return run


def cases() -> list[Case]:
    """Steps and whole random games at 2 (automa), 3 and 4 players."""
    out = []
    for players in (2, 3, 4):
        out.append(Case(name=f"tea_rum-step-{players}p", run=_Stepper(players), unit="step"))
        out.append(Case(name=f"tea_rum-random-game-{players}p", run=_full_game(players), unit="game"))
    return out
