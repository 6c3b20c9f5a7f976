"""Provable fairness: committed seeds nobody controls alone, a hash-chained log, offline verification.

* :mod:`services.fairness.seeding` — the server secret drawn at creation, its public
  commitment, and the effective seed derived from it (HMAC-SHA256).
* :mod:`services.fairness.chain` — the digest of every snapshot and the hash that chains
  each log entry to the one before it.
* :mod:`services.fairness.verify` — recompute a finished game from its replay and say
  exactly where it diverges.
"""
