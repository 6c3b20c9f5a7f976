"""The Redis Cluster client of every process, bounded so a lost master fails over promptly.

``make two-hosts`` (docs/lab/two-hosts.md) kills a host and cuts it off: its nodes neither answer
nor reset a connection, they are silent.  redis-py's cluster client, left to its defaults, then
spends a call's time waiting on them: up to 10 retries, each of which reloads the slot map from
a startup node picked at random, silent ones included (a connect or reply timeout each).  This
client bounds that path:

* **reply and connect timeouts** on the call clients (:data:`CALL_REPLY_TIMEOUT_SECONDS`,
  :data:`CONNECT_TIMEOUT_SECONDS`), so a call on a connection to a silent node ends;
  blocking readers (``XREAD BLOCK``) get a reply timeout longer than their longest block instead;
* **few retries** (:data:`CLUSTER_RETRIES`) with no back-off: each one reloads the slot map
  and tries again, so a call reaches the promoted replica as soon as the cluster has promoted it,
  and before that fails within seconds as unavailable (503 with ``Retry-After``) instead of waiting;
* a **slot-map refresh that skips silent nodes** (:class:`LiveNodesFirst`): every startup node is
  pinged at once on a fresh connection, bounded by :data:`PROBE_SECONDS`, and the map is read
  from one that answered.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio.cluster import ClusterNode, NodesManager, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

CONNECT_TIMEOUT_SECONDS = 1.0
# Longer than any single call takes on a healthy cluster (a commit script is milliseconds), short
# enough that a call on a silent node gives way to the promoted replica within a few seconds.
CALL_REPLY_TIMEOUT_SECONDS = 2.0
# Blocking readers block for at most 10 s (the identity feed); their reply may take that long.
BLOCKING_REPLY_TIMEOUT_SECONDS = 30.0
CLUSTER_RETRIES = 3
# How long a slot-map refresh waits for startup nodes to answer a PING (the nodes are a round
# trip away on a local network; a silent one never answers).
PROBE_SECONDS = 0.5


def cluster_options(blocking: bool = False) -> dict[str, Any]:
    """The keyword arguments of every Redis Cluster client (``blocking``: a blocking reader's)."""
    return {
        "socket_connect_timeout": CONNECT_TIMEOUT_SECONDS,
        "socket_timeout": BLOCKING_REPLY_TIMEOUT_SECONDS if blocking else CALL_REPLY_TIMEOUT_SECONDS,
        "retry": Retry(NoBackoff(), CLUSTER_RETRIES),
    }


class LiveNodesFirst(NodesManager):
    """redis-py's nodes manager whose slot-map refresh reads the map from a node that answers.

    Concurrent refreshes wait for the one under way and then return, as redis-py's own do (its
    ``_epoch`` counts refreshes; redis is pinned in constraints.txt).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._refresh_lock = asyncio.Lock()

    async def initialize(
        self,
        additional_startup_nodes_info: list[tuple[str, int]] | None = None,
        last_failed_node_name: str | None = None,
    ) -> None:
        """Refresh the slot map, leaving out the startup nodes that do not answer a PING now."""
        epoch = self._epoch
        async with self._refresh_lock:
            if self._epoch != epoch:
                return  # refreshed while this call waited
            silent = await self.silent_nodes()
            held = {}
            if len(silent) < len(self.startup_nodes):  # all silent: let redis-py try them and fail
                held = {name: self.startup_nodes.pop(name) for name in silent}
            try:
                await super().initialize(additional_startup_nodes_info, last_failed_node_name)
            finally:
                # A refresh replaces the startup nodes by the map's nodes (dynamic startup nodes);
                # otherwise the silent ones go back, to be tried again next time.
                if self._epoch == epoch or not self._dynamic_startup_nodes:
                    self.startup_nodes.update(held)

    async def silent_nodes(self) -> set[str]:
        """The startup nodes that do not answer a PING within :data:`PROBE_SECONDS` (all pinged at once)."""
        nodes = list(self.startup_nodes.values())
        answers = await asyncio.gather(*(self._answers(node) for node in nodes))
        return {node.name for node, answered in zip(nodes, answers, strict=True) if not answered}

    async def _answers(self, node: ClusterNode) -> bool:
        # A connection of its own: a pooled one may be waiting on a silent node already.
        options = {**self.connection_kwargs, "socket_connect_timeout": PROBE_SECONDS, "socket_timeout": PROBE_SECONDS}
        probe = ClusterNode(node.host, node.port, **options)
        try:
            await probe.execute_command("PING")
        except Exception:  # refused, timed out, reset, loading: not a node to read the map from now
            return False
        finally:
            await probe.disconnect()
        return True


class FailoverCluster(RedisCluster):
    """redis-py's Redis Cluster client with :class:`LiveNodesFirst` as its nodes manager."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        given = self.nodes_manager
        self.nodes_manager = LiveNodesFirst(
            list(given.startup_nodes.values()),
            given.require_full_coverage,
            given.connection_kwargs,
            dynamic_startup_nodes=given._dynamic_startup_nodes,
            address_remap=given.address_remap,
            event_dispatcher=self._event_dispatcher,
        )
