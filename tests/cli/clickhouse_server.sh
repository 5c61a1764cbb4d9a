#!/bin/bash
# clickhouse_server.sh - sourced by the ClickHouse tests: Debian's clickhouse-server (18.16 the
# floor) started on 127.0.0.1 with a throwaway config and data directory, stopped on exit.
# Gives $tmp (a directory removed on exit), $tcp and $http (its ports), $url (its HTTP
# interface) and ch (clickhouse-client on it). Its remote_servers has `two_shards`: two shards
# on this same server, each replica's default_database its own (shard1, shard2), so that a
# Distributed table spreads rows over two tables. Exits 77 (said) without clickhouse-server.
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
for base in 19100 19200 19300 19400 19500 19600 19700; do
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
  <remote_servers>
    <two_shards>
      <shard><replica><host>127.0.0.1</host><port>$tcp</port><default_database>shard1</default_database></replica></shard>
      <shard><replica><host>127.0.0.1</host><port>$tcp</port><default_database>shard2</default_database></replica></shard>
    </two_shards>
  </remote_servers>
</yandex>
XML
cat >"$tmp/users.xml" <<XML
<yandex>
  <profiles><default></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default>
    <loader><password>s3cret</password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></loader></users>
  <quotas><default></default></quotas>
</yandex>
XML
"$server" --config-file="$tmp/config.xml" >"$tmp/server.log" 2>&1 &
pid=$!
url="http://127.0.0.1:$http/"
ch() { "$client" --host 127.0.0.1 --port "$tcp" "$@"; }
for i in $(seq 60); do ch --query "SELECT 1" >/dev/null 2>&1 && break; sleep 0.5; done
ch --query "SELECT version()" >/dev/null 2>&1 || { echo "FAIL: ClickHouse did not start"; cat "$tmp/server.log"; exit 1; }
# the server answering must be ours (another one on the port would hold other tables)
kill -0 "$pid" 2>/dev/null || { echo "FAIL: ClickHouse on $tcp is not ours (port taken)"; cat "$tmp/server.log"; exit 1; }
echo "ClickHouse $(ch --query 'SELECT version()') on 127.0.0.1:$tcp (HTTP $http)"
