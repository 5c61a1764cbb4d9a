#!/bin/bash
# collect_interrupt.sh SATSCOPE SRC CASE - SIGINT/SIGTERM during `satscope collect`
# must close a valid trace of what was read (verify exits 0, the rows are those
# of the lines read) and exit 128 + the signal after saying so.
#   fifo   SIGINT while the log on a FIFO is read on two parser threads
#   term   SIGTERM, the same on one thread (SAT_THREADS=1)
#   gzfifo SIGINT, the log gzipped on the FIFO (read by the decoding thread)
#   files  a.log read, the FIFO after it interrupted, c.log not started
#   rotated the older file of a rotated set on a FIFO interrupted, the newer not started
#   partial SIGINT while the FIFO holds the start of a line whose end never came:
#          that line is not stored as a rejected line (nor counted), it is said
#   killed SIGKILL (no handler runs): the PATH.XXXXXX.partial left holds the header and
#          the blocks written so far (the log 12 times: one full ldap_op block); info and
#          etime read them with a warning (exit 1), verify says PARTIAL (exit 1)
#   iface  --iface lo without --duration/--count, until SIGINT (needs the right
#          to capture: skipped, visibly, without it)
# The signal is sent once the whole log was written into the FIFO and the
# collecting thread waits on the empty pipe (/proc/PID/wchan), i.e. has read it all.
S=$1; SRC=$2; CASE=$3
# job control: background jobs keep SIGINT (a script's would otherwise ignore it)
set -m
LOG=$SRC/fixtures/incident/access
tmp=$(mktemp -d) || exit 1
feeder=
trap '[ -n "$feeder" ] && kill $feeder 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
check() { # what, got, want
  if [ "$2" != "$3" ]; then echo "FAIL: $1: got '$2', want '$3'"; fail=1; else echo "ok: $1: $2"; fi
}
rows() { "$S" info --csv "$1" | awk -F, -v t="$2" '$1 == t { print $2 }'; }

# Waits until a thread of pid blocks reading the empty pipe (after the
# feeder wrote everything), at most 20 s; without wchan, 3 s.
wait_drained() {
  for _ in $(seq 100); do [ -e sent ] && break; sleep 0.2; done
  local w
  for _ in $(seq 100); do
    w=$(cat /proc/$1/task/*/wchan 2>/dev/null)
    # a thread (the collecting one, or the decoder of a compressed input)
    # waits in poll() or read() on the pipe: it holds nothing more
    # (no wchan here: only zeros, or nothing) -> a fixed wait
    case $w in *pipe_read*|*poll*) sleep 0.3; return;; *[!0]*) ;; *) sleep 3; return;; esac
    sleep 0.2
  done
}

fifo_case() { # signal, env, exit, feeder command
  mkfifo f
  ( ${4:-cat} "$LOG"; touch sent; sleep 60 ) > f & feeder=$!
  env $2 "$S" collect f -o t.sat 2>err & pid=$!
  wait_drained $pid
  kill -$1 $pid; wait $pid; code=$?
  kill $feeder 2>/dev/null; feeder=
  "$S" collect -q "$LOG" -o ref.sat
  check "exit" "$code" "$3"
  check "verify" "$("$S" verify t.sat)" "t.sat: ok"
  check "ldap_op rows" "$(rows t.sat ldap_op)" "$(rows ref.sat ldap_op)"
  check "ldap_conn rows" "$(rows t.sat ldap_conn)" "$(rows ref.sat ldap_conn)"
  check "source marked truncated" "$("$S" info t.sat | grep -c 'TRUNCATED')" 1
  check "said" "$(grep -c "interrupted by SIG$1: t.sat is a complete trace" err)" 1
  check "no temporary file left" "$(ls | grep -c partial)" 0
}

case $CASE in
killed)
  mkfifo f
  ( for _ in $(seq 12); do cat "$LOG"; done; touch sent; sleep 60 ) > f & feeder=$!
  "$S" collect f -o t.sat 2>err & pid=$!
  wait_drained $pid
  kill -KILL $pid; wait $pid; code=$?
  kill $feeder 2>/dev/null; feeder=
  check "exit" "$code" 137
  p=$(ls t.sat.*.partial 2>/dev/null | head -1)
  check "a .partial left" "$(ls t.sat.*.partial 2>/dev/null | wc -l)" 1
  check "no t.sat" "$(ls t.sat 2>/dev/null | wc -l)" 0
  [ -n "$p" ] || { echo "FAIL: no .partial file"; exit 1; }
  "$S" info "$p" >info.out 2>&1; check "info exit" "$?" 1
  check "info warns" "$(grep -c 'partial trace (no trailer): 1 complete block used' info.out)" 1
  check "ldap_op rows (one block)" "$(rows "$p" ldap_op)" 65536
  "$S" etime "$p" >etime.out 2>&1; check "etime exit" "$?" 1
  check "etime read the block" "$(grep -c 'satscope etime: 65536 operations' etime.out)" 1
  "$S" verify "$p" >verify.out; check "verify exit" "$?" 1
  check "verify says partial" "$(tail -1 verify.out)" "$p: PARTIAL"
  ;;
partial)
  # the log, then half a line (a search whose end the writer never sent)
  mkfifo f
  ( cat "$LOG"; printf '[09/Jun/2025:14:30:00.000000001 +0000] conn=9 op=1 SRCH base="dc=exa'
    touch sent; sleep 60 ) > f & feeder=$!
  "$S" collect f -o t.sat 2>err & pid=$!
  wait_drained $pid
  kill -INT $pid; wait $pid; code=$?
  kill $feeder 2>/dev/null; feeder=
  "$S" collect -q "$LOG" -o ref.sat
  check "exit" "$code" 130
  check "verify" "$("$S" verify t.sat)" "t.sat: ok"
  check "reject rows (the cut line is none)" "$(rows t.sat reject)" 0
  check "ldap_op rows" "$(rows t.sat ldap_op)" "$(rows ref.sat ldap_op)"
  check "no line said rejected" "$(grep -c 'rejected:' err)" 0
  check "the cut line said" "$(grep -c 'nor the 68 bytes of the line it stopped inside' err)" 1
  ;;
fifo) fifo_case INT "" 130 ;;
term) fifo_case TERM "SAT_THREADS=1" 143 ;;
gzfifo) fifo_case INT "" 130 "gzip -c" ;; # decoded on the input's own thread
files)
  cp "$LOG" a.log
  cp "$SRC"/fixtures/389ds/access-2.3.1.log c.log
  mkfifo f
  ( cat "$LOG"; touch sent; sleep 60 ) > f & feeder=$!
  "$S" collect a.log f c.log -o t.sat 2>err & pid=$!
  wait_drained $pid
  kill -INT $pid; wait $pid; code=$?
  kill $feeder 2>/dev/null; feeder=
  cp "$LOG" b.log
  "$S" collect -q a.log b.log -o ref.sat
  check "exit" "$code" 130
  check "verify" "$("$S" verify t.sat)" "t.sat: ok"
  check "ldap_op rows (a.log, all of the FIFO, not c.log)" "$(rows t.sat ldap_op)" "$(rows ref.sat ldap_op)"
  check "sources (c.log not started)" "$(rows t.sat source)" 2
  check "said" "$(grep -c 'interrupted by SIGINT: t.sat is a complete trace .* 1 input not started' err)" 1
  ;;
rotated)
  # one server's rotated set: the older file arrives on a FIFO, the newer waits
  zcat "$SRC"/fixtures/incident/access.20250609-133000.gz > old.log
  cp "$LOG" access
  mkfifo access.20250609-133000
  ( cat old.log; touch sent; sleep 60 ) > access.20250609-133000 & feeder=$!
  "$S" collect access.20250609-133000 access -o t.sat 2>err & pid=$!
  wait_drained $pid
  kill -INT $pid; wait $pid; code=$?
  kill $feeder 2>/dev/null; feeder=
  "$S" collect -q old.log -o ref.sat
  check "exit" "$code" 130
  check "verify" "$("$S" verify t.sat)" "t.sat: ok"
  check "ldap_op rows (the older file only)" "$(rows t.sat ldap_op)" "$(rows ref.sat ldap_op)"
  check "said" "$(grep -c 'interrupted by SIGINT: t.sat is a complete trace .* 1 input not started' err)" 1
  ;;
iface)
  if ! "$S" collect -q --iface lo --duration 200ms -o probe.sat 2>probe.err; then
    echo "SKIP: no live capture here (root or CAP_NET_RAW needed): $(cat probe.err)"
    exit 77
  fi
  # a port of this run's own (another build's tests may run this case at the
  # same time on the same loopback)
  port=$((44100 + $$ % 800))
  "$S" collect --iface lo --filter "tcp port $port" -o t.sat 2>err & pid=$!
  for _ in $(seq 50); do grep -q 'until interrupted' err && break; sleep 0.1; done
  sleep 1
  # three connection attempts to a closed port: SYN, then RST
  for _ in 1 2 3; do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; done
  sleep 1
  kill -INT $pid; wait $pid; code=$?
  check "exit" "$code" 130
  check "verify" "$("$S" verify t.sat)" "t.sat: ok"
  check "tcp_conn rows" "$(rows t.sat tcp_conn)" 3
  check "mode (a capture is private)" "$(stat -c %a t.sat)" 600
  check "said" "$(grep -c 'interrupted by SIGINT: t.sat is a complete trace' err)" 1
  ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
[ $fail = 0 ] || { echo "--- stderr:"; cat err; }
exit $fail
