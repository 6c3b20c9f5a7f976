"""The open-file limit: every client connection, gRPC stream's channel and Redis connection is a file.

A process starts with its soft ``RLIMIT_NOFILE`` (often 1024), far below what a gateway holding
thousands of SSE streams needs; the hard limit is what an unprivileged process may raise it to.
``make run``'s supervisor (its children inherit it), the gateway and the rules services raise the
soft limit to the hard one at start.  Containers: the hard limit is the runtime's (compose
``ulimits: nofile``; on Kubernetes the container runtime's default, docs/guides/operators.md).
"""

from __future__ import annotations

import contextlib
import resource


def raise_open_files() -> tuple[int, int]:
    """Raise this process's soft open-file limit to its hard limit; return (soft, hard) after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1_048_576)
        with contextlib.suppress(ValueError, OSError):  # kept as it was: the process runs with fewer
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft, hard
