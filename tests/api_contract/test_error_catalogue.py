"""Every refusal code is in the catalogue (seeds/platform/errors.yaml), and the catalogue is served.

The source is read with ``ast`` (tests/support/raised_codes.py): a ``code`` raised under
``services/`` or ``gateway/`` and missing from the catalogue fails the first test, which names
the code, the file and line raising it, and the entry to add.  Then, through the real gateway:
the Problem schema's ``code`` enum is the catalogue, ``lang`` is declared, and a Spanish
request gets the catalogue's Spanish ``detail`` with ``Content-Language``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import grpc
import httpx

from chaiwala.tea_rum.v1 import tea_rum_pb2
from gateway.problems import CODE_STATUS, TITLES
from services.common.error_catalogue import CATALOGUE_PATH, catalogue
from tests.support.client import assert_problem
from tests.support.raised_codes import Raised, raised_codes

# Codes the catalogue lists that no string literal in a raising call names, and why.
NOT_RAISED_AS_LITERAL = {
    # gateway.app._on_http picks these from a {status: code} table for Starlette's own 404/405/others.
    "method_not_allowed": "gateway/app.py _on_http's status table",
    "http_error": "gateway/app.py _on_http's status table",
    # Raised through a named constant (one owner of the rule): the scan reads literals only.
    "weak_seed": "services/fairness/seeding.py WEAK_SEED",
    "idempotency_key_reused": "services/rules/idempotency.py IDEMPOTENCY_KEY_REUSED",
}
# Codes computed with an f-string, and what each can become (every one must be in the catalogue).
COMPUTED_CODES = {
    "bad_{name}": ["bad_open_seats"],  # gateway/lobby_routes.py _flag: the listing's boolean filters
    "bad_{key}": ["bad_stall_rounds", "bad_round_limit"],  # services/india_rails/options.py check_options
    # services/tea_rum/engine.py explain_illegal: one per kind of Tea & Rum move.
    "illegal_{kind}": [f"illegal_{field.name}" for field in tea_rum_pb2.Move.DESCRIPTOR.oneofs[0].fields],
}
# The gRPC status each raising helper sends (services.common.errors, services.common.engine).
HELPER_GRPC = {
    "invalid": "INVALID_ARGUMENT",
    "forbidden": "PERMISSION_DENIED",
    "illegal": "FAILED_PRECONDITION",
    "IllegalMove": "FAILED_PRECONDITION",
    "RulesError": "FAILED_PRECONDITION",
    "BadConfig": "INVALID_ARGUMENT",
}


def _by_code() -> dict[str, list[Raised]]:
    found: dict[str, list[Raised]] = defaultdict(list)
    for raised in raised_codes():
        for code in COMPUTED_CODES.get(raised.code, [raised.code]):
            found[code].append(raised)
    return found


def _missing_entry(code: str, places: list[Raised]) -> str:
    if "{" in code:
        return (
            f"\n  {code!r} at {places[0].path}:{places[0].line} is computed: list what it expands to in "
            "COMPUTED_CODES (tests/api_contract/test_error_catalogue.py), and add each to the catalogue"
        )
    where = ", ".join(f"{place.path}:{place.line} ({place.call})" for place in places[:3])
    helpers = [HELPER_GRPC[place.call] for place in places if place.call in HELPER_GRPC]
    grpc_name = helpers[0] if helpers else "<GRPC_STATUS or null>"
    return (
        f"\n  {code!r} raised at {where} is not in the catalogue; add it to {CATALOGUE_PATH} under `codes:`"
        f" (in its domain's section):\n  {code}:\n"
        f"    {{http: <status>, grpc: {grpc_name}, en: <one sentence>, es: <una frase>}}  # do: <optional action>"
    )


def test_every_code_the_source_raises_is_in_the_catalogue() -> None:
    known = catalogue()
    raised = _by_code()
    assert len(raised) > 100, "the scan found too few codes: has the way codes are raised changed?"
    missing = [_missing_entry(code, places) for code, places in sorted(raised.items()) if code not in known]
    assert not missing, f"seeds/platform/errors.yaml lacks {len(missing)} code(s):" + "".join(missing)


def test_every_catalogued_code_is_raised_somewhere() -> None:
    stale = sorted(set(catalogue()) - set(_by_code()) - set(NOT_RAISED_AS_LITERAL))
    assert not stale, f"catalogue entries nothing raises (remove them, or note why in NOT_RAISED_AS_LITERAL): {stale}"


def test_each_entry_has_known_statuses_both_languages_and_an_action() -> None:
    names = {status.name for status in grpc.StatusCode}
    for code, entry in catalogue().items():
        assert entry.http and all(status in TITLES for status in entry.http), (code, entry.http)
        assert all(name in names for name in entry.grpc), (code, entry.grpc)
        assert entry.meaning.get("en") and entry.meaning.get("es"), code
        assert entry.action, code


def test_raising_calls_agree_with_the_catalogue_statuses() -> None:
    known = catalogue()
    disagree = []
    for code, places in _by_code().items():
        for raised in places:
            expected = HELPER_GRPC.get(raised.call)
            if expected is not None and expected not in known[code].grpc:
                said = known[code].grpc
                disagree.append(f"{code}: {raised.path}:{raised.line} sends {expected}, catalogue says {said}")
    assert not disagree, "\n".join(disagree)


def test_the_http_status_of_a_code_comes_from_the_catalogue() -> None:
    assert CODE_STATUS["game_over"] == 409
    assert CODE_STATUS["precondition_required"] == 428
    assert CODE_STATUS["game_compacted"] == 410
    assert "not_your_turn" not in CODE_STATUS  # 422, its gRPC status's default


def test_the_problem_schema_lists_every_code_and_every_call_takes_lang(spec: dict[str, Any]) -> None:
    code = spec["components"]["schemas"]["chaiwala.v1.Problem"]["properties"]["code"]
    assert code["enum"] == sorted(catalogue())
    for path, item in spec["paths"].items():
        if not path.startswith("/v1/"):
            continue
        for method, operation in item.items():
            lang = [p for p in operation.get("parameters", []) if p["name"] == "lang" and p["in"] == "query"]
            assert len(lang) == 1 and lang[0]["schema"]["enum"] == ["en", "es"], (method, path)


def test_a_refusal_speaks_the_language_asked_for(client: httpx.Client) -> None:
    missing = "/v1/games/darjeeling-" + "0" * 24
    english = assert_problem(client.get(missing), 404, "game_not_found")
    assert client.get(missing).headers["content-language"] == "en"
    spanish = catalogue()["game_not_found"].meaning["es"]
    asked = (client.get(missing, params={"lang": "es"}), client.get(missing, headers={"Accept-Language": "es-MX"}))
    for response in asked:
        body = assert_problem(response, 404, "game_not_found")
        assert body["detail"] == spanish != english["detail"]
        assert response.headers["content-language"] == "es"
    # ?lang wins over the header (a page switched to English in a Spanish browser).
    chosen = client.get(missing, params={"lang": "en"}, headers={"Accept-Language": "es"})
    assert assert_problem(chosen, 404)["detail"] == english["detail"]
    assert chosen.headers["content-language"] == "en"


def test_every_v1_answer_says_its_language(client: httpx.Client) -> None:
    created = client.post("/v1/games", json={"game_type": "darjeeling", "players": [{"name": "A"}, {"name": "B"}]})
    assert created.status_code == 201, created.text
    game = f"/v1/games/{created.json()['game_id']}"
    for path in ("/v1/game-types", game, f"{game}/events"):
        assert client.get(path).headers["content-language"] == "en", path
        assert client.get(path, params={"lang": "es"}).headers["content-language"] == "es", path
        assert client.get(path, headers={"Accept-Language": "es-ES,en;q=0.5"}).headers["content-language"] == "es"


def test_a_lang_the_document_does_not_list_is_refused(client: httpx.Client) -> None:
    for value in ("fr", "", "ES"):
        answer = assert_problem(client.get("/v1/game-types", params={"lang": value}), 400, "bad_lang")
        assert answer["detail"]
    assert client.get("/v1/game-types", params={"lang": "es"}).status_code == 200


def test_a_gateway_refusal_is_localized_too(client: httpx.Client) -> None:
    body = client.post("/v1/games", content=b"{", headers={"Content-Type": "application/json", "Accept-Language": "es"})
    problem = assert_problem(body, 400, "malformed_json")
    assert problem["detail"] == catalogue()["malformed_json"].meaning["es"]
    assert body.headers["content-language"] == "es"
