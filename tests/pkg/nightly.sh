#!/bin/bash
# nightly.sh SCRIPT: packaging/satscope-nightly picks a day's logs and runs the commands the
# documented CLI takes. In a temporary tree of 389 DS-like logs whose modification times
# straddle the day's local midnight (Europe/Paris, so local and UTC days differ), its dry run
# (SATSCOPE_NIGHTLY_DRY_RUN=1) must print exactly the expected commands: the files modified
# at or after the midnight (the live log and the rotated ones), each once, not the older
# ones nor access.rotationinfo; --from/--to the local day in UTC; ClickHouse's export only
# when a URL is set. Then its refusals (bad day, bad server name, no log of the day, no
# settings), a day whose midnight a DST change skips, and a real run with a stand-in for
# satscope that records its arguments: the same commands, its exit 1 (some lines rejected)
# a night done, its exit 3 a failure.
script=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$script" ] || fail "no executable $script"
export TZ=Europe/Paris
L=$tmp/logs
mkdir -p "$L/slapd-a" "$L/slapd-b" "$L/slapd-a/access.2dir"
mk() { # FILE MTIME
    echo x >"$1" && touch -d "$2" "$1" || fail "cannot make $1"
}
# The day is 2025-06-09; its local midnight is 2025-06-08T22:00:00Z.
mk "$L/slapd-a/access" '2025-06-10 00:20'                    # live, yesterday's last lines
mk "$L/slapd-a/access.20250609-001500" '2025-06-09 23:59:59'  # rotated during the day
mk "$L/slapd-a/access.20250608-001500.gz" '2025-06-09 00:15'  # gz later than its content
mk "$L/slapd-a/access.20250607-001500.gz" '2025-06-08 23:59:59' # ended before the day
mk "$L/slapd-a/access.rotationinfo" '2025-06-10 00:20'       # not a log
mk "$L/slapd-b/access.20250609-120000" '2025-06-09 00:00:00'  # at the midnight: in
mk "$L/slapd-b/access.20250608-120000" '2025-06-08 23:59:59'  # a second before: out
conf=$tmp/nightly.conf
cat >"$conf" <<EOF
# a pattern twice (the file once), one matching nothing, a directory matched (skipped)
SATSCOPE_LOGS='$L/slapd-*/access $L/slapd-*/access.2* $L/slapd-a/access $L/slapd-c/access*'
SATSCOPE_SERVER=ldap01.example.org
SATSCOPE_OUTDIR=$tmp/out
EOF
export SATSCOPE_NIGHTLY_CONF=$conf

run_dry() { # EXPECTED_EXIT ARGS...: stdout in $tmp/out.txt, stderr in $tmp/err.txt
    local want=$1 rc
    shift
    SATSCOPE_NIGHTLY_DRY_RUN=1 "$script" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
    rc=$?
    [ "$rc" = "$want" ] || { cat "$tmp/err.txt"; fail "satscope-nightly $* exits $rc, not $want"; }
}
same() { # WHAT EXPECTED_FILE
    diff -u "$2" "$tmp/out.txt" || fail "$1: not the expected commands"
}

# the day's files, once each, in the patterns' order; no export without a URL
run_dry 0 2025-06-09
cat >"$tmp/want" <<EOF
mkdir -p -- $tmp/out/ldap01.example.org
satscope partial $L/slapd-a/access $L/slapd-a/access.20250608-001500.gz $L/slapd-a/access.20250609-001500 $L/slapd-b/access.20250609-120000 --server ldap01.example.org --from 2025-06-08T22:00:00Z --to 2025-06-09T22:00:00Z -o $tmp/out/ldap01.example.org/2025-06-09.satp
EOF
same "2025-06-09, no ClickHouse" "$tmp/want"
grep -q "no file matches $L/slapd-c/access\*" "$tmp/err.txt" || fail "a pattern matching nothing is not said"
[ ! -e "$tmp/out" ] || fail "the dry run made $tmp/out"

# with ClickHouse (a URL that needs quoting), a key, more options
cat >>"$conf" <<EOF
SATSCOPE_CLICKHOUSE='http://ch.example.org:8123/?user=sat&password=it'"'"'s'
SATSCOPE_ANONYMIZE_KEY=$conf
SATSCOPE_OPTIONS='--format 389-text --max-open 1000'
SATSCOPE_BIN=/opt/sat/bin/satscope
EOF
run_dry 0 2025-06-09
files="$L/slapd-a/access $L/slapd-a/access.20250608-001500.gz $L/slapd-a/access.20250609-001500 $L/slapd-b/access.20250609-120000"
span="--server ldap01.example.org --from 2025-06-08T22:00:00Z --to 2025-06-09T22:00:00Z"
cat >"$tmp/want" <<EOF
mkdir -p -- $tmp/out/ldap01.example.org
/opt/sat/bin/satscope partial $files $span --format 389-text --max-open 1000 --anonymize-key $conf -o $tmp/out/ldap01.example.org/2025-06-09.satp
/opt/sat/bin/satscope export $files $span --format 389-text --max-open 1000 --clickhouse 'http://ch.example.org:8123/?user=sat&password=it'\\''s' --anonymize-key $conf
EOF
same "2025-06-09 with ClickHouse" "$tmp/want"

# the day before: only what was modified on or after 2025-06-08 00:00 local
run_dry 0 2025-06-08
grep -q " $L/slapd-a/access.20250607-001500.gz " "$tmp/out.txt" || fail "2025-06-08 leaves out the file modified on it"
grep -q " $L/slapd-b/access.20250608-120000 " "$tmp/out.txt" || fail "2025-06-08 leaves out slapd-b's file of that day"
grep -q -- "--from 2025-06-07T22:00:00Z --to 2025-06-08T22:00:00Z " "$tmp/out.txt" || fail "2025-06-08's span"
grep -q "rotationinfo" "$tmp/out.txt" && fail "access.rotationinfo taken as a log"

# by default yesterday, by the local date (the live log written now)
touch "$L/slapd-a/access"
run_dry 0
grep -q -- "-o $tmp/out/ldap01.example.org/$(date -d yesterday +%F).satp\$" "$tmp/out.txt" || fail "the default day is not yesterday: $(cat "$tmp/out.txt")"

# a midnight that a DST change skips (Sao Paulo, 2018-11-04 began at 01:00, -02): that day
# from 01:00, the day before up to it
TZ=America/Sao_Paulo run_dry 0 2018-11-04
grep -q -- "--from 2018-11-04T03:00:00Z --to 2018-11-05T02:00:00Z " "$tmp/out.txt" || fail "a day whose midnight is skipped: $(cat "$tmp/out.txt")"
TZ=America/Sao_Paulo run_dry 0 2018-11-03
grep -q -- "--from 2018-11-03T03:00:00Z --to 2018-11-04T03:00:00Z " "$tmp/out.txt" || fail "the day before a skipped midnight: $(cat "$tmp/out.txt")"

# refusals, each with its message
run_dry 2 2025-6-9;         grep -q "not a date" "$tmp/err.txt" || fail "bad day: $(cat "$tmp/err.txt")"
run_dry 2 2025-06-09 extra; grep -q "usage" "$tmp/err.txt" || fail "two days: $(cat "$tmp/err.txt")"
run_dry 3 2099-01-01;       grep -q "no log of 2099-01-01" "$tmp/err.txt" || fail "a day without logs"
echo "SATSCOPE_SERVER=../etc" >>"$conf"
run_dry 2 2025-06-09;       grep -q "SATSCOPE_SERVER" "$tmp/err.txt" || fail "a server name with /"
SATSCOPE_NIGHTLY_CONF=$tmp/absent run_dry 2 2025-06-09
grep -q "cannot read the settings $tmp/absent" "$tmp/err.txt" || fail "no settings: $(cat "$tmp/err.txt")"

# a real run, satscope a stand-in that records its arguments (one a line) and exits $STUB_RC
cat >"$tmp/stub" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >>"$STUB_LOG"
echo -- >>"$STUB_LOG"
exit "$STUB_RC"
EOF
chmod +x "$tmp/stub"
cat >"$conf" <<EOF
SATSCOPE_LOGS='$L/slapd-a/access*'
SATSCOPE_SERVER=ldap01.example.org
SATSCOPE_OUTDIR=$tmp/out
SATSCOPE_CLICKHOUSE=http://127.0.0.1:8123/
SATSCOPE_BIN=$tmp/stub
EOF
run_dry 0 2025-06-09
# the dry run's words (none needs quoting here), one a line, as the stand-in records them
awk 'NR > 1 { for (i = 2; i <= NF; i++) print $i; print "--" }' "$tmp/out.txt" >"$tmp/want"
for rc in 0 1; do
    rm -f "$tmp/args"
    STUB_LOG=$tmp/args STUB_RC=$rc "$script" 2025-06-09 2>"$tmp/err.txt" ||
        { cat "$tmp/err.txt"; fail "satscope's exit $rc fails the night"; }
    diff -u "$tmp/want" "$tmp/args" || fail "the real run's arguments are not the dry run's"
    [ -d "$tmp/out/ldap01.example.org" ] || fail "the partials' directory not made"
done
STUB_LOG=$tmp/args STUB_RC=3 "$script" 2025-06-09 2>"$tmp/err.txt"
rc=$?
[ "$rc" = 1 ] || fail "satscope's exit 3 gives $rc, not 1"
grep -q "satscope partial exited 3" "$tmp/err.txt" && grep -q "satscope export to ClickHouse exited 3" "$tmp/err.txt" ||
    fail "satscope's failures not said: $(cat "$tmp/err.txt")"
# and with the real satscope (SATSCOPE, the second argument; SRC the third) on a real
# day's log: the partial it leaves draws the day the digest of the log draws
sat=${2:-}
src=${3:-}
if [ -n "$sat" ] && [ -n "$src" ]; then
    mkdir -p "$tmp/real"
    cp "$src/fixtures/digest/ldap01/access-20261103.zst" "$tmp/real/access.20261104-001500.zst"
    touch -d '2026-11-04 00:15' "$tmp/real/access.20261104-001500.zst"
    cat >"$conf" <<EOF
SATSCOPE_LOGS='$tmp/real/access*'
SATSCOPE_SERVER=ldap01.example.org
SATSCOPE_OUTDIR=$tmp/out
SATSCOPE_BIN=$sat
EOF
    "$script" 2026-11-03 2>"$tmp/err.txt" || { cat "$tmp/err.txt"; fail "the real night failed"; }
    p=$tmp/out/ldap01.example.org/2026-11-03.satp
    [ -s "$p" ] || fail "no partial at $p"
    "$sat" report --kind digest "$p" -o "$tmp/from-partial.json" &&
        "$sat" report --kind digest --server ldap01.example.org \
            "$tmp/real/access.20261104-001500.zst" -o "$tmp/from-log.json" ||
        fail "a digest failed"
    cmp -s "$tmp/from-partial.json" "$tmp/from-log.json" ||
        fail "the night's partial does not draw the log's digest"
    echo "satscope-nightly with satscope itself: its partial of 2026-11-03 draws the log's digest"
fi
echo "satscope-nightly: the day's files, the commands, the refusals, a skipped midnight, the exits: as expected"
