/*
 * crash_text_ceph.c - Ceph's fatal-signal block (src/global/signal_handler.cc
 * with src/common/BackTrace.cc) for the crash text scanner (crash_text.c):
 * its header line starts a block, whose later lines carry the outer layer of
 * the header's prefix.
 */
#include "crash_text_int.h"

/* ---- Ceph ---------------------------------------------------------------------------------- */
enum { C_OTHER = 0, C_BLANK, C_THREAD, C_VERSION, C_FRAME, C_NOTE };

/* What a line of a Ceph block says, from p (past the block's prefix). */
static int ceph_kind(const char *p, const char *end, const char **content)
{
    p = skip_blanks(p, end);
    *content = p;
    if (p >= end || trim_end(p, end) == p)
        return C_BLANK;
    if (starts(p, end, "in thread "))
        return C_THREAD;
    if (starts(p, end, "ceph version "))
        return C_VERSION;
    if (starts(p, end, "NOTE: a copy of the executable"))
        return C_NOTE;
    int32_t n;
    const char *q = sat_ct_dec_num(p, end, &n);
    if (q && q + 1 < end && q[0] == ':' && q[1] == ' ')
        return C_FRAME;
    return C_OTHER;
}

static void ceph_take(sat_crash_text *ct, block *b, int kind, const char *p, const char *end)
{
    end = trim_end(p, end);
    if (kind == C_BLANK)
        return;
    b->cont_lines++;
    if (kind == C_THREAD) {
        int64_t t;
        if (sat_ct_hex_num(p + 10, end, 0, &t))
            b->ceph_thread = (uint64_t)t;
    } else if (kind == C_VERSION) {
        b->version = sat_ct_keep(ct, b, p + 13, (size_t)(end - p - 13));
    } else if (kind == C_FRAME) {
        const char *q = p;
        while (q < end && *q != ':')
            q++;
        q = skip_blanks(q + 1, end);
        fview f;
        sat_ct_ceph_frame(q, end, &f);
        sat_ct_add_frame(ct, b, &f);
    }
}

/* A line offered to a Ceph block. */
int sat_ct_ceph_line(sat_crash_text *ct, block *b, const char *p, const char *end)
{
    const char *rest, *content;
    if (!b->prefix_known) {
        /* the block's later lines carry the outer layer of the header's
         * prefix (or none): learn it from the first of them */
        static const char *const marks[] = {"in thread ", "ceph version ", "1: "};
        for (size_t i = 0; i < 3; i++) {
            const char *m = find(p, end, marks[i]);
            if (!m || (i == 2 && m > p && !isblank_(m[-1])))
                continue;
            const char *pe = trim_end(p, m);
            if (sat_ct_skel_match(p, (size_t)(pe - p), b->hdr_prefix, b->hdr_prefix + b->hdr_len)) {
                b->prefix_len = sat_ct_set_prefix(b->prefix, p, pe);
                b->prefix_known = 1;
                break;
            }
        }
        if (!b->prefix_known) {
            if (trim_end(p, end) == p)
                return TAKEN; /* a blank line before the first */
            return NOT_MINE;
        }
    }
    rest = sat_ct_skel_match(b->prefix, b->prefix_len, p, end);
    if (!rest)
        return NOT_MINE;
    int kind = ceph_kind(rest, end, &content);
    if (kind == C_OTHER)
        return ENDED;
    ceph_take(ct, b, kind, content, end);
    return kind == C_NOTE ? ENDED_TAKEN : TAKEN;
}

/* "*** Caught signal (Segmentation fault) **" in the line: starts a block. */
int sat_ct_ceph_start(sat_crash_text *ct, const char *p, const char *end, const char *sigpos,
                      block **out)
{
    /* sigpos points at "signal" of "Caught signal (" */
    if (sigpos - p < 7 || memcmp(sigpos - 7, "Caught ", 7) != 0 ||
        !starts(sigpos, end, "signal ("))
        return 0;
    const char *c = sigpos - 7;
    const char *stars = c;
    while (stars > p && stars[-1] == ' ')
        stars--;
    int n = 0;
    while (stars > p && stars[-1] == '*') {
        stars--;
        n++;
    }
    if (n < 2)
        return 0;
    const char *name = sigpos + 8, *ne = name;
    while (ne < end && *ne != ')')
        ne++;
    block *b = sat_ct_new_block(ct, SAT_CRASH_TEXT_CEPH);
    if (!b)
        return -1;
    int s = sat_crash_signal_from_text(name, (size_t)(ne - name));
    b->signal = s ? s : SAT_ABSENT;
    b->hdr_len = sat_ct_set_prefix(b->hdr_prefix, p, stars);
    sat_ct_prefix_facts(ct, b, p, stars);
    *out = b;
    return 1;
}
