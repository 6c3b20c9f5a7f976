"""Tournaments: the director process, pairings, standings (README "Tournaments and ratings")."""
