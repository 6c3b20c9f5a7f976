"""Every secret the test suite hands out, so the suite can prove none reached a log.

``tests/conftest.py`` records each seat token the store issues (by wrapping the real
``new_token``) and each operator API key a test configures, sends all log output of the
session to one file, and at the end fails the session if any recorded secret is in it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

_lock = threading.Lock()
ISSUED: set[str] = set()


def remember(secret: str) -> None:
    """Record a secret that must never appear in a log."""
    if secret:
        with _lock:
            ISSUED.add(secret)


def recording(issue: Callable[[], str]) -> Callable[[], str]:
    """``issue`` (e.g. the store's ``new_token``), remembering every value it returns."""

    def issue_and_remember() -> str:
        secret = issue()
        remember(secret)
        return secret

    return issue_and_remember


def leaked(log_text: str) -> list[str]:
    """The recorded secrets that appear in ``log_text`` (shortened, so the report leaks nothing)."""
    with _lock:
        found = [secret for secret in ISSUED if secret in log_text]
    return [f"{secret[:4]}…({len(secret)} chars)" for secret in found]
