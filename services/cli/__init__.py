"""The operator's command line, ``chaiwala`` (see :mod:`services.cli.main`)."""
