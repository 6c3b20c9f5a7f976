"""The conductor: bot moves, clock timeouts, off the request path (``python -m services.conductor``)."""
