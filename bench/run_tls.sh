#!/bin/bash
# bench/run_tls.sh: TLS handshake classification throughput (issue 3) on one large capture made
# by bench/gen_tls_capture.sh. Times, each as the median of RUNS runs:
#   tcpdump -r F -w /dev/null            the cost of just reading the capture (the floor)
#   bench/tshark_tls_counts.sh F P       tshark's classification (the peer tool)
#   satscope handshakes F                when that command exists (skipped with a message if not);
#     else satscope collect F -o X.sat   when collect reads captures (skipped if it fails)
# and prints MB/s, packets/s and the ratios (target: satscope >= 20x tshark, <= 2x tcpdump).
#
# usage: bench/run_tls.sh [--capture F] [--port P] [--runs N] [--tshark-runs N] [--build DIR]
#   default capture: /tmp/satscope-bench/tls-stime.pcap (made by gen_tls_capture.sh if absent)
# needs: tcpdump, tshark, /usr/bin/time (package `time`); a Release build for satscope figures.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
WORK=${TMPDIR:-/tmp}/satscope-bench
F=$WORK/tls-stime.pcap
P=""
RUNS=3
TRUNS=1            # tshark is slow: one run by default
BUILD=""
while [ $# -gt 0 ]; do
    case "$1" in
    --capture) F=$2; shift 2 ;;
    --port) P=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --tshark-runs) TRUNS=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "run_tls.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x /usr/bin/time ] || { echo "run_tls.sh: /usr/bin/time missing: apt-get install time" >&2; exit 2; }
command -v tcpdump >/dev/null || { echo "run_tls.sh: tcpdump missing" >&2; exit 2; }
mkdir -p "$WORK"
if [ ! -s "$F" ]; then
    echo "run_tls.sh: no capture $F: making one with bench/gen_tls_capture.sh" >&2
    "$here/bench/gen_tls_capture.sh" -o "$F" >&2
fi
[ -n "$P" ] || P=$(cat "$F.port" 2>/dev/null || true)
if [ -z "$BUILD" ]; then
    for b in "$here/build" "$here"/build-*; do [ -x "$b/cli/satscope" ] && { BUILD=$b; break; }; done
fi
SAT=${SATSCOPE:-${BUILD:+$BUILD/cli/satscope}}

BYTES=$(stat -c%s "$F")
PKTS=$(tcpdump -r "$F" -nn 2>/dev/null | wc -l)
cat "$F" > /dev/null    # page cache: every tool reads from memory

# timed N CMD...: T = median wall seconds, RSS = max resident KB
timed() {
    local n=$1; shift
    local ts=() rss=0 i t m
    for ((i = 0; i < n; i++)); do
        /usr/bin/time -f "%e %M" -o "$WORK/tls-time.out" "$@" > "$WORK/tls-cmd.out" 2> "$WORK/tls-cmd.err" || {
            echo "run_tls.sh: '$*' failed:" >&2; tail -5 "$WORK/tls-cmd.err" >&2; return 1; }
        read -r t m < <(tail -1 "$WORK/tls-time.out")
        ts+=("$t"); [ "$m" -gt "$rss" ] && rss=$m
    done
    T=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    RSS=$rss
}
row() { # what seconds rss
    printf '%-40s %8.2f s %9s MB/s %11s pkt/s %9s MB\n' "$1" "$2" \
        "$(awk -v b="$BYTES" -v s="$2" 'BEGIN{printf "%.1f", (s > 0 ? b/1e6/s : 0)}')" \
        "$(awk -v p="$PKTS" -v s="$2" 'BEGIN{printf "%.0f", (s > 0 ? p/s : 0)}')" \
        "$(awk -v k="$3" 'BEGIN{printf "%.1f", k/1024}')"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.1fx", a/b; else print "n/a" }'; }

echo "capture: $F  $(awk -v b="$BYTES" 'BEGIN{printf "%.1f MB", b/1e6}'), $PKTS packets, server port ${P:-auto}"
timed "$RUNS" tcpdump -r "$F" -w /dev/null;              T_TCPDUMP=$T; row "tcpdump -r F -w /dev/null" "$T" "$RSS"
T_TSHARK=""
if command -v tshark >/dev/null; then
    timed "$TRUNS" "$here/bench/tshark_tls_counts.sh" "$F" $P; T_TSHARK=$T; row "tshark classification" "$T" "$RSS"
    paste -sd' ' "$WORK/tls-cmd.out" | sed 's/^/  tshark: /'
else
    echo "tshark classification: skipped (tshark missing: DEBIAN_FRONTEND=noninteractive apt-get install -y tshark)"
fi
T_SAT=""; WHAT=""
if [ -n "$SAT" ] && [ -x "$SAT" ]; then
    if "$SAT" handshakes --help > /dev/null 2>&1; then
        timed "$RUNS" "$SAT" handshakes "$F" && { T_SAT=$T; WHAT="satscope handshakes F"; row "$WHAT" "$T" "$RSS"; }
        [ -n "$T_SAT" ] && sed 's/^/  satscope: /' "$WORK/tls-cmd.out" | head -20
    else
        echo "satscope handshakes: skipped ('$SAT handshakes --help' fails: the command does not exist yet)"
        rm -f "$WORK/tls-x.sat"
        if "$SAT" collect "$F" -o "$WORK/tls-x.sat" > /dev/null 2> "$WORK/tls-collect.err"; then
            timed "$RUNS" "$SAT" collect "$F" -o "$WORK/tls-x.sat" && { T_SAT=$T; WHAT="satscope collect F -o X.sat"; row "$WHAT" "$T" "$RSS"; }
        else
            echo "satscope collect F: skipped (it does not read this capture: $(head -1 "$WORK/tls-collect.err"))"
        fi
    fi
else
    echo "satscope: skipped (no build: cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build)"
fi
echo
if [ -n "$T_SAT" ]; then
    echo "$WHAT vs tcpdump read: $(ratio "$T_SAT" "$T_TCPDUMP") the time (target <= 2x)"
    [ -n "$T_TSHARK" ] && echo "tshark vs $WHAT: $(ratio "$T_TSHARK" "$T_SAT") faster (target >= 20x)"
fi
[ -n "$T_TSHARK" ] && echo "tshark vs tcpdump read: $(ratio "$T_TSHARK" "$T_TCPDUMP") the time"
true
