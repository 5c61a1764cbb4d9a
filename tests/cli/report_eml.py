#!/usr/bin/env python3
# report_eml.py SATSCOPE SRC - the e-mail form of the bundled incident's report
# is a MIME message a mail reader shows as it is (RFC 2045, 2387, 2392, 5322):
# it parses; From, To, Subject, Date, Message-ID and MIME-Version are there
# (--mail-to, --mail-from, --subject given), Date is the RFC 5322 date given
# by --mail-date (else SOURCE_DATE_EPOCH, else now: never the log's last line,
# so that an old incident's report sorts with today's mail); it is
# multipart/alternative: the text form (the same text `-o -` prints) first,
# then a multipart/related with the HTML first; every cid: the HTML shows has
# an image/png part of that Content-ID, and every image part is shown; each
# image is a PNG; the same inputs and date give the same bytes. Without
# --subject the subject is the title and how many findings of each severity
# the report has.
import email
import email.policy
import email.utils
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def main():
    satscope, src = sys.argv[1], sys.argv[2]
    inputs = [f"{src}/fixtures/incident/access",
              f"{src}/fixtures/incident/access.20250609-133000.gz",
              f"{src}/fixtures/incident/tls-storm-incident.pcap",
              "--crash-time", "2025-06-09T14:24:10Z",
              "--exe", f"{src}/fixtures/cores/bin/segv_chain-O0",
              f"{src}/fixtures/cores/segv_chain/segv_chain-O0-kernel.core.gz"]
    errs = []
    with tempfile.TemporaryDirectory() as tmp:
        def run(out, *extra):
            r = subprocess.run([satscope, "report", "-q", *inputs, *extra, "-o", out],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                errs.append(f"satscope report -o {os.path.basename(out)}: exit {r.returncode}: "
                            + r.stderr.strip())
        mail = ["--mail-to", "ops@example.com", "--mail-to", "Dir Admins <dir@example.com>",
                "--mail-from", "satscope <satscope@ldap01.example.com>",
                "--subject", "ldap01: post-mortem of 9 June \u2013 storm and crash"]
        date = ["--mail-date", "2026-12-02T06:30:00Z"]
        run(os.path.join(tmp, "r.eml"), *mail, *date)
        run(os.path.join(tmp, "again.eml"), *mail, *date)
        run(os.path.join(tmp, "plain.eml"))
        run(os.path.join(tmp, "r.json"))
        run(os.path.join(tmp, "r.txt"))
        if errs:
            print("\n".join("FAIL: " + e for e in errs))
            return 1
        raw = open(os.path.join(tmp, "r.eml"), "rb").read()
        if raw != open(os.path.join(tmp, "again.eml"), "rb").read():
            errs.append("two runs on the same inputs gave different messages")
        doc = json.load(open(os.path.join(tmp, "r.json")))
        text_form = open(os.path.join(tmp, "r.txt"), encoding="utf-8").read()
        plain = email.message_from_bytes(open(os.path.join(tmp, "plain.eml"), "rb").read(),
                                         policy=email.policy.default)
    # the default subject counts the findings by severity
    sev = {}
    for f in doc["findings"]:
        sev[f["severity"]] = sev.get(f["severity"], 0) + 1
    n = len(doc["findings"])
    words = {"critical": ("critical", "critical"), "warning": ("warning", "warnings"),
             "notice": ("note", "notes")}  # the words every form prints
    counts = ", ".join(f"{sev[k]} {words[k][sev[k] != 1]}" for k in words if sev.get(k))
    want_subject = (f"{doc['title']}: {n} finding{'s' if n != 1 else ''} ({counts})" if n
                    else f"{doc['title']}: no finding")
    if str(plain["Subject"]) != want_subject:
        errs.append(f"default Subject reads {str(plain['Subject'])!r}, not {want_subject!r}")
    if plain["Date"]:
        age = abs(time.time() - email.utils.parsedate_to_datetime(str(plain["Date"])).timestamp())
        if age > 3600:
            errs.append(f"without --mail-date the Date {plain['Date']} is not now")
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    for h in ("From", "To", "Subject", "Date", "Message-ID", "MIME-Version"):
        if msg[h] is None:
            errs.append(f"no {h} header")
    if msg["To"] and "dir@example.com" not in str(msg["To"]) or "ops@example.com" not in str(msg["To"]):
        errs.append(f"To is {msg['To']!r}")
    if str(msg["Subject"]) != "ldap01: post-mortem of 9 June \u2013 storm and crash":
        errs.append(f"Subject reads {str(msg['Subject'])!r}")
    if msg["Date"]:
        when = email.utils.parsedate_to_datetime(str(msg["Date"]))
        if when.strftime("%Y-%m-%dT%H:%M:%S") != "2026-12-02T06:30:00":
            errs.append(f"Date {msg['Date']} is not --mail-date's 2026-12-02T06:30:00Z")
    if not re.fullmatch(r"<[^<>@\s]+@[^<>@\s]+>", str(msg["Message-ID"] or "")):
        errs.append(f"Message-ID {msg['Message-ID']!r} is no msg-id")
    if msg.get_content_type() != "multipart/alternative":
        errs.append(f"the message is {msg.get_content_type()}, not multipart/alternative")
    alt = list(msg.iter_parts()) if msg.is_multipart() else []
    if len(alt) != 2 or alt[0].get_content_type() != "text/plain" \
            or alt[1].get_content_type() != "multipart/related":
        errs.append("the alternatives are not text/plain then multipart/related: "
                    + ", ".join(p.get_content_type() for p in alt))
        print("\n".join("FAIL: " + e for e in errs))
        return 1
    if alt[0].get_content() != text_form:
        errs.append("the text/plain part is not the report's text form (-o r.txt)")
    parts = list(alt[1].iter_parts())
    if not parts or parts[0].get_content_type() != "text/html":
        errs.append("the first part is not text/html")
        print("\n".join("FAIL: " + e for e in errs))
        return 1
    html = parts[0].get_content()
    cids = re.findall(r'src="cid:([^"]+)"', html)
    images = {}
    for p in parts[1:]:
        if p.get_content_type() != "image/png":
            errs.append(f"a part of type {p.get_content_type()}")
            continue
        cid = str(p["Content-ID"] or "").strip("<>")
        data = p.get_content()
        if not data.startswith(b"\x89PNG\r\n\x1a\n"):
            errs.append(f"part {cid} is no PNG")
        images[cid] = data
    charts = sum(len(s.get("charts", [])) for pg in doc["pages"] for s in pg["sections"])
    if not cids:
        errs.append("the HTML shows no image")
    if len(cids) < charts:  # a chart may come in parts: an image each
        errs.append(f"the HTML shows {len(cids)} images for {charts} charts")
    for c in cids:
        if c not in images:
            errs.append(f"cid:{c} has no part")
    for c in images:
        if c not in cids:
            errs.append(f"image part {c} is never shown")
    if re.search(r"https?:", html):
        errs.append("the HTML names a URL")
    for e in errs:
        print("FAIL: " + e)
    if not errs:
        print(f"ok: multipart/alternative of the text form and HTML with {len(images)} PNG parts, every cid: shown and "
              "every part referenced, headers from the report")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
