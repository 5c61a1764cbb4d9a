/*
 * test_core_notes.c - parse/crash/core_notes.c on cores made in memory
 * (core_build.h): the facts of x86_64, aarch64 and i386 cores, kernel and
 * gdb note orders, build-ids from the modules' first pages, the vDSO and
 * images NT_FILE does not name, every possible cut of a core (partial
 * facts, never a failure), hostile counts and sizes, and the handler's
 * signal read back from synthetic signal frames of each architecture.
 */
#include "check.h"
#include "core_build.h"
#include "satscope/core.h"

static const uint8_t BID_EXE[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
                                    7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t BID_LIB[8] = {0xca, 0xfe, 0xf0, 0x0d, 0x11, 0x22, 0x33, 0x44};

/* A stack page with a NUL-terminated path at its start (AT_EXECFN). */
static void stack_page(uint8_t page[4096], const char *execfn)
{
    memset(page, 0, 4096);
    memcpy(page, execfn, strlen(execfn) + 1);
}

static void base_core(cb_core *c, int is64, uint16_t machine, uint8_t *exe_page,
                      uint8_t *lib_page, uint8_t *stack)
{
    memset(c, 0, sizeof *c);
    c->is64 = is64;
    c->machine = machine;
    c->cursig = 11;
    c->nthreads = 3;
    uint64_t hi = is64 ? 0x7f0000000000ull : 0xbf000000ull;
    for (int i = 0; i < 3; i++) {
        c->threads[i].tid = 4242 + i;
        c->threads[i].pc = 0x401000 + (uint64_t)i * 16;
        c->threads[i].sp = hi + 0x100 + (uint64_t)i;
        c->threads[i].fp = hi + 0x200 + (uint64_t)i;
    }
    c->pid = 4242;
    c->ppid = 1;
    c->uid = 389;
    c->gid = 389;
    c->fname = "ns-slapd";
    c->psargs = "/usr/sbin/ns-slapd -D /etc/dirsrv/slapd-x -i /run/x.pid";
    c->signo = 11;
    c->si_code = 1;
    c->si_addr = 0x1234;
    c->at_phdr = 0x400040;
    c->at_entry = 0x401000;
    c->at_execfn = hi;
    c->at_sysinfo_ehdr = hi + 0x10000;
    c->nfiles = 3;
    c->files[0] = (cb_file){0x400000, 0x402000, 0, "/usr/sbin/ns-slapd"};
    c->files[1] = (cb_file){0x600000, 0x601000, 2, "/usr/sbin/ns-slapd"};
    c->files[2] = (cb_file){hi - 0x100000, hi - 0xfe000, 0, "/usr/lib/libslapd.so.0"};
    cb_module_page(is64, machine, BID_EXE, sizeof BID_EXE, exe_page);
    cb_module_page(is64, machine, BID_LIB, sizeof BID_LIB, lib_page);
    stack_page(stack, "/usr/sbin/ns-slapd");
    c->nloads = 5;
    c->loads[0] = (cb_load){0x400000, 0x2000, exe_page, 4096};
    c->loads[1] = (cb_load){0x600000, 0x1000, NULL, 0};
    c->loads[2] = (cb_load){hi - 0x100000, 0x2000, lib_page, 4096};
    c->loads[3] = (cb_load){hi, 0x1000, stack, 4096};
    /* the vDSO: an ELF image NT_FILE does not name */
    c->loads[4] = (cb_load){hi + 0x10000, 0x2000, lib_page, 4096};
}

static void check_facts(const sat_core_facts *f, const cb_core *c, int arch)
{
    CHECK_EQ_INT(f->arch, arch);
    CHECK_EQ_INT(f->elfclass, c->is64 ? 64 : 32);
    CHECK_EQ_INT(f->nthreads, 3);
    for (size_t i = 0; i < f->nthreads && i < 3; i++) {
        CHECK_EQ_INT(f->threads[i].tid, c->threads[i].tid);
        CHECK_EQ_INT(f->threads[i].cursig, 11);
        CHECK_EQ_INT(f->threads[i].regs, 1);
        CHECK_EQ_INT(f->threads[i].pc, c->threads[i].pc);
        CHECK_EQ_INT(f->threads[i].sp, c->threads[i].sp);
        CHECK_EQ_INT(f->threads[i].fp, c->threads[i].fp);
    }
    CHECK_EQ_INT(f->pid, 4242);
    CHECK_EQ_INT(f->ppid, 1);
    CHECK_EQ_INT(f->uid, 389);
    CHECK_EQ_INT(f->gid, 389);
    CHECK_EQ_STR(f->fname, "ns-slapd");
    CHECK_EQ_STR(f->psargs, c->psargs);
    CHECK_EQ_INT(f->si_signo, 11);
    CHECK_EQ_INT(f->si_code, 1);
    CHECK_EQ_INT(f->si_addr, 0x1234);
    CHECK_EQ_INT(f->si_addr_valid, 1);
    CHECK_EQ_INT(f->at_phdr, 0x400040);
    CHECK_EQ_INT(f->at_entry, 0x401000);
    CHECK_EQ_INT(f->at_uid, 389);
    CHECK(f->execfn && !strcmp(f->execfn, "/usr/sbin/ns-slapd"));
    CHECK_EQ_INT(f->nmaps, 3);
    if (f->nmaps == 3) {
        CHECK_EQ_INT(f->maps[1].offset, 2 * 4096);
        CHECK_EQ_STR(f->maps[2].path, "/usr/lib/libslapd.so.0");
    }
    /* exe and lib from NT_FILE, the vDSO from its pages */
    CHECK_EQ_INT(f->nmodules, 3);
    if (f->nmodules == 3) {
        CHECK_EQ_STR(f->modules[0].path, "/usr/sbin/ns-slapd");
        CHECK_EQ_INT(f->modules[0].start, 0x400000);
        CHECK_EQ_INT(f->modules[0].end, 0x601000);
        CHECK_EQ_STR(f->modules[0].build_id, "deadbeef0102030405060708090a0b0c0d0e0f10");
        CHECK_EQ_INT(f->modules[0].is_exe, 1);
        CHECK_EQ_STR(f->modules[1].build_id, "cafef00d11223344");
        CHECK_EQ_INT(f->modules[1].is_exe, 0);
        CHECK_EQ_STR(f->modules[2].path, "[vdso]");
        CHECK_EQ_STR(f->modules[2].build_id, "cafef00d11223344");
    }
    CHECK_EQ_INT(f->exe, 0);
    CHECK(!(f->flags & SAT_CRASHF_TRUNCATED));
    CHECK_EQ_STR(f->warning, "");
}

static void test_arch(int is64, uint16_t machine, int arch, int gdb)
{
    static uint8_t exe_page[4096], lib_page[4096], stack[4096];
    cb_core c;
    base_core(&c, is64, machine, exe_page, lib_page, stack);
    c.gdb = gdb;
    size_t len;
    uint8_t *core = cb_make_core(&c, &len);
    CHECK(sat_core_sniff(core, len));
    sat_core_facts f;
    sat_diag d = {0};
    CHECK_EQ_INT(sat_core_parse(core, len, &f, &d), SAT_OK);
    check_facts(&f, &c, arch);
    CHECK_EQ_INT(!!(f.flags & SAT_CRASHF_GDB_CORE), gdb);
    /* memory reads: inside the stack load, across its end, in an undumped load */
    char buf[32];
    CHECK_EQ_INT(sat_core_read_mem(&f, core, len, c.at_execfn, buf, 8), 8);
    CHECK(!memcmp(buf, "/usr/sbi", 8));
    CHECK_EQ_INT(sat_core_read_mem(&f, core, len, c.at_execfn + 4090, buf, 32), 6);
    CHECK_EQ_INT(sat_core_read_mem(&f, core, len, 0x600000, buf, 4), 0);
    CHECK_EQ_INT(sat_core_read_mem(&f, core, len, 0x10, buf, 4), 0);
    sat_core_facts_free(&f);

    /* every cut: facts shrink, nothing fails, the cut is said */
    size_t prev_threads = 99;
    int saw_partial = 0;
    for (size_t n = len; n-- > 0;) {
        sat_core_facts g;
        memset(&d, 0, sizeof d);
        int rc = sat_core_parse(core, n, &g, &d);
        if (n < 18) {
            CHECK_EQ_INT(rc, SAT_E_FORMAT);
        } else {
            CHECK_EQ_INT(rc, SAT_OK);
            CHECK(g.flags & SAT_CRASHF_TRUNCATED);
            CHECK(g.warning[0] != '\0');
            CHECK(g.nthreads <= prev_threads);
            prev_threads = g.nthreads;
            if (g.nthreads > 0 && g.nthreads < 3)
                saw_partial = 1;
        }
        sat_core_facts_free(&g);
    }
    CHECK(saw_partial);
    free(core);
}

/* A gdb core's second thread has a SIGINFO of its own (SIGSTOP): the crash
 * is the first thread's. Without NT_FILE the modules are the ELF images of
 * the core's pages, unnamed; the executable is unknown without auxv. */
static void test_gdb_siginfo_and_no_ntfile(void)
{
    static uint8_t exe_page[4096], lib_page[4096], stack[4096];
    cb_core c;
    base_core(&c, 1, EM_X86_64, exe_page, lib_page, stack);
    c.gdb = 1;
    c.nfiles = 0;
    c.no_auxv = 1;
    size_t len;
    uint8_t *core = cb_make_core(&c, &len);
    sat_core_facts f;
    CHECK_EQ_INT(sat_core_parse(core, len, &f, NULL), SAT_OK);
    CHECK_EQ_INT(f.si_signo, 11);
    CHECK_EQ_INT(f.si_addr, 0x1234);
    CHECK_EQ_INT(f.nmaps, 0);
    CHECK_EQ_INT(f.nmodules, 3);
    for (size_t i = 0; i < f.nmodules; i++)
        CHECK(f.modules[i].path == NULL && f.modules[i].build_id[0]);
    CHECK(f.exe == (size_t)-1);
    CHECK(f.execfn == NULL);
    sat_core_facts_free(&f);
    free(core);
}

static void test_rejected(void)
{
    static uint8_t exe_page[4096], lib_page[4096], stack[4096];
    cb_core c;
    base_core(&c, 1, EM_X86_64, exe_page, lib_page, stack);
    size_t len;
    uint8_t *core = cb_make_core(&c, &len);
    sat_core_facts f;
    sat_diag d = {0};
    /* not a core: an executable, text */
    core[16] = 2;
    CHECK(!sat_core_sniff(core, len));
    CHECK_EQ_INT(sat_core_parse(core, len, &f, &d), SAT_E_FORMAT);
    sat_core_facts_free(&f);
    core[16] = 4;
    CHECK_EQ_INT(sat_core_parse("hello, world, not a core", 24, &f, NULL), SAT_E_FORMAT);
    sat_core_facts_free(&f);
    /* big-endian: said, not misread */
    core[5] = 2;
    core[16] = 0;
    core[17] = 4;
    CHECK(sat_core_sniff(core, len));
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(sat_core_parse(core, len, &f, &d), SAT_E_UNSUPPORTED);
    CHECK(strstr(d.msg, "big-endian") != NULL);
    sat_core_facts_free(&f);
    core[5] = 1;
    core[16] = 4;
    core[17] = 0;
    /* program header entries too small to be ELF64 ones */
    cb_set(core + 54, 20, 2);
    CHECK_EQ_INT(sat_core_parse(core, len, &f, &d), SAT_E_FORMAT);
    sat_core_facts_free(&f);
    cb_set(core + 54, 56, 2);
    /* PN_XNUM without the section header that holds the count */
    cb_set(core + 56, 0xffff, 2);
    CHECK_EQ_INT(sat_core_parse(core, len, &f, NULL), SAT_OK);
    CHECK(f.flags & SAT_CRASHF_TRUNCATED);
    CHECK_EQ_INT(f.nthreads, 0);
    sat_core_facts_free(&f);
    /* PN_XNUM with a section header 0 whose sh_info is huge: capped, cut */
    cb_set(core + 40, 64, 8);     /* e_shoff: over the program headers */
    cb_set(core + 58, 64, 2);
    cb_set(core + 64 + 44, 0xfffffff0u, 4);
    CHECK_EQ_INT(sat_core_parse(core, len, &f, NULL), SAT_OK);
    CHECK(f.flags & SAT_CRASHF_TRUNCATED);
    sat_core_facts_free(&f);
    free(core);

    /* NT_FILE claiming more entries than it holds, a note size past the end */
    base_core(&c, 1, EM_X86_64, exe_page, lib_page, stack);
    core = cb_make_core(&c, &len);
    uint8_t *p = core;
    size_t hits = 0;
    for (size_t i = 0; i + 12 < len; i++) /* the NT_FILE header: type "ELIF" */
        if (!memcmp(p + i, "ELIF", 4) && !memcmp(p + i + 4, "CORE", 4)) {
            uint8_t *desc = p + i + 12;
            cb_set(desc, 0x7fffffffffffffffull, 8);
            hits++;
            break;
        }
    CHECK_EQ_INT(hits, 1);
    CHECK_EQ_INT(sat_core_parse(core, len, &f, NULL), SAT_OK);
    CHECK(f.nmaps <= 3);
    CHECK(strstr(f.warning, "NT_FILE") != NULL);
    CHECK_EQ_INT(f.nthreads, 3);
    sat_core_facts_free(&f);
    free(core);
}

/* ---- the handler's signal from a signal frame -------------------------------------- */
static void handler_case(int is64, uint16_t machine, int arch, int with_info, uint64_t hold)
{
    static uint8_t exe_page[4096], lib_page[4096], stack[4096];
    cb_core c;
    base_core(&c, is64, machine, exe_page, lib_page, stack);
    c.signo = 6;
    c.si_code = -6;
    c.threads[0].sighold = hold;
    uint64_t sp = c.loads[3].vaddr + 0x400;
    uint8_t *fr = stack + 0x400;
    memset(fr, 0xa5, 1024); /* stack garbage where nothing was written */
    int64_t info = 0, mask = 0, trap = -1, addr = 0;
    if (arch == SAT_ARCH_X86_64) {
        info = 304; mask = 296; trap = 200; addr = 216;
    } else if (arch == SAT_ARCH_AARCH64) {
        info = 0; mask = 168; addr = 304;
    } else {
        info = 12;
        cb_set(fr, 11, 4);          /* sig */
        trap = 4 + 48; addr = 4 + 84;
    }
    if (with_info) {
        memset(fr + info, 0, 128);
        cb_set(fr + info, 11, 4);
        cb_set(fr + info + 8, 1, 4); /* SEGV_MAPERR */
        cb_set(fr + info + (is64 ? 16 : 12), 0xdead0, is64 ? 8 : 4);
    }
    if (arch != SAT_ARCH_I386)
        cb_set(fr + mask, 0, 8);     /* nothing blocked before the handler */
    if (trap >= 0)
        cb_set(fr + trap, 14, is64 ? 8 : 4);
    cb_set(fr + addr, 0xbeef0, is64 ? 8 : 4);
    size_t len;
    uint8_t *core = cb_make_core(&c, &len);
    sat_core_facts f;
    CHECK_EQ_INT(sat_core_parse(core, len, &f, NULL), SAT_OK);
    int32_t signo = 0;
    int64_t fault = 0;
    int told = sat_core_handler_signal(&f, core, len, sp, &signo, &fault);
    if (with_info) {
        CHECK_EQ_INT(told, 1);
        CHECK_EQ_INT(signo, 11);
        CHECK_EQ_INT(fault, 0xdead0);
    } else if (hold == (1u << 10) || arch == SAT_ARCH_I386) {
        /* no siginfo: the blocked-set difference (or i386's sig argument)
         * and the fault register */
        CHECK_EQ_INT(told, 1);
        CHECK_EQ_INT(signo, 11);
        CHECK_EQ_INT(fault, 0xbeef0);
    } else {
        CHECK_EQ_INT(told, 0); /* garbage and no mask difference: nothing said */
    }
    /* a frame outside the core's memory tells nothing */
    CHECK_EQ_INT(sat_core_handler_signal(&f, core, len, 0x10, &signo, &fault), 0);
    sat_core_facts_free(&f);
    free(core);
}

static void test_handler(void)
{
    handler_case(1, EM_X86_64, SAT_ARCH_X86_64, 1, 0);
    handler_case(1, EM_X86_64, SAT_ARCH_X86_64, 0, 1u << 10);
    handler_case(1, EM_X86_64, SAT_ARCH_X86_64, 0, 0);
    handler_case(1, EM_AARCH64, SAT_ARCH_AARCH64, 1, 0);
    handler_case(1, EM_AARCH64, SAT_ARCH_AARCH64, 0, 1u << 10);
    handler_case(1, EM_AARCH64, SAT_ARCH_AARCH64, 0, (1u << 10) | (1u << 5));
    handler_case(0, EM_386, SAT_ARCH_I386, 1, 0);
    handler_case(0, EM_386, SAT_ARCH_I386, 0, 0);
}

int main(void)
{
    test_arch(1, EM_X86_64, SAT_ARCH_X86_64, 0);
    test_arch(1, EM_X86_64, SAT_ARCH_X86_64, 1);
    test_arch(1, EM_AARCH64, SAT_ARCH_AARCH64, 0);
    test_arch(1, EM_AARCH64, SAT_ARCH_AARCH64, 1);
    test_arch(0, EM_386, SAT_ARCH_I386, 0);
    test_gdb_siginfo_and_no_ntfile();
    test_rejected();
    test_handler();
    return CHECK_DONE();
}
