"""Shared fixtures: a real Redis server, real rules services and a real gateway."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from secrets import token_hex
from typing import Any, TextIO

import httpx
import pytest
from hypothesis import HealthCheck, settings

from services.common import store
from services.common.embedded_redis import start_redis
from services.common.logs import configure_logging, flush_logs
from services.common.registry import available_game_types
from services.common.sealing import KEYS_FILE_ENV, key_file_unless_set
from tests.support import leaks, secrets
from tests.support.notify_stack import NotifyProcess
from tests.support.stack import (
    WEBHOOK_OPERATOR_KEY,
    ConductorProcess,
    DirectorProcess,
    Gateway,
    MatchmakerProcess,
    Services,
    WebhookProcess,
)

# Property tests run beside real servers on a shared 2-core machine: how fast Hypothesis draws its
# inputs says nothing about the code under test, so the "too slow" health check is off everywhere
# (each test's own examples and deadline settings still apply).
settings.register_profile("chaiwala", suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("chaiwala")

# The two-host deployment test has its own target (`make two-hosts`: root, network namespaces,
# HAProxy, a six-node Redis Cluster; minutes): it is not part of `make test`'s collection.
collect_ignore = [] if os.environ.get("CHAIWALA_TWO_HOSTS") == "1" else ["twohosts"]

# Before any fixture or xdist worker starts a process: every child of this run inherits it.
leaks.mark_session()
# Secrets in Redis are sealed with a master key ring kept outside it (services.common.sealing):
# this run's own, generated once here (0600) and inherited by every process the suite starts.
if not os.environ.get(KEYS_FILE_ENV):
    _KEYS_DIR = Path(tempfile.mkdtemp(prefix="chaiwala-keys-"))
    atexit.register(shutil.rmtree, _KEYS_DIR, ignore_errors=True)
    key_file_unless_set(_KEYS_DIR / "secret.keys")
WATCH = pytest.StashKey[leaks.Watch]()
LEFT_BEHIND = pytest.StashKey[list[str]]()
WORKER_PIDS = pytest.StashKey[set[int]]()


def pytest_sessionstart(session: pytest.Session) -> None:
    """Note what runs before the suite starts anything (see tests/support/leaks.py)."""
    session.config.stash[WATCH] = leaks.Watch.begin()
    session.config.stash[LEFT_BEHIND] = []
    session.config.stash[WORKER_PIDS] = set()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """The controller collects what each xdist worker found left behind by its own tests."""
    output = getattr(node, "workeroutput", {})
    node.config.stash[LEFT_BEHIND].extend(output.get("left_behind", []))
    if "worker_pid" in output:
        node.config.stash[WORKER_PIDS].add(output["worker_pid"])


@pytest.hookimpl(trylast=True)  # the controller's: after xdist has stopped its workers
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Fail the run if a process it started is still alive (an xdist worker checks its own
    descendants; the controller, or a run without xdist, the whole run)."""
    config = session.config
    watch = config.stash.get(WATCH, None)
    if watch is None:
        return
    worker = hasattr(config, "workerinput")
    workers: set[int] = config.stash[WORKER_PIDS]
    left = leaks.check(watch, whole_run=not worker, exclude=frozenset(workers))
    if worker:
        config.workeroutput["left_behind"] = left  # type: ignore[attr-defined]
        config.workeroutput["worker_pid"] = os.getpid()  # type: ignore[attr-defined]
        return
    config.stash[LEFT_BEHIND].extend(left)
    if config.stash[LEFT_BEHIND]:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Name every process the run left behind (they were killed, and the run failed)."""
    left = config.stash.get(LEFT_BEHIND, [])
    if left:
        terminalreporter.section("processes left behind by the test run (killed; the run fails)", red=True)
        for line in left:
            terminalreporter.line(line)


@dataclass
class SuiteLog:
    """Where every log line of this test session goes (read it after :func:`flush_logs`)."""

    path: Path
    stream: TextIO

    def restore(self) -> None:
        """Send logs here again (after a test configured logging its own way)."""
        configure_logging("console", "info", stream=self.stream)

    def text(self) -> str:
        """Everything logged so far."""
        flush_logs()
        return self.path.read_text(encoding="utf-8", errors="replace")


@pytest.fixture(scope="session", autouse=True)
def suite_log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SuiteLog]:
    """All logs of the session in one file, in the console format ``make run`` uses.

    Every seat token the store issues is recorded; when the session ends, none of them
    (nor any configured API key) may appear anywhere in the log.
    """
    path = Path(tmp_path_factory.mktemp("logs")) / "suite.log"
    with path.open("w", encoding="utf-8") as stream, pytest.MonkeyPatch.context() as patch:
        log = SuiteLog(path, stream)
        log.restore()
        patch.setattr(store, "new_token", secrets.recording(store.new_token))
        yield log
        leaked = secrets.leaked(log.text())
    assert not leaked, f"secrets issued by the suite reached the log: {leaked} (see {path})"


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``REDIS_URL`` if set (with its password); a testcontainers Redis if opted in; else an embedded
    ``redis-server``; the last two with a generated password."""
    configured = os.environ.get("REDIS_URL")
    if configured:
        yield configured
        return
    if os.environ.get("CHAIWALA_TESTCONTAINERS") == "1":
        # Opt-in only: our machines have no Docker engine (pip install -e '.[containers]').
        from testcontainers.redis import RedisContainer

        password = token_hex(32)  # with a password, as everywhere
        secrets.remember(password)
        with RedisContainer("redis:7-alpine", password=password) as container:
            host = container.get_container_host_ip()
            yield f"redis://:{password}@{host}:{container.get_exposed_port(6379)}/0"
        return
    # With a password (generated into its data folder), as everywhere: the whole suite proves
    # every client passes it.
    server = start_redis(Path(tmp_path_factory.mktemp("redis")), appendonly=False)
    secrets.remember(server.password)  # and it never reaches a log
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def game_types() -> list[str]:
    """Game types whose engines are present."""
    return available_game_types()


@pytest.fixture(scope="session")
def services(redis_url: str) -> Iterator[Services]:
    """A factory for rules services on ephemeral ports."""
    factory = Services(redis_url)
    try:
        yield factory
    finally:
        factory.close()


@pytest.fixture(scope="session")
def conductor(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConductorProcess]:
    """One real conductor process over the session's Redis: it plays every bot and clock."""
    with ConductorProcess(redis_url, tmp_path_factory.mktemp("conductor") / "conductor.log") as process:
        yield process


@pytest.fixture(scope="session")
def webhook_dispatcher(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebhookProcess]:
    """One real webhook dispatcher over the session's Redis (its WebhookService needs WEBHOOK_OPERATOR_KEY)."""
    secrets.remember(WEBHOOK_OPERATOR_KEY)
    log = tmp_path_factory.mktemp("webhook") / "webhook.log"
    with WebhookProcess(redis_url, log, WEBHOOK_OPERATOR_KEY) as process:
        yield process


@pytest.fixture(scope="session")
def notify_sender(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[NotifyProcess]:
    """One real notification sender over the session's Redis (NotifyService: player tokens)."""
    with NotifyProcess(redis_url, tmp_path_factory.mktemp("notify") / "notify.log") as process:
        yield process


@pytest.fixture(scope="session")
def stack(
    services: Services,
    game_types: list[str],
    conductor: ConductorProcess,
    webhook_dispatcher: WebhookProcess,
    notify_sender: NotifyProcess,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, object]]:
    """One rules service per game, a gateway routing to them (open: no API keys) and to a webhook
    dispatcher (operator key required), and a conductor."""
    running = {game: services.start(game) for game in game_types}
    # A tournament director too, so every documented route has its backend (the fuzz tests call them all).
    addresses = {game: svc.address for game, svc in running.items()}
    director = DirectorProcess(
        services.redis_url, addresses, tmp_path_factory.mktemp("director") / "director.log", wait=False
    )
    # And a matchmaker (quick play), with the short waits of tests (tests/support/stack.py); both
    # start at once, then serve.
    matchmaker = MatchmakerProcess(
        services.redis_url, addresses, tmp_path_factory.mktemp("mm") / "matchmaker.log", wait=False
    )
    director.ready()
    matchmaker.ready()
    # Creating a game no longer waits for its bots, so the suite creates games faster than the
    # default quota of one client allows; the limit tests configure their own small limits.  One
    # token's requests are not limited either: the fuzz tests send one seat's refused moves back to
    # back, past 200 a second on a quiet machine since the gateway's lean limits call.
    gateway = Gateway(
        {game: svc.address for game, svc in running.items()},
        redis_url=services.redis_url,
        create_limit="500/second;1000000/hour",
        session_limit="500/second;1000000/hour",
        rate_limit_per_token="100000/second",
        service_webhook=webhook_dispatcher.address,
        service_tournament=director.address,
        service_matchmaking=matchmaker.address,
        service_notify=notify_sender.address,
    )
    try:
        yield {
            "url": gateway.url,
            "services": running,
            "gateway": gateway,
            "conductor": conductor,
            "webhook": webhook_dispatcher,
            "matchmaker": matchmaker,
        }
    finally:
        gateway.stop()
        director.stop()
        matchmaker.stop()
        for svc in running.values():
            services.stop(svc)


@pytest.fixture(scope="module")
def client(stack: dict[str, object]) -> Iterator[httpx.Client]:
    """An HTTP client of the shared stack's gateway (open: no API keys), one per test module."""
    with httpx.Client(base_url=str(stack["url"]), timeout=600) as http:
        yield http
