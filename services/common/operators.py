"""Operator keys: whether the caller of the current RPC is an operator, in one place for every process.

A process configured with no keys is open (local development): every caller is an operator,
except one who shows a player token (:data:`~services.common.interceptors.PLAYER`), who is that
player.  Keys are compared in constant time.
"""

from __future__ import annotations

import secrets

from services.common import errors
from services.common.interceptors import BEARER, PLAYER


class OperatorKeys:
    """The operator keys of one process."""

    def __init__(self, api_keys: frozenset[str]) -> None:
        self.api_keys = api_keys

    def is_api_key(self, token: str) -> bool:
        """Whether ``token`` is one of the keys."""
        return any(secrets.compare_digest(token, key) for key in self.api_keys)

    def is_operator(self) -> bool:
        """Whether the current caller is an operator (see the module's docstring)."""
        if PLAYER.get() is not None:
            return False
        return not self.api_keys or self.is_api_key(BEARER.get())

    def require(self, what: str) -> None:
        """Refuse a caller who is no operator: 401 with no credential, 403 ``api_key_required`` with another."""
        if self.is_operator():
            return
        if not BEARER.get():
            raise errors.unauthenticated(f"{what} needs an operator API key")
        raise errors.forbidden("api_key_required", f"{what} needs an operator API key")
