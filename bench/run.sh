#!/bin/bash
# bench/run.sh: the benchmark of record. For one generated 389-DS access log it prints, in one
# run: satscope etime throughput straight from the raw log, satscope collect throughput, peak
# RSS of each, the trace's size against zstd -19 / zstd -3 / gzip -9 of the raw text, and
# logconv.pl (the peer tool, from Debian's 389-ds-base) on a slice with satscope on the SAME
# slice. Figures go to stdout as a table; bench/RESULTS.md records them.
#
# usage: bench/run.sh [--size-mb N] [--slice-mb N] [--runs N] [--build DIR] [--workdir DIR]
#                     [--no-compress] [--compress-full] [--no-logconv] [--logconv-full]
#                     [--full-pairs N]  (N paired logconv.pl/satscope runs on the whole log)
#                     [--merge] [--merge-only] [--merge-parts "2 3 4"] [--report-only]
#   --merge: also the section "N traces analysed at once and merged": the big log cut in N
#            (whole lines) as N servers' logs, each collected to a trace; then, medians of
#            RUNS: `etime t1.sat .. tN.sat` (one thread per trace, merged), the same with
#            --jobs 1 (one pass), and collecting the N traces together into one trace and
#            analysing that; outputs compared. --merge-only: that section alone.
#   the report: `satscope report LOG -o x.html` (every analyzer in one pass, the HTML with
#            its charts) beside `satscope etime LOG` on the same log, in pairs (etime, report,
#            etime: the machine's speed drifts), and their ratio (target: within 2x).
#            --report-only: that section alone.
# needs: a Release build (cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build),
#        /usr/bin/time (package `time`), zstd, gzip, logconv (package 389-ds-base).
set -euo pipefail

SIZE_MB=1000        # the big log
SLICE_MB=50         # logconv.pl and zstd -19 are slow: they run on the first SLICE_MB of the same log
RUNS=3              # medians of RUNS runs for the timed commands
BUILD=""
WORK=${TMPDIR:-/tmp}/satscope-bench
COMPRESS=1
LOGCONV=1
LOGCONV_FULL=0
FULL_PAIRS=0
FPAIR_TIMES=()
COMPRESS_FULL=0     # zstd -19 runs at ~1 MB/s of this log text per core: sizes on the slice
SEED=1
MERGE=0
MERGE_ONLY=0
MERGE_PARTS="2 3 4"
REPORT_ONLY=0
here=$(cd "$(dirname "$0")/.." && pwd)

while [ $# -gt 0 ]; do
    case "$1" in
    --size-mb) SIZE_MB=$2; shift 2 ;;
    --slice-mb) SLICE_MB=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --workdir) WORK=$2; shift 2 ;;
    --no-compress) COMPRESS=0; shift ;;
    --no-logconv) LOGCONV=0; shift ;;
    --logconv-full) LOGCONV_FULL=1; shift ;;
    --full-pairs) FULL_PAIRS=$2; shift 2 ;;
    --compress-full) COMPRESS_FULL=1; shift ;;
    --merge) MERGE=1; shift ;;
    --merge-only) MERGE=1; MERGE_ONLY=1; shift ;;
    --merge-parts) MERGE_PARTS=$2; shift 2 ;;
    --report-only) REPORT_ONLY=1; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ -z "$BUILD" ]; then
    for b in "$here/build" "$here"/build-*; do
        [ -x "$b/bench/gen389" ] && { BUILD=$b; break; }
    done
fi
GEN=${GEN389:-$BUILD/bench/gen389}
SAT=${SATSCOPE:-$BUILD/cli/satscope}
[ -x "$GEN" ] || { echo "run.sh: no gen389 (build first: cmake --build build --target gen389), or set GEN389" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time missing: apt-get install time" >&2; exit 2; }
HAVE_SAT=0; [ -x "$SAT" ] && HAVE_SAT=1
[ "$SLICE_MB" -le "$SIZE_MB" ] || SLICE_MB=$SIZE_MB
mkdir -p "$WORK"
BIG=$WORK/access-${SIZE_MB}mb-seed$SEED.log
SLICE=$WORK/access-${SLICE_MB}mb-seed$SEED.log

# ---- inputs: generated once, then reused (same seed and size = same bytes) ----
gen_log() { # size path
    if [ ! -s "$2" ] || [ "$(cat "$2.gen" 2>/dev/null)" != "$($GEN --help | md5sum) $1 $SEED" ]; then
        echo "generating $2 ($1 MB, seed $SEED) ..." >&2
        local t0 t1; t0=$(date +%s.%N)
        "$GEN" --seed "$SEED" --size-mb "$1" -o "$2" 2> "$2.summary"
        t1=$(date +%s.%N)
        echo "  gen389: $(awk -v a="$t0" -v b="$t1" -v s="$1" 'BEGIN{printf "%.1f s wall, %.0f MB/s", b-a, s/(b-a)}')" >&2
        echo "$($GEN --help | md5sum) $1 $SEED" > "$2.gen"
    fi
}
gen_log "$SIZE_MB" "$BIG"
gen_log "$SLICE_MB" "$SLICE"
# the slice is a prefix of the big log: the generator is sequential and stops at the limit
cmp -s -n "$(stat -c%s "$SLICE")" "$SLICE" "$BIG" || { echo "run.sh: slice is not a prefix of the big log" >&2; exit 3; }
BIG_BYTES=$(stat -c%s "$BIG"); BIG_LINES=$(wc -l < "$BIG")
SLICE_BYTES=$(stat -c%s "$SLICE"); SLICE_LINES=$(wc -l < "$SLICE")
cat "$BIG" > /dev/null   # warm the page cache: every tool then reads from memory

# ---- timing: median wall seconds and the max RSS over RUNS runs ----
# timed CMD...: sets T (median seconds) and RSS (max of "Maximum resident set size", KB)
timed() {
    local n=$1; shift
    local ts=() rss=0 i r
    for ((i = 0; i < n; i++)); do
        /usr/bin/time -f "%e %M" -o "$WORK/time.out" "$@" > "$WORK/cmd.out" 2> "$WORK/cmd.err" || {
            r=$?; [ $r -eq 1 ] || { echo "run.sh: '$*' failed ($r):" >&2; tail -5 "$WORK/cmd.err" >&2; return 1; }
        }
        read -r t m < <(tail -1 "$WORK/time.out")
        ts+=("$t"); [ "$m" -gt "$rss" ] && rss=$m
    done
    T=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    RSS=$rss
}
rows=()
row() { # what input_bytes input_lines seconds rss_kb
    local mbs lps
    if [ "$4" = pending ]; then rows+=("$(printf '%-34s %9s %8s %9s %12s %9s' "$1" "$(awk -v b="$2" 'BEGIN{printf "%.0f MB", b/1e6}')" pending - - -)"); return; fi
    mbs=$(awk -v b="$2" -v s="$4" 'BEGIN{printf "%.1f", (s > 0 ? b/1e6/s : 0)}')
    lps=$(awk -v l="$3" -v s="$4" 'BEGIN{printf "%.0f", (s > 0 ? l/s : 0)}')
    rows+=("$(printf '%-34s %9s %8.2f %9s %12s %9s' "$1" "$(awk -v b="$2" 'BEGIN{printf "%.0f MB", b/1e6}')" "$4" "$mbs" "$lps" "$(awk -v k="$5" 'BEGIN{printf "%.1f MB", k/1024}')")")
}

# ---- N traces analysed at once and merged, against one trace of them all ----
# The big log cut in N at line boundaries (split -n l/N), each piece a server's log of its
# own (sK-access: no rotated set), each collected to tK.sat. Timed: etime over the N traces
# (a thread per trace, up to the CPUs, results merged in input order), the same with
# --jobs 1, and the way without merging: the N traces collected together into one trace
# (collect tK.sat... -o all.sat), then etime all.sat. The outputs must be identical.
merge_lines=()
merge_section() {
    local n k parts traces par one coll alltr same
    for n in $MERGE_PARTS; do
        local d=$WORK/merge-$n
        mkdir -p "$d"
        if [ ! -s "$d/t$n.sat" ] || [ "$d/t$n.sat" -ot "$BIG" ]; then
            echo "cutting the big log in $n and collecting each piece ..." >&2
            rm -f "$d"/s*-access "$d"/t*.sat "$d"/x*
            (cd "$d" && split -n "l/$n" -d -a 1 "$BIG" x)
            for ((k = 1; k <= n; k++)); do
                mv "$d/x$((k - 1))" "$d/s$k-access"
                "$SAT" collect -q "$d/s$k-access" -o "$d/t$k.sat"
            done
        fi
        traces=(); parts=()
        for ((k = 1; k <= n; k++)); do traces+=("$d/t$k.sat"); parts+=("$d/s$k-access"); done
        timed "$RUNS" "$SAT" etime "${traces[@]}";            par=$T;  cp "$WORK/cmd.out" "$d/par.out"
        timed "$RUNS" "$SAT" etime --jobs 1 "${traces[@]}";   one=$T;  cp "$WORK/cmd.out" "$d/one.out"
        rm -f "$d/all.sat"
        timed 1 "$SAT" collect -q "${traces[@]}" -o "$d/all.sat"; coll=$T
        timed "$RUNS" "$SAT" etime "$d/all.sat";              alltr=$T; cp "$WORK/cmd.out" "$d/all.out"
        same=no; cmp -s "$d/par.out" "$d/one.out" && cmp -s "$d/par.out" "$d/all.out" && same=yes
        merge_lines+=("$(printf '%2d traces  %7.2f  %10.2f  %10.2f + %6.2f = %7.2f   %6.2fx %6.2fx   %s' \
            "$n" "$par" "$one" "$coll" "$alltr" "$(awk -v a="$coll" -v b="$alltr" 'BEGIN{print a+b}')" \
            "$(awk -v a="$one" -v b="$par" 'BEGIN{print (b > 0 ? a/b : 0)}')" \
            "$(awk -v a="$coll" -v b="$alltr" -v p="$par" 'BEGIN{print (p > 0 ? (a+b)/p : 0)}')" "$same")")
        # the raw pieces themselves, at once and in one pass
        timed "$RUNS" "$SAT" etime "${parts[@]}";             par=$T
        timed "$RUNS" "$SAT" etime --jobs 1 "${parts[@]}";    one=$T
        merge_lines+=("$(printf '%2d raw logs %6.2f  %10.2f  %29s   %6.2fx' "$n" "$par" "$one" "" \
            "$(awk -v a="$one" -v b="$par" 'BEGIN{print (b > 0 ? a/b : 0)}')")")
    done
}
merge_report() {
    echo
    echo "N traces analysed at once and merged (the big log cut in N servers' logs; medians of $RUNS runs, seconds):"
    printf '%-10s %7s  %10s  %30s   %7s %7s   %s\n' "inputs" "merged" "--jobs 1" \
        "collect all + etime all.sat" "jobs1/m" "all/m" "same output"
    printf '%s\n' "${merge_lines[@]}"
}
# ---- satscope report beside satscope etime on the same log ----
# Each report run between two etime runs; the ratio of each report run to the mean of
# the etime runs around it, and their median.
REPORT_LINES=()
report_section() {
    local e1 e2 rr i ratios=()
    for ((i = 0; i < RUNS; i++)); do
        timed 1 "$SAT" etime "$BIG"; e1=$T
        timed 1 "$SAT" report -q "$BIG" -o "$WORK/report.html"; rr=$T; RRSS=$RSS
        timed 1 "$SAT" etime "$BIG"; e2=$T
        ratios+=("$(awk -v r="$rr" -v a="$e1" -v b="$e2" 'BEGIN{printf "%.2f", r/((a+b)/2)}')")
        REPORT_LINES+=("  pair $((i + 1)): etime $e1 s, report -o x.html $rr s (peak RSS $((RRSS / 1024)) MB), etime $e2 s")
    done
    REPORT_LINES+=("  ratios report/etime: ${ratios[*]}")
    REPORT_LINES+=("$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END{printf "  median: satscope report is %.2fx the time of satscope etime on the same log (target <= 2x)", a[int((NR+1)/2)]}')")
    REPORT_LINES+=("  the report: $(stat -c%s "$WORK/report.html") bytes of HTML, $(grep -o '<svg' "$WORK/report.html" | wc -l) charts")
}
report_report() {
    echo "satscope report LOG -o x.html beside satscope etime LOG ($RUNS pairs, wall seconds):"
    printf '%s\n' "${REPORT_LINES[@]}"
}
if [ $REPORT_ONLY = 1 ]; then
    [ $HAVE_SAT = 1 ] || { echo "run.sh: --report-only needs satscope ($SAT)" >&2; exit 2; }
    report_section
    echo
    echo "satscope benchmark  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nproc) CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "log:   $BIG  ($(awk -v b="$BIG_BYTES" 'BEGIN{printf "%.1f", b/1e6}') MB, $BIG_LINES lines; gen389 --seed $SEED --size-mb $SIZE_MB)"
    report_report
    exit 0
fi

if [ $MERGE_ONLY = 1 ]; then
    [ $HAVE_SAT = 1 ] || { echo "run.sh: --merge-only needs satscope ($SAT)" >&2; exit 2; }
    merge_section
    echo
    echo "satscope benchmark  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nproc) CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "log:   $BIG  ($(awk -v b="$BIG_BYTES" 'BEGIN{printf "%.1f", b/1e6}') MB, $BIG_LINES lines; gen389 --seed $SEED --size-mb $SIZE_MB)"
    merge_report
    exit 0
fi

SAT_ETIME_BIG=""; SAT_ETIME_SLICE=""; LC_SLICE=""; TRACE_BYTES=""
if [ $HAVE_SAT = 1 ]; then
    timed "$RUNS" "$SAT" etime "$BIG";                    SAT_ETIME_BIG=$T; row "satscope etime (raw log)" "$BIG_BYTES" "$BIG_LINES" "$T" "$RSS"
    rm -f "$WORK/big.sat"
    timed "$RUNS" "$SAT" collect "$BIG" -o "$WORK/big.sat"; row "satscope collect (raw -> .sat)" "$BIG_BYTES" "$BIG_LINES" "$T" "$RSS"
    TRACE_BYTES=$(stat -c%s "$WORK/big.sat")
    timed "$RUNS" "$SAT" etime "$WORK/big.sat";           row "satscope etime (from .sat)" "$BIG_BYTES" "$BIG_LINES" "$T" "$RSS"
    "$SAT" info "$WORK/big.sat" > "$WORK/big.sat.info" 2>&1 || true
    timed "$RUNS" "$SAT" etime "$SLICE";                  SAT_ETIME_SLICE=$T; row "satscope etime (slice)" "$SLICE_BYTES" "$SLICE_LINES" "$T" "$RSS"
else
    row "satscope etime (raw log)" "$BIG_BYTES" "$BIG_LINES" pending 0
    row "satscope collect (raw -> .sat)" "$BIG_BYTES" "$BIG_LINES" pending 0
    row "satscope etime (slice)" "$SLICE_BYTES" "$SLICE_LINES" pending 0
fi
if [ $LOGCONV = 1 ]; then
    timed "$RUNS" logconv "$SLICE";                       LC_SLICE=$T; row "logconv.pl (slice)" "$SLICE_BYTES" "$SLICE_LINES" "$T" "$RSS"
    if [ $LOGCONV_FULL = 1 ]; then
        # satscope right before and right after the peer's run: the machine's
        # speed drifts by tens of percent over minutes, so the ratio is taken
        # against satscope's figures of the same moments
        [ $HAVE_SAT = 1 ] && { timed 1 "$SAT" etime "$BIG"; SB1=$T; }
        timed 1 logconv "$BIG";                           LC_BIG=$T; row "logconv.pl (whole log, 1 run)" "$BIG_BYTES" "$BIG_LINES" "$T" "$RSS"
        [ $HAVE_SAT = 1 ] && { timed 1 "$SAT" etime "$BIG"; SB2=$T; }
    fi
fi

# ---- paired ratios: each peer run between two satscope runs on the same input ----
PAIRS=()
if [ $HAVE_SAT = 1 ] && [ $LOGCONV = 1 ]; then
    for ((i = 0; i < RUNS; i++)); do
        timed 1 "$SAT" etime "$SLICE"; a=$T
        timed 1 logconv "$SLICE"; l=$T
        timed 1 "$SAT" etime "$SLICE"; b=$T
        PAIRS+=("$(awk -v l="$l" -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", l/((a+b)/2)}')")
    done
fi

# the same pairing on the whole log (each logconv.pl run takes a minute or two)
FPAIRS=()
if [ $HAVE_SAT = 1 ] && [ $LOGCONV = 1 ]; then
    for ((i = 0; i < FULL_PAIRS; i++)); do
        timed 1 "$SAT" etime "$BIG"; a=$T
        timed 1 logconv "$BIG"; l=$T
        timed 1 "$SAT" etime "$BIG"; b=$T
        FPAIRS+=("$(awk -v l="$l" -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", l/((a+b)/2)}')")
        FPAIR_TIMES+=("$l/$a/$b")
    done
fi

# ---- sizes: the trace against general-purpose compressors of the raw text (cached) ----
CIN=$SLICE; [ $COMPRESS_FULL = 1 ] && CIN=$BIG
CIN_BYTES=$(stat -c%s "$CIN")
csize() { # name cmd...: prints the compressed size in bytes and the seconds, cached per input
    local key=$WORK/$(basename "$CIN").$1.size
    if [ ! -s "$key" ] || [ "$key" -ot "$CIN" ]; then
        local t0 t1; t0=$(date +%s.%N)
        shift; local n; n=$("$@" < "$CIN" | wc -c)
        t1=$(date +%s.%N)
        echo "$n $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')" > "$key"
    fi
    cat "$key"
}
sizes=()
if [ $COMPRESS = 1 ]; then
    read -r Z19 Z19S < <(csize zstd19 zstd -19 -T2 -q -c)
    read -r Z3 Z3S < <(csize zstd3 zstd -3 -T2 -q -c)
    read -r GZ9 GZ9S < <(csize gzip9 gzip -9 -c)
    sizes+=("$(printf '%-22s %12d bytes  %6.2f%% of raw  (%s s)' "zstd -19 -T2" "$Z19" "$(awk -v a="$Z19" -v b="$CIN_BYTES" 'BEGIN{print 100*a/b}')" "$Z19S")")
    sizes+=("$(printf '%-22s %12d bytes  %6.2f%% of raw  (%s s)' "zstd -3 -T2" "$Z3" "$(awk -v a="$Z3" -v b="$CIN_BYTES" 'BEGIN{print 100*a/b}')" "$Z3S")")
    sizes+=("$(printf '%-22s %12d bytes  %6.2f%% of raw  (%s s)' "gzip -9" "$GZ9" "$(awk -v a="$GZ9" -v b="$CIN_BYTES" 'BEGIN{print 100*a/b}')" "$GZ9S")")
fi
if [ -n "$TRACE_BYTES" ]; then
    CTRACE=$TRACE_BYTES
    if [ "$CIN" = "$SLICE" ]; then
        rm -f "$WORK/slice.sat"; "$SAT" collect "$SLICE" -o "$WORK/slice.sat" > /dev/null 2>&1 || true
        CTRACE=$(stat -c%s "$WORK/slice.sat" 2>/dev/null || echo 0)
    fi
    sizes+=("$(printf '%-22s %12d bytes  %6.2f%% of raw' "satscope .sat" "$CTRACE" "$(awk -v a="$CTRACE" -v b="$CIN_BYTES" 'BEGIN{print 100*a/b}')")")
    [ -n "${Z19:-}" ] && sizes+=("$(printf '.sat / zstd-19 = %.3f   (goal < 1, compass 0.5)' "$(awk -v a="$CTRACE" -v b="$Z19" 'BEGIN{print a/b}')")")
    [ "$CIN" = "$SLICE" ] && sizes+=("$(printf '(.sat of the whole log: %d bytes, %.2f%% of its %d raw bytes)' "$TRACE_BYTES" "$(awk -v a="$TRACE_BYTES" -v b="$BIG_BYTES" 'BEGIN{print 100*a/b}')" "$BIG_BYTES")")
else
    sizes+=("$(printf '%-22s %12s' "satscope .sat" pending)")
fi

# ---- the report ----
echo
echo "satscope benchmark  $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nproc) CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "log:   $BIG  ($(awk -v b="$BIG_BYTES" 'BEGIN{printf "%.1f", b/1e6}') MB, $BIG_LINES lines; gen389 --seed $SEED --size-mb $SIZE_MB)"
echo "slice: $SLICE  (the first $(awk -v b="$SLICE_BYTES" 'BEGIN{printf "%.1f", b/1e6}') MB, $SLICE_LINES lines of the same log)"
echo "times: median of $RUNS runs, wall clock, page cache warm; peak RSS = max 'Maximum resident set size'"
echo
printf '%-34s %9s %8s %9s %12s %9s\n' "command" "input" "seconds" "MB/s" "lines/s" "peak RSS"
printf '%s\n' "${rows[@]}"
echo
if [ -n "$SAT_ETIME_SLICE" ] && [ -n "$LC_SLICE" ]; then
    awk -v l="$LC_SLICE" -v s="$SAT_ETIME_SLICE" 'BEGIN{printf "etime vs logconv.pl on the same slice: %.1fx faster  (target >= 30x, compass 60x)\n", (s > 0 ? l/s : 0)}'
    if ((${#PAIRS[@]})); then
        printf 'paired runs on the slice (logconv.pl / mean of the satscope runs around it): %s\n' "${PAIRS[*]}"
        printf '%s\n' "${PAIRS[@]}" | sort -g | awk '{a[NR]=$1} END{printf "  median paired ratio: %.1fx\n", a[int((NR+1)/2)]}'
    fi
    if ((${#FPAIRS[@]})); then
        printf 'paired runs on the whole log (logconv.pl / mean of the satscope runs around it): %s\n' "${FPAIRS[*]}"
        printf '  (seconds, logconv.pl/satscope before/after: %s)\n' "${FPAIR_TIMES[*]}"
        printf '%s\n' "${FPAIRS[@]}" | sort -g | awk '{a[NR]=$1} END{printf "  median paired ratio: %.1fx\n", a[int((NR+1)/2)]}'
    fi
    if [ -n "${LC_BIG:-}" ] && [ -n "${SB1:-}" ]; then
        awk -v l="$LC_BIG" -v a="$SB1" -v b="$SB2" 'BEGIN{printf "whole log: logconv.pl %.2f s between satscope runs of %.2f s and %.2f s: %.1fx\n", l, a, b, l/((a+b)/2)}'
    fi
else
    echo "etime vs logconv.pl on the same slice: pending (satscope not built: $SAT)"
fi
echo
echo "sizes of $( [ "$CIN" = "$SLICE" ] && echo "the slice" || echo "the whole log" ) ($CIN_BYTES bytes raw; cached per input):"
printf '  %s\n' "${sizes[@]}"
if [ $MERGE = 1 ] && [ $HAVE_SAT = 1 ]; then
    merge_section
    merge_report
fi
if [ $HAVE_SAT = 1 ]; then
    report_section
    echo
    report_report
fi
