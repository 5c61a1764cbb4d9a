#!/bin/sh
# slapd_log_counts.sh - sets satscope's counts of an OpenLDAP stats log beside the log's own
# counts (log-counts*.txt, made by fixtures/slapd-load/count-log.py from the lines alone):
# one line per figure, "ok" when they agree; exit 1 on any difference. For logs where the
# clients' counts cannot equal the log's (connections the server never accepted, answers
# never logged): fixtures/slapd-storm.
#
# Usage: slapd_log_counts.sh SATSCOPE LOGCOUNTS.txt INPUT... [ETIME-OPTIONS]
sat=$1 logc=$2
shift 2
out=$("$sat" etime "$@") || exit 1
val() { # first "Name   N" of the etime text
    printf '%s\n' "$out" | awk -v k="$1" 'index($0, k) { s = substr($0, index($0, k) + length(k)); split(s, a, " "); print a[1]; exit }'
}
kv() { awk -v k="$1" '$1 == k { print $2; exit }' "$logc"; }
st=0
row() { # name satscope log
    ok=ok
    [ "$2" = "$3" ] || { ok=MISMATCH; st=1; }
    printf '%-26s satscope %-8s log %-8s %s\n' "$1" "$2" "$3" "$ok"
}
row connections "$(val 'Total connections')" "$(kv connections)"
row BIND "$(val 'Binds')" "$(kv binds)"
row SRCH "$(val 'Searches')" "$(kv searches)"
row UNBIND "$(val 'Unbinds')" "$(kv unbinds)"
row "entries returned" "$(val 'Entries returned')" "$(kv search_entries)"
row "with a RESULT" "$(val 'With a RESULT')" "$(($(kv bind_results) + $(kv search_results)))"
row unfinished "$(val 'Unfinished (no RESULT by the end)')" "$(kv unfinished)"
row "peak concurrent" "$(val 'Peak concurrent connections')" "$(kv peak_concurrent)"
row "server restarts" "$(val 'Server restarts')" "$(($(kv slapd_starting) - 1))"
exit $st
