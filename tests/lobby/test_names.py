"""Display names through the real stack (issue #36, items 5 and 6): invisible names are refused,
real ones (a no-break space, a ZWJ emoji, accents) are kept as typed, and no name reads as the
viewer's own pronoun."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import yaml

from services.common.sentences import sentences_for
from services.lobby.names import RESERVED
from tests.support import secrets
from tests.support.client import assert_problem, auth, create_game, sse_events, turn

GAME = "darjeeling"
ROOT = Path(__file__).resolve().parents[2]
INVISIBLE = [
    "\u3164",  # Hangul filler
    "\u115f",  # Hangul choseong filler
    "\u1160",  # Hangul jungseong filler
    "\u3164\u3164 \u3164",
    "\u2800",  # braille pattern blank
    "\u034f",  # combining grapheme joiner alone
    "\u0301\u0301",  # combining marks alone
    "\u200d",  # a joiner alone
    "\u200b",  # zero-width space
    "\u2060Asha",  # word joiner (a format character)
    "As\u202eha",  # right-to-left override
]
TOO_MANY_MARKS = ["a" + "\u0301" * 63, "Zo\u0333\u0333\u0333\u0333e"]  # four marks no letter absorbs
PRONOUNS = ["You", "you", "YOU", " You ", "Tú", "tú", "TÚ", "Usted", "usted"]
REAL = [
    "Ana\u00a0María",  # a no-break space inside a name
    "\U0001f469\u200d\U0001f4bb Dev",  # woman technologist: a ZWJ emoji sequence
    "\u2764\ufe0f Lina",  # an emoji with its variation selector
    "Nguyễn Thị Ánh",
    "क्षत्रिय",
    "Zoe\u0300\u0301\u0302",  # three marks on one letter: within reason
    "Youssef",
    "Tu",
    "You Know Who",
    "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Morag",  # the flag of Scotland
]
# Hidden text in tag characters ("ASCII smuggling"), and what is seated instead (issue #44).
SMUGGLED = {
    "Asha\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065": "Asha",
    "\U000e0041Bi\U000e0042lal": "Bilal",
    "\U0001f3f4\U000e0067\U000e0062 Kai": "\U0001f3f4 Kai",  # a flag never cancelled: its tags go
    "Tess\U000e007f": "Tess",
}


def _create(client: httpx.Client, first: str) -> httpx.Response:
    return client.post("/v1/games", json={"game_type": GAME, "players": [{"name": first}, {"name": "Bilal"}]})


@pytest.mark.parametrize("name", INVISIBLE + TOO_MANY_MARKS + PRONOUNS)
def test_invisible_stacked_or_pronoun_names_are_refused_with_the_old_code(client: httpx.Client, name: str) -> None:
    assert_problem(_create(client, name), 400, "bad_player")


def test_real_names_are_kept_as_typed(client: httpx.Client) -> None:
    for name in REAL:
        created = _create(client, name)
        assert created.status_code == 201, (name, created.text)
        game = client.get(f"/v1/games/{created.json()['game_id']}").json()
        assert game["seats"][0]["name"] == name


def test_stray_tag_characters_are_dropped_wherever_a_name_is_seated(client: httpx.Client) -> None:
    for typed, seated in SMUGGLED.items():
        created = _create(client, typed)
        assert created.status_code == 201, created.text
        game = client.get(f"/v1/games/{created.json()['game_id']}").json()
        assert game["seats"][0]["name"] == seated
        waiting = client.post("/v1/games", json={"game_type": GAME, "players": [{"name": "Asha"}, {"open": True}]})
        game_id = waiting.json()["game_id"]
        joined = client.post(f"/v1/games/{game_id}/join", json={"name": typed})
        assert joined.status_code == 200, joined.text
        assert client.get(f"/v1/games/{game_id}").json()["seats"][1]["name"] == seated
    only_tags = client.post("/v1/sessions", json={"name": "\U000e0041\U000e0042"})  # nothing visible left: the default
    assert only_tags.status_code == 201, only_tags.text
    secret = only_tags.json()["token"]
    secrets.remember(secret)
    me = client.get("/v1/me", headers=auth(secret)).json()
    assert me["name"].startswith("Guest ") and not any(0xE0000 <= ord(c) <= 0xE007F for c in me["name"])


def test_joining_and_entering_a_tournament_check_names_the_same_way(client: httpx.Client) -> None:
    body = {"game_type": GAME, "players": [{"name": "Asha"}, {"open": True}]}
    created = client.post("/v1/games", json=body)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    for name in ("You", "\u3164", "\u2800"):
        assert_problem(client.post(f"/v1/games/{game_id}/join", json={"name": name}), 400, "bad_player")
    joined = client.post(f"/v1/games/{game_id}/join", json={"name": "Ana\u00a0María"})
    assert joined.status_code == 200, joined.text
    entrants = [{"external_id": f"names-{i}", "name": name} for i, name in enumerate(["Asha", "Usted"])]
    tournament = {"game_type": GAME, "format": "swiss", "table_size": 2, "entrants": entrants}
    assert_problem(client.post("/v1/tournaments", json=tournament), 400, "bad_player")


def test_every_language_pack_says_you_with_a_reserved_word() -> None:
    for pack in sorted((ROOT / "seeds" / "platform" / "text").glob("*.yaml")):
        word = yaml.safe_load(pack.read_text(encoding="utf-8"))["words"]["you"]
        assert word.casefold() in RESERVED, f"{pack.name}: {word!r} must be a name nobody may take"


def test_other_viewers_never_read_a_name_as_their_pronoun(client: httpx.Client) -> None:
    created = create_game(client, GAME, [{"name": "Youssef"}, {"name": "Bilal"}], seed=11)
    tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
    game_id = created["game_id"]
    resigned = client.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[0]))
    assert resigned.status_code == 200, resigned.text

    def resign_text(token: str) -> str:
        events = client.get(f"/v1/games/{game_id}/events", headers=auth(token)).json()
        (said,) = [e["text"] for e in events if e.get("kind") == "resign"]
        return str(said)

    assert resign_text(tokens[0]).startswith("You resigned")
    assert resign_text(tokens[1]).startswith("Youssef resigned")


def test_a_stored_pronoun_name_is_quoted_for_everyone_else() -> None:
    """A game stored before such names were refused: its sentences quote the name."""
    sentences = sentences_for(GAME)
    event = {"resign": {"seat": 0}}
    assert sentences.event_text(event, 1, ["You", "Asha"]).startswith("“You” resigned")
    assert sentences.event_text(event, 0, ["You", "Asha"]).startswith("You resigned")
    assert sentences.event_text(event, 1, ["Tú", "Asha"], language="es").startswith("“Tú” abandonó")


def test_a_player_who_joins_is_named_in_a_stream_opened_before_the_join(client: httpx.Client) -> None:
    """The host's live log names whoever took the open seat (it said "plays next" with no name)."""
    created = create_game(client, GAME, [{"name": "Asha"}, {"open": True}])
    game_id, tokens = created["game_id"], {0: created["seats"][0]["token"]}
    sse = {**auth(tokens[0]), "Accept": "text/event-stream"}
    with client.stream("GET", f"/v1/games/{game_id}/events", headers=sse, timeout=60) as live:
        assert live.status_code == 200
        joined = client.post(f"/v1/games/{game_id}/join", json={"name": "Bilal"})
        assert joined.status_code == 200, joined.text
        tokens[1] = joined.json()["token"]
        for _ in range(4):  # each seat moves at least once
            seat, legal = turn(client, game_id, tokens)
            move = {k: v for k, v in legal["moves"][0].items() if k != "text"}
            body = {"move": move, "expected_version": legal["version"]}
            assert client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat])).status_code == 200
        said = []
        for message in sse_events(live):
            event = json.loads(message["data"])
            said.append(event.get("text", ""))
            if event.get("seat") == 1 and event.get("version", 0) > 0:
                break
    assert "Bilal" in said[-1], said
