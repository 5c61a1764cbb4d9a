#!/usr/bin/env python3
"""numbers_kept.py BASE [FILE...] - checks that every number an expected
output held at git revision BASE is still in it now: for each golden file
changed since BASE (or the files given), every number of the old text
("12127", "4.40", "2025-06-09T14:20:20Z" taken as its digit runs) must be
in the new one. A layout may change, a figure said twice may be said once;
a figure may not go missing. Prints each file with the numbers it lost;
exit 1 if any did.

A number is a run of digits with its decimal point ("372", "1.05", "0.502");
times and dates are their digit runs, so that "14:20:20" in a report and
"2025-06-09T14:20:20Z" in a command still agree on 14, 20, 20.
"""
import re
import subprocess
import sys
from collections import Counter

NUM = re.compile(r"\d+(?:\.\d+)?")


def numbers(text):
    return Counter(NUM.findall(text))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    base = sys.argv[1]
    files = sys.argv[2:]
    if not files:
        out = subprocess.run(["git", "diff", "--name-only", base, "--", "tests/golden/expected"],
                             capture_output=True, text=True, check=True).stdout
        files = [f for f in out.split() if f]
    bad = 0
    for f in files:
        old = subprocess.run(["git", "show", f"{base}:{f}"], capture_output=True, text=True)
        if old.returncode != 0:
            continue  # a new file
        try:
            new = open(f, encoding="utf-8", errors="replace").read()
        except FileNotFoundError:
            print(f"{f}: removed")
            bad += 1
            continue
        lost = Counter(set(numbers(old.stdout)) - set(numbers(new)))
        if lost:
            bad += 1
            shown = ", ".join(f"{k} x{v}" if v > 1 else k for k, v in sorted(lost.items())[:40])
            print(f"{f}: {sum(lost.values())} numbers lost: {shown}")
    print(f"{len(files)} files checked, {bad} lost numbers")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
