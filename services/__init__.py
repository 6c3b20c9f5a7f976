"""Chaiwala rules services: one per game, sharing `services.common`."""
