#!/usr/bin/env python3
# prometheus_textfile.py SATSCOPE SRC - `report --prometheus FILE` (and -o FILE.prom) write a
# node-exporter textfile that Prometheus' own parser (python3-prometheus-client) reads, each
# metric's samples together under one HELP and TYPE, and whose figures are the report's: each
# server-day's operations, errors, regressions, storms and crashes equal its row of the digest's
# fleet table (-o x.json), the etime p90 by type too, the findings by severity their count.
import json
import os
import subprocess
import sys
import tempfile

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:  # Debian's python3 has it (dev.sh installs python3-prometheus-client)
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    print("SKIP: no prometheus_client (apt-get install python3-prometheus-client)")
    sys.exit(77)


def main():
    satscope, src = sys.argv[1], sys.argv[2]
    d = f"{src}/fixtures/digest"
    inputs = [f"{d}/ldap01/access-20261103.zst", f"{d}/ldap02/access.zst",
              "--baseline", f"{d}/ldap01/ldap01-20261101.sat",
              "--baseline", f"{d}/ldap01/access-20261102.zst"]
    errs = []
    with tempfile.TemporaryDirectory() as tmp:
        prom, js, prom2 = (os.path.join(tmp, n) for n in ("a.prom", "r.json", "b.prom"))
        for args in (["-o", js, "--prometheus", prom], ["-o", prom2]):
            subprocess.run([satscope, "report", "--kind", "digest", "-q", *inputs, *args],
                           check=True)
        text = open(prom).read()
        if text != open(prom2).read():
            errs.append("--prometheus and -o x.prom differ")
        doc = json.load(open(js))
    names = [l.split("{")[0].split(" ")[0] for l in text.splitlines() if not l.startswith("#")]
    seen = []
    for n in names:
        if seen and seen[-1] == n:
            continue
        if n in seen:
            errs.append(f"samples of {n} are not together")
        seen.append(n)
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    fleet = doc["pages"][0]["sections"][0]["tables"][0]["body"]
    cols = {"operations": "satscope_digest_operations", "errors": "satscope_digest_errors",
            "regressions": "satscope_digest_regressions",
            "storm_count": "satscope_digest_storms", "crash_count": "satscope_digest_crashes"}
    checked = 0
    for row in fleet:
        for col, metric in cols.items():
            got = [s.value for s in fams[metric].samples
                   if s.labels == {"server_name": row["server_name"], "day": row["day"]}]
            if got != [row[col]]:
                errs.append(f"{metric} of {row['server_name']} {row['day']}: {got}, the fleet "
                            f"table says {row[col]}")
            checked += 1
        for op in ("BIND", "SRCH", "MOD", "EXT"):
            want = row.get(op, {}).get("p90_s") if isinstance(row.get(op), dict) else None
            got = [s.value for s in fams["satscope_digest_etime_p90_seconds"].samples
                   if s.labels == {"server_name": row["server_name"], "day": row["day"], "op": op}]
            if want is not None and (len(got) != 1 or abs(got[0] - want) > 1e-9):
                errs.append(f"p90 of {op} on {row['server_name']}: {got}, the table says {want}")
            checked += want is not None
    for sev in ("critical", "warning", "notice"):
        n = sum(1 for f in doc["findings"] if f["severity"] == sev)
        got = [s.value for s in fams["satscope_findings"].samples if s.labels["severity"] == sev]
        if got != [n]:
            errs.append(f"findings {sev}: {got}, the report has {n}")
        checked += 1
    for e in errs:
        print("FAIL: " + e)
    if not errs:
        print(f"ok: {len(fams)} metric families read by prometheus_client, {checked} figures "
              "equal to the report's")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
