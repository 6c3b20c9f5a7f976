"""The games' seedable, serialisable random number generators.

Every game keeps its generator's state inside its snapshot so that ``seed + moves``
replays a game exactly.  Two generators share one interface (:class:`Rng`: ``randbelow``,
``randint``, ``random``, ``choice``, ``shuffle``, ``sample``, ``fork``), so engines never
know which one they draw from:

* ``pcg32`` — PCG32 (XSH-RR) with one 64-bit word of state, serialised as a 16-digit hex
  string.  Fast, but its state can be recovered from a few outputs, and players see
  outputs (their draws).  Games stored before the keyed generator existed keep it, and
  so do tools and tests that pass a plain integer seed.
* ``blake2b`` — :class:`KeyedRng`, a keyed cryptographic stream: word block ``i`` is
  ``BLAKE2b-512(key = the 256-bit seed, person = "chaiwala-rng-v1", data = i)``, sixteen
  32-bit words each.  Keyed BLAKE2b is a pseudo-random function, so draws reveal nothing
  about the key or about other draws.  Its state is ``{"kind", "key", "at"}`` (``at`` = words
  consumed), so it is as easy to snapshot as PCG32's.  Every game the rules service
  creates uses it (docs/concepts/fairness-generator.md says why BLAKE2b).

:class:`Seed` names a game's seed and its generator together; :func:`new_rng` builds the
generator a seed starts, :meth:`Rng.from_state` the one a snapshot continues.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

KIND_PCG32 = "pcg32"
KIND_KEYED = "blake2b"
KINDS = (KIND_PCG32, KIND_KEYED)
SEED_BITS = 256
SEED_HEX_DIGITS = SEED_BITS // 4

# A serialised generator state: PCG32's hex string, or the keyed generator's dict.
RngState = str | dict[str, Any]

_MASK64 = (1 << 64) - 1
_MULT = 6364136223846793005
_INC = 1442695040888963407

_KEY_BYTES = SEED_BITS // 8
_WORDS_PER_BLOCK = 16  # BLAKE2b-512 gives 64 bytes: sixteen 32-bit words
_BLOCK_WORDS = struct.Struct("<16I")
_PERSON = b"chaiwala-rng-v1"
_FORK_PERSON = b"chaiwala-fork-v1"


@dataclass(frozen=True)
class Seed:
    """A game's seed and the generator it starts: ``value`` is at most 256 bits."""

    value: int
    generator: str = KIND_KEYED

    def __post_init__(self) -> None:
        if not 0 <= self.value < 1 << SEED_BITS:
            raise ValueError(f"a seed is an integer of at most {SEED_BITS} bits")
        if self.generator not in KINDS:
            raise ValueError(f"unknown generator {self.generator!r}")

    @property
    def hex(self) -> str:
        """The seed as 64 hex digits (zero-padded)."""
        return format(self.value, f"0{SEED_HEX_DIGITS}x")


def new_rng(seed: int | Seed) -> Rng:
    """The generator a game starts from: a :class:`Seed`'s own kind, PCG32 for a plain integer."""
    if isinstance(seed, int):
        return Rng(seed)
    if seed.generator == KIND_PCG32:
        return Rng(seed.value)
    return KeyedRng(seed.value.to_bytes(_KEY_BYTES, "big"))


class Rng:
    """The interface every engine draws from; constructed directly, the PCG32 generator.

    Every draw is built from 32-bit words of :meth:`_next`, so a subclass only supplies
    those words, its state and :meth:`fork`.
    """

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
    def kind(self) -> str:
        """Which generator this is (``"pcg32"`` or ``"blake2b"``)."""
        return KIND_PCG32

    @property
    def state(self) -> RngState:
        """The generator state, safe to store in JSON (PCG32: a 16-digit hex string)."""
        return format(self._state, "016x")

    @staticmethod
    def from_state(state: RngState) -> Rng:
        """Rebuild the generator a snapshot holds: a hex string is PCG32, a dict names its kind."""
        if isinstance(state, str):
            return Rng(state)
        if state.get("kind") == KIND_KEYED:
            return KeyedRng.restore(state)
        raise ValueError(f"unknown generator state kind {state.get('kind')!r}")

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


class KeyedRng(Rng):
    """A keyed cryptographic stream: BLAKE2b-512 of a word-block counter under a 256-bit key.

    The block holding the next word is computed lazily and kept, so a run of draws costs
    one BLAKE2b call per sixteen words; a restored generator recomputes only the block it
    stands in.
    """

    __slots__ = ("_at", "_block", "_key", "_words")

    def __init__(self, key: bytes, at: int = 0) -> None:
        if len(key) != _KEY_BYTES:
            raise ValueError(f"the key is {_KEY_BYTES} bytes")
        if at < 0:
            raise ValueError("the stream position is not negative")
        self._key = key
        self._at = at
        self._block = -1  # index of the block in ``_words``; none computed yet
        self._words: tuple[int, ...] = ()

    @property
    def kind(self) -> str:
        """``"blake2b"``."""
        return KIND_KEYED

    @property
    def state(self) -> RngState:
        """``{"kind": "blake2b", "key": 64 hex digits, "at": words consumed}``."""
        return {"kind": KIND_KEYED, "key": self._key.hex(), "at": self._at}

    @classmethod
    def restore(cls, state: dict[str, Any]) -> KeyedRng:
        """Rebuild from :pyattr:`state`."""
        key, at = state.get("key"), state.get("at")
        if not isinstance(key, str) or not isinstance(at, int) or isinstance(at, bool):
            raise ValueError("a keyed generator state needs a hex 'key' and an integer 'at'")
        return cls(bytes.fromhex(key), at)

    def _next(self) -> int:
        block, offset = divmod(self._at, _WORDS_PER_BLOCK)
        if block != self._block:
            digest = hashlib.blake2b(
                block.to_bytes(16, "little"), key=self._key, person=_PERSON, digest_size=64
            ).digest()
            self._words = _BLOCK_WORDS.unpack(digest)
            self._block = block
        self._at += 1
        return self._words[offset]

    def fork(self, salt: int) -> Rng:
        """A keyed generator under a key derived from this one's key, position and ``salt`` (this one stays put)."""
        data = f"{self._at}/{salt}".encode()
        return KeyedRng(hashlib.blake2b(data, key=self._key, person=_FORK_PERSON, digest_size=_KEY_BYTES).digest())
