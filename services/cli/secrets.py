"""``chaiwala secrets``: the master key ring that seals secrets kept in Redis (services.common.sealing).

* ``new-key`` prints a fresh key ring line (``<key id> <base64 key>``) to add to the ring's file;
* ``reseal`` seals every sealed place (games' seeds, secrets and snapshots, guest signing keys,
  tournaments' seeds and secrets, webhook secrets) with the ring's current key: after a rotation,
  before the old key's line is removed, or once after upgrading from a release that stored them in
  clear.  It reads ``REDIS_URL`` (with its password) and ``CHAIWALA_SECRET_KEYS_FILE`` like the
  services do, and prints counts only, never a secret.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from services.common.loops import run_loop
from services.common.sealing import SealingError, keyring, new_key_line
from services.common.settings import ServiceSettings
from services.games.sealed import reseal_games
from services.games.store import GameStore
from services.identity.guest import reseal_guest_keys
from services.tournament.store import reseal_tournaments
from services.webhook.store import reseal_subscriptions

secrets_app = typer.Typer(help="The master key ring that seals secrets in Redis.", no_args_is_help=True)


@secrets_app.command("new-key")
def new_key(key_id: Annotated[str, typer.Option(help="The new key's id (default: a random one).")] = "") -> None:
    """Print a fresh key ring line; add it to CHAIWALA_SECRET_KEYS_FILE (see the operators guide)."""
    try:
        typer.echo(new_key_line(key_id))
    except SealingError as error:
        raise typer.BadParameter(str(error)) from None


@secrets_app.command("reseal")
def reseal() -> None:
    """Seal every secret stored in Redis with the key ring's current key."""
    settings = ServiceSettings()
    if not settings.redis_url:
        raise typer.BadParameter("REDIS_URL is not set")
    try:
        ring = keyring()
    except SealingError as error:
        raise typer.BadParameter(str(error)) from None
    counts = run_loop(_reseal_all(settings.redis_url, settings.redis_cluster))
    typer.echo(f"sealed with key {ring.current}: " + ", ".join(f"{count} {name}" for name, count in counts.items()))


async def _reseal_all(url: str, cluster: bool) -> dict[str, int]:
    store = GameStore.from_url(url, cluster=cluster)
    try:
        redis = store.redis
        games, guests, tournaments, webhooks = await asyncio.gather(
            reseal_games(redis), reseal_guest_keys(redis), reseal_tournaments(redis), reseal_subscriptions(redis)
        )
    finally:
        await store.close()
    return {"game values": games, "guest keys": guests, "tournaments": tournaments, "webhook secrets": webhooks}
