/*
 * core_crash_row.c - the crash row of a core, after its frames: the facts of
 * parse/core_notes.c (signal, sender, command, threads), the grouping keys of
 * parse/crash_keys.c over the crashing thread's frames, and what was missing
 * (the executable, debug info of a module) to do better.
 */
#include "core_unwind_int.h"

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

int sat_uw_emit_crash(uw *u, int unwound, uint16_t *flags_out)
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
            sat_uw_resolve(exe_mod);
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
            modinfo *mi = mod ? sat_uw_modinfo_of(u, mod, (Dwarf_Addr)fr->pc) : NULL;
            if (!mi || mi->is_exe || !strcmp(mi->base, "[vdso]"))
                continue;
            sat_uw_resolve(mi);
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
