"""Flame graphs of the move path: ``python -m bench.flame [--seconds S] [--games N] [--out DIR]``.

Starts the stack as the benchmarks do (:mod:`bench.procs`: Redis, one Darjeeling rules service,
the gateway; ``--workers`` processes each), plays ``--games`` concurrent games through the lean
client (:mod:`bench.lean_http`, so the load generator costs little of the shared cores), and
meanwhile samples the gateway's and the rules service's whole process trees with ``py-spy record``
(pinned in the dev extras).  Writes ``gateway.svg`` and ``rules.svg`` (with ``--raw`` also
``py-spy``'s collapsed stacks as ``.txt``) into ``--out``; docs/lab/speed.md shows them.
``BENCH_SERVER_ROOT`` profiles another checkout's servers, as for the benchmarks.
With ``--grpc`` the rules service is driven straight over gRPC (ListLegalMoves + SubmitMoves)
instead, as ``bench grpc`` does, and only ``rules-grpc.svg`` is written.  With ``--floor`` the
shape's floor (:mod:`bench.floor`) is played and profiled instead, its two halves written as
``floor-gateway`` and ``floor-rules``: set beside the move's, the two say where the move's CPU
above its floor goes (``bench rest``'s ``stack_cpu_per_move_over_floor`` row).  ``--httpx`` drives
either through httpx as ``bench rest``'s throughput rows do (its ``Accept-Encoding`` asks for
compressed answers, which the lean client does not).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from grpc import aio

from bench.floor import floor_move
from bench.grpc_path import GrpcPlayers
from bench.lean_http import LeanClient
from bench.load import closed_loop
from bench.procs import Child, stack
from bench.rest_path import Players, http_client
from chaiwala.v1 import rules_pb2_grpc
from services.common.sealing import key_file_unless_set


def _record(child: Child, out: Path, name: str, seconds: float, raw: bool,
            native: bool = False) -> list[subprocess.Popen[bytes]]:  # fmt: skip
    """``py-spy record`` of ``child``'s tree: a flame graph (and, with ``raw``, collapsed stacks);
    ``native`` adds the C frames (gRPC's core, uvloop, protobuf) under the Python ones."""
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy"
    common = ["--pid", str(child.pid), "--subprocesses", "--duration", str(int(seconds)), "--rate", "250",
              *(["--native"] if native else [])]  # fmt: skip
    formats = [("flamegraph", "svg"), *([("raw", "txt")] if raw else [])]
    return [subprocess.Popen([spy, "record", *common, "--format", kind, "-o", str(out / f"{name}.{suffix}")])
            for kind, suffix in formats]  # fmt: skip


def _client(port: int, games: int, httpx: bool) -> Any:
    return http_client(port, games) if httpx else LeanClient(port)


async def _rest(gateway: Child, games: int, seconds: float, httpx: bool) -> int:
    async with _client(gateway.port, games, httpx) as client:
        players = Players(client, "darjeeling", seed=7)
        await players.start(games)
        await closed_loop(players.move, games, 1.0)  # warm: positions cached, connections open
        return (await closed_loop(players.move, games, seconds)).done


async def _floor(gateway: Child, games: int, seconds: float, httpx: bool) -> int:
    async with _client(gateway.port, games, httpx) as client:

        async def move(index: int) -> None:
            await floor_move(client, index)

        await closed_loop(move, games, 1.0)
        return (await closed_loop(move, games, seconds)).done


async def _grpc(rules: Child, games: int, seconds: float) -> int:
    async with aio.insecure_channel(f"127.0.0.1:{rules.port}") as channel:
        players = GrpcPlayers(rules_pb2_grpc.RulesServiceStub(channel))
        await asyncio.gather(*(players.new_game(i) for i in range(games)))
        await closed_loop(players.move, games, 1.0)
        return (await closed_loop(players.move, games, seconds)).done


def main(argv: list[str]) -> None:
    """Record the flame graphs (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m bench.flame", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--grpc", action="store_true", help="drive the rules service over gRPC only")
    parser.add_argument("--floor", action="store_true", help="play and profile the shape's floor (bench.floor)")
    parser.add_argument("--httpx", action="store_true", help="drive through httpx, as bench rest does")
    parser.add_argument("--native", action="store_true", help="sample C frames too (py-spy --native; slower)")
    parser.add_argument("--out", type=Path, default=Path("docs/lab/flame"))
    parser.add_argument("--prefix", default="", help="put before each file name (e.g. 'before-')")
    parser.add_argument("--raw", action="store_true", help="also write py-spy's collapsed stacks (.txt)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    # The servers seal secrets in Redis and refuse to start without a key ring (as bench/__main__.py).
    with tempfile.TemporaryDirectory(prefix="chaiwala-flame-keys-") as keys, stack(args.workers) as running:
        key_file_unless_set(Path(keys) / "secret.keys")
        rules = running.rules("darjeeling")
        if args.grpc:
            spies = _record(rules, args.out, f"{args.prefix}rules-grpc", args.seconds, args.raw)
            done = asyncio.run(_grpc(rules, args.games, args.seconds + 2))
        elif args.floor:
            floor_rules = running.floor_rules()
            floor_gateway = running.floor_gateway(floor_rules)
            spies = [
                *_record(floor_gateway, args.out, f"{args.prefix}floor-gateway", args.seconds, args.raw, args.native),
                *_record(floor_rules, args.out, f"{args.prefix}floor-rules", args.seconds, args.raw, args.native),
            ]
            done = asyncio.run(_floor(floor_gateway, args.games, args.seconds + 2, args.httpx))
        else:
            gateway = running.gateway({"darjeeling": rules})
            spies = [
                *_record(gateway, args.out, f"{args.prefix}gateway", args.seconds, args.raw, args.native),
                *_record(rules, args.out, f"{args.prefix}rules", args.seconds, args.raw, args.native),
            ]
            done = asyncio.run(_rest(gateway, args.games, args.seconds + 2, args.httpx))
        for spy in spies:
            spy.wait()
    print(f"[flame] {done} moves; wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
