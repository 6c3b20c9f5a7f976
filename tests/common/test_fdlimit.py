"""A process holding thousands of streams raises its open-file limit (soft) to the hard one at start."""

from __future__ import annotations

import subprocess
import sys

from tests.support.stack import ROOT

CHILD = """
import resource
from services.common.fdlimit import raise_open_files
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))  # as a default soft limit would be
print(*raise_open_files(), hard)
"""


def test_the_soft_open_file_limit_is_raised_to_the_hard_one() -> None:
    # In a child, so this test process keeps its own limit.
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=True)
    soft, hard, was_hard = (int(part) for part in out.stdout.split())
    assert hard == was_hard
    assert soft == hard > 256
