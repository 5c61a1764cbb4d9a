#!/usr/bin/env python3
"""gen_partial_corpus.py SATSCOPE SRC OUT_DIR - the seed corpus of fuzz_partial: partials of
small real inputs (a 389 log, an nginx log, a TLS capture, a gdb backtrace: each analyzer's
state), and variants whose damage gets past the checksums into the states (a byte of the
state changed, the state cut short, both with the block's CRC-32s made right again, as only
a writer could), besides plain damage (a byte flipped, the file cut). Deterministic."""
import os
import struct
import subprocess
import sys
import zlib

sat, src, out = sys.argv[1:4]
inputs = {"access-2.3.1": "fixtures/389ds/access-2.3.1.log",
          "nginx": "fixtures/http-nginx/access.log.gz",
          "tls12-full": "fixtures/tls/tls12-full.pcap",
          "gdb-crash": "fixtures/crashtext/gdb-core-threads.txt"}
os.makedirs(out, exist_ok=True)


def zstd(data, decompress):
    args = ["zstd", "-q", "-c"] + (["-d"] if decompress else ["-3", "--no-check"])
    return subprocess.run(args, input=data, stdout=subprocess.PIPE, check=True).stdout


def block(meta, state):
    stored = zstd(state, False)
    h = b"SATD" + struct.pack("<IQQI", len(meta), len(state), len(stored),
                              zlib.crc32(stored, zlib.crc32(meta)))
    return h + struct.pack("<I", zlib.crc32(h)) + meta + stored


for name, rel in inputs.items():
    path = os.path.join(out, name + ".satp")
    subprocess.run([sat, "partial", "-q", os.path.join(src, rel), "-o", path], check=True)
    data = open(path, "rb").read()
    head, pos = data[:20], 20
    meta_len, state_len, stored_len = struct.unpack_from("<IQQ", data, pos + 4)
    meta = data[pos + 32:pos + 32 + meta_len]
    state = zstd(data[pos + 32 + meta_len:pos + 32 + meta_len + stored_len], True)
    tail = data[pos + 32 + meta_len + stored_len:]
    if name != "access-2.3.1":
        continue
    for pct in (10, 50, 90):  # a byte of the state changed, the checksums right
        s = bytearray(state)
        s[len(s) * pct // 100] ^= 0x5A
        open(os.path.join(out, "%s-state-byte%d.satp" % (name, pct)), "wb").write(
            head + block(meta, bytes(s)) + tail)
    open(os.path.join(out, name + "-state-cut.satp"), "wb").write(
        head + block(meta, state[:len(state) // 2]) + tail)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF
    open(os.path.join(out, name + "-flipped.satp"), "wb").write(bytes(flipped))
    open(os.path.join(out, name + "-cut.satp"), "wb").write(data[:len(data) * 2 // 3])
