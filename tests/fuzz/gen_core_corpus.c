/*
 * gen_core_corpus.c - makes the seed corpus of fuzz_core_notes: small ELF
 * cores built by tests/unit/core_build.h (x86_64, aarch64 and i386; kernel
 * and gdb note orders; module first pages with build-ids; a stack page with
 * a signal frame) and variants cut inside the notes and with hostile
 * counts. Run once by hand (not part of the build):
 *   cc -Iinclude -Itests/unit tests/fuzz/gen_core_corpus.c -o /tmp/gen-core && \
 *       /tmp/gen-core tests/fuzz/corpus/fuzz_core_notes
 */
#include <stdio.h>

#include "core_build.h"

static void write_file(const char *dir, const char *name, const uint8_t *b, size_t n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f) {
        perror(p);
        exit(1);
    }
    fwrite(b, 1, n, f);
    fclose(f);
}

static uint8_t exe_page[4096], lib_page[4096], stack[4096];

static void make(cb_core *c, int is64, uint16_t machine, int gdb)
{
    static const uint8_t bid_exe[20] = {0x5a, 0x7e, 0x11, 0x4d, 1, 2, 3, 4, 5, 6,
                                        7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const uint8_t bid_lib[20] = {0x1b, 0xc0, 0xde, 0x55, 9, 8, 7, 6, 5, 4,
                                        3, 2, 1, 0, 1, 2, 3, 4, 5, 6};
    memset(c, 0, sizeof *c);
    uint64_t hi = is64 ? 0x7ffc00000000ull : 0xbf000000ull;
    c->is64 = is64;
    c->machine = machine;
    c->gdb = gdb;
    c->cursig = 6;
    c->nthreads = 2;
    c->threads[0] = (cb_thread){1001, 0x401234, hi + 0x400, hi + 0x500, 1u << 10};
    c->threads[1] = (cb_thread){1002, hi - 0xff000, hi + 0x800, hi + 0x900, 0};
    c->pid = 1001;
    c->ppid = 1;
    c->uid = 389;
    c->gid = 389;
    c->fname = "ns-slapd";
    c->psargs = "/usr/sbin/ns-slapd -D /etc/dirsrv/slapd-example";
    c->signo = 6;
    c->si_code = -6;
    c->si_addr = 1001;
    c->at_phdr = 0x400040;
    c->at_entry = 0x401000;
    c->at_execfn = hi + 0xf00;
    c->at_sysinfo_ehdr = hi + 0x10000;
    c->nfiles = 3;
    c->files[0] = (cb_file){0x400000, 0x402000, 0, "/usr/sbin/ns-slapd"};
    c->files[1] = (cb_file){0x601000, 0x602000, 1, "/usr/sbin/ns-slapd"};
    c->files[2] = (cb_file){hi - 0x100000, hi - 0xfe000, 0, "/usr/lib64/dirsrv/libslapd.so.0"};
    cb_module_page(is64, machine, bid_exe, sizeof bid_exe, exe_page);
    cb_module_page(is64, machine, bid_lib, sizeof bid_lib, lib_page);
    memset(stack, 0, sizeof stack);
    memcpy(stack + 0xf00, "/usr/sbin/ns-slapd", 19);
    /* a signal frame at the first thread's sp: siginfo of a SIGSEGV where
     * each architecture keeps it (x86_64 sp+304, aarch64 sp+0, i386 sp+12) */
    size_t info = machine == EM_X86_64 ? 304 : machine == EM_AARCH64 ? 0 : 12;
    if (machine == EM_386)
        cb_set(stack + 0x400, 11, 4);
    cb_set(stack + 0x400 + info, 11, 4);
    cb_set(stack + 0x400 + info + 8, 1, 4);
    c->nloads = 4;
    c->loads[0] = (cb_load){0x400000, 0x2000, exe_page, 4096};
    c->loads[1] = (cb_load){hi - 0x100000, 0x2000, lib_page, 4096};
    c->loads[2] = (cb_load){hi, 0x1000, stack, 4096};
    c->loads[3] = (cb_load){hi + 0x10000, 0x2000, lib_page, 4096};
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen-core DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    static const struct { const char *name; int is64; uint16_t machine; int gdb; } kinds[] = {
        {"x86_64_kernel.core", 1, EM_X86_64, 0},
        {"x86_64_gdb.core", 1, EM_X86_64, 1},
        {"aarch64_kernel.core", 1, EM_AARCH64, 0},
        {"aarch64_gdb.core", 1, EM_AARCH64, 1},
        {"i386_kernel.core", 0, EM_386, 0},
    };
    cb_core c;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        make(&c, kinds[k].is64, kinds[k].machine, kinds[k].gdb);
        size_t len;
        uint8_t *core = cb_make_core(&c, &len);
        write_file(dir, kinds[k].name, core, len);
        if (k == 0) {
            /* cut inside the notes; cut after the notes (no loads) */
            write_file(dir, "x86_64_cut_notes.core", core, 900);
            write_file(dir, "x86_64_cut_loads.core", core, 4096 + 100);
            /* NT_FILE claiming 2^62 entries: its note's type, then its name */
            uint8_t ntfile[4];
            cb_set(ntfile, NT_FILE, 4);
            for (size_t i = 0; i + 20 < len; i++)
                if (!memcmp(core + i, ntfile, 4) && !memcmp(core + i + 4, "CORE", 4)) {
                    cb_set(core + i + 12, 1ull << 62, 8);
                    break;
                }
            write_file(dir, "x86_64_ntfile_count.core", core, len);
            /* PN_XNUM with section header 0 over the program headers */
            CB_FIELD(core, 1, Ehdr, e_shoff, sizeof(Elf64_Ehdr));
            CB_FIELD(core, 1, Ehdr, e_phnum, PN_XNUM);
            CB_FIELD(core, 1, Ehdr, e_shentsize, sizeof(Elf64_Shdr));
            write_file(dir, "x86_64_pn_xnum.core", core, len);
        }
        free(core);
    }
    return 0;
}
