#!/bin/bash
# anonymize.sh SATSCOPE SRC GEN389 CASE - `collect --anonymize-key` end to end.
# CASE fixture: fixtures/389ds/access-2.3.1.log; CASE gen: gen389 --size-mb 5 --seed 1.
# The log is collected plain and pseudonymised; then:
#   - a key file that is missing, short or readable by others is a usage error
#     (exit 2) and writes no trace;
#   - `info` says the trace is pseudonymised (and not of the plain one);
#   - what satscope shows of the pseudonymised trace (info, etime by client,
#     binddn, filter and base in JSON, the HTML report, `export` of the trace
#     and `export --anonymize-key` of the log) holds none of the bind
#     DNs, client addresses and filter values of the log;
#   - etime --by client, --by binddn, --by filter give as many groups with the
#     same counts on both traces;
#   - the same key gives the same trace's groups again, byte for byte.
set -euo pipefail
S=$1 SRC=$2 GEN=$3 CASE=$4
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
fail() { echo "FAIL: $*"; exit 1; }

case $CASE in
fixture) cp "$SRC/fixtures/389ds/access-2.3.1.log" in.log ;;
gen) "$GEN" --size-mb 5 --seed 1 -o in.log 2>/dev/null ;;
*) fail "unknown case $CASE" ;;
esac

head -c 32 /dev/urandom > key
chmod 600 key
rc=0; "$S" collect -q in.log -o plain.sat || rc=$?
[ $rc -le 1 ] || fail "plain collect exit $rc"
rc=0; "$S" collect -q --anonymize-key key in.log -o anon.sat || rc=$?
[ $rc -le 1 ] || fail "pseudonymised collect exit $rc"

# refused keys: usage error, no trace
head -c 31 /dev/urandom > short; chmod 600 short
cp key open; chmod 644 open
for k in short open missing; do
    rc=0; "$S" collect -q --anonymize-key $k in.log -o refused.sat 2>err || rc=$?
    [ $rc -eq 2 ] || fail "key '$k': exit $rc, not 2 ($(cat err))"
    [ ! -e refused.sat ] || fail "key '$k': a trace was written"
done

"$S" info anon.sat | grep '^privacy *pseudonymised' >/dev/null || fail "info does not say pseudonymised"
"$S" info --json anon.sat | grep '"pseudonymised": *true' >/dev/null || fail "info --json: no pseudonymised"
! "$S" info plain.sat | grep pseudonymised >/dev/null || fail "info says a plain trace is pseudonymised"

# what satscope shows of the pseudonymised trace
{
    "$S" info --json anon.sat || true
    for by in client binddn filter base; do "$S" etime --by $by --json anon.sat || true; done
    # every row of the trace, its rejects included, and an export pseudonymised on the way
    "$S" export anon.sat || true
    "$S" export --anonymize-key key in.log || true
} 2>&1 | grep -v '"root_dn_name":' > dump.txt # the --root-dn option's value, not the trace's
"$S" report anon.sat -o r.html >/dev/null 2>&1 || true
[ -s r.html ] || fail "no report of the pseudonymised trace"
cat r.html >> dump.txt

# the originals, from the log itself
python3 - in.log > originals.txt <<'EOF'
import re, sys
seen = set()
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = re.search(r' BIND dn="([^"]+)"', line)
    if m:
        seen.add(m.group(1))
    m = re.search(r'connection from (\S+) to', line)
    if m and m.group(1) != "local":
        seen.add(m.group(1))
    m = re.search(r' filter="(.*?)" attrs=', line) or re.search(r' filter="([^"]*)"', line)
    if m:
        # assertion values: after '=' up to ')', the pieces between '*'
        for v in re.findall(r'[~<>:]?=([^()]*)\)', m.group(1)):
            for piece in v.split("*"):
                # a piece of 4+ characters with a letter: short ones and bare
                # numbers could be met by chance in any output
                if len(piece) >= 4 and re.search(r'[A-Za-z]', piece):
                    seen.add(piece)
for s in sorted(seen):
    print(s)
EOF
n=$(wc -l < originals.txt)
[ "$n" -ge 5 ] || fail "only $n original values found in the log"
if grep -wFi -f originals.txt dump.txt > leaks.txt; then
    echo "leaked values:"; grep -owFi -f originals.txt dump.txt | sort | uniq -c | head -20
    fail "the pseudonymised outputs hold original values"
fi
# the same words are in the plain trace's outputs (the check can fail)
"$S" etime --by binddn --json plain.sat > plain_dump.txt
grep -qwFi -f originals.txt plain_dump.txt || fail "the originals are not in the plain outputs either"

# the same groups, with the same counts
groups() {
    "$S" etime --by "$1" --json "$2" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["groups"] if not isinstance(d["groups"], list) else len(d["groups"]),
      sorted(g["count"] for g in d["groups"]) if isinstance(d["groups"], list) else "")'
}
for by in client binddn filter; do
    p=$(groups $by plain.sat) a=$(groups $by anon.sat)
    [ "$p" = "$a" ] || fail "etime --by $by: plain '$p' != pseudonymised '$a'"
    echo "etime --by $by: $(echo "$p" | cut -c1-80)"
done

# one key, the same pseudonyms
"$S" collect -q --anonymize-key key in.log -o again.sat || [ $? -le 1 ]
cmp <("$S" etime --by binddn --json anon.sat) <("$S" etime --by binddn --json again.sat) \
    || fail "the same key gave other pseudonyms"
echo "ok: $n original values absent from the pseudonymised outputs"
