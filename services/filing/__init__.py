"""Where a game is filed: its keys, its status and every index that follows the status.

One owner below every domain that reads or changes them (games, lobby, retention, legal moves):

* :mod:`services.filing.keys` — a game's keys (one Redis Cluster slot per game) and the game type
  its id names;
* :mod:`services.filing.store` — the listing sets (per game type, visibility, status and shard),
  the active set, the retention index of ended games, and :data:`~services.filing.store.FILING`,
  the part of an atomic script that moves a game between them when its status changes.

It imports the kernel only, so every domain above may use it and none of them needs another to
know where a game is filed.
"""
