"""Search bots off the conductor's event loop: a process pool of ``CHAIWALA_CONDUCTOR_SEARCH_WORKERS``.

A search move (``mcts-easy``, ``mcts``, ``mcts-hard``) takes hundreds of milliseconds to
seconds, a heuristic move well under one. Computed on the loop it would stall every other
game's bots, clocks and the conductor's metrics, so a bot whose class says ``offload = True``
is computed in a worker process from the stored snapshot (the same ``Match.bot_move`` with the
same derived randomness, so the move is the one an in-process call would make), and the
conductor commits it like any bot move, against the version it was computed from.

Workers are spawned (not forked: the conductor holds Redis connections and threads), end with
the conductor (SIGTERM when it dies, even by ``kill -9``: a spawned worker would otherwise wait
forever on its task queue) and warm their engines once. ``0`` workers computes search moves in
a thread instead (tests, tiny deployments): off the loop all the same, but sharing the
conductor's GIL.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections.abc import Coroutine
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from services.bots.roster import bots_for
from services.common.engine import Bot, Move
from services.common.logs import get_logger
from services.common.processes import die_with_parent
from services.common.registry import engine_for
from services.common.runner import Match, Snapshot
from services.games.records import decode_bot_memory, encode_bot_memory

log = get_logger("conductor")


def offloaded(bot: Bot) -> bool:
    """Whether ``bot`` is slow enough to be computed off the event loop."""
    return bool(getattr(bot, "offload", False))


def compute_move(
    game_type: str, snapshot: bytes, seat: int, bot_name: str, salt: int, memory: bytes
) -> tuple[Move, bytes]:
    """The bot's move in the stored position, from the game's bot memory, and the memory after it
    (runs in a worker; both as stored, :func:`services.games.records.encode_bot_memory`)."""
    engine = engine_for(game_type)
    match = Match(engine=engine, snapshot=Snapshot.from_json(snapshot), trusted=True)
    match.bot_memory = decode_bot_memory(memory)
    move = match.bot_move(bots_for(engine)[bot_name], seat, salt)
    return move, encode_bot_memory(match.bot_memory)


def _start_worker(conductor_pid: int) -> None:
    """A worker's first step: end with the conductor, then import every engine once, so the
    first search does not pay for it."""
    die_with_parent(conductor_pid)
    from services.common.registry import available_game_types

    available_game_types()


class SearchPool:
    """At most ``workers`` search moves at once; the conductor asks :meth:`full` before claiming one."""

    def __init__(self, workers: int) -> None:
        self.capacity = max(workers, 1)
        # Background tasks that wait for a worker and commit; held here so none is collected early.
        self.tasks: set[asyncio.Task[Any]] = set()
        self._executor: Executor
        if workers > 0:
            self._executor = ProcessPoolExecutor(
                max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker, initargs=(os.getpid(),),
            )
        else:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="search")

    def full(self) -> bool:
        """Whether every worker is busy (then a game needing a search waits in the queue)."""
        return len(self.tasks) >= self.capacity

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work`` (a search and its commit) beside the loop's other work."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            # The game keeps its claim, so it is reclaimed once the lease runs out.
            log.error("search_task_failed", error=repr(task.exception()))

    async def drain(self) -> None:
        """Let the searches under way finish and commit (a graceful stop)."""
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)

    async def move(
        self, game_type: str, snapshot: bytes, seat: int, bot_name: str, salt: int, memory: bytes = b""
    ) -> tuple[Move, bytes]:
        """Compute one search move in a worker, without blocking the loop; answer it with the bots' memory after it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor, compute_move, game_type, snapshot, seat, bot_name, salt, memory
        )

    def close(self) -> None:
        """Stop the workers (a search under way is abandoned: its game is reclaimed after the lease)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
