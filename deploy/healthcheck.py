"""Container health check for Chaiwala processes (used by docker-compose; no extra binaries needed).

Usage::

    python /app/deploy/healthcheck.py grpc [HOST:PORT] [--service NAME]   # rules service: gRPC health
    python /app/deploy/healthcheck.py http [URL]                           # gateway: HTTP 200 on /readyz

Defaults come from the runtime contract: ``127.0.0.1:$CHAIWALA_GRPC_PORT`` (50051) and service
``chaiwala.v1.RulesService`` for gRPC; ``http://127.0.0.1:$CHAIWALA_HTTP_PORT/readyz`` (8000) for HTTP.
Exit status 0 means healthy, 1 unhealthy, 2 usage error. Only the standard library and the
``grpcio-health-checking`` runtime dependency are used.
"""

from __future__ import annotations

import argparse
import os
import sys
import urllib.error
import urllib.request

RULES_SERVICE = "chaiwala.v1.RulesService"


def check_grpc(target: str, service: str, timeout: float) -> bool:
    """True if ``target`` answers grpc.health.v1.Health/Check for ``service`` with SERVING."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as exc:
            print(f"unhealthy: {target} {service!r}: {exc.code().name}", file=sys.stderr)
            return False
    serving = reply.status == health_pb2.HealthCheckResponse.SERVING
    if not serving:
        print(f"unhealthy: {target} {service!r}: status {reply.status}", file=sys.stderr)
    return serving


def check_http(url: str, timeout: float) -> bool:
    """True if GET ``url`` answers 2xx."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return 200 <= response.status < 300
    except (urllib.error.URLError, OSError) as exc:
        print(f"unhealthy: {url}: {exc}", file=sys.stderr)
        return False


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, run one check, return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds")
    sub = parser.add_subparsers(dest="kind", required=True)
    grpc_parser = sub.add_parser("grpc", help="gRPC health of a rules service")
    grpc_parser.add_argument("target", nargs="?", default=f"127.0.0.1:{os.environ.get('CHAIWALA_GRPC_PORT', '50051')}")
    grpc_parser.add_argument("--service", default=RULES_SERVICE, help='health service name ("" = overall)')
    http_parser = sub.add_parser("http", help="HTTP readiness of the gateway")
    http_parser.add_argument(
        "url", nargs="?", default=f"http://127.0.0.1:{os.environ.get('CHAIWALA_HTTP_PORT', '8000')}/readyz"
    )
    args = parser.parse_args(argv)
    if args.kind == "grpc":
        healthy = check_grpc(args.target, args.service, args.timeout)
    else:
        healthy = check_http(args.url, args.timeout)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
