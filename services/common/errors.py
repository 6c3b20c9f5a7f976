"""Refusals with a stable machine code, and how they travel over gRPC.

A refusal is sent as a gRPC status whose details hold a ``google.rpc.ErrorInfo``
(``reason`` = the code, ``domain`` = ``chaiwala``) and a ``chaiwala.v1.ErrorDetail``.
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from chaiwala.v1 import rules_pb2

ERROR_DOMAIN = "chaiwala"


# A refusal's message may quote the client's input; never more than this much of it.
MAX_DETAIL_CHARS = 240


def clip(text: str, limit: int = MAX_DETAIL_CHARS) -> str:
    """``text`` cut to ``limit`` characters (marked with an ellipsis), so errors never echo big inputs."""
    return text if len(text) <= limit else text[:limit] + "…"


class ServiceError(Exception):
    """A refusal: gRPC status, stable code, human message (clipped to :data:`MAX_DETAIL_CHARS`)."""

    def __init__(self, status: grpc.StatusCode, code: str, message: str, current_version: int | None = None) -> None:
        message = clip(message)
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.current_version = current_version

    def to_grpc_status(self) -> grpc.Status:
        """The rich gRPC status carrying this refusal."""
        info = any_pb2.Any()
        info.Pack(error_details_pb2.ErrorInfo(reason=self.code, domain=ERROR_DOMAIN))
        detail_message = rules_pb2.ErrorDetail(code=self.code, message=self.message)
        if self.current_version is not None:
            detail_message.current_version = self.current_version
        detail = any_pb2.Any()
        detail.Pack(detail_message)
        status = status_pb2.Status(code=self.status.value[0], message=self.message, details=[info, detail])
        return rpc_status.to_status(status)


def error_detail_from_metadata(metadata: object) -> rules_pb2.ErrorDetail | None:
    """Pull the :class:`ErrorDetail` out of a failed call's trailing metadata (client side)."""
    for key, value in metadata or ():  # type: ignore[attr-defined]
        if key != rpc_status.GRPC_DETAILS_METADATA_KEY:
            continue
        status = status_pb2.Status.FromString(value)
        for packed in status.details:
            detail = rules_pb2.ErrorDetail()
            if packed.Unpack(detail):
                return detail
    return None


def invalid(code: str, message: str) -> ServiceError:
    """Malformed request (400)."""
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, code, message)


def not_found(message: str) -> ServiceError:
    """No such game (404)."""
    return ServiceError(grpc.StatusCode.NOT_FOUND, "game_not_found", message)


def unauthenticated(message: str = "a valid bearer token is required") -> ServiceError:
    """Missing or unknown credential (401)."""
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, "unauthenticated", message)


def forbidden(code: str, message: str) -> ServiceError:
    """Authenticated but not allowed (403)."""
    return ServiceError(grpc.StatusCode.PERMISSION_DENIED, code, message)


def illegal(code: str, message: str) -> ServiceError:
    """Well-formed but against the rules now (422)."""
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, code, message)


def conflict(current_version: int) -> ServiceError:
    """Stale ``expected_version`` (409)."""
    return ServiceError(
        grpc.StatusCode.ABORTED,
        "version_conflict",
        f"the game is at version {current_version}",
        current_version=current_version,
    )


def store_unavailable() -> ServiceError:
    """Redis does not answer (503 with Retry-After); nothing was changed."""
    message = "the game store is unavailable; retry shortly"
    return ServiceError(grpc.StatusCode.UNAVAILABLE, "store_unavailable", message)


def require_pin(expected: int | None, key: str) -> None:
    """A submission names the state it was made for, or carries a key that makes retries safe.

    Without either, a retried request (the client timed out, the answer was lost) would be
    applied again on whatever state the game has reached, so it is refused up front (428).
    """
    if expected is None and not key:
        raise illegal(
            "precondition_required", "send 'expected_version' (the version you saw) or an 'Idempotency-Key' header"
        )
