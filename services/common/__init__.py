"""Plumbing shared by every rules service: engine protocol, RNG, store, server, bots."""
