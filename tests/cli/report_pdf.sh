#!/bin/bash
# report_pdf.sh SATSCOPE SRC - the PDF report of the bundled incident keeps its
# text as text: pdftotext (poppler-utils, in dev.sh PACKAGES) finds the title,
# every section title, every finding's first words and the inputs; it has
# several pages; the same inputs give the same bytes.
set -u
SATSCOPE=$1
SRC=$2
if ! command -v pdftotext >/dev/null; then
    echo "SKIP: pdftotext (poppler-utils) is not installed; dev.sh PACKAGES installs it"
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
"$SATSCOPE" report -q "${INPUTS[@]}" -o r.pdf || bad "satscope report -o r.pdf failed"
"$SATSCOPE" report -q "${INPUTS[@]}" -o again.pdf || bad "the second run failed"
"$SATSCOPE" report -q "${INPUTS[@]}" -o r.json || bad "satscope report -o r.json failed"
head -c 5 r.pdf | grep -q '%PDF-' || { bad "r.pdf is no PDF"; exit 1; }
cmp -s r.pdf again.pdf || bad "two runs on the same inputs gave different PDFs"
pdftotext -layout r.pdf r.txt || bad "pdftotext failed"
pages=$(grep -c $'\f' r.txt)
[ "$pages" -ge 2 ] || bad "only $pages page(s)"
# pdftotext keeps words; compare with blanks squeezed
tr -s ' \n' '  ' <r.txt >flat.txt
python3 -c 'import json
d=json.load(open("r.json"))
print(d["title"]); print("What happened"); print("Inputs")
for p in d["pages"]:
    for s in p["sections"]:
        print(s["title"])
        for b in s.get("tables", []):
            print(b["title"])
for f in d["findings"]:
    print(" ".join(f["text"].split()[:5]))' >want.txt
n=0
while IFS= read -r t; do
    n=$((n + 1))
    grep -q -F -- "$t" flat.txt || bad "'$t' is not in the PDF's text"
done <want.txt
[ $fail = 0 ] && echo "ok: $pages pages, $n titles and findings found by pdftotext, same bytes twice"
exit $fail
