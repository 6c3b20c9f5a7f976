"""The worker groups the process tests share (tests/support/worker_groups.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.worker_groups import WorkerGroups


@pytest.fixture(scope="session")
def started_groups() -> Iterator[list[WorkerGroups]]:
    """The groups started in this session (the last one current); stopped at its end."""
    started: list[WorkerGroups] = []
    try:
        yield started
    finally:
        for groups in started:
            groups.stop()


@pytest.fixture()
def groups(started_groups: list[WorkerGroups], tmp_path_factory: pytest.TempPathFactory) -> WorkerGroups:
    """Running groups: the session's, or new ones when a test killed them."""
    if not started_groups or not started_groups[-1].running():
        started_groups.append(WorkerGroups(tmp_path_factory.mktemp("workers")))
    return started_groups[-1]
