/*
 * core_notes.c - the facts of an ELF core file from its bytes alone
 * (include/satscope/core.h): program headers, the notes of every PT_NOTE
 * segment (NT_PRSTATUS per thread, NT_PRPSINFO, NT_SIGINFO, NT_AUXV,
 * NT_FILE) and the GNU build-id of each mapped module, read from the ELF
 * header and PT_NOTE of the module's first page when the core holds it.
 *
 * Specs: System V gABI chapters 4-5 (ELF header, program header, note
 * layout; PN_XNUM: the real e_phnum in section header 0's sh_info); Linux
 * include/uapi/linux/elfcore.h, include/linux/elfcore-compat.h and
 * arch/{x86,arm64}/include/asm/elf.h (struct elf_prstatus, elf_prpsinfo,
 * user_regs_struct per architecture), fs/binfmt_elf.c fill_files_note (the
 * NT_FILE layout). Kernel- and gdb-written cores differ: the kernel writes
 * the crashing thread's NT_PRSTATUS first and one NT_SIGINFO; gdb writes
 * NT_PRPSINFO first, then per thread NT_PRSTATUS [+ NT_SIGINFO], and has
 * section headers ("note0", "load").
 *
 * Every number in the file is untrusted: offsets and sizes are checked
 * against the bytes there are (sat_cursor), counts are capped, and a core
 * that ends early gives the facts before the cut plus SAT_CRASHF_TRUNCATED.
 */
#include "satscope/core.h"

#include <stdarg.h>

enum {
    ET_CORE_ = 4,
    PT_LOAD_ = 1,
    PT_NOTE_ = 4,
    PN_XNUM_ = 0xffff,
    EM_386_ = 3,
    EM_X86_64_ = 62,
    EM_AARCH64_ = 183,
    NT_PRSTATUS_ = 1,
    NT_PRPSINFO_ = 3,
    NT_AUXV_ = 6,
    NT_GNU_BUILD_ID_ = 3
};
#define NT_SIGINFO_ 0x53494749u /* "SIGI" */
#define NT_FILE_ 0x46494c45u    /* "FILE" */

/* auxiliary vector entries kept (elf.h AT_*) */
enum { AT_NULL_ = 0, AT_PHDR_ = 3, AT_PAGESZ_ = 6, AT_BASE_ = 7, AT_ENTRY_ = 9,
       AT_UID_ = 11, AT_EUID_ = 12, AT_GID_ = 13, AT_EGID_ = 14, AT_SECURE_ = 23,
       AT_EXECFN_ = 31, AT_SYSINFO_EHDR_ = 33 };

/* Bounds on what a hostile header can make us allocate or walk. */
#define MAX_SEGMENTS (1u << 22)
#define MAX_THREADS (1u << 20)
#define MAX_MAPS (1u << 20)
#define MAX_MODULES 65536u
#define MAX_MODULE_PHDRS 256u
#define MAX_MODULE_NOTES (64u * 1024u)

typedef struct reader {
    const uint8_t *b;
    size_t len;
    int is64;
    sat_core_facts *f;
    int oom;
    int first_core_note; /* type of the first "CORE" note, 0 before it */
    size_t cap_threads, cap_maps, cap_modules, cap_loads;
} reader;

static void warn(sat_core_facts *f, const char *fmt, ...) SAT_PRINTF(2, 3);
static void warn(sat_core_facts *f, const char *fmt, ...)
{
    if (f->warning[0])
        return; /* the first problem is the one worth telling */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->warning, sizeof f->warning, fmt, ap);
    va_end(ap);
}

static int in_file(uint64_t off, uint64_t n, size_t len)
{
    return off <= len && n <= len - off;
}

/* A cursor over bytes[off, off + n) of the file, cut to what the file has. */
static sat_cursor window(const reader *r, uint64_t off, uint64_t n)
{
    if (off > r->len)
        return sat_cursor_make(r->b, 0);
    uint64_t avail = r->len - off;
    return sat_cursor_make(r->b + off, (size_t)(n < avail ? n : avail));
}

static uint64_t word(sat_cursor *c, int is64)
{
    return is64 ? sat_cursor_le64(c) : sat_cursor_le32(c);
}

static void *grow(reader *r, void **arr, size_t *cap, size_t n, size_t elem, size_t max)
{
    if (n < *cap)
        return *arr;
    if (n >= max)
        return NULL;
    size_t nc = *cap ? *cap * 2 : 16;
    if (nc > max)
        nc = max;
    void *na = realloc(*arr, nc * elem);
    if (!na) {
        r->oom = 1;
        return NULL;
    }
    *arr = na;
    *cap = nc;
    return na;
}

/* Bytes up to the first NUL (at most n), control bytes shown as '?': these
 * strings end up on terminals and in reports. */
static void copy_text(char *dst, size_t cap, const uint8_t *src, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap && src[i]; i++)
        dst[o++] = (src[i] < 0x20 || src[i] == 0x7f) ? '?' : (char)src[i];
    while (o && dst[o - 1] == ' ')
        o--; /* the kernel leaves a space after the last argument */
    dst[o] = '\0';
}

/* ---- process memory held by the core ---------------------------------------------- */
static int cmp_load(const void *a, const void *b)
{
    const sat_core_load *x = a, *y = b;
    return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The load holding addr (the last one starting at or below it), or NULL. */
static const sat_core_load *load_at(const sat_core_facts *f, uint64_t addr)
{
    size_t lo = 0, hi = f->nloads;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->loads[mid].vaddr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const sat_core_load *l = &f->loads[lo - 1];
    return addr - l->vaddr < l->memsz ? l : NULL;
}

size_t sat_core_read_mem(const sat_core_facts *f, const void *bytes, size_t len,
                         uint64_t addr, void *dst, size_t n)
{
    size_t done = 0;
    if (!f || !bytes || !dst)
        return 0;
    while (done < n) {
        const sat_core_load *l = load_at(f, addr);
        if (!l)
            break;
        uint64_t in = addr - l->vaddr;
        if (in >= l->filesz)
            break; /* in the process, not in the core (not dumped) */
        uint64_t take = l->filesz - in;
        if (take > n - done)
            take = n - done;
        if (!in_file(l->offset + in, take, len) || l->offset + in < l->offset)
            break;
        memcpy((uint8_t *)dst + done, (const uint8_t *)bytes + l->offset + in, (size_t)take);
        done += (size_t)take;
        if (addr + take < addr)
            break;
        addr += take;
    }
    return done;
}

static size_t read_mem(const reader *r, uint64_t addr, void *dst, size_t n)
{
    return sat_core_read_mem(r->f, r->b, r->len, addr, dst, n);
}

/* ---- notes -------------------------------------------------------------------------- */
static int name_is(const uint8_t *name, uint32_t namesz, const char *want)
{
    size_t n = namesz;
    while (n && name[n - 1] == '\0')
        n--;
    return n == strlen(want) && memcmp(name, want, n) == 0;
}

static void note_prstatus(reader *r, const uint8_t *d, size_t n)
{
    sat_core_facts *f = r->f;
    if (!grow(r, (void **)&f->threads, &r->cap_threads, f->nthreads, sizeof *f->threads,
              MAX_THREADS)) {
        if (!r->oom)
            warn(f, "more than %u threads: the rest are not listed", MAX_THREADS);
        return;
    }
    sat_cursor c = sat_cursor_make(d, n);
    sat_core_thread t;
    memset(&t, 0, sizeof t);
    sat_cursor_skip(&c, 12); /* pr_info: si_signo, si_code, si_errno */
    t.cursig = sat_cursor_le16(&c);
    sat_cursor_skip(&c, r->is64 ? 2 + 8 : 2 + 4); /* pad, sigpend */
    t.sighold = word(&c, r->is64);
    t.tid = (int32_t)sat_cursor_le32(&c);
    if (c.err) {
        warn(f, "an NT_PRSTATUS note of %zu bytes is too short", n);
        return;
    }
    /* pr_ppid, pr_pgrp, pr_sid, then four struct timevals: the register
     * block starts at 112 (64-bit) or 72 (32-bit) */
    size_t regs_at = r->is64 ? 112 : 72;
    unsigned nregs = 0, ipc = 0, isp = 0, ifp = 0, wsz = r->is64 ? 8 : 4;
    switch (f->arch) {
    case SAT_ARCH_X86_64: nregs = 27; ipc = 16; isp = 19; ifp = 4; break;   /* rip rsp rbp */
    case SAT_ARCH_AARCH64: nregs = 34; ipc = 32; isp = 31; ifp = 29; break; /* pc sp x29 */
    case SAT_ARCH_I386: nregs = 17; ipc = 12; isp = 15; ifp = 5; break;     /* eip esp ebp */
    default: break;
    }
    if (nregs && n >= regs_at + (size_t)nregs * wsz) {
        sat_cursor rc = sat_cursor_make(d + regs_at, (size_t)nregs * wsz);
        for (unsigned i = 0; i < nregs; i++) {
            uint64_t v = word(&rc, r->is64);
            if (i == ipc)
                t.pc = v;
            else if (i == isp)
                t.sp = v;
            else if (i == ifp)
                t.fp = v;
        }
        t.regs = 1;
    } else if (nregs) {
        warn(f, "thread %d: NT_PRSTATUS holds no whole register set", (int)t.tid);
    }
    f->threads[f->nthreads++] = t;
}

static void note_prpsinfo(reader *r, const uint8_t *d, size_t n)
{
    sat_core_facts *f = r->f;
    sat_cursor c = sat_cursor_make(d, n);
    int32_t uid, gid, pid, ppid;
    size_t fname_at;
    if (r->is64) {
        sat_cursor_skip(&c, 16); /* state, sname, zomb, nice, pad, pr_flag */
        uid = (int32_t)sat_cursor_le32(&c);
        gid = (int32_t)sat_cursor_le32(&c);
        fname_at = 40;
    } else if (n >= 128) { /* 32-bit ids */
        sat_cursor_skip(&c, 8);
        uid = (int32_t)sat_cursor_le32(&c);
        gid = (int32_t)sat_cursor_le32(&c);
        fname_at = 32;
    } else { /* i386 (and compat): __kernel_uid_t is 16 bits */
        sat_cursor_skip(&c, 8);
        uid = sat_cursor_le16(&c);
        gid = sat_cursor_le16(&c);
        fname_at = 28;
    }
    pid = (int32_t)sat_cursor_le32(&c);
    ppid = (int32_t)sat_cursor_le32(&c);
    if (c.err || n < fname_at + 16 + 80) {
        warn(f, "the NT_PRPSINFO note is %zu bytes, too short", n);
        if (c.err)
            return;
    }
    f->uid = uid;
    f->gid = gid;
    f->pid = pid;
    f->ppid = ppid;
    if (n > fname_at)
        copy_text(f->fname, sizeof f->fname, d + fname_at, n - fname_at < 16 ? n - fname_at : 16);
    if (n > fname_at + 16)
        copy_text(f->psargs, sizeof f->psargs, d + fname_at + 16,
                  n - fname_at - 16 < 80 ? n - fname_at - 16 : 80);
    f->have |= SAT_CORE_HAVE_PRPSINFO;
}

int sat_core_siginfo(const sat_core_facts *f, const void *si, size_t n, int32_t *signo,
                     int32_t *code, uint64_t *addr)
{
    int is64 = f->elfclass == 64;
    sat_cursor c = sat_cursor_make(si, n);
    int32_t s = (int32_t)sat_cursor_le32(&c);
    sat_cursor_skip(&c, 4); /* si_errno */
    int32_t k = (int32_t)sat_cursor_le32(&c);
    sat_cursor_skip(&c, is64 ? 4 : 0); /* the union is 8-aligned in 64-bit */
    uint64_t a = word(&c, is64);
    if (c.err)
        return 0;
    *signo = s;
    *code = k;
    *addr = a;
    return 1;
}

int sat_core_signal_has_addr(int32_t signo, int32_t code)
{
    /* SIGILL SIGTRAP SIGBUS SIGFPE SIGSEGV (the same numbers on every Linux
     * architecture decoded here); si_code <= 0 is a signal sent by a process,
     * whose union holds the sender's pid and uid instead */
    return code > 0 && (signo == 4 || signo == 5 || signo == 7 || signo == 8 || signo == 11);
}

/* A siginfo that the kernel wrote: a signal number, si_errno 0, an si_code
 * the kernel or a sender uses (SI_* are -7..0, fault codes small, SI_KERNEL
 * 0x80). Stack garbage where no siginfo was copied rarely passes. */
static int plausible_siginfo(int32_t signo, int32_t err, int32_t code)
{
    return signo >= 1 && signo <= 64 && err == 0 && ((code >= -7 && code <= 15) || code == 0x80);
}

static uint64_t mem_word(const sat_core_facts *f, const void *bytes, size_t len, uint64_t addr,
                         unsigned size, int *ok)
{
    uint8_t b[8] = {0};
    if (sat_core_read_mem(f, bytes, len, addr, b, size) < size) {
        *ok = 0;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static int one_signal(uint64_t set)
{
    if (!set || (set & (set - 1)))
        return 0;
    int n = 1;
    while (!(set & 1)) {
        set >>= 1;
        n++;
    }
    return n;
}

int sat_core_handler_signal(const sat_core_facts *f, const void *bytes, size_t len,
                            uint64_t sp, int32_t *signo, int64_t *fault_addr)
{
    /* where the pieces are, from sp (see core.h for the layouts' sources):
     * info: the siginfo; mask: uc_sigmask; sig: i386's signal argument;
     * addr: the fault address register; trapno: x86's trap number */
    int64_t info, mask = -1, sig = -1, addr = -1, trapno = -1;
    switch (f->arch) {
    case SAT_ARCH_X86_64:
        /* rt_sigframe = { pretcode (popped by the handler's ret), ucontext
         * { flags 8, link 8, stack_t 24, sigcontext 256, sigmask 8 }, siginfo } */
        mask = 40 + 256;
        info = 304;
        trapno = 40 + 160;
        addr = 40 + 176;
        break;
    case SAT_ARCH_AARCH64:
        /* rt_sigframe = { siginfo 128, ucontext { flags 8, link 8, stack_t 24,
         * sigmask 8, pad 120, sigcontext (16-aligned) { fault_address, ... } } } */
        info = 0;
        mask = 128 + 40;
        addr = 128 + 176;
        break;
    case SAT_ARCH_I386:
        /* rt: { pretcode (popped), sig, pinfo, puc, siginfo, ucontext ... };
         * without SA_SIGINFO: { pretcode (popped), sig, sigcontext ... } */
        sig = 0;
        info = 12;
        break;
    default:
        return 0;
    }
    uint64_t hold = f->nthreads ? f->threads[0].sighold : 0;
    uint64_t entered = 0; /* the signals the handler's entry blocked */
    int ok = 1;
    if (mask >= 0) {
        uint64_t saved = mem_word(f, bytes, len, sp + (uint64_t)mask, 8, &ok);
        if (ok)
            entered = hold & ~saved;
    }
    int32_t s = 0, code = 0;
    uint64_t a = 0;
    uint8_t si[128];
    int have_info = 0;
    if (sat_core_read_mem(f, bytes, len, sp + (uint64_t)info, si, sizeof si) == sizeof si &&
        sat_core_siginfo(f, si, sizeof si, &s, &code, &a)) {
        int32_t err = (int32_t)(si[4] | si[5] << 8 | si[6] << 16 | (uint32_t)si[7] << 24);
        have_info = plausible_siginfo(s, err, code);
    }
    if (sig >= 0) { /* i386: the handler's argument is in the frame */
        ok = 1;
        int32_t arg = (int32_t)mem_word(f, bytes, len, sp + (uint64_t)sig, 4, &ok);
        if (!ok || arg < 1 || arg > 64)
            return 0;
        *signo = arg;
        *fault_addr = SAT_ABSENT;
        if (have_info && s == arg) {
            if (sat_core_signal_has_addr(s, code))
                *fault_addr = (int64_t)a;
        } else if (arg == 11 || arg == 7) {
            /* no siginfo: the sigcontext follows sig; cr2 after a page fault */
            ok = 1;
            uint64_t trap = mem_word(f, bytes, len, sp + 4 + 48, 4, &ok);
            uint64_t cr2 = mem_word(f, bytes, len, sp + 4 + 84, 4, &ok);
            if (ok && trap == 14)
                *fault_addr = (int64_t)cr2;
        }
        return 1;
    }
    if (have_info && (!entered || (entered >> (s - 1) & 1))) {
        *signo = s;
        *fault_addr = sat_core_signal_has_addr(s, code) ? (int64_t)a : SAT_ABSENT;
        return 1;
    }
    int n = one_signal(entered);
    if (!n)
        return 0;
    /* no siginfo (a handler without SA_SIGINFO): the blocked-set difference
     * names the signal; the fault registers hold its address when it was a
     * fault (x86: a page fault, trap 14) */
    *signo = n;
    *fault_addr = SAT_ABSENT;
    if (n == 11 || n == 7) {
        ok = 1;
        uint64_t fa = mem_word(f, bytes, len, sp + (uint64_t)addr, 8, &ok);
        uint64_t trap = trapno >= 0 ? mem_word(f, bytes, len, sp + (uint64_t)trapno, 8, &ok) : 14;
        if (ok && trap == 14)
            *fault_addr = (int64_t)fa;
    }
    return 1;
}

static void note_siginfo(reader *r, const uint8_t *d, size_t n)
{
    sat_core_facts *f = r->f;
    int32_t signo, code;
    uint64_t addr;
    if (!sat_core_siginfo(f, d, n, &signo, &code, &addr)) {
        warn(f, "the NT_SIGINFO note is %zu bytes, too short", n);
        return;
    }
    f->si_signo = signo;
    f->si_code = code;
    f->si_errno = (int32_t)(d[4] | d[5] << 8 | d[6] << 16 | (uint32_t)d[7] << 24);
    f->si_addr = addr;
    f->si_addr_valid = sat_core_signal_has_addr(signo, code);
    /* kill(2), tgkill(2), sigqueue(3), mq_notify: the kernel fills in who sent it
     * (the union is 8-aligned in ELF64, so it starts at 16, at 12 in ELF32) */
    f->si_pid = f->si_uid = 0;
    if (code == 0 || code == -1 || code == -3 || code == -6) {
        size_t at = f->elfclass == 64 ? 16 : 12;
        if (n >= at + 8) {
            sat_cursor c = sat_cursor_make(d + at, 8);
            int32_t pid = (int32_t)sat_cursor_le32(&c);
            int32_t uid = (int32_t)sat_cursor_le32(&c);
            if (!c.err && pid > 0) {
                f->si_pid = pid;
                f->si_uid = uid;
            }
        }
    }
    f->have |= SAT_CORE_HAVE_SIGINFO;
}

static void note_auxv(reader *r, const uint8_t *d, size_t n)
{
    sat_core_facts *f = r->f;
    sat_cursor c = sat_cursor_make(d, n);
    while (sat_cursor_left(&c) >= (r->is64 ? 16u : 8u)) {
        uint64_t type = word(&c, r->is64), val = word(&c, r->is64);
        if (type == AT_NULL_)
            break;
        switch (type) {
        case AT_PHDR_: f->at_phdr = val; break;
        case AT_PAGESZ_: f->at_pagesz = val; break;
        case AT_BASE_: f->at_base = val; break;
        case AT_ENTRY_: f->at_entry = val; break;
        case AT_UID_: f->at_uid = (int64_t)(val & 0xffffffffu); break;
        case AT_EUID_: f->at_euid = (int64_t)(val & 0xffffffffu); break;
        case AT_GID_: f->at_gid = (int64_t)(val & 0xffffffffu); break;
        case AT_EGID_: f->at_egid = (int64_t)(val & 0xffffffffu); break;
        case AT_SECURE_: f->at_secure = (int64_t)(val & 0xffffffffu); break;
        case AT_EXECFN_: f->at_execfn = val; break;
        case AT_SYSINFO_EHDR_: f->at_sysinfo_ehdr = val; break;
        default: break;
        }
    }
    f->have |= SAT_CORE_HAVE_AUXV;
}

static void note_file(reader *r, const uint8_t *d, size_t n)
{
    sat_core_facts *f = r->f;
    unsigned w = r->is64 ? 8 : 4;
    sat_cursor c = sat_cursor_make(d, n);
    uint64_t count = word(&c, r->is64);
    uint64_t page = word(&c, r->is64);
    if (c.err) {
        warn(f, "the NT_FILE note is %zu bytes, too short", n);
        return;
    }
    uint64_t fits = (n - 2 * w) / (3 * w);
    if (count > fits) {
        warn(f, "the NT_FILE note says %llu files but holds at most %llu",
             (unsigned long long)count, (unsigned long long)fits);
        count = fits;
    }
    if (count > MAX_MAPS) {
        warn(f, "more than %u mapped files: the rest are not listed", MAX_MAPS);
        count = MAX_MAPS;
    }
    /* the strings follow the whole table */
    sat_cursor names = sat_cursor_make(d, n);
    sat_cursor_skip(&names, (size_t)(2 + 3 * count) * w);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t start = word(&c, r->is64), end = word(&c, r->is64), pgoff = word(&c, r->is64);
        size_t left = sat_cursor_left(&names);
        const uint8_t *s = names.p + names.pos;
        const uint8_t *nul = left ? memchr(s, 0, left) : NULL;
        if (!nul) {
            warn(f, "the NT_FILE note ends inside its file names (%llu of %llu read)",
                 (unsigned long long)i, (unsigned long long)count);
            break;
        }
        size_t slen = (size_t)(nul - s);
        sat_cursor_skip(&names, slen + 1);
        if (end < start)
            continue; /* impossible: not a mapping */
        if (!grow(r, (void **)&f->maps, &r->cap_maps, f->nmaps, sizeof *f->maps, MAX_MAPS))
            return;
        char *path = sat_arena_strdup(&f->arena_, (const char *)s, slen);
        if (!path) {
            r->oom = 1;
            return;
        }
        sat_core_mapping *m = &f->maps[f->nmaps++];
        m->start = start;
        m->end = end;
        m->offset = page && pgoff > UINT64_MAX / page ? UINT64_MAX : pgoff * page;
        m->path = path;
    }
    f->have |= SAT_CORE_HAVE_FILE;
}

/* Walks the notes in seg; on_note gets each (name, type, desc). Returns 0,
 * or -1 when the notes run past the segment (a cut or corrupt segment). */
typedef void (*note_fn)(reader *r, const uint8_t *name, uint32_t namesz, uint32_t type,
                        const uint8_t *desc, size_t descsz, void *u);

static int walk_notes(reader *r, sat_cursor seg, unsigned align, note_fn fn, void *u)
{
    while (sat_cursor_left(&seg) > 0) {
        if (sat_cursor_left(&seg) < 12)
            return -1;
        uint32_t namesz = sat_cursor_le32(&seg), descsz = sat_cursor_le32(&seg);
        uint32_t type = sat_cursor_le32(&seg);
        size_t npad = ((size_t)namesz + align - 1) / align * align;
        const uint8_t *name = sat_cursor_bytes(&seg, namesz);
        sat_cursor_skip(&seg, npad - namesz);
        /* the last note's padding may be missing: take the descriptor, then pad */
        const uint8_t *desc = sat_cursor_bytes(&seg, descsz);
        if (seg.err)
            return -1;
        size_t dpad = ((size_t)descsz + align - 1) / align * align - descsz;
        if (sat_cursor_left(&seg) >= dpad)
            sat_cursor_skip(&seg, dpad);
        else
            seg.pos = seg.len;
        fn(r, name, namesz, type, desc, descsz, u);
        if (r->oom)
            return 0;
    }
    return 0;
}

static void on_core_note(reader *r, const uint8_t *name, uint32_t namesz, uint32_t type,
                         const uint8_t *desc, size_t descsz, void *u)
{
    (void)u;
    sat_core_facts *f = r->f;
    if (!name_is(name, namesz, "CORE"))
        return; /* "LINUX" (xstate, ...), "GNU": nothing we need */
    if (!r->first_core_note)
        r->first_core_note = (int)type;
    switch (type) {
    case NT_PRSTATUS_:
        note_prstatus(r, desc, descsz);
        break;
    case NT_PRPSINFO_:
        if (!(f->have & SAT_CORE_HAVE_PRPSINFO))
            note_prpsinfo(r, desc, descsz);
        break;
    case NT_AUXV_:
        if (!(f->have & SAT_CORE_HAVE_AUXV))
            note_auxv(r, desc, descsz);
        break;
    case NT_FILE_:
        if (!(f->have & SAT_CORE_HAVE_FILE))
            note_file(r, desc, descsz);
        break;
    case NT_SIGINFO_:
        /* the crashing thread's: the kernel writes one (after the first
         * thread's NT_PRSTATUS), gdb one per thread right after its
         * NT_PRSTATUS; one met after a second thread is someone else's */
        if (!(f->have & SAT_CORE_HAVE_SIGINFO) && f->nthreads <= 1)
            note_siginfo(r, desc, descsz);
        break;
    default:
        break;
    }
}

/* ---- build-ids of the modules ---------------------------------------------------------- */
typedef struct build_id_out {
    char *hex;
    size_t cap;
} build_id_out;

static void on_module_note(reader *r, const uint8_t *name, uint32_t namesz, uint32_t type,
                           const uint8_t *desc, size_t descsz, void *u)
{
    (void)r;
    build_id_out *o = u;
    if (o->hex[0] || type != NT_GNU_BUILD_ID_ || !name_is(name, namesz, "GNU") || !descsz)
        return;
    static const char hexd[] = "0123456789abcdef";
    size_t k = 0;
    for (size_t i = 0; i < descsz && k + 2 < o->cap; i++) {
        o->hex[k++] = hexd[desc[i] >> 4];
        o->hex[k++] = hexd[desc[i] & 15];
    }
    o->hex[k] = '\0';
}

/* The ELF image mapped at start, as far as the core holds it: its build-id
 * note (via its program headers) and whether it is an ELF file at all.
 * Returns 1 if an ELF header was there. */
static int module_build_id(reader *r, uint64_t start, char *hex, size_t cap)
{
    hex[0] = '\0';
    uint8_t eh[64];
    size_t ehsize = r->is64 ? 64 : 52;
    if (read_mem(r, start, eh, ehsize) < ehsize || memcmp(eh, "\177ELF", 4) != 0)
        return 0;
    if (eh[4] != (r->is64 ? 2 : 1) || eh[5] != 1)
        return 1; /* another class or byte order than the core: leave it */
    sat_cursor c = sat_cursor_make(eh, ehsize);
    sat_cursor_skip(&c, r->is64 ? 32 : 28);
    uint64_t phoff = word(&c, r->is64);
    sat_cursor_skip(&c, r->is64 ? 8 + 4 + 2 : 4 + 4 + 2);
    uint16_t phentsize = sat_cursor_le16(&c), phnum = sat_cursor_le16(&c);
    size_t phsize = r->is64 ? 56 : 32;
    uint64_t span_bytes = (uint64_t)phnum * phentsize;
    if (c.err || phentsize < phsize || phnum == 0 || phnum > MAX_MODULE_PHDRS ||
        phoff > UINT64_MAX - span_bytes || start > UINT64_MAX - (phoff + span_bytes))
        return 1;
    struct { uint64_t type, off, vaddr, filesz, align; } notes[8];
    size_t nnotes = 0;
    int have_bias = 0;
    uint64_t bias = 0, lowest = UINT64_MAX;
    for (unsigned i = 0; i < phnum; i++) {
        uint8_t ph[56];
        if (read_mem(r, start + phoff + (uint64_t)i * phentsize, ph, phsize) < phsize)
            break;
        sat_cursor p = sat_cursor_make(ph, phsize);
        uint64_t type = sat_cursor_le32(&p), off, vaddr, filesz, align;
        if (r->is64) {
            sat_cursor_skip(&p, 4);
            off = sat_cursor_le64(&p);
            vaddr = sat_cursor_le64(&p);
            sat_cursor_skip(&p, 8);
            filesz = sat_cursor_le64(&p);
            sat_cursor_skip(&p, 8);
            align = sat_cursor_le64(&p);
        } else {
            off = sat_cursor_le32(&p);
            vaddr = sat_cursor_le32(&p);
            sat_cursor_skip(&p, 4);
            filesz = sat_cursor_le32(&p);
            sat_cursor_skip(&p, 8);
            align = sat_cursor_le32(&p);
        }
        if (type == PT_LOAD_) {
            /* the segment that maps file offset 0 is the one at start */
            if (off == 0 && !have_bias) {
                bias = start - vaddr;
                have_bias = 1;
            }
            if (vaddr < lowest)
                lowest = vaddr;
        } else if (type == PT_NOTE_ && nnotes < 8) {
            notes[nnotes].off = off;
            notes[nnotes].vaddr = vaddr;
            notes[nnotes].filesz = filesz;
            notes[nnotes].align = align;
            nnotes++;
        }
    }
    if (!have_bias && lowest != UINT64_MAX)
        bias = start - (lowest & ~(uint64_t)0xfff);
    build_id_out out = {hex, cap};
    uint8_t *buf = NULL;
    for (size_t i = 0; i < nnotes && !hex[0]; i++) {
        uint64_t size = notes[i].filesz < MAX_MODULE_NOTES ? notes[i].filesz : MAX_MODULE_NOTES;
        if (!size)
            continue;
        if (!buf && !(buf = malloc(MAX_MODULE_NOTES))) {
            r->oom = 1;
            return 1;
        }
        size_t got = read_mem(r, bias + notes[i].vaddr, buf, (size_t)size);
        walk_notes(r, sat_cursor_make(buf, got), notes[i].align == 8 ? 8 : 4, on_module_note,
                   &out);
    }
    free(buf);
    return 1;
}

/* ---- modules: NT_FILE paths grouped, plus ELF images only the pages show --------------- */
static sat_core_module *add_module(reader *r, const char *path, uint64_t start, uint64_t end)
{
    sat_core_facts *f = r->f;
    if (!grow(r, (void **)&f->modules, &r->cap_modules, f->nmodules, sizeof *f->modules,
              MAX_MODULES)) {
        if (!r->oom)
            warn(f, "more than %u mapped modules: the rest are not listed", MAX_MODULES);
        return NULL;
    }
    sat_core_module *m = &f->modules[f->nmodules++];
    memset(m, 0, sizeof *m);
    m->path = path;
    m->start = start;
    m->end = end;
    return m;
}

typedef struct span {
    uint64_t start, end;
} span;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* 1 if addr is inside one of the spans (sorted by start; they may overlap
 * when a file is mapped twice far apart: a few predecessors are looked at) */
static int in_spans(const span *s, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo, seen = 0; k > 0 && seen < 8; k--, seen++)
        if (addr < s[k - 1].end)
            return 1;
    return 0;
}

static void find_modules(reader *r)
{
    sat_core_facts *f = r->f;
    /* group the mappings by path: a small open-addressing table of indexes;
     * head[m] is where module m's file offset 0 is mapped (its first page,
     * which is not always its lowest address when a file is mapped twice) */
    size_t tcap = 64;
    while (tcap < f->nmaps * 2 + 1)
        tcap *= 2;
    size_t *table = malloc(tcap * sizeof *table);
    uint64_t *head = NULL;
    size_t head_cap = 0;
    if (!table) {
        r->oom = 1;
        return;
    }
    for (size_t i = 0; i < tcap; i++)
        table[i] = SIZE_MAX;
    for (size_t i = 0; i < f->nmaps && !r->oom; i++) {
        const sat_core_mapping *mp = &f->maps[i];
        size_t h = (size_t)sat_hash_bytes(mp->path, strlen(mp->path), 0) & (tcap - 1);
        while (table[h] != SIZE_MAX && strcmp(f->modules[table[h]].path, mp->path) != 0)
            h = (h + 1) & (tcap - 1);
        if (table[h] == SIZE_MAX) {
            if (!add_module(r, mp->path, mp->start, mp->end))
                break;
            if (!grow(r, (void **)&head, &head_cap, f->nmodules - 1, sizeof *head,
                      MAX_MODULES + 1))
                break;
            head[f->nmodules - 1] = mp->offset == 0 ? mp->start : UINT64_MAX;
            table[h] = f->nmodules - 1;
        } else {
            size_t k = table[h];
            sat_core_module *m = &f->modules[k];
            if (mp->start < m->start)
                m->start = mp->start;
            if (mp->end > m->end)
                m->end = mp->end;
            if (head[k] == UINT64_MAX && mp->offset == 0)
                head[k] = mp->start;
        }
    }
    free(table);
    size_t from_file = f->nmodules;
    for (size_t i = 0; i < from_file && !r->oom; i++) {
        sat_core_module *m = &f->modules[i];
        module_build_id(r, head[i] != UINT64_MAX ? head[i] : m->start, m->build_id,
                        sizeof m->build_id);
    }
    free(head);
    /* images no NT_FILE entry names: the vDSO, or every module of a core
     * without NT_FILE (gdb before 7.11, a cut note segment) */
    span *spans = from_file ? malloc(from_file * sizeof *spans) : NULL;
    if (from_file && !spans)
        r->oom = 1;
    for (size_t i = 0; i < from_file && spans; i++) {
        spans[i].start = f->modules[i].start;
        spans[i].end = f->modules[i].end;
    }
    if (spans)
        qsort(spans, from_file, sizeof *spans, cmp_span);
    for (size_t i = 0; i < f->nloads && !r->oom; i++) {
        const sat_core_load *l = &f->loads[i];
        if (l->filesz < 64 || memcmp(r->b + l->offset, "\177ELF", 4) != 0)
            continue;
        if (spans && in_spans(spans, from_file, l->vaddr))
            continue;
        char hex[129];
        if (!module_build_id(r, l->vaddr, hex, sizeof hex))
            continue;
        const char *name = l->vaddr == f->at_sysinfo_ehdr && f->at_sysinfo_ehdr ? "[vdso]" : NULL;
        sat_core_module *m = add_module(r, name, l->vaddr, l->vaddr + l->memsz);
        if (!m)
            break;
        memcpy(m->build_id, hex, sizeof hex);
    }
    free(spans);
    /* the main executable holds the program headers the kernel passed */
    f->exe = SIZE_MAX;
    uint64_t probes[2] = {f->at_phdr, f->at_entry};
    for (int p = 0; p < 2 && f->exe == SIZE_MAX; p++)
        for (size_t k = 0; probes[p] && k < f->nmodules; k++)
            if (probes[p] >= f->modules[k].start && probes[p] < f->modules[k].end) {
                f->exe = k;
                break;
            }
    if (f->exe == SIZE_MAX && f->fname[0]) {
        /* no auxv: the module whose name starts like pr_fname (cut at 15) */
        for (size_t k = 0; k < f->nmodules; k++) {
            const char *p = f->modules[k].path;
            const char *base = p ? strrchr(p, '/') : NULL;
            base = base ? base + 1 : p;
            if (base && strncmp(base, f->fname, strlen(f->fname)) == 0) {
                f->exe = k;
                break;
            }
        }
    }
    if (f->exe != SIZE_MAX)
        f->modules[f->exe].is_exe = 1;
}

/* ---- the file ---------------------------------------------------------------------------- */
int sat_core_sniff(const void *head, size_t n)
{
    const uint8_t *b = head;
    if (n < 18 || memcmp(b, "\177ELF", 4) != 0 || (b[4] != 1 && b[4] != 2))
        return 0;
    uint16_t type = b[5] == 2 ? (uint16_t)(b[16] << 8 | b[17]) : (uint16_t)(b[16] | b[17] << 8);
    return type == ET_CORE_;
}

static void facts_init(sat_core_facts *f)
{
    memset(f, 0, sizeof *f);
    f->pid = f->ppid = f->uid = f->gid = SAT_ABSENT;
    f->si_signo = f->si_code = f->si_errno = SAT_ABSENT;
    f->at_uid = f->at_euid = f->at_gid = f->at_egid = f->at_secure = SAT_ABSENT;
    f->exe = SIZE_MAX;
    f->arena_.chunk_size = 16384;
}

void sat_core_facts_free(sat_core_facts *f)
{
    if (!f)
        return;
    free(f->threads);
    free(f->maps);
    free(f->modules);
    free(f->loads);
    sat_arena_free(&f->arena_);
    f->threads = NULL;
    f->maps = NULL;
    f->modules = NULL;
    f->loads = NULL;
    f->nthreads = f->nmaps = f->nmodules = f->nloads = 0;
}

static void truncated(sat_core_facts *f, size_t len, const char *what)
{
    f->flags |= SAT_CRASHF_TRUNCATED;
    warn(f, "the core is cut short: %s (the file has %zu bytes)", what, len);
}

int sat_core_parse(const void *bytes, size_t len, sat_core_facts *out, sat_diag *diag)
{
    facts_init(out);
    const uint8_t *b = bytes;
    if (!b || !sat_core_sniff(b, len))
        return sat_diag_set(diag, SAT_E_FORMAT, "core", "not an ELF core file");
    if (b[5] != 1)
        return sat_diag_set(diag, SAT_E_UNSUPPORTED, "core",
                            "a big-endian core (only little-endian cores are read)");
    reader r;
    memset(&r, 0, sizeof r);
    r.b = b;
    r.len = len;
    r.is64 = b[4] == 2;
    r.f = out;
    sat_core_facts *f = out;
    f->elfclass = r.is64 ? 64 : 32;

    sat_cursor eh = sat_cursor_make(b, len);
    sat_cursor_skip(&eh, 18);
    f->machine = sat_cursor_le16(&eh);
    if (r.is64 && f->machine == EM_X86_64_)
        f->arch = SAT_ARCH_X86_64;
    else if (r.is64 && f->machine == EM_AARCH64_)
        f->arch = SAT_ARCH_AARCH64;
    else if (!r.is64 && f->machine == EM_386_)
        f->arch = SAT_ARCH_I386;
    sat_cursor_skip(&eh, 4 + (r.is64 ? 8 : 4)); /* e_version, e_entry */
    uint64_t phoff = word(&eh, r.is64), shoff = word(&eh, r.is64);
    sat_cursor_skip(&eh, 4 + 2); /* e_flags, e_ehsize */
    uint16_t phentsize = sat_cursor_le16(&eh), phnum16 = sat_cursor_le16(&eh);
    uint16_t shentsize = sat_cursor_le16(&eh), shnum = sat_cursor_le16(&eh);
    if (eh.err) {
        truncated(f, len, "inside the ELF header");
        return SAT_OK;
    }
    uint64_t phnum = phnum16;
    size_t phsize = r.is64 ? 56 : 32, shsize = r.is64 ? 64 : 40;
    if (phnum16 == PN_XNUM_) {
        /* more segments than e_phnum holds: section 0's sh_info has them */
        if (shentsize >= shsize && in_file(shoff, shsize, len)) {
            sat_cursor sh = window(&r, shoff + (r.is64 ? 44 : 28), 4);
            phnum = sat_cursor_le32(&sh);
        } else {
            truncated(f, len, "the section header holding the segment count is missing");
            phnum = 0;
        }
    }
    if (phnum > MAX_SEGMENTS) {
        warn(f, "%llu segments: only the first %u are read", (unsigned long long)phnum,
             MAX_SEGMENTS);
        phnum = MAX_SEGMENTS;
    }
    if (phnum && phentsize < phsize)
        return sat_diag_set(diag, SAT_E_FORMAT, "core",
                            "program header entries of %u bytes (at least %zu expected)",
                            phentsize, phsize);
    /* kernel cores have no section headers (one, for PN_XNUM) */
    if (shnum > 1 && phnum16 != PN_XNUM_)
        f->flags |= SAT_CRASHF_GDB_CORE;

    /* program headers: the loads first (notes need them for nothing, the
     * build-ids do), then the notes */
    struct seg { uint64_t off, filesz, align; } *notes = NULL;
    size_t nnotes = 0, cap_notes = 0;
    for (uint64_t i = 0; i < phnum; i++) {
        uint64_t at = phoff + i * phentsize;
        if (at < phoff || !in_file(at, phsize, len)) {
            char what[96];
            snprintf(what, sizeof what, "program header %llu of %llu is missing",
                     (unsigned long long)i, (unsigned long long)phnum);
            truncated(f, len, what);
            break;
        }
        sat_cursor p = sat_cursor_make(b + at, phsize);
        uint32_t type = sat_cursor_le32(&p);
        uint64_t off, vaddr, filesz, memsz, align;
        if (r.is64) {
            sat_cursor_skip(&p, 4);
            off = sat_cursor_le64(&p);
            vaddr = sat_cursor_le64(&p);
            sat_cursor_skip(&p, 8);
            filesz = sat_cursor_le64(&p);
            memsz = sat_cursor_le64(&p);
            align = sat_cursor_le64(&p);
        } else {
            off = sat_cursor_le32(&p);
            vaddr = sat_cursor_le32(&p);
            sat_cursor_skip(&p, 4);
            filesz = sat_cursor_le32(&p);
            memsz = sat_cursor_le32(&p);
            sat_cursor_skip(&p, 4);
            align = sat_cursor_le32(&p);
        }
        if (type != PT_LOAD_ && type != PT_NOTE_)
            continue;
        uint64_t end = off + filesz < off ? UINT64_MAX : off + filesz;
        if (end > f->size_needed)
            f->size_needed = end;
        uint64_t have = off >= len ? 0 : (len - off < filesz ? len - off : filesz);
        if (type == PT_LOAD_) {
            if (!grow(&r, (void **)&f->loads, &r.cap_loads, f->nloads, sizeof *f->loads,
                      MAX_SEGMENTS))
                break;
            sat_core_load *l = &f->loads[f->nloads++];
            l->vaddr = vaddr;
            /* memsz is what the process had; never less than what was dumped */
            l->memsz = memsz > filesz ? memsz : filesz;
            if (vaddr + l->memsz < vaddr)
                l->memsz = UINT64_MAX - vaddr;
            l->offset = off;
            l->filesz = have;
        } else {
            if (nnotes == cap_notes) {
                size_t nc = cap_notes ? cap_notes * 2 : 4;
                void *nn = nc <= 1024 ? realloc(notes, nc * sizeof *notes) : NULL;
                if (!nn) {
                    r.oom = nc <= 1024;
                    break;
                }
                notes = nn;
                cap_notes = nc;
            }
            notes[nnotes].off = off;
            notes[nnotes].filesz = have;
            notes[nnotes].align = align;
            nnotes++;
        }
    }
    if (f->size_needed > len) {
        char what[96];
        snprintf(what, sizeof what, "its segments need %llu bytes",
                 (unsigned long long)f->size_needed);
        truncated(f, len, what);
    }
    if (f->nloads > 1)
        qsort(f->loads, f->nloads, sizeof *f->loads, cmp_load);

    for (size_t i = 0; i < nnotes && !r.oom; i++) {
        f->have |= SAT_CORE_HAVE_NOTES;
        sat_cursor seg = window(&r, notes[i].off, notes[i].filesz);
        if (walk_notes(&r, seg, notes[i].align == 8 ? 8 : 4, on_core_note, NULL) < 0) {
            if (f->flags & SAT_CRASHF_TRUNCATED)
                warn(f, "the notes are cut short");
            else
                warn(f, "a note runs past the end of its segment");
        }
    }
    free(notes);
    if (r.first_core_note == NT_PRPSINFO_)
        f->flags |= SAT_CRASHF_GDB_CORE; /* the kernel starts with a thread */
    if (!r.oom && !nnotes)
        warn(f, "the core has no note segment: no threads, signal or mapped files");

    if (!r.oom)
        find_modules(&r);
    if (!r.oom && f->at_execfn) {
        char path[4096];
        size_t got = read_mem(&r, f->at_execfn, path, sizeof path);
        const char *nul = got ? memchr(path, 0, got) : NULL;
        if (nul && nul > path) {
            char *s = sat_arena_alloc(&f->arena_, (size_t)(nul - path) + 1);
            if (s) {
                copy_text(s, (size_t)(nul - path) + 1, (const uint8_t *)path,
                          (size_t)(nul - path));
                f->execfn = s;
            } else {
                r.oom = 1;
            }
        }
    }
    if (r.oom)
        return sat_diag_set(diag, SAT_E_NOMEM, "core", "out of memory reading the core");
    return SAT_OK;
}

/* ---- the time in a core's file name --------------------------------------------- */
sat_ts_ns sat_core_name_time(const char *name, int32_t pid)
{
    if (!name)
        return 0;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    /* 2001-01-01 .. 2100-01-01 */
    const uint64_t lo = 978307200ULL, hi = 4102444800ULL;
    for (const char *p = base; *p;) {
        size_t n = 0;
        while (p[n] >= '0' && p[n] <= '9')
            n++;
        int whole = n && (p == base || strchr("._-", p[-1])) && (!p[n] || strchr("._-", p[n]));
        if (whole && n <= 16) {
            uint64_t v = 0;
            for (size_t i = 0; i < n; i++)
                v = v * 10 + (uint64_t)(p[i] - '0');
            if (pid == SAT_ABSENT || v != (uint64_t)(uint32_t)pid) {
                if ((n == 9 || n == 10) && v >= lo && v < hi)
                    return (sat_ts_ns)v * 1000000000LL;
                if ((n == 15 || n == 16) && v / 1000000 >= lo && v / 1000000 < hi)
                    return (sat_ts_ns)v * 1000LL;
            }
        }
        p += n ? n : 1;
    }
    return 0;
}
