"""Two "hosts" on this machine: Linux network namespaces joined by a bridge (``make two-hosts``).

The topology is the test's own and lives only while the test runs::

    root namespace:  bridge chw36br (10.236.36.1/24) -- HAProxy on 127.0.0.1
                        |                       |
                 veth chw36a                veth chw36b
                        |                       |
    namespace chw36-a: 10.236.36.11   namespace chw36-b: 10.236.36.12

Every address of the test subnet sits on an interface this module made (the bridge in the root
namespace, one veth end in each namespace), so the only traffic is loopback or between the test's
own hosts.  :func:`topology` refuses to start when the subnet is already routed here (it would not be
the test's own) and removes everything it made on the way out, also after a failure.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

SUBNET = ipaddress.ip_network("10.236.36.0/24")
BRIDGE = "chw36br"
BRIDGE_ADDRESS = "10.236.36.1"


@dataclass(frozen=True)
class Host:
    """One namespace standing for a host: its name, address and the root-side end of its veth."""

    name: str
    address: str
    link: str  # the veth end on the bridge: setting it down cuts the host off

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run inside this host's namespace."""
        return ["ip", "netns", "exec", self.name, *argv]


HOSTS = (Host("chw36-a", "10.236.36.11", "chw36a"), Host("chw36-b", "10.236.36.12", "chw36b"))


class CannotRun(RuntimeError):
    """This machine cannot run the two-host test (the message says why)."""


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check, timeout=30)


def require_namespaces() -> None:
    """Raise :class:`CannotRun` unless this process may make namespaces, veths and bridges."""
    if os.geteuid() != 0:
        raise CannotRun("needs root: it makes network namespaces, veth pairs and a bridge (ip netns add)")
    if shutil.which("ip") is None:
        raise CannotRun("needs iproute2's `ip` (apt-get install iproute2)")
    probe = "chw36-probe"
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        raise CannotRun(f"`ip netns add` is refused here (a container without CAP_SYS_ADMIN?): {made.stderr.strip()}")
    _ip("netns", "del", probe, check=False)


def _subnet_in_use() -> str:
    """The routes of this namespace that overlap the test subnet (empty: the subnet is free)."""
    routes = _ip("-4", "route", "show").stdout.splitlines()
    taken = []
    for line in routes:
        target = line.split()[0]
        if target == "default":
            continue
        with contextlib.suppress(ValueError):
            if ipaddress.ip_network(target, strict=False).overlaps(SUBNET):
                taken.append(line)
    return "\n".join(taken)


def teardown() -> None:
    """Remove whatever of the topology exists (idempotent; also cleans up after a killed run)."""
    for host in HOSTS:
        for pid in namespace_pids(host):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, 9)
        _ip("netns", "del", host.name, check=False)
        _ip("link", "del", host.link, check=False)
    _ip("link", "del", BRIDGE, check=False)


def namespace_pids(host: Host) -> list[int]:
    """The processes running in ``host``'s namespace (empty when it does not exist)."""
    listed = _ip("netns", "pids", host.name, check=False)
    return [int(pid) for pid in listed.stdout.split()] if listed.returncode == 0 else []


def _build() -> None:
    _ip("link", "add", BRIDGE, "type", "bridge")
    _ip("addr", "add", f"{BRIDGE_ADDRESS}/{SUBNET.prefixlen}", "dev", BRIDGE)
    _ip("link", "set", BRIDGE, "up")
    for host in HOSTS:
        inner = f"{host.link}i"
        _ip("netns", "add", host.name)
        _ip("link", "add", host.link, "type", "veth", "peer", "name", inner)
        _ip("link", "set", inner, "netns", host.name)
        _ip("link", "set", host.link, "master", BRIDGE)
        _ip("link", "set", host.link, "up")
        _ip("-n", host.name, "addr", "add", f"{host.address}/{SUBNET.prefixlen}", "dev", inner)
        _ip("-n", host.name, "link", "set", inner, "up")
        _ip("-n", host.name, "link", "set", "lo", "up")


@contextlib.contextmanager
def topology() -> Iterator[tuple[Host, ...]]:
    """The two hosts on their bridge for the ``with`` block; everything removed afterwards."""
    require_namespaces()
    teardown()  # leftovers of an earlier run that was killed before its own teardown
    taken = _subnet_in_use()
    if taken:
        raise CannotRun(f"the test subnet {SUBNET} is already routed here, so it is not the test's own:\n{taken}")
    try:
        _build()
        yield HOSTS
    finally:
        teardown()


def cut(host: Host) -> None:
    """Cut ``host`` off the network: its veth end on the bridge goes down (packets are dropped)."""
    _ip("link", "set", host.link, "down")


def restore(host: Host) -> None:
    """Put ``host`` back on the network."""
    _ip("link", "set", host.link, "up")


def kill_all(host: Host) -> int:
    """``kill -9`` every process in ``host``'s namespace; how many there were."""
    pids = namespace_pids(host)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)
    return len(pids)
