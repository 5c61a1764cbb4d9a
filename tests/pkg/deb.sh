#!/bin/bash
# deb.sh BUILD_DIR VERSION: the Debian package cpack makes (packaging/CMakeLists.txt).
#  - its control: package satscope, version VERSION-1, and Depends: the package of every
#    shared library the binary needs (each NEEDED entry resolved by ldd, its owner by
#    dpkg -S), adduser for postinst, and no build-only package (-dev, compilers, dpkg-dev);
#  - its files: the binary (stripped, running), the man page, the completion, the units,
#    the script, the settings as a conffile, the ClickHouse DDL (the binary's export --ddl),
#    the docs; the maintainer scripts parse;
#  - as root, with SAT_TEST_INSTALL_DEB=1 or in CI (CI=true) only: apt-get installs it,
#    /usr/bin/satscope --version runs, man -w finds satscope(1), the user satscope exists,
#    the installed units verify, the timer is enabled; then it is purged, and the machine is
#    as before (packages, the user, the files, the timer's link).
# A missing tool skips (77), saying which.
build=$1 version=$2
for t in cpack dpkg-deb dpkg-shlibdeps ldd; do
    command -v "$t" >/dev/null || { echo "SKIP: $t not found (packages cmake, dpkg-dev, libc-bin)"; exit 77; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
(cd "$build" && cpack -G DEB -B "$tmp/out") >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; fail "cpack -G DEB"; }
arch=$(dpkg --print-architecture)
deb=$tmp/out/satscope_${version}-1_${arch}.deb
[ -s "$deb" ] || { ls "$tmp/out"; fail "no $deb"; }

# ---- control
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = satscope ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version-1" ] || fail "Version: $(field Version), not $version-1"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture: $(field Architecture)"
depends=$(field Depends)
dep_names=$(echo "$depends" | tr ',' '\n' | sed -E 's/^ *//; s/[ (].*//')
has_dep() { echo "$dep_names" | grep -qx -- "$1"; }
dpkg-deb -x "$deb" "$tmp/x"
bin=$tmp/x/usr/bin/satscope
[ -x "$bin" ] || fail "no /usr/bin/satscope in the package"
needed=$(readelf -d "$bin" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p')
[ -n "$needed" ] || fail "readelf finds no NEEDED library in the binary"
for lib in $needed; do
    path=$(ldd "$bin" | awk -v l="$lib" '$1 == l { print $3 }')
    [ -n "$path" ] || fail "ldd does not resolve $lib"
    owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null)
    owner=${owner%%:*}
    [ -n "$owner" ] || fail "no package owns $path ($lib)"
    has_dep "$owner" || fail "Depends lacks $owner, whose $lib the binary needs: $depends"
done
for p in adduser libpcap0.8 libzstd1 libcairo2 libpcre2-8-0 libdw1 libelf1 libsodium23; do
    has_dep "$p" || fail "Depends lacks $p: $depends"
done
for p in $dep_names; do
    case $p in
    *-dev | dpkg-dev | cmake | gcc* | clang* | build-essential | pkg-config | ccache)
        fail "Depends names the build-only package $p" ;;
    esac
done

# ---- files
dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' >"$tmp/files"
for f in /usr/bin/satscope /usr/share/man/man1/satscope.1 \
    /usr/share/bash-completion/completions/satscope \
    /lib/systemd/system/satscope-nightly.service /lib/systemd/system/satscope-nightly.timer \
    /usr/lib/satscope/satscope-nightly /etc/satscope/nightly.conf \
    /usr/share/satscope/clickhouse.sql /usr/share/doc/satscope/fleet.md \
    /usr/share/doc/satscope/digest.md /usr/share/doc/satscope/clickhouse.md; do
    grep -qx -- "$f" "$tmp/files" || fail "the package lacks $f"
done
# what the man page's FILES lists is in the package (the partials aside: made at run time)
man_files=$(sed -n '/^\.SH FILES/,/^\.SH /p' "$tmp/x/usr/share/man/man1/satscope.1" |
    sed -n 's/\\-/-/g; s/^\\fB\(\/[^\\]*\)\\fR$/\1/p')
[ "$(echo "$man_files" | wc -w)" -ge 6 ] || fail "satscope(1)'s FILES lists too few paths: $man_files"
for f in $man_files; do
    case $f in /var/*) continue ;; esac
    grep -qx -- "${f%/}" "$tmp/files" || grep -qx -- "$f" "$tmp/files" || fail "satscope(1)'s FILES names $f, not in the package"
done
[ -x "$tmp/x/usr/lib/satscope/satscope-nightly" ] || fail "the script is not executable"
readelf -S "$bin" | grep -q '\.symtab' && fail "the binary is not stripped"
"$bin" --version | grep -qx "satscope $version" || fail "the packaged binary's --version: $("$bin" --version)"
"$bin" export --ddl | cmp -s - "$tmp/x/usr/share/satscope/clickhouse.sql" || fail "clickhouse.sql is not export --ddl's"
dpkg-deb -e "$deb" "$tmp/ctl"
grep -qx /etc/satscope/nightly.conf "$tmp/ctl/conffiles" || fail "nightly.conf is not a conffile"
for s in postinst prerm postrm; do
    [ -x "$tmp/ctl/$s" ] || fail "no executable $s"
    sh -n "$tmp/ctl/$s" || fail "$s does not parse"
done
echo "package: $(basename "$deb"), $(wc -l <"$tmp/files") entries; Depends: $depends"

# ---- installed, then purged (root, and asked for)
if [ "$(id -u)" != 0 ] || { [ "${SAT_TEST_INSTALL_DEB:-}" != 1 ] && [ "${CI:-}" != true ]; }; then
    echo "install check skipped: it runs as root with SAT_TEST_INSTALL_DEB=1 or CI=true"
    exit 0
fi
command -v apt-get >/dev/null || { echo "SKIP: install check: no apt-get"; exit 77; }
dpkg-query -W satscope >/dev/null 2>&1 && { echo "SKIP: install check: satscope is installed here already"; exit 77; }
getent passwd satscope >/dev/null && { echo "SKIP: install check: a user satscope exists already"; exit 77; }
wants=/etc/systemd/system/timers.target.wants/satscope-nightly.timer
for d in /etc/satscope /usr/lib/satscope /usr/share/satscope /var/lib/satscope "$wants"; do
    [ -e "$d" ] || [ -L "$d" ] && { echo "SKIP: install check: $d exists already"; exit 77; }
done
installed() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 ~ /^.i/ { print $2 }' | sort; }
installed >"$tmp/before"
cleanup() {
    apt-get purge -y -qq satscope >/dev/null 2>&1
    installed >"$tmp/after"
    # packages apt pulled in for it (none where it was built): purged too
    extra=$(comm -13 "$tmp/before" "$tmp/after")
    [ -z "$extra" ] || apt-get purge -y -qq $extra >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
cp "$deb" "$tmp/satscope.deb"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tmp/satscope.deb" >"$tmp/apt.log" 2>&1 ||
    { cat "$tmp/apt.log"; fail "apt-get install ./$(basename "$deb")"; }
/usr/bin/satscope --version | grep -qx "satscope $version" || fail "installed: /usr/bin/satscope --version"
[ "$(man -w satscope 2>&1)" = /usr/share/man/man1/satscope.1 ] || fail "man -w satscope: $(man -w satscope 2>&1)"
getent passwd satscope >/dev/null || fail "postinst made no user satscope"
dpkg-query -W -f='${Conffiles}\n' satscope | grep -q '/etc/satscope/nightly.conf' || fail "dpkg has no conffile nightly.conf"
if command -v systemd-analyze >/dev/null; then
    out=$(cd "$tmp" && systemd-analyze verify /lib/systemd/system/satscope-nightly.service \
        /lib/systemd/system/satscope-nightly.timer 2>&1) && [ -z "$out" ] || fail "the installed units: $out"
fi
# enabled as the administrator would (systemctl works on the links without a running systemd)
if command -v systemctl >/dev/null; then
    systemctl enable satscope-nightly.timer >/dev/null 2>&1 && [ -L "$wants" ] ||
        fail "systemctl enable satscope-nightly.timer made no $wants"
fi
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq satscope >"$tmp/apt.log" 2>&1 ||
    { cat "$tmp/apt.log"; fail "apt-get purge satscope"; }
dpkg-query -W satscope >/dev/null 2>&1 && fail "satscope still known to dpkg after purge"
getent passwd satscope >/dev/null && fail "the user satscope outlives the purge"
getent group satscope >/dev/null && fail "the group satscope outlives the purge"
for f in /usr/bin/satscope /etc/satscope /usr/lib/satscope /usr/share/satscope /usr/share/doc/satscope \
    /lib/systemd/system/satscope-nightly.service "$wants"; do
    [ -e "$f" ] || [ -L "$f" ] && fail "$f outlives the purge"
done
installed >"$tmp/after"
diff "$tmp/before" "$tmp/after" >/dev/null || fail "installed packages differ: $(diff "$tmp/before" "$tmp/after")"
echo "installed with apt-get, ran, man -w found satscope(1), purged: the machine as before"
