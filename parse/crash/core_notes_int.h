/*
 * core_notes_int.h - (private to the core reader, parse/crash/core_notes*.c) the
 * state its files share: how ELF fields are read, the reader over the core's
 * bytes and the bounds on what a hostile header can make us allocate.
 *   core_notes.c          the file: ELF header, program headers, the order of
 *                         the work, and the reader's helpers;
 *   core_notes_note.c     the notes of the PT_NOTE segments (NT_PRSTATUS,
 *                         NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE);
 *   core_notes_mem.c      process memory held by the core, siginfo, and the
 *                         signal a handler's frame holds;
 *   core_notes_modules.c  the mapped modules and their GNU build-ids;
 *   core_notes_name.c     the time in a core's file name.
 * The specs are named in core_notes.c's opening comment.
 *
 * Ownership: what the reader finds is written into the caller's
 * sat_core_facts (core.h), whose arrays and arena it owns.
 */
#ifndef SAT_PARSE_CORE_NOTES_INT_H
#define SAT_PARSE_CORE_NOTES_INT_H

#include "satscope/core.h"

#include <elf.h>
#include <stddef.h>

/* The numbers (ELFMAG, ET_CORE, EM_*, PT_*, NT_*, AT_*) are glibc's <elf.h>
 * names. Its structs give the headers' sizes and each field's offset and
 * width for the core's class; the bytes themselves are read through
 * sat_cursor, never through those structs. */
#define ELF_SIZE(is64, T) ((is64) ? sizeof(Elf64_##T) : sizeof(Elf32_##T))
#define ELF_FIELD(is64, T, field, p, n, err)                                          \
    ((is64) ? elf_le_at(p, n, offsetof(Elf64_##T, field),                              \
                        sizeof(((const Elf64_##T *)0)->field), err)                    \
            : elf_le_at(p, n, offsetof(Elf32_##T, field),                              \
                        sizeof(((const Elf32_##T *)0)->field), err))

/* The little-endian number of size bytes (2, 4 or 8) at p[at]; a field past
 * n sets *err (sticky: one check after a run of fields) and reads 0. */
static inline uint64_t elf_le_at(const uint8_t *p, size_t n, size_t at, size_t size, int *err)
{
    sat_cursor c = sat_cursor_make(p, n);
    sat_cursor_skip(&c, at);
    uint64_t v = size == 8 ? sat_cursor_le64(&c)
                 : size == 4 ? sat_cursor_le32(&c)
                             : sat_cursor_le16(&c);
    if (c.err && !*err)
        *err = c.err;
    return v;
}

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

static inline int in_file(uint64_t off, uint64_t n, size_t len)
{
    return off <= len && n <= len - off;
}

/* A cursor over bytes[off, off + n) of the file, cut to what the file has. */
static inline sat_cursor window(const reader *r, uint64_t off, uint64_t n)
{
    if (off > r->len)
        return sat_cursor_make(r->b, 0);
    uint64_t avail = r->len - off;
    return sat_cursor_make(r->b + off, (size_t)(n < avail ? n : avail));
}

static inline uint64_t word(sat_cursor *c, int is64)
{
    return is64 ? sat_cursor_le64(c) : sat_cursor_le32(c);
}

/* Process memory at addr, as far as the core holds it (core.h). */
static inline size_t read_mem(const reader *r, uint64_t addr, void *dst, size_t n)
{
    return sat_core_read_mem(r->f, r->b, r->len, addr, dst, n);
}

static inline int name_is(const uint8_t *name, uint32_t namesz, const char *want)
{
    size_t n = namesz;
    while (n && name[n - 1] == '\0')
        n--;
    return n == strlen(want) && memcmp(name, want, n) == 0;
}

/* What sat_cn_walk_notes calls for each note: its name, type and descriptor. */
typedef void (*note_fn)(reader *r, const uint8_t *name, uint32_t namesz, uint32_t type,
                        const uint8_t *desc, size_t descsz, void *u);

/* ---- core_notes.c: the reader's helpers ---------------------------------------- */
/* The first problem met, in f->warning (later ones are dropped). */
void sat_cn_warn(sat_core_facts *f, const char *fmt, ...) SAT_PRINTF(2, 3);
/* 1 when arr has room for element n (SAT_GROW: doubling cap, a size_t), 0
 * at n >= max (a hostile count: the caller says so) or out of memory
 * (r->oom). The maxima are powers of two, so cap never passes them. */
#define CN_GROW(r, arr, cap, n, max)                                                     \
    ((size_t)(n) < (size_t)(max) &&                                                       \
     (SAT_GROW(arr, cap, (size_t)(n) + 1) == SAT_OK || ((r)->oom = 1, 0)))
void sat_cn_copy_text(char *dst, size_t cap, const uint8_t *src, size_t n);
/* One program header (System V gABI, Elf32_Phdr / Elf64_Phdr) at ph, which
 * holds a whole entry (ELF_SIZE(is64, Phdr) bytes). */
typedef struct phdr {
    uint32_t type;
    uint64_t off, vaddr, filesz, memsz, align;
} phdr;
phdr sat_cn_phdr(const uint8_t *ph, int is64);

/* ---- core_notes_note.c ---------------------------------------------------------- */
int sat_cn_walk_notes(reader *r, sat_cursor seg, unsigned align, note_fn fn, void *u);
void sat_cn_on_core_note(reader *r, const uint8_t *name, uint32_t namesz, uint32_t type,
                         const uint8_t *desc, size_t descsz, void *u);

/* ---- core_notes_modules.c ------------------------------------------------------- */
void sat_cn_find_modules(reader *r);

#endif
