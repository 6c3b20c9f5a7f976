"""Drive an engine in-process: the one place that enforces "only legal moves apply".

The rules service uses :class:`Match` around every request, and tests use it to
play whole games without any network.  It owns the engine state and the RNG state
and knows nothing about storage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from services.common.engine import Bot, Engine, Event, GameConfig, IllegalMove, Move, State
from services.common.rng import Rng

Canonical = Callable[[Move], bytes]


def json_key(move: Move) -> bytes:
    """A move's identity for comparison: its JSON with sorted keys."""
    return orjson.dumps(move, option=orjson.OPT_SORT_KEYS)


@dataclass
class Snapshot:
    """Everything needed to continue a game: engine state and RNG state."""

    state: State
    rng: str

    def to_json(self) -> bytes:
        """Serialise for storage."""
        return orjson.dumps({"state": self.state, "rng": self.rng})

    @staticmethod
    def from_json(raw: bytes | str) -> Snapshot:
        """Inverse of :meth:`to_json`."""
        data = orjson.loads(raw)
        return Snapshot(state=data["state"], rng=data["rng"])


@dataclass
class Match:
    """One game in memory: engine + snapshot, with legality enforced on every move."""

    engine: Engine
    snapshot: Snapshot
    canonical: Canonical = field(default=json_key)

    @classmethod
    def start(
        cls,
        engine: Engine,
        players: int,
        seed: int,
        options: Mapping[str, Any] | None = None,
        canonical: Canonical = json_key,
    ) -> Match:
        """Validate the options and set the game up from ``seed``."""
        merged = engine.validate_options(players, options or {})
        rng = Rng(seed)
        state = engine.setup(GameConfig(players=players, options=merged), rng)
        return cls(engine=engine, snapshot=Snapshot(state=state, rng=rng.state), canonical=canonical)

    @property
    def state(self) -> State:
        """The current engine state (do not mutate)."""
        return self.snapshot.state

    def to_act(self) -> list[int]:
        """Seats that must decide now."""
        return self.engine.to_act(self.state)

    def find_legal(self, seat: int, move: Move) -> Move:
        """The engine's own legal move equal to ``move``, or raise :class:`IllegalMove`.

        Plain JSON equality is tried first because it is cheap and is what bots and
        engine-made moves hit; the (costlier) canonical form only settles moves
        spelled differently, e.g. by a client that printed every default.
        """
        if seat not in self.engine.to_act(self.state):
            raise self.engine.explain_illegal(self.state, seat, move)
        legal_moves = self.engine.legal_moves(self.state, seat)
        wanted = json_key(move)
        for legal in legal_moves:
            if json_key(legal) == wanted:
                return legal
        if self.canonical is not json_key:
            wanted = self.canonical(move)
            for legal in legal_moves:
                if self.canonical(legal) == wanted:
                    return legal
        raise self.engine.explain_illegal(self.state, seat, move)

    def play(self, seat: int, move: Move) -> list[Event]:
        """Apply one move if legal; on any refusal nothing changes."""
        legal = self.find_legal(seat, move)
        # A JSON round trip is a deep copy (several times faster than copy.deepcopy) and makes
        # an in-process match see exactly what the service sees after reloading a snapshot.
        state = orjson.loads(orjson.dumps(self.snapshot.state))
        rng = Rng.from_state(self.snapshot.rng)
        new_state, events = self.engine.apply(state, seat, legal, rng)
        self.snapshot = Snapshot(state=new_state, rng=rng.state)
        return events

    def bot_move(self, bot: Bot, seat: int, salt: int) -> Move:
        """Ask ``bot`` for a move for ``seat``; its randomness is derived, so replays agree."""
        rng = Rng.from_state(self.snapshot.rng).fork(salt * 7919 + seat)
        return bot.choose(self.engine, self.state, seat, rng)


def play_out(
    match: Match,
    bots: Mapping[int, Bot],
    max_moves: int = 100_000,
    after_move: Callable[[Match, int, Move, list[Event]], None] | None = None,
) -> int:
    """Let ``bots`` (by seat) play until the game ends; return the number of moves made.

    Raises ``RuntimeError`` if the game is not over after ``max_moves`` or if a seat
    that must act has no bot or no legal move.
    """
    moves = 0
    while not match.engine.is_over(match.state):
        if moves >= max_moves:
            raise RuntimeError(f"game not over after {max_moves} moves")
        seats = match.to_act()
        if not seats:
            raise RuntimeError("nobody is to act but the game is not over")
        seat = seats[0]
        move = match.bot_move(bots[seat], seat, moves)
        events = match.play(seat, move)
        moves += 1
        if after_move is not None:
            after_move(match, seat, move, events)
    return moves


def check_move_is_illegal(match: Match, seat: int, move: Move) -> IllegalMove:
    """Assert helper for tests: the move is refused and the snapshot is unchanged."""
    before = match.snapshot.to_json()
    try:
        match.play(seat, move)
    except IllegalMove as refusal:
        assert match.snapshot.to_json() == before
        return refusal
    raise AssertionError(f"move {move!r} was accepted")
