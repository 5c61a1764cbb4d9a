#!/bin/sh
# driven_counts.sh - sets satscope's counts on a log made under load beside
# what the clients drove (driven.txt) and what the log's lines say
# (log-counts*.txt, counted by the fixture's own count-log.py): one line per
# figure, "ok" when they agree. Exit 1 on any difference.
#
# Usage: driven_counts.sh SATSCOPE DRIVEN.txt LOGCOUNTS.txt INPUT... [-- ETIME-OPTIONS]
sat=$1 driven=$2 logc=$3
shift 3
out=$("$sat" etime "$@") || exit 1
val() { # first "Name   N" of the etime report
    printf '%s\n' "$out" | awk -v k="$1" 'index($0, k) { s = substr($0, index($0, k) + length(k)); split(s, a, " "); print a[1]; exit }'
}
kv() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
st=0
row() { # name satscope driven log
    ok=ok
    [ -n "$3" ] && [ "$2" != "$3" ] && ok=MISMATCH
    [ -n "$4" ] && [ "$2" != "$4" ] && ok=MISMATCH
    [ "$ok" = ok ] || st=1
    printf '%-26s satscope %-8s driven %-8s log %-8s %s\n' "$1" "$2" "${3:--}" "${4:--}" "$ok"
}
L=$(kv "$logc" binds)
if [ -n "$L" ]; then   # OpenLDAP counts
    row connections "$(val 'Total connections')" "$(kv "$driven" connections)" "$(kv "$logc" connections)"
    row BIND "$(val 'Binds')" "$(kv "$driven" binds)" "$(kv "$logc" binds)"
    row SRCH "$(val 'Searches')" "$(kv "$driven" searches)" "$(kv "$logc" searches)"
    row CMP "$(val 'Compares')" "$(kv "$driven" compares)" "$(kv "$logc" compares)"
    row UNBIND "$(val 'Unbinds')" "$(kv "$driven" unbinds)" "$(kv "$logc" unbinds)"
    row "entries returned" "$(val 'Entries returned')" "$(kv "$driven" search_entries)" "$(kv "$logc" search_entries)"
    row unfinished "$(val 'Unfinished (no RESULT by the end)')" 0 "$(kv "$logc" unfinished)"
    row "peak concurrent" "$(val 'Peak concurrent connections')" "" "$(kv "$logc" peak_concurrent)"
else                   # 389 counts (count-log.py of fixtures/389ds-load)
    row connections "$(val 'Total connections')" "$(kv "$driven" total_connections)" "$(kv "$logc" connections)"
    row BIND "$(val 'Binds')" "$(kv "$driven" total_binds)" "$(kv "$logc" BIND)"
    row SRCH "$(val 'Searches')" "$(kv "$driven" total_searches)" "$(kv "$logc" SRCH)"
    row CMP "$(val 'Compares')" "$(kv "$driven" compares)" "$(kv "$logc" CMP)"
    row ADD "$(val 'Adds')" "$(kv "$driven" total_adds)" "$(kv "$logc" ADD)"
    row UNBIND "$(val 'Unbinds')" "$(kv "$driven" total_unbinds)" "$(kv "$logc" UNBIND)"
    row unfinished "$(val 'Unfinished (no RESULT by the end)')" 0 ""
fi
row "RESULT without request" "$(val 'RESULT without its request')" 0 ""
row "server restarts" "$(val 'Server restarts')" 0 ""
row "no open line" "$(val 'already open at its start')" 0 ""
exit $st
