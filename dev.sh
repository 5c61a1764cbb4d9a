#!/usr/bin/env bash
# dev.sh - set up, build and run satscope on a Debian 12 machine (as root).
#   ./dev.sh demo   install what is missing, build, write the post-mortem of the bundled
#                   incident (logs, TLS capture, a core) as HTML and PDF, a nightly digest
#                   as PDF, and the README's gallery (build/gallery/)
#   ./dev.sh test   install what is missing, build with gcc and with clang
#                   (ASan+UBSan, fuzz targets), run every test in both builds
#   ./dev.sh build  install what is missing and build (build/cli/satscope)
#   ./dev.sh deb    install what is missing, build, and make the Debian package
#                   (build/satscope_VERSION-1_ARCH.deb: docs/fleet.md)
# Every dependency the project needs is listed here: nothing is assumed to be
# installed by hand.
set -euo pipefail
cd "$(dirname "$0")"

# Build: compilers, cmake; libraries: DESIGN.md's list (those this stage uses);
# tools: compressors for tests, GNU time for bench/.
PACKAGES=(build-essential clang cmake pkg-config
          libzstd-dev zlib1g-dev libbz2-dev liblzma-dev libpcre2-dev libpcap-dev
          libdw-dev libelf-dev
          libsodium-dev  # keyed BLAKE2b of the pseudonymiser (collect/anonymize.c)
          libcurl4-openssl-dev  # export --clickhouse: ClickHouse's HTTP interface (cli/cli_clickhouse.c)
          zstd gzip bzip2 xz-utils time bc tcpdump elfutils
          python3   # tests/cli/json_schema.py (ctest cli_json_schema)
          python3-prometheus-client  # Prometheus' own parser of report --prometheus (ctest
                                     # cli_prometheus_textfile)
          libcairo2-dev fonts-dejavu-core  # charts (report/chart*.c): cairo, DejaVu Sans
          chromium poppler-utils  # the report's HTML in a browser, its PDF's text (ctest cli_report_*),
                                  # the gallery's pages (demo: pdftoppm)
          clickhouse-server clickhouse-client  # export's rows in a real ClickHouse (ctest
                                  # cli_clickhouse_export: a server of its own on 127.0.0.1, stopped after)
          dpkg-dev  # the .deb's Depends from the binary's libraries (cpack runs dpkg-shlibdeps)
          systemd shellcheck)  # the nightly units, systemd-analyze verify (ctest pkg_systemd_verify);
                               # its script, shellcheck -s sh (ctest pkg_shellcheck)
# Only to remake fixtures (not needed by the build or the tests):
#   python3           (fixtures/tls/make-fixtures.sh: split-relay.py for tls-split)
#   slapd ldap-utils  (fixtures/slapd, fixtures/ldapwire/make-fixture.sh,
#                      fixtures/storm/make-captures.sh)
#   gdb libc6-dbg util-linux  (fixtures/cores/make-cores.sh; libc6-dbg also gives glibc's
#                     internal frames the names that fixtures/cores/*/*.expected list)
#   gdb               (fixtures/crashtext/make-fixture.sh)
#   util-linux elfutils (fixtures/cores/make-extra-cores.sh: setarch, dmesg, eu-readelf)
#   slapd ldap-utils elfutils  (bench/make_slapd_core.sh, the large core of bench/run_cores.sh)
#   wireshark-common  (fixtures/adversarial: editcap, mergecap)
#   slapd ldap-utils python3-ldap rsyslog faketime util-linux zstd
#                     (fixtures/slapd-load/make-fixture.sh: concurrent clients, the
#                      syslog copy, the run across midnight of fixtures/slapd-midnight)
#   slapd ldap-utils python3-ldap rsyslog util-linux zstd  (fixtures/slapd-storm/make-fixture.sh)
#   389-ds-base python3-lib389 python3-ldap zstd  (fixtures/389ds-load/make-fixture.sh)
#   nginx httperf openssl tshark iproute2  (fixtures/tls-overload/make-fixture.sh)
#   nginx curl httperf openssl tcpdump iproute2 zstd  (fixtures/http-nginx/make-fixture.sh)
#   apache2 curl openssl tcpdump iproute2 zstd  (fixtures/http-apache/make-fixture.sh)
#   tomcat10 openssl curl httperf  (fixtures/http-tomcat/make-fixture.sh)
#   tcpdump openssl iproute2 wireshark-common  (fixtures/pcapng/make-fixtures.sh: editcap,
#                     mergecap; the tests read the files it made, never the tools)

install_missing() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        echo "dev.sh: installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
}

JOBS=$(nproc 2>/dev/null || echo 2)

build_release() {
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSAT_WERROR=ON >/dev/null
    cmake --build build -j "$JOBS"
}

build_sanitize() {
    CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSAT_SANITIZE=ON \
        -DSAT_FUZZ=ON -DSAT_WERROR=ON >/dev/null
    cmake --build build-asan -j "$JOBS"
}

case "${1:-}" in
demo)
    install_missing
    build_release
    # The post-mortem of the bundled incident: its two access logs (a rotated set), its TLS
    # capture (fixtures/incident/README.md) and a real core of fixtures/cores, dated inside
    # the storm (a core holds no clock: --crash-time says when). One pass over them feeds
    # every analyzer; the report says what happened, when, and the likely chain.
    INCIDENT=(fixtures/incident/access fixtures/incident/access.20250609-133000.gz
              fixtures/incident/tls-storm-incident.pcap
              --crash-time 2025-06-09T14:24:10Z --exe fixtures/cores/bin/segv_chain-O0
              fixtures/cores/segv_chain/segv_chain-O0-kernel.core.gz)
    build/cli/satscope report -q "${INCIDENT[@]}" -o build/postmortem.html
    build/cli/satscope report -q "${INCIDENT[@]}" -o build/postmortem.pdf
    # its findings as text (the whole report: -o - or -o x.txt)
    build/cli/satscope report -q "${INCIDENT[@]}" -o - | sed '/^The inputs at a glance$/,$d'
    # The README's gallery: the timeline, the post-mortem's first page, and the first page of
    # the nightly digest of fixtures/digest (two servers' day against three baseline days;
    # tests/golden/digest.list digest_fleet). docs/img/ holds copies (docs/img/README.md).
    DIGEST=(fixtures/digest/ldap01/access-20261103.zst fixtures/digest/ldap02/access.zst
            --baseline fixtures/digest/ldap01/ldap01-20261101.sat
            --baseline fixtures/digest/ldap01/access-20261102.zst
            --baseline fixtures/digest/ldap02/access-20261101.zst)
    build/cli/satscope report --kind digest -q "${DIGEST[@]}" -o build/digest.pdf
    mkdir -p build/gallery
    build/cli/satscope report -q "${INCIDENT[@]}" -o build/gallery/incident-timeline.png
    pdftoppm -r 70 -png -f 1 -l 1 -singlefile build/postmortem.pdf build/gallery/postmortem-page1
    pdftoppm -r 70 -png -f 1 -l 1 -singlefile build/digest.pdf build/gallery/digest-page1
    echo "the post-mortem:  $PWD/build/postmortem.html"
    echo "            and   $PWD/build/postmortem.pdf"
    echo "a nightly digest: $PWD/build/digest.pdf"
    echo "the README's gallery (docs/img/ holds copies):"
    for g in incident-timeline postmortem-page1 digest-page1; do
        echo "                  $PWD/build/gallery/$g.png"
    done
    echo "each analyzer alone: satscope etime|storms|handshakes|crashes|saturation|cachesize|timeline INPUT..."
    ;;
build)
    install_missing
    build_release
    ;;
deb)
    install_missing
    build_release
    (cd build && cpack -G DEB)
    ls "$PWD"/build/satscope_*.deb
    ;;
test)
    install_missing
    build_release
    echo "== tests, gcc RelWithDebInfo build"
    (cd build && ctest --output-on-failure -j "$JOBS")
    build_sanitize
    echo "== tests, clang ASan+UBSan build"
    (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --output-on-failure -j "$JOBS")
    ;;
*)
    echo "usage: ./dev.sh demo|test|build|deb" >&2
    exit 2
    ;;
esac
