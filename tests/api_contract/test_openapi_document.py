"""The served OpenAPI document as client generators and people see it.

Checks operationIds and tags on every operation, integer bounds from the proto types,
``@type`` discriminators, the offline docs pages, and generated clients: a Python client
from ``openapi-python-client`` (pinned, dev extra) that is then used against the real
gateway, and TypeScript types from the pinned ``openapi-typescript`` of ``tools/contract``.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx

from gateway.openapi_exact import objects
from gateway.openapi_paths import TAGS
from tests.support.client import assert_problem
from tests.support.seeds import seed_hex

GAME = "darjeeling"
GAMES = ("alubari", "darjeeling", "tea_rum", "india_rails")
STATE_REFS = {f"#/components/schemas/chaiwala.{game}.v1.State.Packed" for game in GAMES}
OPENAPI_TYPESCRIPT = Path(__file__).parents[2] / "tools/contract/node_modules/.bin/openapi-typescript"


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method, path, op) for path, item in spec["paths"].items() for method, op in item.items()]


def test_every_operation_has_a_unique_stable_operation_id_and_a_known_tag(spec: dict[str, Any]) -> None:
    operations = _operations(spec)
    ids = [op["operationId"] for _, _, op in operations]
    assert len(ids) == len(set(ids)), ids
    tags = {tag["name"] for tag in TAGS}
    for method, path, op in operations:
        assert re.fullmatch(r"[a-z][A-Za-z0-9]+", op["operationId"]), (method, path)
        assert op["tags"] and set(op["tags"]) <= tags, (method, path)
    by_route = {(method, path): op["operationId"] for method, path, op in operations}
    assert by_route[("post", "/v1/games/{game_id}/moves")] == "submitMoves"
    assert by_route[("get", "/v1/games/{game_id}/events")] == "listEvents"
    assert by_route[("post", "/v1/games/{game_id}/stream-tickets")] == "createStreamTicket"
    assert by_route[("post", "/v1/games")] == "createGame"


def test_integers_carry_the_bounds_of_their_proto_types(spec: dict[str, Any], client: httpx.Client) -> None:
    # Fields a client sends keep the bounds the server checks, with an example (ReDoc's sample would
    # otherwise show the bound); answer-only fields show their format and sign, never 2**32 - 1.
    schemas = spec["components"]["schemas"]
    seed = schemas["chaiwala.v1.CreateGameBody"]["properties"]["seed"]
    bounds = {"type": "integer", "format": "uint32", "minimum": 0, "maximum": 4294967295, "examples": [1]}
    assert {key: seed[key] for key in bounds} == bounds and seed["description"]
    sent = {name for name in schemas if "Body" in name or name in ("chaiwala.v1.PlayerSpec", "chaiwala.v1.ClockSpec")}
    for name in sent:
        integers = [node for node in objects(schemas[name]) if node.get("type") == "integer"]
        assert all("minimum" in node and "maximum" in node for node in integers), name
    min_players = schemas["chaiwala.v1.GameType"]["properties"]["min_players"]
    assert min_players["format"] == "uint32" and min_players["minimum"] == 0 and "maximum" not in min_players
    assert not [node for node in objects(schemas) if node.get("maximum") == 2**32 - 1 and "examples" not in node]
    assert not [node for node in objects(schemas) if node.get("format") == "int32" and node.get("minimum") == 0]
    players = [{"name": "Asha"}, {"name": "Bilal"}]
    # In bounds, the integer seed passes the schema and is refused as guessable (seed_hex replaces it).
    in_bounds = client.post("/v1/games", json={"game_type": GAME, "players": players, "seed": 4_000_000_000})
    assert_problem(in_bounds, 400, "weak_seed")
    too_big = client.post("/v1/games", json={"game_type": GAME, "players": players, "seed": 4294967296})
    assert_problem(too_big, 400)


def test_typed_unions_carry_a_discriminator_on_at_type(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    state = schemas["chaiwala.v1.Game"]["properties"]["state"]
    assert state["discriminator"]["propertyName"] == "@type"
    assert set(state["discriminator"]["mapping"].values()) == STATE_REFS
    assert state["discriminator"]["mapping"]["type.googleapis.com/chaiwala.darjeeling.v1.State"].endswith(
        "chaiwala.darjeeling.v1.State.Packed"
    )
    body_move = schemas["chaiwala.v1.SubmitMovesBody"]["properties"]["move"]
    assert body_move["discriminator"]["propertyName"] == "@type" and len(body_move["oneOf"]) == len(GAMES)
    legal = schemas["chaiwala.v1.LegalMoves"]["properties"]["moves"]["items"]
    assert legal["discriminator"]["propertyName"] == "@type"
    element = schemas[legal["oneOf"][0]["$ref"].split("/")[-1]]
    # A move is a union of its kinds (exactly one set): each variant carries @type and the sentence.
    for variant in element["oneOf"]:
        assert variant["properties"]["text"]["type"] == "string"
        assert "text" not in variant["required"] and "@type" in variant["required"]
    assert body_move["oneOf"] == legal["oneOf"]  # an element of legal-moves is a valid body as is


def test_docs_pages_load_their_scripts_from_the_gateway_itself(client: httpx.Client) -> None:
    for page, marker in (("/docs", "SwaggerUIBundle"), ("/redoc", "<redoc")):
        html = client.get(page)
        assert html.status_code == 200 and marker in html.text
        sources = re.findall(r'(?:src|href)="([^"]+)"', html.text)
        assert sources and all(src.startswith("/docs/assets/") for src in sources), sources
        assert "http://" not in html.text and "https://" not in html.text
        for src in sources:
            asset = client.get(src)
            assert asset.status_code == 200 and len(asset.content) > 1000, src
    assert client.get("/docs/assets/swagger-ui-bundle.js").headers["content-type"].startswith("text/javascript")
    assert b"cdn.redoc.ly" not in client.get("/docs/assets/redoc.standalone.js").content
    assert_problem(client.get("/docs/assets/..%2f..%2fpyproject.toml"), 404)
    assert_problem(client.get("/docs/assets/secrets.txt"), 404)


# --------------------------------------------------------------------------------------------------
# generated clients


def test_generated_python_client_types_the_move_body_and_the_four_states(python_client: Any) -> None:
    models = importlib.import_module("chaiwala_client.models")
    body = importlib.import_module("chaiwala_client.models.chaiwala_v1_submit_moves_body")
    source = Path(body.__file__).read_text()
    assert "move: Any" not in source and "body: Any" not in source
    assert re.search(r"move: .*ChaiwalaDarjeelingV1MoveLegal", source)
    submit = Path(importlib.import_module("chaiwala_client.api.moves.submit_moves").__file__).read_text()
    assert "body: ChaiwalaV1SubmitMovesBody" in submit
    for name in ("Alubari", "Darjeeling", "TeaRum", "IndiaRails"):
        state = getattr(models, f"Chaiwala{name}V1State")
        assert len(state.__annotations__) >= 5, name
    game = Path(importlib.import_module("chaiwala_client.models.chaiwala_v1_game").__file__).read_text()
    assert re.search(r"state: ChaiwalaAlubariV1StatePacked \| ChaiwalaDarjeelingV1StatePacked", game)


def test_generated_python_client_plays_against_the_real_gateway(python_client: Any, client: httpx.Client) -> None:
    from chaiwala_client import AuthenticatedClient, Client  # type: ignore[import-not-found]
    from chaiwala_client.api.games import create_game as create  # type: ignore[import-not-found]
    from chaiwala_client.api.moves import list_legal_moves, submit_moves  # type: ignore[import-not-found]
    from chaiwala_client.models import (  # type: ignore[import-not-found]
        ChaiwalaDarjeelingV1StatePacked,
        ChaiwalaV1CreateGameBody,
        ChaiwalaV1CreateGameBodyGameType,
        ChaiwalaV1PlayerSpec,
        ChaiwalaV1SubmitMovesBody,
    )

    anonymous = Client(base_url=str(client.base_url))
    players = [ChaiwalaV1PlayerSpec(name="Asha"), ChaiwalaV1PlayerSpec(name="Bilal")]
    created = create.sync(client=anonymous, body=ChaiwalaV1CreateGameBody(
        # The game types served are an enum.
        game_type=ChaiwalaV1CreateGameBodyGameType(GAME), players=players, seed_hex=seed_hex(5)
    ))
    to_act = client.get(f"/v1/games/{created.game_id}").json()["to_act"][0]
    seat = AuthenticatedClient(base_url=str(client.base_url), token=created.seats[to_act].token)
    legal = list_legal_moves.sync(created.game_id, client=seat)
    move = legal.moves[0]
    # A move is a union of its kinds: one class per kind (ChaiwalaDarjeelingV1MoveLegalType<n>).
    assert type(move).__name__.startswith("ChaiwalaDarjeelingV1MoveLegalType"), type(move)
    body = ChaiwalaV1SubmitMovesBody(move=move, expected_version=legal.version)
    answer = submit_moves.sync(created.game_id, client=seat, body=body)
    assert answer.version == legal.version + 1
    assert isinstance(answer.state, ChaiwalaDarjeelingV1StatePacked)


def test_generated_typescript_types_the_move_body_and_the_four_states(spec: dict[str, Any], tmp_path: Path) -> None:
    # The pinned openapi-typescript of tools/contract (`make contract` installs it with npm ci; `make
    # test` runs that first).  A machine without it fails here, it does not skip.
    assert OPENAPI_TYPESCRIPT.exists(), "run `make contract` first: it installs the pinned TypeScript tools"
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    command = [str(OPENAPI_TYPESCRIPT), "spec.json", "--output", "api.d.ts"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    types = (tmp_path / "api.d.ts").read_text()
    assert re.search(r"submitMoves: \{", types)
    body = types[types.index('"chaiwala.v1.SubmitMovesBody": {') :][:600]
    assert 'components["schemas"]["chaiwala.darjeeling.v1.Move.Legal"]' in body, body
    for game in GAMES:
        # A state's fields without presence are always printed: required (non-optional) properties.
        state = types[types.index(f'"chaiwala.{game}.v1.State.Packed": {{') :].split("\n        };")[0]
        fields = re.findall(r"^ {12}([a-z_]+)(\??): ", state, flags=re.MULTILINE)
        assert len([name for name, optional in fields if not optional]) >= 5, state[:600]
        assert "unknown" not in state, state[:600]
