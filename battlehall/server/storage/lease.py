"""Match leases: which node owns a live match, and the fencing token on its writes.

A live match's owner holds `bh:{id}:owner` = "<token> <node>", set with a PX time to
live that the owner renews (one pipeline per renewal period for all its matches). The
token is `INCR bh:{id}:epoch` at each acquisition, so every owner a match ever had has
its own. Every write of the match goes through FENCED_WRITE, which refuses it unless
the lease still holds the writer's value: a node paused or cut off past its lease can
never append to the log after another took the match. `bh:{id}:held` is the last time
the match was known to have an owner (each renewal, the release): the next owner moves
the open deadlines by the time since, so the time with no owner is charged to nobody.

A lease need not lapse for its match to move: once its holder's heartbeat has lapsed
(heartbeat.py, a beat every few hundred ms, far more often than the leases are renewed)
another node may break it (ACQUIRE with the value it read), and the new token fences the
old holder out as a lapse would.

Every key a script touches carries the match's hash tag, the lease key first, so each
script runs on the match's own slot of a Redis Cluster.
"""

from __future__ import annotations

import hashlib

from battlehall.server.errors import NotHere  # noqa: F401  what a node that does not hold the lease answers; here for its importers

# KEYS: owner, log, snap; with the match's other keys (meta, start, epoch, held) only when
#       it ends (they get its retention). A write names only the keys it touches: fewer to
#       send and parse.
# ARGV: lease value, log entry ID ('' for none), entry, events, snapshot ('' for none),
#       retention in seconds ('' unless the match ends: then its keys get it),
#       the doorbell channel (mirror.py; '' for none) and its message (the last seq written),
#       the ID the log must end with ('' or absent: not checked), then (ID, entry, events)
#       of each further entry of the same write, in order.
# The log's end is checked for a write sent while the match's previous write is still in
# flight (writes.py): if that one did not land, this one must not either, or the log
# would have a gap; XADD's own check (IDs only grow) cannot see a gap.
# An ended match's lease is not renewed and lapses on its own: deleted here, a takeover
# scan between this write and the match leaving `bh:live` (hub.finished, a key of no
# match's slot) found a live match nobody held, and took it over.
# The doorbell rings from here, not as a PUBLISH beside the script: one command less per
# answer for Redis to read, run and answer, and it rings only when the write landed. Its
# channel is an argument, not a key: it never exists as a key, and a Redis Cluster refuses
# (TRYAGAIN) a script naming a missing key while the match's slot migrates.
FENCED_WRITE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return redis.error_reply('FENCED this node no longer holds the match')
end
if ARGV[9] and ARGV[9] ~= '' then
  local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
  if not last or last[1] ~= ARGV[9] then
    return redis.error_reply('GAP the log does not end with the write before this one')
  end
end
if ARGV[2] ~= '' then
  redis.call('XADD', KEYS[2], ARGV[2], 'e', ARGV[3], 'v', ARGV[4], 'o', ARGV[1])
end
for i = 10, #ARGV, 3 do
  redis.call('XADD', KEYS[2], ARGV[i], 'e', ARGV[i + 1], 'v', ARGV[i + 2], 'o', ARGV[1])
end
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[3], ARGV[5])
end
if ARGV[6] ~= '' then
  for i = 2, #KEYS do
    redis.call('EXPIRE', KEYS[i], ARGV[6])
  end
end
if ARGV[7] ~= '' then
  redis.call('PUBLISH', ARGV[7], ARGV[8])
end
return 1
"""

# KEYS: owner, epoch, held[, beats]. ARGV: node, lease ms, now ms[, lease to break, death ms].
# Takes the lease when nobody holds it, or when this node's name holds it (a restarted
# node, or a lease placed for it): a new token then fences any older holder. Breaks it
# when it is still exactly `lease to break` (the value the taker read) and its holder's
# heartbeat (heartbeat.py, `bh:beats`, Redis' clock) is older than `death ms`: the holder
# died, or is paused, and its every later write is fenced out. On a Redis Cluster `beats`
# is no key of the match's slot: the taker passes none, and the check is its own reading
# of the beats, at most a beat old (takeover.py); the fence is the guarantee either way.
# Returns {1, lease value, last time held ('' if never)} or {0, the holder's value, ''}.
ACQUIRE = """
local current = redis.call('GET', KEYS[1])
if current then
  local space = string.find(current, ' ', 1, true)
  local owner = string.sub(current, space + 1)
  if owner ~= ARGV[1] then
    if current ~= ARGV[4] then
      return {0, current, ''}
    end
    if KEYS[4] then
      redis.replicate_commands()  -- Redis 6 refuses writes after TIME otherwise
      local beat = redis.call('ZSCORE', KEYS[4], owner)
      local t = redis.call('TIME')
      local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
      if not beat or now - tonumber(beat) <= tonumber(ARGV[5]) then
        return {0, current, ''}
      end
    end
  end
end
local value = redis.call('INCR', KEYS[2]) .. ' ' .. ARGV[1]
redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
local held = redis.call('GET', KEYS[3]) or ''
redis.call('SET', KEYS[3], ARGV[3])
return {1, value, held}
"""

# KEYS: owner, held. ARGV: lease value, lease ms, now ms. 1 if still ours, else 0.
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[2], ARGV[3])
  return 1
end
return 0
"""

# KEYS: owner, held. ARGV: lease value, now ms. Gives the match up (a drain).
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], ARGV[2])
  return 1
end
return 0
"""


def sha1(script: str) -> str:
    """The SHA1 Redis names a script by (EVALSHA)."""
    return hashlib.sha1(script.encode()).hexdigest()


FENCED_WRITE_SHA = sha1(FENCED_WRITE)


def holder(value: bytes | str | None) -> str | None:
    """The node named in a lease value."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode()
    return value.split(" ", 1)[1] if " " in value else None
