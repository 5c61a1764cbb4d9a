#!/bin/bash
# html_report.sh SATSCOPE SRC [http] - the HTML report of the bundled incident (with
# `http`: of the nginx fixture's access log) is one self-contained file a browser shows
# as it is:
#  1. the file references nothing outside itself: no http: or https: anywhere,
#     no src= or link/script element, no url( or href= that is not a #fragment;
#  2. Debian's chromium (headless, no network: every host resolves to nothing,
#     a proxy to nowhere) loads it, and its DOM holds an inline <svg> (one per part) per
#     chart the report's document lists, every section title, the findings;
#  3. chromium's network log shows no request made by the page.
# Skips (77, with a message) when chromium is not installed; dev.sh installs it.
set -u
SATSCOPE=$1
SRC=$2
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "SKIP: chromium is not installed (dev.sh PACKAGES installs it); the HTML report is not checked in a browser"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

INPUTS=("$SRC/fixtures/incident/access" "$SRC/fixtures/incident/access.20250609-133000.gz"
        "$SRC/fixtures/incident/tls-storm-incident.pcap"
        --crash-time 2025-06-09T14:24:10Z --exe "$SRC/fixtures/cores/bin/segv_chain-O0"
        "$SRC/fixtures/cores/segv_chain/segv_chain-O0-kernel.core.gz")
if [ "${3:-}" = http ]; then # the same checks on an HTTP access log (nginx's sat log_format)
    INPUTS=(--log-format "$(sed -n "s/^ *log_format sat '\(.*\)';\$/\1/p" "$SRC/fixtures/http-nginx/nginx.conf.excerpt")"
            "$SRC/fixtures/http-nginx/access-sat.log.gz")
    [ -n "${INPUTS[1]}" ] || { echo "FAIL: no log_format sat in the nginx fixture"; exit 1; }
fi
"$SATSCOPE" report -q "${INPUTS[@]}" -o r.html || bad "satscope report -o r.html failed"
"$SATSCOPE" report -q "${INPUTS[@]}" -o r.json || bad "satscope report -o r.json failed"
[ -s r.html ] || { bad "no HTML written"; exit 1; }

# 1. nothing outside the file
if grep -n -i -E 'https?:' r.html | head -5 | grep .; then bad "the HTML names a URL"; fi
if grep -n -i -E '(src|srcset)[[:space:]]*=' r.html | head -5 | grep .; then bad "the HTML has a src="; fi
if grep -n -i -E '<(link|script|iframe|object|embed)\b' r.html | head -5 | grep .; then
    bad "the HTML has an element that loads something"; fi
if grep -o -i -E 'url\([^)]*\)' r.html | grep -v -E '^url\(#' | head -5 | grep .; then
    bad "the HTML has a url() that is not a #fragment"; fi
if grep -o -i -E 'href="[^"]*"' r.html | grep -v -E '^href="#' | head -5 | grep .; then
    bad "the HTML has an href that is not a #fragment"; fi
if grep -n -i '@import' r.html | head -3 | grep .; then bad "the HTML's CSS imports something"; fi

# 2. what a browser makes of it, with no network at all
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --host-resolver-rules="MAP * ~NOTFOUND" --proxy-server="http://127.0.0.1:9" \
    --user-data-dir="$tmp/profile" --log-net-log="$tmp/net.json" \
    --dump-dom "file://$tmp/r.html" >dom.html 2>chromium.err
[ -s dom.html ] || { bad "chromium gave no DOM"; tail -5 chromium.err; exit 1; }
want_svgs=$(python3 -c 'import json,sys
d=json.load(open("r.json"))
print(sum(len(s.get("charts", [])) for p in d["pages"] for s in p["sections"]))')
got_svgs=$(grep -o '<svg' dom.html | wc -l)
[ "$want_svgs" -ge 1 ] || bad "the report lists no chart"
# a chart may come in parts, one page region each (the distributions: its histogram, then
# its bars two panels at a time): at least one <svg> per chart
[ "$got_svgs" -ge "$want_svgs" ] || bad "the DOM holds $got_svgs <svg> for $want_svgs charts"
# a chart is drawn, not an empty frame: every inline SVG has paths and words
python3 - dom.html <<'PY' || fail=1
import re, sys
dom = open(sys.argv[1]).read()
svgs = re.findall(r"<svg\b.*?</svg>", dom, re.S)
for i, s in enumerate(svgs):
    if s.count("<path") + s.count("<text") < 10 or "<text" not in s:
        print(f"FAIL: chart {i + 1} has almost nothing drawn")
        sys.exit(1)
ids = re.findall(r'\bid="([^"]+)"', dom)
dups = sorted({x for x in ids if ids.count(x) > 1})
if dups:
    print("FAIL: ids used twice in the page: " + ", ".join(dups[:5]))
    sys.exit(1)
PY
python3 -c 'import json
d=json.load(open("r.json"))
for p in d["pages"]:
    for s in p["sections"]:
        print(s["title"])
print("What happened"); print("Inputs")' >titles.txt
while IFS= read -r t; do
    grep -q -F ">$t<" dom.html || bad "section title '$t' is not in the DOM"
done <titles.txt
nf=$(python3 -c 'import json; print(len(json.load(open("r.json"))["findings"]))')
got_f=$(grep -o '<li class="\(critical\|warning\|notice\)"' dom.html | wc -l)
[ "$nf" -ge 1 ] && [ "$got_f" = "$nf" ] || bad "$got_f findings in the DOM for $nf in the report"

# 3. no request from the page (chromium's own background ones are not the page's)
python3 - net.json <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
types = {v: k for k, v in d["constants"]["logEventTypes"].items()}
asked = set()
for e in d["events"]:
    p = e.get("params") or {}
    if types.get(e["type"]) == "URL_REQUEST_START_JOB" and "site=file://" in str(p.get("site_for_cookies")):
        if not str(p.get("url", "")).startswith("file://"):
            asked.add(p.get("url"))
if asked:
    print("FAIL: the page asked for " + ", ".join(sorted(asked)[:5]))
    sys.exit(1)
PY
if [ $fail = 0 ]; then
    echo "ok: self-contained HTML, $got_svgs charts drawn, $(wc -l <titles.txt) titles and $nf findings in the DOM, no request"
fi
exit $fail
