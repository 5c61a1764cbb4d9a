#!/bin/bash
# bench/run_http.sh: satscope beside GoAccess on the same generated nginx access logs, in one
# run. For each format (nginx `combined`, and the custom `sat` log_format of
# fixtures/http-nginx/nginx.conf.excerpt) it generates one log with bench/genhttp (once, then
# reused: same seed and size = same bytes), warms the page cache, and times, medians of RUNS:
#   satscope etime LOG                       (combined: auto-detected)
#   satscope etime --log-format 'DEF' LOG    (sat: the log_format body itself)
#   goaccess LOG --log-format=COMBINED --no-progress -o out.json   (Debian's goaccess)
#   goaccess LOG --log-format='...' --date-format=%Y-%m-%d --time-format=%H:%M:%S ... (sat)
# and prints seconds, MB/s, lines/s and peak RSS of each, the ratio of their medians, and the
# median of paired ratios (each GoAccess run between two satscope runs: the shared machine's
# speed drifts over minutes, so the ratio is taken against satscope's runs of the same
# moments). satscope's output is checked to count every line of the log as a request.
# bench/RESULTS.md records the figures.
#
# usage: bench/run_http.sh [--size-mb N] [--runs N] [--format combined|sat|both]
#                          [--build DIR] [--workdir DIR] [--seed N] [--no-goaccess]
# needs: a build with bench/genhttp and cli/satscope (a Release build for figures of record:
#        cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel),
#        /usr/bin/time (package `time`), goaccess (package `goaccess`), python3.
set -euo pipefail

SIZE_MB=200
RUNS=3
FORMATS="combined sat"
BUILD=""
WORK=${TMPDIR:-/tmp}/satscope-bench-http
SEED=1
GOACCESS=1
here=$(cd "$(dirname "$0")/.." && pwd)

while [ $# -gt 0 ]; do
    case "$1" in
    --size-mb) SIZE_MB=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --format) case "$2" in both) FORMATS="combined sat" ;; combined|sat) FORMATS=$2 ;;
              *) echo "run_http.sh: --format combined|sat|both" >&2; exit 2 ;; esac; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --workdir) WORK=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --no-goaccess) GOACCESS=0; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "run_http.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ -z "$BUILD" ]; then
    for b in "$here"/build-rel "$here/build" "$here"/build-*; do
        [ -x "$b/bench/genhttp" ] && [ -x "$b/cli/satscope" ] && { BUILD=$b; break; }
    done
fi
GEN=${GENHTTP:-$BUILD/bench/genhttp}
SAT=${SATSCOPE:-$BUILD/cli/satscope}
[ -x "$GEN" ] || { echo "run_http.sh: no genhttp (cmake --build build --target genhttp), or set GENHTTP" >&2; exit 2; }
[ -x "$SAT" ] || { echo "run_http.sh: no satscope in $BUILD, or set SATSCOPE" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "run_http.sh: /usr/bin/time missing: apt-get install time" >&2; exit 2; }
if [ $GOACCESS = 1 ] && ! command -v goaccess > /dev/null; then
    echo "run_http.sh: goaccess missing (apt-get install goaccess), or --no-goaccess" >&2; exit 2
fi
mkdir -p "$WORK"

# the sat log_format, as nginx.conf.excerpt defines it (the body only)
SAT_FMT=$(sed -n "s/^ *log_format sat '\(.*\)';$/\1/p" "$here/fixtures/http-nginx/nginx.conf.excerpt")
[ -n "$SAT_FMT" ] || { echo "run_http.sh: no 'log_format sat' in fixtures/http-nginx/nginx.conf.excerpt" >&2; exit 2; }
# GoAccess's spelling of the same format: $time_iso8601 as date T time, the offset and the
# fields it has no use for skipped (%^), $request_time as %T, $ssl_protocol as %K
GA_SAT=(--log-format='%h %^ %^ %^ %dT%t+%^ "%r" %s %b %T %^ %K %^' --date-format=%Y-%m-%d --time-format=%H:%M:%S)

# timed N CMD...: sets T (median wall seconds) and RSS (max peak RSS, KB); exit code 1
# (some input rejected) is accepted here and checked by the caller
timed() {
    local n=$1; shift
    local ts=() rss=0 i r t m
    for ((i = 0; i < n; i++)); do
        /usr/bin/time -f "%e %M" -o "$WORK/time.out" "$@" > "$WORK/cmd.out" 2> "$WORK/cmd.err" || {
            r=$?; [ $r -eq 1 ] || { echo "run_http.sh: '$*' failed ($r):" >&2; tail -5 "$WORK/cmd.err" >&2; return 1; }
        }
        read -r t m < <(tail -1 "$WORK/time.out")
        ts+=("$t"); [ "$m" -gt "$rss" ] && rss=$m
    done
    T=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    RSS=$rss
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

rows=(); ratios=()
row() { # what bytes lines seconds rss_kb
    rows+=("$(printf '%-44s %8s %8.2f %8s %11s %9s' "$1" \
        "$(awk -v b="$2" 'BEGIN{printf "%.0f MB", b/1e6}')" "$4" \
        "$(awk -v b="$2" -v s="$4" 'BEGIN{printf "%.1f", (s > 0 ? b/1e6/s : 0)}')" \
        "$(awk -v l="$3" -v s="$4" 'BEGIN{printf "%.0f", (s > 0 ? l/s : 0)}')" \
        "$(awk -v k="$5" 'BEGIN{printf "%.1f MB", k/1024}')")")
}

for f in $FORMATS; do
    LOG=$WORK/nginx-$f-${SIZE_MB}mb-seed$SEED.log
    stamp="$("$GEN" --help | md5sum | cut -c1-32) $f $SIZE_MB $SEED"
    if [ ! -s "$LOG" ] || [ "$(cat "$LOG.gen" 2>/dev/null)" != "$stamp" ]; then
        echo "generating $LOG ($SIZE_MB MB, seed $SEED) ..." >&2
        "$GEN" --format "$f" --seed "$SEED" --size-mb "$SIZE_MB" -o "$LOG" 2> "$LOG.summary"
        echo "$stamp" > "$LOG.gen"
    fi
    BYTES=$(stat -c%s "$LOG"); LINES=$(wc -l < "$LOG")
    cat "$LOG" > /dev/null   # warm the page cache: both tools then read from memory
    if [ "$f" = sat ]; then SATCMD=("$SAT" etime --log-format "$SAT_FMT" "$LOG")
    else SATCMD=("$SAT" etime "$LOG"); fi
    if [ "$f" = sat ]; then GACMD=(goaccess "$LOG" "${GA_SAT[@]}" --no-progress -o "$WORK/goaccess-$f.json")
    else GACMD=(goaccess "$LOG" --log-format=COMBINED --no-progress -o "$WORK/goaccess-$f.json"); fi

    # satscope must have read every line as a request (no reject, all.count = lines)
    "${SATCMD[@]:0:2}" --json "${SATCMD[@]:2}" > "$WORK/satscope-$f.json" 2> "$WORK/satscope-$f.err" || {
        echo "run_http.sh: satscope etime --json on $LOG failed ($?):" >&2; tail -5 "$WORK/satscope-$f.err" >&2; exit 3; }
    got=$(python3 -c '
import json, sys
print(int(json.load(open(sys.argv[1])).get("requests") or 0))' "$WORK/satscope-$f.json")
    [ "$got" = "$LINES" ] || echo "run_http.sh: WARNING: satscope counted $got requests in $LINES lines of $LOG" >&2

    timed "$RUNS" "${SATCMD[@]}"; ST=$T
    row "satscope etime ($f)" "$BYTES" "$LINES" "$T" "$RSS"
    if [ $GOACCESS = 1 ]; then
        timed "$RUNS" "${GACMD[@]}"; GT=$T
        row "goaccess -o x.json ($f)" "$BYTES" "$LINES" "$T" "$RSS"
        pr=()
        for ((i = 0; i < RUNS; i++)); do
            timed 1 "${SATCMD[@]}"; a=$T
            timed 1 "${GACMD[@]}"; g=$T
            timed 1 "${SATCMD[@]}"; b=$T
            pr+=("$(awk -v g="$g" -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", g/((a+b)/2)}')")
        done
        ratios+=("$(printf '%-8s goaccess/satscope: medians %.1fx; paired (%s) median %.1fx' "$f" \
            "$(awk -v g="$GT" -v s="$ST" 'BEGIN{print (s > 0 ? g/s : 0)}')" "${pr[*]}" "$(median "${pr[@]}")")")
    fi
    rows+=("  log: $LOG ($LINES lines; genhttp --format $f --seed $SEED --size-mb $SIZE_MB)")
done

echo
echo "satscope HTTP benchmark  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nproc) CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')  load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "satscope: $SAT ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'))   goaccess: $(command -v goaccess > /dev/null && goaccess --version 2>/dev/null | head -1 || echo none)"
echo "medians of $RUNS runs, page cache warm"
printf '%-44s %8s %8s %8s %11s %9s\n' "command" "input" "seconds" "MB/s" "lines/s" "peak RSS"
printf '%s\n' "${rows[@]}"
[ ${#ratios[@]} -gt 0 ] && { echo; printf '%s\n' "${ratios[@]}"; }
exit 0
