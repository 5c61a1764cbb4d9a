#!/bin/bash
# digest_size.sh SATSCOPE SRC [GEN389] - a nightly digest's HTML stays readable in a mail
# client and light to keep: each server-day page (a <div class="page"> after the fleet
# summary) within 300 KB, charts and all. Two days: the fleet fixture of tests/golden/
# digest.list (two hours of each of two servers) and, with bench's gen389, a whole day of
# 389 traffic with a 5-minute storm every hour (the day a 1 s or 40 s window drew as a comb
# of thousands of bars, 1.5-2 MB a page).
satscope=$1 src=$2 gen=$3
limit=$((300 * 1024))
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # name html
  local name=$1 html=$2
  python3 - "$name" "$html" "$limit" <<'PY' || fail=1
import re, sys
name, path, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
html = open(path, encoding="utf-8").read()
starts = [m.start() for m in re.finditer(r'<div class="page"', html)]
if len(starts) < 2:
    print(f"FAIL {name}: {len(starts)} pages: no server-day page to measure")
    sys.exit(1)
bad = 0
for k, a in enumerate(starts[1:], start=2):
    b = starts[k] if k < len(starts) else len(html)
    size = len(html[a:b].encode())
    title = re.search(r'<h2 class="pagehead">(.*?)</h2>', html[a:b])
    title = re.sub(r"<[^>]+>", "", title.group(1)) if title else f"page {k}"
    ok = size <= limit
    bad += not ok
    print(f"{'ok' if ok else 'FAIL'} {name}: {title}: {size / 1024:.0f} KB of HTML"
          f" (limit {limit // 1024} KB)")
print(f"{name}: whole document {len(html.encode()) / 1024:.0f} KB, {len(starts) - 1} server-day pages")
sys.exit(1 if bad else 0)
PY
}
F=$src/fixtures/digest
"$satscope" report --kind digest -q "$F"/ldap01/access-20261103.zst "$F"/ldap02/access.zst \
  --baseline "$F"/ldap01/ldap01-20261101.sat --baseline "$F"/ldap01/access-20261102.zst \
  --baseline "$F"/ldap02/access-20261101.zst --title "fleet" -o "$tmp/fleet.html" || exit 1
# a quiet server-day has no page: two servers' days, both shown, so that both are measured
"$satscope" report --kind digest -q "$F"/ldap01/access-20261103.zst "$F"/ldap02/access.zst \
  --baseline "$F"/ldap01/ldap01-20261101.sat -o "$tmp/two.html" || exit 1
check "fleet fixture" "$tmp/fleet.html"
check "fleet fixture, one baseline" "$tmp/two.html"
if [ -x "$gen" ]; then
  "$gen" --duration 86400 --rate 1 --start 2026-11-03T00:00:00 --seed 3 -o "$tmp/day.log" \
    2>/dev/null || exit 1
  "$gen" --duration 86400 --rate 1 --start 2026-11-02T00:00:00 --seed 4 --incident off \
    -o "$tmp/base.log" 2>/dev/null || exit 1
  "$satscope" report --kind digest -q "$tmp/day.log" --baseline "$tmp/base.log" \
    -o "$tmp/day.html" || exit 1
  check "24 h generated day" "$tmp/day.html"
else
  echo "SKIP part: no gen389 (bench/) built: the 24 h day is not measured"
fi
exit $fail
