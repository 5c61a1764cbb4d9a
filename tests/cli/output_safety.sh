#!/bin/bash
# output_safety.sh SATSCOPE SRC - every output of every command through the safe writer
# (include/satscope/safe_out.h), as a matrix: for each command and form (collect's trace, the
# report's five forms, the chart's four, etime's --csv-dir) and each hostile or failing target:
#   symlink  a symlink planted at the output: refused (exit 2), the file it points to untouched
#   fifo     a FIFO at the output: refused at once (exit 2), never opened (no hang)
#   input    the output names one of the inputs: refused (exit 2), the input untouched
#   mode     from a 0600 input the output is 0600; from a 0644 one 0640 (umask 022); a 0600
#            file it replaces stays 0600
#   full     a full disk (a 64 KiB tmpfs, when this machine lets us mount one): an error
#            (exit 3), nothing under the final name, no temporary file left
#   stdout   "-" (and /dev/stdout for the report) writes to standard output
# Prints one line per cell and exits 1 if any cell fails.
set -u
SAT=$1
SRC=$2
LOG=$SRC/fixtures/389ds/access-2.3.1.log
work=$(mktemp -d)
trap 'umount "$work/full" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
umask 022
T=${SAT_TEST_TIMEOUT:-30} # seconds a command may take on the small fixture (a FIFO would block for ever)
fails=0
cells=0

say() { # cell verdict detail
    cells=$((cells + 1))
    printf '%-34s %-4s %s\n' "$1" "$2" "$3"
    [ "$2" = ok ] || fails=$((fails + 1))
}

# run FORM TARGET INPUT: the command writing FORM to TARGET from INPUT; its exit code in $rc
run() {
    local form=$1 target=$2 input=$3
    case $form in
    trace) timeout $T "$SAT" collect -q "$input" -o "$target" ;;
    html | pdf | txt | json | eml) timeout $T "$SAT" report -q "$input" -o "$target" ;;
    png | svg | cpdf | cjson) timeout $T "$SAT" chart timeline -q "$input" -o "$target" ;;
    csvdir) timeout $T "$SAT" etime -q --csv --csv-dir "$target" "$input" ;;
    esac
}
ext_of() {
    case $1 in
    trace) echo sat ;; cpdf) echo pdf ;; cjson) echo json ;; csvdir) echo d ;; *) echo "$1" ;;
    esac
}

FORMS="trace html pdf txt json eml png svg cpdf cjson csvdir"
cp "$LOG" in.log
chmod 644 in.log

for form in $FORMS; do
    ext=$(ext_of "$form")

    # symlink: planted at the output (for --csv-dir: the directory itself)
    echo keep >victim
    ln -sf victim "out.$ext"
    run "$form" "out.$ext" in.log >/dev/null 2>err; rc=$?
    if [ $rc = 2 ] && [ "$(cat victim)" = keep ] && [ -L "out.$ext" ] && grep -q "symbolic link" err; then
        say "$form symlink" ok "exit 2: $(head -c 90 err)"
    else
        say "$form symlink" FAIL "exit $rc, victim: $(head -c 20 victim), $(head -c 120 err)"
    fi
    rm -f "out.$ext" victim

    # fifo: refused without opening it (a writer would block for ever)
    if [ "$form" != csvdir ]; then
        mkfifo "out.$ext"
        run "$form" "out.$ext" in.log >/dev/null 2>err; rc=$?
        if [ $rc = 2 ] && grep -q "FIFO" err; then
            say "$form fifo" ok "exit 2: $(head -c 90 err)"
        else
            say "$form fifo" FAIL "exit $rc, $(head -c 120 err)"
        fi
        rm -f "out.$ext"
    fi

    # input: the output names one of the inputs
    if [ "$form" != csvdir ]; then
        cp in.log "same.$ext"
        sum=$(md5sum <"same.$ext")
        run "$form" "same.$ext" "same.$ext" >/dev/null 2>err; rc=$?
        if [ $rc = 2 ] && [ "$(md5sum <"same.$ext")" = "$sum" ] && grep -q "one of the inputs" err; then
            say "$form input" ok "exit 2: $(head -c 90 err)"
        else
            say "$form input" FAIL "exit $rc, $(head -c 120 err)"
        fi
        rm -f "same.$ext"
    fi

    # mode: private input, readable input, a 0600 file replaced
    chmod 600 in.log
    run "$form" "p.$ext" in.log >/dev/null 2>&1; rc=$?
    if [ "$form" = csvdir ]; then m=$(stat -c %a "p.$ext"/*.csv 2>/dev/null | sort -u | tr '\n' ' '); else m=$(stat -c %a "p.$ext" 2>/dev/null); fi
    chmod 644 in.log
    run "$form" "r.$ext" in.log >/dev/null 2>&1
    if [ "$form" = csvdir ]; then r=$(stat -c %a "r.$ext"/*.csv 2>/dev/null | sort -u | tr '\n' ' '); else r=$(stat -c %a "r.$ext" 2>/dev/null); fi
    k=600
    if [ "$form" != csvdir ]; then
        echo old >"k.$ext" && chmod 600 "k.$ext"
        run "$form" "k.$ext" in.log >/dev/null 2>&1
        k=$(stat -c %a "k.$ext")
    fi
    if [ "${m% }" = 600 ] && [ "${r% }" = 640 ] && [ "$k" = 600 ]; then
        say "$form mode" ok "private input -> $m, readable -> $r, a 0600 file replaced -> $k"
    else
        say "$form mode" FAIL "private input -> '$m' (600), readable -> '$r' (640), replaced 0600 -> '$k'"
    fi
    rm -rf "p.$ext" "r.$ext" "k.$ext"
done

# full: a 64 KiB tmpfs (root, and a kernel that lets us)
mkdir full
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
    for form in trace html pdf png csvdir; do
        ext=$(ext_of "$form")
        dd if=/dev/zero of=full/filler bs=1k status=none 2>/dev/null # until the disk is full
        run "$form" "full/out.$ext" in.log >/dev/null 2>err; rc=$?
        left=$(ls -A full | grep -v '^filler$' | tr '\n' ' ')
        if [ "$form" = csvdir ]; then left=$(ls -A "full/out.$ext" 2>/dev/null | tr '\n' ' '); fi
        if [ $rc != 0 ] && [ -z "$left" ] || { [ "$form" = csvdir ] && [ $rc != 0 ] && [ -z "$left" ]; }; then
            say "$form full" ok "exit $rc, nothing left: $(head -c 80 err)"
        else
            say "$form full" FAIL "exit $rc, left: '$left' $(head -c 100 err)"
        fi
        rm -rf full/*
    done
    umount full
else
    echo "full disk cases skipped: cannot mount a tmpfs here (not root, or not allowed)"
fi

# stdout: "-" (the report's "-.EXT": the form by its extension) and collect's /dev/stdout
n=$("$SAT" report -q in.log -o - 2>/dev/null | wc -c)
n2=$("$SAT" report -q in.log -o -.json 2>/dev/null | wc -c)
n3=$("$SAT" collect -q in.log -o - 2>/dev/null | wc -c)
n4=$("$SAT" collect -q in.log -o /dev/stdout 2>/dev/null | wc -c)
if [ "$n" -gt 100 ] && [ "$n2" -gt 100 ] && [ "$n3" -gt 100 ] && [ "$n4" = "$n3" ]; then
    say "stdout" ok "report -o -: $n bytes, -o -.json: $n2, collect -o -: $n3, -o /dev/stdout: $n4"
else
    say "stdout" FAIL "report -o -: $n, -o -.json: $n2, collect -o -: $n3, -o /dev/stdout: $n4"
fi

echo "$cells cells, $fails failed"
[ $fails = 0 ]
