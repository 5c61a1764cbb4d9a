/*
 * reject.c - how a format reports a line it cannot use: every rejected line is
 * counted in its source, the first few are kept (file, line number, reason,
 * excerpt) in the reject table, and the rest of the input goes on; and the
 * one rule every format applies to the durations it reads (their bound).
 */
#include <inttypes.h>

#include "satscope/parse.h"

#define EXCERPT_MAX 160

int sat_parse_reject(sat_parse_ctx *ctx, uint64_t line_no, const char *reason,
                     const char *line, size_t len)
{
    sat_source *src = ctx->source;
    uint64_t seen = src->rejects++;
    if (seen >= ctx->reject_sample_max || !sat_sink_wants(ctx->sink, SAT_TABLE_REJECT))
        return SAT_OK;

    /* Excerpts go to terminals and JSON: keep printable ASCII, escape the rest
     * as \xNN so NUL and control bytes from a garbage line stay visible. */
    char excerpt[EXCERPT_MAX * 4 + 4];
    size_t o = 0;
    for (size_t i = 0; i < len && o < EXCERPT_MAX; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c >= 0x20 && c < 0x7f) {
            excerpt[o++] = (char)c;
        } else if (c == '\t') {
            excerpt[o++] = ' ';
        } else {
            static const char hex[] = "0123456789abcdef";
            excerpt[o++] = '\\';
            excerpt[o++] = 'x';
            excerpt[o++] = hex[c >> 4];
            excerpt[o++] = hex[c & 15];
        }
    }
    if (o >= EXCERPT_MAX && len > EXCERPT_MAX) {
        memcpy(excerpt + o, "...", 3);
        o += 3;
    }

    sat_reject r;
    r.source = src->id;
    r.line_no = line_no;
    r.reason = sat_str_cstr(reason);
    r.excerpt = sat_str_make(excerpt, o);
    return sat_sink_emit(ctx->sink, SAT_TABLE_REJECT, &r);
}

int sat_parse_reject_nul_(sat_parse_ctx *ctx, uint64_t line_no, const char *line, size_t len,
                          const char *nul, int *rc)
{
    char why[64];
    snprintf(why, sizeof why, "a NUL byte at byte %zu", (size_t)(nul - line) + 1);
    *rc = sat_parse_reject(ctx, line_no, why, line, len);
    return 1;
}

int sat_parse_dur_past(sat_dur_ns ns, const char *field, char *buf, size_t n)
{
    if (ns <= SAT_DUR_PLAUSIBLE_MAX_NS)
        return 0;
    /* the value as the line gave it: seconds, the fraction without its
     * trailing zeros */
    int64_t s = ns / 1000000000, f = ns % 1000000000;
    char frac[12] = "";
    if (f) {
        int w = 9;
        while (f % 10 == 0) {
            f /= 10;
            w--;
        }
        snprintf(frac, sizeof frac, ".%0*" PRId64, w, f);
    }
    snprintf(buf, n, "%s %" PRId64 "%s s is past the plausible bound of %" PRId64 " d", field, s,
             frac, (int64_t)(SAT_DUR_PLAUSIBLE_MAX_NS / (86400 * 1000000000LL)));
    return -1;
}
