"""What the rules service says about a game besides its state: sentences, event messages, the game.

One per rules service (:class:`~services.rules.gameplay.GamePlay` holds it): it packs engine
dicts into the game's proto messages, renders events as one viewer may see them, with their
sentences, and builds the ``Game`` answer.  Words never fail a call: a missing template is
logged once and answered with an empty sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson
from google.protobuf import any_pb2

from chaiwala.v1 import rules_pb2
from services.common import dictrender, protojson, sentences
from services.common.engine import Engine, Move
from services.common.logs import get_logger
from services.common.runner import Match
from services.games.lifecycle import Lifecycle
from services.games.records import GameMeta, LogEntry
from services.lobby import seats as lobby_seats
from services.rules import answers

log = get_logger("service")

# (players' names by seat, language): what a sentence needs besides the event.
Words = tuple[list[str], str]
NO_WORDS: Words = ([], sentences.DEFAULT_LANGUAGE)
# Priced legal-move sentences kept per narrator (every seat's moves are worded again after each commit).
COSTED_CAPACITY = 4096


class Narrator:
    """Messages and sentences of one game type."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.game_type = engine.game_type
        self.sentences = sentences.sentences_for(engine.game_type)
        self.text_errors: set[str] = set()
        self._costed: dict[tuple[Any, ...], str] = {}

    def pack(self, name: str, data: dict[str, Any]) -> any_pb2.Any:
        """An engine dict as the game's proto message ``name`` (``Move``, ``State``, ``Event``, ``Options``)."""
        return protojson.pack_engine(self.game_type, name, data)

    def say(self, render: Callable[..., Any], *args: Any) -> str:
        """A sentence, or "" (logged once per problem) when a template is missing or fails."""
        try:
            return str(render(*args))
        except sentences.TextError as error:
            if str(error) not in self.text_errors:
                self.text_errors.add(str(error))
                log.warning("text_missing", game_type=self.game_type, error=str(error))
            return ""

    def move_text(self, move: Move, seat: int, names: list[str], language: str) -> str:
        """The sentence of a legal move, as its own seat reads it."""
        return self.say(self.sentences.move_text, move, seat, names, language)

    def costed_text(self, move: Move, seat: int, costs: list[dict[str, Any]], names: list[str], language: str) -> str:
        """The sentence of a legal move followed by what it costs, so the price is read before the click
        (kept: the same moves are priced for the same seats position after position)."""
        try:  # the JSON tells 1 from True, as the words do
            key = (orjson.dumps(move, option=orjson.OPT_SORT_KEYS), orjson.dumps(costs), seat, tuple(names), language)
        except TypeError:
            return self._costed_text(move, seat, costs, names, language)
        text = self._costed.get(key)
        if text is None:
            if len(self._costed) >= COSTED_CAPACITY:
                self._costed.clear()
            text = self._costed[key] = self._costed_text(move, seat, costs, names, language)
        return text

    def _costed_text(self, move: Move, seat: int, costs: list[dict[str, Any]], names: list[str], language: str) -> str:
        text = self.move_text(move, seat, names, language)
        price = self.say(self.sentences.cost_text, costs, language)
        return f"{text} {price}".strip() if price else text

    def game_message(self, meta: GameMeta, match: Match | None, seat: int | None) -> rules_pb2.Game:
        """The ``Game`` answer as ``seat`` (``None``: a spectator) may see it."""
        lifecycle = Lifecycle.from_dict(meta.lifecycle)
        game = rules_pb2.Game(
            game_id=meta.game_id,
            game_type=self.game_type,
            status=meta.status,
            version=meta.version,
            to_act=match.to_act() if match is not None and meta.status == "active" else [],
            seats=lobby_seats.seat_messages(meta.players, lifecycle.resigned),
            visibility=meta.visibility,
            seed_commitment=meta.fairness.seed_commitment,
            seed_source=meta.fairness.seed_source,
            log_head=meta.log_head,
            on_timeout=lifecycle.on_timeout,
            timeouts_to_resign=lifecycle.timeouts_to_resign,
        )
        if match is not None:
            game.state.CopyFrom(self.pack("State", self.engine.view(match.state, seat)))
        if lifecycle.clock is not None:
            game.clock.CopyFrom(answers.clock_message(lifecycle.clock, meta.status))
            game.time_control.CopyFrom(answers.time_control_message(lifecycle.clock))
        result = answers.result_message(meta.result)
        if result is not None:
            game.result.CopyFrom(result)
        if seat is not None:
            game.viewer_seat = seat
        return game

    def entry_messages(
        self, entry: LogEntry, viewer: int | None, skip_to: int = -1, words: Words = NO_WORDS
    ) -> list[rules_pb2.GameEvent]:
        """The events of one log entry as ``viewer`` may see them (lifecycle entries are public)."""
        return [self.event_message(fields) for fields in self.entry_fields(entry, viewer, skip_to, words)]

    def entry_json(self, entry: LogEntry, viewer: int | None, words: Words = NO_WORDS) -> list[dict[str, Any]]:
        """:meth:`entry_messages` as REST prints them, printed from the engine's dicts (no message built):
        byte for byte what ``protojson.to_dict`` of each message gives (``tests/rules/test_printed_events.py``)."""
        return [self.event_json(fields) for fields in self.entry_fields(entry, viewer, words=words)]

    def entry_fields(
        self, entry: LogEntry, viewer: int | None, skip_to: int = -1, words: Words = NO_WORDS
    ) -> list[dict[str, Any]]:
        """The ``GameEvent`` fields of one log entry's events as ``viewer`` may see them, the game's
        event as the engine's (redacted) dict: what :meth:`event_message` packs or :meth:`event_json` prints."""
        if not entry.kind:
            found = self.event_fields(
                entry.version, entry.seat, entry.events, viewer, skip_to, entry_hash=entry.hash, words=words
            )
            return [_with_turn(fields, entry, viewer) for fields in found]
        if skip_to >= 0:
            return []
        payload = {} if entry.seat is None else {"seat": entry.seat}
        text = self.say(self.sentences.event_text, {entry.kind: payload}, viewer, words[0], entry.seat, words[1])
        fields: dict[str, Any] = {"version": entry.version, "index": 0, "kind": entry.kind, "hash": entry.hash,
                                  "text": text}  # fmt: skip
        if entry.seat is not None:
            fields["seat"] = entry.seat
        return [_with_turn(fields, entry, viewer)]

    def event_fields(
        self,
        version: int,
        seat_of_move: int | None,
        events: Sequence[dict[str, Any]],
        viewer: int | None,
        skip_to: int = -1,
        entry_hash: str = "",
        words: Words = NO_WORDS,
    ) -> list[dict[str, Any]]:
        """The ``GameEvent`` fields of one version's events as ``viewer`` may see them, past index
        ``skip_to``, the game's event as the engine's dict (:meth:`event_message` packs them)."""
        out = []
        for index, event in enumerate(events):
            if index <= skip_to:
                continue
            visible = self.engine.event_view(event, viewer)
            if visible is None:
                continue
            text = self.say(self.sentences.event_text, visible, viewer, words[0], seat_of_move, words[1])
            fields = {"version": version, "index": index, "event": visible, "text": text, "hash": entry_hash}
            if seat_of_move is not None:
                fields["seat"] = seat_of_move
            out.append(fields)
        return out

    def _packed(self, fields: dict[str, Any]) -> dict[str, Any]:
        """``fields`` with the game's event packed: a ``GameEvent``'s keyword arguments."""
        if "event" not in fields:
            return fields
        return {**fields, "event": self.pack("Event", fields["event"])}

    def event_message(self, fields: dict[str, Any]) -> rules_pb2.GameEvent:
        """A ``GameEvent`` from :meth:`entry_fields`' fields, the game's event packed."""
        return rules_pb2.GameEvent(**self._packed(fields))

    def add_event(self, events: Any, fields: dict[str, Any]) -> None:
        """:meth:`event_message` of ``fields`` built in place at the end of ``events`` (a repeated
        ``GameEvent`` field): no message built apart and copied in."""
        events.add(**self._packed(fields))

    def event_json(self, fields: dict[str, Any]) -> dict[str, Any]:
        """A ``GameEvent`` from :meth:`entry_fields`' fields as REST prints it, without building it."""
        printed = dict(fields)
        if "event" in fields:
            printed["event"] = dictrender.Printed(dictrender.payload(self.game_type, "Event", fields["event"]))
        try:
            return dictrender.message(rules_pb2.GameEvent.DESCRIPTOR, printed)
        except dictrender.Unplanned:  # not expected (our own fields), but never guessed
            return protojson.to_dict(self.event_message(fields))


def _with_turn(fields: dict[str, Any], entry: LogEntry, viewer: int | None) -> dict[str, Any]:
    """The game after the event's entry (public: every viewer may see whose turn it is), and
    whether it is now the viewer's turn; entries stored before they carried it say nothing."""
    fields["status"] = entry.status
    if entry.to_act is not None:
        fields["to_act"] = list(entry.to_act)
        fields["your_turn"] = viewer is not None and viewer in entry.to_act
    return fields
