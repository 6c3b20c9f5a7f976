"""The server interceptor: bearer, error mapping, metrics and structured logging.

It wraps the RPC behaviour itself (not just the lookup), so the bearer it publishes is
visible to the handler, and its bookkeeping sees the final status of every call,
streaming ones included.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from grpc import aio

from services.common import errors, metrics
from services.common.callmeta import bearer_token
from services.common.errors import ServiceError
from services.common.logs import DEBUG_LOGGING, get_logger
from services.common.store import GameNotActive, GameNotFound, VersionConflict, is_unavailable

UnaryBehaviour = Callable[[Any, aio.ServicerContext], Awaitable[Any]]
StreamBehaviour = Callable[[Any, aio.ServicerContext], AsyncIterator[Any]]
UnaryWrapper = Callable[[UnaryBehaviour, str], UnaryBehaviour]
StreamWrapper = Callable[[StreamBehaviour, str], StreamBehaviour]

log = get_logger("rpc")


# The bearer token of the current call ("" when none was sent).
BEARER: contextvars.ContextVar[str] = contextvars.ContextVar("bearer", default="")
# The verified player the bearer is (a player token), or None: set by the interceptor of a
# service given an ``identify`` callable (the rules services': services.identity.verifier).
PLAYER: contextvars.ContextVar[Any] = contextvars.ContextVar("player", default=None)
# Verifies a bearer: the player it names, None for a bearer that is no player token; raises a
# ServiceError (UNAUTHENTICATED) for a player token that fails verification.
Identify = Callable[[str], Awaitable[Any]]


def _wrap(handler: grpc.RpcMethodHandler, method: str, unary: UnaryWrapper, stream: StreamWrapper) -> Any:
    """A copy of ``handler`` whose unary-unary or unary-stream behaviour is wrapped."""
    if handler is None:
        return None
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(
            unary(handler.unary_unary, method),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(
            stream(handler.unary_stream, method),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
    return handler


class _BehaviourInterceptor(aio.ServerInterceptor):
    """Base: subclasses give ``unary`` and ``stream`` wrappers.

    A method's wrapped handler is built once and kept (by full method name, for as long as the
    server hands out the same handler): building it per call cost a handler and a closure each.
    """

    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, Any]] = {}

    def unary(self, behaviour: UnaryBehaviour, method: str) -> UnaryBehaviour:
        return behaviour

    def stream(self, behaviour: StreamBehaviour, method: str) -> StreamBehaviour:
        return behaviour

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        kept = self._wrapped.get(handler_call_details.method)
        if kept is not None and kept[0] is handler:
            return kept[1]  # type: ignore[no-any-return]
        method = handler_call_details.method.rsplit("/", 1)[-1]
        wrapped = _wrap(handler, method, self.unary, self.stream)
        if handler is not None:
            self._wrapped[handler_call_details.method] = (handler, wrapped)
        return wrapped  # type: ignore[no-any-return]


def _bearer(context: aio.ServicerContext) -> str:
    return bearer_token(context.invocation_metadata() or ())


def _as_service_error(error: Exception) -> ServiceError | None:
    """Map store refusals to service refusals; anything unknown stays unknown."""
    if isinstance(error, ServiceError):
        return error
    if isinstance(error, GameNotFound):
        return errors.not_found(f"no game {error}")
    if isinstance(error, VersionConflict):
        return errors.conflict(error.current)
    if isinstance(error, GameNotActive):
        return errors.illegal("game_not_active", str(error))
    if is_unavailable(error):
        log.warning("store_unavailable", error=type(error).__name__)
        return errors.store_unavailable()
    return None


def _code_name(context: aio.ServicerContext) -> str:
    """The status name the call ended with (aio reports an enum or its integer)."""
    code = context.code()
    if code is None:
        return "OK"
    if isinstance(code, grpc.StatusCode):
        return code.name
    for status in grpc.StatusCode:
        if status.value[0] == code:
            return status.name
    return str(code)


class RpcInterceptor(_BehaviourInterceptor):
    """Every RPC's bookkeeping in one layer: publish the bearer, map refusals to rich statuses
    (anything unexpected becomes INTERNAL, logged), count and time the call.

    One wrapper instead of three stacked ones: each layer was an extra coroutine (or async
    generator) per call and per streamed item.  The per-call log line is at debug level;
    per-move and per-game facts are logged at info by the service.
    """

    def __init__(self, game_type: str, identify: Identify | None = None) -> None:
        super().__init__()
        self.game_type = game_type
        self.identify = identify
        self._counts = metrics.Children(metrics.RPC_REQUESTS, game_type)  # by method and status
        self._durations = metrics.Children(metrics.RPC_DURATION, game_type)  # by method

    async def _identify(self, bearer: str) -> None:
        """Publish the verified player of ``bearer`` (a bad player token refuses the call)."""
        PLAYER.set(await self.identify(bearer) if self.identify is not None and bearer else None)

    async def _abort(self, context: aio.ServicerContext, error: Exception, method: str) -> None:
        mapped = _as_service_error(error)
        if mapped is None:
            log.exception("rpc_failed", method=method)
            mapped = ServiceError(grpc.StatusCode.INTERNAL, "internal", "internal error")
        status = mapped.to_grpc_status()
        context.set_details(mapped.code)
        await context.abort(status.code, status.details, status.trailing_metadata)

    def _record(self, method: str, context: aio.ServicerContext, started: float, failed: bool, duration: Any) -> None:
        elapsed = time.perf_counter() - started
        code = _code_name(context)
        if failed and code == "OK":
            code = "CANCELLED"
        self._counts(method, code).inc()
        duration.observe(elapsed)
        if DEBUG_LOGGING[0]:  # the per-call line is off the hot path unless debugging (its arguments cost too)
            # Who called: the verified player's id, never the bearer itself ("" for seats, operators, nobody).
            player_id = getattr(PLAYER.get(), "player_id", "")
            log.debug("rpc", game_type=self.game_type, method=method, code=code, ms=round(elapsed * 1000, 2),
                      player_id=player_id)  # fmt: skip

    def unary(self, behaviour: UnaryBehaviour, method: str) -> UnaryBehaviour:
        """Wrap a unary call (the method's metric child is bound here, once, not per call)."""
        duration = self._durations(method)
        identify = self.identify

        async def call(request: Any, context: aio.ServicerContext) -> Any:
            bearer = _bearer(context)
            BEARER.set(bearer)
            started = time.perf_counter()
            failed = True
            try:
                if identify is not None and bearer:  # else no coroutine to await: PLAYER is None
                    await self._identify(bearer)
                else:
                    PLAYER.set(None)
                result = await behaviour(request, context)
                failed = False
                return result
            except aio.AbortError:
                raise
            except Exception as error:
                await self._abort(context, error, method)
            finally:
                self._record(method, context, started, failed, duration)

        return call

    def stream(self, behaviour: StreamBehaviour, method: str) -> StreamBehaviour:
        """Wrap a streaming call over its whole life (a refusal comes after what was already sent)."""
        duration = self._durations(method)

        async def call(request: Any, context: aio.ServicerContext) -> AsyncIterator[Any]:
            bearer = _bearer(context)
            BEARER.set(bearer)
            started = time.perf_counter()
            failed = True
            try:
                await self._identify(bearer)
                async for item in behaviour(request, context):
                    yield item
                failed = False
            except aio.AbortError:
                raise
            except Exception as error:
                await self._abort(context, error, method)
            finally:
                self._record(method, context, started, failed, duration)

        return call
