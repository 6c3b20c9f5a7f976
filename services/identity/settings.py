"""Identity configuration: the trusted issuers and the guest issuer (``CHAIWALA_*``).

``CHAIWALA_TRUSTED_ISSUERS`` is a JSON list of issuers whose player tokens the server accepts::

    [{"alias": "acme", "issuer": "https://id.acme.example", "audience": "chaiwala",
      "jwks_url": "https://id.acme.example/.well-known/jwks.json", "algorithms": ["RS256"]}]

Each entry names exactly one of ``jwks_url`` (https, or http on a loopback host) and
``jwks_file`` (a JWKS document on disk).  Only public-key algorithms are allowed: ``none`` and
the HMAC family (``HS256`` ...) are refused when the configuration is loaded, because a
verifier that accepts HMAC with a published key can be fooled by anyone holding that key.
A bad configuration stops the process with the reason (:class:`IdentityConfigError`).
"""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

GUEST_ALIAS = "guest"
# Prefixes a platform may not take: the guest issuer's, and the rating ids of bots.
RESERVED_ALIASES = frozenset({GUEST_ALIAS, "bot"})
ALIAS = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
# Public-key signature algorithms PyJWT verifies (with the cryptography package).
PUBLIC_KEY_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
LOOPBACK_NAMES = frozenset({"localhost"})


class IdentityConfigError(ValueError):
    """The identity settings cannot be used; the message says which entry and why."""


def _loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class IssuerConfig(BaseModel):
    """One trusted platform issuer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    alias: str
    issuer: str
    audience: str
    algorithms: tuple[str, ...]
    jwks_url: str = ""
    jwks_file: str = ""

    @field_validator("alias")
    @classmethod
    def _alias(cls, alias: str) -> str:
        if not ALIAS.fullmatch(alias):
            raise ValueError("alias is 1-32 characters from a-z 0-9 _ - (starting with a letter or digit)")
        if alias in RESERVED_ALIASES:
            raise ValueError(f"alias {alias!r} is reserved")
        return alias

    @field_validator("issuer", "audience")
    @classmethod
    def _present(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("algorithms")
    @classmethod
    def _algorithms(cls, algorithms: tuple[str, ...]) -> tuple[str, ...]:
        if not algorithms:
            raise ValueError("name at least one algorithm")
        for name in algorithms:
            if name.lower() == "none" or name.upper().startswith("HS"):
                raise ValueError(f"{name} is not allowed: only public-key algorithms verify platform tokens")
            if name not in PUBLIC_KEY_ALGORITHMS:
                raise ValueError(f"unknown algorithm {name!r} (one of {', '.join(sorted(PUBLIC_KEY_ALGORITHMS))})")
        return algorithms

    @model_validator(mode="after")
    def _one_source(self) -> IssuerConfig:
        if bool(self.jwks_url) == bool(self.jwks_file):
            raise ValueError("give exactly one of jwks_url and jwks_file")
        if self.jwks_url:
            parts = urlsplit(self.jwks_url)
            secure = parts.scheme == "https" or (parts.scheme == "http" and _loopback(parts.hostname or ""))
            if not secure or not parts.hostname:
                raise ValueError("jwks_url must be https (plain http only on a loopback host)")
        return self


def parse_issuers(text: str) -> tuple[IssuerConfig, ...]:
    """The trusted issuers of ``CHAIWALA_TRUSTED_ISSUERS`` (empty text: none)."""
    if not text.strip():
        return ()
    try:
        raw: Any = json.loads(text)
    except json.JSONDecodeError as error:
        raise IdentityConfigError(f"CHAIWALA_TRUSTED_ISSUERS is not JSON: {error}") from None
    if not isinstance(raw, list):
        raise IdentityConfigError("CHAIWALA_TRUSTED_ISSUERS is a JSON list of issuers")
    issuers = []
    for index, entry in enumerate(raw):
        try:
            issuers.append(IssuerConfig.model_validate(entry))
        except ValidationError as error:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'entry'}: {e['msg']}" for e in error.errors())
            raise IdentityConfigError(f"CHAIWALA_TRUSTED_ISSUERS[{index}]: {problems}") from None
    for field in ("alias", "issuer"):
        values = [getattr(issuer, field) for issuer in issuers]
        if len(values) != len(set(values)):
            raise IdentityConfigError(f"CHAIWALA_TRUSTED_ISSUERS: two issuers share one {field}")
    return tuple(issuers)


class IdentitySettings(BaseSettings):
    """Who may vouch for players, and the server's own guest issuer."""

    model_config = SettingsConfigDict(env_prefix="CHAIWALA_", extra="ignore", frozen=True)

    # JSON list of trusted platform issuers (see the module docstring).
    trusted_issuers: str = ""
    # The guest issuer (POST /v1/sessions); off where a platform brings its own issuer.
    guest_sessions: bool = True
    # The `iss` and `aud` of guest tokens (set `guest_issuer` to the public URL of the deployment).
    guest_issuer: str = "urn:chaiwala:guest"
    guest_audience: str = "chaiwala"
    # How long a guest token is accepted (refresh before then).
    guest_token_ttl_seconds: int = 24 * 3600
    # A new guest signing key every this many hours; the old one is still published until every
    # token it signed has expired.
    guest_key_rotation_hours: float = 24.0
    # Clock skew allowed on `exp`, `nbf` and `iat`.
    jwt_leeway_seconds: int = 30
    # The longest a player token may live (from its `iat`, and from now): a platform's token valid
    # for longer is refused (401 invalid_player_token). Guest tokens must fit too.
    player_token_max_lifetime_seconds: int = 24 * 3600
    # A platform's JWKS is fetched again after this long, and at most once per
    # `jwks_refresh_min_seconds` when a token names a key id it does not know.
    jwks_max_age_seconds: float = 600.0
    jwks_refresh_min_seconds: float = 30.0
    # Guest sessions per client address (the gateway's setting of the same name counts REST; the
    # identity service counts gRPC calls no trusted gateway relayed: services.identity.quota).
    session_limit: str = "20/minute;200/hour"
    # Peers whose CreateSession calls come from a gateway that counted them already (addresses or
    # CIDRs): `make run`'s gateway is on loopback; Compose and Kubernetes set their network.
    trusted_gateways: str = "127.0.0.1,::1"
    # How long a stream ticket (a game's, services.rules.tickets, or a player's,
    # services.identity.feed_rpcs) opens a stream: from when it is issued, and again from when the
    # last stream it opened closed (an open stream renews it).  The tests' stacks shorten it to
    # prove the expiry in seconds instead of a minute.
    stream_ticket_seconds: int = Field(default=60, ge=2, le=3600)

    def issuers(self) -> tuple[IssuerConfig, ...]:
        """The trusted platform issuers, checked (:class:`IdentityConfigError` on a bad entry)."""
        issuers = parse_issuers(self.trusted_issuers)
        if self.guest_sessions and any(issuer.issuer == self.guest_issuer for issuer in issuers):
            raise IdentityConfigError("a trusted issuer uses the guest issuer's `iss`; change CHAIWALA_GUEST_ISSUER")
        if self.guest_key_rotation_hours <= 0 or self.guest_token_ttl_seconds <= 0:
            raise IdentityConfigError("guest_key_rotation_hours and guest_token_ttl_seconds must be positive")
        if self.guest_token_ttl_seconds > self.player_token_max_lifetime_seconds:
            raise IdentityConfigError("guest_token_ttl_seconds is longer than player_token_max_lifetime_seconds")
        return issuers

    def rotation_seconds(self) -> float:
        """The life of one guest signing key, in seconds."""
        return self.guest_key_rotation_hours * 3600.0
