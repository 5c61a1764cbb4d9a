#!/bin/bash
# run_fleet.sh - the fleet's nightly digest, from raw logs and from partials
# (docs/fleet.md), on generated servers: for each fleet size (server-days),
#   raw:      `satscope report --kind digest LOGS... --baseline BEFORE... -o x.json`: time, peak RSS
#   partial:  `satscope partial LOG -o S.satp` on each "host": median time, bytes per
#             server-day (the file), and the log's size beside it
#   centre:   `satscope report --kind digest *.satp --baseline before/*.satp -o y.json`: time,
#             peak RSS (each server's day against its day before, as every night)
#   and whether x.json and y.json are the same bytes (they must be);
# then, when clickhouse-server is installed and this satscope has `export --clickhouse`,
# rows per second into ClickHouse (a throwaway server on 127.0.0.1).
#
# usage: bench/run_fleet.sh [--build DIR] [--sizes "1 10 50 200"] [--duration SEC]
#                           [--rate OPS] [--keep DIR] [--same-day-before]
# Each server-day is one gen389 log (seed = its number, its own host header) of
# --duration seconds at --rate operations per second (default 180 s at 50/s: the
# 3-minute logs the digest's memory was first measured on). Memory is GNU time's
# maximum resident set size. The machine is shared: run it twice and compare.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build
sizes="1 10 50 200"
duration=180
rate=50
keep=
same_day_before=0
while [ $# -gt 0 ]; do
    case $1 in
    --same-day-before) same_day_before=1; shift ;;
    --build) build=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--sizes LIST] [--duration SEC] [--rate OPS] [--keep DIR]" \
            "[--same-day-before]" >&2
       exit 2 ;;
    esac
done
sat=$build/cli/satscope
gen=$build/bench/gen389
for t in "$sat" "$gen" /usr/bin/time; do
    [ -x "$t" ] || { echo "missing $t (build first; GNU time: apt-get install time)" >&2; exit 2; }
done
work=${keep:-$(mktemp -d)}
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
max=0
for n in $sizes; do [ "$n" -gt "$max" ] && max=$n; done

echo "generating $max servers' day and the day before ($duration s at $rate ops/s each) in $work"
mkdir -p "$work/logs" "$work/partials" "$work/base-logs" "$work/base-partials"
for i in $(seq 1 "$max"); do
    name=$(printf 'ldap%03d' "$i")
    log=$work/logs/$name.log base=$work/base-logs/$name.log
    [ -s "$log" ] || "$gen" --seed "$i" --host "$name.example.com" --start 2026-11-03T08:00:00 \
        --tz +0100 --duration "$duration" --rate "$rate" --incident off -o "$log" 2>/dev/null
    # the day before: another seed (other clients may be heavy: pages), or with
    # --same-day-before the same traffic a day earlier (a quiet night: no page)
    [ -s "$base" ] || "$gen" --seed $((i + 10000 * (1 - same_day_before))) --host "$name.example.com" \
        --start 2026-11-02T08:00:00 --tz +0100 --duration "$duration" --rate "$rate" \
        --incident off -o "$base" 2>/dev/null
done

# seconds and peak KB of a command, into the named variables
measure() { # secs_var kb_var command...
    local sv=$1 kv=$2
    shift 2
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
        { echo "failed: $*" >&2; tail -3 "$work/err" >&2; }
    read -r "${sv?}" "${kv?}" <"$work/time"
}

echo "partials, one per host:"
ptimes=()
for i in $(seq 1 "$max"); do
    name=$(printf 'ldap%03d' "$i")
    p=$work/partials/$name.satp
    if [ ! -s "$p" ]; then
        measure s k "$sat" partial "$work/logs/$name.log" -o "$p" --quiet
        ptimes+=("$s")
    fi
    [ -s "$work/base-partials/$name.satp" ] ||
        "$sat" partial -q "$work/base-logs/$name.log" -o "$work/base-partials/$name.satp"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
[ ${#ptimes[@]} -gt 0 ] && echo "  median time per partial: $(median "${ptimes[@]}") s (${#ptimes[@]} hosts)"
lbytes=$(cat "$work"/logs/*.log | wc -c)
pbytes=$(cat "$work"/partials/*.satp | wc -c)
echo "  bytes per server-day: partial $((pbytes / max)), its log $((lbytes / max)) (zstd -3 of the log: $(cat "$work"/logs/ldap001.log | zstd -3 -c | wc -c))"

# the nightly digest: each server's day against its day before (--baseline)
printf '\n%-12s %10s %12s %10s %12s %8s %6s\n' "server-days" "raw s" "raw peak MB" "centre s" \
    "centre MB" "same" "pages"
for n in $sizes; do
    logs=() parts=() blogs=() bparts=()
    for i in $(seq 1 "$n"); do
        name=$(printf 'ldap%03d' "$i")
        logs+=("$work/logs/$name.log")
        parts+=("$work/partials/$name.satp")
        blogs+=(--baseline "$work/base-logs/$name.log")
        bparts+=(--baseline "$work/base-partials/$name.satp")
    done
    measure rs rk "$sat" report --kind digest "${logs[@]}" "${blogs[@]}" -o "$work/raw.json"
    measure cs ck "$sat" report --kind digest "${parts[@]}" "${bparts[@]}" -o "$work/centre.json"
    cmp -s "$work/raw.json" "$work/centre.json" && same=yes || same=NO
    pages=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["pages"]))' \
        "$work/centre.json" 2>/dev/null)
    printf '%-12s %10s %12.1f %10s %12.1f %8s %6s\n' "$n" "$rs" "$(echo "$rk / 1024" | bc -l)" \
        "$cs" "$(echo "$ck / 1024" | bc -l)" "$same" "$pages"
done

# rows per second into ClickHouse
help=$("$sat" export --help 2>&1)
if command -v clickhouse-server >/dev/null && [[ $help == *--clickhouse* ]]; then
    echo
    bash "$here/bench/clickhouse_rate.sh" "$sat" "$work/logs" "$work/partials" 2>&1 | sed 's/^/  /'
else
    echo
    echo "rows/s into ClickHouse: skipped (clickhouse-server not installed, or no export --clickhouse)"
fi
