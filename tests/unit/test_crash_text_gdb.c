/*
 * test_crash_text_gdb.c - gdb's output in logs (parse/crash/crash_text_gdb.c) on
 * the fixtures of fixtures/crashtext (real gdb output of a live process and
 * of its core, made there): "bt" and "thread apply all bt" with the crashing
 * thread first, a signal handler's frames with the original signal, an
 * incident log holding two sessions; and on texts written here: libraries,
 * "??", C++ names, "Backtrace stopped", a stack dump without any signal.
 */
#include "check.h"
#include "crash_rec.h"

static void test_gdb_bt(void)
{
    rec live = {0}, core = {0};
    CHECK_EQ_INT(feed_fixture(&live, "gdb-live-bt.txt"), SAT_OK);
    CHECK_EQ_INT(feed_fixture(&core, "gdb-core-bt.txt"), SAT_OK);
    CHECK_EQ_INT(live.ncr, 1);
    CHECK_EQ_INT(core.ncr, 1);
    const rframe *f[8];
    if (live.ncr == 1) {
        const sat_crash *c = &live.cr[0].c;
        CHECK_EQ_INT(c->origin, SAT_CRASH_TEXT_GDB);
        CHECK_EQ_INT(c->signal, 11);
        CHECK_EQ_INT(c->threads, 1);
        CHECK_EQ_INT(frames_of(&live, 1, f, 8), 3);
        CHECK_EQ_STR(f[0]->function, "entry_name");
        CHECK_EQ_STR(f[0]->file, "chain.c");
        CHECK_EQ_INT(f[0]->f.line, 16);
        CHECK(f[0]->f.pc > 0);
        /* arguments with a string holding parentheses */
        CHECK_EQ_STR(f[1]->function, "handle_request");
        CHECK_EQ_INT(f[1]->f.line, 29);
        CHECK_EQ_STR(f[2]->function, "main");
        CHECK_EQ_INT(f[2]->f.line, 35);
        CHECK_EQ_INT(f[2]->f.depth, 2);
    }
    if (core.ncr == 1) {
        const sat_crash *c = &core.cr[0].c;
        CHECK_EQ_INT(c->signal, 11);
        CHECK_EQ_STR(core.cr[0].command, "/tmp/satscope-crashtext/chain");
        CHECK_EQ_STR(core.cr[0].exe, "/tmp/satscope-crashtext/chain");
        /* frame #0 printed when the core was loaded, then by bt: once */
        CHECK_EQ_INT(frames_of(&core, 1, f, 8), 3);
        /* the same bug, live and from its core */
        if (live.ncr == 1)
            CHECK_EQ_STR(core.cr[0].fingerprint, live.cr[0].fingerprint);
    }
    rec_free(&live);
    rec_free(&core);
}

static void test_gdb_threads(void)
{
    rec live = {0}, core = {0};
    CHECK_EQ_INT(feed_fixture(&live, "gdb-live-threads.txt"), SAT_OK);
    CHECK_EQ_INT(feed_fixture(&core, "gdb-core-threads.txt"), SAT_OK);
    CHECK_EQ_INT(live.ncr, 1);
    CHECK_EQ_INT(core.ncr, 1);
    const rframe *f[128];
    if (live.ncr == 1) {
        const sat_crash *c = &live.cr[0].c;
        CHECK_EQ_INT(c->signal, 6);
        CHECK_EQ_INT(c->threads, 8);
        /* 'Thread 6 "worker-5" received signal SIGABRT' and "* 6" in info threads */
        long lwp = fixture_number_after("gdb-live-threads.txt", "[Switching to Thread", "(LWP ");
        CHECK(lwp > 0);
        CHECK_EQ_INT(c->crashing_tid, lwp);
        size_t n = frames_of(&live, 1, f, 128);
        CHECK_EQ_INT(n, 8 + 6 * 8 + 5); /* the aborting worker, 6 waiting ones, main */
        /* the crashing thread's frames first */
        for (int i = 0; i < 8 && n >= 8; i++)
            CHECK_EQ_INT(f[i]->f.thread, 6);
        if (n >= 8) {
            CHECK_EQ_STR(f[3]->function, "__GI_abort");
            CHECK_EQ_STR(f[4]->function, "check_invariant");
            CHECK_EQ_STR(f[4]->file, "pool.c");
            CHECK_EQ_INT(f[4]->f.depth, 4);
        }
        int main_seen = 0;
        for (size_t i = 8; i < n; i++)
            if (!strcmp(f[i]->function, "main"))
                main_seen = f[i]->f.thread;
        CHECK_EQ_INT(main_seen, 1);
    }
    if (core.ncr == 1) {
        const sat_crash *c = &core.cr[0].c;
        CHECK_EQ_INT(c->signal, 6);
        CHECK_EQ_INT(c->threads, 8);
        long lwp = fixture_number_after("gdb-core-threads.txt", "[Current thread is 1", "(LWP ");
        CHECK(lwp > 0);
        CHECK_EQ_INT(c->crashing_tid, lwp);
        CHECK_EQ_STR(core.cr[0].exe, "/tmp/satscope-crashtext/pool");
        size_t n = frames_of(&core, 1, f, 128);
        CHECK_EQ_INT(n, 8 + 6 * 8 + 5); /* the "#0" printed at load is not a 9th stack */
        if (n)
            CHECK_EQ_INT(f[0]->f.thread, 1);
        if (live.ncr == 1)
            CHECK_EQ_STR(core.cr[0].fingerprint, live.cr[0].fingerprint);
    }
    rec_free(&live);
    rec_free(&core);
}

static void test_gdb_handler(void)
{
    /* the handler's own backtrace_symbols lines, then gdb's view of the abort */
    rec r = {0};
    CHECK_EQ_INT(feed_fixture(&r, "gdb-handler.txt"), SAT_OK);
    CHECK_EQ_INT(r.ncr, 2);
    const rframe *f[16];
    if (r.ncr == 2) {
        CHECK_EQ_INT(r.cr[0].c.origin, SAT_CRASH_TEXT_GLIBC);
        CHECK_EQ_INT(r.cr[0].c.signal, 11);
        CHECK_EQ_INT(frames_of(&r, 1, f, 16), 8);
        const sat_crash *g = &r.cr[1].c;
        CHECK_EQ_INT(g->origin, SAT_CRASH_TEXT_GDB);
        CHECK_EQ_INT(g->signal, 6);
        CHECK(g->flags & SAT_CRASHF_HANDLER);
        CHECK_EQ_INT(g->orig_signal, 11); /* fatal_signal (sig=11) */
        size_t n = frames_of(&r, 2, f, 16);
        CHECK_EQ_INT(n, 9);
        if (n == 9) {
            CHECK_EQ_STR(f[5]->function, "<signal handler called>");
            CHECK(f[5]->f.flags & SAT_FRAMEF_SIGNAL);
            CHECK_EQ_STR(f[6]->function, "parse_filter");
            CHECK_EQ_INT(f[6]->f.line, 25);
            CHECK_EQ_INT(f[0]->f.pc, SAT_ABSENT); /* "#0  __pthread_kill_implementation (" */
        }
        /* the fingerprint starts below the trampoline */
        sat_frame fs[9];
        for (int i = 0; i < 9 && n == 9; i++) {
            fs[i] = f[i]->f;
            fs[i].module = SAT_STR_NONE;
            fs[i].function = sat_str_cstr(f[i]->function);
        }
        sat_crash_keys k;
        sat_crash_keys_of(fs, n == 9 ? 9 : 0, SAT_STR_NONE, &k);
        CHECK_EQ_STR(k.text, "?:parse_filter|?:process_search|?:main");
        CHECK_EQ_STR(r.cr[1].fingerprint, k.fingerprint);
    }
    rec_free(&r);
}

static void test_gdb_incident_log(void)
{
    rec r = {0};
    CHECK_EQ_INT(feed_fixture(&r, "incident-gdb.log"), SAT_OK);
    CHECK_EQ_INT(r.ncr, 2);
    if (r.ncr == 2) {
        CHECK_EQ_INT(r.cr[0].c.threads, 8);
        CHECK_EQ_INT(r.cr[0].c.signal, 6);
        CHECK_EQ_INT(r.cr[1].c.threads, 1);
        CHECK_EQ_INT(r.cr[1].c.signal, 11);
        const rframe *f[4];
        CHECK_EQ_INT(frames_of(&r, 2, f, 4), 3);
    }
    rec_free(&r);
}

static void test_gdb_synthetic(void)
{
    /* "Backtrace stopped", frames from a library, "??", C++ names */
    const char *t =
        "Program terminated with signal SIGBUS, Bus error.\n"
        "#0  0x00007f0000001000 in memcpy () from /lib64/libc.so.6\n"
        "#1  0x0000000000401234 in std::vector<int, std::allocator<int> >::operator[] (this=0x1, __n=5) at /usr/include/c++/12/bits/stl_vector.h:1123\n"
        "#2  0x0000000000401300 in (anonymous namespace)::run (f=0x2 \"a (b\") at x.cc:9\n"
        "#3  0x0000000000000000 in ?? ()\n"
        "Backtrace stopped: previous frame inner to this frame (corrupt stack?)\n"
        "an ordinary line\n";
    rec r = {0};
    CHECK_EQ_INT(feed_text(&r, t, strlen(t), NULL), SAT_OK);
    check_order(&r);
    CHECK_EQ_INT(r.ncr, 1);
    const rframe *f[8];
    CHECK_EQ_INT(frames_of(&r, 1, f, 8), 4);
    if (r.ncr == 1 && r.nfr == 4) {
        CHECK_EQ_INT(r.cr[0].c.signal, 7);
        CHECK(r.cr[0].c.flags & SAT_CRASHF_UNWIND_CUT);
        CHECK_EQ_STR(f[0]->module, "libc.so.6");
        CHECK_EQ_STR(f[0]->function, "memcpy");
        CHECK_EQ_STR(f[1]->function, "std::vector<int, std::allocator<int> >::operator[]");
        CHECK_EQ_INT(f[1]->f.line, 1123);
        CHECK_EQ_STR(f[2]->function, "(anonymous namespace)::run");
        CHECK_EQ_STR(f[2]->file, "x.cc");
        CHECK(!f[3]->has_function);
        CHECK_EQ_INT(f[3]->f.pc, 0);
    }
    rec_free(&r);

    /* pstack-like "thread apply all bt" without any signal: a stack dump
     * (signal absent), the first thread printed is taken as the crashing one */
    const char *u = "Thread 2 (Thread 0x7f01 (LWP 101)):\n"
                    "#0  0x01 in poll () from /lib64/libc.so.6\n"
                    "Thread 1 (Thread 0x7f00 (LWP 100)):\n"
                    "#0  0x02 in main () at m.c:3\n";
    rec q = {0};
    CHECK_EQ_INT(feed_text(&q, u, strlen(u), NULL), SAT_OK);
    CHECK_EQ_INT(q.ncr, 1);
    if (q.ncr == 1) {
        CHECK_EQ_INT(q.cr[0].c.signal, SAT_ABSENT);
        CHECK_EQ_INT(q.cr[0].c.threads, 2);
        CHECK_EQ_INT(q.cr[0].c.crashing_tid, 101);
    }
    rec_free(&q);
}

int main(void)
{
    test_gdb_bt();
    test_gdb_threads();
    test_gdb_handler();
    test_gdb_incident_log();
    test_gdb_synthetic();
    return CHECK_DONE();
}
