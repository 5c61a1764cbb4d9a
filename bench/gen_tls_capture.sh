#!/bin/bash
# bench/gen_tls_capture.sh: the large TLS capture of the handshake throughput benchmark
# (bench/run_tls.sh). `openssl s_time` hammers an `openssl s_server` on 127.0.0.1 with new
# connections (-new: full handshakes) then with resumed ones (-reuse: session-id resumption),
# and tcpdump captures it all from lo. Nothing leaves loopback; the file is NOT committed.
#
# usage: bench/gen_tls_capture.sh [-o FILE] [--new-secs N] [--reuse-secs N] [--tls1_3]
#   default: -o /tmp/satscope-bench/tls-stime.pcap, 20 s of -new then 20 s of -reuse, TLS 1.2
#   (TLS 1.2 shows every handshake message in clear; --tls1_3 makes a 1.3 capture instead).
# prints the file, its size, packet and connection counts, and s_time's own summary lines.
# needs: openssl, tcpdump, iproute2 (ss), procps (pgrep). Run as root (tcpdump).
set -euo pipefail
OUTF=${TMPDIR:-/tmp}/satscope-bench/tls-stime.pcap
NEW=20; REUSE=20; VER=-tls1_2
while [ $# -gt 0 ]; do
    case "$1" in
    -o) OUTF=$2; shift 2 ;;
    --new-secs) NEW=$2; shift 2 ;;
    --reuse-secs) REUSE=$2; shift 2 ;;
    --tls1_3) VER=-tls1_3; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "gen_tls_capture.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
for t in openssl tcpdump ss pgrep timeout; do
    command -v "$t" >/dev/null || { echo "gen_tls_capture.sh: $t missing" >&2; exit 2; }
done
mkdir -p "$(dirname "$OUTF")"
TMP=$(mktemp -d /tmp/sat-tlsgen.XXXXXX); chmod 755 "$TMP"
SRV_T=""; CAP_T=""
cleanup() {
    [ -n "$CAP_T" ] && kill -INT "$CAP_T" 2>/dev/null || true
    [ -n "$SRV_T" ] && kill "$SRV_T" 2>/dev/null || true
    exec 9>&- 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# a random free high port
for ((i = 0; i < 200; i++)); do
    P=$((40000 + RANDOM % 20000))
    [ -z "$(ss -Htan "( sport = :$P or dport = :$P )")" ] && break
done
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=bench.test \
    -keyout "$TMP/key.pem" -out "$TMP/cert.pem" 2>/dev/null
mkfifo "$TMP/stdin"; exec 9<>"$TMP/stdin"      # s_server stops at EOF on stdin: never give it one
LIMIT=$((NEW + REUSE + 60))
timeout "$LIMIT" openssl s_server -accept "127.0.0.1:$P" -cert "$TMP/cert.pem" -key "$TMP/key.pem" \
    "$VER" -quiet <&9 > "$TMP/server.log" 2>&1 &
SRV_T=$!
for ((i = 0; i < 50; i++)); do [ -n "$(ss -Htln "( sport = :$P )")" ] && break; sleep 0.1; done
# a big kernel buffer: s_time on loopback makes thousands of connections a second
timeout "$LIMIT" tcpdump -Z root -U -B 65536 -i lo -w "$TMP/cap.pcap" "tcp port $P" 2> "$TMP/tcpdump.log" &
CAP_T=$!
for ((i = 0; i < 50; i++)); do grep -q "listening on" "$TMP/tcpdump.log" && break; sleep 0.1; done
sleep 0.5
echo "s_time -new, $NEW s:" >&2
timeout $((NEW + 20)) openssl s_time -connect "127.0.0.1:$P" "$VER" -new -time "$NEW" 2>&1 | grep -E 'connections' >&2 || true
echo "s_time -reuse, $REUSE s:" >&2
timeout $((REUSE + 20)) openssl s_time -connect "127.0.0.1:$P" "$VER" -reuse -time "$REUSE" 2>&1 | grep -E 'connections' >&2 || true
sleep 1.5
kill -INT "$CAP_T"; wait "$CAP_T" 2>/dev/null || true; CAP_T=""
kill "$SRV_T" 2>/dev/null || true; wait "$SRV_T" 2>/dev/null || true; SRV_T=""
grep -E 'packets (captured|dropped)' "$TMP/tcpdump.log" >&2
mv "$TMP/cap.pcap" "$OUTF"
PKTS=$(tcpdump -r "$OUTF" -nn 2>/dev/null | wc -l)
SYNS=$(tcpdump -r "$OUTF" -nn "tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn" 2>/dev/null | wc -l)
echo "$OUTF: $(stat -c%s "$OUTF") bytes, $PKTS packets, $SYNS connections (SYNs), server port $P"
echo "$P" > "$OUTF.port"
