"""What a ``SubmitMoves`` caller reads of its answer: the request's ``read_mask`` (AIP-157).

A move's answer carries the submitting seat's view of the state (packed into an ``Any``) and the
events of its entries, redacted and narrated in the caller's language: most of what the handler
does after the engine and the commit.  A bot or a tournament platform that lists its moves with
``ListLegalMoves`` reads only who acts next, so it names the fields it reads and the rest is
never built.  Masking only removes: what the answer does carry is what an unmasked answer
carries, so no seat sees more than it may.

An empty or absent mask is the whole answer, as before the field existed (and ``*`` too).
Paths are the top-level fields of ``SubmitMovesResponse``; ``version``, ``status`` and
``to_act`` are always present (they cost nothing) and ``legal_moves`` is never set by the rules
service, so only ``state`` and ``events`` change what is built.  Any other path, a sub-field's
included, is refused (400 ``bad_read_mask``) before anything is played.

A keyed submission's answer is kept as it was built (masked), so the mask is part of the
submission's fingerprint (:mod:`services.rules.idempotency`): a retry with the same mask gets the
same answer, one with another mask ``idempotency_key_reused``, never an answer missing a field it
asked for.  A mask that reads everything fingerprints as no mask, so answers kept before this
field (and REST's, which never masks) stay answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chaiwala.v1 import rules_pb2
from services.common import errors

WILDCARD = "*"
# Every top-level field of the answer is a path a caller may name (AIP-157).
PATHS = frozenset(rules_pb2.SubmitMovesResponse.DESCRIPTOR.fields_by_name)
# The ones whose building a mask can spare; the others are always present (or never set here).
MASKABLE = ("events", "state")


@dataclass(frozen=True)
class Reads:
    """Which costly parts of a move's answer are built: the seat's ``state`` view, the ``events``."""

    state: bool = True
    events: bool = True

    @property
    def everything(self) -> bool:
        """Whether the answer is whole (no mask, or one naming every costly part)."""
        return self.state and self.events

    def fingerprint(self) -> bytes:
        """What the mask adds to a keyed submission's fingerprint: nothing for a whole answer,
        else the parts read, in a fixed order (so the paths' order and repeats do not matter)."""
        if self.everything:
            return b""
        return b"reads:" + b",".join(name.encode() for name in MASKABLE if getattr(self, name))


EVERYTHING = Reads()


def reads(paths: Sequence[str]) -> Reads:
    """The parts ``paths`` (a ``read_mask``'s) ask for; 400 ``bad_read_mask`` for an unknown path."""
    if not paths:
        return EVERYTHING
    unknown = sorted({path for path in paths if path != WILDCARD and path not in PATHS})
    if unknown:
        named = ", ".join(repr(path[:64]) for path in unknown[:3])  # the caller's text, bounded
        known = ", ".join(sorted(PATHS))
        raise errors.invalid("bad_read_mask", f"read_mask names no field of the answer: {named} (known: {known}, or *)")
    if WILDCARD in paths:
        return EVERYTHING
    return Reads(state="state" in paths, events="events" in paths)
