"""bench.flame_split: idle waits and start-up left out, each sample to its deepest named item."""

from __future__ import annotations

from bench.flame_split import split

LOOP = "process 1:\"python -m gateway\";Runner.run (asyncio/runners.py:118);task_step (_asynciomodule.c)"
ROUTE = f"{LOOP};RequestResponseCycle.run_asgi (uvicorn/x.py:1);submit_moves (gateway/routes.py:350)"


def test_deepest_named_frame_decides() -> None:
    lines = [
        f"{ROUTE};UnaryUnaryCall._invoke (grpc/aio/_call.py:10) 7",  # the gRPC call inside the route: gRPC's
        f"{ROUTE};_read_json (gateway/routes.py:90) 3",  # the route's own Python
        f"{LOOP};RequestResponseCycle.run_asgi (uvicorn/x.py:1);Limiter.check (gateway/limits.py:5);"
        "StreamWriter.write (asyncio/streams.py:1) 2",  # the limits' write: the limits'
        f"{ROUTE};gc_collect_main (libpython3.11.so.1.0) 4",  # a collection under the route: the collector's
    ]
    items, idle, start_up = split("gateway", lines)
    assert items["gRPC client call (grpc.aio and its C core)"] == 7
    assert items["POST moves route's own Python (body, move, answer printed)"] == 3
    assert items["limits call (its Python, Redis write and read)"] == 2
    assert items["garbage collection"] == 4
    assert (idle, start_up) == (0, 0)


def test_idle_and_start_up_left_out() -> None:
    lines = [
        f"{LOOP};uv__io_poll (linux.c:1452);epoll_pwait (libc.so.6) 11",
        "process 1:\"x\";Thread.run (threading.py:1);Condition.wait (threading.py:2) 5",
        "process 1:\"x\";0x7f00aa (libc.so.6);0x7f00bb (libc.so.6) 2",  # a parked thread
        f"{LOOP};RulesServicer.CreateGame (rules/service.py:1);GameStore.commit (games/store.py:1) 3",
        f"{LOOP};GamePlay.commit (rules/gameplay.py:1);GameStore.commit (games/store.py:2) 6",
    ]
    items, idle, start_up = split("rules", lines)
    assert idle == 18
    assert start_up == 3
    assert items == {"Redis load and commit, client side (Python, socket write, reply)": 6}
