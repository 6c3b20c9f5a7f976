"""What every running thing a test starts shares: leaving a ``with`` block stops it."""

from __future__ import annotations

from typing import Self


class Stoppable:
    """A context manager over ``stop()``: ``with Thing(...) as thing:`` stops it when the block ends."""

    def stop(self) -> None:
        """Stop it (each subclass says how)."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
