#!/usr/bin/env bash
# Battlehall vs Colyseus 0.18 on the `duel` game. See bench/compare/README.md.
#
#   bench/compare/run.sh                       # N=100 and N=1000, 20 s each after 5 s warm-up
#   bench/compare/run.sh --matches "100" --seconds 5 --warmup 3 --only colyseus
#
# Options: --matches "N1 N2 ..." (default "100 1000"), --seconds S (20), --warmup S (5),
#          --only colyseus|battlehall, --no-probe, --repeat K (K rounds; the table shows,
#          for each server and N, the round in which other processes used the least CPU),
#          --bh-variants "plain batch" (default both: Battlehall as docs/protocol.md has it, one
#          frame per message, and with the `batch` hello option, one frame per server turn)
# Environment: SERVER_CPUS (default 0) and LOADGEN_CPUS (default 1): taskset CPU lists
#   for the server under test (its children, e.g. Battlehall's redis-server, inherit
#   it) and for the load generator. The same for both servers. Set both to "" to not pin.
#   COLY_PORT (2567), BH_PORT (8765), BATTLEHALL (command that runs the Battlehall CLI;
#   default /tmp/venv/bin/battlehall, else /tmp/venv/bin/python -m battlehall.cli),
#   BH_PY (the Python with Battlehall's deps, default /tmp/venv/bin/python), BH_REV (a git
#   revision, e.g. HEAD: bench that commit's battlehall/ instead of the work tree).
#   DUEL_SPLIT_EVENTS=1 / DUEL_PATCH_RATE=<ms>: Colyseus room variants (see colyseus/server.mjs).
# Everything listens on and talks to 127.0.0.1 only. Every wait is bounded, and the
# script stops what it started (trap on EXIT/INT/TERM).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SCRATCH="$ROOT/bench/.scratch/compare"

MATCHES="100 1000"; SECONDS_=20; WARMUP=5; ONLY=""; PROBE=1; REPEAT=1; BH_VARIANTS="plain batch"
while [ $# -gt 0 ]; do
  case "$1" in
    --matches) MATCHES="$2"; shift 2 ;;
    --seconds) SECONDS_="$2"; shift 2 ;;
    --bh-variants) BH_VARIANTS="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --no-probe) PROBE=0; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
SERVER_CPUS=${SERVER_CPUS-0}
LOADGEN_CPUS=${LOADGEN_CPUS-1}
COLY_PORT=${COLY_PORT:-2567}
BH_PORT=${BH_PORT:-8765}
BH_PY=${BH_PY:-/tmp/venv/bin/python}
if [ -n "${BH_REV:-}" ]; then
  # bench a committed revision, not the (possibly half-edited) work tree: its
  # battlehall/ package is exported into the scratch folder and put first on PYTHONPATH
  BH_SHA=$(git -C "$ROOT" rev-parse --short "$BH_REV")
  BH_SRC="$SCRATCH/bh-src-$BH_SHA"
  rm -rf "$BH_SRC"; mkdir -p "$BH_SRC"
  git -C "$ROOT" archive "$BH_SHA" battlehall | tar -x -C "$BH_SRC"
  BATTLEHALL="env PYTHONPATH=$BH_SRC $BH_PY -m battlehall.cli"
  echo "== Battlehall: revision $BH_SHA (exported to $BH_SRC)"
elif [ -z "${BATTLEHALL:-}" ]; then
  if [ -x "$(dirname "$BH_PY")/battlehall" ]; then BATTLEHALL="$(dirname "$BH_PY")/battlehall"
  else BATTLEHALL="$BH_PY -m battlehall.cli"; fi
fi
# command prefixes that pin to a CPU list (empty: no pinning); taskset execs the
# command, so $! of a backgrounded "${PIN_X[@]}" cmd is the command's own pid
PIN_SERVER=(); PIN_LOADGEN=()
[ -n "$SERVER_CPUS" ] && PIN_SERVER=(taskset -c "$SERVER_CPUS")
[ -n "$LOADGEN_CPUS" ] && PIN_LOADGEN=(taskset -c "$LOADGEN_CPUS")

# ---------------------------------------------------------------- cleanup
STARTED=()          # pids this script started (and their children it found)
stop_pids() {
  local p
  for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 1 50); do   # at most 5 s
    local alive=0
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && return 0
    sleep 0.1
  done
  for p in "$@"; do kill -KILL "$p" 2>/dev/null || true; done
}
cleanup() {
  if [ ${#STARTED[@]} -gt 0 ]; then stop_pids "${STARTED[@]}"; fi
  STARTED=()
}
trap cleanup EXIT
trap 'exit 130' INT TERM

descendants() { # all descendant pids of $1
  local kids k
  kids=$(cat /proc/"$1"/task/*/children 2>/dev/null || true)
  for k in $kids; do echo "$k"; descendants "$k"; done
}
wait_http() { # url seconds -> 0 when it answers 2xx/3xx/4xx
  local url="$1" secs="$2" i
  for i in $(seq 1 $((secs * 10))); do
    if curl -s -o /dev/null --max-time 1 -w '%{http_code}' "$url" 2>/dev/null | grep -q '^[234]'; then return 0; fi
    sleep 0.1
  done
  return 1
}

# ----------------------------------------------------------- node deps
mkdir -p "$SCRATCH/colyseus"
if ! cmp -s "$HERE/package-lock.json" "$SCRATCH/package-lock.json" || [ ! -d "$SCRATCH/node_modules/@colyseus/core" ]; then
  cp "$HERE/package.json" "$HERE/package-lock.json" "$SCRATCH/"
  echo "== installing node deps into $SCRATCH (npm install, pinned by package-lock.json)"
  # not `npm ci`: npm 11 rejects this lock file for lacking msgpackr's other-platform
  # optional packages, though `npm install` installs the same versions and leaves it unchanged
  timeout 600 npm install --prefix "$SCRATCH" --no-audit --no-fund --loglevel=error
fi
cp "$HERE/loadgen.mjs" "$HERE/report.mjs" "$HERE/probe_battlehall.mjs" "$SCRATCH/"
cp "$HERE/colyseus/server.mjs" "$SCRATCH/colyseus/"

STAMP=$(date +%Y%m%d-%H%M%S)
OUT="$SCRATCH/results-$STAMP.jsonl"
LOGS="$SCRATCH/logs-$STAMP"
mkdir -p "$LOGS"
: > "$OUT"
echo "== results: $OUT   logs: $LOGS"
echo "== server pinned to CPUs '${SERVER_CPUS}', loadgen to '${LOADGEN_CPUS}'; node $(node -v); $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"

run_loadgen() { # target port pid N label tag [extra loadgen args...]
  local target="$1" port="$2" pid="$3" n="$4" label="$5" tag="$6" lg rc=0
  shift 6
  local log="$LOGS/loadgen-$target-$tag.txt"
  echo "== $target $* N=$n (${WARMUP}s warm-up, ${SECONDS_}s measured)"
  # in the background + `wait`, so a signal to this script is handled at once
  "${PIN_LOADGEN[@]}" timeout $((WARMUP + SECONDS_ + 220)) \
    node "$SCRATCH/loadgen.mjs" --target "$target" --url "http://127.0.0.1:$port" \
      --matches "$n" --seconds "$SECONDS_" --warmup "$WARMUP" --pid "$pid" --json-out "$OUT" --label "$label" "$@" \
      > "$log" 2>&1 &
  lg=$!
  STARTED+=("$lg")
  wait "$lg" || rc=$?
  grep -v '^{' "$log" || true
  [ "$rc" = 0 ] || echo "!! loadgen for $target N=$n failed (exit $rc)"
}

# ------------------------------------------------------------ colyseus
bench_colyseus() { # N tag
  local n="$1" tag="$2" pid
  ( cd "$SCRATCH" && exec env NODE_ENV=production "${PIN_SERVER[@]}" \
      node colyseus/server.mjs --port "$COLY_PORT" --host 127.0.0.1 ) > "$LOGS/colyseus-$tag.log" 2>&1 &
  pid=$!
  STARTED=("$pid")
  if ! wait_http "http://127.0.0.1:$COLY_PORT/" 20; then
    echo "!! colyseus did not start; see $LOGS/colyseus-$tag.log"; cat "$LOGS/colyseus-$tag.log"; cleanup; return 1
  fi
  run_loadgen colyseus "$COLY_PORT" "$pid" "$n" "events=$([ "${DUEL_SPLIT_EVENTS:-}" = 1 ] && echo split || echo batched) patchRate=${DUEL_PATCH_RATE:-null}" "$tag"
  cleanup
}

# ---------------------------------------------------------- battlehall
BH_OK=1
if [ "$ONLY" != colyseus ] && ! (cd "$ROOT" && $BATTLEHALL serve --help >/dev/null 2>&1); then
  echo "!! Battlehall CLI not available ($BATTLEHALL serve --help failed): skipping Battlehall"
  BH_OK=0
fi
PROBED=0
bench_battlehall() { # N tag variant (plain|batch)
  local n="$1" tag="$2-$3" variant="$3" pid kids
  local work="$SCRATCH/bh-run-$STAMP-$tag"
  mkdir -p "$work"
  # fresh server (and so a fresh private Redis) per run, in its own scratch folder; no
  # per-address connection cap: the load generator's thousands of sockets come from 127.0.0.1
  ( cd "$work" && export BATTLEHALL_MAX_CONNECTIONS_PER_IP=0 BATTLEHALL_CREATE_PER_MIN=0 && exec "${PIN_SERVER[@]}" \
      $BATTLEHALL serve --port "$BH_PORT" ) > "$LOGS/battlehall-$tag.log" 2>&1 &
  pid=$!
  STARTED=("$pid")
  if ! wait_http "http://127.0.0.1:$BH_PORT/readyz" 60; then
    echo "!! battlehall did not become ready; see $LOGS/battlehall-$tag.log"; tail -20 "$LOGS/battlehall-$tag.log"; cleanup; return 1
  fi
  kids=$(descendants "$pid" | tr '\n' ' ')
  STARTED=("$pid" $kids)
  echo "   battlehall pid $pid, children: $(for k in $kids; do printf '%s(%s) ' "$k" "$(cat /proc/$k/comm 2>/dev/null)"; done)"
  if [ "$PROBE" = 1 ] && [ "$PROBED" = 0 ]; then
    PROBED=1
    echo "== protocol probe (docs/protocol.md) against Battlehall"
    timeout 90 node "$SCRATCH/probe_battlehall.mjs" --url "http://127.0.0.1:$BH_PORT" > "$LOGS/probe.txt" 2>&1 || true
    grep -E '^DIFF' "$LOGS/probe.txt" || echo "   all probe checks ok ($(grep -c '^ok' "$LOGS/probe.txt"))"
  fi
  if [ "$variant" = batch ]; then
    run_loadgen battlehall "$BH_PORT" "$pid" "$n" "${BH_SHA:-worktree@$(git -C "$ROOT" rev-parse --short HEAD)} batch" "$tag" --batch
  else
    run_loadgen battlehall "$BH_PORT" "$pid" "$n" "${BH_SHA:-worktree@$(git -C "$ROOT" rev-parse --short HEAD)}" "$tag"
  fi
  cleanup
}

# Rounds: each round runs every N on both servers, one after the other, so slow
# drifts in the machine's load hit both alike.
for rep in $(seq 1 "$REPEAT"); do
  for n in $MATCHES; do
    if [ "$ONLY" != battlehall ]; then bench_colyseus "$n" "$n-r$rep" || echo "!! colyseus bench failed"; fi
    if [ "$ONLY" != colyseus ] && [ "$BH_OK" = 1 ]; then
      for variant in $BH_VARIANTS; do bench_battlehall "$n" "$n-r$rep" "$variant" || echo "!! battlehall bench failed"; done
    fi
  done
done

echo
echo "== side by side ($OUT)"
node "$SCRATCH/report.mjs" "$OUT"
