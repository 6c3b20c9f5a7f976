"""The TypeScript SDK's own tests (``node --test``) against the real stack.

``make sdk`` builds ``sdk/typescript`` (types generated from the served OpenAPI document, compiled
by the pinned ``tsc``); this test starts nothing of its own: it hands the suite's gateway to the
node tests in ``CHAIWALA_URL`` and fails with their report if any fails.  A Darjeeling game played
to its result, a stream cut three times, idempotent pinned moves, guest sessions, the player stream
(your turn in three games on one stream; cut three times, nothing lost or repeated), the type
tests, and a plain ``EventSource`` (the ``eventsource`` package, no SDK) following the frontend
guide's recipe past its ticket's lifetime are in ``sdk/typescript/test/``.

The last one proves a ticket outlives its first lifetime while a stream it opened is open, and is
refused once that lifetime passed with none open: against the suite's stack it would wait out a
minute twice.  So it runs against a second gateway (``CHAIWALA_SHORT_TICKETS_URL``) over a
Darjeeling rules service whose tickets live :data:`SHORT_TICKET_SECONDS`
(``CHAIWALA_STREAM_TICKET_SECONDS``, :class:`~services.identity.settings.IdentitySettings`); the
same Redis, so the suite's conductor plays its bots.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

from services.identity.settings import IdentitySettings
from tests.support.stack import rules_and_gateway

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdk" / "typescript"
# Long enough to open a stream with a fresh ticket on a loaded machine (an open stream renews its
# ticket every quarter of this); short enough that waiting it out twice costs seconds.
SHORT_TICKET_SECONDS = 8
OPEN_LIMITS = "500/second;1000000/hour"  # as the suite's gateway (tests/conftest.py)


def test_the_typescript_sdk_passes_its_node_tests_against_the_stack(stack: dict[str, Any], redis_url: str) -> None:
    node = shutil.which("node")
    assert node, "node is missing: make node installs it (make test does)"
    assert (SDK / "dist" / "index.js").is_file(), "the SDK is not built: run make sdk (make test does)"
    tests = sorted(str(path.relative_to(SDK)) for path in (SDK / "test").glob("*.test.mjs"))
    identity = IdentitySettings(stream_ticket_seconds=SHORT_TICKET_SECONDS)
    limits = {"create_limit": OPEN_LIMITS, "session_limit": OPEN_LIMITS}
    with rules_and_gateway(redis_url, "darjeeling", identity=identity, redis_url=redis_url, **limits) as (_, gateway):
        stdout, stderr, returncode = _node_tests(node, tests, str(stack["url"]), gateway.url)
    print(stdout[-4000:])  # shown with -s or on failure: each test and its duration
    assert returncode == 0, stdout[-8000:] + stderr[-2000:]
    assert "# fail 0" in stdout


def _node_tests(node: str, tests: list[str], url: str, short_tickets_url: str) -> tuple[str, str, int]:
    """Run the SDK's node tests against the stack at ``url``: their output and exit status."""
    env = {**os.environ, "CHAIWALA_URL": url, "CHAIWALA_SHORT_TICKETS_URL": short_tickets_url, "NODE_NO_WARNINGS": "1"}
    # Its own process group: node --test runs each file in a child, and a timeout must end them all.
    run = subprocess.Popen(
        [node, "--test", "--test-concurrency=2", *tests],
        cwd=SDK,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = run.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        stdout, stderr = run.communicate()
    return stdout, stderr, run.returncode
