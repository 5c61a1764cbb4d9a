/*
 * crash_text_emit.c - a finished block of the crash text scanner (crash_text.c)
 * made into rows (event.h): its frames, the crashing thread's first, then one
 * crash row with the keys of crash_keys.c; Ceph's repeated copies of one crash
 * and crashes outside the time window are counted, not emitted.
 */
#include "crash_text_int.h"

/* A module path's last component ("/lib64/libc.so.6" -> "libc.so.6"). */
static sat_str basename_of(sat_str s)
{
    if (!s.ptr)
        return s;
    for (uint32_t i = s.len; i > 0; i--)
        if (s.ptr[i - 1] == '/')
            return sat_str_make(s.ptr + i, s.len - i);
    return s;
}

/* A shared library or the vDSO, not an executable: "libc.so.6", "ld-2.28.so". */
static int is_library(sat_str base)
{
    for (uint32_t i = 0; i + 3 <= base.len; i++)
        if (memcmp(base.ptr + i, ".so", 3) == 0 &&
            (i + 3 == base.len || base.ptr[i + 3] == '.'))
            return 1;
    return (base.len >= 6 && memcmp(base.ptr, "[vdso]", 6) == 0) ||
           (base.len >= 10 && memcmp(base.ptr, "linux-vdso", 10) == 0);
}

/* ---- emitting a block ----------------------------------------------------------------- */
/* a is b, or b cut at a frame boundary ("?|?" of "?|?|?:f|..."), or none */
static int same_or_cut(const char *a, const char *b)
{
    size_t n = strlen(a);
    return strcmp(a, "?") == 0 || (strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '|'));
}

/* Ceph writes a crash's block into its log, then again in the "dump of
 * recent events" ("     0> ..."), and to stderr: the same thread, signal and
 * frames (one copy may be cut) at the same time (or one copy without one). */
static int is_duplicate(sat_crash_text *ct, const block *b, const char *text)
{
    if (!b->ceph_thread)
        return 0;
    for (size_t i = 0; i < ct->seen_n; i++) {
        const seen_crash *s = &ct->seen[i];
        if (s->signal == b->signal && s->thread == b->ceph_thread &&
            (s->ts == b->ts || !s->ts || !b->ts) &&
            (same_or_cut(s->text, text) || same_or_cut(text, s->text)))
            return 1;
    }
    return 0;
}

static int emittable(const block *b)
{
    switch (b->origin) {
    case SAT_CRASH_TEXT_CEPH:
        return b->cont_lines > 0;
    case SAT_CRASH_TEXT_GLIBC:
        return b->nfr >= 2 || (b->nfr >= 1 && b->hinted);
    case SAT_CRASH_TEXT_GDB:
        return b->nfr > 0 || b->had_signal_line || b->had_core_line;
    default:
        return 0;
    }
}

static int32_t lwp_of(const block *b, int32_t num)
{
    for (size_t i = 0; i < b->nth; i++)
        if (b->th[i].num == num)
            return b->th[i].lwp;
    return 0;
}

static int32_t num_of_lwp(const block *b, int32_t lwp)
{
    for (size_t i = 0; i < b->nth; i++)
        if (b->th[i].lwp == lwp)
            return b->th[i].num;
    return 0;
}

/* gdb: which thread crashed, and thread 0's frames (a "bt" before "thread
 * apply all bt", or the stop location) folded into it. */
static int32_t gdb_crash_thread(block *b)
{
    int32_t t = b->crash_thread;
    if (!t && b->crash_lwp)
        t = num_of_lwp(b, b->crash_lwp);
    size_t zero = sat_ct_thread_frames(b, 0);
    if (t) {
        if (zero && sat_ct_thread_frames(b, t))
            sat_ct_drop_thread_frames(b, 0); /* the same stack, printed under its header too */
        else if (zero)
            for (size_t i = 0; i < b->nfr; i++)
                if (b->fr[i].thread == 0)
                    b->fr[i].thread = t;
        return t;
    }
    if (zero)
        return 0;
    return b->nfr ? b->fr[0].thread : 0; /* the first thread printed */
}

/* A backtrace written by a fatal-signal handler (Ceph's; a program's that
 * calls backtrace_symbols) starts with the handler, then the kernel's signal
 * trampoline - glibc's __restore_rt, not exported, so written without a name
 * ("(()+0x12cf0)", "libc.so.6(+0x3c050)") - then the faulting code. The
 * trampoline is the last of the first two frames that have no function and
 * are in libc, libpthread or an unnamed module (the handler, when written,
 * is frame 1: "ceph-mon() [0x80fdea]", "(()+0x946e4e)"); the fingerprint
 * starts below it. */
static void mark_trampoline(block *b)
{
    cframe *t = NULL;
    for (size_t i = 0; i < b->nfr && i < 2; i++) {
        cframe *f = &b->fr[i];
        if (f->thread != 0 || f->function.set)
            continue;
        sat_str m = basename_of(sat_ct_view(b, f->module));
        if (!m.ptr || (m.len >= 7 && memcmp(m.ptr, "libc.so", 7) == 0) ||
            (m.len >= 13 && memcmp(m.ptr, "libpthread.so", 13) == 0))
            t = f;
    }
    if (t)
        t->flags |= SAT_FRAMEF_SIGNAL;
}

int sat_ct_emit_block(sat_crash_text *ct, block *b)
{
    int rc = SAT_OK;
    if (!emittable(b) || ct->nomem)
        goto done;
    int32_t crash_thread = b->origin == SAT_CRASH_TEXT_GDB ? gdb_crash_thread(b) : 0;
    if (b->origin == SAT_CRASH_TEXT_CEPH || (b->origin == SAT_CRASH_TEXT_GLIBC &&
                                             b->signal != SAT_ABSENT && !b->glibc_abort))
        mark_trampoline(b);

    /* the crashing thread's frames, innermost first, for the keys */
    size_t n = 0;
    if (SAT_GROW(ct->scratch, ct->scratch_cap, b->nfr) != SAT_OK) {
        ct->nomem = 1;
        rc = SAT_E_NOMEM;
        goto done;
    }
    int handler = 0;
    int32_t orig = SAT_ABSENT;
    for (size_t i = 0; i < b->nfr; i++) {
        const cframe *c = &b->fr[i];
        if (c->thread != crash_thread)
            continue;
        sat_frame *f = &ct->scratch[n];
        memset(f, 0, sizeof *f);
        f->thread = c->thread;
        f->depth = c->depth;
        f->pc = c->pc;
        f->offset = c->offset;
        f->fn_offset = c->fn_offset;
        f->line = c->line;
        f->flags = c->flags;
        f->module = basename_of(sat_ct_view(b, c->module));
        f->function = sat_ct_view(b, c->function);
        f->file = sat_ct_view(b, c->file);
        f->build_id = SAT_STR_NONE;
        if ((c->flags & SAT_FRAMEF_SIGNAL) && !handler && b->origin == SAT_CRASH_TEXT_GDB) {
            /* gdb's signal line names the handler's own signal (its abort);
             * the fault that entered the handler sits above the trampoline */
            handler = 1;
            if (n > 0 && b->fr[i - 1].thread == crash_thread && b->fr[i - 1].sigarg > 0)
                orig = b->fr[i - 1].sigarg;
        }
        n++;
    }
    sat_crash_keys keys;
    sat_crash_keys_of(ct->scratch, n, sat_ct_view(b, b->version), &keys);

    if (b->origin == SAT_CRASH_TEXT_CEPH) {
        if (is_duplicate(ct, b, keys.text)) {
            ct->stats.duplicates++;
            goto done;
        }
        seen_crash *s = &ct->seen[ct->seen_next];
        s->ts = b->ts;
        s->signal = b->signal;
        s->thread = b->ceph_thread;
        memcpy(s->text, keys.text, sizeof s->text);
        ct->seen_next = (ct->seen_next + 1) % DEDUP_KEEP;
        if (ct->seen_n < DEDUP_KEEP)
            ct->seen_n++;
    }
    if (b->ts && ((ct->opts.from_ns && b->ts < ct->opts.from_ns) ||
                  (ct->opts.to_ns && b->ts >= ct->opts.to_ns))) {
        ct->stats.outside_window++;
        goto done;
    }

    uint32_t id = ++ct->next_crash;
    /* frame rows: the crashing thread first, then the others as printed */
    for (int pass = 0; pass < 2 && rc >= 0; pass++)
        for (size_t i = 0; i < b->nfr && rc >= 0; i++) {
            const cframe *c = &b->fr[i];
            if ((c->thread == crash_thread) != (pass == 0))
                continue;
            sat_frame f;
            memset(&f, 0, sizeof f);
            f.source = ct->opts.source;
            f.crash = id;
            f.thread = c->thread;
            f.depth = c->depth;
            f.pc = c->pc;
            f.module = basename_of(sat_ct_view(b, c->module));
            f.build_id = SAT_STR_NONE;
            f.offset = c->offset;
            f.function = sat_ct_view(b, c->function);
            f.fn_offset = c->fn_offset;
            f.file = sat_ct_view(b, c->file);
            f.line = c->line;
            f.flags = c->flags;
            rc = sat_sink_emit(ct->sink, SAT_TABLE_FRAME, &f);
            ct->stats.frames++;
        }
    if (rc < 0)
        goto done;

    sat_crash c;
    memset(&c, 0, sizeof c);
    c.ts = b->ts;
    c.time_source = b->ts > 0 ? SAT_CRASH_TIME_LOG : SAT_CRASH_TIME_UNKNOWN;
    c.source = ct->opts.source;
    c.crash = id;
    c.host = sat_ct_view(b, b->host);
    c.pid = b->pid;
    c.uid = SAT_ABSENT;
    /* the executable: what the text names (gdb's core line, glibc's error
     * line), else the first module that is not a library, else the syslog tag */
    sat_str exe = sat_ct_view(b, b->exe);
    for (size_t i = 0; !exe.ptr && i < b->nfr; i++) {
        sat_str m = sat_ct_view(b, b->fr[i].module);
        if (m.ptr && m.len && !is_library(basename_of(m)))
            exe = m;
    }
    if (!exe.ptr)
        exe = sat_ct_view(b, b->tag);
    c.exe = exe;
    c.command = sat_ct_view(b, b->command);
    c.build_id = SAT_STR_NONE;
    c.signal = b->signal;
    c.si_code = SAT_ABSENT;
    c.fault_addr = SAT_ABSENT;
    c.orig_signal = handler ? orig : SAT_ABSENT;
    c.orig_fault_addr = SAT_ABSENT;
    if (b->origin == SAT_CRASH_TEXT_GDB) {
        uint64_t nthreads = (uint64_t)b->nth + b->threads_untracked;
        c.threads = nthreads ? (int32_t)(nthreads < INT32_MAX ? nthreads : INT32_MAX) : 1;
        int32_t lwp = crash_thread ? lwp_of(b, crash_thread) : 0;
        c.crashing_tid = lwp ? lwp : b->crash_lwp ? b->crash_lwp : SAT_ABSENT;
    } else {
        c.threads = 1;
        c.crashing_tid = SAT_ABSENT;
    }
    c.origin = (uint8_t)b->origin;
    c.arch = SAT_ARCH_UNKNOWN;
    if (!b->nfr)
        b->flags |= SAT_CRASHF_TRUNCATED;
    if (handler)
        b->flags |= SAT_CRASHF_HANDLER;
    if (b->unwind_cut_thread && b->unwind_cut_thread - 1 == crash_thread)
        b->flags |= SAT_CRASHF_UNWIND_CUT;
    c.flags = b->flags;
    c.fingerprint = sat_str_cstr(keys.fingerprint);
    c.signature = sat_str_cstr(keys.text);
    c.build_key = sat_str_cstr(keys.build_key);
    c.missing = b->nfr ? SAT_STR_NONE : sat_str_cstr("frames");
    rc = sat_sink_emit(ct->sink, SAT_TABLE_CRASH, &c);
    ct->stats.crashes++;
    ct->stats.by_origin[b->origin]++;
    if (b->flags & SAT_CRASHF_TRUNCATED)
        ct->stats.partial++;
done:
    sat_ct_block_clear(b);
    return rc < 0 ? rc : ct->nomem ? SAT_E_NOMEM : SAT_OK;
}
