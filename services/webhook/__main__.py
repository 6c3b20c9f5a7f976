"""``python -m services.webhook``: the webhook dispatcher (WebhookService over gRPC, fan-out, deliveries)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from grpc import aio

from chaiwala.v1 import webhooks_pb2, webhooks_pb2_grpc
from services.common.daemon import require_redis, run_daemon, work_until_stopped
from services.common.exposure import check_exposure
from services.common.interceptors import RpcInterceptor
from services.common.logs import get_logger
from services.common.metrics_http import keep_prefixes
from services.common.reflection import serve_grpc
from services.games.store import GameStore
from services.webhook.dispatcher import Dispatcher
from services.webhook.rpcs import WebhookServicer
from services.webhook.settings import WebhookSettings

SERVICE_NAME = webhooks_pb2.DESCRIPTOR.services_by_name["WebhookService"].full_name
log = get_logger("webhook")


async def start_server(dispatcher: Dispatcher, settings: WebhookSettings) -> tuple[aio.Server, int]:
    """The WebhookService (with health and reflection) on the configured address."""
    server = aio.server(interceptors=[RpcInterceptor("webhook")])
    servicer = WebhookServicer(dispatcher.store, settings.api_key_set(), dispatcher.targets, dispatcher.nudge)
    webhooks_pb2_grpc.add_WebhookServiceServicer_to_server(servicer, server)
    return server, await serve_grpc(server, SERVICE_NAME, settings.grpc_host, settings.grpc_port)


async def serve(settings: WebhookSettings) -> None:
    """Serve and dispatch until SIGTERM/SIGINT; finish the attempts in flight, then stop."""
    require_redis(settings)
    check_exposure("the webhook service", settings.grpc_host, bool(settings.api_key_set()), settings.insecure_open, log)
    # The game store's connection settings (fail fast, one retry; cluster or not).
    redis = GameStore.from_url(settings.redis_url, cluster=settings.redis_cluster).redis
    dispatcher = Dispatcher(redis, settings)
    server, port = await start_server(dispatcher, settings)
    # Its deliveries, the outbox lag it watches and its own RPCs: no game series.
    families = keep_prefixes("chaiwala_webhook_", "chaiwala_outbox_", "chaiwala_rpc_")

    def dispatch(stop: asyncio.Event) -> Awaitable[object]:
        return asyncio.gather(dispatcher.run(stop), dispatcher.report(stop))

    await work_until_stopped(settings, log, "dispatching", families, dispatch, server=server,
                             closers=(dispatcher.close, redis.aclose), port=port, consumer=dispatcher.consumer,
                             allow_loopback=settings.webhook_allow_loopback,
                             allow_private=settings.webhook_allow_private)


def main() -> None:
    """Entry point."""
    run_daemon(WebhookSettings(), serve)


if __name__ == "__main__":
    main()
