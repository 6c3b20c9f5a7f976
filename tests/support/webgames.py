"""Games for the web client tests, created and read through the REST API."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.seeds import seed_hex


def create(
    base_url: str, game_type: str, players: list[dict[str, Any]], seed: int | None = None, **extra: Any
) -> dict[str, Any]:
    """POST /v1/games; the answer (with each filled seat's token); ``seed`` is sent as ``seed_hex``."""
    body = {"game_type": game_type, "players": players, **extra}
    if seed is not None:
        body["seed_hex"] = seed_hex(seed)
    answer = httpx.post(f"{base_url}/v1/games", json=body, timeout=30)
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


def create_for_first_seat(
    base_url: str, game_type: str, players: list[dict[str, Any]], seed: int | None = None, **extra: Any
) -> tuple[str, str]:
    """:func:`create`; the new game's id and the first seat's token (the seat a test plays)."""
    created = create(base_url, game_type, players, seed, **extra)
    return str(created["game_id"]), str(created["seats"][0]["token"])


def game(base_url: str, game_id: str, token: str | None = None) -> dict[str, Any]:
    """GET /v1/games/{id} as a seat or a spectator."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = httpx.get(f"{base_url}/v1/games/{game_id}", headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def event_lines(
    base_url: str, game_id: str, token: str | None = None, language: str = "en"
) -> list[tuple[str, str]]:
    """Every event as ``(version:index, sentence)``, as the seat of ``token`` (or a spectator) sees it."""
    headers = {"Accept-Language": language, **({"Authorization": f"Bearer {token}"} if token else {})}
    answer = httpx.get(f"{base_url}/v1/games/{game_id}/events", headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    return [(f"{e.get('version', 0)}:{e.get('index', 0)}", e.get("text") or e.get("kind", "")) for e in answer.json()]
