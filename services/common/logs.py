"""Structured logging (structlog), JSON in production, readable in a terminal.

Three rules hold for every line, whatever its format:

* **Secrets never reach a log.**  :func:`redact` (a structlog processor, also applied to
  stdlib records) replaces the values of secret-named keys (``authorization``, ``token``,
  ``api_key``, ``ticket`` …) and every ``Bearer …`` credential or ``token=…``-style query
  parameter found in any string, tracebacks included.
* **Tracebacks are plain text, never with local variables** (rendering locals is slow and
  prints request headers); JSON lines keep the traceback text under ``exception``.
* **Logging never blocks the event loop.**  Lines are handed to a bounded queue that a
  daemon thread writes out; when the queue is full a line is dropped and counted
  (:data:`DROPPED`), rather than stalling a request behind a slow terminal or pipe.
"""

from __future__ import annotations

import atexit
import logging
import queue
import re
import sys
import threading
from collections.abc import Mapping
from typing import Any, TextIO

import orjson
import structlog

REDACTED = "[redacted]"
# Keys whose values are secrets wherever they appear (compared lower-case, '-' read as '_').
SECRET_KEYS = frozenset(
    {
        "authorization",
        "proxy_authorization",
        "cookie",
        "set_cookie",
        "token",
        "tokens",
        "seat_token",
        "bearer",
        "api_key",
        "api_keys",
        "x_api_key",
        "ticket",
        "password",
        "secret",
    }
)
_SECRET_PATTERNS = (
    # Authorization: Bearer <credential>, in any casing, header dumps included.
    (re.compile(r"(?i)(bearer\s+)[^\s'\",;)\]}]+"), r"\1" + REDACTED),
    # Query parameters or key=value pairs that carry a credential.
    (re.compile(r"(?i)\b((?:api_?key|token|ticket|access_token)=)[^&\s'\",;)\]}]+"), r"\1" + REDACTED),
    # "authorization": "<anything>" in reprs and JSON text.
    (re.compile(r"(?i)(authorization['\"]?\s*[:,]\s*b?['\"])[^'\"]*"), r"\1" + REDACTED),
)
QUEUE_LINES = 10_000
# Whether debug lines are written at all: a caller on a hot path skips building their arguments.
DEBUG_LOGGING = [False]
DROPPED = [0]  # lines dropped because the writer fell behind (a list, so it can be updated in place)


def redact_text(text: str) -> str:
    """``text`` with every credential-looking substring replaced."""
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def _is_secret_key(key: object) -> bool:
    return isinstance(key, str) and key.lower().replace("-", "_") in SECRET_KEYS


def _redact_value(value: Any, depth: int = 0) -> Any:
    """Redact strings, and containers of them (to a bounded depth)."""
    if isinstance(value, str):
        return redact_text(value)
    if depth > 8:
        return value
    if isinstance(value, Mapping):
        return {k: REDACTED if _is_secret_key(k) else _redact_value(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_redact_value(item, depth + 1) for item in value)
    return value


def redact(logger: Any, method_name: str, event_dict: structlog.types.EventDict) -> structlog.types.EventDict:
    """structlog processor: no secret survives into the rendered line."""
    for key, value in list(event_dict.items()):
        event_dict[key] = REDACTED if _is_secret_key(key) else _redact_value(value)
    return event_dict


class _Writer:
    """A daemon thread that writes queued lines to a stream, so callers never wait for I/O."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.lines: queue.Queue[str | None] = queue.Queue(maxsize=QUEUE_LINES)
        self.thread = threading.Thread(target=self._run, name="log-writer", daemon=True)
        self.thread.start()

    def put(self, line: str) -> None:
        """Queue one line; drop it (and count) when the writer is too far behind."""
        try:
            self.lines.put_nowait(line)
        except queue.Full:
            DROPPED[0] += 1

    def _run(self) -> None:
        while True:
            line = self.lines.get()
            try:
                if line is None:
                    return
                self.stream.write(line + "\n")
                if self.lines.empty():
                    self.stream.flush()
            except (OSError, ValueError):
                pass  # a closed or broken stream must not kill the writer
            finally:
                self.lines.task_done()

    def flush(self, timeout: float = 5.0) -> None:
        """Wait (at most ``timeout`` seconds) until every queued line is written."""
        done = threading.Event()

        def wait_for_writer() -> None:
            self.lines.join()
            done.set()

        threading.Thread(target=wait_for_writer, daemon=True).start()
        done.wait(timeout)


class QueueLogger:
    """The structlog logger: every level hands its rendered line to the writer thread."""

    def __init__(self, writer: _Writer) -> None:
        self._writer = writer

    def msg(self, message: str) -> None:
        """Queue one rendered line."""
        self._writer.put(message)

    log = debug = info = warn = warning = err = error = critical = exception = fatal = failure = msg


class _QueueHandler(logging.Handler):
    """Stdlib records (uvicorn, grpc, asyncio) through the same redaction and writer."""

    def __init__(self, writer: _Writer) -> None:
        super().__init__()
        self.writer = writer

    def emit(self, record: logging.LogRecord) -> None:
        """Format, redact and queue one record."""
        try:
            self.writer.put(redact_text(self.format(record)))
        except Exception:  # a logging failure must never break the caller
            DROPPED[0] += 1


_WRITER: list[_Writer] = []


def flush_logs(timeout: float = 5.0) -> None:
    """Wait until every line logged so far has been written (tests, shutdown)."""
    for writer in _WRITER:
        writer.flush(timeout)


def _orjson_text(data: Any, **options: Any) -> str:
    """One JSON line by orjson (several times json.dumps' speed: a commit logs one line per move)."""
    return orjson.dumps(data, default=options.get("default"), option=orjson.OPT_NON_STR_KEYS).decode()


def _renderer(fmt: str) -> structlog.types.Processor:
    if fmt == "json":
        return structlog.processors.JSONRenderer(serializer=_orjson_text)
    return structlog.dev.ConsoleRenderer(colors=False, exception_formatter=structlog.dev.plain_traceback)


def configure_logging(fmt: str = "json", level: str = "info", stream: TextIO | None = None) -> None:
    """Route structlog and stdlib logging to ``stream`` (stderr) in the chosen format."""
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        numeric = logging.INFO
    DEBUG_LOGGING[0] = numeric <= logging.DEBUG
    writer = _Writer(stream or sys.stderr)
    for old in _WRITER:
        old.flush(1.0)
    _WRITER[:] = [writer]
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            # Plain traceback text (no locals), so JSON keeps it and nothing slow runs.
            structlog.processors.format_exc_info,
            redact,
            _renderer(fmt),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=lambda *args: QueueLogger(writer),
        cache_logger_on_first_use=False,
    )
    handler = _QueueHandler(writer)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    for old_handler in list(root.handlers):
        if isinstance(old_handler, _QueueHandler):
            root.removeHandler(old_handler)
    root.addHandler(handler)
    root.setLevel(numeric)


atexit.register(flush_logs, 2.0)


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    """A structured logger bound to ``component=name``."""
    logger: structlog.stdlib.BoundLogger = structlog.get_logger(component=name)
    return logger
