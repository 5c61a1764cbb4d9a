#!/usr/bin/env python3
# text_width.py SATSCOPE SRC - every command's text fits 100 columns.
#
# Runs each command that prints text (the analyzers, info, verify, the
# post-mortem and the digest as text to standard output and to a .txt file,
# every --help) on every fixture input it accepts (the logs, captures, cores,
# crash texts and traces under fixtures/; an input a command refuses, exit 2
# or 3, is skipped) and on the mixes the reports are made for, and fails
# naming the command, the fixture and the line when a line is wider than 100
# columns. Columns are counted as a terminal shows them: one per character of
# the UTF-8 text (a sparkline's block is one), two for an East Asian wide one.
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import unicodedata

WIDTH = 100


def columns(line):
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def fixture_inputs(src):
    """The inputs under fixtures/: what a satscope command reads (logs,
    captures, cores, crash texts, traces), not the fixtures' notes, truths,
    scripts and expected outputs."""
    keep_ext = (".log", ".pcap", ".pcapng", ".sat", ".zst", ".gz")
    found = []
    root = os.path.join(src, "fixtures")
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("bin", "src", "debug"))
        rel_dir = os.path.relpath(dirpath, src)
        for f in sorted(files):
            path = os.path.join(rel_dir, f)
            if f.endswith(keep_ext) or f == "access" or "/crashtext/" in path + "/" and \
                    f.endswith(".txt"):
                if f.endswith((".notes.txt", ".gdb.txt", ".eu-stack.txt")):
                    continue
                found.append(path)
    return found


def corpus_inputs(corpus):
    """The conformance corpus's inputs (logs, captures, cores), when it is
    here (tests/golden/run_golden.sh's CORPUS): all but notes and expected
    outputs."""
    found = []
    for dirpath, dirnames, files in os.walk(corpus):
        dirnames.sort()
        for f in sorted(files):
            if not f.endswith(".md") and ".expected" not in f:
                found.append(os.path.join("corpus", os.path.relpath(os.path.join(dirpath, f),
                                                                    corpus)))
    return found


def analyzers(inp):
    """The command lines of the analyzers and reports on one input."""
    s = inp if inp.startswith("corpus/") else f"src/{inp}"
    return [
        ["etime", s], ["etime", "--by", "filter", s], ["etime", "--by", "client", s],
        ["etime", "--by", "minute", s],
        ["storms", s], ["handshakes", s], ["handshakes", "--by", "client", s],
        ["crashes", s], ["saturation", s], ["cachesize", s], ["timeline", s],
        ["report", "-q", "-o", "-", s], ["report", "-q", "-o", "r.txt", s],
        ["report", "--kind", "digest", "-q", "-o", "-", s],
    ]


INC = ["src/fixtures/incident/access", "src/fixtures/incident/access.20250609-133000.gz"]
MIXES = [
    ["report", "-q", "-o", "-"] + INC + [
        "src/fixtures/incident/tls-storm-incident.pcap", "--crash-time", "2025-06-09T14:24:10Z",
        "--exe", "src/fixtures/cores/bin/segv_chain-O0",
        "src/fixtures/cores/segv_chain/segv_chain-O0-kernel.core.gz"],
    ["report", "--kind", "digest", "-q", "-o", "-",
     "src/fixtures/digest/ldap01/access-20261103.zst",
     "src/fixtures/digest/ldap01/access-20261102.zst",
     "src/fixtures/digest/ldap01/ldap01-20261101.sat",
     "src/fixtures/digest/ldap02/access-20261101.zst", "src/fixtures/digest/ldap02/access.zst"],
    ["report", "--kind", "digest", "-q", "-o", "-", "src/fixtures/digest/ldap01/access-20261103.zst",
     "--baseline", "src/fixtures/digest/ldap01/access-20261102.zst"],
    ["crashes", "--exe", "src/fixtures/cores/bin/abort_threads-O2", "--debuginfo-path",
     "src/fixtures/cores/debug", "src/fixtures/cores/abort_threads/abort_threads-O2-gdb.core.zst"],
    ["crashes", "--crash-time", "2025-06-09T16:24:16.7+02:00", "--exe",
     "src/fixtures/cores/bin/idle_loop-O0", "src/fixtures/cores/killed/idle_loop-O0-kernel.core.gz"]
    + INC,
    ["etime", "--by", "internal", "src/fixtures/internal/access.zst"],
    ["cachesize", "--shards", "--monitor", "src/fixtures/cachesize/monitor-after.ldif", "--ldif",
     "src/fixtures/cachesize/export.ldif", "src/fixtures/cachesize/access.gz"],
    ["storms"] + INC + ["src/fixtures/tls-overload/overload.pcap.zst"],
    ["timeline"] + INC + ["src/fixtures/incident/tls-storm-incident.pcap"],
    ["saturation", "--window", "5m"] + INC,
    ["handshakes", "--window", "2s", "--by", "sni", "src/fixtures/tls/tls-storm.pcap"],
]
HELP = [[c, "--help"] for c in ("collect", "info", "verify", "export", "etime", "handshakes",
                                "saturation", "storms", "crashes", "cachesize", "timeline",
                                "chart", "report")] + [["--help"]]


def run(satscope, argv, cwd):
    """(argv, exit code, the text it printed: standard output, and the .txt
    file it wrote for -o r.txt)."""
    out_file, asked = None, argv
    if "-o" in argv and argv[argv.index("-o") + 1].endswith(".txt"):
        out_file = os.path.join(cwd, f"r{os.getpid()}-{id(argv)}.txt")
        argv = list(argv)
        argv[argv.index("-o") + 1] = out_file
    try:
        p = subprocess.run([satscope] + argv, cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=300)
    except subprocess.TimeoutExpired:
        return asked, -1, b""
    text = p.stdout
    if out_file:
        if os.path.exists(out_file):
            with open(out_file, "rb") as f:
                text = f.read()
            os.unlink(out_file)
    return asked, p.returncode, text


def main():
    satscope, src = sys.argv[1], os.path.abspath(sys.argv[2])
    fails, runs, accepted = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(src, os.path.join(tmp, "src"))
        corpus = os.environ.get("SAT_CORPUS", os.path.join(src, "..", "shared", "corpus"))
        lines = []
        inputs = fixture_inputs(src)
        if os.path.isdir(corpus):
            os.symlink(os.path.abspath(corpus), os.path.join(tmp, "corpus"))
            inputs += corpus_inputs(corpus)
        # each input also as a trace, for info and verify
        traces = []
        for i, inp in enumerate(inputs):
            sat = f"t{i}.sat"
            if inp.endswith(".sat"):
                traces.append((inp, inp if inp.startswith("corpus/") else f"src/{inp}"))
                continue
            where = inp if inp.startswith("corpus/") else f"src/{inp}"
            p = subprocess.run([satscope, "collect", "-q", where, "-o", sat], cwd=tmp,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if p.returncode <= 1 and os.path.exists(os.path.join(tmp, sat)):
                traces.append((inp, sat))
        # damaged traces: cut short, and a byte changed (what verify and info say of them)
        for sat in (sat for inp, sat in traces if inp == "fixtures/incident/access"):
            with open(os.path.join(tmp, sat), "rb") as f:
                whole = f.read()
            with open(os.path.join(tmp, "cut.sat"), "wb") as f:
                f.write(whole[:len(whole) * 2 // 3])
            with open(os.path.join(tmp, "flip.sat"), "wb") as f:
                f.write(whole[:300] + b"X" + whole[301:])
            traces += [("(damaged trace)", "cut.sat"), ("(damaged trace)", "flip.sat")]
        for inp in inputs:
            lines += [(inp, a) for a in analyzers(inp)]
        for inp, sat in traces:
            lines += [(inp, ["info", sat]), (inp, ["verify", sat])]
        # the inputs of one fixture folder together (a log and its capture, rotated logs)
        folders = {}
        for inp in inputs:
            folders.setdefault(os.path.dirname(inp), []).append(inp)
        for folder, group in sorted(folders.items()):
            if len(group) > 1:
                paths = [g if g.startswith("corpus/") else f"src/{g}" for g in group]
                lines += [(folder + "/*", c + paths) for c in
                          (["etime"], ["storms"], ["handshakes"], ["crashes"], ["saturation"],
                           ["timeline"], ["report", "-q", "-o", "-"])]
        lines += [("(several)", m) for m in MIXES] + [("-", h) for h in HELP]
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            jobs = [(inp, pool.submit(run, satscope, a, tmp)) for inp, a in lines]
            for inp, job in jobs:
                argv, code, text = job.result()
                runs += 1
                if code not in (0, 1):
                    continue  # an input this command does not take
                accepted += 1
                for no, line in enumerate(text.decode("utf-8", "replace").split("\n"), 1):
                    n = columns(line)
                    if n > WIDTH:
                        fails.append(f"FAIL: satscope {' '.join(argv)} (fixture {inp}): "
                                     f"line {no} has {n} columns:\n  {line}")
    for f in fails:
        print(f)
    print(f"{runs} runs, {accepted} accepted their input, {len(fails)} lines past {WIDTH} "
          "columns")
    return 1 if fails or not accepted else 0


if __name__ == "__main__":
    sys.exit(main())
