/*
 * crash_text_glibc.c - a run of glibc backtrace_symbols() lines (debug/
 * backtracesyms.c) for the crash text scanner (crash_text.c), with the signal
 * or "*** Error in" of the lines just before that announce it.
 */
#include "crash_text_int.h"

/* ---- glibc ------------------------------------------------------------------------------------ */
/* The lines just before a run that announce it: a signal, "Backtrace:",
 * "Obtained N stack frames", glibc's "*** Error in `prog': ...". Lines
 * another block took are not looked at (they announced that one). */
static void glibc_hint(sat_crash_text *ct, block *b)
{
    sat_ts_ns hint_ts = 0;
    for (size_t k = 1; k <= RING; k++) {
        const ringline *r = &ct->ring[(ct->ring_next + RING - k) % RING];
        if (!r->line_no || r->line_no + HINT_LINES < ct->line_no || r->line_no >= ct->line_no ||
            r->line_no <= ct->last_taken)
            continue;
        const char *p = r->text, *end = r->text + r->len;
        int found = 0;
        const char *q;
        if ((q = find(p, end, "*** Error in `")) != NULL) {
            const char *prog = q + 14, *pe = prog;
            while (pe < end && *pe != '\'')
                pe++;
            if (pe < end && !b->exe.set)
                b->exe = sat_ct_keep(ct, b, prog, (size_t)(pe - prog));
            if (b->signal == SAT_ABSENT)
                b->signal = 6; /* glibc aborts after this message */
            b->glibc_abort = 1;
            found = 1;
        }
        for (q = p; b->signal == SAT_ABSENT && (q = find(q, end, "signal")) != NULL; q += 6) {
            const char *s = skip_blanks(q + 6, end);
            if (s < end && *s == ':')
                s = skip_blanks(s + 1, end);
            int32_t v;
            const char *e = sat_ct_dec_num(s, end, &v);
            if (e && v > 0 && v < 65 && (e == end || !isalnum_((unsigned char)*e))) {
                b->signal = v;
                found = 1;
            }
        }
        for (q = p; b->signal == SAT_ABSENT && (q = find(q, end, "SIG")) != NULL; q += 3) {
            int s = (q == p || !isalnum_((unsigned char)q[-1])) ? sat_ct_sig_word(q, end, NULL) : 0;
            if (s) {
                b->signal = s;
                found = 1;
            }
        }
        static const char *const descs[] = {"Segmentation fault", "Aborted", "Bus error",
                                            "Floating point exception",
                                            "Illegal instruction"};
        for (size_t i = 0; b->signal == SAT_ABSENT && i < sizeof descs / sizeof descs[0]; i++)
            if (find(p, end, descs[i])) {
                b->signal = sat_crash_signal_from_text(descs[i], strlen(descs[i]));
                found = 1;
            }
        if (find(p, end, "acktrace") || find(p, end, "stack frames"))
            found = 1;
        if (found) {
            b->hinted = 1;
            if (!hint_ts)
                hint_ts = sat_ct_ts_in(ct, p, end);
        }
    }
    if (!b->ts)
        b->ts = hint_ts;
}

/* A prefix ending in Ceph's frame number ("... 2:") is an assert block's
 * frame, not a glibc line. */
static int ends_in_frame_number(const char *p, const char *e)
{
    e = trim_end(p, e);
    if (e == p || e[-1] != ':')
        return 0;
    const char *d = e - 1;
    while (d > p && isdig(d[-1]))
        d--;
    return d < e - 1 && (d == p || isblank_(d[-1]));
}

int sat_ct_glibc_line(sat_crash_text *ct, block *b, const char *p, const char *end)
{
    const char *rest = sat_ct_skel_match(b->prefix, b->prefix_len, p, end);
    if (!rest)
        return NOT_MINE;
    rest = skip_blanks(rest, end);
    fview f;
    if (!sat_ct_glibc_frame(rest, end, &f) || f.start != rest)
        return ENDED;
    sat_ct_add_frame(ct, b, &f);
    b->cont_lines++;
    return TAKEN;
}

int sat_ct_glibc_start(sat_crash_text *ct, const char *p, const char *end)
{
    fview f;
    if (!sat_ct_glibc_frame(p, end, &f) || f.bare_pc || ends_in_frame_number(p, f.start))
        return 0;
    block *b = sat_ct_new_block(ct, SAT_CRASH_TEXT_GLIBC);
    if (!b)
        return -1;
    b->prefix_len = sat_ct_set_prefix(b->prefix, p, f.start);
    b->prefix_known = 1;
    memcpy(b->hdr_prefix, b->prefix, b->prefix_len);
    b->hdr_len = b->prefix_len;
    sat_ct_prefix_facts(ct, b, p, f.start);
    glibc_hint(ct, b);
    sat_ct_add_frame(ct, b, &f);
    return 1;
}
