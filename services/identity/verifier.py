"""Verifying player tokens: who a JWT from a trusted issuer says its bearer is.

Call it from any request handler that received a bearer (the gateway or a rules service)::

    from services.common.interceptors import BEARER
    from services.identity.verifier import verifier_for

    verifier = verifier_for(store.redis)            # one per Redis client, built once, kept
    player = await verifier.player(BEARER.get())    # Player | None
    if player is None:
        ...  # not a JWT: a seat token, an entrant token or an operator key; judge it as before
    # else: player.player_id ("acme:42", "guest:3kq…"), player.name, player.issuer_alias

A bearer that is not shaped like a JWT (three dot-separated base64url parts; seat tokens and
operator keys are long random strings without dots) gives ``None``.  A JWT that fails any
check raises a :class:`~services.common.errors.ServiceError` (UNAUTHENTICATED,
``invalid_player_token``; 401 on REST) which the RPC interceptor sends as it is.

Checks, in order: the token's ``iss`` names a trusted issuer (a platform of
``CHAIWALA_TRUSTED_ISSUERS`` or the guest issuer); its header's ``alg`` is in that issuer's
allow list (never ``none``, never HMAC); its ``kid`` names a key of the issuer (a platform's
JWKS is refetched, rate-limited, on an unknown ``kid``); the signature; ``exp`` (required),
``nbf`` and ``iat`` with a small leeway; ``aud``; a ``sub`` that makes a usable player id.
Tokens are never logged.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass
from typing import Any, Protocol

import jwt
from redis.asyncio import Redis, RedisCluster

from services.common import errors
from services.common.errors import ServiceError
from services.identity.guest import ALGORITHM as GUEST_ALGORITHM
from services.identity.guest import GuestIssuer, GuestKeys
from services.identity.jwks import JwksSource
from services.identity.player import Player, invalid_player_token, looks_like_jwt, player_id, shown_name
from services.identity.settings import GUEST_ALIAS, IdentitySettings

REQUIRED_CLAIMS = ["exp", "iss", "aud", "sub"]


class KeySource(Protocol):
    """Where an issuer's verification keys come from."""

    async def key(self, kid: str, algorithm: str) -> Any:
        """The key that verifies a token with header ``kid`` and ``algorithm``; refuses otherwise."""
        ...


class _GuestSource:
    """The guest issuer's keys as a :class:`KeySource`."""

    def __init__(self, issuer: GuestIssuer) -> None:
        self.issuer = issuer

    async def key(self, kid: str, algorithm: str) -> Any:
        found = await self.issuer.key(kid) if kid else None
        if found is None:
            raise invalid_player_token("no key of the issuer has this key id")
        return found


@dataclass(frozen=True)
class TrustedIssuer:
    """An issuer whose tokens are accepted."""

    alias: str
    issuer: str
    audience: str
    algorithms: tuple[str, ...]
    source: KeySource


class Verifier:
    """Verifies player tokens against the trusted issuers; mints guest tokens when guests are on."""

    def __init__(self, settings: IdentitySettings, redis: Redis | RedisCluster) -> None:
        self.settings = settings
        self.leeway = settings.jwt_leeway_seconds
        self.issuers: dict[str, TrustedIssuer] = {}
        for config in settings.issuers():
            source = JwksSource(config, settings.jwks_max_age_seconds, settings.jwks_refresh_min_seconds)
            trusted = TrustedIssuer(config.alias, config.issuer, config.audience, config.algorithms, source)
            self.issuers[config.issuer] = trusted
        self.guest: GuestIssuer | None = None
        if settings.guest_sessions:
            keys = GuestKeys(redis, settings.rotation_seconds(), settings.guest_token_ttl_seconds, self.leeway)
            self.guest = GuestIssuer(keys, settings.guest_issuer, settings.guest_audience)
            guest_source: KeySource = _GuestSource(self.guest)
            algorithms = (GUEST_ALGORITHM,)
            guest = TrustedIssuer(GUEST_ALIAS, settings.guest_issuer, settings.guest_audience, algorithms, guest_source)
            self.issuers[settings.guest_issuer] = guest

    async def player(self, token: str) -> Player | None:
        """The player ``token`` vouches for; ``None`` when it is no JWT at all; refuses a bad JWT."""
        if not looks_like_jwt(token):
            return None
        header, unverified = _peek(token)
        issuer = self.issuers.get(str(unverified.get("iss", "")))
        if issuer is None:
            raise invalid_player_token("its issuer is not trusted here")
        algorithm = str(header.get("alg", ""))
        if algorithm not in issuer.algorithms:
            raise invalid_player_token(f"algorithm {algorithm[:16]!r} is not accepted from this issuer")
        key = await issuer.source.key(str(header.get("kid", "")), algorithm)
        claims = self._verified(token, key, algorithm, issuer)
        subject = str(claims["sub"])
        identity = player_id(issuer.alias, subject)
        return Player(identity, shown_name(issuer.alias, claims, subject), issuer.alias, subject, int(claims["exp"]))

    def _verified(self, token: str, key: Any, algorithm: str, issuer: TrustedIssuer) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                audience=issuer.audience,
                issuer=issuer.issuer,
                leeway=self.leeway,
                options={"require": REQUIRED_CLAIMS},
            )
        except jwt.ExpiredSignatureError:
            raise invalid_player_token("it has expired") from None
        except jwt.ImmatureSignatureError:
            raise invalid_player_token("it is not valid yet") from None
        except jwt.InvalidAudienceError:
            raise invalid_player_token("it is meant for another audience") from None
        except jwt.InvalidSignatureError:
            raise invalid_player_token("its signature does not verify") from None
        except (jwt.PyJWTError, ValueError, TypeError):
            raise invalid_player_token("it does not verify") from None
        if not isinstance(claims.get("sub"), str):
            raise invalid_player_token("its `sub` claim is not a string")
        self._check_times(claims)
        return claims

    def _check_times(self, claims: dict[str, Any]) -> None:
        """``exp``, ``nbf`` and ``iat`` are numbers (JSON numbers, not strings PyJWT would convert),
        and the token lives at most ``player_token_max_lifetime_seconds``: from now, and from its
        ``iat`` when it has one (a token that outlives its platform's session is a stolen one's gain)."""
        for name in ("exp", "nbf", "iat"):
            value = claims.get(name)
            if name in claims and (isinstance(value, bool) or not isinstance(value, int | float)):
                raise invalid_player_token(f"its `{name}` claim is not a number")
        longest = self.settings.player_token_max_lifetime_seconds + self.leeway
        start = claims["iat"] if "iat" in claims else time.time()
        if claims["exp"] - time.time() > longest or claims["exp"] - start > longest:
            raise invalid_player_token(f"it lives longer than {self.settings.player_token_max_lifetime_seconds}s")

    async def guest_player(self, token: str) -> Player:
        """The guest player ``token`` (a valid guest token) vouches for; refuses any other bearer."""
        player = await self.player(token) if token else None
        if player is None:
            raise _no_player_token()
        if player.issuer_alias != GUEST_ALIAS:
            raise errors.forbidden("not_a_guest_token", "only guest tokens are refreshed here; ask your platform")
        return player


def _peek(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and claims of ``token`` before verification (to choose the issuer and key)."""
    try:
        header = jwt.get_unverified_header(token)
        claims = jwt.decode(token, options={"verify_signature": False})
    except (jwt.PyJWTError, ValueError, TypeError):
        raise invalid_player_token("it is not a well-formed JWT") from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise invalid_player_token("it is not a well-formed JWT")
    return header, claims


def _no_player_token() -> ServiceError:
    return errors.unauthenticated("send a player token as 'Authorization: Bearer <token>'")


RedisClient = Redis | RedisCluster
_VERIFIERS: weakref.WeakKeyDictionary[RedisClient, Verifier] = weakref.WeakKeyDictionary()


def verifier_for(redis: RedisClient, settings: IdentitySettings | None = None) -> Verifier:
    """The verifier of this process for ``redis`` (a Redis client, e.g. ``GameStore.redis``), kept.

    The first call builds it from ``settings`` (default: the environment, ``CHAIWALA_*``) and
    checks the configuration (:class:`~services.identity.settings.IdentityConfigError`);
    later calls with the same client return the same verifier, whose JWKS caches persist.
    A verifier belongs to its client's event loop, as the client does.
    """
    verifier = _VERIFIERS.get(redis)
    if verifier is None:
        verifier = Verifier(settings or IdentitySettings(), redis)
        _VERIFIERS[redis] = verifier
    return verifier
