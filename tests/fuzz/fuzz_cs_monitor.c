/*
 * fuzz_cs_monitor.c - libFuzzer target for the cn=monitor LDIF reader of the
 * cachesize analyzer (analyze/cachesize.c sat_cs_monitor_parse): arbitrary
 * bytes are read as ldapsearch output (folded lines, CR LF, base64 values,
 * huge or negative numbers, dn values of any shape); the snapshots found are
 * then given to the analyzer with a few references taken from the same
 * bytes, and both renderings are written, without a sanitizer report.
 * Seed corpus: tests/fuzz/corpus/fuzz_cs_monitor/ (real 389 2.3.1 snapshots
 * from fixtures/cachesize and hand-made edge cases).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "satscope/analyze.h"
#include "satscope/report.h"
#include "satscope/report_doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sat_cs_monitor mon[3];
    size_t cap = size ? (size_t)(data[0] % 3) + 1 : 1;
    size_t n = sat_cs_monitor_parse((const char *)data, size, mon, cap);
    if (n > cap)
        __builtin_trap();
    for (size_t i = 0; i < n; i++)
        if (!memchr(mon[i].backend, 0, sizeof mon[i].backend))
            __builtin_trap(); /* the backend name is always terminated */
    sat_cs_opts o;
    memset(&o, 0, sizeof o);
    o.monitor = mon;
    o.nmonitor = n;
    o.entry_bytes = size > 1 && data[1] & 1 ? 0 : 1500;
    o.targets[0] = 0.5;
    o.ntargets = 1;
    sat_cs *c = sat_cs_create(&o);
    if (!c)
        return 0;
    /* references: the bytes' lines as DNs */
    size_t start = 0;
    for (size_t i = 0; i <= size && i < 4096; i++) {
        if (i == size || data[i] == '\n') {
            sat_cs_add_ref(c, (const char *)data + start, i - start,
                           (sat_ts_ns)1749400000000000000 + (sat_ts_ns)i * 1000000000);
            start = i + 1;
        }
    }
    sat_cs_finish(c);
    FILE *out = fopen("/dev/null", "w");
    if (out) {
        sat_result *r = sat_result_new("cachesize");
        if (r && sat_cs_result(c, r) == SAT_OK) {
            /* the command's text: its sections */
            struct sat_report *doc = sat_report_sections(r);
            sat_report_render_opts ro;
            memset(&ro, 0, sizeof ro);
            ro.table_rows = SIZE_MAX;
            if (doc)
                sat_report_renderer_for("-")->render(doc, &ro, out, NULL);
            sat_report_free(doc);
            sat_result_json(r, out, NULL);
        }
        sat_result_free(r);
        fclose(out);
    }
    sat_cs_free(c);
    return 0;
}
