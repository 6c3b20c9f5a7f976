"""Tournament seeds of 256 bits: drawn or given as hex, hidden while running, revealed whole at the end.

Through the real stack (director, rules services, conductor, gateway): every table's game is
seeded with the whole HMAC of the tournament seed, and the seed appears in
``GET /v1/tournaments/{id}`` as 64 hex digits only once the tournament is finished.  Records
stored before 256-bit seeds keep their 32-bit derivation.
"""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from services.common.rng import KIND_KEYED, SEED_BITS
from services.common.sealing import is_sealed
from services.tournament import seeds
from services.tournament.model import Entrant, Tournament
from tests.support.client import assert_problem, auth, wait_tournament_finished

WAIT_SECONDS = 60.0
OPERATOR_SEED = "9" * 40 + "abcdef" * 4


def _bots(prefix: str, count: int) -> list[dict[str, str]]:
    return [{"external_id": f"bot:{prefix}{i}", "name": f"Bot {prefix}{i}", "bot": "heuristic"} for i in range(count)]


def _create(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/v1/tournaments", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created



def _check_game_seeds(client: httpx.Client, tournament_id: str, seed_hex: str) -> int:
    """Every table's game was seeded with the whole HMAC of the tournament seed; return the count."""
    rounds = client.get(f"/v1/tournaments/{tournament_id}/rounds").json()["rounds"]
    count = 0
    for played in rounds:
        for number, table in enumerate(played["tables"]):
            replay = client.get(f"/v1/games/{table['game_id']}/replay").json()
            expected = seeds.game_seed(int(seed_hex, 16), played["number"], number)
            assert replay["seed_hex"] == format(expected, "064x") and replay["generator"] == KIND_KEYED
            count += 1
    return count


def test_a_drawn_tournament_seed_is_hidden_while_running_and_revealed_as_64_hex_digits(client: httpx.Client) -> None:
    entrants = [{"external_id": "seed-human", "name": "Asha"}, *_bots("seed-bot", 1)]
    body = {"game_type": "darjeeling", "format": "round_robin", "table_size": 2, "entrants": entrants}
    created = _create(client, body)
    tournament_id = created["tournament_id"]
    running = client.get(f"/v1/tournaments/{tournament_id}").json()
    assert running["status"] == "running"  # the human has not moved: it cannot be over
    assert "seed" not in running and running["seed_source"] == "server"
    withdrawn = client.post(f"/v1/tournaments/{tournament_id}/withdraw", headers=auth(created["entrants"][0]["token"]))
    assert withdrawn.status_code == 200, withdrawn.text
    assert "seed" not in withdrawn.json()
    finished = wait_tournament_finished(client, tournament_id)
    assert len(finished["seed"]) == 64 and int(finished["seed"], 16) >= 2**64  # 2**-192 to fail by chance
    assert _check_game_seeds(client, tournament_id, finished["seed"]) == 1


def test_an_operator_seed_of_256_bits_is_used_whole_and_revealed_as_given(client: httpx.Client) -> None:
    body = {"game_type": "darjeeling", "format": "swiss", "rounds": 2, "table_size": 2,
            "entrants": _bots("hex", 4), "seed_hex": OPERATOR_SEED}  # fmt: skip
    tournament_id = _create(client, body)["tournament_id"]
    finished = wait_tournament_finished(client, tournament_id)
    assert finished["seed"] == OPERATOR_SEED and finished["seed_source"] == "operator"
    assert _check_game_seeds(client, tournament_id, OPERATOR_SEED) == 4


def test_bad_tournament_seeds_are_refused(client: httpx.Client) -> None:
    base = {"game_type": "darjeeling", "format": "swiss", "table_size": 2, "entrants": _bots("bad", 2)}
    for extra in ({"seed_hex": "1" * 65}, {"seed_hex": "xyz"}, {"seed_hex": "12", "seed": 12}):
        assert_problem(client.post("/v1/tournaments", json={**base, **extra}), 400, "bad_seed")
    for extra in ({"seed": 20261201}, {"seed_hex": "c0ffee"}, {"seed_hex": "a" * 31}):  # guessable: weak
        refused = client.post("/v1/tournaments", json={**base, **extra})
        assert_problem(refused, 400, "weak_seed")
        assert "seed_hex" in refused.json()["detail"]


def _tournament(seed: int) -> Tournament:
    entrants = [Entrant(external_id="a", name="A"), Entrant(external_id="b", name="B")]
    return Tournament(tournament_id="t-1", game_type="darjeeling", format="swiss", table_size=2,
                      entrants=entrants, seed=seed, seed_source="server")  # fmt: skip


def test_a_256_bit_seed_survives_the_stored_form() -> None:
    tournament = _tournament(2**256 - 12345)
    tournament.secret = "s" * 64
    stored = orjson.loads(tournament.to_json())
    assert is_sealed(stored["seed"]) and is_sealed(stored["secret"])  # neither in clear in Redis
    again = Tournament.from_json(tournament.to_json())
    assert again.secret == "s" * 64
    assert again.seed == 2**256 - 12345 and again.seed_bits == SEED_BITS


def test_a_record_from_before_256_bit_seeds_keeps_its_32_bit_game_seeds() -> None:
    # As stored then: the seed a JSON number, no seed_bits, nothing sealed (read as it is).
    record = {key: value for key, value in orjson.loads(_tournament(0).to_json()).items() if key != "seed_bits"}
    old = Tournament.from_json(orjson.dumps({**record, "seed": 20261201}))
    assert old.seed == 20261201 and old.seed_bits == seeds.LEGACY_SEED_BITS
    # Recorded from services/tournament/seeds.py as it was, for round 2, table 1.
    assert seeds.game_seed(old.seed, 2, 1, old.seed_bits) == 3720028227
    assert seeds.game_seed(old.seed, 2, 1) >= 2**64  # the new derivation keeps all 256 bits
    assert seeds.draw_seed() != seeds.draw_seed()
