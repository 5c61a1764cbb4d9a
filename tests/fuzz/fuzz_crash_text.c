/*
 * fuzz_crash_text.c - libFuzzer target for the crash-text scanner
 * (parse/crash/crash_text.c): arbitrary bytes are split into lines, each in its own
 * heap copy with no NUL after it (as collect/ hands lines over, so a read past
 * a line's end is caught by ASan), and fed through one scanner whose sink
 * touches every byte of every borrowed string and checks the row contract:
 * frames come before their crash row, crash numbers run from 1, depths are
 * not negative. The first byte picks a small frame bound (so the bound is
 * crossed) and the syslog year.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/crash.h"

static volatile size_t fuzz_touched;

typedef struct fstate {
    uint32_t crashes;      /* crash rows seen */
    uint32_t pending;      /* crash number of the frames seen since the last crash row */
    size_t pending_frames;
} fstate;

static void touch(sat_str s)
{
    for (uint32_t k = 0; s.ptr && k < s.len; k++)
        fuzz_touched += (unsigned char)s.ptr[k];
}

static int on_frame(void *ctx, const sat_frame *f)
{
    fstate *st = ctx;
    touch(f->module);
    touch(f->function);
    touch(f->file);
    touch(f->build_id);
    if (f->crash != st->crashes + 1 || f->depth < 0)
        abort(); /* frames belong to the crash row that follows them */
    st->pending_frames++;
    return 0;
}

static int on_crash(void *ctx, const sat_crash *c)
{
    fstate *st = ctx;
    touch(c->host);
    touch(c->exe);
    touch(c->command);
    touch(c->build_id);
    touch(c->fingerprint);
    touch(c->build_key);
    touch(c->missing);
    if (c->crash != ++st->crashes || c->origin < SAT_CRASH_TEXT_CEPH ||
        c->origin > SAT_CRASH_TEXT_KERNEL || c->threads < 1)
        abort();
    st->pending_frames = 0;
    return 0;
}

static int rows_crash_frame(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_CRASH:
        return on_crash(ctx, (const sat_crash *)row);
    case SAT_TABLE_FRAME:
        return on_frame(ctx, (const sat_frame *)row);
    default:
        return 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fstate st;
    memset(&st, 0, sizeof st);
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.ctx = &st;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_CRASH) | SAT_TABLE_BIT(SAT_TABLE_FRAME);
    sink.on_row = rows_crash_frame;
    sat_crash_text_opts o;
    memset(&o, 0, sizeof o);
    o.default_year = size ? 1990 + data[0] % 60 : 2025;
    o.max_frames = size && (data[0] & 0x80) ? 3 : 0;
    sat_crash_text *ct = sat_crash_text_create(&o, &sink);
    if (!ct)
        return 0;
    const char *p = (const char *)data, *end = p + size;
    uint64_t line_no = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        char *line = malloc(n ? n : 1);
        if (!line)
            break;
        memcpy(line, p, n);
        sat_crash_text_line(ct, line, n, ++line_no);
        (void)sat_crash_signal_from_text(line, n < 32 ? n : 32);
        free(line);
        p = nl ? nl + 1 : end;
    }
    sat_crash_text_finish(ct);
    if (st.pending_frames)
        abort(); /* frames left without their crash row */
    sat_crash_text_free(ct);
    return 0;
}
