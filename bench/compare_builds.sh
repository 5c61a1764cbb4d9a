#!/bin/bash
# bench/compare_builds.sh: one build of satscope against another on the same generated 389-DS
# access log, in paired runs in one sitting (the machine's speed drifts, and it is shared): for
# each pair the two builds run back to back in alternating order (A B, then B A), and the table
# gives each side's median wall and user CPU time, peak RSS, and the median of the pairs' B/A
# ratios. What a refactoring must not slow down: `satscope etime LOG` (the raw log, parsed and
# analysed) and `satscope report LOG -o x.html` (every analyzer in one pass, the HTML with its
# charts).
#
# usage: bench/compare_builds.sh --a DIR --b DIR [--size-mb N] [--pairs N] [--workdir DIR]
#                                [--only etime|report]
#   --a, --b: two build directories (each with cli/satscope; --a's bench/gen389 makes the log)
# needs: /usr/bin/time (package `time`).
set -euo pipefail

A=""; B=""; SIZE_MB=1000; PAIRS=5; WORK=${TMPDIR:-/tmp}/satscope-bench; ONLY=""; SEED=1
while [ $# -gt 0 ]; do
    case "$1" in
    --a) A=$2; shift 2 ;;
    --b) B=$2; shift 2 ;;
    --size-mb) SIZE_MB=$2; shift 2 ;;
    --pairs) PAIRS=$2; shift 2 ;;
    --workdir) WORK=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "compare_builds.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$A/cli/satscope" ] && [ -x "$B/cli/satscope" ] ||
    { echo "compare_builds.sh: --a and --b must be build directories with cli/satscope" >&2; exit 2; }
GEN=$A/bench/gen389
[ -x "$GEN" ] || GEN=$B/bench/gen389
[ -x /usr/bin/time ] || { echo "compare_builds.sh: /usr/bin/time missing: apt-get install time" >&2; exit 2; }
mkdir -p "$WORK"
LOG=$WORK/access-${SIZE_MB}mb-seed$SEED.log
if [ ! -s "$LOG" ]; then
    echo "generating $LOG ($SIZE_MB MB)..." >&2
    "$GEN" --size-mb "$SIZE_MB" --seed "$SEED" >"$LOG"
fi
bytes=$(stat -c %s "$LOG")

# run BUILD NAME: one timed run; prints "wall user rss_kb"
run() {
    local sat=$1/cli/satscope out=$WORK/cmp.out
    case $2 in
    etime) /usr/bin/time -f "%e %U %M" -o "$WORK/cmp.time" "$sat" etime -q "$LOG" >"$out" ;;
    report) /usr/bin/time -f "%e %U %M" -o "$WORK/cmp.time" "$sat" report -q "$LOG" -o "$WORK/cmp.html" ;;
    esac
    tail -n 1 "$WORK/cmp.time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf 'log: %s (%d MB), %d pairs, A = %s, B = %s\n' "$LOG" $((bytes / 1000000)) "$PAIRS" "$A" "$B"
printf '%-7s %-3s %10s %10s %10s %10s\n' command "" "wall s" "user s" "MB/s" "peak MB"
for cmd in etime report; do
    [ -n "$ONLY" ] && [ "$ONLY" != "$cmd" ] && continue
    : >"$WORK/a.txt"; : >"$WORK/b.txt"; : >"$WORK/ratio.txt"
    for ((i = 0; i < PAIRS; i++)); do
        if ((i % 2 == 0)); then ra=$(run "$A" $cmd); rb=$(run "$B" $cmd)
        else rb=$(run "$B" $cmd); ra=$(run "$A" $cmd); fi
        echo "$ra" >>"$WORK/a.txt"; echo "$rb" >>"$WORK/b.txt"
        awk -v a="${ra%% *}" -v b="${rb%% *}" 'BEGIN { printf "%.4f\n", b / a }' >>"$WORK/ratio.txt"
    done
    for side in a b; do
        w=$(cut -d' ' -f1 "$WORK/$side.txt" | median)
        u=$(cut -d' ' -f2 "$WORK/$side.txt" | median)
        m=$(cut -d' ' -f3 "$WORK/$side.txt" | median)
        printf '%-7s %-3s %10.2f %10.2f %10.1f %10.0f\n' $cmd "${side^^}" "$w" "$u" \
            "$(awk -v b="$bytes" -v w="$w" 'BEGIN { print b / 1e6 / w }')" "$(awk -v m="$m" 'BEGIN { print m / 1024 }')"
    done
    printf '%-7s B/A wall, median of the pairs: %s (pairs: %s)\n' $cmd "$(median <"$WORK/ratio.txt")" \
        "$(paste -sd' ' "$WORK/ratio.txt")"
done
