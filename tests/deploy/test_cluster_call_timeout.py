"""Calls on a Redis Cluster give up on a silent node; blocking readers do not (``make two-hosts``).

A master whose host drops off the network sends no reset: without a read limit, a call on a
connection opened before waited until the host came back (every player stalled for the whole cut in
``make two-hosts``).  With the limit the call fails over to the promoted replica (the two-host run
shows it); here, that each kind of client carries the right limit.
"""

from __future__ import annotations

from services.common.store import CLUSTER_CALL_TIMEOUT_SECONDS, redis_client
from services.games.store import GameStore

# Nothing listens here: the clients connect lazily and these checks send nothing.
URL = "redis://127.0.0.1:9/0"


def test_cluster_call_clients_limit_each_reply() -> None:
    """A call client's node connections wait at most CLUSTER_CALL_TIMEOUT_SECONDS for a reply."""
    client = redis_client(URL, cluster=True, max_connections=10, pool_timeout=2.0)
    assert client.connection_kwargs["socket_timeout"] == CLUSTER_CALL_TIMEOUT_SECONDS


def test_cluster_blocking_readers_keep_no_reply_limit() -> None:
    """The live-event readers' client (XREAD BLOCK for seconds) has no reply limit."""
    store = GameStore.from_url(URL, cluster=True)
    blocking = store.blocking_client(10)
    assert blocking.connection_kwargs.get("socket_timeout") is None
    assert store.redis.connection_kwargs["socket_timeout"] == CLUSTER_CALL_TIMEOUT_SECONDS
