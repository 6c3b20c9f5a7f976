"""Structured logging (structlog), JSON in production, readable in a terminal."""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(fmt: str = "json", level: str = "info") -> None:
    """Route structlog and stdlib logging to stderr in the chosen format."""
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if fmt == "json" else structlog.dev.ConsoleRenderer(colors=False)
    )
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        numeric = logging.INFO
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(level=numeric, stream=sys.stderr, format="%(levelname)s %(name)s %(message)s")


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    """A structured logger bound to ``component=name``."""
    logger: structlog.stdlib.BoundLogger = structlog.get_logger(component=name)
    return logger
