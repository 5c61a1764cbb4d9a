#!/bin/bash
# partial_digest.sh SATSCOPE SRC_DIR - the fleet's digest from partials is the
# digest from the logs (ctest cli_partial_digest):
#  1. each input of the digest fixture (two servers, three days, a trace among
#     them) made into a partial on its own, as each host would; the digest of
#     the partials, with the baseline's partials, equals the digest of the
#     logs byte for byte (JSON and text);
#  2. a day cut in two halves (two inputs of one --server name): the partials
#     of each half merged at the centre equal one pass over both halves; and
#     the same day as one partial of both halves;
#  3. a damaged partial costs the damaged day only, said with its byte offset
#     (exit 3); a partial cut short keeps the days before the cut; a mix of
#     partials and logs is refused (exit 2);
#  4. --anonymize-key: no client address of the log is left in the digest
#     drawn from the partial.
set -u -o pipefail
SAT=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
same() { # what file1 file2
    if cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; diff "$2" "$3" | head -20; fi
}
D=$SRC/fixtures/digest
day1=$D/ldap01/ldap01-20261101.sat
day2=$D/ldap01/access-20261102.zst
day3=$D/ldap01/access-20261103.zst
l2a=$D/ldap02/access-20261101.zst
l2c=$D/ldap02/access.zst

# 1. one partial per input, as each host writes its own
# (ldap01's log names its host; ldap02's names none: the digest of the logs calls it by
# its directory, as the inputs share a file name, and its host says so with --server)
for f in "$day1" "$day2" "$day3" "$l2a" "$l2c"; do
    dir=$(basename "$(dirname "$f")")
    b=$dir-$(basename "$f")
    name=()
    [ "$dir" = ldap02 ] && name=(--server ldap02)
    "$SAT" partial "${name[@]}" "$f" -o "$T/$b.satp" --quiet || bad "partial $b"
done
"$SAT" report --kind digest "$day3" "$l2c" --baseline "$day1" --baseline "$day2" \
    --baseline "$l2a" -o "$T/logs.json" || bad "digest of the logs"
"$SAT" report --kind digest "$T/ldap01-access-20261103.zst.satp" "$T/ldap02-access.zst.satp" \
    --baseline "$T/ldap01-ldap01-20261101.sat.satp" \
    --baseline "$T/ldap01-access-20261102.zst.satp" \
    --baseline "$T/ldap02-access-20261101.zst.satp" -o "$T/partials.json" ||
    bad "digest of the partials"
same "digest JSON from partials = from logs (2 servers, baseline of 3 days)" \
    "$T/logs.json" "$T/partials.json"
"$SAT" report --kind digest "$day3" "$l2c" --baseline "$day1" --baseline "$day2" \
    --baseline "$l2a" -o "$T/logs.txt"
"$SAT" report --kind digest "$T/ldap01-access-20261103.zst.satp" "$T/ldap02-access.zst.satp" \
    --baseline "$T/ldap01-ldap01-20261101.sat.satp" \
    --baseline "$T/ldap01-access-20261102.zst.satp" \
    --baseline "$T/ldap02-access-20261101.zst.satp" -o "$T/partials.txt"
same "digest text from partials = from logs" "$T/logs.txt" "$T/partials.txt"
# the partial is small beside its log
lb=$(stat -c %s "$day3")
pb=$(stat -c %s "$T/ldap01-access-20261103.zst.satp")
echo "log (zstd) $lb bytes, its partial $pb bytes"

# 2. two halves of a day, one server name
zstd -dcq "$day3" >"$T/full.log"
n=$(wc -l <"$T/full.log")
head -n $((n / 2)) "$T/full.log" >"$T/am.log"
tail -n +$((n / 2 + 1)) "$T/full.log" >"$T/pm.log"
"$SAT" report --kind digest --server ldap01 "$T/am.log" "$T/pm.log" -o "$T/halves.json" ||
    bad "digest of both halves"
"$SAT" partial --server ldap01 "$T/am.log" -o "$T/am.satp" --quiet
"$SAT" partial --server ldap01 "$T/pm.log" -o "$T/pm.satp" --quiet
"$SAT" report --kind digest "$T/am.satp" "$T/pm.satp" -o "$T/halves-p.json" ||
    bad "digest of the halves' partials"
pages=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['pages']))" \
    "$T/halves-p.json")
[ "$pages" = 2 ] && ok "two halves' partials: one server-day page (and the fleet's)" ||
    bad "two halves' partials gave $pages pages"
same "halves: partials merged at the centre = one pass over both halves" \
    "$T/halves.json" "$T/halves-p.json"
"$SAT" partial --server ldap01 "$T/am.log" "$T/pm.log" -o "$T/both.satp" --quiet
"$SAT" report --kind digest "$T/both.satp" -o "$T/both.json"
same "halves: one partial of both = one pass" "$T/halves.json" "$T/both.json"

# --jobs: the inputs analysed apart and merged, the same partial's digest
"$SAT" partial -q --jobs 2 "$day2" "$day3" -o "$T/j2.satp" &&
    "$SAT" partial -q --jobs 1 "$day2" "$day3" -o "$T/j1.satp" &&
    "$SAT" report --kind digest "$T/j1.satp" -o "$T/j1.json" &&
    "$SAT" report --kind digest "$T/j2.satp" -o "$T/j2.json" || bad "partial --jobs"
same "partial --jobs 2 = --jobs 1" "$T/j1.json" "$T/j2.json"

# 3. damage
cp "$T/ldap01-access-20261103.zst.satp" "$T/bad.satp"
sz=$(stat -c %s "$T/bad.satp")
printf '\xff' | dd of="$T/bad.satp" bs=1 seek=$((sz / 2)) conv=notrunc status=none
"$SAT" report --kind digest "$T/bad.satp" "$T/ldap02-access.zst.satp" -o "$T/bad.json" \
    2>"$T/bad.err"
rc=$?
[ $rc = 3 ] && grep -q "damaged" "$T/bad.err" && grep -q "bad.satp" "$T/bad.err" &&
    ok "a damaged day: said ($(head -c 150 "$T/bad.err" | tr '\n' ' ')), exit 3" ||
    bad "a damaged day: exit $rc, $(cat "$T/bad.err")"
python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
t=[p['title'] for p in d['pages']]
sys.exit(0 if any('ldap02' in x for x in t) else 1)" "$T/bad.json" &&
    ok "the other server's day is still there" || bad "the other server's day is lost"
head -c $((sz - 40)) "$T/ldap01-access-20261103.zst.satp" >"$T/cut.satp"
"$SAT" report --kind digest "$T/cut.satp" -o "$T/cut.json" 2>"$T/cut.err"
grep -q "cut short\|ends early" "$T/cut.err" && ok "a partial cut short is said" ||
    bad "a partial cut short: $(cat "$T/cut.err")"
"$SAT" report --kind digest "$T/am.satp" "$T/pm.log" -o "$T/mix.json" 2>"$T/mix.err"
[ $? = 2 ] && ok "partials and logs mixed: refused" || bad "a mix was not refused"

# 4. pseudonymised partials
key=$T/key
head -c 32 /dev/urandom >"$key"
chmod 600 "$key"
"$SAT" partial --anonymize-key "$key" "$day3" -o "$T/anon.satp" --quiet ||
    bad "partial --anonymize-key"
"$SAT" report --kind digest "$T/anon.satp" -o "$T/anon.txt"
"$SAT" report --kind digest "$day3" -o "$T/plain.txt"
# the day's top client by time, as the digest of the log shows it
ip=$(grep -A3 '^Top clients' "$T/plain.txt" | grep -oE '([0-9]{1,3}\.){3}[0-9]{1,3}' | head -1)
if [ -n "$ip" ] && ! grep -qF "$ip" "$T/anon.txt" && grep -q '^Top clients' "$T/anon.txt"; then
    ok "pseudonymised: $ip is in the digest of the log, not in that of its partial"
else
    bad "pseudonymised partial: '$ip' still shown (or not in the log's digest)"
fi
exit $fail
