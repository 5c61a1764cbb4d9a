#!/usr/bin/env python3
# export_formats.py SATSCOPE SRC - `satscope export --as tsv|rowbinary` write the same rows as
# `--as jsonl`, in the column order and types of `export --ddl`'s CREATE TABLE: the RowBinary
# decoded by the DDL's types (little-endian integers of their width, Nullable strings behind a
# 0/1 byte, LEB128 lengths), the TabSeparated unescaped (\N absent), each row equal to the JSON
# line's columns, for every table of a 389 log with TLS lines, an nginx log, a capture and a core.
import json
import re
import struct
import subprocess
import sys

WIDTH = {"Int64": ("<q", 8), "Int32": ("<i", 4), "UInt16": ("<H", 2), "UInt8": ("<B", 1)}


def ddl_columns(satscope, table):
    out = subprocess.run([satscope, "export", "--ddl", "--table", table], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    cols = re.findall(r"^    (\w+) ([\w()]+),?$", out, re.M)
    return [(n, t) for n, t in cols if "DEFAULT" not in t and n != "day_time"]


def decode_rowbinary(data, cols):
    rows, i = [], 0
    while i < len(data):
        row = {}
        for name, t in cols:
            if t == "Nullable(String)":
                null = data[i]
                i += 1
                if null:
                    continue
                n, shift = 0, 0
                while True:
                    b = data[i]
                    i += 1
                    n |= (b & 0x7F) << shift
                    shift += 7
                    if not b & 0x80:
                        break
                row[name] = data[i:i + n].decode("utf-8")
                i += n
            else:
                fmt, w = WIDTH[t]
                row[name] = struct.unpack(fmt, data[i:i + w])[0]
                i += w
        rows.append(row)
    return rows


def unescape_tsv(field):
    if field == "\\N":
        return None
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and i + 1 < len(field):
            out.append({"t": "\t", "n": "\n", "r": "\r", "b": "\b", "f": "\f", "0": "\0",
                        "\\": "\\"}[field[i + 1]])
            i += 2
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def main():
    satscope, src = sys.argv[1], sys.argv[2]
    inputs = [f"{src}/fixtures/incident/access", f"{src}/fixtures/http-nginx/access.log.gz",
              f"{src}/fixtures/incident/tls-storm-incident.pcap",
              "--exe", f"{src}/fixtures/cores/bin/segv_chain-O0",
              f"{src}/fixtures/cores/segv_chain/segv_chain-O0-kernel.core.gz"]
    errs, checked = [], 0

    def export(*args, text=True):
        r = subprocess.run([satscope, "export", "-q", *args, *inputs], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=text)
        if r.returncode not in (0, 1):
            sys.exit(f"FAIL: export {' '.join(args)}: exit {r.returncode}: {r.stderr}")
        return r.stdout

    lines = [json.loads(l) for l in export().splitlines()]
    tables = sorted({l["table"] for l in lines})
    for t in tables:
        want = [{k: v for k, v in l.items() if k != "table"} for l in lines if l["table"] == t]
        cols = ddl_columns(satscope, t)
        got_rb = decode_rowbinary(export("--as", "rowbinary", "--table", t, text=False), cols)
        got_tsv = []
        for line in export("--as", "tsv", "--table", t).split("\n")[:-1]:
            row = {}
            for (name, typ), f in zip(cols, line.split("\t")):
                v = unescape_tsv(f)
                if v is not None:
                    row[name] = v if typ == "Nullable(String)" else int(v)
            got_tsv.append(row)
        for form, got in (("rowbinary", got_rb), ("tsv", got_tsv)):
            if got != want:
                bad = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                           min(len(got), len(want)))
                errs.append(f"{t} {form}: {len(got)} rows, jsonl {len(want)}; row {bad}: "
                            f"{got[bad] if bad < len(got) else None} != "
                            f"{want[bad] if bad < len(want) else None}")
        checked += len(want)
        print(f"{t}: {len(want)} rows alike in jsonl, tsv and rowbinary ({len(cols)} columns)")
    if len(tables) < 5:
        errs.append(f"only tables {tables}: the inputs should give at least five")
    for e in errs:
        print("FAIL: " + e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
