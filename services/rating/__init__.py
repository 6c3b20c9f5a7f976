"""Ratings: OpenSkill per game type, by the platform's external ids (README "Tournaments and ratings")."""
