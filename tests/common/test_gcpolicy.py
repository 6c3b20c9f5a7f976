"""The long-running servers collect garbage at a pace fit for thousands of open streams
(services.common.gcpolicy): young collections far apart, a full one rarely, start-up frozen out of
every collection; and cyclic garbage made afterwards is still collected.  That the running gateway
and rules service serve with it is read from their metrics (tests/processes/test_workers.py)."""

from __future__ import annotations

import subprocess
import sys

from services.common import gcpolicy
from tests.support.stack import ROOT

CHILD = """
import gc, weakref
from services.common.gcpolicy import tune_gc
before = gc.get_threshold()
now = tune_gc()
frozen = gc.get_freeze_count()

class Node:
    pass

a, b = Node(), Node()
a.other, b.other = b, a  # a cycle: reference counting alone never frees it
gone = weakref.ref(a)
del a, b
gc.collect()
print(*before, *now, *gc.get_threshold(), frozen, gone() is None)
"""


def test_a_tuned_process_collects_rarely_keeps_start_up_frozen_and_still_frees_cycles() -> None:
    # In a child, so this test process keeps its own collector.
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=True)
    fields = out.stdout.split()
    before, answered, now = fields[0:3], fields[3:6], fields[6:9]
    frozen, freed = int(fields[9]), fields[10]
    wanted = [str(gcpolicy.YOUNG), str(gcpolicy.MIDDLE_AFTER), str(gcpolicy.FULL_AFTER)]
    assert answered == now == wanted != before
    assert frozen > 1000  # the modules and objects of start-up
    assert freed == "True"

