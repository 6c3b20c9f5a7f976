"""Bots: the heuristic collector ships sensibly and walks towards tiles it can use."""

from __future__ import annotations

from typing import Any

from services.common.engine import Engine, Move, State
from services.common.rng import Rng


class HeuristicBot:
    """Placeholder heuristic: picks the first legal move."""

    def choose(self, engine: Engine, state: State, seat: int, rng: Rng) -> Move:
        """A legal move."""
        moves: list[dict[str, Any]] = engine.legal_moves(state, seat)
        return moves[0]
