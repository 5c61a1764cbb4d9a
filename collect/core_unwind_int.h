/*
 * core_unwind_int.h - what the files of one core's unwind share
 * (sat_core_unwind_emit, include/satscope/core.h):
 *
 *   core_unwind.c     the whole core: libdwfl set up, modules, threads, rows
 *   core_modules.c    finding the files of each module, the module table
 *   core_frames.c     each thread's frames, symbolized, as frame rows
 *   core_crash_row.c  the crash row: facts, keys, what was missing
 *
 * Internal to collect/.
 */
#ifndef SAT_CORE_UNWIND_INT_H
#define SAT_CORE_UNWIND_INT_H

#include "satscope/core.h"
#include "satscope/crash.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdarg.h>

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
extern _Thread_local const uw *sat_uw_current;

static inline void warnf(uw *u, const char *fmt, ...) SAT_PRINTF(2, 3);
static inline void warnf(uw *u, const char *fmt, ...)
{
    if (u->warning[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->warning, sizeof u->warning, fmt, ap);
    va_end(ap);
}

static inline const char *arena_str(sat_arena *a, const char *s)
{
    return s ? sat_arena_strdup(a, s, strlen(s)) : NULL;
}

static inline const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b && b[1] ? b + 1 : path;
}

static inline void hex_of(const unsigned char *b, int n, char *out, size_t cap)
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
static inline const char *core_name_at(const sat_core_facts *f, Dwarf_Addr addr)
{
    for (size_t i = 0; i < f->nmodules; i++)
        if (f->modules[i].path && addr >= f->modules[i].start && addr < f->modules[i].end)
            return base_name(f->modules[i].path);
    return NULL;
}

/* ---- core_modules.c: libdwfl's find_elf and find_debuginfo callbacks (our
 * lookups after its own), the module table (dwfl_getmodules' callback, then
 * sorted by start) and the module of an address, its ELF and symbols looked
 * at once (resolve). */
typedef struct mod_walk {
    uw *u;
    size_t cap;
} mod_walk;
int sat_uw_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                    char **file_name, Elf **elfp);
int sat_uw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                          Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name);
int sat_uw_collect_module(Dwfl_Module *mod, void **userdata, const char *name,
                          Dwarf_Addr start, void *arg);
int sat_uw_cmp_mod(const void *a, const void *b);
modinfo *sat_uw_modinfo_of(uw *u, Dwfl_Module *mod, Dwarf_Addr addr);
void sat_uw_resolve(modinfo *mi);

/* ---- core_frames.c: dwfl_getthreads' callback (every frame of the thread,
 * emitted), and the crashing thread's registers as frames when libdwfl could
 * not unwind. Both return SAT_OK or a sink's status (u->rc). */
int sat_uw_on_thread(Dwfl_Thread *thread, void *arg);
int sat_uw_register_frames(uw *u);

/* ---- core_crash_row.c: the crash row, after the frames; *flags_out gets
 * its flags. */
int sat_uw_emit_crash(uw *u, int unwound, uint16_t *flags_out);

#endif /* SAT_CORE_UNWIND_INT_H */
