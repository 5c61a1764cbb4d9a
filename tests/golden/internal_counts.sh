#!/bin/bash
# internal_counts.sh SATSCOPE FIXTURE_DIR - satscope's counts of a 389 run beside the driven
# ones and the server's own (FIXTURE_DIR/counts.txt, written by make-fixture.sh), one line per
# count: NAME satscope N log/clients M same|DIFFERENT. Used by tests/golden/internal.list.
set -euo pipefail
sat=$1 dir=$2
json=$("$sat" etime --json --by internal "$dir/access.zst")
text=$("$sat" etime "$dir/access.zst")
want() { awk -v k="$1" '$1 == k { print $2 }' "$dir/counts.txt"; }
jnum() { printf '%s\n' "$json" | tr -d ' ' | grep -o "\"$1\":[0-9]*" | head -1 | cut -d: -f2; }
tnum() { printf '%s\n' "$text" | sed -n "s/^  $1  *\([0-9]*\).*/\1/p"; }
line() {
    local got=$2 w=$3
    printf '%s satscope %s log/clients %s %s\n' "$1" "${got:--}" "${w:--}" "$([ "$got" = "$w" ] && echo same || echo DIFFERENT)"
}
line internal "$(tnum 'Internal operations')" "$(want log_results_internal)"
line internal_of_client_operations "$(jnum of_clients)" "$(want log_results_internal_of_client_ops)"
line internal_of_the_server "$(jnum of_server)" "$(want log_results_internal_of_server)"
line internal_nested "$(jnum nested)" "$(want log_results_internal_nested)"
for t in SRCH ADD MOD DEL MODRDN; do
    got=$(printf '%s\n' "$json" | grep '"by_type"' | tr -d ' ' | grep -o "\"$t\":[0-9]*" | cut -d: -f2 || true)
    line "internal_$t" "${got:-0}" "$(want log_requests_internal_$t)"
done
line internal_not_attributed "$(( $(jnum of_operations_not_in_input) + $(jnum unattributed) ))" 0
line ADD "$(tnum Adds)" "$(want users_add_requests)"
line MOD "$(tnum Modifications)" "$(want member_add_requests)"
line MODRDN "$(tnum 'Mod RDNs')" "$(want users_renamed)"
line DEL "$(tnum Deletes)" "$(want users_deleted)"
line RESULT "$(tnum 'With a RESULT')" "$(want log_results_external)"
