#!/usr/bin/env python3
# json_schema.py SATSCOPE SRC - every command's --json follows docs/output.md.
#
# Runs each command that has --json on the fixtures and checks that the output
# is one JSON object (RFC 8259: no NaN, no duplicate keys) whose first key is
# "schema" = "satscope/1", and that every point in time is null or an RFC 3339
# UTC string with the fraction trimmed: keys ending in _ts, the time keys
# without the suffix (TIME_KEYS), and any string that starts like a date. A
# command with --json in its --help that is not run here fails the test, so a
# new command cannot skip the check.
#
# Documents written from result sections (schema "satscope/2") are held to
# every convention of docs/output.md: "command" second; a time only in a key
# ending _ts (or a row's own "ts"); numbers of seconds in keys ending _s,
# never _us/_ms/_ns; integers in keys ending _bytes; ratios and shares in
# 0..1; rates (_per_s) not negative; and across all documents one key holds
# one kind of value (a number in one command and a string in another is two
# things under one name).
import json
import os
import re
import subprocess
import sys
import tempfile

SCHEMA = "satscope/1"
SCHEMA2 = "satscope/2"
TIME_KEYS = {"first", "last", "start", "ts", "peak_at"}
RFC3339 = re.compile(r"\A\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{0,8}[1-9])?Z\Z")
DATE_LIKE = re.compile(r"\A\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\S*\Z")

INC = "src/fixtures/incident/access src/fixtures/incident/access.20250609-133000.gz"
NGINX_SAT = ("'$remote_addr $connection $connection_requests $msec $time_iso8601 \"$request\" "
             "$status $body_bytes_sent $request_time $upstream_response_time $ssl_protocol "
             "$ssl_session_reused'")
CASES = [
    ("etime", f"etime --json {INC}"),
    ("etime", "etime --json --by filter src/fixtures/incident/access"),
    ("etime", "etime --json --by minute src/fixtures/incident/access"),
    ("etime", "etime --json --by client src/fixtures/incident/access"),
    ("etime", "etime --json --from 2025-06-09T14:20:00Z --to 2025-06-09T14:25:00 "
              "src/fixtures/incident/access"),
    ("etime", "etime --json --by internal src/fixtures/internal/access.zst"),
    ("handshakes", "handshakes --json --window 2s src/fixtures/tls/tls-storm.pcap"),
    ("handshakes", "handshakes --json src/fixtures/tls/tls-abort.pcap"),
    # HTTP access logs (their own sections, the same conventions and key kinds)
    ("etime", "etime --json src/fixtures/http-nginx/access.log.gz"),
    ("etime", "etime --json --by status --log-format " + NGINX_SAT +
              " src/fixtures/http-nginx/access-sat.log.gz"),
    ("etime", "etime --json --by minute src/fixtures/http-apache/access_common.log.gz "
              "src/fixtures/incident/access"),
    ("handshakes", "handshakes --json --log-format " + NGINX_SAT +
                   " src/fixtures/http-nginx/access-sat.log.gz src/fixtures/http-nginx/capture-run2.pcap.zst"),
    ("saturation", f"saturation --json --window 5m {INC}"),
    ("saturation", "saturation --json src/fixtures/tls-overload/overload.pcap.zst"),
    ("storms", f"storms --json {INC} src/fixtures/tls-overload/overload.pcap.zst"),
    ("storms", "storms --json src/fixtures/storm/storm-tls.pcap"),
    ("timeline", f"timeline --json {INC} src/fixtures/incident/tls-storm-incident.pcap"),
    ("storms", f"storms --json --log-format {NGINX_SAT} src/fixtures/http-nginx/access-sat.log.gz"),
    ("storms", "storms --json src/fixtures/http-nginx/access.log.gz"),
    ("saturation", f"saturation --json --window 2s --log-format {NGINX_SAT} "
                   "src/fixtures/http-nginx/access-sat.log.gz"),
    ("timeline", f"timeline --json --log-format {NGINX_SAT} src/fixtures/http-nginx/access-sat.log.gz"),
    ("crashes", "crashes --json --exe src/fixtures/cores/bin/abort_threads-O2 "
                "--debuginfo-path src/fixtures/cores/debug "
                "src/fixtures/cores/abort_threads/abort_threads-O2-gdb.core.zst"),
    ("crashes", "crashes --json --crash-time 2025-06-09T16:24:16.7+02:00 "
                "--exe src/fixtures/cores/bin/idle_loop-O0 "
                f"src/fixtures/cores/killed/idle_loop-O0-kernel.core.gz {INC}"),
    ("cachesize", f"cachesize --json --entry-size 2048 --target 0.5,0.6 {INC}"),
    ("cachesize", f"cachesize --json --shards --shards-smax 256 {INC}"),
    ("info", f"collect -q {INC} -o t.sat && \"$SATSCOPE\" info --json t.sat"),
    ("chart", f"chart timeline {INC} src/fixtures/incident/tls-storm-incident.pcap -o -.json"),
    ("chart", f"chart distributions {INC} -o -.json"),
    ("chart", "chart capacity src/fixtures/cachesize/access.gz src/fixtures/saturation/loadtest.csv "
              "-o -.json"),
    ("report", f"report -q -o r.json {INC} src/fixtures/incident/tls-storm-incident.pcap "
               "--crash-time 2025-06-09T14:24:10Z --exe src/fixtures/cores/bin/segv_chain-O0 "
               "src/fixtures/cores/segv_chain/segv_chain-O0-kernel.core.gz && cat r.json"),
    ("report", "report --kind digest -q -o r.json src/fixtures/digest/ldap01/access-20261103.zst "
               "src/fixtures/digest/ldap02/access.zst src/fixtures/crashtext/incident-gdb.log "
               "--baseline src/fixtures/digest/ldap01/ldap01-20261101.sat "
               "--baseline src/fixtures/digest/ldap02/access-20261101.zst && cat r.json"),
    # the report and the timeline chart on an HTTP access log (nginx's sat log_format)
    ("report", f"report -q -o r.json --log-format {NGINX_SAT} "
               "src/fixtures/http-nginx/access-sat.log.gz && cat r.json"),
    ("report", f"report --kind digest -q -o r.json --log-format {NGINX_SAT} "
               "src/fixtures/http-nginx/access-sat.log.gz && cat r.json"),
    ("chart", f"chart timeline --log-format {NGINX_SAT} src/fixtures/http-nginx/access-sat.log.gz "
              "-o -.json"),
]


def no_dups(pairs):
    keys = [k for k, _ in pairs]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError("duplicate keys " + ", ".join(sorted(dup)))
    return dict(pairs)


def bad_constant(name):
    raise ValueError("not JSON: " + name)


def walk(v, path, errs):
    if isinstance(v, dict):
        for k, x in v.items():
            p = f"{path}.{k}"
            if k.endswith("_ts") or k in TIME_KEYS:
                if not (x is None or (isinstance(x, str) and RFC3339.match(x))):
                    errs.append(f"{p}: {x!r} is not null or an RFC 3339 UTC time")
                continue
            walk(x, p, errs)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, f"{path}[{i}]", errs)
    elif isinstance(v, str) and DATE_LIKE.match(v) and not RFC3339.match(v):
        errs.append(f"{path}: {v!r} looks like a time but is not RFC 3339 UTC")


def kind(x):
    if x is None:
        return None
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, (int, float)):
        return "number"
    if isinstance(x, str):
        return "string"
    return "object" if isinstance(x, dict) else "array"


def walk2(v, path, errs, kinds, cmd):
    """The satscope/2 conventions; kinds: key -> {kind: first place seen}."""
    if isinstance(v, list):
        for i, x in enumerate(v):
            walk2(x, f"{path}[{i}]", errs, kinds, cmd)
        return
    if not isinstance(v, dict):
        if isinstance(v, str) and DATE_LIKE.match(v):
            errs.append(f"{path}: a time outside a key ending _ts")
        return
    for k, x in v.items():
        p = f"{path}.{k}"
        num = isinstance(x, (int, float)) and not isinstance(x, bool)
        if k.endswith("_ts") or k == "ts":
            if not (x is None or (isinstance(x, str) and RFC3339.match(x))):
                errs.append(f"{p}: {x!r} is not null or an RFC 3339 UTC time")
        elif re.search(r"_(us|ms|ns)$", k):
            errs.append(f"{p}: durations are seconds in keys ending _s")
        elif k.endswith("_s") and not k.endswith("_per_s"):
            if not (x is None or num):
                errs.append(f"{p}: {x!r} is not a number of seconds")
        elif k.endswith("_per_s"):
            if not (x is None or (num and x >= 0)):
                errs.append(f"{p}: {x!r} is not a rate")
        elif k.endswith("_bytes") or k == "bytes":
            if not (x is None or (isinstance(x, int) and not isinstance(x, bool) and x >= 0)):
                errs.append(f"{p}: {x!r} is not a number of bytes")
        elif k.endswith("_ratio") or k == "share" or k.endswith("_share"):
            if not (x is None or (num and 0 <= x <= 1)):
                errs.append(f"{p}: {x!r} is not a ratio in 0..1")
        kd = kind(x)
        # A table row's column group (CSV columns ops.BIND, ops.SRCH nest as
        # "ops": {"BIND": .., "SRCH": ..}) is a row's counts by that dimension,
        # which may also name a section listing it (etime's "ops" table): the
        # same dimension, not a second meaning of the key.
        group = (isinstance(x, dict) and "[" in path and x and
                 all(y is None or (isinstance(y, (int, float)) and not isinstance(y, bool))
                     for y in x.values()))
        if kd and k not in ("value", "default") and not group:
            seen = kinds.setdefault(k, {})
            if kd not in seen:
                seen[kd] = f"{cmd} {p}"
        if isinstance(x, (dict, list)):
            walk2(x, p, errs, kinds, cmd)
        elif isinstance(x, str) and DATE_LIKE.match(x) and not (k.endswith("_ts") or k == "ts"):
            errs.append(f"{p}: a time in a key not ending _ts")


def main():
    satscope, src = sys.argv[1], sys.argv[2]
    env = dict(os.environ, SATSCOPE=satscope, TZ="UTC", LC_ALL="C")
    failed = 0
    kinds = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(src, os.path.join(tmp, "src"))
        for cmd, args in CASES:
            r = subprocess.run(f'"$SATSCOPE" {args}', shell=True, cwd=tmp, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            errs = []
            if r.returncode not in (0, 1):
                errs.append(f"exit {r.returncode}: {r.stderr.strip()}")
            try:
                doc = json.loads(r.stdout, object_pairs_hook=no_dups,
                                 parse_constant=bad_constant)
                if not isinstance(doc, dict):
                    errs.append("the document is not an object")
                elif next(iter(doc), None) != "schema" or doc["schema"] not in (SCHEMA, SCHEMA2):
                    errs.append(f'the first key is not "schema": "{SCHEMA}" or "{SCHEMA2}"')
                elif doc["schema"] == SCHEMA2:
                    if list(doc)[1:2] != ["command"] or doc["command"] != cmd:
                        errs.append(f'the second key is not "command": "{cmd}"')
                    walk2(doc, "$", errs, kinds, cmd)
                else:
                    walk(doc, "$", errs)
            except ValueError as e:
                errs.append(f"does not parse: {e}")
            print(("FAIL" if errs else "ok") + f"  satscope {args}")
            for e in errs[:20]:
                print("    " + e)
            failed += bool(errs)
    # one key, one kind of value, across the satscope/2 documents
    for k, seen in sorted(kinds.items()):
        if len(seen) > 1:
            print(f"FAIL  key {k!r} holds " +
                  " and ".join(f"a {kd} ({where})" for kd, where in seen.items()))
            failed += 1
    # every command that offers --json is run above
    helptext = subprocess.run([satscope, "--help"], stdout=subprocess.PIPE, text=True).stdout
    commands = re.findall(r"^  ([a-z]+) ", helptext.split("commands:", 1)[1], re.M)
    tested = {c for c, _ in CASES}
    for c in commands:
        h = subprocess.run([satscope, c, "--help"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True).stdout
        if "--json" in h and c not in tested:
            print(f"FAIL  {c} has --json but no case here")
            failed += 1
    if not commands:
        print("FAIL  no commands found in satscope --help")
        failed += 1
    print(f"{len(CASES)} documents of {len(tested)} commands checked, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
