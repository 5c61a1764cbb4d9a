#!/bin/bash
# lab/run.sh - the incident lab end to end: builds satlab (and satscope, unless
# --satscope names one), simulates the 6 kinds x N seeds into OUT, checks each
# incident against itself (satlab --check) and scores satscope's storms against
# the truth (lab/score.py).
#
# usage: lab/run.sh [--seeds N] [--out DIR] [--minutes M] [--satscope PATH] [--build DIR]
#   defaults: 3 seeds, OUT=${TMPDIR:-/tmp}/satlab-incidents, 30 minutes, BUILD=<repo>/build,
#   satscope = BUILD/cli/satscope. About 60 MB of logs and capture per incident.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
SEEDS=3; OUT=${TMPDIR:-/tmp}/satlab-incidents; MINUTES=30; SATSCOPE=""; BUILD=$ROOT/build
while [ $# -gt 0 ]; do
    case "$1" in
    --seeds) SEEDS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --minutes) MINUTES=$2; shift 2 ;;
    --satscope) SATSCOPE=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
case "$SEEDS" in ''|*[!0-9]*) echo "run.sh: --seeds wants a number" >&2; exit 2 ;; esac
[ -f "$BUILD/CMakeCache.txt" ] || cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=(--target satlab)
[ -n "$SATSCOPE" ] || { targets+=(--target satscope); SATSCOPE=$BUILD/cli/satscope; }
cmake --build "$BUILD" -j2 "${targets[@]}" >/dev/null
mkdir -p "$OUT"
for kind in unindexed_batch heavy_client session_flush slow_storage rising_load none; do
    for seed in $(seq 1 "$SEEDS"); do
        dir=$OUT/$kind-$seed
        "$BUILD/lab/satlab" --kind "$kind" --seed "$seed" --minutes "$MINUTES" --out "$dir"
        "$BUILD/lab/satlab" --check "$dir" >"$dir/selfcheck.txt" ||
            { cat "$dir/selfcheck.txt"; echo "run.sh: self-check failed for $dir" >&2; exit 1; }
    done
done
python3 "$HERE/score.py" --satscope "$SATSCOPE" --json "$OUT/score.json" "$OUT"
