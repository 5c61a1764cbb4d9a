/*
 * test_core_corpus.c - core files of $SAT_CORPUS/cores (elfutils' own test
 * cores; provenance in its README) collected as `satscope collect` does,
 * checked against what Debian's tools print for them (expected/):
 *  - *.notes.txt (eu-readelf -n): the facts - signal, si_code, fault
 *    address, the threads' tids in order, pid, uid, command, mapped files;
 *  - *.eu-stack.txt (eu-stack -m -s -n 0 -e EXE --core): every thread's
 *    frames in order - pc, function, module, source file:line;
 *  - the executables and libraries themselves: their build-ids are the ones
 *    the core's pages hold.
 * Also: the fingerprint skips the abort path (raise), frame-pointer frames
 * are said, a missing executable gives facts without names, and copies made
 * here - cut short at run time, gzip-compressed - give partial facts with a
 * warning and the same crash, never a failure.
 */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "satscope/collect.h"
#include "satscope/core.h"
#include "satscope/crash.h"

static char corpus[1024];

/* ---- rows --------------------------------------------------------------------------- */
typedef struct frame_copy {
    int32_t thread, depth;
    int64_t pc, offset;
    char function[256], module[128], file[256];
    int32_t line;
    uint8_t flags;
} frame_copy;

static frame_copy frames[512];
static size_t nframes;
static sat_frame raw[512]; /* the crashing thread's, for the keys (strings below) */
static sat_crash crash_row;
static int ncrash, nsource;
static char crash_strings[6][512]; /* exe, command, build_id, fingerprint, build_key, missing */
static sat_source source_row;
static char source_comp[16];

static void copy_str(char *dst, size_t cap, sat_str s)
{
    snprintf(dst, cap, "%.*s", s.ptr ? (int)s.len : 0, s.ptr ? s.ptr : "");
}

static int on_frame(void *ctx, const sat_frame *f)
{
    (void)ctx;
    CHECK_EQ_INT(ncrash, 0); /* the frames come before their crash row */
    if (nframes < sizeof frames / sizeof frames[0]) {
        frame_copy *c = &frames[nframes];
        c->thread = f->thread;
        c->depth = f->depth;
        c->pc = f->pc;
        c->offset = f->offset;
        c->line = f->line;
        c->flags = f->flags;
        copy_str(c->function, sizeof c->function, f->function);
        copy_str(c->module, sizeof c->module, f->module);
        copy_str(c->file, sizeof c->file, f->file);
        raw[nframes] = *f;
        raw[nframes].function = f->function.ptr ? sat_str_cstr(c->function) : SAT_STR_NONE;
        raw[nframes].module = f->module.ptr ? sat_str_cstr(c->module) : SAT_STR_NONE;
        raw[nframes].file = SAT_STR_NONE;
        raw[nframes].build_id = SAT_STR_NONE;
    }
    nframes++;
    return SAT_OK;
}

static int on_crash(void *ctx, const sat_crash *c)
{
    (void)ctx;
    CHECK_EQ_INT(ncrash, 0); /* one crash row per core */
    crash_row = *c;
    sat_str s[6] = {c->exe, c->command, c->build_id, c->fingerprint, c->build_key, c->missing};
    for (int i = 0; i < 6; i++)
        copy_str(crash_strings[i], sizeof crash_strings[i], s[i]);
    ncrash++;
    return SAT_OK;
}

static int on_source(void *ctx, const sat_source *s)
{
    (void)ctx;
    source_row = *s;
    copy_str(source_comp, sizeof source_comp, s->compression);
    CHECK_EQ_SSTR(s->kind, "core");
    nsource++;
    return SAT_OK;
}

static int rows_source_crash_frame(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE:
        return on_source(ctx, (const sat_source *)row);
    case SAT_TABLE_CRASH:
        return on_crash(ctx, (const sat_crash *)row);
    case SAT_TABLE_FRAME:
        return on_frame(ctx, (const sat_frame *)row);
    default:
        return 0;
    }
}

static int nwarnings;
static char last_warning[600];
static void on_warn(void *ctx, const char *where, const char *msg)
{
    (void)ctx;
    (void)where;
    nwarnings++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

static sat_ts_ns window_from;

static int collect(const char *path, const char *exe, sat_collect_stats *st)
{
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_CRASH) |
                  SAT_TABLE_BIT(SAT_TABLE_FRAME);
    sink.on_row = rows_source_crash_frame;
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.exe = exe;
    o.from_ns = window_from;
    o.warn = on_warn;
    nwarnings = 0;
    nframes = 0;
    ncrash = nsource = 0;
    sat_diag d;
    memset(&d, 0, sizeof d);
    const char *paths[] = {path};
    return sat_collect_run(paths, 1, &o, &sink, st, &d);
}

/* ---- expected outputs ------------------------------------------------------------------ */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = '\0';
        if (len)
            *len = (size_t)n;
    }
    return b;
}

typedef struct notes_expect {
    int tids[16], ntids;
    int pid, uid;
    char fname[32], psargs[128];
    int signo, code, has_addr;
    unsigned long long addr;
    int nfiles;
    unsigned long long file_start[32], file_off[32];
    char file_path[32][128];
    unsigned long note_off, note_size;
} notes_expect;

static void parse_notes(const char *text, notes_expect *e)
{
    memset(e, 0, sizeof *e);
    char type[32] = "";
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        char owner[16], t[32];
        int size;
        unsigned long long s0, s1, off;
        char path[256];
        if (sscanf(line, "Note segment of %lu bytes at offset %lx", &e->note_size,
                   &e->note_off) == 2) {
        } else if (sscanf(line, "  %15s %d %31s", owner, &size, t) == 3 &&
                   (!strcmp(owner, "CORE") || !strcmp(owner, "LINUX"))) {
            snprintf(type, sizeof type, "%s", t);
        } else if (!strcmp(type, "PRSTATUS") && !strncmp(line, "    pid: ", 9)) {
            if (e->ntids < 16)
                e->tids[e->ntids++] = atoi(line + 9);
        } else if (!strcmp(type, "PRPSINFO") && strstr(line, "uid: ")) {
            const char *q = strstr(line, " pid: ");
            e->uid = atoi(strstr(line, "uid: ") + 5);
            e->pid = q ? atoi(q + 6) : -1;
        } else if (!strcmp(type, "PRPSINFO") && !strncmp(line, "    fname: ", 11)) {
            const char *q = strstr(line, ", psargs: ");
            if (q) {
                snprintf(e->fname, sizeof e->fname, "%.*s", (int)(q - line - 11), line + 11);
                snprintf(e->psargs, sizeof e->psargs, "%s", q + 10);
                size_t l = strlen(e->psargs);
                while (l && e->psargs[l - 1] == ' ')
                    e->psargs[--l] = '\0';
            }
        } else if (!strcmp(type, "SIGINFO") &&
                   sscanf(line, "    si_signo: %d, si_errno: %*d, si_code: %d", &e->signo,
                          &e->code) == 2) {
        } else if (!strcmp(type, "SIGINFO") && !strncmp(line, "    fault address: ", 19)) {
            e->has_addr = 1;
            e->addr = strtoull(line + 19, NULL, 0);
        } else if (!strcmp(type, "FILE") &&
                   sscanf(line, " %llx-%llx %llx %*u %255s", &s0, &s1, &off, path) == 4) {
            if (e->nfiles < 32) {
                e->file_start[e->nfiles] = s0;
                e->file_off[e->nfiles] = off;
                snprintf(e->file_path[e->nfiles], sizeof e->file_path[0], "%.127s", path);
                e->nfiles++;
            }
        }
        p = nl ? nl + 1 : p + n;
    }
}

typedef struct stack_expect {
    int tid[8], nthreads;
    struct { int thread; unsigned long long pc; char fn[128], module[128], src[256]; } f[64];
    int n;
} stack_expect;

static void parse_stack(const char *text, stack_expect *e)
{
    memset(e, 0, sizeof *e);
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        int tid, k;
        unsigned long long pc;
        int used = 0;
        if (sscanf(line, "TID %d:", &tid) == 1 && e->nthreads < 8) {
            e->tid[e->nthreads++] = tid;
        } else if (sscanf(line, "#%d 0x%llx %n", &k, &pc, &used) == 2 && e->n < 64 &&
                   e->nthreads) {
            const char *rest = line + used;
            const char *dash = NULL;
            for (const char *q = strstr(rest, "- "); q; q = strstr(q + 1, "- "))
                if (q == rest || q[-1] == ' ')
                    dash = q; /* the last " - ": before it the name, after it the module */
            e->f[e->n].thread = e->tid[e->nthreads - 1];
            e->f[e->n].pc = pc;
            if (dash) {
                size_t fl = (size_t)(dash - rest);
                while (fl && rest[fl - 1] == ' ')
                    fl--;
                snprintf(e->f[e->n].fn, sizeof e->f[0].fn, "%.*s", (int)fl, rest);
                const char *mod = dash + 2;
                const char *b = strrchr(mod, '/');
                snprintf(e->f[e->n].module, sizeof e->f[0].module, "%s", b ? b + 1 : mod);
            }
            e->n++;
        } else if (!strncmp(line, "    ", 4) && e->n) {
            snprintf(e->f[e->n - 1].src, sizeof e->f[0].src, "%.255s", line + 4);
        }
        p = nl ? nl + 1 : p + n;
    }
}

static int build_id_of(const char *path, char *hex, size_t cap)
{
    hex[0] = '\0';
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    const void *b = NULL;
    ssize_t n = e ? dwelf_elf_gnu_build_id(e, &b) : -1;
    for (ssize_t i = 0; i < n && (size_t)(2 * i + 2) < cap; i++)
        snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)b)[i]);
    elf_end(e);
    close(fd);
    return n > 0;
}

/* ---- one core ------------------------------------------------------------------------------ */
static void check_core(const char *name, const char *exe_name, const char *fp_prefix)
{
    char core[1200], exe[1200], path[1300];
    snprintf(core, sizeof core, "%s/cores/%s", corpus, name);
    snprintf(exe, sizeof exe, "%s/cores/%s", corpus, exe_name);
    printf("%s\n", name);

    /* the facts against eu-readelf -n */
    snprintf(path, sizeof path, "%s/cores/expected/%s.notes.txt", corpus, name);
    char *text = slurp(path, NULL);
    CHECK(text != NULL);
    if (!text)
        return;
    notes_expect ne;
    parse_notes(text, &ne);
    free(text);
    size_t len;
    char *bytes = slurp(core, &len);
    CHECK(bytes != NULL);
    if (!bytes)
        return;
    sat_core_facts f;
    CHECK_EQ_INT(sat_core_parse(bytes, len, &f, NULL), SAT_OK);
    CHECK_EQ_INT(f.nthreads, ne.ntids);
    for (int i = 0; i < ne.ntids && (size_t)i < f.nthreads; i++)
        CHECK_EQ_INT(f.threads[i].tid, ne.tids[i]);
    CHECK_EQ_INT(f.pid, ne.pid);
    CHECK_EQ_INT(f.uid, ne.uid);
    CHECK_EQ_STR(f.fname, ne.fname);
    CHECK_EQ_STR(f.psargs, ne.psargs);
    CHECK_EQ_INT(f.si_signo, ne.signo);
    CHECK_EQ_INT(f.si_code, ne.code);
    CHECK_EQ_INT(f.si_addr_valid, ne.has_addr);
    if (ne.has_addr)
        CHECK_EQ_INT(f.si_addr, ne.addr);
    CHECK_EQ_INT(f.nmaps, ne.nfiles);
    for (int i = 0; i < ne.nfiles && (size_t)i < f.nmaps; i++) {
        CHECK_EQ_INT(f.maps[i].start, ne.file_start[i]);
        CHECK_EQ_INT(f.maps[i].offset, ne.file_off[i]);
        CHECK_EQ_STR(f.maps[i].path, ne.file_path[i]);
    }
    CHECK(!(f.flags & (SAT_CRASHF_TRUNCATED | SAT_CRASHF_GDB_CORE)));
    CHECK_EQ_STR(f.warning, "");
    /* the build-id the core's pages hold is the executable's */
    char want[130];
    CHECK(build_id_of(exe, want, sizeof want));
    CHECK(f.exe != (size_t)-1);
    if (f.exe != (size_t)-1)
        CHECK_EQ_STR(f.modules[f.exe].build_id, want);

    /* the frames against eu-stack */
    snprintf(path, sizeof path, "%s/cores/expected/%s.eu-stack.txt", corpus, name);
    text = slurp(path, NULL);
    CHECK(text != NULL);
    stack_expect se;
    parse_stack(text ? text : "", &se);
    free(text);
    sat_collect_stats st;
    int rc = collect(core, exe, &st);
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK_EQ_INT(ncrash, 1);
    CHECK_EQ_INT(nsource, 1);
    CHECK_EQ_INT(st.cores, 1);
    CHECK_EQ_INT(nframes, se.n);
    for (int i = 0; i < se.n && (size_t)i < nframes; i++) {
        const frame_copy *g = &frames[i];
        CHECK_EQ_INT(g->thread, se.f[i].thread);
        CHECK_EQ_INT(g->pc, se.f[i].pc);
        CHECK_EQ_STR(g->function, se.f[i].fn);
        CHECK_EQ_STR(g->module, se.f[i].module);
        if (se.f[i].src[0]) {
            char src[300];
            snprintf(src, sizeof src, "%s:%d", g->file, (int)g->line);
            CHECK(!strncmp(se.f[i].src, src, strlen(src)) &&
                  (se.f[i].src[strlen(src)] == '\0' || se.f[i].src[strlen(src)] == ':'));
        }
    }
    /* the crash row: the facts, the executable's build-id, the keys of the
     * crashing thread's frames (which skip the abort path) */
    CHECK_EQ_INT(crash_row.signal, ne.signo);
    CHECK_EQ_INT(crash_row.si_code, ne.code);
    CHECK_EQ_INT(crash_row.fault_addr, ne.has_addr ? (int64_t)ne.addr : SAT_ABSENT);
    CHECK_EQ_INT(crash_row.threads, ne.ntids);
    CHECK_EQ_INT(crash_row.crashing_tid, ne.tids[0]);
    CHECK_EQ_INT(crash_row.pid, ne.pid);
    CHECK_EQ_INT(crash_row.origin, SAT_CRASH_CORE);
    CHECK_EQ_INT(crash_row.arch, SAT_ARCH_X86_64);
    CHECK_EQ_STR(crash_strings[2], want);
    CHECK_EQ_STR(crash_strings[1], ne.psargs);
    CHECK(!(crash_row.flags & (SAT_CRASHF_NO_EXE | SAT_CRASHF_NO_SYMBOLS | SAT_CRASHF_HANDLER)));
    size_t ncrashing = 0;
    while (ncrashing < nframes && frames[ncrashing].thread == ne.tids[0])
        ncrashing++;
    sat_crash_keys keys;
    sat_crash_keys_of(raw, ncrashing, sat_str_cstr(want), &keys);
    CHECK_EQ_STR(crash_strings[3], keys.fingerprint);
    CHECK_EQ_STR(crash_strings[4], keys.build_key);
    CHECK(!strncmp(keys.text, fp_prefix, strlen(fp_prefix)));
    if (strncmp(keys.text, fp_prefix, strlen(fp_prefix)))
        fprintf(stderr, "  fingerprint text: %s\n", keys.text);

    /* without the executable: the facts, module+offset frames, said missing */
    collect(core, NULL, &st);
    CHECK_EQ_INT(ncrash, 1);
    CHECK(crash_row.flags & SAT_CRASHF_NO_EXE);
    CHECK(strstr(crash_strings[5], "executable") != NULL);
    CHECK_EQ_INT(crash_row.signal, ne.signo);
    CHECK_EQ_INT(crash_row.threads, ne.ntids);
    CHECK(nframes >= (size_t)ne.ntids);
    CHECK(nwarnings >= 1 && strstr(last_warning, "--exe") != NULL);
    if (nframes) {
        CHECK_EQ_INT(frames[0].pc, se.f[0].pc);
        CHECK_EQ_STR(frames[0].module, se.f[0].module);
        const sat_core_module *m = NULL;
        for (size_t i = 0; i < f.nmodules; i++)
            if (se.f[0].pc >= f.modules[i].start && se.f[0].pc < f.modules[i].end)
                m = &f.modules[i];
        CHECK(m != NULL);
        if (m)
            CHECK_EQ_INT(frames[0].offset, (int64_t)(se.f[0].pc - m->start));
    }
    CHECK_EQ_STR(crash_strings[2], want); /* the build-id still comes from the core */

    /* cut copies: partial facts and a warning, never a failure */
    char tmp[] = "/tmp/satscope-test-core-XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    size_t note_end = ne.note_off + ne.note_size;
    size_t cuts[] = {len / 2, note_end + 1, note_end - 100, 1000, 100};
    for (size_t c = 0; fd >= 0 && c < sizeof cuts / sizeof cuts[0]; c++) {
        CHECK(ftruncate(fd, 0) == 0 && pwrite(fd, bytes, cuts[c], 0) == (ssize_t)cuts[c]);
        rc = collect(tmp, exe, &st);
        CHECK_EQ_INT(rc, SAT_E_TRUNCATED);
        CHECK_EQ_INT(st.truncated, 1);
        CHECK(nwarnings >= 1);
        CHECK_EQ_INT(ncrash, 1);
        CHECK_EQ_INT(nsource, 1);
        CHECK_EQ_INT(source_row.truncated, 1);
        CHECK(crash_row.flags & SAT_CRASHF_TRUNCATED);
        if (cuts[c] > note_end) { /* the notes are whole: every fact is there */
            CHECK_EQ_INT(crash_row.signal, ne.signo);
            CHECK_EQ_INT(crash_row.threads, ne.ntids);
            CHECK_EQ_INT(crash_row.crashing_tid, ne.tids[0]);
            CHECK_EQ_STR(crash_strings[1], ne.psargs);
            CHECK(nframes >= 1);
            if (nframes)
                CHECK_EQ_INT(frames[0].pc, se.f[0].pc);
        } else if (cuts[c] == note_end - 100) { /* the last notes lost, the first kept */
            CHECK_EQ_INT(crash_row.crashing_tid, ne.tids[0]);
            CHECK_EQ_INT(crash_row.pid, ne.pid);
        } else {
            CHECK(crash_row.threads <= ne.ntids);
        }
    }

    /* a gzip copy is the same crash */
    if (fd >= 0) {
        char gz[sizeof tmp + 4];
        snprintf(gz, sizeof gz, "%s.gz", tmp);
        gzFile z = gzopen(gz, "wb1");
        CHECK(z != NULL);
        if (z) {
            CHECK(gzwrite(z, bytes, (unsigned)len) == (int)len);
            gzclose(z);
            char fp_plain[64];
            collect(core, exe, &st);
            snprintf(fp_plain, sizeof fp_plain, "%.63s", crash_strings[3]);
            size_t n_plain = nframes;
            rc = collect(gz, exe, &st);
            CHECK_EQ_INT(rc, SAT_OK);
            CHECK_EQ_INT(ncrash, 1);
            CHECK_EQ_INT(nframes, n_plain);
            CHECK_EQ_STR(crash_strings[3], fp_plain);
            CHECK_EQ_STR(source_comp, "gzip");
            CHECK_EQ_INT(source_row.bytes, len);
            unlink(gz);
        }
        close(fd);
        unlink(tmp);
    }
    sat_core_facts_free(&f);
    free(bytes);
}

int main(void)
{
    const char *dir = getenv("SAT_CORPUS");
    struct stat st;
    snprintf(corpus, sizeof corpus, "%s", dir ? dir : "");
    char cores[1100];
    snprintf(cores, sizeof cores, "%s/cores/README.md", corpus);
    if (!dir || stat(cores, &st) != 0) {
        printf("SKIP: core corpus not found (SAT_CORPUS=%s)\n", dir ? dir : "(unset)");
        return 77;
    }
    check_core("backtrace.x86_64.core", "backtrace.x86_64.exec",
               "backtrace.x86_64.exec:sigusr2|backtrace.x86_64.exec:stdarg|");
    check_core("backtrace.x86_64.fp.core", "backtrace.x86_64.fp.exec",
               "backtrace.x86_64.fp.exec:sigusr2|backtrace.x86_64.fp.exec:stdarg|");
#ifdef SAT_HAVE_CXA_DEMANGLE
    check_core("testfile-backtrace-demangle.core", "testfile-backtrace-demangle",
               "testfile-backtrace-demangle:cxxfunc(int)|testfile-backtrace-demangle:f|");
#else
    printf("testfile-backtrace-demangle.core: not checked (no __cxa_demangle: names mangled)\n");
#endif
    check_core("linkmap-cut.core", "linkmap-cut",
               "linkmap-cut-lib.so:libfunc|linkmap-cut:main|libc-2.18.so+0x");

    /* frame-pointer unwinding is said where .eh_frame is missing */
    char core[1200], exe[1200];
    snprintf(core, sizeof core, "%s/cores/backtrace.x86_64.fp.core", corpus);
    snprintf(exe, sizeof exe, "%s/cores/backtrace.x86_64.fp.exec", corpus);
    sat_collect_stats cs;
    collect(core, exe, &cs);
    int fp = 0;
    for (size_t i = 0; i < nframes && i < 512; i++)
        fp += !!(frames[i].flags & SAT_FRAMEF_FP);
    CHECK(fp >= 3);
    snprintf(core, sizeof core, "%s/cores/backtrace.x86_64.core", corpus);
    snprintf(exe, sizeof exe, "%s/cores/backtrace.x86_64.exec", corpus);
    collect(core, exe, &cs);
    for (size_t i = 0; i < nframes && i < 512; i++)
        CHECK(!(frames[i].flags & SAT_FRAMEF_FP));
    /* a core's time is its file's: outside --from/--to it gives its source row only */
    struct stat cst;
    CHECK(stat(core, &cst) == 0);
    window_from = ((sat_ts_ns)cst.st_mtime + 1) * 1000000000LL;
    collect(core, exe, &cs);
    CHECK_EQ_INT(ncrash, 0);
    CHECK_EQ_INT(nframes, 0);
    CHECK_EQ_INT(nsource, 1);
    CHECK_EQ_INT(cs.cores, 1);
    window_from = (sat_ts_ns)cst.st_mtime * 1000000000LL;
    collect(core, exe, &cs);
    CHECK_EQ_INT(ncrash, 1);
    CHECK_EQ_INT(crash_row.ts, (sat_ts_ns)cst.st_mtim.tv_sec * 1000000000LL + cst.st_mtim.tv_nsec);
    window_from = 0;
    /* linkmap-cut: the unwind stops at the missing libc: cut, libc said missing */
    snprintf(core, sizeof core, "%s/cores/linkmap-cut.core", corpus);
    snprintf(exe, sizeof exe, "%s/cores/linkmap-cut", corpus);
    collect(core, exe, &cs);
    CHECK(crash_row.flags & SAT_CRASHF_UNWIND_CUT);
    CHECK(strstr(crash_strings[5], "libc-2.18.so") != NULL);
    return CHECK_DONE();
}
