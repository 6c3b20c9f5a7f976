"""Game-independent bots: the search bot (:mod:`services.bots.search`) and its levels."""
