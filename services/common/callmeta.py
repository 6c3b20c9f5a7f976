"""What a call's metadata says about its caller: the bearer token, the language, and whether it
reads a move's events, or its whole answer, printed.

One reading for the rules service (its interceptor and answers) and for the gateway's stored
legal-moves read (:mod:`services.legalmoves.reader`), which must find the very seat and language
the rules service would answer for.
"""

from __future__ import annotations

from collections.abc import Iterable

from services.common import sentences


def bearer_token(metadata: Iterable[tuple[str, object]]) -> str:
    """The token of the ``authorization: Bearer <token>`` entry ("" without one)."""
    for key, value in metadata:
        if key == "authorization" and isinstance(value, str) and value.lower().startswith("bearer "):
            return value[7:].strip()
    return ""


def call_language(metadata: Iterable[tuple[str, object]]) -> str:
    """The language of the ``accept-language`` entry (English when absent)."""
    for key, value in metadata:
        if key == "accept-language":
            return sentences.pick_language(str(value))
    return sentences.DEFAULT_LANGUAGE


# A gateway that reads ``RenderedSubmit.events_json`` says so with this entry (value "1"): a gateway
# from before that field would answer a move without its events, so they are printed only when asked.
PRINT_EVENTS = "chaiwala-print-events"


def wants_printed_events(metadata: Iterable[tuple[str, object]]) -> bool:
    """Whether the caller asked for a move's events printed as JSON (:data:`PRINT_EVENTS`)."""
    return any(key == PRINT_EVENTS and value == "1" for key, value in metadata)


# A gateway that reads ``RenderedSubmit.answer_json`` (the whole REST answer printed by the rules
# service) says so with this entry (value "1"); a gateway from before that field reads the answer
# message, so the whole answer is printed only when asked.
PRINT_ANSWER = "chaiwala-print-answer"


def wants_printed_answer(metadata: Iterable[tuple[str, object]]) -> bool:
    """Whether the caller asked for a move's whole REST answer printed as JSON (:data:`PRINT_ANSWER`)."""
    return any(key == PRINT_ANSWER and value == "1" for key, value in metadata)
