"""``python -m services.notify``: the notification sender (NotifyService over gRPC, outbox facts to
Web Push).  Its own process, beside the webhook dispatcher rather than inside it: it has its own
consumer group, its own retry policy and its own state (subscriptions, preferences), and it scales
on its own; any number may run (consumer group, leases)."""

from __future__ import annotations

from grpc import aio

from chaiwala.v1 import notify_pb2, notify_pb2_grpc
from services.common.daemon import require_redis, run_daemon, work_until_stopped
from services.common.exposure import check_exposure
from services.common.interceptors import RpcInterceptor
from services.common.logs import get_logger
from services.common.metrics_http import keep_prefixes
from services.common.reflection import serve_grpc
from services.games.store import GameStore
from services.identity.verifier import verifier_for
from services.notify.rpcs import NotifyServicer
from services.notify.sender import Sender
from services.notify.settings import NotifySettings

SERVICE_NAME = notify_pb2.DESCRIPTOR.services_by_name["NotifyService"].full_name
log = get_logger("notify")


async def start_server(sender: Sender, settings: NotifySettings) -> tuple[aio.Server, int]:
    """The NotifyService (with health and reflection) on the configured address."""
    verifier = verifier_for(sender.redis)  # player tokens, as the rules services verify them
    server = aio.server(interceptors=[RpcInterceptor("notify", identify=verifier.player)])
    assert sender.keys is not None
    notify_pb2_grpc.add_NotifyServiceServicer_to_server(NotifyServicer(sender.store, sender.keys, sender.targets),
                                                        server)  # fmt: skip
    return server, await serve_grpc(server, SERVICE_NAME, settings.grpc_host, settings.grpc_port)


async def serve(settings: NotifySettings) -> None:
    """Serve and send until SIGTERM/SIGINT, then stop."""
    require_redis(settings)
    # Its calls carry player tokens, verified here: open to players by design, like the rules services.
    check_exposure("the notification service", settings.grpc_host, True, settings.insecure_open, log)
    redis = GameStore.from_url(settings.redis_url, cluster=settings.redis_cluster).redis
    sender = Sender(redis, settings)
    await sender.start()
    server, port = await start_server(sender, settings)
    families = keep_prefixes("chaiwala_notify_", "chaiwala_rpc_")
    await work_until_stopped(settings, log, "sending", families, sender.run, server=server,
                             closers=(sender.close, redis.aclose), port=port, consumer=sender.consumer,
                             allow_loopback=settings.webhook_allow_loopback)


def main() -> None:
    """Entry point."""
    run_daemon(NotifySettings(), serve)


if __name__ == "__main__":
    main()
