"""Live events as a fan-out: one reader per live game, any number of listeners (see :mod:`.hub`)."""
