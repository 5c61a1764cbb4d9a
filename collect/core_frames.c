/*
 * core_frames.c - every thread of a core walked frame by frame (libdwfl's
 * CFI unwinder and frame-pointer fallback), each frame symbolized (function,
 * demangled with __cxa_demangle when linked, module-relative offset, source
 * file:line), signal trampolines marked, the frames the fallback found told
 * by the same CFI lookup libdwfl makes; emitted as frame rows, the crashing
 * thread's kept for the crash row's signature.
 */
#include <stdbool.h>

#include "core_unwind_int.h"

#ifdef SAT_HAVE_CXA_DEMANGLE
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
#endif

/* ---- frames --------------------------------------------------------------------------------- */
static const char *demangle(uw *u, sat_arena *a, const char *name)
{
    (void)u;
#ifdef SAT_HAVE_CXA_DEMANGLE
    if (name[0] == '_' && name[1] == 'Z') {
        int status = 0;
        char *d = __cxa_demangle(name, NULL, NULL, &status);
        if (d && status == 0) {
            const char *s = arena_str(a, d);
            free(d);
            return s;
        }
        free(d);
    }
#endif
    return arena_str(a, name);
}

static int is_trampoline_name(const char *fn)
{
    return fn && (!strcmp(fn, "__restore_rt") || !strcmp(fn, "__kernel_rt_sigreturn") ||
                  !strcmp(fn, "__kernel_sigreturn") || !strcmp(fn, "__restore"));
}

/* CFI covering pc (libdwfl's order: .eh_frame, then .debug_frame); *signal
 * set when it is a signal frame's (the trampoline's 'S' augmentation). */
static int has_cfi(Dwfl_Module *mod, Dwarf_Addr pc, int *signal)
{
    *signal = 0;
    for (int pass = 0; pass < 2; pass++) {
        Dwarf_Addr bias;
        Dwarf_CFI *cfi = pass == 0 ? dwfl_module_eh_cfi(mod, &bias)
                                   : dwfl_module_dwarf_cfi(mod, &bias);
        Dwarf_Frame *fr = NULL;
        if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &fr) == 0) {
            bool sig = false;
            dwarf_frame_info(fr, NULL, NULL, &sig);
            *signal = sig;
            free(fr);
            return 1;
        }
    }
    return 0;
}

static unsigned sp_regno(int arch)
{
    switch (arch) {
    case SAT_ARCH_X86_64: return 7;    /* rsp */
    case SAT_ARCH_I386: return 4;      /* esp */
    case SAT_ARCH_AARCH64: return 31;  /* sp */
    default: return 0;
    }
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
    uw *u = arg;
    Dwarf_Addr pc;
    bool activation;
    if (!dwfl_frame_pc(state, &pc, &activation))
        return DWARF_CB_ABORT;
    unsigned max = u->o->max_frames ? u->o->max_frames : DEFAULT_MAX_FRAMES;
    if (u->nframes >= max) {
        u->thread_capped = 1; /* a runaway recursion: its innermost frames tell */
        return DWARF_CB_ABORT;
    }
    if (SAT_GROW(u->frames, u->cap, u->nframes + 1)) {
        u->rc = SAT_E_NOMEM;
        return DWARF_CB_ABORT;
    }
    /* a return address points after the call: look up the call itself */
    Dwarf_Addr look = activation ? pc : pc - 1;
    sat_frame *fr = &u->frames[u->nframes];
    memset(fr, 0, sizeof *fr);
    fr->source = u->source;
    fr->crash = u->crash;
    fr->thread = u->tid;
    fr->depth = (int32_t)u->nframes;
    fr->pc = (int64_t)pc;
    fr->offset = SAT_ABSENT;
    fr->fn_offset = SAT_ABSENT;
    fr->line = SAT_ABSENT;
    if (!activation)
        fr->flags |= SAT_FRAMEF_INEXACT;
    if (u->nframes > 0 && u->prev_no_cfi)
        fr->flags |= SAT_FRAMEF_FP;
    Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, look);
    modinfo *mi = mod ? sat_uw_modinfo_of(u, mod, look) : NULL;
    int signal = 0;
    u->prev_no_cfi = 1;
    if (mi) {
        fr->module = sat_str_cstr(mi->base);
        fr->build_id = sat_str_cstr(mi->build_id);
        fr->offset = (int64_t)(pc - mi->start);
        GElf_Off off = 0;
        GElf_Sym sym;
        const char *name = dwfl_module_addrinfo(mod, look, &off, &sym, NULL, NULL, NULL);
        if (name && *name) {
            const char *fn = demangle(u, &u->tarena, name);
            if (!fn) {
                u->rc = SAT_E_NOMEM;
                return DWARF_CB_ABORT;
            }
            fr->function = sat_str_cstr(fn);
            fr->fn_offset = (int64_t)(off + (pc - look));
        }
        Dwfl_Line *line = u->o->no_source_lines ? NULL : dwfl_module_getsrc(mod, look);
        if (line) {
            int lineno = 0;
            const char *src = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
            if (src) {
                const char *s = arena_str(&u->tarena, src);
                if (!s) {
                    u->rc = SAT_E_NOMEM;
                    return DWARF_CB_ABORT;
                }
                fr->file = sat_str_cstr(s);
                fr->line = lineno > 0 ? lineno : SAT_ABSENT;
            }
        }
        u->prev_no_cfi = !has_cfi(mod, look, &signal);
    }
    if (signal || is_trampoline_name(fr->function.ptr))
        fr->flags |= SAT_FRAMEF_SIGNAL;
    if ((fr->flags & SAT_FRAMEF_SIGNAL) && u->is_crashing && !u->have_tramp) {
        Dwarf_Word sp;
        unsigned reg = sp_regno(u->f->arch);
        if (reg && dwfl_frame_reg(state, reg, &sp) == 0) {
            u->have_tramp = 1;
            u->tramp_sp = sp;
        } else {
            u->have_tramp = -1; /* seen, its stack pointer unknown */
        }
    }
    u->nframes++;
    return DWARF_CB_OK;
}

/* Keeps the crashing thread's frames (and their strings) for the keys. */
static int keep_crash_frames(uw *u)
{
    sat_frame *copy = sat_arena_alloc(&u->carena, (u->nframes ? u->nframes : 1) * sizeof *copy);
    if (!copy)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < u->nframes; i++) {
        copy[i] = u->frames[i];
        sat_str *s[] = {&copy[i].module, &copy[i].build_id, &copy[i].function, &copy[i].file};
        for (size_t k = 0; k < sizeof s / sizeof s[0]; k++)
            if (s[k]->ptr) {
                const char *d = sat_arena_strdup(&u->carena, s[k]->ptr, s[k]->len);
                if (!d)
                    return SAT_E_NOMEM;
                *s[k] = sat_str_make(d, s[k]->len);
            }
    }
    u->crash_frames = copy;
    u->ncrash = u->nframes;
    return SAT_OK;
}

static int emit_thread_frames(uw *u)
{
    if (u->is_crashing) {
        int rc = keep_crash_frames(u);
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < u->nframes; i++) {
        int rc = sat_sink_emit(u->sink, SAT_TABLE_FRAME, &u->frames[i]);
        if (rc < 0)
            return rc;
        u->frames_out++;
    }
    return SAT_OK;
}

int sat_uw_on_thread(Dwfl_Thread *thread, void *arg)
{
    uw *u = arg;
    u->tid = (int32_t)dwfl_thread_tid(thread);
    u->is_crashing = u->crashing_tid != SAT_ABSENT ? u->tid == u->crashing_tid
                                                   : u->threads_unwound == 0;
    u->nframes = 0;
    u->prev_no_cfi = 0;
    u->thread_capped = 0;
    sat_arena_reset(&u->tarena);
    int r = dwfl_thread_getframes(thread, on_frame, u);
    if (u->rc < 0)
        return DWARF_CB_ABORT;
    if (u->thread_capped && u->is_crashing)
        warnf(u, "thread %d: more than %zu frames (a runaway recursion?): the innermost %zu kept",
              (int)u->tid, u->nframes, u->nframes);
    if (r < 0 && u->is_crashing) {
        u->crashing_cut = 1;
        warnf(u, "thread %d: unwinding stopped after %zu frame%s: %s", (int)u->tid,
              u->nframes, u->nframes == 1 ? "" : "s", dwfl_errmsg(-1));
    }
    u->threads_unwound++;
    int rc = emit_thread_frames(u);
    if (rc < 0) {
        u->rc = rc;
        return DWARF_CB_ABORT;
    }
    return DWARF_CB_OK;
}

/* libdwfl could not read the core: one frame per thread from its registers,
 * named by the NT_FILE mapping holding the pc. */
int sat_uw_register_frames(uw *u)
{
    const sat_core_facts *f = u->f;
    for (size_t t = 0; t < f->nthreads; t++) {
        const sat_core_thread *th = &f->threads[t];
        if (!th->regs)
            continue;
        sat_frame fr;
        memset(&fr, 0, sizeof fr);
        fr.source = u->source;
        fr.crash = u->crash;
        fr.thread = th->tid;
        fr.pc = (int64_t)th->pc;
        fr.offset = fr.fn_offset = SAT_ABSENT;
        fr.line = SAT_ABSENT;
        for (size_t m = 0; m < f->nmodules; m++)
            if (th->pc >= f->modules[m].start && th->pc < f->modules[m].end) {
                const char *p = f->modules[m].path;
                fr.module = sat_str_cstr(p ? base_name(p) : NULL);
                fr.build_id = f->modules[m].build_id[0] ? sat_str_cstr(f->modules[m].build_id)
                                                        : SAT_STR_NONE;
                fr.offset = (int64_t)(th->pc - f->modules[m].start);
                break;
            }
        if (t == 0) {
            u->nframes = 1;
            sat_frame *keep = sat_arena_alloc(&u->carena, sizeof *keep);
            if (!keep)
                return SAT_E_NOMEM;
            *keep = fr; /* strings point into the facts, which outlive the call */
            u->crash_frames = keep;
            u->ncrash = 1;
        }
        int rc = sat_sink_emit(u->sink, SAT_TABLE_FRAME, &fr);
        if (rc < 0)
            return rc;
        u->frames_out++;
    }
    return SAT_OK;
}
