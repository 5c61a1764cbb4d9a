/*
 * reject.c - how a format reports a line it cannot use: every rejected line is
 * counted in its source, the first few are kept (file, line number, reason,
 * excerpt) in the reject table, and the rest of the input goes on.
 */
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
