#!/usr/bin/env python3
"""layers.py SRC - the include graph keeps the architecture (docs/design.md
"Layers"): every #include "..." of the tree's C files is an arrow from the
module of the file to the module of the header, and

  - each module includes only the modules below it in ALLOWED;
  - result/ includes none of analyze/, report/ (nor anything but the base);
  - analyze/ and report/ never include each other;
  - no cycle of files spans two modules (a header of one module including
    a header of another that includes the first back).

Prints the module graph (how many arrows between each pair) and every
forbidden arrow or cycle; exit 1 if there is one.
"""
import os
import re
import sys
from collections import defaultdict

# The public headers (include/satscope/) by the module they belong to.
PUBLIC = {
    "base.h": "base", "signals.h": "base", "safe_out.h": "base", "escape.h": "base",
    "event.h": "schema", "fields.h": "schema",
    "trace.h": "trace",
    "parse.h": "parse", "core.h": "parse", "crash.h": "parse", "wire.h": "parse",
    "http_conf.h": "parse",
    "collect.h": "collect",
    "anonymize.h": "collect",
    "result.h": "result", "result_out.h": "result",
    "analyze.h": "analyze", "analyze_cachesize.h": "analyze", "analyze_crashes.h": "analyze",
    "analyze_etime.h": "analyze", "analyze_handshakes.h": "analyze",
    "analyze_saturation.h": "analyze", "analyze_split.h": "analyze",
    "analyze_storms.h": "analyze", "analyze_timeline.h": "analyze", "partial.h": "analyze",
    "report.h": "report", "report_doc.h": "report", "report_digest.h": "report",
    "chart.h": "report",
}

# What each module may include (besides itself). The event schema (event.h,
# fields.h) is the rows' shape every stage shares; cli/ wires them all.
ALLOWED = {
    "base": set(),
    "schema": {"base"},
    "parse": {"base", "schema"},
    "trace": {"base", "schema"},
    "result": {"base"},
    "collect": {"base", "schema", "parse", "trace"},
    "analyze": {"base", "schema", "trace", "result"},
    "report": {"base", "result"},
    "cli": {"base", "schema", "parse", "trace", "collect", "result", "analyze", "report"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of_file(rel):
    top = rel.split("/")[0]
    if top == "include":
        return PUBLIC.get(os.path.basename(rel), "?")
    return top if top in ALLOWED else None


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "."
    files = {}
    for top in list(ALLOWED) + ["include"]:
        for dirpath, _, names in os.walk(os.path.join(src, top)):
            for n in names:
                if n.endswith((".c", ".h")):
                    p = os.path.join(dirpath, n)
                    files[os.path.relpath(p, src)] = p
    by_base = defaultdict(list)  # private headers found by name in their module
    for rel in files:
        by_base[os.path.basename(rel)].append(rel)
    arrows = defaultdict(int)
    bad = []
    edges = defaultdict(set)  # file -> files it includes (to find cycles)
    for rel, path in sorted(files.items()):
        mod = module_of_file(rel)
        if mod is None:
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        for inc in INCLUDE.findall(text):
            if inc.startswith("satscope/"):
                target = "include/" + inc
                tmod = PUBLIC.get(os.path.basename(inc), "?")
            else:
                # a private header: the one of the same module, else any
                cands = by_base.get(os.path.basename(inc), [])
                same = [c for c in cands if module_of_file(c) == mod]
                target = (same or cands or [None])[0]
                if target is None:
                    continue  # a system or generated header
                tmod = module_of_file(target)
            edges[rel].add(target)
            if tmod == mod:
                continue
            arrows[(mod, tmod)] += 1
            if tmod not in ALLOWED.get(mod, set()):
                bad.append(f"{rel}: includes {inc} ({mod} -> {tmod})")
    print("module arrows (includes between modules):")
    for (a, b), n in sorted(arrows.items()):
        print(f"  {a:8} -> {b:8} {n}")
    # cycles of files through more than one module
    state, stack, cycles = {}, [], []

    def visit(f):
        state[f] = 1
        stack.append(f)
        for g in sorted(edges.get(f, ())):
            if state.get(g) == 1:
                cyc = stack[stack.index(g):] + [g]
                if len({module_of_file(x) for x in cyc}) > 1:
                    cycles.append(" -> ".join(cyc))
            elif g not in state:
                visit(g)
        stack.pop()
        state[f] = 2

    for f in sorted(edges):
        if f not in state:
            visit(f)
    for c in cycles:
        bad.append(f"cycle across modules: {c}")
    for b in bad:
        print("FORBIDDEN " + b)
    print(f"{sum(arrows.values())} arrows between modules, {len(bad)} forbidden")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
