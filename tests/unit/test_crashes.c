/*
 * test_crashes.c - the crashes analyzer (analyze/crashes.c) on rows made
 * here: crash and frame rows joined whatever their order (frames first as a
 * collector sends them, the crash first as a trace may), threads grouped by
 * identical stacks with the crashing one first, crashes grouped by
 * fingerprint with their builds counted, the load and the storm of the
 * minute before a crash, a merge of two halves equal to one analyzer, and
 * the JSON keys of the issue; all read from the result (its typed readers).
 * Its text: the phrases a reader looks for, and frames kept whole.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/report.h"
#include "result_check.h"

#define S ((sat_ts_ns)1000000000)
static const sat_ts_ns T0 = 1749400000 * S;

/* The report as the CLI writes it: the analyzer's result, then the one JSON
 * writer or the crashes sections as text. */
static int report_crashes(const sat_crashes *c, int fmt, FILE *out)
{
    sat_result *r = sat_result_new("crashes");
    int rc = r ? sat_crashes_result(c, r) : SAT_E_NOMEM;
    if (rc == SAT_OK && fmt == SAT_REPORT_JSON) {
        rc = sat_result_json(r, out, NULL);
    } else if (rc == SAT_OK) {
        /* --wide: the phrases checked stay on one line */
        char *text = rc_render(r, AS_TEXT_WIDE, NULL);
        rc = text && fputs(text, out) >= 0 ? SAT_OK : SAT_E_IO;
        free(text);
    }
    sat_result_free(r);
    return rc;
}

static sat_frame frame(uint32_t crash, int32_t tid, int depth, const char *mod, const char *fn,
                       int64_t off)
{
    sat_frame f;
    memset(&f, 0, sizeof f);
    f.source = 0;
    f.crash = crash;
    f.thread = tid;
    f.depth = depth;
    f.pc = 0x7f0000000000 + off;
    f.module = sat_str_cstr(mod);
    f.function = fn ? sat_str_cstr(fn) : SAT_STR_NONE;
    f.offset = off;
    f.fn_offset = SAT_ABSENT;
    f.file = SAT_STR_NONE;
    f.line = SAT_ABSENT;
    return f;
}

static sat_crash crash_row(uint32_t crash, sat_ts_ns ts, const char *fp, const char *bk)
{
    sat_crash c;
    memset(&c, 0, sizeof c);
    c.ts = ts;
    c.crash = crash;
    c.pid = 4242;
    c.uid = SAT_ABSENT;
    c.exe = sat_str_cstr("/usr/sbin/ns-slapd");
    c.signal = 11;
    c.si_code = 1;
    c.fault_addr = 0;
    c.orig_signal = SAT_ABSENT;
    c.orig_fault_addr = SAT_ABSENT;
    c.threads = 10;
    c.crashing_tid = 101;
    c.origin = SAT_CRASH_CORE;
    c.arch = SAT_ARCH_X86_64;
    c.fingerprint = sat_str_cstr(fp);
    c.signature = sat_str_cstr("libback-ldbm.so:parse_entry|ns-slapd:search");
    c.build_key = sat_str_cstr(bk);
    return c;
}

/* A crash whose process had 10 threads: the crashing one, 8 idle workers
 * and a listener. */
static void send_frames(const sat_event_sink *k, uint32_t crash)
{
    sat_frame f;
    for (int32_t t = 100; t < 110; t++) {
        if (t == 101) {
            f = frame(crash, t, 0, "libback-ldbm.so", "parse_entry", 0x1234);
            sat_sink_emit(k, SAT_TABLE_FRAME, &f);
            f = frame(crash, t, 1, "ns-slapd", "search", 0x2000);
            sat_sink_emit(k, SAT_TABLE_FRAME, &f);
            f = frame(crash, t, 2, "libc.so.6", "start_thread", 0x89000);
            sat_sink_emit(k, SAT_TABLE_FRAME, &f);
        } else if (t == 100) {
            f = frame(crash, t, 0, "libc.so.6", "epoll_wait", 0x100);
            sat_sink_emit(k, SAT_TABLE_FRAME, &f);
            f = frame(crash, t, 1, "ns-slapd", "listener", 0x300);
            sat_sink_emit(k, SAT_TABLE_FRAME, &f);
        } else {
            f = frame(crash, t, 0, "libc.so.6", "pthread_cond_wait", 0x200);
            sat_sink_emit(k, SAT_TABLE_FRAME, &f);
            f = frame(crash, t, 1, "ns-slapd", "worker_wait", 0x400 + 0 * t);
            sat_sink_emit(k, SAT_TABLE_FRAME, &f);
        }
    }
}

static sat_ldap_op op(sat_ts_ns ts, int type)
{
    sat_ldap_op o;
    memset(&o, 0, sizeof o);
    o.ts_ns = ts;
    o.result_ts_ns = ts;
    o.conn = 1 + ts % 1000;
    o.type = (uint8_t)type;
    o.etime = S / 100;
    o.wtime = SAT_ABSENT;
    o.optime = SAT_ABSENT;
    o.client_ip = sat_str_cstr("10.0.0.1");
    return o;
}

/* 20 minutes of 1 op/s; from minute 10 on 20 ops/s and abandons; crash 1
 * at minute 11 (frames first), crash 2 (the same bug, another build) at
 * minute 19 sent crash row first, crash 3 (another bug, no time). `half`
 * 0/1 sends only that half of the rows (for the merge), 2 all. */
static void feed(sat_crashes *c, int half)
{
    sat_event_sink k = sat_crashes_sink(c);
    int lo = half == 1 ? 600 : 0, hi = half == 0 ? 600 : 1200;
    for (int t = lo; t < hi; t++) {
        int n = t >= 600 && t < 660 ? 20 : 1;
        for (int i = 0; i < n; i++) {
            sat_ldap_op o = op(T0 + t * S + i * (S / 20), SAT_OP_SRCH);
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
        }
        if (t >= 610 && t < 640) {
            sat_ldap_op a = op(T0 + t * S, SAT_OP_ABANDON);
            sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &a);
        }
    }
    if (half != 1) {
        send_frames(&k, 1);
        sat_crash r = crash_row(1, T0 + 660 * S, "fp:aaaa", "bk:one");
        sat_sink_emit(&k, SAT_TABLE_CRASH, &r);
    }
    if (half != 0) {
        sat_crash r = crash_row(2, T0 + 1140 * S, "fp:aaaa", "bk:two");
        sat_sink_emit(&k, SAT_TABLE_CRASH, &r);
        send_frames(&k, 2);
        r = crash_row(3, 0, "fp:bbbb", "bk:three");
        r.origin = SAT_CRASH_TEXT_GDB;
        r.crashing_tid = SAT_ABSENT;
        r.signal = 6;
        sat_sink_emit(&k, SAT_TABLE_CRASH, &r);
        sat_frame f = frame(3, 0, 0, "prog", NULL, 0x11be);
        sat_sink_emit(&k, SAT_TABLE_FRAME, &f);
    }
}

static int build_result(const void *c, sat_result *r)
{
    return sat_crashes_result((const sat_crashes *)c, r);
}

/* The result of a finished analyzer; the caller frees it. */
static sat_result *result_of(const sat_crashes *c) { return rc_result("crashes", build_result, c); }

static void check_result(const sat_crashes *c)
{
    sat_result *res = result_of(c);
    const sat_rnode *root = sat_result_root(res);
    const sat_rnode *crashes = sat_get_table(root, "crashes"),
                    *groups = sat_get_table(root, "groups");
    CHECK_EQ_INT(sat_get_count(root, "count", 0), 3);
    CHECK_EQ_INT(sat_rnode_count(crashes), 3);
    CHECK_EQ_INT(sat_get_count(root, "groups_count", 0), 2);
    CHECK_EQ_INT(sat_get_count(root, "orphan_frames", 99), 0);
    CHECK_EQ_INT(sat_get_count(root, "origins.core", 0), 2);
    CHECK_EQ_INT(sat_get_count(root, "origins.text_gdb", 0), 1);
    if (sat_rnode_count(groups) != 2 || sat_rnode_count(crashes) != 3) {
        sat_result_free(res);
        return;
    }
    const sat_rnode *g0 = rc_row(groups, 0), *g1 = rc_row(groups, 1);
    CHECK_EQ_STR(sat_get_text(g0, "fingerprint", ""), "fp:aaaa");
    CHECK_EQ_INT(sat_get_count(g0, "count", 0), 2);
    CHECK_EQ_INT(sat_get_count(g0, "builds", 0), 2);
    CHECK_EQ_INT(sat_get_time(g0, "first_ts", 0), T0 + 660 * S);
    CHECK_EQ_INT(sat_get_time(g0, "last_ts", 0), T0 + 1140 * S);
    CHECK_EQ_STR(sat_get_text(g1, "fingerprint", ""), "fp:bbbb");
    /* time order (crash 1 at minute 11, crash 2 at 19), the crash without a
     * time (crash 3, the gdb text) last */
    const sat_rnode *a = rc_row(crashes, 0), *b = rc_row(crashes, 1), *x = rc_row(crashes, 2);
    CHECK_EQ_INT(sat_get_time(a, "ts", 0), T0 + 660 * S);
    CHECK_EQ_INT(sat_get_time(b, "ts", 0), T0 + 1140 * S);
    CHECK(!sat_get_has(x, "ts"));
    CHECK_EQ_STR(sat_get_text(x, "origin", ""), "text_gdb");
    CHECK_EQ_INT(sat_get_count(a, "group", 0), 1);
    CHECK_EQ_INT(sat_get_count(x, "group", 0), 2);
    for (int i = 0; i < 2; i++) {
        const sat_rnode *r = rc_row(crashes, (size_t)i);
        const sat_rnode *frames = sat_get_table(r, "frames");
        CHECK_EQ_INT(sat_rnode_count(frames), 3);
        CHECK_EQ_STR(sat_get_text(rc_row(frames, 0), "function", ""), "parse_entry");
        const sat_rnode *stacks = sat_get_table(r, "threads_detail");
        CHECK_EQ_INT(sat_rnode_count(stacks), 3);
        uint64_t seen = 0; /* the threads with frames: every stack's */
        for (const sat_rnode *st = sat_rnode_first(stacks); st; st = sat_rnode_next(st))
            seen += sat_get_count(st, "count", 0);
        CHECK_EQ_INT(seen, 10);
        if (sat_rnode_count(stacks) == 3) {
            const sat_rnode *s0 = rc_row(stacks, 0), *s1 = rc_row(stacks, 1), *s2 = rc_row(stacks, 2);
            CHECK(sat_get_bool(s0, "crashing", 0) == 1);
            CHECK_EQ_INT(sat_get_int(sat_rnode_first(sat_get_list(s0, "tids")), NULL, 0), 101);
            CHECK_EQ_INT(sat_get_count(s1, "count", 0), 8); /* the idle pool: one line */
            CHECK_EQ_INT(sat_get_count(s2, "count", 0), 1);
            CHECK_EQ_INT(sat_get_int(sat_rnode_first(sat_get_list(s2, "tids")), NULL, 0), 100);
        }
    }
    /* the minute before crash 1, up to the crash itself (the op stamped at
     * its very time is in): 20 ops/s against 1 in the minute before that */
    CHECK(sat_get_bool(a, "before.covered", 0) == 1);
    CHECK_EQ_INT(sat_get_time(a, "before.from_ts", 0), T0 + 600 * S);
    CHECK_EQ_INT(sat_get_time(a, "before.to_ts", 0), T0 + 660 * S);
    CHECK_EQ_INT(sat_get_count(a, "before.operations", 0), 1201);
    double usual = sat_get_num(a, "before.usual_operations", NAN);
    CHECK(usual > 59 && usual < 61);
    CHECK(sat_get_int(a, "before.storm", 0) >= 1);
    /* crash 2: a quiet minute, no storm; crash 3: no time, no context */
    CHECK_EQ_INT(sat_get_count(b, "before.operations", 0), 61);
    CHECK(!sat_get_has(b, "before.storm"));
    CHECK(sat_get_bool(x, "before.covered", 0) != 1);
    CHECK_EQ_INT(sat_rnode_count(sat_get_table(x, "frames")), 1);
    sat_result_free(res);
}

/* The minute before a crash 6.7 s after a 10 s boundary, with a burst in
 * those last seconds; the load from `start` on (1 op/s, 100 ops/s from
 * 653.3 s). Returns the analyzer, finished, crash at 666.7 s. */
#define KILL_AT (T0 + 666 * S + 7 * S / 10)
static sat_ts_ns op_time(int i) /* the i-th op: 1 a second, then the burst */
{
    return i < 1200 ? T0 + (sat_ts_ns)i * S : T0 + 653 * S + 3 * S / 10 + (i - 1200) * (S / 100);
}
static sat_crashes *killed(int start, uint64_t *want_before, uint64_t *want_usual)
{
    sat_crashes *c = sat_crashes_create(NULL);
    if (!c)
        return NULL;
    sat_event_sink k = sat_crashes_sink(c);
    sat_crash r = crash_row(1, KILL_AT, "fp:kill", "bk:kill");
    sat_sink_emit(&k, SAT_TABLE_CRASH, &r); /* the core first, as on a command line */
    *want_before = *want_usual = 0;
    for (int i = 0; i < 1200 + 1340; i++) {
        sat_ts_ns t = op_time(i);
        if (t < T0 + (sat_ts_ns)start * S || (i < 1200 && t > KILL_AT))
            continue;
        sat_ldap_op o = op(t, SAT_OP_SRCH);
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o);
        *want_before += t >= KILL_AT - 60 * S && t <= KILL_AT;
        *want_usual += t >= KILL_AT - 120 * S && t < KILL_AT - 60 * S;
    }
    CHECK_EQ_INT(sat_crashes_finish(c), SAT_OK);
    return c;
}

static void check_minute_before(void)
{
    uint64_t before, usual;
    sat_crashes *c = killed(0, &before, &usual);
    sat_result *res = c ? result_of(c) : NULL;
    const sat_rnode *crashes = sat_get_table(sat_result_root(res), "crashes");
    const sat_rnode *x = rc_row(crashes, 0);
    CHECK_EQ_INT(sat_rnode_count(crashes), 1);
    if (x) {
        CHECK_EQ_INT(before, 60 + 1340); /* 607 .. 666 s, and the whole burst */
        CHECK_EQ_INT(sat_get_time(x, "before.from_ts", 0), KILL_AT - 60 * S);
        CHECK_EQ_INT(sat_get_time(x, "before.to_ts", 0), KILL_AT);
        CHECK_EQ_INT(sat_get_count(x, "before.operations", 0), before);
        CHECK_EQ_INT(usual, 60);
        CHECK(sat_get_num(x, "before.usual_operations", NAN) == 60.0);
        CHECK_EQ_INT(sat_get_time(x, "before.usual_from_ts", 0), KILL_AT - 120 * S);
    }
    sat_result_free(res);
    sat_crashes_free(c);
    /* the log starts 36.7 s into the usual period: scaled up from what is there */
    c = killed(570, &before, &usual);
    res = c ? result_of(c) : NULL;
    x = rc_row(sat_get_table(sat_result_root(res), "crashes"), 0);
    CHECK(x != NULL);
    if (x) {
        CHECK_EQ_INT(sat_get_count(x, "before.operations", 0), before);
        CHECK_EQ_INT(usual, 37);
        CHECK_EQ_INT(sat_get_time(x, "before.usual_from_ts", 0), T0 + 570 * S);
        double u = sat_get_num(x, "before.usual_operations", NAN);
        CHECK(u > 60.49 && u < 60.50); /* 37 * 60 / 36.7 */
    }
    sat_result_free(res);
    sat_crashes_free(c);
    /* it starts inside the minute before: no usual at all */
    c = killed(630, &before, &usual);
    res = c ? result_of(c) : NULL;
    x = rc_row(sat_get_table(sat_result_root(res), "crashes"), 0);
    CHECK(x != NULL);
    if (x) {
        CHECK(sat_get_bool(x, "before.covered", 0) == 1);
        CHECK_EQ_INT(sat_get_count(x, "before.operations", 0), before);
        CHECK(!sat_get_has(x, "before.usual_operations"));
        CHECK_EQ_INT(sat_get_time(sat_result_root(res), "load_first_ts", 0), T0 + 630 * S);
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        CHECK_EQ_INT(report_crashes(c, SAT_REPORT_TEXT, m), SAT_OK);
        fclose(m);
        CHECK(buf && strstr(buf, "usual unknown: too little log before it"));
        CHECK(buf && strstr(buf, "the logs start 36.7 s before the crash"));
        free(buf);
    }
    sat_result_free(res);
    sat_crashes_free(c);
}

/* A frame's function and source line are whole in 100 columns: the frames
 * table wraps its long cells (after a blank or a '/') rather than cut them. */
static void check_frames_whole(void)
{
    sat_crashes *c = sat_crashes_create(NULL);
    if (!c)
        return;
    sat_event_sink k = sat_crashes_sink(c);
    sat_frame f = frame(1, 7, 0, "libceph-common.so.2",
                        "ceph::__ceph_assert_fail(char const*, char const*, int, char const*)",
                        0x2511d1);
    f.fn_offset = 0x16e;
    f.file = sat_str_cstr("../sysdeps/unix/sysv/linux/x86_64/clone3.S");
    f.line = 81;
    sat_sink_emit(&k, SAT_TABLE_FRAME, &f);
    f = frame(1, 7, 1, "libc.so.6", "__libc_start_main@@GLIBC_2.34", 0x27305);
    f.fn_offset = 0x85;
    f.file = sat_str_cstr("../csu/libc-start.c");
    f.line = 360;
    sat_sink_emit(&k, SAT_TABLE_FRAME, &f);
    sat_crash r = crash_row(1, T0, "fp:long", "bk:long");
    r.crashing_tid = 7;
    sat_sink_emit(&k, SAT_TABLE_CRASH, &r);
    CHECK_EQ_INT(sat_crashes_finish(c), SAT_OK);
    sat_result *res = sat_result_new("crashes");
    CHECK(res && sat_crashes_result(c, res) == SAT_OK);
    char *text = res ? rc_render(res, AS_TEXT, NULL) : NULL;
    CHECK(text && rc_widest(text) <= SAT_TEXT_WIDTH);
    CHECK(text && !strstr(text, "..."));
    static const char *const whole[] = {"ceph::__ceph_assert_fail(char", "const*)+0x16e",
                                        "clone3.S:81", "__libc_start_main@@GLIBC_2.34+0x85",
                                        "../csu/libc-start.c:360"};
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        CHECK(text && strstr(text, whole[i]));
        if (!text || !strstr(text, whole[i]))
            fprintf(stderr, "not whole: %s\n%s", whole[i], text ? text : "");
    }
    free(text);
    sat_result_free(res);
    sat_crashes_free(c);
}

/* The same core read with and without its executable: named frames, then
 * module+offset frames, the same exact-build key: one group, named. */
static void check_build_key_links(void)
{
    sat_crashes *c = sat_crashes_create(NULL);
    if (!c)
        return;
    sat_event_sink k = sat_crashes_sink(c);
    sat_crash r = crash_row(1, T0, "fp:unnamed", "bk:same");
    r.signature = sat_str_cstr("prog+0x114d|prog+0x1183");
    sat_sink_emit(&k, SAT_TABLE_CRASH, &r);
    r = crash_row(2, T0 + S, "fp:other", "bk:other");
    sat_sink_emit(&k, SAT_TABLE_CRASH, &r);
    r = crash_row(3, T0 + 2 * S, "fp:named", "bk:same");
    r.signature = sat_str_cstr("prog:store_byte|prog:copy_field");
    sat_sink_emit(&k, SAT_TABLE_CRASH, &r);
    CHECK_EQ_INT(sat_crashes_finish(c), SAT_OK);
    sat_result *res = result_of(c);
    const sat_rnode *groups = sat_get_table(sat_result_root(res), "groups"),
                    *crashes = sat_get_table(sat_result_root(res), "crashes");
    CHECK_EQ_INT(sat_rnode_count(groups), 2);
    if (sat_rnode_count(groups) == 2 && sat_rnode_count(crashes) == 3) {
        const sat_rnode *g0 = rc_row(groups, 0);
        CHECK_EQ_INT(sat_get_count(g0, "count", 0), 2);
        CHECK_EQ_INT(sat_get_count(g0, "builds", 0), 1);
        CHECK_EQ_STR(sat_get_text(g0, "fingerprint", ""), "fp:named");
        CHECK_EQ_STR(sat_get_text(g0, "signature", ""), "prog:store_byte|prog:copy_field");
        uint64_t a = sat_get_count(rc_row(crashes, 0), "group", 0),
                 b = sat_get_count(rc_row(crashes, 1), "group", 0),
                 x = sat_get_count(rc_row(crashes, 2), "group", 0);
        CHECK_EQ_INT(a, x);
        CHECK(b != a);
    }
    sat_result_free(res);
    sat_crashes_free(c);
}

/* A core dated by its mtime (a copy, a day later) and the kernel's line and a
 * logged backtrace of the same pid: one crash, at the line's time; a line of
 * another pid, or later than the core, is a crash of its own. */
static void check_log_time(void)
{
    sat_crashes *c = sat_crashes_create(NULL);
    if (!c)
        return;
    sat_event_sink k = sat_crashes_sink(c);
    sat_crash core = crash_row(1, T0 + 86400 * S, "fp:core", "bk:core");
    core.time_source = SAT_CRASH_TIME_MTIME;
    core.fault_addr = SAT_ABSENT;
    sat_sink_emit(&k, SAT_TABLE_CRASH, &core);
    sat_crash line = crash_row(1, T0 + 5 * S, "fp:line", "bk:line");
    line.source = 1;
    line.origin = SAT_CRASH_TEXT_KERNEL;
    line.exe = SAT_STR_NONE;
    line.command = sat_str_cstr("ns-slapd");
    line.fault_addr = 0x28;
    line.time_source = SAT_CRASH_TIME_LOG;
    sat_sink_emit(&k, SAT_TABLE_CRASH, &line);
    sat_crash bt = line; /* its own backtrace, logged a moment before */
    bt.source = 2;
    bt.ts = T0 + 4 * S;
    bt.origin = SAT_CRASH_TEXT_GLIBC;
    bt.exe = sat_str_cstr("/usr/sbin/ns-slapd");
    bt.command = SAT_STR_NONE;
    sat_sink_emit(&k, SAT_TABLE_CRASH, &bt);
    sat_crash other = line; /* another process */
    other.source = 3;
    other.pid = 4243;
    sat_sink_emit(&k, SAT_TABLE_CRASH, &other);
    sat_crash later = line; /* the same pid, after the core was written: another one */
    later.source = 4;
    later.ts = T0 + 90000 * S;
    sat_sink_emit(&k, SAT_TABLE_CRASH, &later);
    CHECK_EQ_INT(sat_crashes_finish(c), SAT_OK);
    sat_result *res = result_of(c);
    const sat_rnode *root = sat_result_root(res), *crashes = sat_get_table(root, "crashes");
    CHECK_EQ_INT(sat_rnode_count(crashes), 3);
    CHECK_EQ_INT(sat_get_count(root, "log_lines_matched", 0), 2);
    if (sat_rnode_count(crashes) == 3) {
        const sat_rnode *r = rc_row(crashes, 0); /* time order */
        CHECK_EQ_STR(sat_get_text(r, "origin", ""), "core");
        CHECK_EQ_INT(sat_get_time(r, "ts", 0), T0 + 5 * S); /* the kernel line's, not the backtrace's */
        CHECK_EQ_STR(sat_get_text(r, "time_source", ""), "log");
        CHECK_EQ_STR(sat_get_text(r, "fault_addr", ""), "0x28");
        CHECK_EQ_INT(sat_get_int(rc_row(crashes, 1), "pid", 0), 4243);
        CHECK_EQ_INT(sat_get_time(rc_row(crashes, 2), "ts", 0), T0 + 90000 * S);
    }
    sat_result_free(res);
    sat_crashes_free(c);
}

int main(void)
{
    check_log_time();
    check_minute_before();
    check_build_key_links();
    check_frames_whole();
    sat_crashes *one = sat_crashes_create(NULL);
    CHECK(one != NULL);
    if (!one)
        return CHECK_DONE();
    feed(one, 2);
    CHECK_EQ_INT(sat_crashes_finish(one), SAT_OK);
    check_result(one);

    sat_crashes *h0 = sat_crashes_create(NULL), *h1 = sat_crashes_create(NULL);
    CHECK(h0 && h1);
    if (h0 && h1) {
        feed(h0, 0);
        feed(h1, 1);
        CHECK_EQ_INT(sat_crashes_merge(h0, h1), SAT_OK);
        CHECK_EQ_INT(sat_crashes_finish(h0), SAT_OK);
        check_result(h0);
        /* the merged halves give the document of one pass, byte for byte */
        char *a = NULL, *b = NULL;
        size_t al = 0, bl = 0;
        FILE *fa = open_memstream(&a, &al), *fb = open_memstream(&b, &bl);
        CHECK(fa && fb);
        if (fa && fb) {
            CHECK_EQ_INT(report_crashes(h0, SAT_REPORT_JSON, fa), SAT_OK);
            CHECK_EQ_INT(report_crashes(one, SAT_REPORT_JSON, fb), SAT_OK);
            fclose(fa);
            fclose(fb);
            CHECK(a && b && strcmp(a, b) == 0);
            if (a && b && strcmp(a, b))
                fprintf(stderr, "merged:\n%s\none pass:\n%s\n", a, b);
        }
        free(a);
        free(b);
    }

    sat_result *res = sat_result_new("crashes");
    CHECK(res && sat_crashes_result(one, res) == SAT_OK);
    rc_check_text_and_tables(res);
    sat_result_free(res);

    /* the report: the JSON keys, and a text a person can read */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CHECK_EQ_INT(report_crashes(one, SAT_REPORT_JSON, m), SAT_OK);
    fclose(m);
    static const char *const keys[] = {"\"signal\": 11", "\"signal_name\": \"SIGSEGV\"",
                                       "\"threads\": 10", "\"crashing_tid\": 101",
                                       "\"fault_addr\": \"0x0\"", "\"frames\"",
                                       "\"function\": \"parse_entry\"",
                                       "\"module\": \"libback-ldbm.so\"", "\"offset\": \"0x1234\"",
                                       "\"pc\": \"0x7f0000001234\"", "\"threads_detail\"",
                                       "\"fingerprint\": \"fp:aaaa\"", "\"count\": 8"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        CHECK(buf && strstr(buf, keys[i]));
        if (!buf || !strstr(buf, keys[i]))
            fprintf(stderr, "missing %s\n", keys[i]);
    }
    free(buf);
    buf = NULL;
    m = open_memstream(&buf, &len);
    CHECK_EQ_INT(report_crashes(one, SAT_REPORT_TEXT, m), SAT_OK);
    fclose(m);
    if (buf && getenv("SAT_TEST_SHOW")) /* to read the report while changing it */
        fputs(buf, stderr);
    CHECK(buf && strstr(buf, "      8    -  pthread_cond_wait < worker_wait")); /* 8 threads, one line */
    CHECK(buf && strstr(buf, "SIGSEGV (Segmentation fault)"));
    CHECK(buf && strstr(buf, "the load was 20.0x the usual"));
    free(buf);
    sat_crashes_free(one);
    sat_crashes_free(h0);
    sat_crashes_free(h1);
    return CHECK_DONE();
}
