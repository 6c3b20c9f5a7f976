"""``python -m services.processes``: ``make run``'s supervisor (:mod:`services.processes.supervisor`)."""

from services.processes.supervisor import main

main()
