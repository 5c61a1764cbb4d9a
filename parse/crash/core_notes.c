
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
#include "core_notes_int.h"

#include <stdarg.h>

void sat_cn_warn(sat_core_facts *f, const char *fmt, ...)
{
    if (f->warning[0])
        return; /* the first problem is the one worth telling */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->warning, sizeof f->warning, fmt, ap);
    va_end(ap);
}

/* The fields are in another order in Elf32_Phdr (p_flags after p_memsz) and
 * Elf64_Phdr (p_flags after p_type, for alignment): elf.h's structs say where. */
phdr sat_cn_phdr(const uint8_t *ph, int is64)
{
    size_t n = ELF_SIZE(is64, Phdr);
    int err = 0; /* ph holds a whole entry: never set */
    phdr h;
    h.type = (uint32_t)ELF_FIELD(is64, Phdr, p_type, ph, n, &err);
    h.off = ELF_FIELD(is64, Phdr, p_offset, ph, n, &err);
    h.vaddr = ELF_FIELD(is64, Phdr, p_vaddr, ph, n, &err);
    h.filesz = ELF_FIELD(is64, Phdr, p_filesz, ph, n, &err);
    h.memsz = ELF_FIELD(is64, Phdr, p_memsz, ph, n, &err);
    h.align = ELF_FIELD(is64, Phdr, p_align, ph, n, &err);
    return h;
}

/* Bytes up to the first NUL (at most n), control bytes shown as '?': these
 * strings end up on terminals and in reports. */
void sat_cn_copy_text(char *dst, size_t cap, const uint8_t *src, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap && src[i]; i++)
        dst[o++] = (src[i] < 0x20 || src[i] == 0x7f) ? '?' : (char)src[i];
    while (o && dst[o - 1] == ' ')
        o--; /* the kernel leaves a space after the last argument */
    dst[o] = '\0';
}

static int cmp_load(const void *a, const void *b)
{
    const sat_core_load *x = a, *y = b;
    return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* ---- the file ---------------------------------------------------------------------------- */
int sat_core_sniff(const void *head, size_t n)
{
    const uint8_t *b = head;
    /* e_ident and e_type sit alike in both classes */
    size_t type_at = offsetof(Elf64_Ehdr, e_type);
    if (n < type_at + sizeof(Elf64_Half) || memcmp(b, ELFMAG, SELFMAG) != 0 ||
        (b[EI_CLASS] != ELFCLASS32 && b[EI_CLASS] != ELFCLASS64))
        return 0;
    sat_cursor c = sat_cursor_make(b + type_at, sizeof(Elf64_Half));
    uint16_t type = b[EI_DATA] == ELFDATA2MSB ? sat_cursor_be16(&c) : sat_cursor_le16(&c);
    return type == ET_CORE;
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
    sat_cn_warn(f, "the core is cut short: %s (the file has %zu bytes)", what, len);
}

int sat_core_parse(const void *bytes, size_t len, sat_core_facts *out, sat_diag *diag)
{
    facts_init(out);
    const uint8_t *b = bytes;
    if (!b || !sat_core_sniff(b, len))
        return sat_diag_set(diag, SAT_E_FORMAT, "core", "not an ELF core file");
    if (b[EI_DATA] != ELFDATA2LSB)
        return sat_diag_set(diag, SAT_E_UNSUPPORTED, "core",
                            "a big-endian core (only little-endian cores are read)");
    reader r;
    memset(&r, 0, sizeof r);
    r.b = b;
    r.len = len;
    r.is64 = b[EI_CLASS] == ELFCLASS64;
    r.f = out;
    sat_core_facts *f = out;
    f->elfclass = r.is64 ? 64 : 32;

    int eh_err = 0;
    f->machine = (uint16_t)ELF_FIELD(r.is64, Ehdr, e_machine, b, len, &eh_err);
    if (r.is64 && f->machine == EM_X86_64)
        f->arch = SAT_ARCH_X86_64;
    else if (r.is64 && f->machine == EM_AARCH64)
        f->arch = SAT_ARCH_AARCH64;
    else if (!r.is64 && f->machine == EM_386)
        f->arch = SAT_ARCH_I386;
    uint64_t phoff = ELF_FIELD(r.is64, Ehdr, e_phoff, b, len, &eh_err);
    uint64_t shoff = ELF_FIELD(r.is64, Ehdr, e_shoff, b, len, &eh_err);
    uint16_t phentsize = (uint16_t)ELF_FIELD(r.is64, Ehdr, e_phentsize, b, len, &eh_err);
    uint16_t phnum16 = (uint16_t)ELF_FIELD(r.is64, Ehdr, e_phnum, b, len, &eh_err);
    uint16_t shentsize = (uint16_t)ELF_FIELD(r.is64, Ehdr, e_shentsize, b, len, &eh_err);
    uint16_t shnum = (uint16_t)ELF_FIELD(r.is64, Ehdr, e_shnum, b, len, &eh_err);
    if (eh_err) {
        truncated(f, len, "inside the ELF header");
        return SAT_OK;
    }
    uint64_t phnum = phnum16;
    size_t phsize = ELF_SIZE(r.is64, Phdr), shsize = ELF_SIZE(r.is64, Shdr);
    if (phnum16 == PN_XNUM) {
        /* more segments than e_phnum holds: section 0's sh_info has them */
        if (shentsize >= shsize && in_file(shoff, shsize, len)) {
            int sh_err = 0; /* in_file: section 0 is whole */
            phnum = ELF_FIELD(r.is64, Shdr, sh_info, b + shoff, shsize, &sh_err);
        } else {
            truncated(f, len, "the section header holding the segment count is missing");
            phnum = 0;
        }
    }
    if (phnum > MAX_SEGMENTS) {
        sat_cn_warn(f, "%llu segments: only the first %u are read", (unsigned long long)phnum,
                    MAX_SEGMENTS);
        phnum = MAX_SEGMENTS;
    }
    if (phnum && phentsize < phsize)
        return sat_diag_set(diag, SAT_E_FORMAT, "core",
                            "program header entries of %u bytes (at least %zu expected)",
                            phentsize, phsize);
    /* kernel cores have no section headers (one, for PN_XNUM) */
    if (shnum > 1 && phnum16 != PN_XNUM)
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
        phdr h = sat_cn_phdr(b + at, r.is64);
        uint32_t type = h.type;
        uint64_t off = h.off, vaddr = h.vaddr, filesz = h.filesz, memsz = h.memsz, align = h.align;
        if (type != PT_LOAD && type != PT_NOTE)
            continue;
        uint64_t end = off + filesz < off ? UINT64_MAX : off + filesz;
        if (end > f->size_needed)
            f->size_needed = end;
        uint64_t have = off >= len ? 0 : (len - off < filesz ? len - off : filesz);
        if (type == PT_LOAD) {
            if (!CN_GROW(&r, f->loads, r.cap_loads, f->nloads, MAX_SEGMENTS))
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
            if (nnotes >= 1024)
                break; /* past any real core's: the rest are not read */
            if (SAT_GROW(notes, cap_notes, nnotes + 1) != SAT_OK) {
                r.oom = 1;
                break;
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
        if (sat_cn_walk_notes(&r, seg, notes[i].align == 8 ? 8 : 4, sat_cn_on_core_note,
                              NULL) < 0) {
            if (f->flags & SAT_CRASHF_TRUNCATED)
                sat_cn_warn(f, "the notes are cut short");
            else
                sat_cn_warn(f, "a note runs past the end of its segment");
        }
    }
    free(notes);
    if (r.first_core_note == NT_PRPSINFO)
        f->flags |= SAT_CRASHF_GDB_CORE; /* the kernel starts with a thread */
    if (!r.oom && !nnotes)
        sat_cn_warn(f, "the core has no note segment: no threads, signal or mapped files");

    if (!r.oom)
        sat_cn_find_modules(&r);
    if (!r.oom && f->at_execfn) {
        char path[4096];
        size_t got = read_mem(&r, f->at_execfn, path, sizeof path);
        const char *nul = got ? memchr(path, 0, got) : NULL;
        if (nul && nul > path) {
            char *s = sat_arena_alloc(&f->arena_, (size_t)(nul - path) + 1);
            if (s) {
                sat_cn_copy_text(s, (size_t)(nul - path) + 1, (const uint8_t *)path,
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
