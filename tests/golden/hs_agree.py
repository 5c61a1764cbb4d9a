#!/usr/bin/env python3
# hs_agree.py SATSCOPE CAPTURE [--full-offset N] LOG-ARGS... - the TLS handshakes of one
# period counted twice by `satscope handshakes --json`: on the wire (CAPTURE, a pcap of
# the period) and from the access log's first requests (LOG-ARGS: the log and its
# --log-format, --from, --to). One line per figure, "ok" when they agree. --full-offset N:
# the log is known to count N more full handshakes than there were (Apache's %k = 0 on a
# request that ends its keepalive connection with an error: fixtures/http-apache/README.md);
# the figures then agree when the log's is the capture's + N. Exit 1 on any difference.
import json
import subprocess
import sys


def run(sat, args):
    r = subprocess.run([sat, "handshakes", "--json"] + args, stdout=subprocess.PIPE, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"satscope handshakes exited {r.returncode}")
    return json.loads(r.stdout)


def main():
    sat, capture, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    offset = 0
    if args[:1] == ["--full-offset"]:
        offset, args = int(args[1]), args[2:]
    wire = run(sat, [capture])
    log = run(sat, args).get("logs", {})
    bad = 0
    for key, extra in (("full", offset), ("resumed", 0)):
        w, g = wire.get(key), log.get(key)
        ok = w is not None and g is not None and g == w + extra
        bad += not ok
        note = f" (the log's known {extra:+d})" if extra else ""
        print(f"{key:<8} capture {w!s:<5} log {g!s:<5} {'ok' if ok else 'MISMATCH'}{note}")
    w, g = wire.get("connections"), log.get("first_requests")
    print(f"{'conns':<8} capture {w!s:<5} log {g!s:<5} (first requests)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
