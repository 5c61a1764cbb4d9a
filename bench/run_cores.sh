#!/bin/bash
# bench/run_cores.sh: time per core file (issue 5), satscope against eu-stack on the same cores.
# For each core of the shared corpus (../shared/corpus/cores, elfutils' test cores and their
# executables), each as the median wall time of RUNS runs, page cache warm:
#   eu-stack -m -s -n 0 -e EXE --core CORE     every thread unwound, modules and source lines
#   satscope collect CORE --exe EXE -o X.sat   the same unwinding and symbols, plus the core's
#                                              notes, build-ids, the crash row and the trace
# and prints both, the ratio satscope / eu-stack (target: within 2x), the frames each found
# (they must agree: a run whose frame counts differ is refused), and satscope's fixed cost
# (collect of an empty log: start-up, the trace) for reference.
#
# Then, for a large core of a real server (bench/make_slapd_core.sh: Debian's slapd under
# load, killed with SIGSEGV: ~340 MB, 12 threads), the same two plus the command a user runs
# and eu-stack without source lines or modules:
#   satscope crashes CORE --exe /usr/sbin/slapd      the report
#   eu-stack -n 0 -e /usr/sbin/slapd --core CORE      frames and names only (no -m -s)
#
# usage: bench/run_cores.sh [--corpus DIR] [--runs N] [--build DIR]
#                           [--slapd-core FILE | --make-slapd-core DIR | --no-slapd-core]
#   --slapd-core FILE   the large core (default: /tmp/satscope-slapd-core/slapd.core if there)
#   --make-slapd-core DIR  make it first (bench/make_slapd_core.sh DIR; ~15 s, port 38941)
# needs: eu-stack (package elfutils); a Release build for satscope figures.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=$here/../shared/corpus/cores
RUNS=5
BUILD=""
SLAPD_CORE=/tmp/satscope-slapd-core/slapd.core
while [ $# -gt 0 ]; do
    case "$1" in
    --slapd-core) SLAPD_CORE=$2; shift 2 ;;
    --make-slapd-core) bash "$here/bench/make_slapd_core.sh" "$2" >&2; SLAPD_CORE=$2/slapd.core; shift 2 ;;
    --no-slapd-core) SLAPD_CORE=""; shift ;;
    --corpus) CORPUS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "run_cores.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
command -v eu-stack >/dev/null || { echo "run_cores.sh: eu-stack missing: apt-get install elfutils" >&2; exit 2; }
[ -d "$CORPUS" ] || { echo "run_cores.sh: no core corpus at $CORPUS" >&2; exit 2; }
CORPUS=$(realpath "$CORPUS")
if [ -z "$BUILD" ]; then
    for b in "$here/build" "$here"/build-*; do [ -x "$b/cli/satscope" ] && { BUILD=$b; break; }; done
fi
SAT=${SATSCOPE:-${BUILD:+$BUILD/cli/satscope}}
[ -n "$SAT" ] && SAT=$(realpath "$SAT")
[ -n "$SAT" ] && [ -x "$SAT" ] || { echo "run_cores.sh: no satscope build (cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/satscope-bench-cores.XXXXXX")

# run1 CMD...: wall microseconds of one run, appended to the array named by $TIMES (exit codes
# 0 and 1 accepted: eu-stack says 1 when an unwind stops early, as it must on two of these
# cores); its stdout and stderr are left in $WORK/out, $WORK/err
run1() {
    local t0 t1 rc=0 cpu
    t0=$(date +%s%N)
    if [ -n "$PERF" ]; then
        perf stat -x, -e task-clock -o "$WORK/perf" "$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
    else
        "$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
    fi
    t1=$(date +%s%N)
    if [ "$rc" -gt 1 ]; then
        echo "run_cores.sh: '$*' failed ($rc):" >&2; tail -5 "$WORK/err" >&2; exit 1
    fi
    eval "$TIMES+=($(( (t1 - t0) / 1000 )))"
    if [ -n "$PERF" ]; then
        cpu=$(awk -F, '/task-clock/ {printf "%d", $1 * 1000}' "$WORK/perf")
        eval "${TIMES}_CPU+=(${cpu:-0})"
    fi
}
median_ms() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{printf "%.1f", a[int((NR+1)/2)]/1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2fx", a/b; else print "n/a" }'; }

# CPU time (perf's task-clock) beside wall time when perf may count: on a shared, loaded
# machine the wall time mostly measures the queue for a core
PERF=""
perf stat -x, -e task-clock -o /dev/null true > /dev/null 2>&1 && PERF=1

# The trace goes to tmpfs when there is one: the writer fsyncs it, and a disk flush (~0.1 s
# here) is not the cost of reading a core.
TRACE_DIR=$WORK
[ -d /dev/shm ] && [ -w /dev/shm ] && TRACE_DIR=$(mktemp -d /dev/shm/satscope-bench-cores.XXXXXX)
trap 'rm -rf "$WORK"; [ "$TRACE_DIR" != "$WORK" ] && rm -rf "$TRACE_DIR"' EXIT
: > "$WORK/empty.log"

# core -> executable, as the corpus README pairs them
cores=(backtrace.x86_64.core:backtrace.x86_64.exec
       backtrace.x86_64.fp.core:backtrace.x86_64.fp.exec
       testfile-backtrace-demangle.core:testfile-backtrace-demangle
       linkmap-cut.core:linkmap-cut)
echo "satscope: $SAT; trace written to $TRACE_DIR"
echo "$RUNS runs each, the tools alternated run by run (the machine's load hits both alike); median wall times"
printf '%-34s %6s %11s %7s %11s %7s %7s %11s\n' core MB eu-stack frames satscope frames ratio "satscope-0"
printf '%-34s %6s %11s %7s %11s %7s %7s %11s\n' "" "" "(cpu)" "" "(cpu)" "" "(cpu)" "(cpu)"
worst=0
for pair in "${cores[@]}"; do
    core=${pair%%:*}; exe=${pair#*:}
    C=$CORPUS/$core; E=$CORPUS/$exe
    [ -f "$C" ] && [ -f "$E" ] || { echo "$core: skipped (not in $CORPUS)"; continue; }
    cat "$C" "$E" > /dev/null
    T_EU=(); T_SAT=(); T_EMPTY=(); T_EU_CPU=(); T_SAT_CPU=(); T_EMPTY_CPU=()
    for ((i = 0; i < RUNS; i++)); do
        # eu-stack resolves the corpus' relative module paths from the corpus directory
        cd "$CORPUS"
        TIMES=T_EU run1 eu-stack -m -s -n 0 -e "$E" --core "$C"
        F_EU=$(grep -c '^#' "$WORK/out" || true)
        cd "$WORK"
        TIMES=T_SAT run1 "$SAT" collect "$C" --exe "$E" -o "$TRACE_DIR/x.sat"
        F_SAT=$(sed -n 's/.*crash(es), \([0-9]*\) frames.*/\1/p' "$WORK/err")
        # the fixed cost of a satscope run (start, an empty input, the trace)
        TIMES=T_EMPTY run1 "$SAT" collect "$WORK/empty.log" -o "$TRACE_DIR/e.sat"
    done
    if [ "$F_SAT" != "$F_EU" ]; then
        echo "run_cores.sh: $core: satscope found ${F_SAT:-?} frames, eu-stack $F_EU: refused" >&2
        exit 1
    fi
    m_eu=$(median_ms "${T_EU[@]}"); m_sat=$(median_ms "${T_SAT[@]}"); m_empty=$(median_ms "${T_EMPTY[@]}")
    printf '%-34s %6s %8s ms %7s %8s ms %7s %7s %8s ms\n' "$core" \
        "$(awk -v b="$(stat -c%s "$C")" 'BEGIN{printf "%.1f", b/1e6}')" "$m_eu" "$F_EU" \
        "$m_sat" "$F_SAT" "$(ratio "$m_sat" "$m_eu")" "$m_empty"
    worst=$(awk -v w="$worst" -v a="$m_sat" -v b="$m_eu" 'BEGIN{r = b > 0 ? a/b : 0; print (r > w ? r : w)}')
    if [ -n "$PERF" ]; then
        c_eu=$(median_ms "${T_EU_CPU[@]}"); c_sat=$(median_ms "${T_SAT_CPU[@]}"); c_empty=$(median_ms "${T_EMPTY_CPU[@]}")
        printf '%-34s %6s %8s ms %7s %8s ms %7s %7s %8s ms\n' "" "" "$c_eu" "" "$c_sat" "" \
            "$(ratio "$c_sat" "$c_eu")" "$c_empty"
        worst_cpu=$(awk -v w="${worst_cpu:-0}" -v a="$c_sat" -v b="$c_eu" 'BEGIN{r = b > 0 ? a/b : 0; print (r > w ? r : w)}')
    fi
done

# ---- a large core of a real server
if [ -n "$SLAPD_CORE" ] && [ -f "$SLAPD_CORE" ] && [ -x /usr/sbin/slapd ]; then
    C=$(realpath "$SLAPD_CORE"); E=/usr/sbin/slapd
    cat "$C" "$E" > /dev/null
    T_EU=(); T_EU0=(); T_SAT=(); T_CR=(); T_CR0=()
    T_EU_CPU=(); T_EU0_CPU=(); T_SAT_CPU=(); T_CR_CPU=(); T_CR0_CPU=()
    cd "$WORK"
    for ((i = 0; i < RUNS; i++)); do
        TIMES=T_EU run1 eu-stack -m -s -n 0 -e "$E" --core "$C"
        F_EU=$(grep -c '^#' "$WORK/out" || true)
        TIMES=T_EU0 run1 eu-stack -n 0 -e "$E" --core "$C"
        TIMES=T_SAT run1 "$SAT" collect "$C" --exe "$E" -o "$TRACE_DIR/x.sat"
        F_SAT=$(sed -n 's/.*crash(es), \([0-9]*\) frames.*/\1/p' "$WORK/err")
        TIMES=T_CR run1 "$SAT" crashes "$C" --exe "$E"
        TIMES=T_CR0 run1 "$SAT" crashes --no-source-lines "$C" --exe "$E"
    done
    if [ "$F_SAT" != "$F_EU" ]; then
        echo "run_cores.sh: $C: satscope found ${F_SAT:-?} frames, eu-stack $F_EU: refused" >&2
        exit 1
    fi
    echo
    echo "large core: $C ($(awk -v b="$(stat -c%s "$C")" 'BEGIN{printf "%.1f", b/1e6}') MB, $(du -k "$C" | cut -f1) KiB on disk), $F_EU frames; median wall (cpu)"
    m_eu=$(median_ms "${T_EU[@]}"); m_eu0=$(median_ms "${T_EU0[@]}")
    m_sat=$(median_ms "${T_SAT[@]}"); m_cr=$(median_ms "${T_CR[@]}"); m_cr0=$(median_ms "${T_CR0[@]}")
    c_eu=""; c_eu0=""; c_sat=""; c_cr=""; c_cr0=""
    if [ -n "$PERF" ]; then
        c_eu=$(median_ms "${T_EU_CPU[@]}"); c_eu0=$(median_ms "${T_EU0_CPU[@]}")
        c_sat=$(median_ms "${T_SAT_CPU[@]}"); c_cr=$(median_ms "${T_CR_CPU[@]}")
        c_cr0=$(median_ms "${T_CR0_CPU[@]}")
    fi
    printf '  %-44s %8s ms (%s ms)\n' "eu-stack -m -s -n 0 (modules, source lines)" "$m_eu" "${c_eu:--}"
    printf '  %-44s %8s ms (%s ms)\n' "eu-stack -n 0 (no modules, no source lines)" "$m_eu0" "${c_eu0:--}"
    printf '  %-44s %8s ms (%s ms)  %s of eu-stack -m -s, %s of eu-stack (cpu %s, %s)\n' \
        "satscope collect --exe" "$m_sat" "${c_sat:--}" "$(ratio "$m_sat" "$m_eu")" "$(ratio "$m_sat" "$m_eu0")" \
        "$(ratio "${c_sat:-0}" "${c_eu:-0}")" "$(ratio "${c_sat:-0}" "${c_eu0:-0}")"
    printf '  %-44s %8s ms (%s ms)  %s of eu-stack -m -s, %s of eu-stack (cpu %s, %s)\n' \
        "satscope crashes --exe" "$m_cr" "${c_cr:--}" "$(ratio "$m_cr" "$m_eu")" "$(ratio "$m_cr" "$m_eu0")" \
        "$(ratio "${c_cr:-0}" "${c_eu:-0}")" "$(ratio "${c_cr:-0}" "${c_eu0:-0}")"
    printf '  %-44s %8s ms (%s ms)  %s of eu-stack -m -s, %s of eu-stack (cpu %s, %s)\n' \
        "satscope crashes --no-source-lines --exe" "$m_cr0" "${c_cr0:--}" "$(ratio "$m_cr0" "$m_eu")" \
        "$(ratio "$m_cr0" "$m_eu0")" "$(ratio "${c_cr0:-0}" "${c_eu:-0}")" "$(ratio "${c_cr0:-0}" "${c_eu0:-0}")"
    echo "  (source lines: libdw inflates all of libc6-dbg's compressed DWARF on the first lookup,"
    echo "   for eu-stack -s as for satscope; eu-stack -n 0 names frames from .symtab only)"
elif [ -n "$SLAPD_CORE" ]; then
    echo
    echo "large core: skipped ($SLAPD_CORE absent; make it with --make-slapd-core DIR)"
fi
echo
echo "satscope-0: satscope collect of an empty log (its start-up and trace, no core)"
echo "worst satscope / eu-stack: $(printf '%.2fx' "$worst") wall (target: within 2x)"
[ -n "$PERF" ] && echo "worst satscope / eu-stack: $(printf '%.2fx' "$worst_cpu") cpu"
echo "load average while measured: $(cut -d' ' -f1-3 /proc/loadavg)"
