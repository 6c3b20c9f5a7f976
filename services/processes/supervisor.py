"""``make run``: the whole stack on one machine, as separate supervised processes.

Starts an embedded Redis (unless ``REDIS_URL`` is set), one rules service per game
whose engine is present, one conductor (bots and clocks; metrics on
``CHAIWALA_RUN_CONDUCTOR_METRICS_PORT``, default 9100), the webhook dispatcher (gRPC on
``CHAIWALA_RUN_WEBHOOK_GRPC_PORT``, default 50060, metrics on ``CHAIWALA_RUN_WEBHOOK_METRICS_PORT``,
default 9160; loopback receivers allowed, for local testing), the tournament director (gRPC on
``CHAIWALA_RUN_TOURNAMENT_PORT``, 50061; metrics on ``CHAIWALA_RUN_TOURNAMENT_METRICS_PORT``, 9099),
the notification sender (gRPC on
``CHAIWALA_RUN_NOTIFY_GRPC_PORT``, 50070; metrics on ``CHAIWALA_RUN_NOTIFY_METRICS_PORT``, 9170;
loopback push endpoints allowed like webhooks), the matchmaker (gRPC on
``CHAIWALA_RUN_MATCHMAKING_PORT``, 50062; metrics on
``CHAIWALA_RUN_MATCHMAKING_METRICS_PORT``, 9162) and the gateway on http://127.0.0.1:8000
(``CHAIWALA_RUN_GAMES``, a comma-separated list, runs only those games' rules services).  A child
that dies is restarted with a growing back-off; Ctrl-C (or SIGTERM) stops them all.

Each child leads its own process group (a rules service's or the gateway's workers are in
it), and the supervisor owns the groups: when a child dies, whatever is left of its group is
stopped before the child is started again, and a stop ends every group, so nothing is left
serving after "stopped".  Children also die with the supervisor itself (SIGTERM on its death,
even by ``kill -9``), and metrics directories of dead groups are removed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from services.common.embedded_redis import (
    REDIS_UMASK,
    loopback_url,
    private_data_dir,
    redis_args,
    redis_password,
    wait_for_redis,
)
from services.common.fdlimit import raise_open_files
from services.common.processes import group_alive, kill_group, start_group, stop_group
from services.common.registry import available_game_types, units
from services.common.sealing import key_file_unless_set
from services.common.workers import Wakeup, remove_stale_metrics_dirs

ROOT = Path(__file__).resolve().parents[2]


def game_order() -> tuple[str, ...]:
    """The registered games in port order (each game's slot, services/games_registry.py)."""
    return tuple(unit.game_type for unit in units())


def _ports(env_name: str, default_base: int) -> dict[str, int]:
    """Ports per registered game: ``base + slot`` (each game's slot is declared where it registers,
    services/games_registry.py), so a registered game gets ports too.

    ``<env_name>S`` (a comma-separated list, one port per game) wins over ``<env_name>_BASE``
    (consecutive ports from a base).  A test running a second stack passes an explicit list of
    ports it found free, because any fixed block may already be taken on a busy machine.
    """
    listed = os.environ.get(f"{env_name}S", "")
    if listed:
        ports = [int(port) for port in listed.split(",")]
        names = game_order()
        if len(ports) != len(names):
            raise SystemExit(f"{env_name}S needs {len(names)} ports, one per game in {names}")
        return dict(zip(names, ports, strict=True))
    base = int(os.environ.get(f"{env_name}_BASE", default_base))
    return {unit.game_type: base + unit.slot for unit in units()}


@dataclass
class Child:
    """One supervised process and how to start it again."""

    name: str
    args: list[str]
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    next_start: float = 0.0
    started_at: float = field(default=0.0)
    umask: int = -1  # the child's umask (-1: the supervisor's own)

    def start(self) -> None:
        """(Re)start the process, as the leader of its own process group."""
        self._end_old_group()
        self.process = start_group(self.args, self.env, cwd=ROOT, umask=self.umask)
        self.started_at = time.monotonic()
        print(f"[supervisor] started {self.name} (pid {self.process.pid})", flush=True)

    def check(self, now: float) -> None:
        """Restart the process if it died, backing off when it keeps dying."""
        if self.process is None or self.process.poll() is None:
            return
        if self.next_start == 0.0:
            if now - self.started_at > 30:
                self.restarts = 0  # it ran a good while: forget earlier crashes
            delay = min(2**self.restarts, 30)
            print(f"[supervisor] {self.name} exited ({self.process.returncode}); restart in {delay}s", flush=True)
            kill_group(self.process.pid, signal.SIGTERM)  # its workers, if it was killed before them
            remove_stale_metrics_dirs()
            self.next_start = now + delay
            self.restarts += 1
            return
        if now >= self.next_start:
            self.next_start = 0.0
            self.start()

    def terminate(self) -> None:
        """Ask the process to stop (SIGTERM) without waiting for it."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()

    def stop(self) -> None:
        """Ask the process (and its group) to stop; kill what is left after ten seconds."""
        if self.process is not None:
            stop_group(self.process)

    def _end_old_group(self) -> None:
        """Before a restart: nothing of the previous group may still serve (SIGKILL stragglers)."""
        if self.process is None:
            return
        pgid = self.process.pid
        kill_group(pgid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)


def _children(redis_url: str, games: list[str]) -> list[Child]:
    grpc_ports = _ports("CHAIWALA_RUN_GRPC_PORT", 50051)
    metrics_ports = _ports("CHAIWALA_RUN_METRICS_PORT", 9101)
    base = dict(os.environ)
    base.setdefault("CHAIWALA_LOG_FORMAT", "console")
    base.setdefault("CHAIWALA_CORS_ORIGINS", "*")  # local development: any page may call the API
    python = sys.executable
    children = []
    for game in games:
        env = {
            **base,
            "REDIS_URL": redis_url,
            "CHAIWALA_GRPC_HOST": "127.0.0.1",
            "CHAIWALA_GRPC_PORT": str(grpc_ports[game]),
            "CHAIWALA_METRICS_PORT": str(metrics_ports[game]),
        }
        children.append(Child(game, [python, "-m", "services.rules.server", game], env))
    gateway_env = {
        **base,
        "REDIS_URL": redis_url,  # rate-limit counters
        "CHAIWALA_HTTP_HOST": base.get("CHAIWALA_HTTP_HOST", "127.0.0.1"),
        "CHAIWALA_HTTP_PORT": base.get("CHAIWALA_HTTP_PORT", "8000"),
        "CHAIWALA_GAMES": ",".join(games),
        **{f"CHAIWALA_SERVICE_{g.upper()}": f"127.0.0.1:{grpc_ports[g]}" for g in games},
        "CHAIWALA_SERVICE_WEBHOOK": f"127.0.0.1:{_webhook_grpc_port()}",
        "CHAIWALA_SERVICE_NOTIFY": f"127.0.0.1:{_notify_grpc_port()}",
    }
    conductor_env = {
        **base,
        "REDIS_URL": redis_url,
        "CHAIWALA_GRPC_HOST": "127.0.0.1",
        "CHAIWALA_METRICS_PORT": os.environ.get("CHAIWALA_RUN_CONDUCTOR_METRICS_PORT", "9100"),
    }
    children.append(Child("conductor", [python, "-m", "services.conductor"], conductor_env))
    children.append(_director_child(base, redis_url, games, grpc_ports))
    gateway_env["CHAIWALA_SERVICE_TOURNAMENT"] = f"127.0.0.1:{_director_port()}"
    children.append(Child("webhook", [python, "-m", "services.webhook"], _webhook_env(base, redis_url)))
    children.append(_matchmaker_child(base, redis_url, games, grpc_ports))
    gateway_env["CHAIWALA_SERVICE_MATCHMAKING"] = f"127.0.0.1:{_matchmaker_port()}"
    children.append(Child("notify", [python, "-m", "services.notify"], _notify_env(base, redis_url)))
    children.append(Child("gateway", [python, "-m", "gateway"], gateway_env))
    return children


def _grpc_env(base: dict[str, str], redis_url: str, grpc_port: str, metrics: tuple[str, str]) -> dict[str, str]:
    """A process with its own gRPC service under ``make run``: Redis, its loopback gRPC port, and its
    metrics port (``metrics``: the variable that moves it, and its default)."""
    variable, default = metrics
    return {
        **base,
        "REDIS_URL": redis_url,
        "CHAIWALA_GRPC_HOST": "127.0.0.1",
        "CHAIWALA_GRPC_PORT": grpc_port,
        "CHAIWALA_METRICS_PORT": os.environ.get(variable, default),
    }


def _director_port() -> int:
    return int(os.environ.get("CHAIWALA_RUN_TOURNAMENT_PORT", "50061"))


def _director_child(base: dict[str, str], redis_url: str, games: list[str], grpc_ports: dict[str, int]) -> Child:
    """The tournament director (tournaments and ratings): gRPC on ``CHAIWALA_RUN_TOURNAMENT_PORT``
    (50061), metrics on ``CHAIWALA_RUN_TOURNAMENT_METRICS_PORT`` (9099)."""
    env = {
        **_grpc_env(base, redis_url, str(_director_port()), ("CHAIWALA_RUN_TOURNAMENT_METRICS_PORT", "9099")),
        **{f"CHAIWALA_SERVICE_{g.upper()}": f"127.0.0.1:{grpc_ports[g]}" for g in games},
    }
    return Child("tournament", [sys.executable, "-m", "services.tournament"], env)


def _matchmaker_port() -> int:
    return int(os.environ.get("CHAIWALA_RUN_MATCHMAKING_PORT", "50062"))


def _matchmaker_child(base: dict[str, str], redis_url: str, games: list[str], grpc_ports: dict[str, int]) -> Child:
    """The matchmaker (quick play): gRPC on ``CHAIWALA_RUN_MATCHMAKING_PORT`` (50062), metrics on
    ``CHAIWALA_RUN_MATCHMAKING_METRICS_PORT`` (9162); it creates games through the rules services."""
    env = {
        **_grpc_env(base, redis_url, str(_matchmaker_port()), ("CHAIWALA_RUN_MATCHMAKING_METRICS_PORT", "9162")),
        **{f"CHAIWALA_SERVICE_{g.upper()}": f"127.0.0.1:{grpc_ports[g]}" for g in games},
    }
    return Child("matchmaking", [sys.executable, "-m", "services.matchmaking"], env)


def _webhook_grpc_port() -> str:
    return os.environ.get("CHAIWALA_RUN_WEBHOOK_GRPC_PORT", "50060")


def _webhook_env(base: dict[str, str], redis_url: str) -> dict[str, str]:
    """The webhook dispatcher's settings under ``make run``: loopback receivers allowed by default, so a
    developer can point a webhook at a receiver on this machine (private ranges stay refused)."""
    return {
        **_grpc_env(base, redis_url, _webhook_grpc_port(), ("CHAIWALA_RUN_WEBHOOK_METRICS_PORT", "9160")),
        "CHAIWALA_WEBHOOK_ALLOW_LOOPBACK": base.get("CHAIWALA_WEBHOOK_ALLOW_LOOPBACK", "true"),
    }


def _notify_grpc_port() -> str:
    return os.environ.get("CHAIWALA_RUN_NOTIFY_GRPC_PORT", "50070")


def _notify_env(base: dict[str, str], redis_url: str) -> dict[str, str]:
    """The notification sender under ``make run``: loopback push endpoints allowed exactly where
    webhooks are (the same switch), so a local push service can be tried."""
    return {
        **_grpc_env(base, redis_url, _notify_grpc_port(), ("CHAIWALA_RUN_NOTIFY_METRICS_PORT", "9170")),
        "CHAIWALA_WEBHOOK_ALLOW_LOOPBACK": base.get("CHAIWALA_WEBHOOK_ALLOW_LOOPBACK", "true"),
    }


@dataclass
class RedisChild(Child):
    """The embedded Redis, supervised like any child; (re)starts wait until it answers PING."""

    port: int = 0
    password: str = field(default="", repr=False)  # from its data folder's private auth.conf

    @property
    def url(self) -> str:
        """Where the services find it (the password included: the children's REDIS_URL)."""
        return loopback_url(self.port, self.password)

    def start(self) -> None:
        """Start ``redis-server`` and wait (bounded) for it, so the services find it up."""
        super().start()
        assert self.process is not None
        if not wait_for_redis(self.process, self.port, self.password):
            print(f"[supervisor] redis did not answer on port {self.port}; see its redis.log", flush=True)


def _var_dir() -> Path:
    return Path(os.environ.get("CHAIWALA_VAR_DIR", ROOT / "var"))


def _redis_child() -> RedisChild:
    """The embedded Redis of ``make run`` (AOF under ``var/redis``), as a supervised child."""
    data_dir = _var_dir() / "redis"
    private_data_dir(data_dir)  # its files hold secrets: 0700 / 0600 (services.common.embedded_redis)
    password = redis_password(data_dir)  # generated on the first run, kept in var/redis/auth.conf (0600)
    port = int(os.environ.get("CHAIWALA_REDIS_PORT", "6390"))
    args = redis_args(data_dir, port)
    return RedisChild("redis", args, dict(os.environ), port=port, umask=REDIS_UMASK, password=password)


def _stop_all(children: list[Child]) -> None:
    """Stop every service at once (each takes up to its grace period), then Redis, which they use."""
    services = [child for child in children if not isinstance(child, RedisChild)]
    for child in services:
        child.terminate()
    for child in services:
        child.stop()
    for child in children:
        if isinstance(child, RedisChild):
            child.stop()


def main() -> None:
    """Start everything, supervise, and stop cleanly on Ctrl-C."""
    stopping = False
    wake = Wakeup()  # SIGCHLD or a stop wakes the loop; it does not poll

    def request_stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        wake.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    wake.install()
    # The master key ring that seals secrets in Redis (services.common.sealing): generated once
    # into var/keys/ (0600), outside Redis's folder, unless the environment names one.
    key_file_unless_set(_var_dir() / "keys" / "secret.keys")
    soft, hard = raise_open_files()  # every child inherits it: SSE streams and Redis clients are files
    print(f"[supervisor] open files: {soft} (hard limit {hard})", flush=True)
    redis_url = os.environ.get("REDIS_URL", "")
    supervised: list[Child] = []
    if not redis_url:
        redis_child = _redis_child()
        redis_url = redis_child.url
        supervised.append(redis_child)
        # Never the URL itself: it carries the password.
        print(
            f"[supervisor] embedded Redis on 127.0.0.1:{redis_child.port} (AOF and auth.conf in var/redis)", flush=True
        )
    games = available_game_types()
    wanted = os.environ.get("CHAIWALA_RUN_GAMES", "")  # a subset, e.g. for a lighter stack
    if wanted:
        games = [game for game in games if game in wanted.split(",")]
    missing = sorted({unit.game_type for unit in units()} - set(games))
    if missing:
        print(f"[supervisor] no engine yet for: {', '.join(missing)}", flush=True)
    children = supervised + _children(redis_url, games)
    remove_stale_metrics_dirs()
    for child in children:
        child.start()
    port = os.environ.get("CHAIWALA_HTTP_PORT", "8000")
    print(f"[supervisor] gateway on http://127.0.0.1:{port} — Ctrl-C stops everything", flush=True)
    try:
        while not stopping:
            now = time.monotonic()
            for child in children:
                child.check(now)
            restarts = [child.next_start for child in children if child.next_start]
            wake.wait(min(restarts) - time.monotonic() if restarts else Wakeup.LONGEST_WAIT)
    finally:
        print("[supervisor] stopping", flush=True)
        _stop_all(children)
        remove_stale_metrics_dirs()
        print("[supervisor] stopped", flush=True)


if __name__ == "__main__":
    main()
