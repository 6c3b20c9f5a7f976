"""From outbox facts to notices, and from a player's notices to the messages pushed (pure).

Facts used: ``turn.started`` (``your_turn``), ``turn.reminder`` (``deadline_near``),
``seat.invited`` (``invited``), ``match.found`` (``match_found``) and ``game.finished`` /
``game.aborted`` (``game_finished``), each for the seats whose player has an identity
(``external_id``) and is no bot: the one seat a turn or an invitation names, every such seat of
the other facts.

A payload carries only what every seat of the game may see: its id and type, the seat, the
deadline, the players' names, the status of an ended game and a link to the table.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import orjson

from services.common.registry import UnknownGameType, engine_for
from services.notify.model import Message, Notice
from services.outbox import OutboxEvent
from services.outbox.events import (
    GAME_ABORTED,
    GAME_FINISHED,
    MATCH_FOUND,
    SEAT_INVITED,
    TURN_REMINDER,
    TURN_STARTED,
)

KINDS = {TURN_STARTED: "your_turn", TURN_REMINDER: "deadline_near", GAME_FINISHED: "game_finished",
         GAME_ABORTED: "game_finished", SEAT_INVITED: "invited", MATCH_FOUND: "match_found"}  # fmt: skip
_ONE_SEAT = (TURN_STARTED, TURN_REMINDER, SEAT_INVITED)  # facts naming one seat (``seat``, ``external_id``)
_WORDS = {
    "en": {
        "your_turn": ("Your turn", "Your turn in {game} against {others}.", "Your turn in {count} games"),
        "deadline_near": ("Time is running out", "Your clock in {game} runs out soon.",
                          "Your clock runs out soon in {count} games"),
        "game_finished": ("Game over", "Your game of {game} has ended.", "{count} of your games have ended"),
        "invited": ("You are invited", "You are invited to a game of {game}.", "{count} invitations"),
        "match_found": ("Match found", "Your game of {game} is ready.", "{count} games are ready"),
    },
    "es": {
        "your_turn": ("Te toca", "Te toca en {game} contra {others}.", "Te toca en {count} partidas"),
        "deadline_near": ("Se acaba el tiempo", "Tu reloj en {game} se acaba pronto.",
                          "Tu reloj se acaba pronto en {count} partidas"),
        "game_finished": ("Partida terminada", "Tu partida de {game} ha terminado.",
                          "{count} de tus partidas han terminado"),
        "invited": ("Te han invitado", "Te han invitado a una partida de {game}.", "{count} invitaciones"),
        "match_found": ("Partida encontrada", "Tu partida de {game} está lista.", "{count} partidas están listas"),
    },
}  # fmt: skip


def _id(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


def _seats(event: OutboxEvent) -> list[tuple[int, str]]:
    """(seat, player id) of the people this fact concerns."""
    data = event.data
    players = data.get("players", [])
    if event.type in _ONE_SEAT:
        seat = int(data.get("seat", -1))
        player = players[seat] if 0 <= seat < len(players) else {}
        return [(seat, str(data["external_id"]))] if data.get("external_id") and not player.get("bot") else []
    people = [(seat, p) for seat, p in enumerate(players) if p.get("external_id") and not p.get("bot")]
    return [(seat, str(p["external_id"])) for seat, p in people]


def notices_for(event: OutboxEvent) -> list[tuple[str, Notice]]:
    """(player id, notice) for each person ``event`` concerns; none for facts that tell nobody."""
    kind = KINDS.get(event.type)
    if kind is None or "game_id" not in event.data:
        return []
    if event.type == GAME_ABORTED and not event.data.get("started", True):
        return []  # a lobby that never started: nobody was playing it
    data = event.data
    names = [str(p.get("name", "")) for p in data.get("players", [])]
    out = []
    for seat, player in _seats(event):
        others = [name for index, name in enumerate(names) if index != seat and name]  # open seats have no name
        facts: dict[str, Any] = {"game_type": data.get("game_type", ""), "seat": seat, "opponents": others}
        if data.get("deadline"):
            facts["deadline"] = data["deadline"]
        if event.type in (GAME_FINISHED, GAME_ABORTED):
            facts["status"] = "finished" if event.type == GAME_FINISHED else "aborted"
        out.append((player, Notice(_id(event.id, player), kind, str(data["game_id"]), facts, event.ts_ms)))
    return out


def _single(notice: Notice, language: str, base_url: str) -> dict[str, Any]:
    title, body, _ = _WORDS[language][notice.type]
    game = _game_name(str(notice.data.get("game_type")))
    others = ", ".join(notice.data.get("opponents", [])) or "-"
    payload: dict[str, Any] = {"type": notice.type, "game_id": notice.game_id, **notice.data}
    payload.update(title=title, body=body.format(game=game, others=others),
                   url=f"{base_url}/play/#/game/{notice.game_id}/{notice.data.get('seat', 0)}")  # fmt: skip
    return payload


def messages(notices: Sequence[Notice], language: str, base_url: str = "") -> list[Message]:
    """What to push for ``notices``: one message per notice type, several games of a type collapsed
    into one (``game_ids``).  A message's id (and so its ``tag`` and push ``Topic``) follows from
    the notices it carries, so sending it again replaces rather than repeats it."""
    words = language if language in _WORDS else "en"
    by_type: dict[str, list[Notice]] = {}
    for notice in notices:
        by_type.setdefault(notice.type, []).append(notice)
    out = []
    for kind, group in sorted(by_type.items()):
        ids = tuple(sorted(notice.notice_id for notice in group))
        message_id = _id(*ids)
        if len(group) == 1:
            payload = _single(group[0], words, base_url)
        else:
            title = _WORDS[words][kind][2].format(count=len(group))
            payload = {"type": kind, "game_ids": sorted(n.game_id for n in group), "title": title,
                       "body": title, "url": f"{base_url}/play/#/"}  # fmt: skip
        payload["tag"] = message_id
        out.append(Message(message_id, payload, ids))
    return out


def encode(message: Message) -> bytes:
    """A message's payload as sent (before encryption)."""
    return orjson.dumps(message.payload)


def topic(message: Message) -> str:
    """The RFC 8030 ``Topic`` of a message (at most 32 URL-safe characters)."""
    return message.message_id[:32]


def _game_name(game_type: str) -> str:
    """A game type's name as people say it (the registry's), or its id for a game not served here."""
    try:
        return str(engine_for(game_type).name)
    except UnknownGameType:
        return game_type
