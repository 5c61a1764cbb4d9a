/*
 * core_build.h - makes small ELF core images in memory, laid out as the
 * kernel (or gdb) writes them, for the tests of parse/crash/core_notes.c and the
 * seed corpus of fuzz_core_notes (tests/fuzz/gen_core_corpus.c): x86_64,
 * aarch64 and i386 register sets, NT_PRSTATUS / NT_PRPSINFO / NT_SIGINFO /
 * NT_AUXV / NT_FILE notes, PT_LOAD segments with given bytes, and the first
 * page of a module (ELF header, a PT_LOAD, a PT_NOTE with a build-id).
 * The layouts follow the same kernel headers as the parser (core.h); the
 * real cores of the shared corpus are what checks those against reality.
 */
#ifndef SAT_TEST_CORE_BUILD_H
#define SAT_TEST_CORE_BUILD_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The numbers are <elf.h>'s (machines EM_*, note types NT_*, AT_*, PT_*);
 * its structs say where each header field sits and how wide it is for the
 * class, and the bytes are written little-endian whatever the host. */
#define CB_SIZE(is64, T) ((is64) ? sizeof(Elf64_##T) : sizeof(Elf32_##T))
#define CB_FIELD(p, is64, T, field, v)                                                   \
    cb_set((p) + ((is64) ? offsetof(Elf64_##T, field) : offsetof(Elf32_##T, field)), (v), \
           (unsigned)((is64) ? sizeof(((Elf64_##T *)0)->field)                            \
                             : sizeof(((Elf32_##T *)0)->field)))

typedef struct cb_buf {
    uint8_t *b;
    size_t len, cap;
} cb_buf;

static void cb_put(cb_buf *o, const void *p, size_t n)
{
    if (o->len + n > o->cap) {
        size_t nc = o->cap ? o->cap : 4096;
        while (nc < o->len + n)
            nc *= 2;
        uint8_t *nb = realloc(o->b, nc);
        if (!nb)
            abort(); /* test code: no memory is the end */
        o->b = nb;
        o->cap = nc;
    }
    if (n)
        memcpy(o->b + o->len, p, n);
    o->len += n;
}
static void cb_zero(cb_buf *o, size_t n)
{
    static const uint8_t z[64];
    while (n) {
        size_t k = n < sizeof z ? n : sizeof z;
        cb_put(o, z, k);
        n -= k;
    }
}
static void cb_le(cb_buf *o, uint64_t v, unsigned size)
{
    uint8_t b[8];
    for (unsigned i = 0; i < size; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    cb_put(o, b, size);
}
static void cb_set(uint8_t *p, uint64_t v, unsigned size)
{
    for (unsigned i = 0; i < size; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void cb_align(cb_buf *o, size_t a)
{
    while (o->len % a)
        cb_zero(o, 1);
}

typedef struct cb_thread {
    int32_t tid;
    uint64_t pc, sp, fp;
    uint64_t sighold;
} cb_thread;

typedef struct cb_file {
    uint64_t start, end, pgoff;
    const char *path;
} cb_file;

typedef struct cb_load {
    uint64_t vaddr, memsz;
    const uint8_t *data; /* filesz bytes, NULL: not dumped (filesz 0) */
    size_t filesz;
} cb_load;

typedef struct cb_core {
    int is64;
    uint16_t machine;
    int gdb;                /* gdb's order: PRPSINFO first, a SIGINFO per thread,
                               section headers */
    int cursig;
    cb_thread threads[8];
    int nthreads;
    int32_t pid, ppid, uid, gid;
    const char *fname, *psargs;
    int32_t signo, si_code;
    uint64_t si_addr;
    int no_siginfo, no_prpsinfo, no_auxv;
    uint64_t at_phdr, at_entry, at_execfn, at_sysinfo_ehdr;
    cb_file files[8];
    int nfiles;
    cb_load loads[8];
    int nloads;
} cb_core;

static void cb_note(cb_buf *o, const char *name, uint32_t type, const cb_buf *desc)
{
    uint32_t namesz = (uint32_t)strlen(name) + 1;
    cb_le(o, namesz, 4);
    cb_le(o, desc->len, 4);
    cb_le(o, type, 4);
    cb_put(o, name, namesz);
    cb_align(o, 4);
    cb_put(o, desc->b, desc->len);
    cb_align(o, 4);
}

static void cb_prstatus(const cb_core *c, const cb_thread *t, cb_buf *d)
{
    unsigned w = c->is64 ? 8 : 4;
    cb_le(d, (uint64_t)c->cursig, 4); /* pr_info.si_signo */
    cb_zero(d, 8);
    cb_le(d, (uint64_t)c->cursig, 2);
    cb_zero(d, 2);
    cb_zero(d, w);            /* sigpend */
    cb_le(d, t->sighold, w);
    cb_le(d, (uint32_t)t->tid, 4);
    cb_le(d, (uint32_t)c->ppid, 4);
    cb_le(d, (uint32_t)c->pid, 4);
    cb_le(d, (uint32_t)c->pid, 4);
    cb_zero(d, 4 * 2 * w);    /* four timevals */
    unsigned nregs = 0, ipc = 0, isp = 0, ifp = 0;
    if (c->machine == EM_X86_64) {
        nregs = 27; ipc = 16; isp = 19; ifp = 4;
    } else if (c->machine == EM_AARCH64) {
        nregs = 34; ipc = 32; isp = 31; ifp = 29;
    } else {
        nregs = 17; ipc = 12; isp = 15; ifp = 5;
    }
    for (unsigned i = 0; i < nregs; i++)
        cb_le(d, i == ipc ? t->pc : i == isp ? t->sp : i == ifp ? t->fp : 0x1000 + i, w);
    cb_le(d, 1, 4);           /* pr_fpvalid */
    if (c->is64)
        cb_zero(d, 4);
}

static void cb_prpsinfo(const cb_core *c, cb_buf *d)
{
    char fname[16] = {0}, psargs[80] = {0};
    /* the kernel's fields: cut, NUL-padded, not always NUL-terminated */
    if (c->fname)
        memcpy(fname, c->fname, strlen(c->fname) < 16 ? strlen(c->fname) : 16);
    if (c->psargs)
        memcpy(psargs, c->psargs, strlen(c->psargs) < 80 ? strlen(c->psargs) : 80);
    cb_le(d, 0x00520000, 4);  /* state 0, sname 'R' */
    if (c->is64) {
        cb_zero(d, 4);
        cb_le(d, 0x400, 8);   /* pr_flag */
        cb_le(d, (uint32_t)c->uid, 4);
        cb_le(d, (uint32_t)c->gid, 4);
    } else {
        cb_le(d, 0x400, 4);
        cb_le(d, (uint16_t)c->uid, 2); /* i386: 16-bit ids */
        cb_le(d, (uint16_t)c->gid, 2);
    }
    cb_le(d, (uint32_t)c->pid, 4);
    cb_le(d, (uint32_t)c->ppid, 4);
    cb_le(d, (uint32_t)c->pid, 4);
    cb_le(d, (uint32_t)c->pid, 4);
    cb_put(d, fname, 16);
    cb_put(d, psargs, 80);
}

static void cb_siginfo(const cb_core *c, int32_t signo, int32_t code, uint64_t addr, cb_buf *d)
{
    cb_le(d, (uint32_t)signo, 4);
    cb_le(d, 0, 4);
    cb_le(d, (uint32_t)code, 4);
    if (c->is64)
        cb_zero(d, 4);
    cb_le(d, addr, c->is64 ? 8 : 4);
    while (d->len < 128)
        cb_zero(d, 1);
}

static void cb_auxv(const cb_core *c, cb_buf *d)
{
    unsigned w = c->is64 ? 8 : 4;
    uint64_t kv[][2] = {{AT_SYSINFO_EHDR, c->at_sysinfo_ehdr}, {AT_PAGESZ, 4096},
                        {AT_PHDR, c->at_phdr}, {AT_ENTRY, c->at_entry},
                        {AT_UID, (uint64_t)c->uid}, {AT_EXECFN, c->at_execfn}, {AT_NULL, 0}};
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
        cb_le(d, kv[i][0], w);
        cb_le(d, kv[i][1], w);
    }
}

static void cb_ntfile(const cb_core *c, cb_buf *d)
{
    unsigned w = c->is64 ? 8 : 4;
    cb_le(d, (uint64_t)c->nfiles, w);
    cb_le(d, 4096, w);
    for (int i = 0; i < c->nfiles; i++) {
        cb_le(d, c->files[i].start, w);
        cb_le(d, c->files[i].end, w);
        cb_le(d, c->files[i].pgoff, w);
    }
    for (int i = 0; i < c->nfiles; i++)
        cb_put(d, c->files[i].path, strlen(c->files[i].path) + 1);
}

/* The whole core; *len set. Caller frees. */
static uint8_t *cb_make_core(const cb_core *c, size_t *len)
{
    cb_buf notes = {0};
#define CB_NOTE(name, type, fill)                                            \
    do {                                                                     \
        cb_buf d_ = {0};                                                     \
        fill;                                                                \
        cb_note(&notes, name, type, &d_);                                    \
        free(d_.b);                                                          \
    } while (0)
    if (c->gdb && !c->no_prpsinfo)
        CB_NOTE("CORE", NT_PRPSINFO, cb_prpsinfo(c, &d_));
    for (int t = 0; t < c->nthreads; t++) {
        CB_NOTE("CORE", NT_PRSTATUS, cb_prstatus(c, &c->threads[t], &d_));
        if (c->gdb && !c->no_siginfo) /* gdb: one per thread (the others: stopped) */
            CB_NOTE("CORE", NT_SIGINFO,
                    cb_siginfo(c, t ? 19 : c->signo, t ? -6 : c->si_code, t ? 0 : c->si_addr,
                               &d_));
        if (!c->gdb && t == 0) { /* the kernel: the process's notes after the first thread */
            if (!c->no_prpsinfo)
                CB_NOTE("CORE", NT_PRPSINFO, cb_prpsinfo(c, &d_));
            if (!c->no_siginfo)
                CB_NOTE("CORE", NT_SIGINFO, cb_siginfo(c, c->signo, c->si_code, c->si_addr, &d_));
            if (!c->no_auxv)
                CB_NOTE("CORE", NT_AUXV, cb_auxv(c, &d_));
            if (c->nfiles)
                CB_NOTE("CORE", NT_FILE, cb_ntfile(c, &d_));
        }
        CB_NOTE("CORE", NT_FPREGSET, cb_zero(&d_, 512));     /* skipped */
        CB_NOTE("LINUX", NT_X86_XSTATE, cb_zero(&d_, 64)); /* skipped */
    }
    if (c->gdb) {
        if (!c->no_auxv)
            CB_NOTE("CORE", NT_AUXV, cb_auxv(c, &d_));
        if (c->nfiles)
            CB_NOTE("CORE", NT_FILE, cb_ntfile(c, &d_));
    }
#undef CB_NOTE
    unsigned w = c->is64 ? 8 : 4;
    size_t ehsize = CB_SIZE(c->is64, Ehdr), phsize = CB_SIZE(c->is64, Phdr);
    size_t nph = 1 + (size_t)c->nloads;
    size_t notes_off = ehsize + nph * phsize;
    size_t data_off = (notes_off + notes.len + 4095) / 4096 * 4096;
    cb_buf o = {0};
    /* ELF header, its fields in order */
    uint8_t ident[EI_NIDENT] = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3,
                                (uint8_t)(c->is64 ? ELFCLASS64 : ELFCLASS32), ELFDATA2LSB,
                                EV_CURRENT};
    cb_put(&o, ident, EI_NIDENT);
    cb_le(&o, ET_CORE, 2);           /* e_type */
    cb_le(&o, c->machine, 2);        /* e_machine */
    cb_le(&o, EV_CURRENT, 4);        /* e_version */
    cb_le(&o, 0, w);                 /* e_entry */
    cb_le(&o, ehsize, w);            /* e_phoff */
    cb_le(&o, 0, w);                 /* e_shoff */
    cb_le(&o, 0, 4);                 /* e_flags */
    cb_le(&o, ehsize, 2);            /* e_ehsize */
    cb_le(&o, phsize, 2);            /* e_phentsize */
    cb_le(&o, nph, 2);               /* e_phnum */
    cb_le(&o, c->gdb ? sizeof(Elf64_Shdr) : 0, 2); /* e_shentsize */
    cb_le(&o, c->gdb ? 3 : 0, 2);    /* e_shnum: gdb cores have section headers (not
                                        written here: the count is what tells) */
    cb_le(&o, 0, 2);                 /* e_shstrndx */
    /* program headers, their fields in order */
    size_t off = data_off;
    for (size_t i = 0; i < nph; i++) {
        uint32_t type = i == 0 ? PT_NOTE : PT_LOAD;
        uint64_t poff = i == 0 ? notes_off : off;
        uint64_t vaddr = i == 0 ? 0 : c->loads[i - 1].vaddr;
        uint64_t filesz = i == 0 ? notes.len : c->loads[i - 1].data ? c->loads[i - 1].filesz : 0;
        uint64_t memsz = i == 0 ? 0 : c->loads[i - 1].memsz;
        uint64_t align = i == 0 ? 4 : 4096;
        uint32_t flags = i == 0 ? 0 : PF_R | PF_X;
        cb_le(&o, type, 4);         /* p_type */
        if (c->is64) {
            cb_le(&o, flags, 4);    /* p_flags, here in ELF64 */
            cb_le(&o, poff, 8);     /* p_offset */
            cb_le(&o, vaddr, 8);    /* p_vaddr */
            cb_le(&o, 0, 8);        /* p_paddr */
            cb_le(&o, filesz, 8);   /* p_filesz */
            cb_le(&o, memsz, 8);    /* p_memsz */
            cb_le(&o, align, 8);    /* p_align */
        } else {
            cb_le(&o, poff, 4);
            cb_le(&o, vaddr, 4);
            cb_le(&o, 0, 4);
            cb_le(&o, filesz, 4);
            cb_le(&o, memsz, 4);
            cb_le(&o, flags, 4);    /* p_flags, here in ELF32 */
            cb_le(&o, align, 4);
        }
        if (i)
            off += (filesz + 4095) / 4096 * 4096;
    }
    cb_put(&o, notes.b, notes.len);
    cb_zero(&o, data_off - o.len);
    for (int i = 0; i < c->nloads; i++)
        if (c->loads[i].data) {
            cb_put(&o, c->loads[i].data, c->loads[i].filesz);
            cb_align(&o, 4096);
        }
    free(notes.b);
    *len = o.len;
    return o.b;
}

/* The first page of a module: an ELF header (type dyn), a PT_LOAD of offset
 * 0 at vaddr 0, a PT_NOTE at 0x200 holding a GNU build-id of nbid bytes. */
static void cb_module_page(int is64, uint16_t machine, const uint8_t *bid, size_t nbid,
                           uint8_t page[4096])
{
    memset(page, 0, 4096);
    size_t ehsize = CB_SIZE(is64, Ehdr), phsize = CB_SIZE(is64, Phdr);
    uint8_t ident[EI_NIDENT] = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3,
                                (uint8_t)(is64 ? ELFCLASS64 : ELFCLASS32), ELFDATA2LSB,
                                EV_CURRENT};
    memcpy(page, ident, EI_NIDENT);
    CB_FIELD(page, is64, Ehdr, e_type, ET_DYN);
    CB_FIELD(page, is64, Ehdr, e_machine, machine);
    CB_FIELD(page, is64, Ehdr, e_version, EV_CURRENT);
    CB_FIELD(page, is64, Ehdr, e_phoff, ehsize);
    CB_FIELD(page, is64, Ehdr, e_phentsize, phsize);
    CB_FIELD(page, is64, Ehdr, e_phnum, 2);
    uint8_t *ph = page + ehsize;
    size_t note_at = 0x200, note_len = 16 + (nbid + 3) / 4 * 4;
    CB_FIELD(ph, is64, Phdr, p_type, PT_LOAD); /* offset 0 vaddr 0 */
    CB_FIELD(ph, is64, Phdr, p_filesz, 0x2000);
    CB_FIELD(ph, is64, Phdr, p_memsz, 0x2000);
    ph += phsize;
    CB_FIELD(ph, is64, Phdr, p_type, PT_NOTE);
    CB_FIELD(ph, is64, Phdr, p_offset, note_at);
    CB_FIELD(ph, is64, Phdr, p_vaddr, note_at);
    CB_FIELD(ph, is64, Phdr, p_filesz, note_len);
    CB_FIELD(ph, is64, Phdr, p_align, 4);
    uint8_t *n = page + note_at;
    cb_set(n, sizeof ELF_NOTE_GNU, 4); /* namesz */
    cb_set(n + 4, nbid, 4);            /* descsz */
    cb_set(n + 8, NT_GNU_BUILD_ID, 4);
    memcpy(n + 12, ELF_NOTE_GNU, sizeof ELF_NOTE_GNU);
    memcpy(n + 16, bid, nbid);
}

#endif
