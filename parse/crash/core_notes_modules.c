/*
 * core_notes_modules.c - the modules mapped in a core (core.h): NT_FILE's
 * mappings grouped by path, ELF images only the dumped pages show (the vDSO),
 * each one's GNU build-id note read from its first page, and which module is
 * the executable (the auxiliary vector's AT_PHDR / AT_ENTRY).
 */
#include "core_notes_int.h"

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
    if (o->hex[0] || type != NT_GNU_BUILD_ID || !name_is(name, namesz, ELF_NOTE_GNU) || !descsz)
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
    uint8_t eh[sizeof(Elf64_Ehdr)];
    size_t ehsize = ELF_SIZE(r->is64, Ehdr);
    if (read_mem(r, start, eh, ehsize) < ehsize || memcmp(eh, ELFMAG, SELFMAG) != 0)
        return 0;
    if (eh[EI_CLASS] != (r->is64 ? ELFCLASS64 : ELFCLASS32) || eh[EI_DATA] != ELFDATA2LSB)
        return 1; /* another class or byte order than the core: leave it */
    int err = 0;
    uint64_t phoff = ELF_FIELD(r->is64, Ehdr, e_phoff, eh, ehsize, &err);
    uint16_t phentsize = (uint16_t)ELF_FIELD(r->is64, Ehdr, e_phentsize, eh, ehsize, &err);
    uint16_t phnum = (uint16_t)ELF_FIELD(r->is64, Ehdr, e_phnum, eh, ehsize, &err);
    size_t phsize = ELF_SIZE(r->is64, Phdr);
    uint64_t span_bytes = (uint64_t)phnum * phentsize;
    if (err || phentsize < phsize || phnum == 0 || phnum > MAX_MODULE_PHDRS ||
        phoff > UINT64_MAX - span_bytes || start > UINT64_MAX - (phoff + span_bytes))
        return 1;
    struct { uint64_t type, off, vaddr, filesz, align; } notes[8];
    size_t nnotes = 0;
    int have_bias = 0;
    uint64_t bias = 0, lowest = UINT64_MAX;
    for (unsigned i = 0; i < phnum; i++) {
        uint8_t ph[sizeof(Elf64_Phdr)];
        if (read_mem(r, start + phoff + (uint64_t)i * phentsize, ph, phsize) < phsize)
            break;
        phdr h = sat_cn_phdr(ph, r->is64);
        uint64_t type = h.type, off = h.off, vaddr = h.vaddr, filesz = h.filesz, align = h.align;
        if (type == PT_LOAD) {
            /* the segment that maps file offset 0 is the one at start */
            if (off == 0 && !have_bias) {
                bias = start - vaddr;
                have_bias = 1;
            }
            if (vaddr < lowest)
                lowest = vaddr;
        } else if (type == PT_NOTE && nnotes < 8) {
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
        sat_cn_walk_notes(r, sat_cursor_make(buf, got), notes[i].align == 8 ? 8 : 4, on_module_note,
                          &out);
    }
    free(buf);
    return 1;
}

/* ---- modules: NT_FILE paths grouped, plus ELF images only the pages show --------------- */
static sat_core_module *add_module(reader *r, const char *path, uint64_t start, uint64_t end)
{
    sat_core_facts *f = r->f;
    if (!CN_GROW(r, f->modules, r->cap_modules, f->nmodules, MAX_MODULES)) {
        if (!r->oom)
            sat_cn_warn(f, "more than %u mapped modules: the rest are not listed", MAX_MODULES);
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

void sat_cn_find_modules(reader *r)
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
            if (!CN_GROW(r, head, head_cap, f->nmodules - 1, MAX_MODULES))
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
        /* room for the larger (ELF64) header, then its magic */
        if (l->filesz < sizeof(Elf64_Ehdr) || memcmp(r->b + l->offset, ELFMAG, SELFMAG) != 0)
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
