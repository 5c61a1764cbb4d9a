#!/bin/bash
# out_of_memory.sh SATSCOPE SRC FAILMALLOC.so - out of memory ends a command cleanly, wherever
# it strikes. Each command is run once to count the allocations satscope's code makes
# (tests/fault/failmalloc.c), then again with every allocation failing from the Nth on, for N
# spread over that count. Each run must:
#   - end (no hang: a timeout fails), without a crash (no signal);
#   - when it exits 3: say "satscope CMD: out of memory; ..." on stderr, print nothing on
#     standard output, and leave no output file (nor a temporary one beside it);
#   - when it does not (the failures came after its last allocation): exit as the run
#     without failures did, its output file complete.
# Prints a line per command (runs, exits seen) and each failed run; exits 1 if any failed.
set -u
SAT=$1
SRC=$2
SO=$3
STEPS=${SAT_OOM_STEPS:-12}
T=${SAT_TEST_TIMEOUT:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
LOG=$SRC/fixtures/389ds/access-2.3.1.log
I=$SRC/fixtures/incident
PCAP=$I/tls-storm-incident.pcap
fails=0

# check NAME OUTPUT CMD...: OUTPUT is the file or directory the command writes ("" for stdout only)
check() {
    local name=$1 out=$2
    shift 2
    rm -rf "$work"/o.* cnt
    # preloaded into satscope only (env execs it), not into timeout
    timeout "$T" env SAT_FAILMALLOC_COUNT="$work/cnt" LD_PRELOAD="$SO" "$SAT" "$@" >/dev/null 2>&1
    local want=$? total
    total=$(cat cnt 2>/dev/null || echo 0)
    if [ "$total" = 0 ]; then
        echo "$name: no allocation counted (exit $want): the injection did not load"
        fails=$((fails + 1))
        return
    fi
    local seen="" bad=0
    for k in $(seq 0 "$STEPS"); do
        local n=$((1 + k * total / STEPS))
        rm -rf "$work"/o.* mark
        timeout "$T" env SAT_FAILMALLOC_MARK="$work/mark" SAT_FAILMALLOC_AT=$n LD_PRELOAD="$SO" \
            "$SAT" "$@" >stdout 2>stderr
        local rc=$? why=""
        seen="$seen${seen:+ }$rc"
        if [ $rc -ge 124 ]; then
            why="exit $rc (a hang or a crash)"
        elif [ $rc = 3 ] && [ -e mark ]; then
            if ! grep -q "^satscope [a-z]*: out of memory; " stderr; then
                why="exit 3 without 'out of memory; ...': $(head -c 150 stderr | tr '\n' '|')"
            elif [ -s stdout ]; then
                why="exit 3, yet $(wc -c <stdout) bytes on standard output"
            elif [ -n "$out" ] && ls -d "$out" "$out".* >/dev/null 2>&1; then
                why="exit 3, yet left: $(ls -d "$out" "$out".* 2>/dev/null | tr '\n' ' ')"
            fi
        elif [ -e mark ] && [ $rc != "$want" ]; then
            why="exit $rc after a failed allocation: $(head -c 150 stderr | tr '\n' '|')"
        elif [ ! -e mark ] && [ $rc != "$want" ]; then
            why="exit $rc with no failure injected (want $want)"
        elif [ $rc = "$want" ] && [ -n "$out" ] && ! ls -d "$out" >/dev/null 2>&1; then
            why="exit $rc but no output"
        fi
        if [ -n "$why" ]; then
            echo "  $name, allocations failing from $n of $total: $why"
            bad=$((bad + 1))
        fi
    done
    printf '%-28s %4d allocations, %2d runs, exits:%s%s\n' "$name" "$total" $((STEPS + 1)) \
        "$(echo "$seen" | tr ' ' '\n' | sort | uniq -c | awk '{printf " %sx%s", $1, $2}')" \
        "$([ $bad = 0 ] || echo ", $bad FAILED")"
    fails=$((fails + bad))
}

check "collect log" o.sat collect -q "$LOG" -o o.sat
check "collect capture" o.sat collect -q "$PCAP" -o o.sat
check "etime" "" etime -q "$LOG"
check "etime --json --jobs 2" "" etime -q --json --jobs 2 "$I/access" "$I/access.20250609-133000.gz"
check "etime --csv-dir" o.d etime -q --csv --csv-dir o.d "$LOG"
check "storms" "" storms -q "$LOG"
check "timeline" "" timeline -q "$LOG"
check "handshakes" "" handshakes -q "$PCAP"
check "saturation" "" saturation -q "$LOG"
check "cachesize" "" cachesize -q "$LOG"
check "report -o .json (incident)" o.json report -q "$I/access" "$I/access.20250609-133000.gz" "$PCAP" -o o.json
check "report -o .html" o.html report -q "$LOG" -o o.html
check "chart -o .png" o.png chart timeline -q "$LOG" -o o.png
[ $fails = 0 ] || { echo "$fails runs failed"; exit 1; }
echo "every run ended cleanly"
