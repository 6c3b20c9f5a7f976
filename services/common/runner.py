"""Drive an engine in-process: the one place that enforces "only legal moves apply".

The rules service uses :class:`Match` around every request, and tests use it to
play whole games without any network.  It owns the engine state and the RNG state
and knows nothing about storage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import orjson

from services.common.engine import Bot, BotMemory, Engine, Event, GameConfig, IllegalMove, Move, Seen, State
from services.common.rng import Rng, RngState, Seed, new_rng

Canonical = Callable[[Move], bytes]


def json_key(move: Move) -> bytes:
    """A move's identity for comparison: its JSON with sorted keys."""
    return orjson.dumps(move, option=orjson.OPT_SORT_KEYS)


@dataclass
class Snapshot:
    """Everything needed to continue a game: engine state and RNG state.

    Treated as immutable once made (:meth:`Match.play` makes a new one), so its JSON is
    rendered at most once: the chain's state digest and the commit share the same bytes.
    """

    state: State
    rng: RngState
    _json: bytes | None = field(default=None, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        # Replacing the state or the RNG (tests and benchmarks do) makes the rendered JSON stale.
        object.__setattr__(self, name, value)
        if name in ("state", "rng"):
            object.__setattr__(self, "_json", None)

    def to_json(self) -> bytes:
        """Serialise for storage (once per snapshot)."""
        if self._json is None:
            self._json = orjson.dumps({"state": self.state, "rng": self.rng})
        return self._json

    @staticmethod
    def from_json(raw: bytes | str) -> Snapshot:
        """Inverse of :meth:`to_json`."""
        data = orjson.loads(raw)
        return Snapshot(state=data["state"], rng=data["rng"], _json=raw if isinstance(raw, bytes) else None)


@dataclass
class Match:
    """One game in memory: engine + snapshot, with legality enforced on every move."""

    engine: Engine
    snapshot: Snapshot
    canonical: Canonical = field(default=json_key)
    # Legal moves of the current snapshot by seat, each keyed by its JSON (see :meth:`legal_moves`);
    # may be shared with :class:`services.rules.positions.Positions` for the same position.
    legal: dict[int, dict[bytes, Move]] = field(default_factory=dict, repr=False, compare=False)
    legal_of: object = field(default=None, repr=False, compare=False)
    # Whether the state is never changed in place (the service's matches, made from stored snapshots):
    # only then are legal moves remembered and the snapshot's rendered JSON reused. Tests and tools
    # that edit ``match.state`` to set up a position get a fresh look at every call.
    trusted: bool = field(default=False, repr=False, compare=False)
    # Remembering bots' notes by seat (:class:`~services.common.engine.RememberingBot`): they live
    # with the match (the conductor stores them with the game), not in a bot or a process.
    bot_memory: dict[int, BotMemory] = field(default_factory=dict, repr=False, compare=False)
    # An untrusted match's last offer to a bot (:meth:`seen`): the state's JSON, the seat and its legal
    # moves by key, so :meth:`play` finds the bot's choice without listing the position's moves again.
    _offered: tuple[bytes, int, dict[bytes, Move]] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.legal_of is None:
            self.legal_of = self.state

    @classmethod
    def start(
        cls,
        engine: Engine,
        players: int,
        seed: int | Seed,
        options: Mapping[str, Any] | None = None,
        canonical: Canonical = json_key,
    ) -> Match:
        """Validate the options and set the game up from ``seed``.

        A :class:`Seed` starts the generator it names; a plain integer (tools, tests) starts PCG32.
        """
        merged = engine.validate_options(players, options or {})
        rng = new_rng(seed)
        state = engine.setup(GameConfig(players=players, options=merged), rng)
        return cls(engine=engine, snapshot=Snapshot(state=state, rng=rng.state), canonical=canonical)

    @property
    def state(self) -> State:
        """The current engine state (do not mutate)."""
        return self.snapshot.state

    def to_act(self) -> list[int]:
        """Seats that must decide now."""
        return self.engine.to_act(self.state)

    def legal_moves(self, seat: int) -> list[Move]:
        """The engine's legal moves of ``seat`` in this position, computed once per position."""
        return list(self._legal_by_key(seat).values())

    def keyed_legal_moves(self, seat: int) -> Mapping[bytes, Move]:
        """:meth:`legal_moves` by their identity (:func:`json_key`), as computed once per position:
        callers keeping something per move (the commit's listings) reuse the key, and change nothing."""
        return self._legal_by_key(seat)

    def _legal_by_key(self, seat: int) -> dict[bytes, Move]:
        if not self.trusted:
            return {json_key(move): move for move in self.engine.legal_moves(self.state, seat)}
        if self.legal_of is not self.state:  # the state was replaced: what is known is of another position
            self.legal, self.legal_of = {}, self.state
        known = self.legal.get(seat)
        if known is None:
            known = {json_key(move): move for move in self.engine.legal_moves(self.state, seat)}
            self.legal[seat] = known
        return known

    def find_legal(self, seat: int, move: Move) -> Move:
        """The engine's own legal move equal to ``move``, or raise :class:`IllegalMove`.

        Plain JSON equality is tried first because it is cheap and is what bots and
        engine-made moves hit; the (costlier) canonical form only settles moves
        spelled differently, e.g. by a client that printed every default.
        """
        if seat not in self.engine.to_act(self.state):
            raise self.engine.explain_illegal(self.state, seat, move)
        key = json_key(move)
        offered = self._take_offered(seat, key)
        if offered is not None:
            return offered
        legal_moves = self._legal_by_key(seat)
        found = legal_moves.get(key)
        if found is not None:
            return found
        if self.canonical is not json_key:
            wanted = self.canonical(move)
            for legal in legal_moves.values():
                if self.canonical(legal) == wanted:
                    return legal
        raise self.engine.explain_illegal(self.state, seat, move)

    def _take_offered(self, seat: int, key: bytes) -> Move | None:
        """The move with this key among those :meth:`seen` just offered ``seat`` (an untrusted match),
        if the position is the very one it offered them in (same JSON: tests edit states in place) and
        the move is as offered; a copy, as a fresh listing's would be.  ``None``: look it up afresh.
        The offer is used once."""
        offered, self._offered = self._offered, None
        if offered is None or self.trusted:
            return None
        position, offered_seat, moves = offered
        found = moves.get(key)
        if found is None or offered_seat != seat or json_key(found) != key or orjson.dumps(self.state) != position:
            return None
        return cast(Move, orjson.loads(orjson.dumps(found)))

    def play(self, seat: int, move: Move) -> list[Event]:
        """Apply one move if legal; on any refusal nothing changes."""
        legal = self.find_legal(seat, move)
        # A JSON round trip is a deep copy (several times faster than copy.deepcopy) and makes
        # an in-process match see exactly what the service sees after reloading a snapshot.
        rendered = self.snapshot.to_json() if self.trusted else orjson.dumps({"state": self.state})
        state = orjson.loads(rendered)["state"]
        rng = Rng.from_state(self.snapshot.rng)
        new_state, events = self.engine.apply(state, seat, legal, rng)
        self.snapshot = Snapshot(state=new_state, rng=rng.state)
        self.legal, self.legal_of = {}, new_state
        return events

    def bot_move(self, bot: Bot, seat: int, salt: int) -> Move:
        """Ask ``bot`` for a move for ``seat`` from what it may know; its randomness is derived, so replays agree."""
        rng = Rng.from_state(self.snapshot.rng).fork(salt * 7919 + seat)
        remembering = getattr(bot, "choose_remembering", None)
        if remembering is None:
            return bot.choose(self.engine, self.seen(seat), rng)
        move, memory = remembering(self.engine, self.seen(seat), rng, self.bot_memory.get(seat))
        if memory is None:
            self.bot_memory.pop(seat, None)
        else:
            self.bot_memory[seat] = memory
        return cast(Move, move)

    def seen(self, seat: int) -> Seen:
        """What ``seat`` may know now: its view and its legal moves (a bot never gets the state)."""
        keyed = self._legal_by_key(seat)
        if not self.trusted:  # listing them costs far more than the state's JSON (0.15-0.45 ms to 2-4 us)
            self._offered = (orjson.dumps(self.state), seat, keyed)
        return Seen(seat=seat, view=self.engine.view(self.state, seat), legal=list(keyed.values()))


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
