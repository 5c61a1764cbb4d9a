#!/bin/bash
# clickhouse_export.sh SATSCOPE SRC - satscope's rows in a real ClickHouse (Debian's
# clickhouse-server, 18.16 the floor), started here on 127.0.0.1 with a throwaway config and
# data directory, and stopped: `export --ddl` creates the tables, every table of a 389 log, an
# nginx log, a TLS capture and a core goes in by `export --as rowbinary` (and ldap_op again by
# `--as tsv` into a second table), and what ClickHouse gives back (SELECT the columns FORMAT
# TabSeparated) is byte for byte satscope's own `--as tsv` of the same rows; counts equal.
# Skipped (exit 77, said) when clickhouse-server is not installed (dev.sh test installs it).
satscope=$1 src=$2
. "$src/tests/cli/clickhouse_server.sh"
inputs=("$src/fixtures/incident/access" "$src/fixtures/http-nginx/access.log.gz"
        "$src/fixtures/incident/tls-storm-incident.pcap"
        --exe "$src/fixtures/cores/bin/segv_chain-O0"
        "$src/fixtures/cores/segv_chain/segv_chain-O0-kernel.core.gz")
"$satscope" export --ddl | ch --multiquery || { echo "FAIL: export --ddl refused"; exit 1; }
fail=0
tables=$("$satscope" export -q "${inputs[@]}" | sed 's/^{"table":"\([a-z_]*\)".*/\1/' | sort -u)
for t in $tables; do
  cols=$("$satscope" export --ddl --table "$t" | awk '/^    / && !/DEFAULT/ { print $1 }' | paste -sd, -)
  "$satscope" export -q --as rowbinary --table "$t" "${inputs[@]}" |
    ch --query "INSERT INTO satscope.$t ($cols) FORMAT RowBinary" || { echo "FAIL: $t: insert"; fail=1; continue; }
  "$satscope" export -q --as tsv --table "$t" "${inputs[@]}" | sort >"$tmp/want.tsv"
  ch --query "SELECT $cols FROM satscope.$t FORMAT TabSeparated" | sort >"$tmp/got.tsv"
  n=$(wc -l <"$tmp/want.tsv")
  if cmp -s "$tmp/want.tsv" "$tmp/got.tsv" && [ "$(ch --query "SELECT count() FROM satscope.$t")" = "$n" ]; then
    echo "ok $t: $n rows in by RowBinary, out as satscope's TabSeparated byte for byte"
  else
    echo "FAIL $t: what ClickHouse holds differs from satscope's rows"; diff "$tmp/want.tsv" "$tmp/got.tsv" | head -5; fail=1
  fi
done
# TabSeparated in: a second ldap_op table of the same DDL
cols=$("$satscope" export --ddl --table ldap_op | awk '/^    / && !/DEFAULT/ { print $1 }' | paste -sd, -)
"$satscope" export --ddl --table ldap_op | sed 's/satscope\.ldap_op/satscope.ldap_op_tsv/' | ch --multiquery
"$satscope" export -q --as tsv --table ldap_op "${inputs[@]}" |
  ch --query "INSERT INTO satscope.ldap_op_tsv ($cols) FORMAT TabSeparated"
a=$(ch --query "SELECT count(), sum(etime), uniqExact(client_ip), countIf(isNull(filter)) FROM satscope.ldap_op")
b=$(ch --query "SELECT count(), sum(etime), uniqExact(client_ip), countIf(isNull(filter)) FROM satscope.ldap_op_tsv")
if [ "$a" = "$b" ]; then echo "ok ldap_op by TabSeparated: $a"; else echo "FAIL: tsv $b, rowbinary $a"; fail=1; fi
# the derived day of the time column
days=$(ch --query "SELECT count() FROM satscope.ldap_op WHERE day_time != toDateTime(intDiv(ts_ns, 1000000000))")
[ "$days" = 0 ] || { echo "FAIL: $days rows' day_time is not their ts_ns"; fail=1; }
exit $fail
