"""Quick play: tickets, pools and the matchmaker process (see docs/concepts/matchmaking.md)."""
