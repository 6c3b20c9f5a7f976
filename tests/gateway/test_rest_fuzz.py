"""Property and fuzz tests of the REST API through the real stack (real gRPC services, uvicorn, Redis).

Two layers:

* **schemathesis** generates requests for every operation of the OpenAPI document the gateway
  serves (``/openapi.json``, derived from the proto descriptors), in positive and negative mode,
  against random game ids and a real Darjeeling game (with and without a real seat token), and
  the webhook routes also with the dispatcher's operator key.  Every
  check schemathesis has runs on every response (its CLI's ``--checks all``): no 5xx, documented
  status, content type, headers and schema, schema-violating requests refused, schema-valid ones
  accepted (with the documented exceptions of ``WELL_FORMED_REFUSALS``, ``NOT_SCHEMA_DECIDABLE``
  and ``POSITIVE_FILTERS``); every 4xx must be ``application/problem+json`` with ``status`` and
  a non-empty ``code``.  The checks that need schemathesis' coverage phase (``unsupported_method``,
  ``missing_required_header``) or its stateful runner (``use_after_free``,
  ``ensure_resource_availability``) pass trivially here; the 405 ``Allow`` answers have their own
  test in ``test_hardening.py``.
* **hypothesis** throws hostile bodies at ``POST /v1/games`` and ``POST /v1/games/{id}/moves``:
  arbitrary JSON, near-valid bodies with one field replaced, mutated legal moves, random bytes, wrong
  content types, huge numbers, deep nesting, unicode.  Never a 5xx, and a game's version (and the
  state its seat sees) never changes unless the answer is 200.

Every test is derandomized and bounded (no shrinking, small ``max_examples``) so the file runs in
well under a minute and reproduces exactly.  Responses are validated against the served document
as is; the bugs this file found (unvalidatable payload schemas, unicode and out-of-range resume
points, non-ASCII credentials) each keep a regression test.

schemathesis' own pytest integration (``schemathesis.pytest.from_fixture``) cannot be used here:
with the pinned pytest 9.2 it fails on ``request.node._nodeid``, so operations are turned into
Hypothesis strategies with ``APIOperation.as_strategy`` and driven by ``@given`` directly.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, event, example, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.config import PositiveDataAcceptanceConfig

from gateway.app import create_app
from gateway.openapi import documented_paths
from gateway.route_table import flat_routes
from tests.support.client import assert_problem, auth, create_game
from tests.support.client import served_openapi as openapi_of
from tests.support.seeds import seed_hex
from tests.support.stack import WEBHOOK_OPERATOR_KEY

GAME = "darjeeling"
TIMEOUT = 60.0


def bounded(max_examples: int) -> settings:
    """Reproducible, bounded Hypothesis settings: derandomized, no database, no shrinking, no deadline."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )


# --------------------------------------------------------------------------------------------------
# helpers


def check_answer(response: httpx.Response | Any, label: str = "") -> None:
    """No 5xx; every 4xx is problem+json with the right ``status`` and a non-empty ``code``."""
    status = response.status_code
    context = f"{label} -> {status} {response.text[:500]!r}"
    assert status < 500, context
    if 400 <= status < 500:
        content_type = _header(response, "content-type")
        assert content_type.startswith("application/problem+json"), context
        body = response.json()
        assert isinstance(body, dict), context
        assert body.get("status") == status, context
        assert isinstance(body.get("code"), str) and body["code"], context


def _header(response: httpx.Response | Any, name: str) -> str:
    """A header of an httpx response or of a schemathesis one (whose values are lists)."""
    for key, value in response.headers.items():
        if key.lower() == name:
            return str(value[0] if isinstance(value, list) else value)
    return ""


class SeatedGame:
    """A real two-human Darjeeling game, both seat tokens, and the game as seat 0 last saw it."""

    def __init__(self, http: httpx.Client, seed: int) -> None:
        self.http = http
        created = create_game(http, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=seed)
        self.game_id: str = created["game_id"]
        self.tokens: dict[int, str] = {s["seat"]: s["token"] for s in created["seats"]}
        self.seen = self.look()

    def look(self) -> dict[str, Any]:
        """The game as seat 0 sees it (200 required)."""
        response = self.http.get(f"/v1/games/{self.game_id}", headers=auth(self.tokens[0]))
        assert response.status_code == 200, response.text
        game: dict[str, Any] = response.json()
        return game

    def actor(self) -> int:
        """A seat that is to act now (the game must be active)."""
        assert self.seen["status"] == "active", self.seen["status"]
        seat: int = self.seen["to_act"][0]
        return seat

    def legal_moves(self) -> dict[str, Any]:
        """The actor's legal moves (200 required)."""
        response = self.http.get(f"/v1/games/{self.game_id}/legal-moves", headers=auth(self.tokens[self.actor()]))
        assert response.status_code == 200, response.text
        legal: dict[str, Any] = response.json()
        return legal

    def after(self, response: httpx.Response, label: str) -> None:
        """The submission's answer is sane, and only a 200 may have moved the game on."""
        check_answer(response, label)
        event(f"{response.status_code} {response.json().get('code', '') if response.status_code >= 400 else ''}")
        now = self.look()
        if response.status_code == 200:
            # An idempotent retry answers as the first time, so the version may not have moved.
            assert self.seen["version"] <= now["version"] >= response.json()["version"], label
        else:
            assert now["version"] == self.seen["version"], f"{label} -> {response.status_code} moved the game"
            assert now == self.seen, f"{label} -> {response.status_code} changed what seat 0 sees"
        self.seen = now

    def headers(self, who: str) -> dict[str, str]:
        """Authorization for the seat to act, the other seat, nobody, or a made-up token."""
        if who == "actor":
            return auth(self.tokens[self.actor()])
        if who == "other":
            return auth(self.tokens[1 - self.actor()])
        if who == "forged":
            return auth("not-a-real-token-" + "x" * 20)
        return {}


@pytest.fixture(scope="module")
def http(stack: dict[str, Any]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=str(stack["url"]), timeout=TIMEOUT) as client:
        yield client


# --------------------------------------------------------------------------------------------------
# schemathesis over the served OpenAPI document


@pytest.fixture(scope="module")
def served_openapi(http: httpx.Client) -> dict[str, Any]:
    return openapi_of(http)


# Answers to well-formed requests that the schema cannot rule out, so positive_data_acceptance
# accepts them besides its defaults: the game's rules refuse the move (422 illegal_move, and
# too_few_players), or a submission carries neither expected_version nor Idempotency-Key (428:
# one is a body field, the other a header, and JSON Schema cannot relate the two).
WELL_FORMED_REFUSALS = ["422", "428"]
# Where positive_data_acceptance ("schema-valid requests are accepted") cannot hold, because
# validity there depends on rules JSON Schema cannot state; every other check runs there too.
NOT_SCHEMA_DECIDABLE = {
    ("POST", "/v1/games"): "seat combinations (open seats carry no name or bot, invites only on open seats, "
    "a private game's open seats all need invites), player counts per game type, clock settings per game, "
    "and printable names (a Unicode category rule)",
    ("POST", "/v1/games/{game_id}/join"): "printable names, and the seat asked for must be open",
    ("POST", "/v1/sessions"): "printable names (a Unicode category rule)",
    ("POST", "/v1/tournaments"): "table sizes per game type, at least as many entrants as seats at a table, "
    "unique external ids, bots per game type, and the format's own fields "
    "(advance below the table size, group sizes)",
    ("POST", "/v1/webhooks"): "target URLs the dispatcher's policy accepts (scheme, a host that resolves to a "
    "public address) and well-formed signing secrets",
}


@pytest.fixture(scope="module")
def api_schema(stack: dict[str, Any], served_openapi: dict[str, Any]) -> Any:
    loaded = schemathesis.openapi.from_dict(served_openapi)
    loaded.config.update(base_url=str(stack["url"]))
    defaults = loaded.config.checks.positive_data_acceptance.expected_statuses
    loaded.config.checks.positive_data_acceptance = PositiveDataAcceptanceConfig(
        expected_statuses=[*defaults, *WELL_FORMED_REFUSALS]
    )
    return loaded


def _checks(method: str, path: str) -> list[Callable[..., Any]]:
    """Every check schemathesis registers (what its CLI runs for ``--checks all``), less the
    documented exclusions of :data:`NOT_SCHEMA_DECIDABLE`."""
    schemathesis.checks.load_all_checks()
    found = list(schemathesis.checks.CHECKS.get_all())
    if (method, path) in NOT_SCHEMA_DECIDABLE:
        found.remove(schemathesis.checks.positive_data_acceptance)
    return found


def _without_opaque_cursors(case: Any) -> bool:
    """A positive case of the listing with no page_token: a cursor is valid only if this server
    handed it out (400 bad_page_token otherwise), which no schema can state; negative cases keep it."""
    return "page_token" not in (case.query or {})


def _moves_of_the_games_type(case: Any) -> bool:
    """A positive submission whose moves are the game's own: the document has one move body for
    every game, and which member of the union applies depends on the game id in the path."""
    game_type = str((case.path_parameters or {}).get("game_id", "")).partition("-")[0]
    body = case.body if isinstance(case.body, dict) else {}
    moves = [body["move"]] if isinstance(body.get("move"), dict) else body.get("moves") or []
    own = f"type.googleapis.com/chaiwala.{game_type}.v1.Move"
    return all(not isinstance(move, dict) or move.get("@type") == own for move in moves)


def _ticket_or_bearer(case: Any) -> bool:
    """A positive events case sends a ticket or a bearer, not both (400 ticket_and_bearer): one is
    a query parameter, the other a header, and JSON Schema cannot relate the two."""
    return not ((case.query or {}).get("ticket") and "Authorization" in (case.headers or {}))


# Positive cases kept only where the schema alone cannot tell (see each filter's docstring).
POSITIVE_FILTERS: dict[tuple[str, str], Callable[[Any], bool]] = {
    ("GET", "/v1/games"): _without_opaque_cursors,
    ("GET", "/v1/tournaments"): _without_opaque_cursors,
    ("GET", "/v1/ratings/{game_type}"): _without_opaque_cursors,
    ("GET", "/v1/webhooks/{webhook_id}/deliveries"): _without_opaque_cursors,
    ("POST", "/v1/games/{game_id}/moves"): _moves_of_the_games_type,
    ("GET", "/v1/games/{game_id}/events"): _ticket_or_bearer,
}


POSITIVE, NEGATIVE = GenerationMode.POSITIVE, GenerationMode.NEGATIVE


def _documented_operations() -> list[tuple[str, str, list[GenerationMode]]]:
    """Every operation the gateway documents, from its own routes (so routes added later are fuzzed too).

    Negative mode needs something to negate: a body or a query parameter.
    """
    found = []
    for path, item in documented_paths(flat_routes(create_app().routes)).items():
        for method, spec in item.items():
            negatable = "requestBody" in spec or any(p["in"] == "query" for p in spec.get("parameters", []))
            found.append((method.upper(), path, [POSITIVE, NEGATIVE] if negatable else [POSITIVE]))
    return found


OPERATIONS = _documented_operations()
CASES = [
    pytest.param(method, path, mode, id=f"{method} {path} {mode.value}")
    for method, path, modes in OPERATIONS
    for mode in modes
]


def test_every_operation_of_the_served_document_is_fuzzed(served_openapi: dict[str, Any]) -> None:
    served = {(method.upper(), path) for path, item in served_openapi["paths"].items() for method in item}
    assert served == {(method, path) for method, path, _ in OPERATIONS}
    assert ("POST", "/v1/games/{game_id}/moves") in served and len(served) >= 12


@pytest.mark.parametrize("method,path,mode", CASES)
def test_openapi_operation_fuzz(
    api_schema: Any, http: httpx.Client, method: str, path: str, mode: GenerationMode
) -> None:
    operation = api_schema[path][method]
    strategies = [operation.as_strategy(generation_mode=mode)]
    if "{game_id}" in path:
        # A game of its own per operation, so aborting it here cannot disturb other tests.
        game = SeatedGame(http, seed=11)
        real = {"game_id": game.game_id}
        strategies.append(operation.as_strategy(generation_mode=mode, path_parameters=real))
        strategies.append(
            operation.as_strategy(generation_mode=mode, path_parameters=real, headers=game.headers("actor"))
        )
    if path.startswith("/v1/webhooks") and (method, mode) != ("POST", POSITIVE):
        # With the dispatcher's operator key too, so its parameters and bodies are checked, not
        # only refused for want of a credential (positive creations stay keyless: a fuzzed
        # subscription to a loopback URL would collect deliveries other tests count).
        keyed = {"Authorization": f"Bearer {WEBHOOK_OPERATOR_KEY}"}
        strategies.append(operation.as_strategy(generation_mode=mode, headers=keyed))
    keep = POSITIVE_FILTERS.get((method, path)) if mode == POSITIVE else None
    if keep is not None:
        strategies = [strategy.filter(keep) for strategy in strategies]
    checks = _checks(method, path)

    @given(case=st.one_of(strategies))
    @bounded(max_examples=25)
    def fuzz(case: Any) -> None:
        response = case.call(timeout=TIMEOUT)
        case.validate_response(response, checks=checks)
        check_answer(response, case.as_curl_command())

    fuzz()


def test_served_schema_describes_a_real_game(served_openapi: dict[str, Any], http: httpx.Client) -> None:
    game = SeatedGame(http, seed=5)
    served = schemathesis.openapi.from_dict(served_openapi)
    served.config.update(base_url=str(http.base_url))
    case = served["/v1/games/{game_id}"]["GET"].Case(path_parameters={"game_id": game.game_id})
    response = case.call(timeout=TIMEOUT)
    assert response.status_code == 200
    case.validate_response(response, checks=[schemathesis.checks.response_schema_conformance])


# --------------------------------------------------------------------------------------------------
# hostile bodies: strategies

FIELD_NAMES = [
    "game_type",
    "gameType",
    "players",
    "seed",
    "options",
    "name",
    "bot",
    "move",
    "moves",
    "expected_version",
    "expectedVersion",
    "@type",
    "region",
    "choose_start",
    "move_collector",
    "lay_out",
    "end_turn",
    "load",
]
UNICODE_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]),
    max_size=24,
)
HUGE_INTEGERS = st.sampled_from([2**31, 2**32, 2**53 + 1, 2**63, 2**64, -(2**63) - 1, 10**30, -(10**30)])
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | HUGE_INTEGERS
    | st.floats(allow_nan=True, allow_infinity=True)
    | UNICODE_TEXT
    | st.sampled_from(["", "darjeeling", "EAST", "RED", "india", "type.googleapis.com/chaiwala.darjeeling.v1.Move"])
)
JSON_KEYS = st.sampled_from(FIELD_NAMES) | UNICODE_TEXT
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(JSON_KEYS, children, max_size=4),
    max_leaves=16,
)


def deeply_nested(depth: int, kind: str) -> Any:
    """``{"a": {"a": ... 1}}`` or ``[[...[1]...]]`` ``depth`` levels deep."""
    value: Any = 1
    for _ in range(depth):
        value = {"a": value} if kind == "object" else [value]
    return value


# json.dumps itself recurses, so deeper nesting than this is sent as raw text (SPECIAL_BODIES).
DEEP = st.builds(deeply_nested, st.sampled_from([50, 99, 100, 101, 300]), st.sampled_from(["object", "list"]))


def encode(value: Any) -> bytes:
    """JSON text as Python writes it: big integers kept exact, NaN/Infinity left in (invalid JSON)."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


SPECIAL_BODIES = st.sampled_from(
    [
        b"",
        b"   ",
        b"null",
        b"[]",
        b"0",
        b'"x"',
        b"{",
        b'{"a":1',
        b'{"seed": 1e400}',
        b'{"seed": -0.0}',
        b'{"seed": NaN}',
        b'{"expected_version": 1' + b"0" * 400 + b"}",
        b'{"a": "\\ud800"}',
        b'{"\\u0000": "\\u0000"}',
        b"\xef\xbb\xbf{}",
        "{}".encode("utf-16"),
        b"\xff\xfe\xfd",
        b'{"a":1}{"b":2}',
        b'{"a":1,"a":2}',
        b"[" * 10_000 + b"]" * 10_000,
        b'{"a":' * 5_000 + b"1" + b"}" * 5_000,
        b'{"move": ' + b'{"a":' * 2_000 + b"1" + b"}" * 2_000 + b"}",
        b" " * 300_000 + b"{}",
        b'{"players": [' + b'{"name": "x"},' * 15_000 + b'{"name": "y"}]}',
    ]
)
CONTENT_TYPES = st.sampled_from(
    [
        "application/json",
        "application/json; charset=utf-8",
        "application/json; charset=latin-1",
        "application/problem+json",
        "application/merge-patch+json",
        "text/plain",
        "text/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=zz",
        "application/octet-stream",
        "application/xml",
        "*/*",
        "",
        "json",
    ]
)
RAW_BODIES = (
    JSON_VALUES.map(encode) | DEEP.map(encode) | st.binary(max_size=200) | SPECIAL_BODIES | UNICODE_TEXT.map(str.encode)
)


WELL_TYPED = (
    st.integers(min_value=0, max_value=12)
    | st.sampled_from(["EAST", "WEST", "NORTH", "SOUTH", "RED", "GREEN", "BLACK", "WHITE", "LEFT", "STRAIGHT"])
    | st.sampled_from(["india", "china", "sri_lanka", ""])
    | st.booleans()
)
CORRUPTIONS = [
    "none",
    "none",
    "none",
    "game_type",
    "players",
    "player",
    "name",
    "bot",
    "seed",
    "options",
    "region",
    "@type",
    "unknown_field",
    "drop_field",
    "camel_case",
]


@st.composite
def create_bodies(draw: st.DrawFn) -> Any:
    """A valid create body, usually with exactly one thing broken (sometimes nothing).

    The first player is always human, so a created game never plays itself to the end in the request.
    """
    names = st.sampled_from(["Asha", "Bilal", "ಚಹಾ", "🫖" * 16, "a b", "名前"]) | UNICODE_TEXT.filter(bool)
    others = draw(
        st.lists(
            st.fixed_dictionaries({"name": names}, optional={"bot": st.sampled_from(["", "random", "heuristic"])}),
            max_size=4,
        ),
        label="other players",
    )
    body: dict[str, Any] = {"game_type": GAME, "players": [{"name": "Asha"}, *others]}
    if draw(st.booleans(), label="seed?"):
        body["seed_hex"] = seed_hex(draw(st.integers(min_value=0, max_value=2**128 - 1), label="seed"))
    if draw(st.booleans(), label="options?"):
        body["options"] = {"region": draw(st.sampled_from(["india", "china", "sri_lanka", ""]), label="region")}
    how = draw(st.sampled_from(CORRUPTIONS), label="corruption")
    junk = JSON_VALUES | HUGE_INTEGERS | DEEP
    if how == "game_type":
        body["game_type"] = draw(st.sampled_from(["DARJEELING", "darjeeling ", "", "chess", "alubari "]) | junk)
    elif how == "players":
        body["players"] = draw(st.lists(st.fixed_dictionaries({"name": names}), max_size=8) | junk)
    elif how == "player":
        body["players"].append(draw(junk))
    elif how == "name":
        body["players"][-1]["name"] = draw(st.sampled_from(["", "x" * 65, "a\u0000b", " "]) | junk)
    elif how == "bot":
        body["players"].append({"name": "Bot", "bot": draw(st.sampled_from(["nobody", "RANDOM", " random"]) | junk)})
    elif how == "seed":
        body["seed"] = draw(st.integers(min_value=-(2**65), max_value=2**65) | HUGE_INTEGERS | junk)
    elif how == "options":
        body["options"] = draw(junk)
    elif how == "region":
        body["options"] = {"region": draw(st.sampled_from(["mars", "INDIA", "sri lanka"]) | junk)}
    elif how == "@type":
        body["options"] = {
            "@type": draw(
                st.sampled_from(
                    [
                        "type.googleapis.com/chaiwala.darjeeling.v1.Options",
                        "type.googleapis.com/chaiwala.alubari.v1.Options",
                        "chaiwala.darjeeling.v1.Options",
                    ]
                )
                | junk
            )
        }
    elif how == "unknown_field":
        taken = ("game_type", "players", "seed", "seed_hex", "options")
        body[draw(JSON_KEYS.filter(lambda k: k not in taken))] = draw(junk)
    elif how == "drop_field":
        del body[draw(st.sampled_from(sorted(body)))]
    elif how == "camel_case":
        body["gameType"] = body.pop("game_type")
    return body


# --------------------------------------------------------------------------------------------------
# POST /v1/games


@given(body=st.one_of(create_bodies(), create_bodies(), JSON_VALUES), api_key=st.booleans())
@example(body={"game_type": GAME, "players": [{"name": "Asha"}, {"name": "Bilal"}], "seed": 2**32}, api_key=False)
@example(body={"game_type": GAME, "players": [{"name": "Asha"}, {"name": "Bilal"}], "seed": 2**32 - 1}, api_key=False)
@example(
    body={"game_type": GAME, "players": [{"name": "Asha"}, {"name": "B"}], "options": deeply_nested(99, "object")},
    api_key=False,
)
@bounded(max_examples=60)
def test_create_game_with_hostile_json_never_fails_the_server(http: httpx.Client, body: Any, api_key: bool) -> None:
    headers = {"Content-Type": "application/json", **(auth("some-operator-key") if api_key else {})}
    response = http.post("/v1/games", content=encode(body), headers=headers)
    check_answer(response, f"POST /v1/games {body!r:.300}")
    event(f"{response.status_code} {response.json().get('code', '') if response.status_code >= 400 else ''}")
    assert response.status_code in (201, 400, 401, 403, 413), response.text
    if response.status_code == 201:
        created = response.json()
        assert created["game_type"] == GAME and created["status"] in ("active", "finished")
        assert created["seats"] and all(seat["token"] for seat in created["seats"] if not seat["bot"])
        game = http.get(f"/v1/games/{created['game_id']}")
        # The conductor may already have played a bot that is to act first.
        assert game.status_code == 200 and game.json()["version"] >= created["version"]


@given(body=RAW_BODIES, content_type=CONTENT_TYPES)
@bounded(max_examples=50)
def test_create_game_with_raw_bytes_and_wrong_content_types_never_fails_the_server(
    http: httpx.Client, body: bytes, content_type: str
) -> None:
    response = http.post("/v1/games", content=body, headers={"Content-Type": content_type})
    check_answer(response, f"POST /v1/games [{content_type}] {body[:200]!r}")
    assert response.status_code in (201, 400, 413, 415, 429), response.text


# --------------------------------------------------------------------------------------------------
# POST /v1/games/{id}/moves on a real game


@pytest.fixture(scope="module")
def moves_game(http: httpx.Client) -> SeatedGame:
    return SeatedGame(http, seed=23)


def mutate(draw: Callable[[st.SearchStrategy[Any]], Any], value: Any) -> Any:
    """``value`` (a legal move) with one leaf replaced, one key added or dropped, or wrapped."""
    paths: list[tuple[Any, ...]] = []

    def collect(node: Any, path: tuple[Any, ...]) -> None:
        paths.append(path)
        if isinstance(node, dict):
            for key, child in node.items():
                collect(child, (*path, key))
        elif isinstance(node, list):
            for index, child in enumerate(node):
                collect(child, (*path, index))

    collect(value, ())
    path = paths[draw(st.integers(min_value=0, max_value=999)) % len(paths)]  # same draws whatever the move
    how = draw(st.sampled_from(["replace", "replace", "retype", "retype", "add", "drop", "wrap", "keep", "keep"]))
    mutated = copy.deepcopy(value)
    if how == "keep":
        return mutated
    if not path:
        return draw(JSON_VALUES | DEEP) if how != "wrap" else {"move": mutated}
    parent = mutated
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if how == "replace":
        parent[last] = draw(JSON_VALUES | HUGE_INTEGERS | DEEP)
    elif how == "retype":
        parent[last] = draw(WELL_TYPED)
    elif how == "add" and isinstance(parent, dict):
        parent[draw(JSON_KEYS)] = draw(JSON_VALUES)
    elif how == "drop" and isinstance(parent, dict):
        del parent[last]
    else:
        parent[last] = {"a": parent[last]}
    return mutated


@given(data=st.data())
@bounded(max_examples=60)
def test_moves_with_hostile_json_never_fail_and_change_nothing_unless_accepted(
    http: httpx.Client, moves_game: SeatedGame, data: st.DataObject
) -> None:
    game = moves_game
    if game.seen["status"] != "active":
        pytest.skip("the fuzzed game ended")  # pragma: no cover - a fuzzed game does not reach its end
    legal = game.legal_moves()
    # Draws never depend on the game's state (Hypothesis replays choices), hence an index, not sampled_from.
    move = legal["moves"][data.draw(st.integers(min_value=0, max_value=999), label="legal move") % len(legal["moves"])]
    shape = data.draw(st.sampled_from(["move"] * 4 + ["moves"] * 2 + ["both", "arbitrary", "near"]), label="shape")
    if shape == "move":
        body: Any = {"move": mutate(data.draw, move)}
    elif shape == "moves":
        body = {
            "moves": [
                mutate(data.draw, move) for _ in range(data.draw(st.sampled_from([1, 1, 2, 3, 0]), label="batch"))
            ]
        }
    elif shape == "both":
        body = {"move": move, "moves": [move]}
    elif shape == "arbitrary":
        body = data.draw(JSON_VALUES | DEEP, label="arbitrary body")
    else:
        body = mutate(data.draw, {"move": move})
    version = legal["version"]
    expected = data.draw(st.sampled_from(["absent"] * 3 + ["current"] * 3 + ["stale", "junk"]), label="expected?")
    if isinstance(body, dict) and expected != "absent":
        if expected == "junk":
            body["expected_version"] = data.draw(HUGE_INTEGERS | JSON_SCALARS, label="expected_version")
        else:
            body["expected_version"] = version if expected == "current" else version + 1
    who = data.draw(st.sampled_from(["actor"] * 5 + ["other", "nobody", "forged"]), label="who")
    headers = {"Content-Type": "application/json", **game.headers(who)}
    if data.draw(st.booleans(), label="idempotency?"):
        headers["Idempotency-Key"] = data.draw(
            st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=200),
            label="idempotency key",
        )
    response = http.post(f"/v1/games/{game.game_id}/moves", content=encode(body), headers=headers)
    game.after(response, f"POST moves as {who} {body!r:.300}")
    assert response.status_code in (200, 400, 401, 403, 409, 413, 422, 428), response.text


@given(body=RAW_BODIES, content_type=CONTENT_TYPES)
@example(body=b'{"move": {}}', content_type="text/plain")
@bounded(max_examples=50)
def test_moves_as_raw_bytes_and_wrong_content_types_never_fail_and_change_nothing(
    http: httpx.Client, moves_game: SeatedGame, body: bytes, content_type: str
) -> None:
    game = moves_game
    headers = {"Content-Type": content_type, **game.headers("actor")}
    response = http.post(f"/v1/games/{game.game_id}/moves", content=body, headers=headers)
    game.after(response, f"POST moves [{content_type}] {body[:200]!r}")
    assert response.status_code in (200, 400, 409, 413, 415, 422, 428), response.text


def test_a_legal_move_still_goes_through_after_the_fuzzing(http: httpx.Client, moves_game: SeatedGame) -> None:
    """The fuzzed game is not wedged: its actor can still make a legal move, which moves it on."""
    game = moves_game
    game.seen = game.look()
    legal = game.legal_moves()
    response = http.post(
        f"/v1/games/{game.game_id}/moves",
        json={"move": legal["moves"][0], "expected_version": legal["version"]},
        headers=game.headers("actor"),
    )
    assert response.status_code == 200, response.text
    game.seen = game.look()
    assert game.seen["version"] > legal["version"]


# --------------------------------------------------------------------------------------------------
# headers and query parameters the fuzzers above leave alone

ASCII_VALUE = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=40)


@given(
    after=st.none() | st.integers(min_value=-5, max_value=2**40).map(str) | ASCII_VALUE,
    last_event_id=st.none()
    | st.integers(min_value=0, max_value=2**32 - 1).map(str)
    | st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)).map(lambda p: f"{p[0]}:{p[1]}")
    | ASCII_VALUE,
)
@bounded(max_examples=40)
def test_event_resume_points_never_fail_the_server(
    http: httpx.Client, moves_game: SeatedGame, after: str | None, last_event_id: str | None
) -> None:
    headers = {"Last-Event-ID": last_event_id} if last_event_id is not None else {}
    params = {"after": after} if after is not None else {}
    response = http.get(f"/v1/games/{moves_game.game_id}/events", params=params, headers=headers)
    check_answer(response, f"events after={after!r} Last-Event-ID={last_event_id!r}")
    assert response.status_code in (200, 400), response.text


def test_events_after_with_a_unicode_digit_is_a_400(http: httpx.Client, moves_game: SeatedGame) -> None:
    response = http.get(f"/v1/games/{moves_game.game_id}/events", params={"after": "\u00b2"})
    assert_problem(response, 400)


def test_events_last_event_id_out_of_range_is_a_400(http: httpx.Client, moves_game: SeatedGame) -> None:
    response = http.get(f"/v1/games/{moves_game.game_id}/events", headers={"Last-Event-ID": "4294967296"})
    assert_problem(response, 400)


def test_an_out_of_range_after_is_a_400_even_beside_a_last_event_id(http: httpx.Client, moves_game: SeatedGame) -> None:
    """Found by negative_data_rejection: Last-Event-ID won and a bad ``after`` went unread."""
    path = f"/v1/games/{moves_game.game_id}/events?after=2147483649"
    assert_problem(http.get(path, headers={"Last-Event-ID": "0:0"}), 400, "bad_after")


def test_the_document_states_the_request_limits_the_services_check(served_openapi: dict[str, Any]) -> None:
    """Found by positive_data_acceptance: empty bodies, unknown game types and two oneof members were schema-valid."""
    schemas = served_openapi["components"]["schemas"]
    create, join = schemas["chaiwala.v1.CreateGameBody"], schemas["chaiwala.v1.JoinGameBody"]
    assert set(create["properties"]["game_type"]["enum"]) == {"alubari", "darjeeling", "tea_rum", "india_rails"}
    assert create["properties"]["players"]["minItems"] == 1 and join["required"] == ["name"]
    body = schemas["chaiwala.v1.SubmitMovesBody"]
    assert {"required": ["move", "moves"]} in body["not"]["anyOf"]  # not both, and not neither
    # A proto oneof of kinds: exactly one kind, as a oneOf whose variants require theirs and forbid the others.
    move = schemas["chaiwala.darjeeling.v1.Move"]
    stay_put = next(variant for variant in move["oneOf"] if variant["required"] == ["stay_put"])
    assert stay_put["properties"]["end_turn"]["not"] == {} and stay_put["additionalProperties"] is False


@given(token=ASCII_VALUE, scheme=st.sampled_from(["Bearer", "bearer", "Basic", "Token", ""]))
@bounded(max_examples=30)
def test_forged_ascii_credentials_never_fail_the_server(
    http: httpx.Client, moves_game: SeatedGame, token: str, scheme: str
) -> None:
    headers = {"Authorization": f"{scheme} {token}".strip(), "Content-Type": "application/json"}
    game = moves_game
    for response in (
        http.get(f"/v1/games/{game.game_id}", headers=headers),
        http.get(f"/v1/games/{game.game_id}/legal-moves", headers=headers),
    ):
        check_answer(response, f"Authorization {headers['Authorization']!r}")
        assert response.status_code in (200, 401), response.text
    game.after(
        http.post(f"/v1/games/{game.game_id}/moves", content=b'{"move": {}}', headers=headers),
        f"POST moves with Authorization {headers['Authorization']!r}",
    )


def test_non_ascii_authorization_is_a_401(http: httpx.Client, moves_game: SeatedGame) -> None:
    headers = [(b"Authorization", b"Bearer \xe9t\xe9")]
    response = http.get(f"/v1/games/{moves_game.game_id}/legal-moves", headers=headers)
    assert_problem(response, 401)


@pytest.mark.parametrize(
    "path,body",
    [
        ("/v1/tournaments", {"game_type": GAME, "format": "swiss", "table_size": 2, "entrants": [], "surprise": 1}),
        ("/v1/tournaments/t-unknown/withdraw", {"external_id": "e1", "surprise": 1}),
        ("/v1/tournaments/t-unknown/withdraw", {"tournament_id": "t-other"}),
        ("/v1/webhooks", {"url": "http://127.0.0.1:9/x", "events": ["game.finished"], "surprise": 1}),
    ],
)
def test_the_newer_routes_refuse_fields_their_document_does_not_list(
    http: httpx.Client, path: str, body: dict[str, Any]
) -> None:
    """What additionalProperties: false says, the routes enforce (with the operator key, so the
    body is what is refused)."""
    response = http.post(path, json=body, headers=auth(WEBHOOK_OPERATOR_KEY) if "webhooks" in path else {})
    assert_problem(response, 400, "invalid_request")
