
/*
 * crash_text.c - crash reports written as text inside log files (crash.h):
 * found line by line among a log's other lines, each turned into its frame
 * rows and a crash row (event.h). The three shapes are the programs' own:
 *
 *  - Ceph's fatal-signal block (src/global/signal_handler.cc with
 *    src/common/BackTrace.cc): "*** Caught signal (NAME) **", " in thread HEX
 *    thread_name:NAME", " ceph version V (SHA) name (stable)", frames " N: F"
 *    where F is "(demangled+0xOFF) [0xPC]" ("(()+0xOFF)" when the symbol was
 *    unknown), a raw backtrace_symbols() string "module(+0xOFF) [0xPC]" or,
 *    in newer versions, a bare "gsignal()", and a closing " NOTE: a copy of
 *    the executable ..." line.
 *  - glibc's backtrace_symbols() / backtrace_symbols_fd() (debug/
 *    backtracesyms.c): "module(function+0xOFF)[0xPC]", "module(+0xOFF)[0xPC]"
 *    (offset in the module when no symbol), "[0xPC]" when dladdr failed.
 *  - gdb's frame printing (gdb/stack.c): "#N  0xPC in function (args) at
 *    file:line" or "... from /path/lib.so", no "0xPC in" when the pc is at a
 *    line's start or the frame is inlined, "<signal handler called>" for the
 *    kernel's trampoline; "Thread N (Thread 0x.. (LWP L) "name"):" headers of
 *    "thread apply all bt", and the session lines around them.
 *
 * A line can carry a prefix before the crash text (a timestamp, "host
 * prog[pid]: ", "INFO:tasks.osd.0.stderr:"). A block remembers its prefix and
 * takes the later lines that start with the same prefix up to digits and blank
 * runs (the prefix's "skeleton"): the blocks of two streams written into one
 * file at once stay apart, and an ordinary line of the block's own stream ends
 * it. Nothing here does I/O; memory is bounded (crash.h).
 */
#include "crash_text_int.h"

/* ---- the scanner ---------------------------------------------------------------------------------- */
sat_crash_text *sat_crash_text_create(const sat_crash_text_opts *opts,
                                      const sat_event_sink *sink)
{
    if (!sink)
        return NULL;
    sat_crash_text *ct = calloc(1, sizeof *ct);
    if (!ct)
        return NULL;
    if (opts)
        ct->opts = *opts;
    if (!ct->opts.max_frames)
        ct->opts.max_frames = FRAMES_DEFAULT;
    ct->sink = sink;
    ct->year = ct->opts.default_year; /* 0: from the first syslog line */
    for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++)
        sat_ct_block_clear(&ct->blocks[i]);
    return ct;
}

/* The open blocks in the order a line is offered to them: the longest
 * prefix first, so that a stream's own block takes its lines before a block
 * whose prefix is empty (which matches every line). */
static size_t offer_order(sat_crash_text *ct, block **order)
{
    size_t n = 0;
    for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++)
        if (ct->blocks[i].origin)
            order[n++] = &ct->blocks[i];
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            size_t a = order[j - 1]->prefix_known ? order[j - 1]->prefix_len : order[j - 1]->hdr_len;
            size_t c = order[j]->prefix_known ? order[j]->prefix_len : order[j]->hdr_len;
            if (c > a || (c == a && order[j]->first_line > order[j - 1]->first_line)) {
                block *t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        }
    return n;
}

static int offer(sat_crash_text *ct, const char *p, const char *end, int *taken)
{
    block *order[SAT_CRASH_TEXT_BLOCKS];
    size_t n = offer_order(ct, order);
    *taken = 0;
    for (size_t i = 0; i < n; i++) {
        block *b = order[i];
        int r;
        if (b->origin == SAT_CRASH_TEXT_CEPH)
            r = sat_ct_ceph_line(ct, b, p, end);
        else if (b->origin == SAT_CRASH_TEXT_GLIBC)
            r = sat_ct_glibc_line(ct, b, p, end);
        else
            r = sat_ct_gdb_line(ct, b, p, end);
        if (r == NOT_MINE)
            continue;
        b->last_line = ct->line_no;
        if (r == TAKEN || r == ENDED_TAKEN)
            ct->last_taken = ct->line_no;
        if (r == TAKEN) {
            *taken = 1;
            return SAT_OK;
        }
        *taken = r == ENDED_TAKEN;
        return sat_ct_emit_block(ct, b);
    }
    return SAT_OK;
}

static int start(sat_crash_text *ct, const char *p, const char *end)
{
    block *b;
    const char *sig = find(p, end, "signal");
    int r = 0;
    for (const char *s = sig; s && !r; s = find(s + 6, end, "signal"))
        r = sat_ct_ceph_start(ct, p, end, s, &b);
    if (!r) {
        const char *m = sat_ct_gdb_marker(p, end, sig);
        r = m ? sat_ct_gdb_start(ct, p, end, m) : sat_ct_glibc_start(ct, p, end);
    }
    if (r < 0)
        return ct->err;
    if (r > 0)
        ct->last_taken = ct->line_no; /* the block's first line */
    return SAT_OK;
}

int sat_crash_text_line(sat_crash_text *ct, const char *line, size_t len, uint64_t line_no)
{
    if (!ct || ct->finished)
        return SAT_E_USAGE;
    if (len > SAT_CRASH_TEXT_LINE_MAX) {
        len = SAT_CRASH_TEXT_LINE_MAX;
        ct->stats.lines_cut++;
    }
    const char *p = line, *end = trim_end(line, line + len);
    ct->line_no = line_no;
    int taken, rc = offer(ct, p, end, &taken);
    if (rc >= 0 && !taken)
        rc = sat_ct_kernel_line(ct, p, end, &taken);
    if (rc >= 0 && !taken)
        rc = start(ct, p, end);
    /* blocks whose stream went quiet */
    for (int i = 0; rc >= 0 && i < SAT_CRASH_TEXT_BLOCKS; i++) {
        block *b = &ct->blocks[i];
        if (b->origin && b->last_line + SAT_CRASH_TEXT_STALE < line_no)
            rc = sat_ct_emit_block(ct, b);
    }
    ringline *r = &ct->ring[ct->ring_next];
    r->line_no = line_no;
    r->len = (size_t)(end - p) < RING_LINE ? (size_t)(end - p) : RING_LINE;
    memcpy(r->text, p, r->len);
    ct->ring_next = (ct->ring_next + 1) % RING;
    if (rc >= 0 && ct->nomem)
        rc = SAT_E_NOMEM;
    return rc;
}

int sat_crash_text_finish(sat_crash_text *ct)
{
    if (!ct || ct->finished)
        return SAT_OK;
    ct->finished = 1;
    int rc = SAT_OK;
    /* in the order they started, so crash numbers follow the text */
    for (;;) {
        block *first = NULL;
        for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++)
            if (ct->blocks[i].origin && (!first || ct->blocks[i].first_line < first->first_line))
                first = &ct->blocks[i];
        if (!first)
            break;
        int r = sat_ct_emit_block(ct, first);
        if (r < 0 && rc >= 0)
            rc = r;
    }
    return rc;
}

void sat_crash_text_get_stats(const sat_crash_text *ct, sat_crash_text_stats *out)
{
    if (ct && out)
        *out = ct->stats;
}

void sat_crash_text_free(sat_crash_text *ct)
{
    if (!ct)
        return;
    for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++) {
        free(ct->blocks[i].sbuf);
        free(ct->blocks[i].fr);
        free(ct->blocks[i].th);
    }
    free(ct->scratch);
    free(ct);
}
