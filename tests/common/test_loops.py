"""The event loop the services run on (services.common.loops)."""

from __future__ import annotations

import asyncio

import uvloop

from services.common.loops import run_loop


def test_run_loop_runs_a_coroutine_to_its_end_on_uvloop() -> None:
    async def main() -> tuple[type, int]:
        await asyncio.sleep(0)
        return type(asyncio.get_running_loop()), 42

    loop_type, value = run_loop(main())
    assert issubclass(loop_type, uvloop.Loop) and value == 42
