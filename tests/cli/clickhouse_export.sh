#!/bin/bash
# clickhouse_export.sh SATSCOPE SRC - satscope's rows in a real ClickHouse (Debian's
# clickhouse-server, 18.16 the floor), started here on 127.0.0.1 with a throwaway config and
# data directory, and stopped: `export --ddl` creates the tables, every table of a 389 log, an
# nginx log, a TLS capture and a core goes in by `export --as rowbinary` (and ldap_op again by
# `--as tsv` into a second table), and what ClickHouse gives back (SELECT the columns FORMAT
# TabSeparated) is byte for byte satscope's own `--as tsv` of the same rows; counts equal.
# Skipped (exit 77, said) when clickhouse-server is not installed (dev.sh test installs it).
satscope=$1 src=$2
server=$(command -v clickhouse-server) client=$(command -v clickhouse-client)
if [ -z "$server" ] || [ -z "$client" ]; then
  echo "SKIP: clickhouse-server/clickhouse-client not installed (apt-get install clickhouse-server clickhouse-client)"
  exit 77
fi
tmp=$(mktemp -d) || exit 1
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
# ports of our own: the first pair free from 19100 up
for base in 19100 19200 19300 19400 19500; do
  if ! (exec 3<>/dev/tcp/127.0.0.1/$base) 2>/dev/null && ! (exec 3<>/dev/tcp/127.0.0.1/$((base + 1))) 2>/dev/null; then
    tcp=$base http=$((base + 1)); break
  fi
done
[ -n "$tcp" ] || { echo "FAIL: no free port pair for ClickHouse"; exit 1; }
mkdir -p "$tmp/data" "$tmp/tmp"
cat >"$tmp/config.xml" <<XML
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <tcp_port>$tcp</tcp_port><http_port>$http</http_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$tmp/data/</path><tmp_path>$tmp/tmp/</tmp_path>
  <users_config>$tmp/users.xml</users_config>
  <default_profile>default</default_profile><default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
</yandex>
XML
cat >"$tmp/users.xml" <<XML
<yandex>
  <profiles><default></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
XML
"$server" --config-file="$tmp/config.xml" >"$tmp/server.log" 2>&1 &
pid=$!
ch() { "$client" --host 127.0.0.1 --port "$tcp" "$@"; }
for i in $(seq 60); do ch --query "SELECT 1" >/dev/null 2>&1 && break; sleep 0.5; done
ch --query "SELECT version()" >/dev/null 2>&1 || { echo "FAIL: ClickHouse did not start"; cat "$tmp/server.log"; exit 1; }
echo "ClickHouse $(ch --query 'SELECT version()') on 127.0.0.1:$tcp"
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
