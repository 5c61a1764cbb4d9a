#!/bin/bash
# systemd_verify.sh BUILD_DIR: systemd accepts the nightly run's units as installed. The
# binary, its man page and the fleet component (cmake --install --component fleet) go into
# a DESTDIR with the host's targets and slices (what the units' dependencies resolve to), and
# `systemd-analyze verify --root=DESTDIR` must say nothing and exit 0: ExecStart= names an
# executable of that tree, every key is known and every value parses, Documentation='s
# man:satscope(1) is found (MANPATH: the tree's). Then the same check must refuse each of
# a few broken copies (a missing ExecStart, a misspelt key, a bad calendar, no man page), so
# that it cannot pass by checking nothing. 77 (skipped, said) without systemd-analyze.
build=$1
command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze not found (package systemd)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
root=$tmp/root
for component in Unspecified fleet; do
    DESTDIR=$root cmake --install "$build" --prefix /usr --component "$component" \
        >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install --component $component"; }
done
units=(/lib/systemd/system/satscope-nightly.service /lib/systemd/system/satscope-nightly.timer)
for u in "${units[@]}" /usr/lib/satscope/satscope-nightly /usr/share/man/man1/satscope.1; do
    [ -s "$root$u" ] || fail "$u not installed"
done
for f in /lib/systemd/system/*.target /lib/systemd/system/*.slice; do
    [ -e "$root$f" ] || cp "$f" "$root$f"
done

verify() { # quiet when the units are right; its words in $tmp/verify.txt
    (cd "$tmp" && MANPATH=$root/usr/share/man systemd-analyze verify --root="$root" "${units[@]}") \
        >"$tmp/verify.txt" 2>&1 && [ ! -s "$tmp/verify.txt" ]
}
verify || { cat "$tmp/verify.txt"; fail "systemd-analyze verify refuses the installed units"; }

# each breaking, on a copy, must be caught
unit=$root/lib/systemd/system/satscope-nightly
cp "$unit.service" "$tmp/service" && cp "$unit.timer" "$tmp/timer"
restore() { cp "$tmp/service" "$unit.service" && cp "$tmp/timer" "$unit.timer"; }
broken() { # WHAT: verify must refuse
    verify && fail "systemd-analyze verify accepts units with $1"
    restore
}
mv "$root/usr/lib/satscope/satscope-nightly" "$tmp/script"
broken "an ExecStart= that is not installed"
mv "$tmp/script" "$root/usr/lib/satscope/satscope-nightly"
sed -i 's/^ProtectSystem=/ProtectSytem=/' "$unit.service"
broken "a misspelt key (ProtectSytem=)"
sed -i 's/^OnCalendar=.*/OnCalendar=*-*-* 25:00:00/' "$unit.timer"
broken "a calendar that does not parse"
mv "$root/usr/share/man/man1/satscope.1" "$tmp/man"
broken "Documentation=man:satscope(1) and no man page"
mv "$tmp/man" "$root/usr/share/man/man1/satscope.1"
verify || { cat "$tmp/verify.txt"; fail "the restored units are refused"; }
echo "systemd-analyze verify accepts satscope-nightly.service and .timer as installed, and refuses 4 breakings"
