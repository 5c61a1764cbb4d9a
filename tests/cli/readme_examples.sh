#!/bin/bash
# readme_examples.sh SATSCOPE SRCDIR: the README's examples are the commands' real output.
#
# An example is a fenced block (```) whose first line is `$ satscope ...`; a line ending in
# ` \` continues the command on the next one. The lines after the command are output lines
# as shown: each example is run from SRCDIR (satscope = the built binary SATSCOPE, standard
# output only) and every shown line must be in the output, in the same order; lines shown
# one after the other are one after the other in the output, a `...` line stands for lines
# left out, and an example that does not start with `...` starts at the output's first line.
# Trailing blanks do not count. A failure names the command and the first line not found:
# the line of the README to refresh.
#
# The man page's EXAMPLES (satscope --man, cli/cli_options.c) give the same commands in the
# same order: the same satscope command and the same options, on a server's own files.
bin=$1 src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$bin" ] || fail "no binary $bin"
readme=$src/README.md
[ -s "$readme" ] || fail "no $readme"

# The examples, one per file pair: N.cmd (the command, continuations joined) and N.shown.
awk -v dir="$tmp" '
    /^```/ {
        if (!infence) { infence = 1; first = 1; next }
        infence = 0; incmd = 0; next
    }
    !infence { next }
    first {
        first = 0
        if ($0 !~ /^\$ satscope /) { infence = 2; next }
        n++; cmd = dir "/" n ".cmd"; shown = dir "/" n ".shown"
        printf "" > shown
        incmd = 1; line = substr($0, 3)
    }
    infence != 1 { next }
    incmd {
        if (line == "") line = $0
        if (line ~ / \\$/) { printf "%s\n", substr(line, 1, length(line) - 2) > cmd; line = ""; next }
        printf "%s\n", line > cmd; close(cmd); incmd = 0; line = ""; next
    }
    { sub(/[ \t]+$/, ""); print > shown }
    END { print n + 0 > (dir "/count") }
' "$readme"
count=$(cat "$tmp/count")
[ "$count" -ge 1 ] || fail "README.md holds no example (a fenced block starting with '\$ satscope ')"

# run_example N: run it, then match its shown lines against the output.
run_example() {
    local n=$1 cmd rc
    cmd=$(sed 's/^ *//' "$tmp/$n.cmd" | tr '\n' ' ')
    (cd "$src" && satscope() { "$bin" "$@"; } && eval "$cmd") >"$tmp/$n.out" 2>"$tmp/$n.err"
    rc=$?
    if [ "$rc" -ge 2 ]; then
        head -5 "$tmp/$n.err"
        fail "README example $n exits $rc: \$ $cmd"
    fi
    sed 's/[ \t]*$//' "$tmp/$n.out" >"$tmp/$n.trim"
    # Each run of shown lines between `...` lines is a run of the output, after the last one.
    missing=$(awk -v shownfile="$tmp/$n.shown" '
        { out[NR] = $0 }
        END {
            m = NR; pos = 1; anchored = 1; k = 0
            while ((getline l < shownfile) > 0) {
                if (l == "...") { if (k) { if (!match_run()) exit } ; k = 0; anchored = 0; continue }
                run[++k] = l
            }
            if (k) match_run()
        }
        function match_run(    p, j, best, last) {
            best = 0
            last = anchored ? pos : m
            for (p = pos; p <= last; p++) {
                for (j = 0; j < k && p + j <= m && out[p + j] == run[j + 1]; j++);
                if (j == k) { pos = p + k; anchored = 0; return 1 }
                if (j > best) best = j
            }
            print "  first missing line: " run[best + 1]
            if (best) print "  (it should follow:  " run[best] ")"
            return 0
        }' "$tmp/$n.trim")
    if [ -n "$missing" ]; then
        echo "README example $n: \$ $cmd"
        echo "$missing"
        echo "  the command's output:"
        sed 's/^/    | /' "$tmp/$n.out" | head -60
        fail "README example $n no longer matches its command's output: refresh README.md"
    fi
}
for ((i = 1; i <= count; i++)); do run_example "$i"; done

# The man page's EXAMPLES: the same commands and options, in the same order.
shape() { # a command line -> its satscope command and its sorted option names
    tr -s ' ' '\n' | awk 'NR == 2 { print; next } /^-./ { print }' |
        { read -r c; echo "$c $(sort -u | tr '\n' ' ')"; }
}
"$bin" --man | awk '/^\.SH EXAMPLES/ { f = 1; next } /^\.SH/ { f = 0 } f' |
    sed -e 's/\\-/-/g' -e 's/\\e/\\/g' >"$tmp/man.examples"
awk '/^satscope / { line = $0; while (line ~ / \\$/ && (getline next_line) > 0)
                        line = substr(line, 1, length(line) - 2) " " next_line
                    gsub(/  +/, " ", line); print line }' "$tmp/man.examples" >"$tmp/man.cmds"
[ "$(wc -l <"$tmp/man.cmds")" -eq "$count" ] ||
    fail "satscope --man's EXAMPLES give $(wc -l <"$tmp/man.cmds") commands, the README $count"
for ((i = 1; i <= count; i++)); do
    want=$(sed 's/^ *//' "$tmp/$i.cmd" | tr '\n' ' ' | shape)
    got=$(sed -n "${i}p" "$tmp/man.cmds" | shape)
    [ "$want" = "$got" ] ||
        fail "the man page's example $i is '$got', the README's '$want' (cli/cli_options.c man_examples)"
done
echo "README.md: $count examples match their commands' output; satscope(1) EXAMPLES the same commands"
