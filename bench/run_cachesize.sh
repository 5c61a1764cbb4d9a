#!/bin/bash
# bench/run_cachesize.sh: what the cachesize curve costs (issue 6). On one generated 389-DS
# access log: wall time of `satscope etime`, `satscope cachesize` (exact) and `satscope
# cachesize --shards` (medians of RUNS), the ratio cachesize / etime (target: at most 1.5),
# peak RSS of each; then the curve alone (bench/cs_refs: references per second of exact
# Mattson and of SHARDS, no parsing). Figures go to stdout; bench/RESULTS.md records them.
#
# usage: bench/run_cachesize.sh [--size-mb N] [--runs N] [--refs N] [--keys N] [--build DIR]
#                               [--workdir DIR]
# needs: a build (cmake --build build --target satscope gen389 cs_refs), /usr/bin/time.
set -euo pipefail
SIZE_MB=200
RUNS=5
REFS=10000000
KEYS=1000000
BUILD=""
WORK=${TMPDIR:-/tmp}/satscope-bench
here=$(cd "$(dirname "$0")/.." && pwd)
while [ $# -gt 0 ]; do
    case "$1" in
    --size-mb) SIZE_MB=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --refs) REFS=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --workdir) WORK=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "run_cachesize.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$BUILD" ] || BUILD=$here/build
SAT=$BUILD/cli/satscope
GEN=$BUILD/bench/gen389
REFB=$BUILD/bench/cs_refs
for x in "$SAT" "$GEN" "$REFB"; do
    [ -x "$x" ] || { echo "run_cachesize.sh: $x missing (build satscope gen389 cs_refs)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "run_cachesize.sh: /usr/bin/time missing: apt-get install time" >&2; exit 2; }
mkdir -p "$WORK"
LOG=$WORK/access-${SIZE_MB}mb-seed1.log
[ -s "$LOG" ] || "$GEN" --seed 1 --size-mb "$SIZE_MB" -o "$LOG"
echo "input: $LOG ($(stat -c %s "$LOG") bytes, $(wc -l < "$LOG") lines); medians of $RUNS runs"

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# run NAME CMD...: RUNS timed runs; sets T_NAME (median s) and M_NAME (median peak RSS KB)
run() {
    local name=$1; shift
    local ts=() ms=()
    for _ in $(seq 1 "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$WORK/time.$$" "$@" > "$WORK/out.$name.$$" 2>/dev/null
        read -r t m < "$WORK/time.$$"
        ts+=("$t"); ms+=("$m")
    done
    printf -v "T_$name" '%s' "$(printf '%s\n' "${ts[@]}" | median)"
    printf -v "M_$name" '%s' "$(printf '%s\n' "${ms[@]}" | median)"
    echo "  $name: ${ts[*]} s"
}
run etime "$SAT" etime --json -q "$LOG"
run exact "$SAT" cachesize --json -q "$LOG"
run shards "$SAT" cachesize --json -q --shards "$LOG"
# the issue's measure: the curve of a trace against etime of the same trace (a trace is
# read much faster than a log, so the curve's own share shows more)
TRACE=$WORK/access-${SIZE_MB}mb-seed1.sat
[ -s "$TRACE" ] || "$SAT" collect -q "$LOG" -o "$TRACE"
run etime_sat "$SAT" etime --json -q "$TRACE"
run exact_sat "$SAT" cachesize --json -q "$TRACE"
# the curve must have been computed the way it says
grep -q '"method": "exact"' "$WORK/out.exact.$$" || { echo "exact run did not say exact" >&2; exit 1; }
grep -q '"method": "shards"' "$WORK/out.shards.$$" || { echo "shards run did not say shards" >&2; exit 1; }
refs=$(awk -F'[:,]' '/^  "references"/ { gsub(/ /, "", $2); print $2; exit }' "$WORK/out.exact.$$")
uniq=$(awk -F'[:,]' '/^  "unique"/ { gsub(/ /, "", $2); print $2; exit }' "$WORK/out.exact.$$")
rm -f "$WORK"/out.*.$$ "$WORK/time.$$"
echo
printf '| command | median s | x etime | peak RSS MB |\n|---|---|---|---|\n'
for n in etime exact shards etime_sat exact_sat; do
    t=T_$n; m=M_$n
    case $n in *_sat) e=$T_etime_sat ;; *) e=$T_etime ;; esac
    awk -v n="$n" -v t="${!t}" -v e="$e" -v m="${!m}" 'BEGIN { printf "| %s | %.2f | %.2f | %.1f |\n", n, t, t / e, m / 1024 }'
done
echo "references in the log: $refs, distinct entries: $uniq"
echo
echo "the curve alone (bench/cs_refs $REFS $KEYS, Zipf 0.9):"
"$REFB" "$REFS" "$KEYS"
