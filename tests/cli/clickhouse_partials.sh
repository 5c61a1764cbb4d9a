#!/bin/bash
# clickhouse_partials.sh SATSCOPE SRC GEN389 - a fleet's partials in a real ClickHouse
# (clickhouse_server.sh: 18.16, two shards on one server) and docs/clickhouse.md's SQL for
# partials, read from the page itself, giving satscope's own numbers per server-day.
# Three generated servers (bench/gen389): ldapa with more than 2048 searches (its sketch in
# buckets), cut in two parts whose partials are exported in two separate runs (the SQL
# merges them: the first part's sketches exact, the second's SRCH in buckets); ldapd in
# two halves whose searches are each exact, but not the day's (all put in buckets); ldapb small (every type exact); ldapc with whole-second etimes (zeros in the
# bucket of v <= 0). Into (a) plain tables and (b) Distributed tables over two shards: per
# server and type, operations, results, errors and p50/p90/p99 equal `satscope etime --json`
# of that server's logs, the percentiles to the ns. Exported again: nothing inserted.
# Skipped (77, said) without clickhouse-server.
satscope=$1 src=$2 gen389=$3
. "$src/tests/cli/clickhouse_server.sh"
fail=0
"$gen389" --seed 3 --lines 24000 --host ldapa.example.com -o "$tmp/a.log" 2>/dev/null
"$gen389" --seed 4 --lines 3000 --host ldapb.example.com -o "$tmp/b.log" 2>/dev/null
"$gen389" --seed 5 --lines 12000 --lowres --host ldapc.example.com -o "$tmp/c.log" 2>/dev/null
"$gen389" --seed 6 --lines 10000 --host ldapd.example.com -o "$tmp/d.log" 2>/dev/null
# a short morning (its sketches exact) and the rest (SRCH's in buckets): the day's exact
# values must go into buckets too
head -n 3000 "$tmp/a.log" >"$tmp/a1.log"
tail -n +3001 "$tmp/a.log" >"$tmp/a2.log"
# two halves each exact (about 1,750 searches), the day not (3,551): every value in buckets
head -n 5000 "$tmp/d.log" >"$tmp/d1.log"
tail -n +5001 "$tmp/d.log" >"$tmp/d2.log"
for p in a1 a2 b c d1 d2; do
    "$satscope" partial -q --server "ldap${p:0:1}" "$tmp/$p.log" -o "$tmp/$p.satp" ||
        { echo "FAIL: partial $p"; exit 1; }
done
# satscope's own figures per server: "C server op operations results errors", "P server op q ns"
want() { # want SERVER LOG...
    local s=$1
    shift
    "$satscope" etime -q "$@" --json | python3 -c '
import json, sys
from decimal import Decimal
s = sys.argv[1]
doc = json.load(sys.stdin, parse_float=Decimal)
for r in sorted(doc["ops"], key=lambda r: r["op"]):
    if r["op"] == "all":
        continue
    print("C", s, r["op"], r["count"], r["results"], r["errors"])
    for q, k in (("0.5", "p50_s"), ("0.9", "p90_s"), ("0.99", "p99_s")):
        if r[k] is not None:
            print("P", s, r["op"], q, int(r[k] * 1000000000))' "$s"
}
{ want ldapa "$tmp/a1.log" "$tmp/a2.log"; want ldapb "$tmp/b.log"; want ldapc "$tmp/c.log"
  want ldapd "$tmp/d1.log" "$tmp/d2.log"; } |
    sort >"$tmp/want"
grep -q '^P ldapa SRCH' "$tmp/want" || { echo "FAIL: no SRCH percentiles of ldapa from etime"; exit 1; }
doc_sql() { awk -v m="<!-- sql:$1 -->" '$0 == m { on = 1; next } on && /^```sql/ { next }
                                          on && /^```/ { exit } on' "$src/docs/clickhouse.md"; }
counts=$(doc_sql partial-counts) pct=$(doc_sql partial-percentiles)
[ -n "$counts" ] && [ -n "$pct" ] ||
    { echo "FAIL: docs/clickhouse.md has no sql:partial-counts or sql:partial-percentiles"; exit 1; }
got() { # the page's SQL on database $1, as want writes it (the day left out: one each)
    { ch --query "${counts//satscope./$1.}" | awk -F'\t' '{ print "C", $1, $3, $4, $5, $6 }'
      ch --query "${pct//satscope./$1.}" | awk -F'\t' '{ print "P", $1, $3, $4, $6 }'; } | sort
}
export_to() { # export_to DB PARTIAL...
    local db=$1
    shift
    "$satscope" export -q "$@" --clickhouse "$url" --database "$db" 2>"$tmp/err"
}
for mode in plain distributed; do
    if [ $mode = plain ]; then
        db=satscope
    else
        db=satscope_dist
        for s in shard1 shard2; do "$satscope" export --ddl --database $s | ch --multiquery || fail=1; done
        "$satscope" export --ddl --database $db --cluster two_shards | ch --multiquery ||
            { echo "FAIL: --ddl --cluster refused"; exit 1; }
    fi
    # the morning's partial of ldapa in one export, the rest in another
    export_to $db "$tmp/a1.satp" "$tmp/d1.satp" ||
        { echo "FAIL $mode: export a1 d1: $(cat "$tmp/err")"; fail=1; }
    export_to $db "$tmp/a2.satp" "$tmp/b.satp" "$tmp/c.satp" "$tmp/d2.satp" ||
        { echo "FAIL $mode: export a2 b c: $(cat "$tmp/err")"; fail=1; }
    grep -q 'partial_key: [0-9]* rows inserted' "$tmp/err" || { echo "FAIL $mode: no key rows said"; cat "$tmp/err"; fail=1; }
    if diff "$tmp/want" <(got $db) >"$tmp/diff"; then
        echo "ok $mode: $(grep -c '^C' "$tmp/want") server-types' counts and errors, $(grep -c '^P' "$tmp/want") percentiles equal to etime's (ldapa and ldapd from two exports of their parts)"
    else
        echo "FAIL $mode: the page's SQL on partials differs from satscope etime (< etime, > SQL)"
        head -20 "$tmp/diff"
        fail=1
    fi
    if [ "$(ch --query "SELECT groupUniqArray(bucketed) FROM $db.partial_op WHERE server = 'ldapa' AND op = 'SRCH'" | tr -d '[]' | tr ',' '\n' | sort | paste -sd,)" != "0,1" ]; then
        echo "FAIL $mode: ldapa's SRCH not exact in one part and bucketed in the other: that merge is not tested"; fail=1
    fi
    if [ $mode = distributed ]; then
        a=$(ch --query "SELECT count() FROM shard1.partial_key") b=$(ch --query "SELECT count() FROM shard2.partial_key")
        [ "$a" -gt 0 ] && [ "$b" -gt 0 ] && echo "ok the key rows spread over two shards: $a + $b" ||
            { echo "FAIL: shards hold $a + $b key rows"; fail=1; }
    fi
    before=$(ch --query "SELECT count() FROM $db.partial_key")
    export_to $db "$tmp/a2.satp" "$tmp/b.satp" "$tmp/c.satp" "$tmp/d2.satp"
    if grep -q "partial_key: already exported" "$tmp/err" &&
        [ "$(ch --query "SELECT count() FROM $db.partial_key")" = "$before" ]; then
        echo "ok $mode exported again: nothing inserted"
    else
        echo "FAIL $mode: exported again: $(cat "$tmp/err")"; fail=1
    fi
done
exit $fail
