"""The TypeScript SDK's own tests (``node --test``) against the real stack.

``make sdk`` builds ``sdk/typescript`` (types generated from the served OpenAPI document, compiled
by the pinned ``tsc``); this test starts nothing of its own: it hands the suite's gateway to the
node tests in ``CHAIWALA_URL`` and fails with their report if any fails.  A Darjeeling game played
to its result, a stream cut three times, idempotent pinned moves, guest sessions, the player stream
(your turn in three games on one stream; cut three times, nothing lost or repeated), the type
tests, and a plain ``EventSource`` (the ``eventsource`` package, no SDK) following the frontend
guide's recipe past its ticket's first minute (about 70 s) are in ``sdk/typescript/test/``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdk" / "typescript"


def test_the_typescript_sdk_passes_its_node_tests_against_the_stack(stack: dict[str, Any]) -> None:
    node = shutil.which("node")
    assert node, "node is missing: make node installs it (make test does)"
    assert (SDK / "dist" / "index.js").is_file(), "the SDK is not built: run make sdk (make test does)"
    env = {**os.environ, "CHAIWALA_URL": str(stack["url"]), "NODE_NO_WARNINGS": "1"}
    tests = sorted(str(path.relative_to(SDK)) for path in (SDK / "test").glob("*.test.mjs"))
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
    print(stdout[-4000:])  # shown with -s or on failure: each test and its duration
    assert run.returncode == 0, stdout[-8000:] + stderr[-2000:]
    assert "# fail 0" in stdout
