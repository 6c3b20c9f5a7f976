"""The games domain: how a game is stored in Redis (metadata, snapshot, log, the atomic commit)
and the platform state beside its engine state (resignations, timeouts, clock)."""
