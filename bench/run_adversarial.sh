#!/bin/bash
# bench/run_adversarial.sh: memory on inputs made to grow it, beside a normal input of the same
# size, in one run. Each adversarial input is generated here (nothing committed but the small
# capture of fixtures/adversarial), then read by `satscope etime` (or `handshakes` for a
# capture) and `satscope report -o x.json`, and the peak RSS of each is printed beside the same
# command's on the normal input, with the ratio (target: within 4x) and what satscope said:
#   open      5 M connections opened and never closed (no close line): the joiner's --max-open
#   pending   1 M searches never answered, on 1,000 connections: --max-pending
#   years     a capture of two days ten years apart (fixtures/adversarial): sparse windows
#   flows     3 M TCP flows of one SYN each: the flow table's capacity
# normal inputs: gen389 logs of the same size (bench/gen389.c); for captures, the same number
# of packets as connections of ten packets each, closed (flows), the capture's first day alone
# (years).
#
# usage: bench/run_adversarial.sh [--build DIR] [--workdir DIR] [--scale F]
#   --scale F: every count times F (0.1 for a quick look)
# needs: python3, /usr/bin/time (package `time`).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$here/build
WORK=${TMPDIR:-/tmp}/satscope-bench/adversarial
SCALE=1
while [ $# -gt 0 ]; do
    case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --workdir) WORK=$2; shift 2 ;;
    --scale) SCALE=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "run_adversarial.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
SAT=$BUILD/cli/satscope
GEN=$BUILD/bench/gen389
[ -x "$SAT" ] && [ -x "$GEN" ] || { echo "run_adversarial.sh: build $BUILD first (cli/satscope, bench/gen389)" >&2; exit 2; }
mkdir -p "$WORK"
cd "$WORK"
n() { python3 -c "print(int($1 * $SCALE))"; }

# ---- the inputs ----
python3 - "$(n 5000000)" "$(n 1000000)" "$(n 3000000)" <<'EOF'
import struct, sys
nopen, npend, nflows = (int(a) for a in sys.argv[1:4])
def ts(i, per_s):
    s = i // per_s
    return "[09/Jun/2025:%02d:%02d:%02d.%09d +0000]" % (s // 3600 % 24, s // 60 % 60, s % 60, i % per_s * (10**9 // per_s))
with open("open.log", "w") as f:
    for i in range(nopen):
        f.write("%s conn=%d fd=64 slot=64 connection from 10.%d.%d.%d to 10.0.0.5\n"
                % (ts(i, 2000), 1000 + i, i >> 16 & 255, i >> 8 & 255, i & 255))
with open("pending.log", "w") as f:
    for c in range(1000):
        f.write("%s conn=%d fd=64 slot=64 connection from 10.1.%d.%d to 10.0.0.5\n" % (ts(c, 2000), 1000 + c, c >> 8, c & 255))
    for i in range(npend):
        c = i % 1000
        f.write('%s conn=%d op=%d SRCH base="ou=people,dc=example,dc=com" scope=2 filter="(uid=u%d)" attrs=ALL\n'
                % (ts(1000 + i, 2000), 1000 + c, i // 1000, i))
def pcap(path, packets):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for t, frame in packets:
            f.write(struct.pack("<IIII", int(t), int(t * 1e6) % 1000000, len(frame), len(frame)) + frame)
def tcp(src, sport, flags, seq):
    eth = b"\x00" * 12 + b"\x08\x00"
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, 0, 0, 64, 6, 0, bytes([10, src >> 16 & 255, src >> 8 & 255, src & 255]), bytes([10, 0, 0, 5]))
    return eth + ip + struct.pack("!HHIIBBHHH", sport, 636, seq, 0, 0x50, flags, 65535, 0, 0)
t0 = 1749477600.0
pcap("flows.pcap", ((t0 + i / 5000.0, tcp(i >> 16, 1024 + (i & 0xffff) % 60000, 0x02, i)) for i in range(nflows)))
# normal: the same packets as connections of ten each (SYN, eight ACKs, FIN), one after another
pcap("flows-normal.pcap", ((t0 + i / 5000.0, tcp(i // 10 >> 16, 1024 + (i // 10 & 0xffff) % 60000,
                                                  0x02 if i % 10 == 0 else 0x11 if i % 10 == 9 else 0x10, i))
                           for i in range(nflows)))
EOF
cp "$here/fixtures/adversarial/tls-ten-years-apart.pcap" years.pcap
cp "$here/fixtures/tls/tls-abort.pcap" years-normal.pcap
for f in open pending; do
    mb=$(python3 -c "import os; print(os.path.getsize('$f.log') / 1e6)")
    "$GEN" --size-mb "$mb" --seed 1 >"$f-normal.log"
done

# ---- the runs ----
peak() { # CMD...: the peak RSS in MB of one run, and the first line satscope said (stderr)
    /usr/bin/time -f "%M" -o rss "$@" >/dev/null 2>said || true
    echo "$(( $(tail -1 rss) / 1024 ))"
}
printf '%-8s %-10s %9s %-22s %9s %9s %6s  %s\n' input command size "" "peak MB" "normal MB" ratio "what satscope said"
row() { # NAME INPUT NORMAL CMD...
    local name=$1 in=$2 normal=$3
    shift 3
    local a b said
    a=$(peak "$SAT" "$@" "$in"); said=$(grep -m1 -E 'evicted|ended|capacity|raise' said | cut -c1-110 || true)
    b=$(peak "$SAT" "$@" "$normal")
    printf '%-8s %-10s %8.0fM %-22s %9s %9s %6s  %s\n' "$name" "$1" "$(python3 -c "import os; print(os.path.getsize('$in') / 1e6)")" "" "$a" "$b" \
        "$(python3 -c "print('%.2fx' % ($a / max($b, 1)))")" "${said:--}"
}
row open open.log open-normal.log etime
row open open.log open-normal.log report -o x.json
row pending pending.log pending-normal.log etime
row pending pending.log pending-normal.log report -o x.json
row years years.pcap years-normal.pcap handshakes
row years years.pcap years-normal.pcap report -o x.json
row flows flows.pcap flows-normal.pcap handshakes
row flows flows.pcap flows-normal.pcap report -o x.json
