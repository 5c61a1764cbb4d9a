#!/usr/bin/env python3
"""lab/score.py - scores satscope's storms against the lab's truth.

For each incident directory (made by satlab: access, slapd-stats.log,
handshakes.pcap, truth.json) it runs `satscope storms --json` on each form of
the evidence - the 389 access log, the OpenLDAP stats log, the 389 log with
the capture - and compares the storm it reports with truth.json, as the
issue-21 contract scores it:
  window     the storm's start and end within two windows of the truth's
             (windows of the coarser of the truth's and satscope's grids)
             (no storm in the truth: ok when satscope reports none)
  trigger    storm.trigger.signal_name == the truth's trigger kind, as the
             form can show it (EVIDENT: the OpenLDAP log shows a batch of
             unindexed searches as long searches; logs alone cannot show a
             session-cache flush); null when the truth has no trigger or storm
  sustained  storm.sustained == truth.sustained (null, untold, where the form
             cannot show the trigger, and then the mechanism null too; null also
             where truth.json has sustained_unobservable: no log can show the
             trigger's end, e.g. slow storage with nothing answered after it)
  mechanism  storm.mechanism == truth.mechanism (null == null)
  who        where the truth's trigger is a client's work (a batch, a heavy
             client: trigger.client, trigger.binddn) and the storm did not
             outlive it, the client and the bind DN the post-mortem names as
             having used the server most during the storm (its finding's
             clients_key and bind_dns_key, `satscope report -o X.json`) are
             that client's
Keys satscope does not (yet) write count as null. Prints one row per incident
and form, PASS/FAIL per column, and the totals; --json FILE writes the rows.

usage: lab/score.py [--satscope PATH] [--forms 389,openldap,389+pcap] [--json FILE]
                    [--require] DIR...
  --require: exit 1 unless every row passes (the ctest lab_story)
  DIR: an incident directory, or a directory of them
"""
import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys

FORMS = {
    "389": ["access"],
    "openldap": ["slapd-stats.log"],
    "389+pcap": ["access", "handshakes.pcap"],
    "pcap": ["handshakes.pcap"],
}
TS_RE = re.compile(r"^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$")


def ts(v):
    """Seconds since the epoch from an RFC 3339 string or a number; None if neither."""
    if v is None:
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    m = TS_RE.match(str(v))
    if not m:
        return None
    y, mo, d, h, mi, s, frac, tz = m.groups()
    t = dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), tzinfo=dt.timezone.utc).timestamp()
    if frac:
        t += float("0." + frac)
    if tz and tz != "Z":
        sign = 1 if tz[0] == "+" else -1
        hh, mm = int(tz[1:3]), int(tz[-2:])
        t -= sign * (hh * 3600 + mm * 60)
    return t


def get(d, *keys):
    """d[k1][k2]... with anything missing or not a dict giving None."""
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def name_of(v):
    """A trigger's or mechanism's name: the string itself or its name key."""
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        for k in ("signal_name", "name", "kind"):
            if isinstance(v.get(k), str):
                return v[k]
    return None


def incident_dirs(paths):
    out = []
    for p in paths:
        if os.path.isfile(os.path.join(p, "truth.json")):
            out.append(p)
        elif os.path.isdir(p):
            for e in sorted(os.listdir(p)):
                q = os.path.join(p, e)
                if os.path.isfile(os.path.join(q, "truth.json")):
                    out.append(q)
    return out


def run_storms(satscope, files, timeout):
    try:
        r = subprocess.run([satscope, "storms", *files, "--json"], capture_output=True,
                           text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if r.returncode != 0:
        return None, "exit %d: %s" % (r.returncode, r.stderr.strip().splitlines()[-1:] or "")
    try:
        return json.loads(r.stdout), None
    except ValueError as e:
        return None, "bad JSON: %s" % e


def run_report(satscope, files, timeout):
    """The post-mortem's JSON document (satscope report FILES -o X.json)."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "pm.json")
        try:
            r = subprocess.run([satscope, "report", "-q", *files, "-o", out],
                               capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            return None, str(e)
        if r.returncode != 0 or not os.path.exists(out):
            return None, "report exit %d" % r.returncode
        with open(out) as fh:
            try:
                return json.load(fh), None
            except ValueError as e:
                return None, "bad JSON: %s" % e


def who_used(doc):
    """The client and the bind DN the post-mortem names as having used the
    server most during its storm (the finding's clients_key, bind_dns_key),
    as "client as DN", or None."""
    for f in (doc or {}).get("findings") or []:
        fig = f.get("figures") or {}
        if "clients_key" in fig or "bind_dns_key" in fig:
            return "%s as %s" % (fig.get("clients_key"), fig.get("bind_dns_key"))
    return None


def pick_storm(storms, truth):
    """The reported storm that stands for the truth's: the one overlapping the
    truth's storm the most (the biggest when the truth has none); storms of
    another server than the truth's are passed over when any match it."""
    server = truth.get("server")
    mine = [s for s in storms if s.get("server") in (None, server)]
    storms = mine or storms
    if not storms:
        return None
    t0, t1 = ts(get(truth, "storm", "start_ts")), ts(get(truth, "storm", "end_ts"))
    if t0 is None or t1 is None:
        return max(storms, key=lambda s: s.get("events") or 0)

    def overlap(s):
        a, b = ts(s.get("start_ts")), ts(s.get("end_ts"))
        if a is None or b is None:
            return -1
        return min(b, t1) - max(a, t0)
    return max(storms, key=lambda s: (overlap(s), s.get("events") or 0))


# What each form of the evidence can show of a trigger: the OpenLDAP stats
# log does not mark unindexed searches (no notes=A), so a batch of them is
# seen as long searches; no access log tells a full TLS handshake from a
# resumed one, so a session-cache flush is not in the logs alone, and the
# right answer is "no trigger in these inputs".
EVIDENT = {
    ("unindexed", "openldap"): "long_searches",
    ("full_hs_share", "389"): None,
    ("full_hs_share", "openldap"): None,
}


def evident_trigger(kind, form):
    return EVIDENT.get((kind, form), kind)


def score(truth, rep, form):
    storms = rep.get("storms") or []
    st = pick_storm(storms, truth)
    tstorm = truth.get("storm")
    # two windows of the coarser grid: the truth's storm is in its windows
    # (window_s), satscope's in its own; each is only as precise as its grid
    win = max((st or {}).get("window_s") or rep.get("window_s") or 0, truth.get("window_s") or 0) or 10
    row = {"storms": len(storms)}
    if tstorm is None:
        row["window"] = st is None
        row["window_got"] = "none" if st is None else "%d storm(s)" % len(storms)
        row["window_exp"] = "none"
    else:
        a, b = ts(get(st, "start_ts")), ts(get(st, "end_ts"))
        ta, tb = ts(tstorm.get("start_ts")), ts(tstorm.get("end_ts"))
        row["window"] = (a is not None and b is not None and abs(a - ta) <= 2 * win
                         and abs(b - tb) <= 2 * win)
        row["window_got"] = "-" if st is None else "%+.0f/%+.0f s" % (
            (a - ta) if a is not None else float("nan"), (b - tb) if b is not None else float("nan"))
        row["window_exp"] = "+-%d s" % (2 * win)
    exp_trig = evident_trigger(get(truth, "trigger", "kind"), form) if tstorm is not None else None
    got_trig = name_of(get(st, "trigger"))
    row["trigger_got"], row["trigger_exp"] = got_trig, exp_trig
    row["trigger"] = got_trig == exp_trig
    # a trigger the form cannot show leaves outliving it untold (null), and
    # what fed the storm with it
    hidden = tstorm is not None and get(truth, "trigger", "kind") is not None and exp_trig is None
    # and so does a trigger no log can follow to its end (truth.json says why)
    unobservable = truth.get("sustained_unobservable") is not None
    exp_sus = (bool(truth.get("sustained")) if tstorm is not None and not hidden
               and not unobservable else None)
    got_sus = get(st, "sustained")
    if st is None and tstorm is None:
        got_sus = None
    row["sustained_got"], row["sustained_exp"] = got_sus, exp_sus
    row["sustained"] = got_sus == exp_sus
    exp_mech = truth.get("mechanism") if tstorm is not None and not hidden else None
    got_mech = name_of(get(st, "mechanism"))
    row["mechanism_got"], row["mechanism_exp"] = got_mech, exp_mech
    row["mechanism"] = got_mech == exp_mech
    return row


def fmt(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--satscope", default=os.environ.get("SATSCOPE") or
                    os.path.join(here, "..", "build", "cli", "satscope"))
    ap.add_argument("--forms", default="389,openldap,389+pcap")
    ap.add_argument("--json", dest="json_out")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--require", action="store_true",
                    help="exit 1 unless every row passes all four columns (a test)")
    a = ap.parse_args()
    forms = [f for f in a.forms.split(",") if f]
    for f in forms:
        if f not in FORMS:
            sys.exit("score.py: unknown form %s (known: %s)" % (f, ", ".join(FORMS)))
    if not os.access(a.satscope, os.X_OK):
        sys.exit("score.py: no satscope at %s (--satscope PATH)" % a.satscope)
    dirs = incident_dirs(a.dirs)
    if not dirs:
        sys.exit("score.py: no incident directory (with truth.json) in %s" % " ".join(a.dirs))
    rows = []
    cols = ("window", "trigger", "sustained", "mechanism", "who")
    hdr = "%-26s %-9s %-6s %-18s %-34s %-21s %-42s %s" % (
        "incident", "form", "storms", "window", "trigger got/expected",
        "sustained", "mechanism got/expected", "who used it most")
    print("satscope: %s" % a.satscope)
    print(hdr)
    print("-" * len(hdr))
    for d in dirs:
        with open(os.path.join(d, "truth.json")) as fh:
            truth = json.load(fh)
        for form in forms:
            # a committed fixture keeps its log compressed (satscope reads it so)
            files = [os.path.join(d, f) for f in FORMS[form]]
            files = [f if os.path.exists(f) or not os.path.exists(f + ".zst") else f + ".zst"
                     for f in files]
            if not all(os.path.exists(f) for f in files):
                continue
            rep, err = run_storms(a.satscope, files, a.timeout)
            row = {"incident": truth.get("incident", os.path.basename(d)), "form": form}
            if rep is None:
                row.update({c: False for c in cols})
                row["error"] = err
                print("%-26s %-9s ERROR %s" % (row["incident"], form, err))
                rows.append(row)
                continue
            row.update(score(truth, rep, form))
            # who used the server during the storm: the batch's or the heavy
            # client's host, where the truth has one (the post-mortem's claim)
            # (a storm that outlived its trigger was then someone else's work)
            exp_who = ("%s as %s" % (get(truth, "trigger", "client"), get(truth, "trigger", "binddn"))
                       if get(truth, "trigger", "client") and truth.get("storm")
                       and not truth.get("sustained") else None)
            row["who_exp"], row["who_got"] = exp_who, None
            if exp_who:
                doc, err = run_report(a.satscope, files, a.timeout)
                row["who_got"] = who_used(doc) if doc else "error: %s" % err
            row["who"] = row["who_got"] == exp_who if exp_who else True
            rows.append(row)
            pf = lambda c: "PASS" if row[c] else "FAIL"
            print("%-26s %-9s %-6d %-18s %-34s %-21s %-42s %s" % (
                row["incident"], form, row["storms"],
                "%s %s" % (pf("window"), row["window_got"]),
                "%s %s/%s" % (pf("trigger"), fmt(row["trigger_got"]), fmt(row["trigger_exp"])),
                "%s %s/%s" % (pf("sustained"), fmt(row["sustained_got"]), fmt(row["sustained_exp"])),
                "%s %s/%s" % (pf("mechanism"), fmt(row["mechanism_got"]), fmt(row["mechanism_exp"])),
                "%s %s/%s" % (pf("who"), fmt(row["who_got"]), fmt(row["who_exp"]))
                if row["who_exp"] else "-"))
    n = len(rows)
    print("-" * len(hdr))
    print("totals over %d rows: " % n + ", ".join(
        "%s %d/%d" % (c, sum(1 for r in rows if r.get(c)), n) for c in cols) +
        ", all five %d/%d" % (sum(1 for r in rows if all(r.get(c) for c in cols)), n))
    for form in forms:
        fr = [r for r in rows if r["form"] == form]
        if fr:
            print("  %-9s " % form + ", ".join(
                "%s %d/%d" % (c, sum(1 for r in fr if r.get(c)), len(fr)) for c in cols))
    if a.json_out:
        with open(a.json_out, "w") as fh:
            json.dump({"satscope": a.satscope, "rows": rows}, fh, indent=1)
    if a.require and not all(all(r.get(c) for c in cols) for r in rows):
        print("score.py: not every incident is told right (--require)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
