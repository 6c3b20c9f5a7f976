"""Pile's own real stack for a test module: its rules service and a gateway (in this process), a
conductor (a child process told of Pile by ``CHAIWALA_GAME_UNITS``) and a Redis of their own."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from services.common import registry
from services.common.embedded_redis import start_redis
from tests.support.stack import ConductorProcess, Gateway, Services
from tests.support.tinygame.protos import compile_into

GAME = "tinygame"
UNIT_MODULE = "tests.support.tinygame.unit"


@contextmanager
def pile_stack(scratch: Path) -> Iterator[dict[str, Any]]:
    """Register Pile, run its stack with files under ``scratch``; forget Pile afterwards."""
    protos = compile_into(scratch / "protos")
    from tests.support.tinygame import unit

    registry.register(unit.UNIT)  # a no-op if the import above registered it already
    (scratch / "redis").mkdir(exist_ok=True)
    redis = start_redis(scratch / "redis", appendonly=False)
    services = Services(redis.url)
    rules = services.start(GAME)
    path = os.pathsep.join([str(protos), os.environ.get("PYTHONPATH", "")])
    conductor = ConductorProcess(
        redis.url, scratch / "conductor.log", extra_env={"CHAIWALA_GAME_UNITS": UNIT_MODULE, "PYTHONPATH": path}
    )
    gateway = Gateway({GAME: rules.address}, redis_url=redis.url)
    try:
        yield {"url": gateway.url, "conductor": conductor}
    finally:
        gateway.stop()
        conductor.stop()
        services.stop(rules)
        services.close()
        redis.stop()
        registry.unregister(GAME)
