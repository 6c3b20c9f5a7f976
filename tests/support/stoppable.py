"""What every running thing a test starts shares: leaving a ``with`` block stops it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Self, TypeVar

import pytest

S = TypeVar("S", bound="Stoppable")


class Stoppable:
    """A context manager over ``stop()``: ``with Thing(...) as thing:`` stops it when the block ends."""

    def stop(self) -> None:
        """Stop it (each subclass says how)."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def running(factory: Callable[[], S]) -> Any:
    """A module-scoped fixture of one ``factory()`` thing, stopped after the module."""

    @pytest.fixture(scope="module")
    def fixture() -> Iterator[S]:
        with factory() as thing:
            yield thing

    return fixture
