#!/bin/bash
# stdout_full.sh SATSCOPE SRC - a command whose standard output cannot be written
# (/dev/full: every write fails with ENOSPC) never exits 0: it says so on stderr
# ("standard output: writing failed" or its own words for its output) and exits
# 3, for every command, every output form to standard output, --help, help CMD
# and --version. Each command is first run to /dev/null, where it must succeed
# (exit 0 or 1): the matrix tests the write, not the arguments.
S=$1; SRC=$2
[ -w /dev/full ] || { echo "SKIP: no /dev/full here"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
LOG=$SRC/fixtures/incident/access
PCAP=$SRC/fixtures/tls/tls-storm.pcap
"$S" collect -q "$LOG" -o t.sat || { echo "FAIL: collect for the trace"; exit 1; }
fail=0 n=0
run() { # the arguments of one command line
  "$S" "$@" >/dev/null 2>/dev/null
  local ok=$?
  if [ $ok -gt 1 ]; then echo "FAIL: satscope $*: exit $ok to /dev/null"; fail=1; return; fi
  "$S" "$@" >/dev/full 2>err
  local code=$?
  n=$((n + 1))
  if [ $code != 3 ] || ! grep -q 'writ' err; then
    echo "FAIL: satscope $* >/dev/full: exit $code, stderr: $(head -c 200 err)"; fail=1
  else
    echo "ok: satscope $* >/dev/full: exit 3: $(head -1 err)"
  fi
}
run --help
run --version
for c in collect info verify etime handshakes saturation storms crashes cachesize timeline chart report; do
  run $c --help
  run help $c
done
for form in "" --json --csv; do
  run etime $form "$LOG"
  run storms $form "$LOG"
  run timeline $form "$LOG"
  run cachesize $form "$LOG"
  run handshakes $form "$PCAP"
  run saturation $form "$PCAP"
  run crashes $form "$SRC/fixtures/crashtext/incident-gdb.log"
  run info $form t.sat
done
run verify t.sat
run collect -q "$LOG" -o -
run report -q "$LOG" -o -
run report -q "$LOG" -o -.json
echo "$n runs"
exit $fail
