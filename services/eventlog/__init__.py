"""A game's log as stored: the entry encoding (:mod:`.codec`) and its dictionaries."""
