"""Service configuration from the environment (``CHAIWALA_*``, ``REDIS_URL``).

Redis requires a password everywhere (``make run``'s embedded Redis, Compose, Kubernetes).  Every
client takes it from ``REDIS_URL`` (``redis://:<password>@host:6379/0``, URL-escaped), or, when
``CHAIWALA_REDIS_PASSWORD_FILE`` names a file (a Compose or Kubernetes secret), from that file,
which then fills the URL's password.  A process refuses to start with a ``REDIS_URL`` that carries
no password unless ``CHAIWALA_REDIS_ALLOW_NO_PASSWORD=1`` says so on purpose (a Redis reached
through mutual TLS, say): :meth:`RedisConnection.redis_auth_refusal`.

TLS to Redis is optional: a ``rediss://`` URL, with the CA that signed the server's certificate in
``CHAIWALA_REDIS_TLS_CA_FILE`` (else the system's trust store), and for mutual TLS the client's
certificate and key in ``CHAIWALA_REDIS_TLS_CERT_FILE`` and ``CHAIWALA_REDIS_TLS_KEY_FILE``.  They
are folded into the URL as redis-py's own query arguments (``ssl_ca_certs``, ``ssl_certfile``,
``ssl_keyfile``; :func:`url_with_tls`), so every client made from ``REDIS_URL`` (the store's,
:func:`services.common.store.redis_client`, and the gateway's rate limits') verifies the server
the same way.  Naming them beside a plain ``redis://`` URL is refused: it would not be used.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from pydantic import AliasChoices, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def url_with_password(url: str, password: str) -> str:
    """``url`` with ``password`` as its password (its user name, if any, kept)."""
    parts = urlsplit(url)
    user = quote(parts.username or "", safe="")
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    netloc = f"{user}:{quote(password, safe='')}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


# The settings of TLS to Redis, and the redis-py connection argument each one fills.
TLS_OPTIONS = {"redis_tls_ca_file": "ssl_ca_certs", "redis_tls_cert_file": "ssl_certfile",
               "redis_tls_key_file": "ssl_keyfile"}  # fmt: skip


def url_with_tls(url: str, options: dict[str, str]) -> str:
    """``url`` (``rediss://``) with redis-py's TLS ``options`` (argument -> value) in its query."""
    parts = urlsplit(url)
    query = [(name, value) for name, value in parse_qsl(parts.query) if name not in options]
    query += sorted(options.items())
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


class RedisConnection(BaseSettings):
    """Where Redis is and how a client proves itself to it (shared by every process's settings)."""

    model_config = SettingsConfigDict(env_prefix="CHAIWALA_", extra="ignore")

    redis_url: str = Field(default="", validation_alias=AliasChoices("REDIS_URL", "CHAIWALA_REDIS_URL"))
    redis_cluster: bool = False
    # A file holding Redis's password (a mounted secret); it fills REDIS_URL's password.
    redis_password_file: str = ""
    # Starting with a REDIS_URL that has no password needs this set on purpose.
    redis_allow_no_password: bool = False
    # TLS (a rediss:// URL): the CA file that signed the server's certificate (empty: the system's
    # trust store), and the client's certificate and key for mutual TLS (empty: none).
    redis_tls_ca_file: str = ""
    redis_tls_cert_file: str = ""
    redis_tls_key_file: str = ""

    @model_validator(mode="after")
    def _password_from_file(self) -> RedisConnection:
        if self.redis_url and self.redis_password_file:
            try:
                password = Path(self.redis_password_file).read_text(encoding="utf-8").strip()
            except OSError as error:  # the message names the file, never its content
                raise ValueError(f"CHAIWALA_REDIS_PASSWORD_FILE: cannot read {self.redis_password_file}") from error
            self.redis_url = url_with_password(self.redis_url, password)
        return self

    @model_validator(mode="after")
    def _tls_options(self) -> RedisConnection:
        options = {argument: getattr(self, name) for name, argument in TLS_OPTIONS.items() if getattr(self, name)}
        if not options or not self.redis_url:
            return self
        if urlsplit(self.redis_url).scheme != "rediss":
            named = ", ".join(f"CHAIWALA_{name.upper()}" for name in TLS_OPTIONS if getattr(self, name))
            raise ValueError(f"{named} set, but REDIS_URL is not rediss:// (TLS): use rediss:// or unset them")
        self.redis_url = url_with_tls(self.redis_url, options)
        return self

    def redis_auth_refusal(self) -> str | None:
        """Why this process must not start with its ``REDIS_URL`` (no password), or ``None``."""
        if not self.redis_url or self.redis_allow_no_password or urlsplit(self.redis_url).password:
            return None
        return (
            "REDIS_URL carries no password: Redis must require one (redis://:<password>@host:port/0, or "
            "CHAIWALA_REDIS_PASSWORD_FILE); set CHAIWALA_REDIS_ALLOW_NO_PASSWORD=1 only for a Redis "
            "that authenticates clients otherwise"
        )


class ServiceSettings(RedisConnection):
    """Settings of one rules service process."""

    model_config = SettingsConfigDict(env_prefix="CHAIWALA_", extra="ignore")

    # Loopback unless told otherwise (see services.common.exposure).
    grpc_host: str = "127.0.0.1"
    grpc_port: int = 50051
    metrics_port: int = 9090
    # When set, the metrics endpoint wants `Authorization: Bearer <token>` (/healthz stays open).
    metrics_token: str = ""
    # Processes of this service sharing the gRPC port (0 = one per core; services.common.workers).
    grpc_processes: int = 0
    api_keys: str = ""
    # Serving a non-loopback address with no API keys needs this set on purpose.
    insecure_open: bool = False
    log_format: str = "json"
    log_level: str = "info"
    # Redis connections for calls (per node on a cluster), and how long a call waits for a free
    # one before it fails as unavailable (503 store_unavailable, Retry-After).
    redis_max_connections: int = 100
    redis_pool_timeout_seconds: float = 2.0
    # Live events (services.streaming): games one process follows at once, the Redis connections
    # (blocking readers, apart from the calls' pool) that read all of them and the players' feeds
    # (services.streaming.mux), and how many log entries a watcher may fall behind.
    # CHAIWALA_STREAM_READERS, the old name of the games' bound (one connection each then), is read too.
    stream_games: int = Field(
        default=20000, validation_alias=AliasChoices("CHAIWALA_STREAM_GAMES", "CHAIWALA_STREAM_READERS")
    )
    # 128: a notice re-issues its reader's XREAD over every key the reader follows, so keys per read is
    # what Redis pays per notice; at 10,000 players (~5,000 feeds a process) moves ran at 0.41-0.57 of
    # their rate with 8 readers, 0.70-0.78 with 64 and 0.90-1.19 with 128 (docs/lab/many-listeners.md).
    # Readers start only for groups that have keys, so a quiet process still uses few connections.
    stream_connections: int = 128
    stream_buffer: int = 1024
    # Games whose last position a process keeps, so a move on one needs no load (services.rules.positions;
    # 28-205 KiB a game by game type, docs/lab/move-path.md); 0 keeps none.
    kept_positions: int = Field(default=512, ge=0)
    # SIGTERM: open watches end at once (UNAVAILABLE shutting_down), in-flight calls get this long.
    shutdown_grace_seconds: float = 5.0

    def api_key_set(self) -> frozenset[str]:
        """The configured operator keys; empty means the service is open (local dev)."""
        return frozenset(key.strip() for key in self.api_keys.split(",") if key.strip())
