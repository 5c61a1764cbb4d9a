#!/bin/bash
# run_golden.sh SATSCOPE SRC LIST NAME
# Finds case NAME in the manifest LIST (NAME<TAB>EXIT<TAB>EXPECTED<TAB>COMMAND)
# and runs COMMAND (bash, with pipefail) in a fresh temporary directory and compares its stdout with
# EXPECTED and its exit code with EXIT. Set SAT_GOLDEN_UPDATE=1 to rewrite
# EXPECTED from the current output (then review the diff before committing).
SATSCOPE=$1; SRC=$2; list=$3; name=$4
line=$(awk -F'\t' -v n="$name" '$1 == n { print; exit }' "$list")
if [ -z "$line" ]; then
  echo "no case '$name' in $list"; exit 1
fi
want_exit=$(printf '%s\n' "$line" | cut -f2)
expected=$(dirname "$list")/$(printf '%s\n' "$line" | cut -f3)
cmd=$(printf '%s\n' "$line" | cut -f4-)
CORPUS=${SAT_CORPUS:-$SRC/../shared/corpus}
export SATSCOPE SRC CORPUS TZ=UTC LC_ALL=C
case $cmd in
  *corpus/*)
    if [ ! -d "$CORPUS" ]; then
      echo "SKIP: corpus folder $CORPUS is absent; conformance case not run"
      exit 77
    fi;;
esac
case $cmd in
  *src/fixtures/cores/*)
    # the cores' libc frames are named from the libc they were made with
    want_libc=$(awk '/ libc.so.6$/ && /^module:/ { print $3; exit }' \
      "$SRC"/fixtures/cores/segv_chain/segv_chain-O0-kernel.expected)
    have_libc=$(eu-readelf -n /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null | awk '/Build ID:/ { print $3 }')
    if [ "$want_libc" != "$have_libc" ]; then
      echo "SKIP: libc here (${have_libc:-unknown}) is not the one fixtures/cores were made with ($want_libc): its frames would be named otherwise (tests/unit/test_core_fixtures.c still compares the program's frames)"
      exit 77
    fi;;
esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
# Inputs are reached through links so that outputs name them the same way on
# every machine: src/fixtures/..., corpus/ldap/...
ln -s "$SRC" src
[ -d "$CORPUS" ] && ln -s "$CORPUS" corpus
bash -o pipefail -c "$cmd" >out 2>err
got_exit=$?
# Update mode rewrites only files of their own (not the shared same.txt and
# empty.txt) and only when the exit code is the expected one.
if [ -n "$SAT_GOLDEN_UPDATE" ] && [ "$got_exit" = "$want_exit" ]; then
  case $expected in */same.txt|*/empty.txt) ;; *) cp out "$expected";; esac
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
