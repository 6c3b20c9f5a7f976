"""Rating settings (``CHAIWALA_*``): who may be rated, how often one pair counts, when a rating
is provisional.

Read where they are used (a rated seat, a rating update, a leaderboard page) rather than once at
start, so an operator's change applies without a restart, as :class:`services.lobby.mine.PlayerLimits`.
"""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class RatingSettings(BaseSettings):
    """Who is rated and how much one pairing may count."""

    model_config = SettingsConfigDict(env_prefix="CHAIWALA_", extra="ignore", frozen=True)

    # Guests (the server's own issuer, ``guest:<sub>``) on rated seats and in rated tournaments.
    # Off: a guest is refused a rated seat (403 identity_not_rated); guests play casual games.
    rated_guests: bool = False
    # Rated games between the same two players that count toward ratings per UTC day; the rest
    # still finish and are listed, but change no rating (0: no cap).
    rated_pair_games_per_day: int = 5
    # A rating is provisional while its player has fewer rated games of that type than this ...
    provisional_games: int = 10
    # ... or while its uncertainty (sigma; a new player starts at 25/3 = 8.33) is above this.
    provisional_sigma: float = 6.5
    # Whether who plays whom is public: leaderboards and player pages (the director), and the player
    # ids (external ids) of games and replays (the rules services). Off, a game's player ids are
    # shown only to its seats, its host and operators; names stay.
    public_ratings: bool = True
