"""Idempotency keys that answer only the same request: a key reused with another body is refused.

A keyed submission's first answer is kept (``game:{G}:idem:<seat>:<key>``) and a retry gets it
back.  A client that reuses a key for a *different* move would silently get the first move's
answer and believe its new move was played; instead it gets 422 ``idempotency_key_reused``, as
Stripe answers.  So the first answer is kept behind a fingerprint of its request, the SHA-256 of
its moves (each packed move's type and bytes), its ``expected_version`` and, when it masks its
answer, the parts its ``read_mask`` reads (:mod:`services.rules.readmask`: the answer is kept as
built, so a retry reading other parts is another request)::

    b"fp1:" + <64 hex digits> + b":" + <the SubmitMovesResponse bytes>

No protobuf message starts with ``f`` (field 12 with wire type 6 does not exist), so answers kept
before fingerprints (plain response bytes, minutes-lived) are told apart and answered as before.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from google.protobuf import any_pb2

from chaiwala.v1 import rules_pb2
from services.common import errors

PREFIX = b"fp1:"
DIGEST_HEX = 64
IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"


def fingerprint(moves: Sequence[any_pb2.Any], expected: int | None, reads: bytes = b"") -> bytes:
    """The fingerprint of a submission's body: its moves, in order, its expected version and what
    its answer reads (``Reads.fingerprint``: empty for a whole answer, which so fingerprints as
    it did before read masks)."""
    digest = hashlib.sha256(b"expected:" + (b"-" if expected is None else str(expected).encode()))
    for move in moves:
        for part in (move.type_url.encode(), move.value):
            digest.update(len(part).to_bytes(8, "big") + part)
    if reads:
        digest.update(b"\0" + reads)  # read as a move part, its length prefix would exceed the rest
    return digest.hexdigest().encode()


def kept(print_: bytes, answer: bytes) -> bytes:
    """What is stored for a keyed submission: its fingerprint, then its answer (the answer alone
    when there is no fingerprint to keep)."""
    return PREFIX + print_ + b":" + answer if print_ else answer


def first_answer(stored: bytes, print_: bytes) -> rules_pb2.SubmitMovesResponse:
    """The kept answer of a keyed retry; 422 ``idempotency_key_reused`` when the body differs."""
    if stored.startswith(PREFIX):
        kept_print = stored[len(PREFIX) : len(PREFIX) + DIGEST_HEX]
        if kept_print != print_:
            message = "this Idempotency-Key was used for another request body; use a new key for a new move"
            raise errors.illegal(IDEMPOTENCY_KEY_REUSED, message)
        stored = stored[len(PREFIX) + DIGEST_HEX + 1 :]
    return rules_pb2.SubmitMovesResponse.FromString(stored)
