"""Split a ``bench.flame --native --raw`` profile into the items of a move: ``python -m bench.flame_split
gateway|rules CPU_MS FILE``.

Reads py-spy's collapsed stacks (``--raw``), leaves out the samples of idle waits (``epoll_wait``,
``poll``, a thread parked in a futex or a ``Condition``: py-spy's ``--native`` counts them) and of a
game's start-up (creation, the first listings, plans and sentences compiled once), gives each other
sample to the item named by its **deepest** frame that names one (so the Redis write inside the limits
is the limits', the gRPC call inside the route is gRPC's), and prints each item's share and that share
of ``CPU_MS`` (the process's CPU per move as ``bench rest`` meters it from ``/proc``).  Used on the
move's and the floor's profiles (``bench.flame --floor``), the difference per item says where the
move's CPU above its floor goes (docs/lab/move-path.md, "Where the REST move's excess goes").
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

IDLE_LEAVES = ("epoll_wait", "epoll_pwait", "poll (libc")
IDLE_ANYWHERE = ("Condition.wait", "Queue.get", "_Writer._run", "select_poll_poll_impl", "BaseServer.serve_forever")
START_UP = ("CreateGame", "create_game", "compile_plan", "compile_sentence", "ListLegalMoves")
GC = ("garbage collection", ("gc_collect_main",))
ITEMS: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "gateway": [
        GC,
        ("limits call (its Python, Redis write and read)",
         ("Limiter.check", "AsyncScript.__call__", "_send_packed_command", "execute_command")),
        ("gRPC client call (grpc.aio and its C core)", ("aio/_call.py", "aio/_channel.py", "cygrpc")),
        ("compression (zstd, the coding's tag)",
         ("CompressionResponder.__call__.<locals>.wrapper", "classify_start_message", "mutable_response_headers",
          "_tag_coding", "ZSTD")),
        ("answer write (the socket write)", ("OneWrite", "RequestResponseCycle.send", "on_response_complete")),
        ("POST moves route's own Python (body, move, answer printed)",
         ("submit_moves (gateway/routes", "moves (bench/floor")),
        ("GET legal-moves route's own Python", ("legal_moves (gateway/routes", "legal_moves (bench/floor")),
        ("middleware and framework Python (layers, send steps, routing)",
         ("run_asgi", "<locals>._send", "add_vary", "remember_status", "varying", "noting", "sending",
          "ConditionalMiddleware.__call__.<locals>.tagging", "_send_tagged", "_localized", "Headers.", "Mapping.get")),
        ("HTTP parse and connections (httptools, uvloop reads)",
         ("httptools_impl", "gateway/server.py", "uv__read", "uv__tcp")),
        ("event loop, tasks, other C", ("Runner.run", "Thread.run")),
    ],
    "rules": [
        GC,
        ("Redis load and commit, client side (Python, socket write, reply)",
         ("GameStore.load_with", "GameStore.commit", "AsyncScript.__call__", "_send_packed_command", "execute_command",
          "LeanScript", "StreamWriter.write")),
        ("the answer rendered (state, view, events' words)", ("_fill_answer", "fill_state")),
        ("every seat's next legal moves stored", ("after_commit", "legal_listing")),
        ("narration at the commit (Narrator)", ("Narrator.",)),
        ("the engine's move (play, legal moves, moves unpacked)", ("_play_one", "Match.play", "_unpack_moves")),
        ("other handler Python (commit's arguments: seal, log entry; positions, metadata)",
         ("GamePlay.", "move (bench/floor", "commit_only")),
        ("RPC wrapper (interceptor, servicer, metrics)", ("RpcInterceptor", "RenderedRulesServicer")),
        ("gRPC server C core (receive, parse, serialize, send)", ("cygrpc",)),
        ("event loop, tasks, other C", ("Runner.run", "Thread.run")),
    ],
}  # fmt: skip


def _idle(frames: list[str], stack: str) -> bool:
    leaf = frames[-1]
    if any(mark in leaf for mark in IDLE_LEAVES) or any(mark in stack for mark in IDLE_ANYWHERE):
        return True
    # An unnamed libc frame under another: a thread parked in a futex (gRPC's, the log writer's).
    return len(frames) > 1 and all(f.startswith("0x") and "libc" in f for f in frames[-2:])


def split(kind: str, lines: list[str]) -> tuple[Counter[str], int, int]:
    """Samples per item of ``kind``'s profile, and the idle and start-up samples left out."""
    items, idle, start_up = Counter[str](), 0, 0
    for line in lines:
        stack, _, count = line.rstrip().rpartition(" ")
        frames, samples = stack.split(";"), int(count)
        if _idle(frames, stack):
            idle += samples
        elif any(mark in stack for mark in START_UP):
            start_up += samples
        else:
            items[_item(kind, frames)] += samples
    return items, idle, start_up


def _item(kind: str, frames: list[str]) -> str:
    for frame in reversed(frames):  # the deepest frame naming an item decides
        for name, marks in ITEMS[kind]:
            if any(mark in frame for mark in marks):
                return name
    return "(none)"


def main(argv: list[str]) -> None:
    """Print the split (see the module docstring)."""
    kind, cpu_ms, path = argv[0], float(argv[1]), Path(argv[2])
    items, idle, start_up = split(kind, path.read_text().splitlines())
    busy = sum(items.values())
    print(f"{path}: {busy} busy samples ({idle} idle, {start_up} start-up left out), shares of {cpu_ms} ms")
    for name in [name for name, _ in ITEMS[kind]] + ["(none)"]:
        share = items[name] / busy if busy else 0.0
        print(f"  {100 * share:5.1f} %  {cpu_ms * share:.3f} ms  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
