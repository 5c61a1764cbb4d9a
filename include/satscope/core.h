/*
 * core.h - ELF core files (issue 5, "Collecting core files").
 *
 * Two layers, as the pipeline's stages (DESIGN.md):
 *  1. parse/crash/core_notes.c (sat_parse, pure, no I/O): the facts of a core from
 *     its bytes alone - architecture, every thread's NT_PRSTATUS (tid, signal,
 *     pc/sp/fp), NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE and the GNU
 *     build-id of each mapped module read from the core's own PT_LOAD pages.
 *     Every offset and size in the file is checked before use; a core cut
 *     short yields the facts it still holds and SAT_CRASHF_TRUNCATED.
 *  2. collect/core_unwind.c (sat_collect, elfutils libdwfl): every thread
 *     unwound (.eh_frame / .debug_frame CFI, libdwfl's frame-pointer
 *     fallback), each frame symbolized, emitted as frame rows then one crash
 *     row (event.h). Executables and debug files are found by build-id, by
 *     the core's own paths (under a sysroot) and in the directories given.
 *
 * Specs: System V gABI (ELF header, program headers, notes); Linux
 * include/uapi/linux/elfcore.h and arch/{x86,arm64}/include/asm/elf.h for the
 * note layouts (elf_prstatus, elf_prpsinfo, siginfo_t, NT_FILE); the kernel's
 * rt_sigframe (arch/x86/include/asm/sigframe.h, arch/arm64/kernel/signal.c)
 * for the siginfo a signal handler's frame holds. Only little-endian cores
 * are decoded (x86_64, aarch64, i386; other machines: tid and signal only).
 *
 * Secrets: a core is the memory of a process. The facts below are the
 * command, its arguments, paths, ids, signal numbers, addresses and build-ids;
 * registers stay here (pc/sp/fp, to find frames) and never become rows.
 */
#ifndef SATSCOPE_CORE_H
#define SATSCOPE_CORE_H

#include "satscope/event.h"

/* ---- parse/crash/core_notes.c --------------------------------------------------- */

/* 1 if head (at least 18 bytes) starts an ELF core (ET_CORE, either byte
 * order, either class), else 0. */
int sat_core_sniff(const void *head, size_t n);

enum sat_core_have {            /* which notes were found */
    SAT_CORE_HAVE_PRPSINFO = 1 << 0,
    SAT_CORE_HAVE_SIGINFO = 1 << 1, /* the crashing (first) thread's NT_SIGINFO */
    SAT_CORE_HAVE_AUXV = 1 << 2,
    SAT_CORE_HAVE_FILE = 1 << 3,
    SAT_CORE_HAVE_NOTES = 1 << 4    /* a PT_NOTE segment was read (maybe in part) */
};

typedef struct sat_core_thread {
    int32_t tid;              /* pr_pid of its NT_PRSTATUS */
    int32_t cursig;           /* pr_cursig: the signal that stopped it, 0 none */
    uint8_t regs;             /* 1: pc/sp/fp below were read (known arch, whole
                                 register block present) */
    uint64_t sighold;         /* pr_sighold: blocked signals, bit n-1 for signal n
                                 (gdb leaves it 0) */
    uint64_t pc, sp, fp;      /* rip/rsp/rbp, pc/sp/x29, eip/esp/ebp */
} sat_core_thread;

typedef struct sat_core_mapping {   /* one NT_FILE entry */
    uint64_t start, end;      /* [start, end) in the process */
    uint64_t offset;          /* file offset in bytes (page offset * page size) */
    const char *path;         /* NUL-terminated, owned by the facts */
} sat_core_mapping;

typedef struct sat_core_module {    /* a mapped ELF file, or an ELF image in the core */
    const char *path;         /* NT_FILE path; "[vdso]"; NULL when only its ELF
                                 header was found in the core's pages */
    uint64_t start, end;      /* lowest start, highest end of its mappings */
    char build_id[129];       /* hex GNU build-id read from the core's pages, "" if
                                 the pages holding it were not dumped */
    uint8_t is_exe;           /* the main executable (it holds AT_PHDR / AT_ENTRY) */
} sat_core_module;

typedef struct sat_core_load {      /* a PT_LOAD: process memory the core may hold */
    uint64_t vaddr, memsz;
    uint64_t offset, filesz;  /* filesz already cut to the bytes the file has */
} sat_core_load;

typedef struct sat_core_facts {
    uint8_t elfclass;         /* 32 or 64 */
    uint8_t arch;             /* enum sat_crash_arch */
    uint16_t machine;         /* e_machine as read */
    uint16_t flags;           /* SAT_CRASHF_TRUNCATED, SAT_CRASHF_GDB_CORE */
    uint32_t have;            /* enum sat_core_have */
    /* NT_PRPSINFO */
    int32_t pid, ppid, uid, gid; /* SAT_ABSENT without the note */
    char fname[17];           /* pr_fname (the kernel cuts it at 15 bytes) */
    char psargs[81];          /* pr_psargs: the command line, cut at 80 bytes */
    /* NT_SIGINFO of the crashing thread */
    int32_t si_signo, si_errno, si_code;
    uint64_t si_addr;         /* meaningful for a fault (si_code > 0 and a
                                 SIGSEGV/SIGBUS/SIGILL/SIGFPE/SIGTRAP) */
    int si_addr_valid;
    int32_t si_pid, si_uid;   /* the sender of a signal sent by a process (si_code
                                 SI_USER 0, SI_QUEUE -1, SI_MESGQ -3, SI_TKILL -6: the
                                 union's first member is then {si_pid, si_uid});
                                 0 otherwise */
    /* NT_AUXV (0 when absent) */
    uint64_t at_phdr, at_entry, at_base, at_pagesz, at_sysinfo_ehdr, at_execfn;
    int64_t at_uid, at_euid, at_gid, at_egid, at_secure; /* SAT_ABSENT if absent */
    const char *execfn;       /* the AT_EXECFN string, read from the core's
                                 memory; NULL if not dumped */
    /* arrays, owned by the facts */
    sat_core_thread *threads; /* in note order: threads[0] is the crashing one */
    size_t nthreads;
    sat_core_mapping *maps;
    size_t nmaps;
    sat_core_module *modules; /* NT_FILE order, then the images found only in
                                 the core's pages */
    size_t nmodules;
    size_t exe;               /* index of the main executable in modules,
                                 (size_t)-1 if unknown */
    sat_core_load *loads;     /* sorted by vaddr */
    size_t nloads;
    uint64_t size_needed;     /* bytes the program headers say the file has */
    char warning[256];        /* the first problem met ("" if none), one sentence */
    sat_arena arena_;         /* private: the strings */
} sat_core_facts;

/* Reads the facts of the core in bytes[0, len). Returns SAT_OK (facts filled,
 * perhaps partial: flags & SAT_CRASHF_TRUNCATED, warning says what ended
 * early), SAT_E_FORMAT (not an ELF core), SAT_E_UNSUPPORTED (a big-endian or
 * unknown-class core: diag says which) or SAT_E_NOMEM. out is always safe to
 * give to sat_core_facts_free afterwards. The bytes are not kept. */
int sat_core_parse(const void *bytes, size_t len, sat_core_facts *out, sat_diag *diag);
void sat_core_facts_free(sat_core_facts *f); /* NULL is fine */

/* Copies up to n bytes of process memory at addr that the core holds
 * (bytes, len: the same image the facts were read from); returns how many
 * contiguous bytes from addr were copied (0 if the core does not hold addr). */
size_t sat_core_read_mem(const sat_core_facts *f, const void *bytes, size_t len,
                         uint64_t addr, void *dst, size_t n);

/* The signal, si_code and si_addr of a siginfo_t laid out for the core's
 * class (si_addr at 16 in ELF64, 12 in ELF32). 0 if n is too short. */
int sat_core_siginfo(const sat_core_facts *f, const void *si, size_t n, int32_t *signo,
                     int32_t *code, uint64_t *addr);

/* 1 if a signal with this si_code carries a fault address in si_addr. */
int sat_core_signal_has_addr(int32_t signo, int32_t code);

/* The signal that entered a signal handler, from the kernel's signal frame
 * on the crashing thread's stack: sp is the stack pointer of the signal
 * trampoline's frame (__restore_rt, __kernel_rt_sigreturn), where the frame
 * starts. The frame is read for its siginfo (copied there only for
 * SA_SIGINFO handlers), the mask saved before the handler (the crashing
 * thread's NT_PRSTATUS sighold minus that mask is the handler's signal when
 * it is one signal), i386's signal number argument and the fault address
 * registers (x86 cr2 after a page fault, aarch64 fault_address): nothing
 * else. Returns 1 with *signo and *fault_addr (SAT_ABSENT when not known),
 * 0 when the frame does not tell. */
int sat_core_handler_signal(const sat_core_facts *f, const void *bytes, size_t len,
                            uint64_t sp, int32_t *signo, int64_t *fault_addr);

/* The time a core's file name holds: a dot-, dash- or underscore-separated
 * field of digits only that reads as a time from 2001 to 2100, in seconds (9
 * or 10 digits: the kernel's core_pattern %t, apport's names) or microseconds
 * (15 or 16 digits: systemd-coredump's "core.COMM.UID.BOOTID.PID.USEC.zst"),
 * not equal to pid (SAT_ABSENT: any). name may be a path (its last part is
 * read). Returns the time in ns, or 0 when the name holds none. */
sat_ts_ns sat_core_name_time(const char *name, int32_t pid);

/* ---- collect/core_unwind.c (libdwfl) --------------------------------------------- */
typedef struct sat_core_unwind_opts {
    const char *exe;            /* --exe: the executable, whatever the core's paths say */
    const char *debuginfo_path; /* --debuginfo-path: directories (':'-separated) with
                                   debug files (by build-id: .build-id/xx/yyyy.debug,
                                   or by name) and copies of the modules */
    const char *sysroot;        /* --sysroot: the core's paths are looked up below it */
    unsigned max_frames;        /* per thread; 0 -> 256 */
    uint8_t time_source;        /* enum sat_crash_time_source of the ts given */
    int no_source_lines;        /* frames without file and line: libdw inflates every
                                   compressed DWARF section of a module on its first
                                   line lookup (libc6-dbg's: ~50 ms) */
} sat_core_unwind_opts;

typedef struct sat_core_unwind_result {
    uint64_t frames;            /* frame rows emitted */
    uint32_t threads_unwound;   /* threads libdwfl walked */
    uint16_t flags;             /* the crash row's flags */
    char warning[256];          /* why unwinding was partial ("" if it was not) */
} sat_core_unwind_result;

/* Emits the frame rows of every thread (crashing thread first) and then the
 * crash row of the core image[0, len) whose facts are f, numbered (source,
 * crash), at time ts. image must stay valid during the call; libelf reads
 * it in place and may write to it (collect gives it a private copy-on-write
 * mapping, never the file itself). When libdwfl cannot read the core at all, each
 * thread gets one frame from its registers (module + offset from NT_FILE).
 * Returns SAT_OK, SAT_E_NOMEM, or the sink's negative status. */
int sat_core_unwind_emit(void *image, size_t len, const sat_core_facts *f,
                         const sat_core_unwind_opts *o, uint32_t source, uint32_t crash,
                         sat_ts_ns ts, const sat_event_sink *sink,
                         sat_core_unwind_result *res);

#endif /* SATSCOPE_CORE_H */
