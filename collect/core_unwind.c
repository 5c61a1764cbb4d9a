/*
 * core_unwind.c - the frames of every thread of a core, through elfutils
 * libdwfl (include/satscope/core.h): dwfl_core_file_report (modules from the
 * core's link map and NT_FILE), dwfl_core_file_attach (thread states from
 * NT_PRSTATUS), dwfl_getthreads / dwfl_thread_getframes (CFI from .eh_frame
 * and .debug_frame, libdwfl's frame-pointer fallback when there is none).
 * Each frame is symbolized (function, module, module-relative offset,
 * source file:line with debug info) and emitted as a frame row; the crash
 * row follows, with the facts of parse/core_notes.c and the keys of
 * parse/crash_keys.c.
 *
 * This is collect/ and not parse/ because libdwfl does I/O: it opens the
 * executable and libraries the core names, and debug files by build-id.
 * The lookups: libdwfl's own (the core's paths, the build-id directories of
 * the debuginfo path, --exe for the main executable), then ours: the module
 * under --sysroot, and by base name in the --debuginfo-path directories and
 * the directory of --exe (a build-id, when the core holds one, must match).
 *
 * Which frames the frame-pointer fallback found is not said by libdwfl; it
 * is the frames whose callee has no CFI covering its pc (libdwfl looks in
 * .eh_frame then .debug_frame, and falls back to the frame pointer only when
 * neither covers it): the same lookup is made here.
 *
 * Demangling: libdw has none; with libstdc++ linked (SAT_HAVE_CXA_DEMANGLE)
 * names go through __cxa_demangle, else they stay mangled.
 */
#include "satscope/core.h"
#include "satscope/crash.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <unistd.h>

#ifdef SAT_HAVE_CXA_DEMANGLE
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
#endif

#define DEFAULT_MAX_FRAMES 256u
#define MISSING_MAX 400

typedef struct modinfo {
    Dwfl_Module *mod;
    Dwarf_Addr start, end;
    const char *base;      /* base name ("libc.so.6", "[vdso]"), arena */
    const char *build_id;  /* hex, arena; NULL if unknown */
    int resolved;          /* has_elf / has_symbols computed */
    int has_elf, has_symbols;
    int is_exe;
} modinfo;

typedef struct uw {
    const sat_core_facts *f;
    const void *image;
    size_t len;
    const sat_core_unwind_opts *o;
    const sat_event_sink *sink;
    uint32_t source, crash;
    sat_ts_ns ts;
    Dwfl *dwfl;
    modinfo *mods;         /* sorted by start */
    size_t nmods;
    sat_arena arena;       /* module strings: the whole call */
    sat_arena tarena;      /* one thread's strings */
    sat_arena carena;      /* the crashing thread's frames and strings */
    sat_frame *frames;     /* the thread being walked */
    size_t nframes, cap;
    const sat_frame *crash_frames;
    size_t ncrash;
    int32_t tid, crashing_tid;
    int is_crashing;
    int prev_no_cfi;       /* the previous (callee) frame had no CFI */
    int have_tramp;
    Dwarf_Word tramp_sp;
    int thread_capped;     /* the thread had more than max_frames frames */
    int crashing_cut;
    int rc;                /* a sink's status, or SAT_E_NOMEM */
    uint64_t frames_out;
    uint32_t threads_unwound;
    char warning[256];
} uw;

/* The callbacks libdwfl calls have no user pointer: the unwind in progress
 * on this thread is reached through this. */
static _Thread_local const uw *current;

static void warnf(uw *u, const char *fmt, ...) SAT_PRINTF(2, 3);
static void warnf(uw *u, const char *fmt, ...)
{
    if (u->warning[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->warning, sizeof u->warning, fmt, ap);
    va_end(ap);
}

static const char *arena_str(sat_arena *a, const char *s)
{
    return s ? sat_arena_strdup(a, s, strlen(s)) : NULL;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b && b[1] ? b + 1 : path;
}

static void hex_of(const unsigned char *b, int n, char *out, size_t cap)
{
    static const char hexd[] = "0123456789abcdef";
    size_t k = 0;
    for (int i = 0; i < n && k + 2 < cap; i++) {
        out[k++] = hexd[b[i] >> 4];
        out[k++] = hexd[b[i] & 15];
    }
    out[k] = '\0';
}

/* The base name the core gives the module at addr (its NT_FILE path), NULL
 * if none: a module keeps the name the process knew it by, whatever copy
 * of it --exe or a directory supplied. */
static const char *core_name_at(const sat_core_facts *f, Dwarf_Addr addr)
{
    for (size_t i = 0; i < f->nmodules; i++)
        if (f->modules[i].path && addr >= f->modules[i].start && addr < f->modules[i].end)
            return base_name(f->modules[i].path);
    return NULL;
}

/* ---- finding files -------------------------------------------------------------------- */

/* 1 if the ELF file at path has this build-id (or the module's is unknown). */
static int file_matches(Dwfl_Module *mod, const char *path)
{
    const unsigned char *want;
    GElf_Addr vaddr;
    int wlen = dwfl_module_build_id(mod, &want, &vaddr);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    int ok = 0;
    if (e && elf_kind(e) == ELF_K_ELF) {
        const void *have;
        ssize_t hlen = dwelf_elf_gnu_build_id(e, &have);
        ok = wlen <= 0 || (hlen == wlen && memcmp(have, want, (size_t)wlen) == 0);
    }
    elf_end(e);
    close(fd);
    return ok;
}

/* Tries dir/name; on a match opens it for libdwfl. */
static int try_candidate(Dwfl_Module *mod, const char *dir, size_t dlen, const char *name,
                         char **file_name)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%.*s%s%s", (int)dlen, dir,
                     dlen && dir[dlen - 1] != '/' ? "/" : "", name);
    if (n < 0 || (size_t)n >= sizeof path || !file_matches(mod, path))
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        *file_name = strdup(path);
        if (!*file_name) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

/* Each directory of the --debuginfo-path list and the --exe's directory,
 * tried with each name. */
static int try_dirs(Dwfl_Module *mod, const char *const *names, size_t nnames, char **file_name)
{
    const uw *u = current;
    if (!u)
        return -1;
    const char *list = u->o->debuginfo_path;
    while (list && *list) {
        const char *end = strchr(list, ':');
        size_t dlen = end ? (size_t)(end - list) : strlen(list);
        for (size_t i = 0; dlen && i < nnames; i++) {
            int fd = try_candidate(mod, list, dlen, names[i], file_name);
            if (fd >= 0)
                return fd;
        }
        list = end ? end + 1 : NULL;
    }
    if (u->o->exe) {
        const char *slash = strrchr(u->o->exe, '/');
        const char *dir = slash ? u->o->exe : ".";
        size_t dlen = slash ? (size_t)(slash - u->o->exe) + 1 : 1;
        for (size_t i = 0; i < nnames; i++) {
            int fd = try_candidate(mod, dir, dlen, names[i], file_name);
            if (fd >= 0)
                return fd;
        }
    }
    return -1;
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                    char **file_name, Elf **elfp)
{
    int fd = dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
    if (fd >= 0 || *elfp || !modname || modname[0] == '[')
        return fd;
    const uw *u = current;
    if (u && u->o->sysroot && modname[0] == '/') {
        fd = try_candidate(mod, u->o->sysroot, strlen(u->o->sysroot), modname + 1, file_name);
        if (fd >= 0)
            return fd;
    }
    const char *core_name = u ? core_name_at(u->f, base) : NULL;
    const char *names[2] = {base_name(modname), core_name};
    return try_dirs(mod, names, core_name && strcmp(core_name, names[0]) ? 2 : 1, file_name);
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                          Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
                                          debuglink_file, debuglink_crc, debuginfo_file_name);
    if (fd >= 0 || !modname)
        return fd;
    /* a separate debug file put beside the others: by its debuglink name,
     * or the module's name with ".debug" (also the name the core gives it);
     * a build-id must match */
    const uw *u = current;
    const char *core_name = u ? core_name_at(u->f, base) : NULL;
    char dotdebug[512], core_dotdebug[512];
    snprintf(dotdebug, sizeof dotdebug, "%s.debug", base_name(modname));
    snprintf(core_dotdebug, sizeof core_dotdebug, "%s.debug", core_name ? core_name : "");
    const char *names[3];
    size_t n = 0;
    names[n++] = dotdebug;
    if (core_name && strcmp(core_dotdebug, dotdebug))
        names[n++] = core_dotdebug;
    if (debuglink_file)
        names[n++] = debuglink_file;
    return try_dirs(mod, names, n, debuginfo_file_name);
}

/* ---- modules -------------------------------------------------------------------------- */
typedef struct mod_walk {
    uw *u;
    size_t cap;
} mod_walk;

static int collect_module(Dwfl_Module *mod, void **userdata, const char *name,
                          Dwarf_Addr start, void *arg)
{
    (void)userdata;
    mod_walk *w = arg;
    uw *u = w->u;
    if (u->nmods == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 32;
        modinfo *nm = realloc(u->mods, nc * sizeof *nm);
        if (!nm) {
            u->rc = SAT_E_NOMEM;
            return DWARF_CB_ABORT;
        }
        u->mods = nm;
        w->cap = nc;
    }
    modinfo *mi = &u->mods[u->nmods];
    memset(mi, 0, sizeof *mi);
    mi->mod = mod;
    mi->start = start;
    dwfl_module_info(mod, NULL, NULL, &mi->end, NULL, NULL, NULL, NULL);
    /* the vDSO is "[vdso: PID]": one name for every process, so that
     * fingerprints group across them */
    const char *core_name = core_name_at(u->f, start);
    if (name && strncmp(name, "[vdso", 5) == 0)
        mi->base = "[vdso]";
    else if (core_name)
        mi->base = arena_str(&u->arena, core_name);
    else
        mi->base = arena_str(&u->arena, name ? base_name(name) : "?");
    const unsigned char *bits;
    GElf_Addr vaddr;
    int n = dwfl_module_build_id(mod, &bits, &vaddr);
    if (n > 0) {
        char hex[129];
        hex_of(bits, n, hex, sizeof hex);
        mi->build_id = arena_str(&u->arena, hex);
    }
    if (u->f->exe != SIZE_MAX && u->f->modules[u->f->exe].start >= start &&
        u->f->modules[u->f->exe].start < mi->end)
        mi->is_exe = 1;
    if (!mi->base) {
        u->rc = SAT_E_NOMEM;
        return DWARF_CB_ABORT;
    }
    u->nmods++;
    return DWARF_CB_OK;
}

static int cmp_mod(const void *a, const void *b)
{
    const modinfo *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static modinfo *modinfo_of(uw *u, Dwfl_Module *mod, Dwarf_Addr addr)
{
    size_t lo = 0, hi = u->nmods;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u->mods[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k > 0; k--)
        if (u->mods[k - 1].mod == mod)
            return &u->mods[k - 1];
    for (size_t k = 0; k < u->nmods; k++) /* overlapping ranges: rare */
        if (u->mods[k].mod == mod)
            return &u->mods[k];
    return NULL;
}

static int elf_has_symtab(Elf *e)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
            return 1;
    }
    return 0;
}

/* Whether the module's file was found and has symbols beyond .dynsym. */
static void resolve(modinfo *mi)
{
    if (mi->resolved)
        return;
    mi->resolved = 1;
    Dwarf_Addr bias;
    Elf *e = dwfl_module_getelf(mi->mod, &bias);
    mi->has_elf = e != NULL;
    if (!e)
        return;
    if (elf_has_symtab(e)) {
        mi->has_symbols = 1;
        return;
    }
    dwfl_module_getsymtab(mi->mod); /* looks for the debug file's .symtab */
    const char *mainfile = NULL, *debugfile = NULL;
    dwfl_module_info(mi->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
    mi->has_symbols = debugfile != NULL;
}

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
    if (u->nframes == u->cap) {
        size_t nc = u->cap ? u->cap * 2 : 64;
        sat_frame *nf = realloc(u->frames, nc * sizeof *nf);
        if (!nf) {
            u->rc = SAT_E_NOMEM;
            return DWARF_CB_ABORT;
        }
        u->frames = nf;
        u->cap = nc;
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
    modinfo *mi = mod ? modinfo_of(u, mod, look) : NULL;
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

static int on_thread(Dwfl_Thread *thread, void *arg)
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
static int register_frames(uw *u)
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

/* ---- the crash row ------------------------------------------------------------------------ */
static void add_missing(char *buf, const char *what, const char *name)
{
    size_t l = strlen(buf);
    char item[160];
    snprintf(item, sizeof item, "%s%s%s", what, name && *what ? " " : "", name ? name : "");
    if (strstr(buf, item))
        return;
    if (l + strlen(item) + 3 < MISSING_MAX)
        snprintf(buf + l, MISSING_MAX - l, "%s%s", l ? ", " : "", item);
}

static int emit_crash(uw *u, int unwound, uint16_t *flags_out)
{
    const sat_core_facts *f = u->f;
    sat_crash c;
    memset(&c, 0, sizeof c);
    c.ts = u->ts;
    c.source = u->source;
    c.crash = u->crash;
    c.host = SAT_STR_NONE;
    c.pid = f->pid;
    c.uid = f->uid != SAT_ABSENT ? f->uid : (int32_t)f->at_uid;
    const sat_core_module *exe = f->exe != SIZE_MAX ? &f->modules[f->exe] : NULL;
    c.exe = exe && exe->path ? sat_str_cstr(exe->path)
            : f->execfn      ? sat_str_cstr(f->execfn)
                             : SAT_STR_NONE;
    c.command = f->psargs[0] ? sat_str_cstr(f->psargs)
                : f->fname[0] ? sat_str_cstr(f->fname)
                              : SAT_STR_NONE;
    const char *exe_bid = exe && exe->build_id[0] ? exe->build_id : NULL;
    modinfo *exe_mod = NULL;
    for (size_t i = 0; i < u->nmods; i++)
        if (u->mods[i].is_exe)
            exe_mod = &u->mods[i];
    if (!exe_bid && exe_mod)
        exe_bid = exe_mod->build_id;
    c.build_id = sat_str_cstr(exe_bid);
    c.signal = (f->have & SAT_CORE_HAVE_SIGINFO) && f->si_signo > 0 ? f->si_signo
               : f->nthreads && f->threads[0].cursig > 0       ? f->threads[0].cursig
                                                               : SAT_ABSENT;
    c.si_code = (f->have & SAT_CORE_HAVE_SIGINFO) ? f->si_code : SAT_ABSENT;
    c.fault_addr = f->si_addr_valid ? (int64_t)f->si_addr : SAT_ABSENT;
    if ((f->have & SAT_CORE_HAVE_SIGINFO) && f->si_pid > 0) {
        c.sender_pid = f->si_pid;
        c.sender_uid = f->si_uid;
    }
    c.time_source = u->ts > 0 ? u->o->time_source : SAT_CRASH_TIME_UNKNOWN;
    c.orig_signal = SAT_ABSENT;
    c.orig_fault_addr = SAT_ABSENT;
    c.threads = (int32_t)(f->nthreads ? f->nthreads : u->threads_unwound);
    c.crashing_tid = f->nthreads ? f->threads[0].tid : SAT_ABSENT;
    c.origin = SAT_CRASH_CORE;
    c.arch = f->arch;
    uint16_t flags = f->flags & (SAT_CRASHF_TRUNCATED | SAT_CRASHF_GDB_CORE);

    /* a fatal-signal handler: the kernel's frame on the stack tells which
     * signal entered it (its siginfo, or its saved mask; a few words of the
     * process's memory, read for these two facts only) */
    if (u->have_tramp) {
        flags |= SAT_CRASHF_HANDLER;
        int32_t signo;
        int64_t addr;
        if (u->have_tramp > 0 &&
            sat_core_handler_signal(f, u->image, u->len, u->tramp_sp, &signo, &addr)) {
            c.orig_signal = signo;
            c.orig_fault_addr = addr;
        }
    }

    char missing[MISSING_MAX];
    missing[0] = '\0';
    if (unwound) {
        if (!exe_mod) {
            if (f->exe != SIZE_MAX || f->nmodules)
                add_missing(missing, "executable", NULL);
            flags |= SAT_CRASHF_NO_EXE;
        } else {
            resolve(exe_mod);
            if (!exe_mod->has_elf) {
                flags |= SAT_CRASHF_NO_EXE;
                add_missing(missing, "executable", NULL);
            } else if (!exe_mod->has_symbols) {
                flags |= SAT_CRASHF_NO_SYMBOLS;
                add_missing(missing, "debuginfo of", exe_mod->base);
            }
        }
        /* the modules the crashing thread ran in */
        for (size_t i = 0; i < u->ncrash; i++) {
            const sat_frame *fr = &u->crash_frames[i];
            Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, (Dwarf_Addr)fr->pc -
                                               ((fr->flags & SAT_FRAMEF_INEXACT) ? 1 : 0));
            modinfo *mi = mod ? modinfo_of(u, mod, (Dwarf_Addr)fr->pc) : NULL;
            if (!mi || mi->is_exe || !strcmp(mi->base, "[vdso]"))
                continue;
            resolve(mi);
            if (!mi->has_elf)
                add_missing(missing, "", mi->base);
            else if (!mi->has_symbols)
                add_missing(missing, "debuginfo of", mi->base);
        }
        if (u->crashing_cut)
            flags |= SAT_CRASHF_UNWIND_CUT;
    } else {
        flags |= SAT_CRASHF_UNWIND_CUT;
        add_missing(missing, "unwinding (libdwfl could not read the core)", NULL);
    }
    c.missing = missing[0] ? sat_str_cstr(missing) : SAT_STR_NONE;
    c.flags = flags;
    *flags_out = flags;

    sat_crash_keys keys;
    sat_crash_keys_of(u->crash_frames, u->ncrash, c.build_id, &keys);
    c.fingerprint = sat_str_cstr(keys.fingerprint);
    c.signature = sat_str_cstr(keys.text);
    c.build_key = sat_str_cstr(keys.build_key);
    return sat_sink_emit(u->sink, SAT_TABLE_CRASH, &c);
}

/* ---- the whole core --------------------------------------------------------------------------- */
static char *debuginfo_path_of(const sat_core_unwind_opts *o)
{
    /* the user's directories first (absolute ones are also searched by
     * build-id), then libdwfl's default: "" (beside the file), ".debug"
     * (below it), /usr/lib/debug - under the sysroot too when there is one */
    const char *user = o->debuginfo_path ? o->debuginfo_path : "";
    const char *root = o->sysroot ? o->sysroot : "";
    size_t n = strlen(user) + strlen(root) + 64;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s:.debug:%s%s/usr/lib/debug", user, *user ? ":" : "", root,
                 *root ? "/usr/lib/debug:" : "");
    return p;
}

int sat_core_unwind_emit(void *image, size_t len, const sat_core_facts *f,
                         const sat_core_unwind_opts *o, uint32_t source, uint32_t crash,
                         sat_ts_ns ts, const sat_event_sink *sink,
                         sat_core_unwind_result *res)
{
    sat_core_unwind_opts defaults;
    memset(&defaults, 0, sizeof defaults);
    uw u;
    memset(&u, 0, sizeof u);
    u.f = f;
    u.image = image;
    u.len = len;
    u.o = o ? o : &defaults;
    u.sink = sink;
    u.source = source;
    u.crash = crash;
    u.ts = ts;
    u.crashing_tid = f->nthreads ? f->threads[0].tid : SAT_ABSENT;
    u.arena.chunk_size = u.tarena.chunk_size = u.carena.chunk_size = 16384;
    if (res)
        memset(res, 0, sizeof *res);

    char *dipath = debuginfo_path_of(u.o);
    if (!dipath)
        return SAT_E_NOMEM;
    Dwfl_Callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.find_elf = find_elf;
    cb.find_debuginfo = find_debuginfo;
    cb.debuginfo_path = &dipath;
    current = &u;

    int unwound = 0;
    Elf *elf = NULL;
    elf_version(EV_CURRENT);
    u.dwfl = dwfl_begin(&cb);
    if (u.dwfl)
        elf = elf_memory(image, len);
    if (!u.dwfl || !elf) {
        warnf(&u, "libdwfl cannot read the core: %s", u.dwfl ? elf_errmsg(-1) : dwfl_errmsg(-1));
    } else {
        dwfl_report_begin(u.dwfl);
        int nmod = dwfl_core_file_report(u.dwfl, elf, u.o->exe);
        dwfl_report_end(u.dwfl, NULL, NULL);
        if (nmod < 0) {
            warnf(&u, "libdwfl cannot read the core's modules: %s", dwfl_errmsg(-1));
        } else {
            mod_walk w = {&u, 0};
            dwfl_getmodules(u.dwfl, collect_module, &w, 0);
            if (u.nmods > 1)
                qsort(u.mods, u.nmods, sizeof *u.mods, cmp_mod);
            if (u.rc == SAT_OK && dwfl_core_file_attach(u.dwfl, elf) < 0) {
                warnf(&u, "libdwfl cannot read the core's threads: %s", dwfl_errmsg(-1));
            } else if (u.rc == SAT_OK) {
                unwound = 1;
                int r = dwfl_getthreads(u.dwfl, on_thread, &u);
                if (r < 0 && u.rc == SAT_OK && !u.threads_unwound) {
                    unwound = 0;
                    warnf(&u, "libdwfl cannot walk the core's threads: %s", dwfl_errmsg(-1));
                }
            }
        }
    }
    if (!unwound && u.rc == SAT_OK)
        u.rc = register_frames(&u);
    uint16_t flags = 0;
    if (u.rc == SAT_OK)
        u.rc = emit_crash(&u, unwound, &flags);

    if (res) {
        res->frames = u.frames_out;
        res->threads_unwound = u.threads_unwound;
        res->flags = flags;
        memcpy(res->warning, u.warning, sizeof res->warning);
    }
    current = NULL;
    if (u.dwfl)
        dwfl_end(u.dwfl);
    if (elf)
        elf_end(elf);
    free(u.frames);
    free(u.mods);
    free(dipath);
    sat_arena_free(&u.arena);
    sat_arena_free(&u.tarena);
    sat_arena_free(&u.carena);
    return u.rc;
}
