"""The processes of the stack and ``make run``'s supervisor, which starts and watches them.

The table of what runs (one rules service per game, the conductor, the tournament director, the
webhook dispatcher, the gateway, an embedded Redis) lives here, above every package it names, so
the kernel (:mod:`services.common`) names no game and no process; the kernel keeps only the
mechanisms (process groups in :mod:`services.common.processes`, worker pools in
:mod:`services.common.workers`).  ``python -m services.processes`` runs the supervisor.
"""
