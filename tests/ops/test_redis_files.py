"""The embedded Redis keeps its files private (issue #36, item 4): a real redis-server writes its
AOF, rewrites it, and every file and folder it leaves is the service user's alone."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest
import redis

from services.common.embedded_redis import free_port, start_redis, wait_for_redis
from services.processes.supervisor import RedisChild, _redis_child

WAIT_SECONDS = 60.0


def _modes(data_dir: Path) -> dict[str, int]:
    """Permission bits of the folder and of everything under it, by path relative to it."""
    found = {".": stat.S_IMODE(data_dir.stat().st_mode)}
    for path in data_dir.rglob("*"):
        found[str(path.relative_to(data_dir))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def _write_and_rewrite(url: str) -> None:
    """Write secrets-like keys, then have Redis rewrite its AOF (new files) and wait for it to finish."""
    client = redis.Redis.from_url(url)
    try:
        for index in range(200):
            client.hset(f"webhook:{index}", mapping={"secret": f"whsec_{index:04d}"})
        assert int(client.info("persistence")["aof_last_rewrite_time_sec"]) == -1  # a fresh server: none yet
        client.bgrewriteaof()
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            info = client.info("persistence")
            busy = int(info["aof_rewrite_in_progress"]) or int(info["aof_rewrite_scheduled"])
            if not busy and int(info["aof_last_rewrite_time_sec"]) >= 0:
                assert info["aof_last_bgrewrite_status"] == "ok", info
                break
            assert time.monotonic() < deadline, f"the AOF rewrite did not finish: {info}"
            time.sleep(0.05)
    finally:
        client.close()


def _assert_private(data_dir: Path) -> None:
    modes = _modes(data_dir)
    assert any(name.endswith(".aof") for name in modes), modes  # the AOF is there (and was rewritten)
    for name, mode in modes.items():
        wanted = 0o700 if (data_dir / name).is_dir() else 0o600
        assert mode == wanted, f"{name} is {oct(mode)}, not {oct(wanted)}: {modes}"


def _answering_redis_child(monkeypatch: pytest.MonkeyPatch) -> RedisChild:
    """``make run``'s Redis child on a port free when picked. Another test's client may take that
    port as its own ephemeral port before redis-server binds it (CI saw it once, under -n 3), so a
    child that exits or stays silent is stopped and tried again on a fresh port, as start_redis does."""
    for _ in range(3):
        monkeypatch.setenv("CHAIWALA_REDIS_PORT", str(free_port()))
        child = _redis_child()
        child.start()
        assert child.process is not None
        if wait_for_redis(child.process, child.port, child.password, seconds=WAIT_SECONDS):
            return child
        child.stop()
    pytest.fail("make run's redis child answered on none of three fresh ports (see its redis.log)")


@pytest.fixture()
def loose_umask() -> object:
    """The umask a shell usually has (0022: new files world-readable), whatever the runner set."""
    previous = os.umask(0o022)
    try:
        yield previous
    finally:
        os.umask(previous)


def test_the_embedded_redis_files_are_private_after_an_aof_rewrite(tmp_path: Path, loose_umask: object) -> None:
    data_dir = tmp_path / "redis"
    data_dir.mkdir(mode=0o755)
    (data_dir / "left-by-an-older-run.aof").write_text("")  # 0644 under this umask
    os.chmod(data_dir / "left-by-an-older-run.aof", 0o644)
    server = start_redis(data_dir, appendonly=True)
    try:
        _write_and_rewrite(server.url)
        _assert_private(data_dir)
    finally:
        server.stop()


def test_the_supervised_redis_of_make_run_is_private_too(
    tmp_path: Path, loose_umask: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHAIWALA_VAR_DIR", str(tmp_path))
    child = _answering_redis_child(monkeypatch)
    try:
        _write_and_rewrite(child.url)
        _assert_private(tmp_path / "redis")
    finally:
        child.stop()
