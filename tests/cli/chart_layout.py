#!/usr/bin/env python3
# chart_layout.py SATSCOPE SRC - charts a reader can read, checked on their laid-out
# structure (satscope chart KIND ... -o -.json, report/chart/chart_json.c) rather than
# on pixels:
#   - every text drawn is 9 pt or more at the size the chart is shown (size_pt);
#   - every horizontal bar has its category's label and its value drawn;
#   - every series with something to draw is named in its legend (no "+N more");
#   - a time axis draws at most 300 windows a panel, over an hour, a storm, a digest's
#     day and a synthetic 24 h day, and no window the inputs end inside (the last
#     window ends by the last time read: no drop to zero);
#   - the SVG carries its words as <text>, a <title> per window or bar, a <desc>;
#   - a digest's server-day page (tests/golden/digest.list's fleet) draws its chart in at
#     most 300 windows, with <text> (its size in KB: tests/cli/digest_size.sh).
# For the timeline, the storm detail, the distributions, a digest day's timeline.
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

MIN_PT = 9.0
MAX_WINDOWS = 300


def chart(satscope, kind, inputs, out="-.json"):
    r = subprocess.run([satscope, "chart", kind, "-q", *inputs, "-o", out],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise SystemExit(f"satscope chart {kind}: exit {r.returncode}: {r.stderr.decode()}")
    return r.stdout


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def check(name, doc, errs, last_ts=None):
    for t in doc["texts"]:
        size = t.get("size_pt", t["size"])
        if size < MIN_PT:
            errs.append(f"{name}: text {t['text']!r} ({t['role']}) at {size} pt")
        if re.fullmatch(r"\+\d+ more", t["text"]):
            errs.append(f"{name}: a legend sums up series as {t['text']!r}")
    for p in doc["panels"]:
        for s in p["series"]:
            has = any(b.get("value") is not None for b in s.get("bars", [])) or \
                any(pt.get("y") is not None for pt in s.get("points", []))
            if s["name"] and has and not s["in_legend"]:
                errs.append(f"{name}: panel {p['title']!r}: series {s['name']!r} not in the legend")
            for b in s.get("bars", []):
                if not b.get("label"):
                    errs.append(f"{name}: bar {b['category']!r} has no label drawn")
                if not b.get("value_label"):
                    errs.append(f"{name}: bar {b['category']!r} has no value drawn")
            pts = s.get("points", [])
            if "ts" in (pts[0] if pts else {}):
                if len(pts) > MAX_WINDOWS:
                    errs.append(f"{name}: {p['title']!r} {s['name']!r}: {len(pts)} windows")
                w = s.get("width") or 0
                if last_ts and s["style"] != "points" and pts and ts(pts[-1]["ts"]) + w > last_ts + 1e-6:
                    errs.append(f"{name}: {s['name']!r}: its last window ends after the inputs do")


def day_log(path):
    """A 389 access log of a whole day: a search and its result every 20 s."""
    t0 = datetime.datetime(2026, 3, 2, 0, 0, 0)
    with open(path, "w") as f:
        f.write("\t389-Directory/2.3.1 B2023.052.0000\n\n")
        for i in range(0, 86400, 20):
            t = t0 + datetime.timedelta(seconds=i)
            stamp = t.strftime("[%d/%b/%Y:%H:%M:%S.000100000 +0000]")
            end = (t + datetime.timedelta(milliseconds=3)).strftime("[%d/%b/%Y:%H:%M:%S.003100000 +0000]")
            f.write(f'{stamp} conn={i} op=1 SRCH base="dc=example,dc=com" scope=2 '
                    f'filter="(uid=u{i % 97})" attrs=ALL\n')
            f.write(f"{end} conn={i} op=1 RESULT err=0 tag=101 nentries=1 wtime=0.000100000 "
                    f"optime=0.003000000 etime=0.003100000\n")


def main():
    satscope, src = sys.argv[1], sys.argv[2]
    inc = [f"{src}/fixtures/incident/access", f"{src}/fixtures/incident/access.20250609-133000.gz",
           f"{src}/fixtures/incident/tls-storm-incident.pcap"]
    errs = []
    with tempfile.TemporaryDirectory() as tmp:
        day = os.path.join(tmp, "day.log")
        day_log(day)
        cases = [("timeline", "timeline", inc, ts("2025-06-09T14:29:59.94Z")),
                 ("storm", "storm", inc, None),
                 ("distributions", "distributions", inc, None),
                 ("digest day", "timeline", [f"{src}/fixtures/digest/ldap01/access-20261103.zst"], None),
                 ("24 h day", "timeline", [day], ts("2026-03-02T23:59:40.0031Z"))]
        for name, kind, inputs, last in cases:
            doc = json.loads(chart(satscope, kind, inputs))
            check(name, doc, errs, last)
            if kind in ("timeline", "storm") and "windows" not in (doc["title"] or ""):
                errs.append(f"{name}: the title does not say the window: {doc['title']!r}")
        # the title says the window once; no panel title says another
        doc = json.loads(chart(satscope, "timeline", inc))
        for p in doc["panels"]:
            if re.search(r"\bper \d", p["title"] or ""):
                errs.append(f"timeline: panel {p['title']!r} says its own window")
        svg = chart(satscope, "timeline", inc, "-.svg").decode()
        texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
        if "Operations per second, by type" not in texts:
            errs.append("svg: the panel titles are not <text>")
        if len(re.findall(r"<title>", svg)) < 100:
            errs.append("svg: no <title> per window")
        if not re.search(r'role="img"', svg) or not re.search(r"<desc[^>]*>[^<]*peak", svg):
            errs.append("svg: no role=img and <desc> with the key figures")
        if "prefers-color-scheme:dark" not in svg:
            errs.append("svg: no dark scheme")
        d = f"{src}/fixtures/digest"
        page = os.path.join(tmp, "digest.html")
        r = subprocess.run([satscope, "report", "--kind", "digest", "-q",
                            f"{d}/ldap01/access-20261103.zst", f"{d}/ldap02/access.zst",
                            "--baseline", f"{d}/ldap01/ldap01-20261101.sat",
                            "--baseline", f"{d}/ldap01/access-20261102.zst",
                            "--baseline", f"{d}/ldap02/access-20261101.zst", "-o", page],
                           stderr=subprocess.PIPE)
        if r.returncode != 0:
            errs.append(f"digest: exit {r.returncode}: {r.stderr.decode()}")
        else:
            html = open(page, encoding="utf-8").read()
            pages = re.split(r'(?=<div class="page")', html)[1:]
            for i, pg in enumerate(pages):
                for svg in re.findall(r"<svg.*?</svg>", pg, re.S):
                    nwin = svg.count('class="hv"')
                    if nwin > MAX_WINDOWS:
                        errs.append(f"digest: page {i + 1}: {nwin} windows")
                    if "<text" not in svg:
                        errs.append(f"digest: page {i + 1}: a chart without <text>")
    for e in errs:
        print(e)
    print("ok" if not errs else f"{len(errs)} problems")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
