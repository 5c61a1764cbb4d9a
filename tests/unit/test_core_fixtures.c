/*
 * test_core_fixtures.c - every core of fixtures/cores/ (5 programs x -O0 and
 * -O2 stripped with a separate debug file x written by gdb and by the kernel,
 * compressed) collected the way `satscope crashes --exe BIN --debuginfo-path
 * fixtures/cores/bin` does, and compared with what eu-readelf -n and eu-stack
 * said of it (NAME.expected, written by make-cores.sh): signal, si_code,
 * fault address, thread count, crashing tid, the crashing thread's frames
 * (pc and function, innermost first), the pools of identical stacks, and the
 * original fault under a fatal-signal handler.
 *
 * The cores were made with this machine's libc (its build-id is in each
 * .expected). Where the installed libc is another build, libc's own frames
 * cannot be named the same, so only the program's frames are compared, and
 * the test says so.
 */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "satscope/collect.h"

#define MAXF 256

typedef struct want {
    int signal, si_code, threads, crashing_tid, nframes, orig_signal;
    int total;              /* "frames: N" (the listed ones may be fewer) */
    int64_t fault, orig_fault;
    uint64_t pc[MAXF];
    char fn[MAXF][96];
    char program[512];      /* program_frames: names in order */
    char libc_build_id[48];
    int pools[4], npools;   /* thread_group counts */
} want;

typedef struct got {
    sat_crash crash;
    char exe_build_id[48];
    int have;
    sat_frame fr[4096];
    char fn[4096][96];
    size_t nfr;
} got;

static int on_crash(void *ctx, const sat_crash *c)
{
    got *g = (got *)ctx;
    g->crash = *c;
    g->have = 1;
    return SAT_OK;
}

static int on_frame(void *ctx, const sat_frame *f)
{
    got *g = (got *)ctx;
    if (g->nfr < sizeof g->fr / sizeof g->fr[0]) {
        g->fr[g->nfr] = *f;
        snprintf(g->fn[g->nfr], sizeof g->fn[0], "%.*s", (int)f->function.len,
                 f->function.ptr ? f->function.ptr : "");
        g->nfr++;
    }
    return SAT_OK;
}

static int rows_crash_frame(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_CRASH:
        return on_crash(ctx, (const sat_crash *)row);
    case SAT_TABLE_FRAME:
        return on_frame(ctx, (const sat_frame *)row);
    default:
        return 0;
    }
}

static int read_want(const char *path, want *w)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    memset(w, 0, sizeof *w);
    w->fault = w->orig_fault = SAT_ABSENT;
    w->orig_signal = SAT_ABSENT;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        unsigned long long pc;
        int idx;
        char modoff[256], fn[256];
        if (sscanf(line, "signal: %d", &w->signal) == 1 ||
            sscanf(line, "si_code: %d", &w->si_code) == 1 ||
            sscanf(line, "threads: %d", &w->threads) == 1 ||
            sscanf(line, "frames: %d", &w->total) == 1 ||
            sscanf(line, "crashing_tid: %d", &w->crashing_tid) == 1 ||
            sscanf(line, "original_signal: %d", &w->orig_signal) == 1)
            continue;
        if (sscanf(line, "fault_addr: 0x%llx", &pc) == 1) {
            w->fault = (int64_t)pc;
        } else if (sscanf(line, "original_fault_addr: 0x%llx", &pc) == 1) {
            w->orig_fault = (int64_t)pc;
        } else if (sscanf(line, "frame: %d 0x%llx %255s %255s", &idx, &pc, modoff, fn) == 4 &&
                   idx == w->nframes && idx < MAXF) {
            w->pc[idx] = pc;
            snprintf(w->fn[idx], sizeof w->fn[0], "%.95s", fn);
            w->nframes++;
        } else if (!strncmp(line, "program_frames: ", 16)) {
            snprintf(w->program, sizeof w->program, "%.511s", line + 16);
            w->program[strcspn(w->program, "\n")] = '\0';
        } else if (!strncmp(line, "module: ", 8) && strstr(line, " libc.so.6")) {
            sscanf(line, "module: %*s %47s", w->libc_build_id);
        } else if (sscanf(line, "thread_group: %d x", &idx) == 1 && w->npools < 4) {
            w->pools[w->npools++] = idx;
        }
    }
    fclose(f);
    return 0;
}

/* hex GNU build-id of an ELF file, "" if none */
static void build_id_of(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    const void *id = NULL;
    ssize_t n = e ? dwelf_elf_gnu_build_id(e, &id) : -1;
    for (ssize_t i = 0; i < n && (size_t)(2 * i + 3) <= cap; i++)
        snprintf(out + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
    if (e)
        elf_end(e);
    close(fd);
}

/* Is every name of `program` found in order among the crashing frames?
 * ("descend x122": the name before, 122 times in all) */
static int program_frames_in_order(const got *g, const char *program, int32_t tid)
{
    char buf[512], prev[96] = "";
    snprintf(buf, sizeof buf, "%s", program);
    size_t at = 0;
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        int times = 1;
        const char *name = tok;
        if (tok[0] == 'x' && tok[1] >= '0' && tok[1] <= '9') {
            times = atoi(tok + 1) - 1;
            name = prev;
        }
        for (int r = 0; r < times; r++) {
            while (at < g->nfr && (g->fr[at].thread != tid || strcmp(g->fn[at], name) != 0))
                at++;
            if (at == g->nfr) {
                fprintf(stderr, "  program frame %s not found in order\n", name);
                return 0;
            }
            at++;
        }
        snprintf(prev, sizeof prev, "%s", name);
    }
    return 1;
}

static got g;

/* A number after "key: " in a make-extra-cores.sh .expected file, -1 if none. */
static long expected_number(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[512];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':')
            v = strtol(line + n + 1, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

/* killed/: kill -SEGV from another process: NT_SIGINFO names the sender */
static void check_killed(const char *src)
{
    char core[512], exp[512], exe[512];
    snprintf(core, sizeof core, "%s/fixtures/cores/killed/idle_loop-O0-kernel.core.gz", src);
    snprintf(exp, sizeof exp, "%s/fixtures/cores/killed/idle_loop-O0-kernel.expected", src);
    snprintf(exe, sizeof exe, "%s/fixtures/cores/bin/idle_loop-O0", src);
    long sender = expected_number(exp, "sender_pid"), uid = expected_number(exp, "sender_uid");
    long pid = expected_number(exp, "pid");
    CHECK(sender > 0 && uid >= 0 && pid > 0 && sender != pid);
    memset(&g, 0, sizeof g);
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.ctx = &g;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_CRASH) | SAT_TABLE_BIT(SAT_TABLE_FRAME);
    sink.on_row = rows_crash_frame;
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.exe = exe;
    sat_collect_stats st;
    sat_diag d;
    memset(&d, 0, sizeof d);
    const char *paths[1] = {core};
    CHECK_EQ_INT(sat_collect_run(paths, 1, &o, &sink, &st, &d), SAT_OK);
    CHECK(g.have);
    CHECK_EQ_INT(g.crash.signal, 11);
    CHECK_EQ_INT(g.crash.si_code, 0); /* SI_USER */
    CHECK_EQ_INT(g.crash.fault_addr, SAT_ABSENT);
    CHECK_EQ_INT(g.crash.pid, pid);
    CHECK_EQ_INT(g.crash.sender_pid, sender);
    CHECK_EQ_INT(g.crash.sender_uid, uid);
    CHECK_EQ_INT(g.crash.time_source, SAT_CRASH_TIME_MTIME);
    CHECK(program_frames_in_order(&g, "wait_for_event serve_forever main", (int32_t)pid));
}

int main(void)
{
    const char *src = getenv("SAT_SRC");
    if (!src) {
        fprintf(stderr, "SKIP: SAT_SRC (the source tree) is not set\n");
        return 77;
    }
    static const char *const progs[] = {"segv_chain", "abort_threads", "stack_overflow",
                                        "div_zero", "handler_abort"};
    static const char *const builds[] = {"O0", "O2"};
    static const char *const writers[] = {"gdb", "kernel"};
    char libc_here[48];
    build_id_of("/lib/x86_64-linux-gnu/libc.so.6", libc_here, sizeof libc_here);
    int cores = 0, full = 0;
    for (size_t p = 0; p < 5; p++)
        for (size_t b = 0; b < 2; b++)
            for (size_t w = 0; w < 2; w++) {
                char name[128], core[512], exp[512], exe[512], dbg[1100];
                snprintf(name, sizeof name, "%s-%s-%s", progs[p], builds[b], writers[w]);
                snprintf(core, sizeof core, "%s/fixtures/cores/%s/%s.core.%s", src, progs[p],
                         name, w ? "gz" : "zst");
                snprintf(exp, sizeof exp, "%s/fixtures/cores/%s/%s.expected", src, progs[p],
                         name);
                snprintf(exe, sizeof exe, "%s/fixtures/cores/bin/%s-%s", src, progs[p],
                         builds[b]);
                snprintf(dbg, sizeof dbg, "%s/fixtures/cores/bin:%s/fixtures/cores/debug", src,
                         src);
                static want wt;
                if (read_want(exp, &wt) < 0) {
                    CHECK(!"an .expected file is missing");
                    fprintf(stderr, "missing %s\n", exp);
                    continue;
                }
                memset(&g, 0, sizeof g);
                sat_event_sink sink;
                memset(&sink, 0, sizeof sink);
                sink.ctx = &g;
                sink.tables = SAT_TABLE_BIT(SAT_TABLE_CRASH) | SAT_TABLE_BIT(SAT_TABLE_FRAME);
                sink.on_row = rows_crash_frame;
                sat_collect_opts o;
                memset(&o, 0, sizeof o);
                o.exe = exe;
                o.debuginfo_path = dbg;
                sat_collect_stats st;
                sat_diag d;
                memset(&d, 0, sizeof d);
                const char *paths[1] = {core};
                int rc = sat_collect_run(paths, 1, &o, &sink, &st, &d);
                CHECK_EQ_INT(rc, SAT_OK);
                CHECK(g.have);
                if (!g.have)
                    continue;
                cores++;
                fprintf(stderr, "%s: %zu frames\n", name, g.nfr);
                CHECK_EQ_INT(g.crash.signal, wt.signal);
                CHECK_EQ_INT(g.crash.si_code, wt.si_code);
                CHECK_EQ_INT(g.crash.threads, wt.threads);
                CHECK_EQ_INT(g.crash.crashing_tid, wt.crashing_tid);
                if (wt.fault != SAT_ABSENT)
                    CHECK_EQ_INT(g.crash.fault_addr, wt.fault);
                CHECK(!(g.crash.flags & (SAT_CRASHF_NO_EXE | SAT_CRASHF_NO_SYMBOLS)));
                CHECK_EQ_INT((g.crash.flags & SAT_CRASHF_GDB_CORE) != 0, w == 0);
                if (wt.orig_signal != SAT_ABSENT) {
                    /* the siginfo the handler got is on its signal frame */
                    CHECK(g.crash.flags & SAT_CRASHF_HANDLER);
                    CHECK_EQ_INT(g.crash.orig_signal, wt.orig_signal);
                    CHECK_EQ_INT(g.crash.orig_fault_addr, wt.orig_fault);
                }
                /* raise()/abort() send their own signal (tgkill: SI_TKILL, si_pid the
                 * process); a fault has no sender */
                if (wt.si_code == -6)
                    CHECK_EQ_INT(g.crash.sender_pid, g.crash.pid);
                else if (wt.si_code > 0)
                    CHECK_EQ_INT(g.crash.sender_pid, 0);
                CHECK(program_frames_in_order(&g, wt.program, wt.crashing_tid));
                /* the crashing thread's frames: the same as eu-stack's, pc for pc
                 * (with this machine's libc: names too) */
                size_t k = 0, n = 0;
                int same_libc = wt.libc_build_id[0] && !strcmp(wt.libc_build_id, libc_here);
                for (size_t i = 0; i < g.nfr; i++) {
                    if (g.fr[i].thread != wt.crashing_tid)
                        continue;
                    n++;
                    if (k < (size_t)wt.nframes && same_libc) {
                        if (g.fr[i].pc != (int64_t)wt.pc[k] || strcmp(g.fn[i], wt.fn[k]) != 0) {
                            CHECK(!"a frame differs from eu-stack's");
                            fprintf(stderr, "  #%zu: 0x%llx %s, eu-stack 0x%llx %s\n", k,
                                    (unsigned long long)g.fr[i].pc, g.fn[i],
                                    (unsigned long long)wt.pc[k], wt.fn[k]);
                        }
                    }
                    k++;
                }
                if (same_libc) {
                    CHECK_EQ_INT(n, wt.total);
                    full++;
                }
            }
    CHECK_EQ_INT(cores, 20);
    check_killed(src);
    if (full < cores)
        fprintf(stderr, "NOTE: libc here (%s) is not the fixtures' build: %d of %d cores compared"
                        " frame by frame, the rest by the program's own frames\n",
                libc_here[0] ? libc_here : "none", full, cores);
    return CHECK_DONE();
}
