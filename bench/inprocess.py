"""The quick slice's stack: the same servers, in threads of the benchmark process itself.

Booting four Python servers on a busy two-core machine takes longer than the whole quick
slice; threads start in a moment.  The figures of such a run mean nothing (client and servers
share one interpreter, and "CPU per move" counts them all) — the quick slice only proves that
every case runs end to end and reports well-formed rows.  Redis is still a real server.

A suite that asks for settings of its own (``extra``: the many-streams suites lift their stream and
session limits) gets servers of its own, started with them: the shared ones were started without,
and a running server takes no new settings (before, the suite silently got the shared ones).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from bench import echo, trivial
from bench.procs import UNLIMITED, Child, Stack, cpu_seconds
from services.common.embedded_redis import free_port
from services.common.logs import configure_logging
from tests.support.stack import Gateway, Services


@dataclass
class ThreadServer(Child):
    """A server running in a thread of this process."""

    halt: Callable[[], None] = field(default=lambda: None)
    settings: dict[str, str] = field(default_factory=dict)  # what it was started with, by environment name

    @property
    def pid(self) -> int:
        """This process."""
        return os.getpid()

    def processes(self) -> int:
        """One: this process."""
        return 1

    def cpu(self) -> float:
        """This whole process's CPU seconds (servers and client together)."""
        return cpu_seconds(self.pid)

    def stop(self) -> None:
        """Stop the server."""
        self.halt()


def _settings_of(env: dict[str, str]) -> dict[str, Any]:
    return {name.removeprefix("CHAIWALA_").lower(): value for name, value in env.items()}


@contextlib.contextmanager
def _environment(extra: dict[str, str]) -> Iterator[None]:
    """``extra`` in this process's environment while a service boots (it reads its settings then), and
    put back after: the process may be a test run, whose other servers must not inherit them."""
    saved = {name: os.environ.get(name) for name in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclass
class InProcessStack(Stack):
    """:class:`~bench.procs.Stack` with every server in a thread (Redis stays a process)."""

    services: Services | None = None

    def __post_init__(self) -> None:
        configure_logging("console", "warning")  # servers share this process: no per-call lines

    def _loop(self) -> Services:
        if self.services is None:
            self.services = Services(self.redis_url)
        return self.services

    def _found(self, name: str, settings: dict[str, str] | None = None) -> Child | None:
        """The server ``name`` already running with exactly these settings."""
        wanted = settings or {}
        running = (child for child in self.children if isinstance(child, ThreadServer) and child.name == name)
        return next((child for child in running if child.settings == wanted), None)

    def rules(self, game_type: str, extra: dict[str, str] | None = None) -> Child:
        """The rules service on the shared background loop; ``extra`` settings (environment names, as
        :meth:`bench.procs.Stack.rules` takes them) are in this process's environment while it boots."""
        found = self._found(f"rules-{game_type}", extra)
        if found is not None:
            return found
        services = self._loop()
        with _environment(extra or {}):
            running = services.start(game_type)
        child = ThreadServer(f"rules-{game_type}", None, running.port, self.work / "none",  # type: ignore[arg-type]
                             halt=lambda: services.stop(running), settings=dict(extra or {}))  # fmt: skip
        self.children.append(child)
        return child

    def gateway(self, services: dict[str, Child], extra: dict[str, str] | None = None) -> Child:
        """The gateway under uvicorn in a thread (``extra``: more settings, by environment name)."""
        addresses = {game: f"127.0.0.1:{child.port}" for game, child in services.items()}
        settings = {**(extra or {}), **{f"CHAIWALA_SERVICE_{game.upper()}": at for game, at in addresses.items()}}
        found = self._found("gateway", settings)
        if found is not None:
            return found
        gateway = Gateway(addresses, **_settings_of({**UNLIMITED, **(extra or {})}))
        child = ThreadServer("gateway", None, gateway.port, self.work / "none",  # type: ignore[arg-type]
                             halt=gateway.stop, settings=settings)  # fmt: skip
        self.children.append(child)
        return child

    def trivial(self) -> Child:
        """The trivial endpoint under uvicorn in a thread."""
        found = self._found("trivial")
        if found is not None:
            return found
        port = free_port()
        trivial.app.state.redis_url = self.redis_url
        server = uvicorn.Server(uvicorn.Config(trivial.app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started and thread.is_alive():
            time.sleep(0.02)

        def halt() -> None:
            server.should_exit = True
            thread.join(timeout=10)

        child = ThreadServer("trivial", None, port, self.work / "none", halt=halt)  # type: ignore[arg-type]
        self.children.append(child)
        return child

    def echo(self, intercepted: bool = False) -> Child:
        """The echo server on the shared background loop."""
        name = "echo-intercepted" if intercepted else "echo"
        found = self._found(name)
        if found is not None:
            return found
        port = free_port()
        loop = self._loop().loops
        server = loop.run(echo.start(port, intercepted))
        child = ThreadServer(name, None, port, self.work / "none",  # type: ignore[arg-type]
                             halt=lambda: loop.run(server.stop(None)))  # fmt: skip
        self.children.append(child)
        return child

    def prestart(self, game_type: str) -> None:
        """Start everything the suites use (threads start at once: nothing to overlap)."""
        rules = self.rules(game_type)
        self.gateway({game_type: rules})
        self.trivial()
        self.echo()
        self.echo(intercepted=True)

    def close(self) -> None:
        """Stop every server, the loop, then Redis."""
        for child in reversed(self.children):
            child.stop()
        self.children.clear()
        if self.services is not None:
            self.services.close()
            self.services = None
        super().close()
