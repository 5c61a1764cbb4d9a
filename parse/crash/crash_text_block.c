/*
 * crash_text_block.c - an open block of the crash text scanner (crash_text.c):
 * its strings (bounded per field and per block), its frames, its gdb threads,
 * and the slot it takes among SAT_CRASH_TEXT_BLOCKS (the quietest is emitted
 * when all are taken).
 */
#include "crash_text_int.h"

/* ---- blocks: strings, frames, threads ----------------------------------------------- */
cstr sat_ct_keep(sat_crash_text *ct, block *b, const char *p, size_t n)
{
    cstr s = {0, 0, 0};
    if (!p)
        return s;
    if (n > FIELD_MAX)
        n = FIELD_MAX;
    if (b->slen + n > BLOCK_STR_MAX) {
        b->strings_full = 1;
        return s;
    }
    if (SAT_GROW(b->sbuf, b->scap, b->slen + n) != SAT_OK) {
        ct->nomem = 1;
        return s;
    }
    if (n)
        memcpy(b->sbuf + b->slen, p, n);
    s.off = (uint32_t)b->slen;
    s.len = (uint32_t)n;
    s.set = 1;
    b->slen += n;
    return s;
}

sat_str sat_ct_view(const block *b, cstr s)
{
    if (!s.set)
        return SAT_STR_NONE;
    return s.len ? sat_str_make(b->sbuf + s.off, s.len) : sat_str_make("", 0);
}

void sat_ct_add_frame(sat_crash_text *ct, block *b, const fview *v)
{
    if (b->nfr >= ct->opts.max_frames || b->strings_full) {
        ct->stats.frames_dropped++;
        b->flags |= SAT_CRASHF_TRUNCATED;
        b->cur_depth++;
        return;
    }
    if (SAT_GROW(b->fr, b->capfr, b->nfr + 1) != SAT_OK) {
        ct->nomem = 1;
        return;
    }
    cframe *f = &b->fr[b->nfr];
    memset(f, 0, sizeof *f);
    f->thread = b->cur_thread;
    f->depth = b->cur_depth++;
    f->pc = v->pc;
    f->offset = v->offset;
    f->fn_offset = v->fn_offset;
    f->line = v->line;
    f->sigarg = v->sigarg;
    f->flags = v->flags;
    f->module = sat_ct_keep(ct, b, v->module, v->module_len);
    f->function = sat_ct_keep(ct, b, v->function, v->function_len);
    f->file = sat_ct_keep(ct, b, v->file, v->file_len);
    if (v->cut)
        b->flags |= SAT_CRASHF_TRUNCATED;
    b->nfr++;
}

/* Drops the frames of one thread (gdb printed its stack again). */
void sat_ct_drop_thread_frames(block *b, int32_t thread)
{
    size_t o = 0;
    for (size_t i = 0; i < b->nfr; i++)
        if (b->fr[i].thread != thread)
            b->fr[o++] = b->fr[i];
    b->nfr = o;
}

size_t sat_ct_thread_frames(const block *b, int32_t thread)
{
    size_t n = 0;
    for (size_t i = 0; i < b->nfr; i++)
        n += b->fr[i].thread == thread;
    return n;
}

/* Records gdb thread `num` (its LWP if known, else 0). */
void sat_ct_see_thread(sat_crash_text *ct, block *b, int32_t num, int32_t lwp)
{
    for (size_t i = 0; i < b->nth; i++)
        if (b->th[i].num == num) {
            if (lwp)
                b->th[i].lwp = lwp;
            return;
        }
    if (b->nth >= THREADS_MAX) {
        b->threads_untracked++;
        return;
    }
    if (SAT_GROW(b->th, b->capth, b->nth + 1) != SAT_OK) {
        ct->nomem = 1;
        return;
    }
    b->th[b->nth].num = num;
    b->th[b->nth].lwp = lwp;
    b->nth++;
}

void sat_ct_block_clear(block *b)
{
    char *sbuf = b->sbuf;
    cframe *fr = b->fr;
    cthread *th = b->th;
    size_t scap = b->scap, capfr = b->capfr, capth = b->capth;
    memset(b, 0, sizeof *b);
    b->sbuf = sbuf;
    b->scap = scap;
    b->fr = fr;
    b->capfr = capfr;
    b->th = th;
    b->capth = capth;
    b->signal = b->pid = b->orig_signal = SAT_ABSENT;
}

block *sat_ct_new_block(sat_crash_text *ct, int origin)
{
    block *free_b = NULL, *oldest = NULL;
    for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++) {
        block *b = &ct->blocks[i];
        if (!b->origin && !free_b)
            free_b = b;
        if (b->origin && (!oldest || b->last_line < oldest->last_line))
            oldest = b;
    }
    if (!free_b) {
        free_b = oldest; /* more streams at once than slots: the quietest ends */
        int rc = sat_ct_emit_block(ct, free_b);
        if (rc < 0) {
            ct->err = rc;
            return NULL;
        }
    }
    sat_ct_block_clear(free_b);
    free_b->origin = origin;
    free_b->first_line = free_b->last_line = ct->line_no;
    return free_b;
}
