#!/usr/bin/env python3
# sparkline_figures.py SATSCOPE SRC [GEN389] - a figure a report shows is the figure the table
# it comes from prints for the same window: the post-mortem's "etime p99 per minute" equals
# `satscope etime --json`'s windows (the nearest rank of every operation of that minute), and
# a digest day's "etime p90 per hour" (a 24 h day made by bench's gen389) its hours. (The
# timeline's own series hold a histogram of ten bins a decade: a sparkline drawn from it said
# 28.2 s where etime's table said 29.8 s for the same minute.)
import json
import os
import subprocess
import sys
import tempfile


def sparkline(doc, title):
    for page in doc["pages"]:
        stack = list(page.get("sections", []))
        while stack:
            s = stack.pop()
            for sp in s.get("sparklines", []):
                if sp["title"] == title:
                    return sp
            stack.extend(s.get("sections", []))
    return None


def compare(name, sp, rows, col, errs):
    if sp is None:
        errs.append(f"{name}: no such sparkline")
        return
    want = [round(r[col], 6) if r.get(col) is not None else None for r in rows]
    got = sp["points"]
    if len(got) != len(want):
        errs.append(f"{name}: {len(got)} points, the table has {len(want)} windows")
        return
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w and not (g is None and w is None):
            errs.append(f"{name}: point {i} ({rows[i]['start_ts']}) is {g}, the table says {w}")
            return
    print(f"ok {name}: {len(got)} points, each the table's {col}")


def main():
    satscope, src = sys.argv[1], sys.argv[2]
    gen = sys.argv[3] if len(sys.argv) > 3 else ""
    errs = []
    inc = [f"{src}/fixtures/incident/access", f"{src}/fixtures/incident/access.20250609-133000.gz"]
    with tempfile.TemporaryDirectory() as tmp:
        def run(*args):
            r = subprocess.run([satscope, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
            if r.returncode != 0:
                sys.exit(f"FAIL: satscope {' '.join(args)}: exit {r.returncode}: {r.stderr}")
            return r.stdout
        rep = os.path.join(tmp, "r.json")
        run("report", "-q", *inc, "-o", rep)
        et = json.loads(run("etime", *inc, "--json"))
        compare("post-mortem, etime p99 per minute",
                sparkline(json.load(open(rep)), "etime p99 per minute"), et["windows"], "p99_s",
                errs)
        if gen and os.access(gen, os.X_OK):
            day = os.path.join(tmp, "day.log")
            subprocess.run([gen, "--duration", "86400", "--rate", "1", "--start",
                            "2026-11-03T00:00:00", "--seed", "3", "-o", day],
                           stderr=subprocess.DEVNULL, check=True)
            dg = os.path.join(tmp, "d.json")
            run("report", "--kind", "digest", "-q", day, "-o", dg)
            et = json.loads(run("etime", day, "--json"))
            compare("digest of a 24 h day, etime p90 per hour",
                    sparkline(json.load(open(dg)), "etime p90 per hour"), et["hours"], "p90_s",
                    errs)
        else:
            print("SKIP part: no gen389 (bench/) built: the 24 h digest is not compared")
    for e in errs:
        print("FAIL: " + e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
