/*
 * core_modules.c - the modules of a core for libdwfl: where each one's ELF
 * file and debug file are (libdwfl's lookups, then the module under
 * --sysroot, and by base name in the --debuginfo-path directories and
 * beside --exe; a build-id in the core must match), the table of modules by
 * address with their names as the core gives them and their build-ids, and
 * whether each has an ELF file and symbols.
 */
#include <fcntl.h>
#include <unistd.h>

#include "core_unwind_int.h"

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
    const uw *u = sat_uw_current;
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

int sat_uw_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                    char **file_name, Elf **elfp)
{
    int fd = dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
    if (fd >= 0 || *elfp || !modname || modname[0] == '[')
        return fd;
    const uw *u = sat_uw_current;
    if (u && u->o->sysroot && modname[0] == '/') {
        fd = try_candidate(mod, u->o->sysroot, strlen(u->o->sysroot), modname + 1, file_name);
        if (fd >= 0)
            return fd;
    }
    const char *core_name = u ? core_name_at(u->f, base) : NULL;
    const char *names[2] = {base_name(modname), core_name};
    return try_dirs(mod, names, core_name && strcmp(core_name, names[0]) ? 2 : 1, file_name);
}

int sat_uw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
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
    const uw *u = sat_uw_current;
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

int sat_uw_collect_module(Dwfl_Module *mod, void **userdata, const char *name,
                          Dwarf_Addr start, void *arg)
{
    (void)userdata;
    mod_walk *w = arg;
    uw *u = w->u;
    if (SAT_GROW(u->mods, w->cap, u->nmods + 1)) {
        u->rc = SAT_E_NOMEM;
        return DWARF_CB_ABORT;
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

int sat_uw_cmp_mod(const void *a, const void *b)
{
    const modinfo *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

modinfo *sat_uw_modinfo_of(uw *u, Dwfl_Module *mod, Dwarf_Addr addr)
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
void sat_uw_resolve(modinfo *mi)
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
