"""What anyone may know of a match, without its tokens: which matches are public, and a
delayed match as of its stream delay (who may read a private match's replay: http/auth.py).

A match is public when anyone may watch it without a token (`spectators.allowed` and
`spectators.public`). Everything else is private: it is listed to nobody, and its replay
(every card, the seed) needs one of its own tokens or the API key.

A match with a stream delay of D is, to everyone without a token, the match as it was D
ago: its summary's `seq`, `status` and `result`, and whether its replay is open. That is
read from the match's log in Redis (each entry has the time `at` it was recorded), so it
is the same on every node, whether it runs the match, mirrors it or neither.

The log's stream IDs are seqs (`<first seq>-0`), not times; but `at` grows along the log
(the time the owner recorded each entry, in order), so the last entry old enough is found
by bisecting the seqs inside Redis (AS_OF, one script call): a read costs one round trip
and about log2(seqs) reads of one entry each, however long the log. Walking the log back
64 entries a round trip cost 13 ms of the server's CPU at 5,000 entries inside the delay,
and a delay may be an hour. (Should a clock step back, so that `at` does not grow, the
bisection still ends at an entry old enough followed by one that is not.)
"""

from __future__ import annotations

import weakref

from battlehall.server.storage.store import Script, Store, key

# KEYS: the match's log. ARGV: the cutoff (epoch ms).
# Returns {NO_ENTRY}, {NEWEST} (the newest entry is old enough: the match as it is now), or
# {AT_SEQ, seq}: the last seq of the last entry recorded at or before the cutoff, or the
# start's seq when none is. An entry holds seqs `seq`..`last_seq`, and XREVRANGE <x>-0 COUNT 1
# is the entry holding seq x (O(log n) in the stream's tree); "x's entry is old enough" is
# true up to some seq and false after it, so bisecting it between the first entry's last
# seq (true) and the newest entry's seq (false) ends at the last seq that is, in its entry.
# Only the answer leaves Redis: no entry, with its events, crosses the network.
AS_OF = """
local function entry(rows)
  local fields = rows[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'e' then return cmsgpack.unpack(fields[i + 1]) end
  end
end
local log, cutoff = KEYS[1], tonumber(ARGV[1])
local newest = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)
if #newest == 0 then return {0} end
local last = entry(newest)
if last.at <= cutoff then return {1} end
local first = entry(redis.call('XRANGE', log, '-', '+', 'COUNT', 1))
if first.at > cutoff then return {2, first.seq - 1} end
local lo, hi, found = first.last_seq, last.seq, first.last_seq
while hi - lo > 1 do
  local mid = math.floor((lo + hi) / 2)
  local holder = entry(redis.call('XREVRANGE', log, mid .. '-0', '-', 'COUNT', 1))
  if holder.at <= cutoff then
    lo, found = mid, holder.last_seq
  else
    hi = mid
  end
end
return {2, found}
"""
NO_ENTRY, NEWEST, AT_SEQ = 0, 1, 2  # AS_OF's answers

_scripts: weakref.WeakKeyDictionary[Store, Script] = weakref.WeakKeyDictionary()  # AS_OF on each store's reads


def is_public(meta: dict) -> bool:
    spectators = meta["spectators"]
    return bool(spectators["allowed"] and spectators["public"])


async def as_of_delay(store: Store, summary: dict, now: int) -> dict:
    """`summary` as its spectators see it: as of `now` minus the match's stream delay.

    The last log entry recorded at or before that time gives `seq`; the match is shown
    finished, with its result, only once its last entry (the one that ended it) is that
    old. Before any entry is that old, `seq` is the start's.
    """
    delay = summary["spectator_settings"]["delay_ms"]
    if not delay:
        return summary
    cutoff = now - delay
    found = await _as_of(store)(keys=[key(summary["match"], "log")], args=[cutoff])
    if found[0] == NEWEST:  # every entry is old enough: the match is as it is now
        return summary
    if found[0] == NO_ENTRY:  # the match is as it started (it ends at creation, if at all)
        if summary["created_at"] <= cutoff:
            return summary
        return {**summary, "status": "live", "result": None}
    return {**summary, "status": "live", "result": None, "seq": int(found[1])}


def _as_of(store: Store) -> Script:
    """AS_OF on the store's reads (EVALSHA; loaded where Redis answers NOSCRIPT, on a
    cluster the match's master)."""
    script = _scripts.get(store)
    if script is None:
        script = _scripts[store] = store.client.register_script(AS_OF)
    return script
