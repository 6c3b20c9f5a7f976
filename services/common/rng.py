"""A small, seedable, serialisable random number generator.

Every game keeps its RNG inside its state so that ``seed + moves`` replays a game
exactly.  Python's ``random.Random`` would work but its state is 625 integers; this
PCG32 generator keeps one 64-bit word, which is cheap to snapshot as JSON.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK64 = (1 << 64) - 1
_MULT = 6364136223846793005
_INC = 1442695040888963407


class Rng:
    """PCG32 (XSH-RR) generator; ``state`` round-trips through JSON as a hex string."""

    __slots__ = ("_state",)

    def __init__(self, seed: int | str = 0) -> None:
        if isinstance(seed, str):
            self._state = int(seed, 16) & _MASK64
            return
        # Scramble the seed once so that nearby seeds give unrelated streams.
        self._state = 0
        self._next()
        self._state = (self._state + (seed & _MASK64)) & _MASK64
        self._next()

    @property
    def state(self) -> str:
        """The generator state, as a hex string safe to store in JSON."""
        return format(self._state, "016x")

    @classmethod
    def from_state(cls, state: str) -> Rng:
        """Rebuild a generator from :pyattr:`state`."""
        return cls(state)

    def _next(self) -> int:
        old = self._state
        self._state = (old * _MULT + _INC) & _MASK64
        xorshifted = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
        rot = old >> 59
        return ((xorshifted >> rot) | (xorshifted << ((-rot) & 31))) & 0xFFFFFFFF

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("randbelow needs a positive bound")
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        while True:
            value = 0
            drawn = 0
            while drawn < bits:
                value = (value << 32) | self._next()
                drawn += 32
            value >>= drawn - bits
            if value < n:
                return value

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]``."""
        return low + self.randbelow(high - low + 1)

    def random(self) -> float:
        """A float in ``[0, 1)`` with 53 random bits."""
        high = self._next() >> 5
        low = self._next() >> 6
        return (high * 67108864.0 + low) / 9007199254740992.0

    def choice(self, items: Sequence[T]) -> T:
        """One element of a non-empty sequence."""
        return items[self.randbelow(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """``k`` distinct elements, in random order."""
        pool = list(items)
        self.shuffle(pool)
        return pool[:k]

    def fork(self, salt: int) -> Rng:
        """An independent generator derived from this one's state and ``salt``, without advancing this one."""
        return Rng((self._state ^ (salt * 0x9E3779B97F4A7C15)) & _MASK64)
