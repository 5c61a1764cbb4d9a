#!/bin/bash
# clickhouse_rate.sh SATSCOPE LOG_DIR [PARTIAL_DIR] - rows per second into ClickHouse:
# every log of LOG_DIR (and every partial of PARTIAL_DIR) exported with `satscope export
# --clickhouse` into a throwaway clickhouse-server on 127.0.0.1 (tests/cli/clickhouse_server.sh:
# Debian's package, started and stopped here), as satscope says it (rows, requests, seconds,
# rows/s). Run by bench/run_fleet.sh; the server runs on the same shared machine.
sat=$1 logs=$2 parts=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tests/cli/clickhouse_server.sh" >/dev/null
say() { grep -o '[0-9]* rows in [0-9]* requests in [0-9.]* s ([0-9]* rows/s)' "$tmp/err" | tail -1; }
"$sat" export -q "$logs"/*.log --clickhouse "$url" --database fleet 2>"$tmp/err" ||
    { echo "export of the logs failed: $(tail -2 "$tmp/err")"; exit 1; }
echo "rows into ClickHouse, $(ls "$logs"/*.log | wc -l) logs: $(say)"
if [ -n "$parts" ]; then
    "$sat" export -q "$parts"/*.satp --clickhouse "$url" --database fleet 2>"$tmp/err" ||
        { echo "export of the partials failed: $(tail -2 "$tmp/err")"; exit 1; }
    echo "partials' plain columns, $(ls "$parts"/*.satp | wc -l) partials: $(say)"
fi
