"""The lean move path: a position is parsed and its legal moves computed once, sentences are
kept, a snapshot is rendered to JSON once, and none of it can serve a stale position.

Real engines throughout; the counting engine only counts the real Darjeeling engine's calls.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from pydantic import ValidationError

from services.common.engine import Move, State
from services.common.runner import Match, json_key
from services.common.sentences import Sentences
from services.common.settings import ServiceSettings
from services.darjeeling.engine import DarjeelingEngine
from services.games.records import GameMeta
from services.rules.positions import Positions


class CountingEngine(DarjeelingEngine):
    """The Darjeeling engine, counting how often legal moves are computed."""

    listings = 0

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """The real legal moves, counted."""
        self.listings += 1
        return super().legal_moves(state, seat)


def _meta(version: int, head: str) -> GameMeta:
    return GameMeta("darjeeling-" + "0" * 24, "darjeeling", 1, {}, [], [], "active", version, None, log_head=head)


def _started(engine: CountingEngine) -> Match:
    return Match.start(engine, 2, seed=5)


def test_listing_then_submitting_computes_the_legal_moves_once() -> None:
    engine = CountingEngine()
    positions = Positions(engine, json_key)
    snapshot = _started(engine).snapshot.to_json()
    listing = positions.match(_meta(0, "h0"), snapshot)  # GET legal-moves
    seat = listing.to_act()[0]
    moves = listing.legal_moves(seat)
    submitting = positions.match(_meta(0, "h0"), snapshot)  # POST moves, same position
    submitting.play(seat, moves[0])
    assert engine.listings == 1
    assert submitting.snapshot is not listing.snapshot  # playing made a new snapshot, the filed one is intact
    assert positions.match(_meta(0, "h0"), snapshot).snapshot.to_json() == snapshot


def test_a_committed_position_is_filed_under_its_new_name_and_needs_no_parse() -> None:
    engine = CountingEngine()
    positions = Positions(engine, json_key)
    match = _started(engine)
    seat = match.to_act()[0]
    match.play(seat, match.legal_moves(seat)[0])
    positions.remember(_meta(1, "h1"), match)
    found = positions.match(_meta(1, "h1"), b"not json: must not be parsed")
    assert found.snapshot is match.snapshot


def test_another_version_or_head_or_a_waiting_game_is_never_served_from_the_cache() -> None:
    engine = CountingEngine()
    positions = Positions(engine, json_key)
    first = _started(engine).snapshot.to_json()
    other = Match.start(engine, 2, seed=6).snapshot.to_json()
    positions.match(_meta(0, "h0"), first)
    assert positions.match(_meta(0, "h0-other"), other).snapshot.to_json() == other
    assert positions.match(_meta(1, "h0"), other).snapshot.to_json() == other
    assert positions.match(_meta(0, "h0"), first).snapshot.to_json() == first  # an older load: parsed, not filed
    assert positions.kept(_meta(0, "").game_id)[0].version == 1  # type: ignore[index]
    positions.match(_meta(2, ""), first)  # a game waiting for players has no head: not filed
    assert len(positions) == 1  # one position per game: its last


def test_the_cache_is_bounded_by_games() -> None:
    engine = CountingEngine()
    positions = Positions(engine, json_key, capacity=2)
    snapshot = _started(engine).snapshot.to_json()
    for number in range(5):
        meta = _meta(0, "h")
        positions.match(GameMeta(f"darjeeling-{number:024d}", *_fields(meta)), snapshot)
    assert len(positions) == 2
    assert positions.kept(f"darjeeling-{4:024d}") is not None
    assert positions.kept(f"darjeeling-{0:024d}") is None  # the least recently used went first


def test_a_refused_game_loads_first_until_a_load_finds_its_position_current() -> None:
    engine = CountingEngine()
    positions = Positions(engine, json_key)
    snapshot = _started(engine).snapshot.to_json()
    game_id = _meta(0, "h0").game_id
    positions.match(_meta(0, "h0"), snapshot)
    assert positions.kept(game_id) is not None
    positions.refused(game_id)
    assert positions.kept(game_id) is None
    positions.match(_meta(1, "h1"), snapshot)  # someone else's position: still not ours
    assert positions.kept(game_id) is None
    positions.match(_meta(1, "h1"), snapshot)  # found current again: tried first again
    assert positions.kept(game_id) is not None


def test_no_capacity_keeps_nothing() -> None:
    engine = CountingEngine()
    positions = Positions(engine, json_key, capacity=0)
    positions.match(_meta(0, "h0"), _started(engine).snapshot.to_json())
    assert len(positions) == 0


def _fields(meta: GameMeta) -> tuple[Any, ...]:
    return (meta.game_type, meta.seed, meta.options, meta.players, meta.token_hashes, meta.status, meta.version,
            meta.result, meta.fairness, meta.log_head)  # fmt: skip


def test_replacing_a_matchs_state_forgets_its_legal_moves_and_its_json() -> None:
    engine = CountingEngine()
    match = _started(engine)
    match.legal_moves(match.to_act()[0])
    rendered = match.snapshot.to_json()
    later = Match.start(engine, 2, seed=9)
    seat = later.to_act()[0]
    match.snapshot.state = later.state  # what tests and benchmarks do to set a position up
    assert match.snapshot.to_json() != rendered
    assert orjson.loads(match.snapshot.to_json())["state"] == later.state
    assert match.legal_moves(seat) == engine.legal_moves(later.state, seat)
    assert engine.listings == 3  # the replaced state's moves were computed afresh, not served from the memo


def test_a_sentence_is_rendered_once_and_its_words_follow_the_names() -> None:
    sentences = Sentences("darjeeling")
    engine = DarjeelingEngine()
    match = _started(engine)  # type: ignore[arg-type]
    seat = match.to_act()[0]
    move: dict[str, Any] = match.legal_moves(seat)[0]
    first = sentences.move_text(move, seat, ["Asha", "Bo"])
    assert sentences.move_text(move, seat, ["Asha", "Bo"]) == first
    assert len(sentences._said) == 1
    sentences.move_text(move, seat, ["Chandra", "Dev"])
    assert len(sentences._said) == 2


def test_the_kept_positions_bound_is_a_service_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAIWALA_KEPT_POSITIONS", "7")
    assert ServiceSettings().kept_positions == 7
    monkeypatch.setenv("CHAIWALA_KEPT_POSITIONS", "-1")  # refused at start-up, with the setting named
    with pytest.raises(ValidationError, match="kept_positions"):
        ServiceSettings()
