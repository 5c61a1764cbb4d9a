/*
 * test_crash_text_limits.c - the crash text scanner's bounds, options and
 * errors (parse/crash/crash_text_block.c, crash_text_time.c) on small inputs
 * written here: lines cut at the bound, frames over the limit, more
 * interleaved blocks than slots, a quiet block finished early; syslog's
 * years (given, or from the file's time), the time window, a sink's error
 * coming back; signal names read as numbers.
 */
#include "check.h"
#include "crash_rec.h"

static void test_bounds(void)
{
    /* a Ceph frame longer than the bound: cut, kept, the crash flagged */
    size_t big = SAT_CRASH_TEXT_LINE_MAX + 5000;
    char *t = malloc(big + 256);
    size_t o = (size_t)sprintf(t, "*** Caught signal (Segmentation fault) **\n in thread 7f00\n 1: (f<");
    memset(t + o, 'x', big);
    o += big;
    o += (size_t)sprintf(t + o, ">()+0x10) [0x1000]\n 2: (g()+0x1) [0x2000]\n NOTE: a copy of the executable\n");
    rec r = {0};
    CHECK_EQ_INT(feed_text(&r, t, o, NULL), SAT_OK);
    CHECK_EQ_INT(r.ncr, 1);
    CHECK_EQ_INT(r.nfr, 2);
    CHECK_EQ_INT(last_stats.lines_cut, 1);
    if (r.ncr == 1 && r.nfr == 2) {
        CHECK(r.cr[0].c.flags & SAT_CRASHF_TRUNCATED);
        CHECK(strncmp(r.fr[0].function, "f<xxxx", 6) == 0);
        CHECK(strlen(r.fr[0].function) <= 2048); /* a frame's string is bounded */
        CHECK_EQ_STR(r.fr[1].function, "g");
    }
    rec_free(&r);
    free(t);

    /* frames over max_frames are dropped and counted */
    char run[2048];
    o = 0;
    for (int i = 0; i < 10; i++)
        o += (size_t)sprintf(run + o, "./p(f%d+0x%x)[0x40%04x]\n", i, i, i);
    sat_crash_text_opts opt;
    memset(&opt, 0, sizeof opt);
    opt.max_frames = 4;
    opt.default_year = 2025;
    rec q = {0};
    CHECK_EQ_INT(feed_text(&q, run, o, &opt), SAT_OK);
    CHECK_EQ_INT(q.ncr, 1);
    CHECK_EQ_INT(q.nfr, 4);
    CHECK_EQ_INT(last_stats.frames_dropped, 6);
    if (q.ncr == 1)
        CHECK(q.cr[0].c.flags & SAT_CRASHF_TRUNCATED);
    rec_free(&q);

    /* interleaved streams, as many as there are blocks: each is a crash with
     * its own frame; more than that: the quietest blocks end early (a block
     * with nothing but its header is no crash), nothing else is lost */
    for (int streams = SAT_CRASH_TEXT_BLOCKS; streams <= SAT_CRASH_TEXT_BLOCKS + 3; streams += 3) {
        char many[8192];
        o = 0;
        for (int s = 0; s < streams; s++)
            o += (size_t)sprintf(many + o, "T INFO:osd.%c.stderr:*** Caught signal (Aborted) **\n", 'a' + s);
        for (int s = 0; s < streams; s++)
            o += (size_t)sprintf(many + o, "T INFO:osd.%c.stderr: in thread 7f0%d thread_name:x\n", 'a' + s, s);
        for (int s = 0; s < streams; s++)
            o += (size_t)sprintf(many + o, "T INFO:osd.%c.stderr: 1: (f%d()+0x1) [0x10]\n", 'a' + s, s);
        rec m = {0};
        CHECK_EQ_INT(feed_text(&m, many, o, NULL), SAT_OK);
        check_order(&m);
        CHECK_EQ_INT(m.ncr, SAT_CRASH_TEXT_BLOCKS);
        for (size_t i = 0; i < m.nfr; i++) { /* each frame in its own stream's crash */
            int s = atoi(m.fr[i].function + 1);
            CHECK_EQ_INT(m.cr[m.fr[i].f.crash - 1].c.crash, m.fr[i].f.crash);
            CHECK(s >= streams - SAT_CRASH_TEXT_BLOCKS);
        }
        rec_free(&m);
    }

    /* a quiet stream's block is finished before the end of the input */
    o = (size_t)sprintf(run, "Jan  2 03:04:05 h a[1]: x(+0x1)[0x1]\nJan  2 03:04:05 h a[1]: x(+0x2)[0x2]\n");
    char *longer = malloc(o + 400 * 40);
    memcpy(longer, run, o);
    for (int i = 0; i < 400; i++)
        o += (size_t)sprintf(longer + o, "Jan  2 03:04:06 h b[2]: line %d\n", i);
    rec s = {0};
    CHECK_EQ_INT(feed_text(&s, longer, o, NULL), SAT_OK);
    CHECK_EQ_INT(s.ncr, 1);
    rec_free(&s);
    free(longer);
}

static void test_window_year_errors(void)
{
    const char *t = "Dec 31 23:59:59 h p[9]: fatal: caught signal 11\n"
                    "Dec 31 23:59:59 h p[9]: ./p(+0x1)[0x1]\n"
                    "Jan  1 00:00:01 h p[9]: fatal: caught signal 6\n"
                    "Jan  1 00:00:01 h p[9]: ./p(+0x2)[0x2]\n"
                    "./q(+0x3)[0x3]\n./q(+0x4)[0x4]\n";
    sat_crash_text_opts o;
    memset(&o, 0, sizeof o);
    o.default_year = 2024;
    rec r = {0};
    CHECK_EQ_INT(feed_text(&r, t, strlen(t), &o), SAT_OK);
    CHECK_EQ_INT(r.ncr, 3);
    if (r.ncr == 3) {
        CHECK_EQ_INT(r.cr[0].c.ts, NS(1735689599)); /* 2024-12-31T23:59:59Z */
        CHECK_EQ_INT(r.cr[0].c.signal, 11);
        CHECK_EQ_INT(r.cr[1].c.ts, NS(1735689601)); /* 2025-01-01T00:00:01Z */
        CHECK_EQ_INT(r.cr[1].c.signal, 6);
        CHECK_EQ_INT(r.cr[2].c.ts, 0);
    }
    rec_free(&r);

    /* no year given: the one rule against the file's time (written on
     * 2025-01-01 00:05): the Dec 31 line is 2024's, not the mtime's year */
    o.default_year = 0;
    o.year_ref = NS(1735690000);
    rec y = {0};
    CHECK_EQ_INT(feed_text(&y, t, strlen(t), &o), SAT_OK);
    CHECK(y.ncr == 3 && y.cr[0].c.ts == NS(1735689599) && y.cr[1].c.ts == NS(1735689601));
    rec_free(&y);
    o.year_ref = 0;
    o.default_year = 2024;

    /* the window keeps the crash inside it and the one without a time */
    o.from_ns = NS(1735689600);
    o.to_ns = NS(1735689700);
    rec w = {0};
    CHECK_EQ_INT(feed_text(&w, t, strlen(t), &o), SAT_OK);
    CHECK_EQ_INT(w.ncr, 2);
    CHECK_EQ_INT(last_stats.outside_window, 1);
    for (size_t i = 0; i < w.nfr; i++) /* no frame of the crash left out */
        CHECK(w.fr[i].f.crash == 1 || w.fr[i].f.crash == 2);
    rec_free(&w);

    /* a sink's error comes back */
    rec e = {0};
    e.fail_on_crash = SAT_E_STOP;
    CHECK_EQ_INT(feed_text(&e, t, strlen(t), &o), SAT_E_STOP);
    rec_free(&e);

    CHECK_EQ_INT(sat_crash_signal_from_text("SIGSEGV", 7), 11);
    CHECK_EQ_INT(sat_crash_signal_from_text("SEGV", 4), 11);
    CHECK_EQ_INT(sat_crash_signal_from_text("Segmentation fault", 18), 11);
    CHECK_EQ_INT(sat_crash_signal_from_text("Aborted", 7), 6);
    CHECK_EQ_INT(sat_crash_signal_from_text("Floating point exception", 24), 8);
    CHECK_EQ_INT(sat_crash_signal_from_text("Segmentation", 12), 0);
    CHECK_EQ_INT(sat_crash_signal_from_text(NULL, 0), 0);
}

int main(void)
{
    test_bounds();
    test_window_year_errors();
    return CHECK_DONE();
}
