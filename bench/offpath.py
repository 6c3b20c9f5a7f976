"""Off the move path: each process's CPU per move, for an A/B of the processes that follow the outbox.

``python -m bench.offpath [--games 16] [--moves 400] [--server-root DIR]`` starts ``make run``'s stack
(the real supervisor, one process per service, :class:`bench.capacity.Stack`) from this checkout or
from ``DIR`` (another checkout with its ``gen/`` built: the "before" of an A/B), subscribes the two
webhooks of the capacity suite to its receiver (:class:`bench.capacity.Sink`), seats guest players
two by two in Darjeeling games, and plays ``--moves`` moves in a closed loop (every game at once,
each move read from its seat's legal moves).  It then waits for the notices' gathering window and
the webhooks to drain, and prints each process's CPU per move: the CPU it used from the first move
to the end of that wait, less what it uses at rest over as long (measured before), divided by the
moves.  No push subscription and no tournament exist: the notification sender and the director
have nothing to do but read the outbox, which is what the A/B is about.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.capacity import OPERATOR_KEY, Sink, Stack, stack_cpu
from bench.capacity_mix import Shared
from tests.support.seeds import seed_hex

REST_SECONDS = 8.0
DRAIN_SECONDS = 8.0  # the notices' 3 s gathering window, then the deliveries


class RootedStack(Stack):
    """The stack started from another checkout (``root``) when one is given."""

    root: Path | None = None

    def env(self) -> dict[str, str]:
        """The capacity suite's environment, with the other checkout's code first."""
        env = super().env()
        if self.root is not None:
            env["PYTHONPATH"] = f"{self.root}:{self.root / 'gen'}"
        return env

    def start(self, seconds: float = 90) -> None:
        """Start the supervisor in ``root`` (``python -m`` puts the working folder first)."""
        if self.root is None:
            return super().start(seconds)
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "services.processes"], cwd=self.root,
                                            env=self.env(), stdout=log, stderr=log)  # fmt: skip
        deadline = time.monotonic() + seconds
        while not self.ready():
            assert self.process.poll() is None, self.log_tail()
            assert time.monotonic() < deadline, self.log_tail()
            time.sleep(0.2)
        return None


class Loop:
    """Games between guest players, played move after move until the count is reached."""

    def __init__(self, shared: Shared, moves: int) -> None:
        self.shared, self.wanted, self.moves = shared, moves, 0
        self.random = random.Random(7)
        self.sent: dict[tuple[str, int], float] = {}  # (game, version) -> when the move that made it was sent

    async def guest(self, n: int) -> tuple[str, str]:
        """A guest player's id and name."""
        body = await self.shared.call("POST", "/v1/sessions", {"name": f"P{n}"})
        return str(body["player_id"]), f"P{n}"

    async def game(self, pair: list[tuple[str, str]]) -> tuple[str, list[str]]:
        """A new game between the pair; its id and seat tokens."""
        self.shared.created += 1
        specs = [{"name": name, "external_id": player} for player, name in pair]
        body = {"game_type": "darjeeling", "players": specs, "seed_hex": seed_hex(self.shared.created)}
        created = await self.shared.call("POST", "/v1/games", body, self.shared.operator)
        return str(created["game_id"]), [str(seat["token"]) for seat in created["seats"]]

    async def play(self, pair: list[tuple[str, str]]) -> None:
        """Move in this pair's game (a new one when it ends) until enough moves were made."""
        game_id, tokens = await self.game(pair)
        while self.moves < self.wanted:
            state = await self.shared.call("GET", f"/v1/games/{game_id}")
            if state["status"] != "active":
                game_id, tokens = await self.game(pair)
                continue
            seat = int(state["to_act"][0])
            bearer = {"Authorization": f"Bearer {tokens[seat]}"}
            listing = await self.shared.call("GET", f"/v1/games/{game_id}/legal-moves", headers=bearer)
            body = {"move": self.random.choice(listing["moves"]), "expected_version": listing["version"]}
            sent = time.perf_counter()
            answer = await self.shared.call("POST", f"/v1/games/{game_id}/moves", body, bearer)
            self.sent[(game_id, int(answer["version"]))] = sent
            self.moves += 1

    def webhook_ms(self, turns: list[list[Any]]) -> dict[str, float]:
        """p50 and p99 of a ``turn.started`` webhook's arrival after the move that caused it was sent."""
        sent = self.sent
        late = sorted(arrived - sent[(game, version)] for game, version, arrived in turns if (game, version) in sent)
        if not late:
            return {}
        return {"p50": round(late[len(late) // 2] * 1000, 1), "p99": round(late[int(len(late) * 0.99)] * 1000, 1),
                "count": len(late)}  # fmt: skip


def _spy(stack: Stack, name: str, out: Path) -> subprocess.Popen[bytes]:
    """``py-spy record`` (collapsed stacks) of the supervisor's child ``name`` until stopped."""
    pid = stack.child(f"services.{name}").pid
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy"
    return subprocess.Popen([spy, "record", "--pid", str(pid), "--rate", "200", "--format", "raw", "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip


async def measure(stack: Stack, games: int, moves: int, spy: str = "") -> dict[str, Any]:
    """Rest, then play, then drain; each process's CPU ms per move above its rest (``spy``: the
    process whose stacks ``py-spy`` samples meanwhile, into /tmp/offpath-<name>.txt)."""
    assert stack.process is not None
    sink = Sink()
    try:
        shared = Shared(stack.ports["http"], OPERATOR_KEY, "darjeeling", (0.0, 0.0), 1)
        await sink.subscribe(shared)
        loop = Loop(shared, moves)
        players = [await loop.guest(n) for n in range(2 * games)]
        await asyncio.sleep(2.0)
        before, began = stack_cpu(stack.process.pid), time.monotonic()
        await asyncio.sleep(REST_SECONDS)
        rest, rest_seconds = stack_cpu(stack.process.pid), time.monotonic() - began
        began = time.monotonic()
        spying = _spy(stack, spy, Path(f"/tmp/offpath-{spy}.txt")) if spy else None
        await asyncio.gather(*(loop.play(players[2 * n : 2 * n + 2]) for n in range(games)))
        played = time.monotonic() - began
        await asyncio.sleep(DRAIN_SECONDS)
        after, seconds = stack_cpu(stack.process.pid), time.monotonic() - began
        hooks = await sink.stats()
        if spying is not None:
            spying.send_signal(signal.SIGINT)
            spying.wait(30)
    finally:
        sink.stop()
    per_move = {}
    for name, used in sorted(after.items()):
        idle = (rest.get(name, 0.0) - before.get(name, 0.0)) / rest_seconds
        per_move[name] = round((used - rest.get(name, 0.0) - idle * seconds) * 1000 / loop.moves, 3)
    return {"moves": loop.moves, "moves_per_s": round(loop.moves / played, 1), "webhooks": hooks["counts"],
            "turn_webhook_ms": loop.webhook_ms(hooks["turns"]), "cpu_ms_per_move": per_move}  # fmt: skip


def main() -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--server-root", type=Path, default=None)
    parser.add_argument("--spy", default="", help="a process to sample with py-spy (e.g. webhook)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="offpath-") as folder:
        stack = RootedStack(Path(folder), processes=1)
        stack.root = args.server_root
        stack.start()
        try:
            found = asyncio.run(measure(stack, args.games, args.moves, args.spy))
        finally:
            stack.stop()
    found["code"] = str(args.server_root or Path(__file__).resolve().parents[1])
    found["load"] = os.getloadavg()[0]
    print(found)


if __name__ == "__main__":
    main()
