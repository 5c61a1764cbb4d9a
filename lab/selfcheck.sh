#!/bin/bash
# lab/selfcheck.sh SATLAB OUTDIR - the lab's ctest: runs satlab for two kinds
# (one of them with LDAPS storms) with one seed and 12 simulated minutes, then
# `satlab --check` on each: the logs' line counts against the run's own counts
# and Little's law. Fails on the first check that fails.
set -euo pipefail
SATLAB=$1; OUT=$2
rm -rf "$OUT"; mkdir -p "$OUT"
for kind in unindexed_batch session_flush; do
    "$SATLAB" --kind $kind --seed 3 --minutes 12 --out "$OUT/$kind"
    "$SATLAB" --check "$OUT/$kind"
    # the capture holds a ClientHello per LDAPS connection (pcap: 24-byte header)
    test "$(stat -c %s "$OUT/$kind/handshakes.pcap")" -gt 24
done
echo "lab self-checks passed"
