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
 *
 * This file runs the whole; the modules, frames and crash row are in the
 * files core_unwind_int.h lists.
 */
#include "core_unwind_int.h"

/* The callbacks libdwfl calls have no user pointer: the unwind in progress
 * on this thread is reached through this. */
_Thread_local const uw *sat_uw_current;

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
    cb.find_elf = sat_uw_find_elf;
    cb.find_debuginfo = sat_uw_find_debuginfo;
    cb.debuginfo_path = &dipath;
    sat_uw_current = &u;

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
            dwfl_getmodules(u.dwfl, sat_uw_collect_module, &w, 0);
            if (u.nmods > 1)
                qsort(u.mods, u.nmods, sizeof *u.mods, sat_uw_cmp_mod);
            if (u.rc == SAT_OK && dwfl_core_file_attach(u.dwfl, elf) < 0) {
                warnf(&u, "libdwfl cannot read the core's threads: %s", dwfl_errmsg(-1));
            } else if (u.rc == SAT_OK) {
                unwound = 1;
                int r = dwfl_getthreads(u.dwfl, sat_uw_on_thread, &u);
                if (r < 0 && u.rc == SAT_OK && !u.threads_unwound) {
                    unwound = 0;
                    warnf(&u, "libdwfl cannot walk the core's threads: %s", dwfl_errmsg(-1));
                }
            }
        }
    }
    if (!unwound && u.rc == SAT_OK)
        u.rc = sat_uw_register_frames(&u);
    uint16_t flags = 0;
    if (u.rc == SAT_OK)
        u.rc = sat_uw_emit_crash(&u, unwound, &flags);

    if (res) {
        res->frames = u.frames_out;
        res->threads_unwound = u.threads_unwound;
        res->flags = flags;
        memcpy(res->warning, u.warning, sizeof res->warning);
    }
    sat_uw_current = NULL;
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
