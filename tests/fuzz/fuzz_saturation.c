/*
 * fuzz_saturation.c - libFuzzer target for the saturation analyzer and its
 * USL fit (analyze/saturation.c, usl.c) and its result (saturation_result.c,
 * rendered by the one JSON and CSV writers and as its command's text, the
 * sections of report/sections/section_saturation.c):
 * arbitrary bytes become ldap_op rows (any timestamps and latencies, also
 * negative, huge or absent), tls_hs rows and measured points (any doubles:
 * NaN, infinities, denormals), at an arbitrary window; the analyzer must
 * finish and all three renderings be written without a sanitizer report.
 * Seed corpus: tests/fuzz/corpus/fuzz_saturation/.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "satscope/analyze.h"
#include "satscope/report.h"
#include "satscope/report_doc.h"

#define REC 25 /* kind, then three 8-byte fields */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sat_saturation_opts o;
    memset(&o, 0, sizeof o);
    if (size >= 2) {
        o.window = (sat_dur_ns)data[0] * 250000000; /* 0 (default) .. 63.75 s */
        o.min_ops = data[1] % 4;
        o.cpus = data[1] & 0x40 ? 3 : 0;
        o.resumed_share = (double)(data[1] & 0x30) / 48.0;
        data += 2;
        size -= 2;
    }
    sat_saturation *s = sat_saturation_create(&o);
    if (!s)
        return 0;
    sat_event_sink k = sat_saturation_sink(s);
    for (size_t off = 0; off + REC <= size; off += REC) {
        const uint8_t *r = data + off;
        int64_t a, b, c;
        memcpy(&a, r + 1, 8);
        memcpy(&b, r + 9, 8);
        memcpy(&c, r + 17, 8);
        switch (r[0] % 3) {
        case 0: {
            sat_ldap_op op;
            memset(&op, 0, sizeof op);
            op.ts_ns = a;
            op.result_ts_ns = r[0] & 8 ? a + (b & 0xffffffff) : 0;
            op.etime = r[0] & 16 ? b : SAT_ABSENT;
            op.wtime = c;
            op.optime = r[0] & 32 ? c / 2 : SAT_ABSENT;
            op.err = r[0] & 64 ? 0 : SAT_ABSENT;
            op.type = (uint8_t)(r[0] % SAT_OP__COUNT);
            op.flags = r[0] & 128 ? SAT_OPF_PERSISTENT : 0;
            op.internal_depth = (r[0] & 4) ? 1 : 0;
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &op);
            break;
        }
        case 1: {
            sat_tls_hs h;
            memset(&h, 0, sizeof h);
            h.ts = a;
            h.outcome = (uint8_t)(r[0] >> 4) % SAT_TLS_OUTCOME__COUNT;
            sat_sink_emit(&k, SAT_TABLE_TLS_HS, &h);
            break;
        }
        default: {
            double n, x;
            memcpy(&n, &a, sizeof n);
            memcpy(&x, &b, sizeof x);
            sat_saturation_add_point(s, n, x);
            break;
        }
        }
    }
    sat_saturation_finish(s);
    FILE *out = fopen("/dev/null", "w");
    sat_result *res = sat_result_new("saturation");
    if (out && res && sat_saturation_result(s, res) == SAT_OK) {
        struct sat_report *doc = sat_report_sections(res);
        sat_report_render_opts ro;
        memset(&ro, 0, sizeof ro);
        ro.table_rows = SIZE_MAX;
        if (doc)
            sat_report_renderer_for("-")->render(doc, &ro, out, NULL);
        sat_report_free(doc);
        sat_result_json(res, out, NULL);
        sat_result_csv(res, NULL, out, NULL);
        sat_result_csv(res, "tls_capacity.windows", out, NULL);
    }
    sat_result_free(res);
    if (out)
        fclose(out);
    sat_saturation_free(s);
    return 0;
}
