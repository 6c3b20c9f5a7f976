"""Recompute a finished game from its replay and say exactly where it diverges.

The replay is the JSON the API serves at ``GET /v1/games/{id}/replay`` (the proto3 JSON
of ``chaiwala.v1.Replay``).  Verification needs nothing but the engines in this
repository: it checks, in order,

1. the seed commitment published at creation against the revealed server secret;
2. the effective seed against the one derived from the secret (server seeds only), for the
   generator the replay names (``generator``: the keyed ``blake2b`` stream, or ``pcg32`` for
   games from before it, whose replays may not name one);
3. the genesis hash over the header and the set-up snapshot;
4. for every log entry: its version, that its move was legal for its seat, the digest of
   the snapshot it produced, and its chain hash;
5. the head hash and the result.

The first failed check is reported with the entry (version) it concerns.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format

from services.common import protojson
from services.common.engine import IllegalMove, Move
from services.common.registry import engine_for, is_registered
from services.common.rng import KIND_PCG32, KINDS, Seed
from services.common.runner import Match
from services.fairness import chain, seeding
from services.games.lifecycle import Lifecycle, settled_result


@dataclass(frozen=True)
class Divergence:
    """The first check that failed: the entry it concerns (0 = header and setup) and what."""

    version: int
    problem: str

    def __str__(self) -> str:
        where = "header" if self.version == 0 else f"entry {self.version}"
        return f"{where}: {self.problem}"


@dataclass(frozen=True)
class Verdict:
    """The outcome of verifying one replay."""

    game_id: str
    entries: int
    divergence: Divergence | None = None

    @property
    def ok(self) -> bool:
        """Whether every check passed."""
        return self.divergence is None


class _Diverged(Exception):
    def __init__(self, version: int, problem: str) -> None:
        super().__init__(problem)
        self.divergence = Divergence(version, problem)


def _require(condition: bool, version: int, problem: str) -> None:
    if not condition:
        raise _Diverged(version, problem)


def _field(replay: dict[str, Any], name: str) -> Any:
    value = replay.get(name)
    _require(value not in (None, ""), 0, f"the replay has no {name!r}")
    return value


def _options(game_type: str, packed: dict[str, Any]) -> dict[str, Any]:
    """The options as the engine took them (absent fields take the engine's defaults)."""
    fields = {key: value for key, value in packed.items() if key != "@type"}
    message = protojson.to_message(game_type, "Options", fields)
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def _check_seed(replay: dict[str, Any]) -> Seed:
    """Check the commitment and the seed's derivation; return the effective seed and its generator."""
    secret_hex = _field(replay, "server_secret")
    try:
        secret = bytes.fromhex(secret_hex)
    except (TypeError, ValueError):
        raise _Diverged(0, "server_secret is not hex") from None
    _require(
        seeding.seed_commitment(secret) == replay.get("seed_commitment"),
        0,
        "the seed commitment does not match the revealed server secret",
    )
    seed = _revealed_seed(replay)
    if replay.get("seed_source", seeding.SOURCE_SERVER) == seeding.SOURCE_SERVER:
        contributions = seeding.contributions(replay.get("client_seed", ""))
        derived = seeding.derive_seed(secret, replay["game_id"], contributions, seed.generator)
        _require(derived == seed, 0, "the seed is not the one derived from the server secret")
    return seed


def _revealed_seed(replay: dict[str, Any]) -> Seed:
    """The replay's seed: ``seed_hex`` (all 256 bits) or, in older replays, the integer ``seed``.

    A replay that names no generator is from before the keyed one: PCG32.
    """
    generator = replay.get("generator") or KIND_PCG32
    _require(generator in KINDS, 0, f"unknown generator {generator!r}")
    text = replay.get("seed_hex")
    if text:
        _require(isinstance(text, str) and re.fullmatch(seeding.SEED_HEX_PATTERN, text) is not None, 0,
                 "seed_hex is not 1 to 64 hex digits")  # fmt: skip
        return Seed(int(text, 16), generator)
    value = _field(replay, "seed")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise _Diverged(0, "the seed is not an integer") from None
    _require(0 <= number < 1 << 64, 0, "the seed is not a 64-bit integer")
    return Seed(number, generator)


def _start(replay: dict[str, Any], seed: Seed) -> tuple[Match, str]:
    """Set the game up from the replay's header; return the match and the genesis hash."""
    game_type = replay["game_type"]
    engine = engine_for(game_type)
    protojson.load_game_protos(game_type)
    options = _options(game_type, replay.get("options") or {})
    players = replay.get("players") or []
    try:
        match = Match.start(engine, len(players), seed, options, canonical=_canonical(game_type))
    except Exception as error:  # a tampered header can make setup refuse
        raise _Diverged(0, f"the game cannot be set up from the header: {error}") from None
    genesis = chain.genesis(
        replay["game_id"],
        game_type,
        replay.get("seed_commitment", ""),
        chain.message_digest(game_type, "Options", options),
        players,
        chain.state_digest(match),
    )
    return match, genesis


def _canonical(game_type: str) -> Callable[[Move], bytes]:
    def canonical(move: Move) -> bytes:
        return protojson.identity(game_type, "Move", move)

    return canonical


def _replay_entry(
    match: Match, game_type: str, previous: str, entry: dict[str, Any], expected: int, resigned: list[int]
) -> str:
    """Apply one log entry and check it; return its hash.  A ``resign`` entry adds to ``resigned``."""
    version = int(entry.get("version", 0))
    _require(version == expected, expected, f"expected version {expected}, found {version}")
    seat = int(entry.get("seat", 0))
    kind = entry.get("kind", "")
    move = {k: v for k, v in (entry.get("move") or {}).items() if k != "@type"}
    move_digest = ""
    if kind == "resign":
        resigned.append(seat)
    if kind == "":
        try:
            match.play(seat, move)
        except IllegalMove as refusal:
            raise _Diverged(version, f"the move of seat {seat} is not legal: {refusal.message}") from None
        except protojson.BadMessage as error:
            raise _Diverged(version, f"the move is malformed: {error}") from None
        move_digest = chain.message_digest(game_type, "Move", move)
    state_digest = chain.state_digest(match)
    _require(entry.get("state_digest") == state_digest, version, "the state digest differs from the recomputed state")
    entry_hash = chain.link(previous, version, seat, kind, move_digest, state_digest)
    _require(entry.get("hash") == entry_hash, version, "the chain hash differs from the recomputed one")
    return entry_hash


def _check_result(match: Match, replay: dict[str, Any], version: int, resigned: list[int]) -> None:
    if replay.get("status") == "aborted":
        _require(replay.get("result") is None, version, "an aborted game states a result")
        return
    seats = len(replay.get("players") or [])
    result = settled_result(match.engine.result(match.state), seats, Lifecycle(resigned=resigned))
    stated: dict[str, Any] | None = replay.get("result")
    if result is None:
        _require(stated is None, version, "the replay states a result but the game is not over")
        return
    _require(stated is not None, version, "the game is over but the replay states no result")
    assert stated is not None
    recomputed: dict[str, list[Any]] = {"scores": result.scores, "ranking": result.ranking, "winners": result.winners}
    for key, value in recomputed.items():
        _require(list(stated.get(key, [])) == list(value), version, f"the result's {key} differ from the recomputed")


def verify_replay(replay: dict[str, Any]) -> Verdict:
    """Verify a replay (the API's JSON); the verdict names the first divergence, if any."""
    game_id = str(replay.get("game_id", ""))
    entries = replay.get("moves") or []
    try:
        _require(is_registered(replay.get("game_type")), 0, f"unknown game type {replay.get('game_type')!r}")
        _field(replay, "game_id")
        match, head = _start(replay, _check_seed(replay))
        _require(replay.get("genesis_hash") == head, 0, "the genesis hash differs from the header and set-up")
        resigned: list[int] = []
        for expected, entry in enumerate(entries, start=1):
            head = _replay_entry(match, replay["game_type"], head, entry, expected, resigned)
        _require(replay.get("log_head") == head, len(entries), "the log head differs from the last entry's hash")
        _check_result(match, replay, len(entries), resigned)
    except _Diverged as failure:
        return Verdict(game_id, len(entries), failure.divergence)
    return Verdict(game_id, len(entries))
