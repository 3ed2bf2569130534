#!/usr/bin/env bash
# A/B two Battlehall source trees under the Node load generator, alternated round by
# round, so that the machine's drift hits both alike. Each tree is a folder holding a
# battlehall/ package (e.g. `git worktree add /tmp/old REV`).
#
#   bench/compare/ab.sh OLD_DIR NEW_DIR [ROUNDS=3] [MATCHES=100] [SECONDS=10]
#
# Prints, per round and side: answers/s, server CPU µs per answer, and the same with Redis.
# Needs the load generator's packages (run bench/compare/run.sh once first).
set -euo pipefail
A=$1; B=$2; R=${3:-3}; N=${4:-100}; S=${5:-10}
SCR=$(cd "$(dirname "$0")/../.scratch/compare" && pwd)
PY=${BH_PY:-/tmp/venv/bin/python}; PORT=${BH_PORT:-8798}
for r in $(seq "$R"); do
  for side in A B; do
    if [ $side = A ]; then SRC=$A; else SRC=$B; fi
    W=$(mktemp -d); cd "$W"
    BATTLEHALL_MAX_CONNECTIONS_PER_IP=0 BATTLEHALL_CREATE_PER_MIN=0 PYTHONPATH=$SRC taskset -c 0 "$PY" -m battlehall serve --port "$PORT" > "$W/server.log" 2>&1 &
    PID=$!
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.1; done
    taskset -c 1 node "$SCR/loadgen.mjs" --target battlehall --url "http://127.0.0.1:$PORT" --matches "$N" \
      --seconds "$S" --warmup 3 --pid "$PID" > "$W/lg.txt" 2>&1
    kill "$PID"; wait "$PID" 2>/dev/null || true
    echo "$side r$r $(grep -E 'answers/s' "$W/lg.txt" | awk '{print $2}') $(grep 'server CPU per answer' "$W/lg.txt" | awk '{print $NF}') $(grep 'with Redis' "$W/lg.txt" | awk '{print $NF}')"
    rm -rf "$W"
  done
done
