#!/bin/bash
# clickhouse_load.sh SATSCOPE SRC - `satscope export --clickhouse` into a real ClickHouse
# (clickhouse_server.sh: 18.16, two shards on one server) and docs/clickhouse.md's SQL, read
# from the page itself, giving satscope's own numbers. Three generated 389 logs (bench/gen389:
# one with more than 2048 searches so that the sketch's buckets answer, one small so that every
# type is exact, one with whole-second etimes so that zeros fall in the bucket of v <= 0) go
# (a) into plain MergeTree tables and (b) into Distributed tables over two shards; in each,
# operations, results, errors and p50/p90/p99 by type equal `satscope etime --json`'s, the
# percentiles to the ns. Exported again: nothing inserted, counts unchanged. An export cut
# half-way (its record removed, half its rows deleted) exported again: counts right. A wrong
# password and a closed port are said, exit 3. Skipped (77, said) without clickhouse-server.
satscope=$1 src=$2 gen389=$3
. "$src/tests/cli/clickhouse_server.sh"
fail=0
"$gen389" --seed 3 --lines 20000 --host ldapa.example.com -o "$tmp/a.log" 2>/dev/null
"$gen389" --seed 4 --lines 3000 --host ldapb.example.com -o "$tmp/b.log" 2>/dev/null
"$gen389" --seed 5 --lines 12000 --lowres --host ldapc.example.com -o "$tmp/c.log" 2>/dev/null
logs=("$tmp/a.log" "$tmp/b.log" "$tmp/c.log")
# satscope's own figures, the seconds' decimals made ns: "op q ns" and "op operations results errors"
"$satscope" etime -q "${logs[@]}" --json >"$tmp/etime.json" || { echo "FAIL: etime"; exit 1; }
python3 - "$tmp/etime.json" >"$tmp/want" <<'PY'
import json, sys
from decimal import Decimal
doc = json.load(open(sys.argv[1]), parse_float=Decimal)
for r in sorted(doc["ops"], key=lambda r: r["op"]):
    if r["op"] == "all":  # the row of every operation with a result, not a type
        continue
    print("C", r["op"], r["count"], r["results"], r["errors"])
    for q, k in (("0.5", "p50_s"), ("0.9", "p90_s"), ("0.99", "p99_s")):
        if r[k] is not None:
            print("P", r["op"], q, int(r[k] * 1000000000))
PY
grep -c '^P SRCH' "$tmp/want" >/dev/null || { echo "FAIL: no SRCH percentiles from etime"; exit 1; }
# the page's queries, between <!-- sql:NAME --> and the end of its fence
doc_sql() { awk -v m="<!-- sql:$1 -->" '$0 == m { on = 1; next } on && /^```sql/ { next }
                                          on && /^```/ { exit } on' "$src/docs/clickhouse.md"; }
counts=$(doc_sql counts) pct=$(doc_sql percentiles)
[ -n "$counts" ] && [ -n "$pct" ] || { echo "FAIL: docs/clickhouse.md has no sql:counts or sql:percentiles"; exit 1; }
# what the page's SQL says of database $1, as "want" writes it
got() {
  { ch --query "${counts//satscope./$1.}" | awk -F'\t' '{ print "C", $1, $2, $3, $4 }'
    ch --query "${pct//satscope./$1.}" | awk -F'\t' '{ print "P", $1, $2, $4 }'; } | sort
}
check() { # check DB WHAT
  if diff <(sort "$tmp/want") <(got "$1") >"$tmp/diff"; then
    echo "ok $1 $2: $(grep -c '^C' "$tmp/want") types' counts and errors, $(grep -c '^P' "$tmp/want") percentiles equal to etime's"
  else
    echo "FAIL $1 $2: the page's SQL differs from satscope etime (< etime, > SQL)"; head -20 "$tmp/diff"; fail=1
  fi
}
rows() { ch --query "SELECT count() FROM $1.ldap_op"; }
export_to() { # export_to DB [options]: the three logs, stderr kept
  local db=$1; shift
  "$satscope" export -q "${logs[@]}" --clickhouse "$url" --database "$db" --chunk-rows 5000 "$@" 2>"$tmp/err"
}
# the export record removed and half the rows of ldap_op deleted, on table $1.ldap_op / $1.exports
cut_half() {
  ch --query "ALTER TABLE $1.exports DELETE WHERE table = 'ldap_op'"
  ch --query "ALTER TABLE $1.ldap_op DELETE WHERE conn % 2 = 0"
  for i in $(seq 100); do
    [ "$(ch --query "SELECT count() FROM system.mutations WHERE is_done = 0")" = 0 ] && return
    sleep 0.1
  done
}
n_want=$(awk '$1 == "C" { n += $3 } END { print n }' "$tmp/want")
n_internal=$("$satscope" export -q --table ldap_op "${logs[@]}" | grep -c '"internal_depth":[1-9]')

for mode in plain distributed; do
  if [ $mode = plain ]; then db=satscope
  else
    db=satscope_dist
    for s in shard1 shard2; do "$satscope" export --ddl --database $s | ch --multiquery || fail=1; done
    "$satscope" export --ddl --database $db --cluster two_shards | ch --multiquery || { echo "FAIL: --ddl --cluster refused"; exit 1; }
  fi
  export_to $db || { echo "FAIL $mode: export: $(cat "$tmp/err")"; fail=1; continue; }
  grep -q 'ldap_op: [0-9]* rows inserted in [0-9]* requests' "$tmp/err" || { echo "FAIL $mode: no rows said"; cat "$tmp/err"; fail=1; }
  n=$(rows $db)
  [ "$n" = $((n_want + n_internal)) ] || { echo "FAIL $mode: $n ldap_op rows, etime counts $n_want (+ $n_internal internal)"; fail=1; }
  check $db "$mode"
  if [ $mode = distributed ]; then
    a=$(ch --query "SELECT count() FROM shard1.ldap_op") b=$(ch --query "SELECT count() FROM shard2.ldap_op")
    if [ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ $((a + b)) = "$n" ]; then echo "ok the rows spread over two shards: $a + $b"
    else echo "FAIL: shards hold $a + $b of $n rows"; fail=1; fi
  fi
  # again: nothing inserted
  export_to $db || { echo "FAIL $mode: second export: $(cat "$tmp/err")"; fail=1; }
  if grep -q "ldap_op: already exported: $n rows" "$tmp/err" && [ "$(rows $db)" = "$n" ]; then
    echo "ok $mode exported again: nothing inserted, $n rows"
  else echo "FAIL $mode: exported again: $(rows $db) rows, was $n"; cat "$tmp/err"; fail=1; fi
  # cut half-way, then again: the unfinished export's rows replaced
  if [ $mode = plain ]; then cut_half $db; else cut_half shard1; cut_half shard2; fi
  left=$(rows $db)
  export_to $db || { echo "FAIL $mode: export after a cut: $(cat "$tmp/err")"; fail=1; }
  if grep -q "ldap_op: $left rows of an export of these inputs that did not finish" "$tmp/err" &&
     [ "$(rows $db)" = "$n" ] && [ "$left" -lt "$n" ]; then
    echo "ok $mode export cut half-way ($left of $n rows left) exported again: $n rows"
  else echo "FAIL $mode: after a cut ($left rows left): $(rows $db) rows, want $n"; cat "$tmp/err"; fail=1; fi
  check $db "$mode after the cut"
done

# the same log in another set: refused
"$satscope" export -q "$tmp/a.log" --clickhouse "$url" 2>"$tmp/err"; rc=$?
if [ $rc = 3 ] && grep -q "exported before in another set" "$tmp/err"; then echo "ok a.log alone after a,b,c: refused"
else echo "FAIL: a.log alone after a,b,c: exit $rc: $(cat "$tmp/err")"; fail=1; fi
# the user and its password from the environment; a wrong one and a closed port said
SATSCOPE_CLICKHOUSE_PASSWORD=s3cret "$satscope" export -q "${logs[@]}" --clickhouse "$url" --user loader 2>"$tmp/err" &&
  grep -q "already exported" "$tmp/err" && echo "ok user loader by its password" || { echo "FAIL: user loader: $(cat "$tmp/err")"; fail=1; }
SATSCOPE_CLICKHOUSE_PASSWORD=wrong "$satscope" export -q "${logs[@]}" --clickhouse "$url" --user loader 2>"$tmp/err"; rc=$?
[ $rc = 3 ] && grep -q "Wrong password" "$tmp/err" && echo "ok a wrong password: ClickHouse's words, exit 3" || { echo "FAIL: wrong password: exit $rc: $(cat "$tmp/err")"; fail=1; }
"$satscope" export -q "${logs[@]}" --clickhouse "http://127.0.0.1:1/" 2>"$tmp/err"; rc=$?
[ $rc = 3 ] && grep -q "connection refused" "$tmp/err" && echo "ok a closed port: connection refused, exit 3" || { echo "FAIL: closed port: exit $rc: $(cat "$tmp/err")"; fail=1; }
exit $fail
