#!/usr/bin/env python3
# http_counts.py SATSCOPE COUNTS LABEL [--clients] ARGS... - sets what satscope counts in an HTTP
# access log (`etime --json ARGS` and `handshakes --json ARGS`) beside the fixture's counts
# file (counted from the server's own log fields, or driven by the clients, by the fixture's
# make-fixture.sh): one line per figure, "ok" when they agree, "not logged" (and not
# compared) when satscope says the log format cannot carry it. Exit 1 on any difference.
# --clients: the counts are the clients' (what curl sent), so the log's lines without a
# request line (a probe that opened a connection and sent nothing: "-" 400) are not among
# them: they are shown on their own line and left out of requests and status 400. Statuses
# satscope sees that COUNTS has none of are differences when COUNTS lists statuses.
#
# The lines of COUNTS read, after LABEL (a line's start; "" for every line):
#   "status N: M"                               requests answered N
#   "requests N" / "requests: N"                every request
#   "connections N"                             a connection's first requests
#   "resumed r: N", "Resumed: N"                first requests on a resumed TLS session
#   "full .: N", "Initial: N"                   first requests that made a full handshake
import json
import re
import subprocess
import sys


def run(sat, cmd, args):
    r = subprocess.run([sat, cmd, "--json"] + args, stdout=subprocess.PIPE, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"satscope {cmd} exited {r.returncode}")
    return json.loads(r.stdout)


def main():
    sat, counts, label, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    clients = args[:1] == ["--clients"]
    if clients:
        args = args[1:]
    want = {}
    with open(counts) as f:
        for line in f:
            if not line.startswith(label) or line.startswith("#"):
                continue
            rest = line[len(label):]
            for m in re.finditer(r"status (\d+): (\d+)", rest):
                want[f"status {m.group(1)}"] = int(m.group(2))
            for key, rx in (("requests", r"\brequests:? (\d+)"),
                            ("connections", r"\bconnections:? (\d+)"),
                            ("resumed", r"(?:resumed r|Resumed): (\d+)"),
                            ("full", r"(?:full \.|Initial): (\d+)")):
                m = re.search(rx, rest)
                if m:
                    want[key] = int(m.group(1))
    et = run(sat, "etime", args)
    hs = run(sat, "handshakes", args)
    stats = et.get("request_stats", {})
    got = {"requests": stats.get("total"), "connections": stats.get("first_requests")}
    for s in et.get("statuses", []):
        got[f"status {s['status']}"] = s["count"]
    probes = stats.get("no_request_line", 0) if clients else 0
    if probes:
        got["requests"] -= probes
        got["status 400"] = got.get("status 400", 0) - probes
        if not got["status 400"]:
            del got["status 400"]
    logs = hs.get("logs", {})
    got["resumed"] = logs.get("resumed")
    got["full"] = logs.get("full")
    bad = 0
    statuses = any(k.startswith("status") for k in want)
    if probes:
        print(f"{'no request':<14} satscope {probes:<6} counts -      "
              "(no request line: not the clients', left out below)")
    for key in sorted(set(want) | {k for k in got if k.startswith("status")}):
        g, w = got.get(key, 0), want.get(key)
        if g is None:
            verdict = "not logged"
        elif w is None:
            verdict = "MISMATCH (not in the counts)" if statuses else "(not in the counts)"
        else:
            verdict = "ok" if g == w else "MISMATCH"
        bad += verdict.startswith("MISMATCH")
        print(f"{key:<14} satscope {'-' if g is None else g:<6} counts {'-' if w is None else w:<6} {verdict}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
