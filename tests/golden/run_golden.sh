#!/bin/sh
# run_golden.sh SATSCOPE SRC EXIT EXPECTED COMMAND
# Runs COMMAND (sh) in a fresh temporary directory and compares its stdout with
# EXPECTED and its exit code with EXIT. Set SAT_GOLDEN_UPDATE=1 to rewrite
# EXPECTED from the current output (then review the diff before committing).
SATSCOPE=$1; SRC=$2; want_exit=$3; expected=$4; cmd=$5
CORPUS=${SAT_CORPUS:-$SRC/../shared/corpus}
export SATSCOPE SRC CORPUS TZ=UTC LC_ALL=C
case $cmd in
  *'$CORPUS'*|*'${CORPUS}'*)
    if [ ! -d "$CORPUS" ]; then
      echo "SKIP: corpus folder $CORPUS is absent; conformance case not run"
      exit 77
    fi;;
esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
sh -c "$cmd" >out 2>err
got_exit=$?
if [ -n "$SAT_GOLDEN_UPDATE" ]; then
  cp out "$expected"
fi
status=0
if [ "$got_exit" != "$want_exit" ]; then
  echo "exit code: got $got_exit, want $want_exit"; status=1
fi
if ! diff -u "$expected" out; then
  echo "stdout differs from $expected"; status=1
fi
if [ $status != 0 ]; then
  echo "--- stderr:"; cat err
fi
exit $status
