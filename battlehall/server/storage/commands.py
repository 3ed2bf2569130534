"""The commands of each write of a match: its creation, its log entries (fenced by its
lease, or not), its snapshots and its end. Pure: the store sends them (store.py)."""

from __future__ import annotations

from collections.abc import Sequence

from battlehall.server.storage import lease as leases
from battlehall.server.storage.keys import LIVE, PARTS, fenced_keys, key, pack


class WriteCommands:
    """The commands, as static methods of the store (`Store.write_commands`, ...)."""

    @staticmethod
    def create_commands(match_id: str, meta: dict, snapshot: dict, events: list[dict], created_at: int,
                        lease: str | None = None, lease_ms: int = 0) -> list[tuple]:
        """A new match: its settings, its first snapshot, and that snapshot with the start's
        events; with `lease` ("1 <node>"), the creating node's lease on it, token 1."""
        commands: list[tuple] = [
            ("SET", key(match_id, "meta"), pack(meta)),
            ("SET", key(match_id, "snap"), pack(snapshot)),
            ("SET", key(match_id, "start"), pack({**snapshot, "events": events})),
        ]
        if lease is not None:
            commands += [("SET", key(match_id, "epoch"), 1), ("SET", key(match_id, "held"), created_at),
                         ("SET", key(match_id, "owner"), lease, "PX", lease_ms)]
        return commands + [("ZADD", LIVE, created_at, match_id)]

    @staticmethod
    def fenced(match_id: str, lease: str, entries: Sequence[tuple[dict, list[dict]]] = (),
               snapshot: dict | None = None, retention_s: int | None = None, doorbell: bool = False,
               after: int | None = None) -> tuple:
        """One EVALSHA of lease.FENCED_WRITE: the entries (each with its event records), the
        snapshot and the end of a match, written only if `lease` still holds it (else a
        FENCED error reply); with `doorbell`, the match's doorbell rung once they landed;
        with `after`, only if the log ends with that seq's entry (else a GAP error reply)."""
        if entries:
            (entry, events), *more = entries
            first = (f"{entry['seq']}-0", pack(entry), pack(events))
        else:
            more, first = [], ("", "", "")
        rest = [part for entry, events in more for part in (f"{entry['seq']}-0", pack(entry), pack(events))]
        rings = (key(match_id, "tail"), entries[-1][0]["last_seq"]) if doorbell and entries else ("", "")
        keys = fenced_keys(match_id, retention_s is not None)
        return ("EVALSHA", leases.FENCED_WRITE_SHA, len(keys), *keys, lease, *first,
                pack(snapshot) if snapshot is not None else "", retention_s if retention_s is not None else "",
                *rings, f"{after}-0" if after is not None else "", *rest)

    @staticmethod
    def write_commands(match_id: str, entries: Sequence[tuple[dict, list[dict]]], snapshot: dict | None,
                       ends: bool, retention_s: int, lease: str | None, doorbell: bool = False,
                       after: int | None = None) -> list[tuple]:
        """The commands of one write of a match's new log entries, in order, each with its
        event records; with the snapshot, and the match's end when `ends`; with `doorbell`,
        ringing the match's doorbell after them, for other nodes' spectators (mirror.py).

        With `lease`, one fenced script (lease.py) that Redis refuses whole if the lease is
        no longer that, or, with `after` (a write sent while the one before it is in
        flight), whose log does not end with the entry of seq `after`; the end of the match
        then leaves `bh:live` once the write has landed (`Hub.finished`). Without a lease
        (every live match written holds one: `after` is not checked here), an XADD per
        entry: one native command each (a script that wrote the entry, the events and the act id to three keys cost
        Redis three times the CPU, and the client more: bench/RESULTS.md).
        """
        if lease is not None:
            return [WriteCommands.fenced(match_id, lease, entries, snapshot, retention_s if ends else None, doorbell,
                                         after)]
        commands = [WriteCommands.entry_command(match_id, entry, events) for entry, events in entries]
        if ends:
            assert snapshot is not None  # a match's end is written with its snapshot (snapshot_due)
            commands += WriteCommands.finish_commands(match_id, snapshot, retention_s)
        elif snapshot is not None:
            commands += WriteCommands.snapshot_commands(match_id, snapshot)
        if doorbell and entries:
            commands.append(WriteCommands.doorbell_command(match_id, entries[-1][0]))
        return commands

    @staticmethod
    def entry_command(match_id: str, entry: dict, events: list[dict]) -> tuple:
        """One answer, timeout or abort: a single XADD of the entry and its events."""
        return ("XADD", key(match_id, "log"), f"{entry['seq']}-0", "e", pack(entry), "v", pack(events))

    @staticmethod
    def doorbell_command(match_id: str, entry: dict) -> tuple:
        """After an entry's write, in the same send: "the log has grown to this seq" (mirror.py)."""
        return ("PUBLISH", key(match_id, "tail"), entry["last_seq"])

    @staticmethod
    def snapshot_commands(match_id: str, snapshot: dict) -> list[tuple]:
        return [("SET", key(match_id, "snap"), pack(snapshot))]

    @staticmethod
    def finish_commands(match_id: str, snapshot: dict, retention_s: int) -> list[tuple]:
        commands = WriteCommands.snapshot_commands(match_id, snapshot)
        for part in PARTS:
            commands.append(("EXPIRE", key(match_id, part), retention_s))
        commands.append(("ZREM", LIVE, match_id))
        return commands
