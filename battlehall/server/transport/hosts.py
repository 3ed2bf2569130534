"""Which `Host:` names the server answers: the guard against DNS rebinding.

A server on 127.0.0.1 is out of reach of other machines, but not of the web pages its
user opens: a page of evil.example can have its name re-resolve to 127.0.0.1 and then
call the server as "its own" origin, reading every answer. Its requests still say
`Host: evil.example`, so a server that answers only the names it is known by is out of
its reach again.

- A Host that is an IP address is always accepted: rebinding needs a name.
- Bound to a loopback address, the server accepts the loopback names (`localhost` and
  `*.localhost`), the allow-list's names, and its own `BATTLEHALL_NODE_URL`'s host.
- Bound to any other address: the same when the allow-list is set; when it is not,
  every name (behind a proxy or load balancer, which should check names itself).
- `*` in the allow-list accepts every name; `*.example.com` every name under it.
- A request with no Host at all is accepted: browsers always send one (so a rebinding
  page does too); health checks of load balancers often do not.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from battlehall.server.config import Settings

LOOPBACK_NAMES = ("localhost", "*.localhost")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _is_loopback(address: str) -> bool:
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name of a Host header, without its port, brackets or trailing dot, lowercased."""
    header = header.strip().lower()
    if header.startswith("["):  # [::1]:8000
        return header[1:header.find("]")] if "]" in header else header
    name = header.rsplit(":", 1)[0] if header.count(":") == 1 else header
    return name.rstrip(".")


class HostCheck:
    def __init__(self, names: tuple[str, ...] | None):
        """`names`: the accepted names; None accepts every one."""
        self.any = names is None or "*" in names
        names = names or ()
        self.exact = frozenset(n for n in names if not n.startswith("*."))
        self.suffixes = tuple(n[1:] for n in names if n.startswith("*."))  # ".example.com"

    @classmethod
    def of(cls, settings: Settings) -> "HostCheck":
        allowed = tuple(settings.allowed_hosts)
        if not allowed and not _is_loopback(settings.host):
            return cls(None)
        own = urlsplit(settings.node_url).hostname if settings.node_url else None
        return cls((*LOOPBACK_NAMES, *allowed, *((own,) if own else ())))

    def allows(self, header: str | bytes | None) -> bool:
        if self.any or header is None:
            return True
        if isinstance(header, bytes):
            header = header.decode("latin-1")
        name = host_name(header)
        if name in self.exact or _is_ip(name):
            return True
        return any(name.endswith(suffix) for suffix in self.suffixes)
