"""The heuristic bot (filled in below)."""

from __future__ import annotations

from services.common.engine import Engine, Move, RandomBot, State
from services.common.rng import Rng


class HeuristicBot:
    """Placeholder until the scoring bot lands: plays randomly."""

    def choose(self, engine: Engine, state: State, seat: int, rng: Rng) -> Move:
        """A legal move."""
        return RandomBot().choose(engine, state, seat, rng)
