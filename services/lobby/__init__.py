"""The lobby: open seats, invitations, joining, starting, and the listing of games."""
