#!/bin/bash
# bench/make_slapd_core.sh - makes a large real core for bench/run_cores.sh: Debian's slapd
# (2.5, mdb) on 127.0.0.1 under load from CLIENTS concurrent ldapsearch loops (bounded in
# count and time), killed with SIGSEGV from this script (another process) while the load runs;
# the kernel writes the core (ulimit -c unlimited; core_pattern must be a plain name, as here).
# Also keeps slapd's `-d stats` log of the run beside it (the load before the crash).
#
# usage: bench/make_slapd_core.sh [OUTDIR]   (default /tmp/satscope-slapd-core; ~15 s)
#   OUTDIR/slapd.core    the core (a few hundred MB, mostly a sparse file: not committed)
#   OUTDIR/slapd.log     slapd's stats log up to the kill
#   OUTDIR/README        what was run, the counts the clients drove, the threads of the core
# env: SAT_SLAPD_PORT (default 38941), CLIENTS (8), LOAD_SECONDS (8), ENTRIES (10000)
#
# The load keeps slapd's worker threads busy: ENTRIES entries of ~600 bytes and clients of which
# one search in four is unindexed (description=*...*: every entry is walked). back-mdb has no
# entry cache (entries are read from the memory map, a shared file mapping the kernel does not
# dump), so the core is mostly the threads' stacks and heaps: a large, sparse file.
set -euo pipefail
OUT=${1:-/tmp/satscope-slapd-core}
PORT=${SAT_SLAPD_PORT:-38941}
CLIENTS=${CLIENTS:-8}
LOAD_SECONDS=${LOAD_SECONDS:-8}
ENTRIES=${ENTRIES:-10000}
URL="ldap://127.0.0.1:$PORT"
command -v slapd >/dev/null || PATH=$PATH:/usr/sbin
command -v slapd >/dev/null || { echo "make_slapd_core.sh: slapd missing (apt-get install slapd ldap-utils)" >&2; exit 2; }
case $(cat /proc/sys/kernel/core_pattern) in
    *'|'*|*/*|*%*) echo "make_slapd_core.sh: core_pattern '$(cat /proc/sys/kernel/core_pattern)' is not a plain name: set it to 'core' for the run" >&2; exit 2 ;;
esac
TMP=$(mktemp -d /tmp/satscope-slapd-core.XXXXXX)
SLAPD_DIR=$TMP
source "${BASH_SOURCE[0]%/*}/../fixtures/lib/slapd-instance.sh"   # slapd_conf, slapd_load, slapd_start; BASE
LOADERS=()
cleanup() {
    for p in "${LOADERS[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -n "$SLAPD_PID" ] && kill -9 "$SLAPD_PID" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
mkdir -p "$TMP/run" "$OUT"
slapd_conf "threads 16" "sizelimit unlimited" <<CONF
maxsize 1073741824
index objectClass eq
index uid eq
access to * by * read
CONF
pad=$(head -c 450 /dev/zero | tr '\0' x)
awk -v n="$ENTRIES" -v base="$BASE" -v pad="$pad" 'BEGIN {
    for (i = 1; i <= n; i++)
        printf "dn: uid=u%d,ou=people,%s\nobjectClass: inetOrgPerson\nuid: u%d\ncn: user %d\nsn: user\ndescription: bench user %d %s\n\n", i, base, i, i, i, pad }' | slapd_load

# slapd in the foreground (-d), as root (no -u: a process that changed its uid is not dumped),
# with core dumps on, in a directory of its own where the kernel writes "core"
slapd_start "$URL/" "$TMP/slapd.log" sh -c 'cd "$1" && ulimit -c unlimited && shift && exec "$@"' sh "$TMP/run" \
    env -i PATH=/usr/bin:/bin:/usr/sbin LC_ALL=C
# the real slapd pid (sh exec'd env, which exec'd slapd: same pid)
SPID=$SLAPD_PID
# CLIENTS loops, each at most 5000 searches and LOAD_SECONDS + 10 s
for c in $(seq 1 "$CLIENTS"); do
    ( n=0; end=$(( $(date +%s) + LOAD_SECONDS + 10 ))
      while [ $n -lt 5000 ] && [ "$(date +%s)" -lt $end ]; do
          if [ $((n % 4)) -eq 0 ]; then f="(description=*user $(( (n * 7 + c) % ENTRIES + 1 )) x*)"; else f="(uid=u$(( (n * 7 + c) % ENTRIES + 1 )))"; fi
          ldapsearch -LLL -x -H "$URL" -b "ou=people,$BASE" "$f" cn >/dev/null 2>&1 || true
          n=$((n + 1)); echo $n > "$TMP/client.$c"
      done ) &
    LOADERS+=($!)
done
sleep "$LOAD_SECONDS"
THREADS=$(ls /proc/$SPID/task | wc -l)
KILLED_AT=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)
kill -SEGV "$SPID"
rc=0; wait "$SLAPD_PID" || rc=$?
for p in "${LOADERS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
LOADERS=()
SLAPD_PID=""
[ "$rc" -eq 139 ] || { echo "make_slapd_core.sh: slapd exit status $rc, not death by SIGSEGV with a core" >&2; exit 1; }
[ -s "$TMP/run/core" ] || { echo "make_slapd_core.sh: no core written" >&2; exit 1; }
DRIVEN=$(cat "$TMP"/client.* | awk '{s += $1} END {print s}')
mv "$TMP/run/core" "$OUT/slapd.core"
mv "$TMP/slapd.log" "$OUT/slapd.log"
cat > "$OUT/README" <<TXT
made by bench/make_slapd_core.sh on $(date -u +%FT%TZ): $(slapd -VV 2>&1 | awk 'NR == 1')
slapd pid $SPID on $URL, $CLIENTS ldapsearch loops for ${LOAD_SECONDS} s, then kill -SEGV from pid $$ (uid $(id -u)) at $KILLED_AT
threads of slapd when killed: $THREADS
searches the clients started (each one connection, bind, search, unbind; one in four unindexed): $DRIVEN
core: $(stat -c %s "$OUT/slapd.core") bytes ($(du -k "$OUT/slapd.core" | cut -f1) KiB on disk)
TXT
cat "$OUT/README"
