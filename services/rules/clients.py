"""How a process of its own (the tournament director, the matchmaker) reaches the rules services.

Both create games as operators: one gRPC channel per game type to its rules service, found by
:func:`services.common.registry.service_addresses`, and the operator key the process presents
(the first, in sort order, of its ``CHAIWALA_API_KEYS``; none in development).  :class:`RulesClientSettings`
holds the addresses and the key, :class:`RulesClients` the channels.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, ClassVar

import grpc
from pydantic import Field, model_validator

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common import errors, registry
from services.common.settings import ServiceSettings

CHANNEL_OPTIONS = [("grpc.lb_policy_name", "round_robin"), ("grpc.enable_retries", 1)]


class RulesClientSettings(ServiceSettings):
    """A service's settings plus where the rules services are and the key it presents to them."""

    # game_type -> host:port of its rules service.  Every registered game has one: this mapping
    # (``service_<game_type>=...`` as a keyword), else ``CHAIWALA_SERVICE_<GAME_TYPE>``, else
    # its slot's loopback port (services.common.registry.service_addresses).
    services: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _services_by_keyword(cls, data: Any) -> Any:
        return registry.services_from_keywords(data)

    def service_addresses(self) -> dict[str, str]:
        """game_type -> host:port of its rules service, for every registered game."""
        return registry.service_addresses(self.services, os.environ)

    def operator_key(self) -> str:
        """The key this process presents to the rules services ("" when none are configured)."""
        keys = sorted(self.api_key_set())
        return keys[0] if keys else ""


class RulesClients:
    """One channel per game type to its rules service, with the operator key (none in development)."""

    timeout_seconds: ClassVar[float] = 10.0
    """How long a call may take, a (re)starting rules service included (``wait_for_ready``)."""

    def __init__(self, addresses: dict[str, str], api_key: str) -> None:
        self.channels = {
            game: grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS) for game, address in addresses.items()
        }
        self.stubs = {game: rules_pb2_grpc.RulesServiceStub(ch) for game, ch in self.channels.items()}
        self.metadata = (("authorization", f"Bearer {api_key}"),) if api_key else ()

    def stub(self, game_type: str) -> rules_pb2_grpc.RulesServiceStub:
        """The rules service of ``game_type``; ``unknown_game_type`` when none is configured."""
        stub = self.stubs.get(game_type)
        if stub is None:
            raise errors.invalid("unknown_game_type", f"no rules service for {game_type!r}")
        return stub

    async def create(self, game_type: str, request: rules_pb2.CreateGameRequest) -> str:
        """Create the game; its id."""
        answer = await self.stub(game_type).CreateGame(
            request, metadata=self.metadata, timeout=self.timeout_seconds, wait_for_ready=True
        )
        return str(answer.game_id)

    async def close(self) -> None:
        """Close every channel."""
        await asyncio.gather(*(channel.close() for channel in self.channels.values()))
