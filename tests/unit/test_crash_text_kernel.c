/*
 * test_crash_text_kernel.c - the kernel's and systemd-coredump's one-line
 * crash notices in logs (parse/crash/crash_text_kernel.c): dmesg's and syslog's
 * segfault lines, traps, "dumped core", a kernel line inside the backtrace
 * of the same process; and the time in a core's file name
 * (parse/crash/core_notes_name.c).
 */
#include "check.h"
#include "crash_rec.h"
#include "satscope/core.h"

static void test_kernel_lines(void)
{
    /* dmesg --time-format iso (fixtures/cores/dmesg/kernel.log's form), syslog's kern.log,
     * a traps: line, systemd-coredump, and a kernel line inside a backtrace of the same
     * process (that block already is the crash) */
    static const char text[] =
        "2026-12-01T09:28:37,441240+00:00 segv_chain-O0[24018]: segfault at 0 ip "
        "000055555555514d sp 00007fffffffe5a0 error 6 in segv_chain-O0[114d,555555555000+1000]"
        " likely on CPU 1 (core 1, socket 0)\n"
        "Jun 10 14:35:00 db1 kernel: [12345.678901] ns-slapd[977]: segfault at 28 ip "
        "00007f3cb0a9a050 sp 00007ffc error 4 in libback-ldbm.so[7f3cb0a80000+40000]\n"
        "Jun 10 14:36:00 db1 kernel: traps: slapd[1001] general protection fault ip:7f00dead "
        "sp:7ffc0000 error:0 in libc.so.6[1a050,7f3cb0a81000+155000]\n"
        "Jun 10 14:37:00 db1 systemd-coredump[1500]: Process 1200 (ns-slapd) of user 389 dumped "
        "core.\n"
        "Jun 10 14:38:00 db1 prog[7]: ./prog(+0x11be)[0x55a80d6cb1be]\n"
        "Jun 10 14:38:00 db1 kernel: prog[7]: segfault at 0 ip 000055d0 sp 00007ffc error 6 in prog\n"
        "Jun 10 14:38:00 db1 prog[7]: ./prog(main+0x5f)[0x55a80d6cb31f]\n"
        "Jun 10 14:39:00 db1 app[8]: Process 12 finished, nothing dumped core here\n";
    rec r = {0};
    CHECK_EQ_INT(feed_text(&r, text, sizeof text - 1, NULL), SAT_OK);
    check_order(&r);
    CHECK_EQ_INT(r.ncr, 5);
    if (r.ncr == 5) {
        const sat_crash *a = &r.cr[0].c, *b = &r.cr[1].c, *t = &r.cr[2].c, *c = &r.cr[3].c;
        CHECK_EQ_INT(a->origin, SAT_CRASH_TEXT_KERNEL);
        CHECK_EQ_INT(a->pid, 24018);
        CHECK_EQ_STR(r.cr[0].command, "segv_chain-O0");
        CHECK_EQ_INT(a->signal, 11);
        CHECK_EQ_INT(a->fault_addr, 0);
        CHECK_EQ_INT(a->ts, NS(1796117317) + 441240000);
        CHECK_EQ_INT(a->time_source, SAT_CRASH_TIME_LOG);
        const rframe *f[4];
        CHECK_EQ_INT(frames_of(&r, 1, f, 4), 1); /* module and offset from "[114d,..." */
        if (frames_of(&r, 1, f, 4) == 1) {
            CHECK_EQ_STR(f[0]->module, "segv_chain-O0");
            CHECK_EQ_INT(f[0]->f.offset, 0x114d);
            CHECK_EQ_INT(f[0]->f.pc, 0x55555555514d);
        }
        CHECK_EQ_INT(b->pid, 977);
        CHECK_EQ_INT(b->fault_addr, 0x28);
        CHECK_EQ_INT(frames_of(&r, 2, f, 4), 0); /* an older kernel: no offset in the module */
        CHECK_EQ_INT(b->ts, NS(1749566100));
        CHECK_EQ_INT(t->pid, 1001);
        CHECK_EQ_INT(t->signal, 11);
        CHECK_EQ_INT(t->fault_addr, SAT_ABSENT);
        CHECK_EQ_INT(frames_of(&r, 3, f, 4), 1);
        CHECK_EQ_INT(c->pid, 1200);
        CHECK_EQ_STR(r.cr[3].command, "ns-slapd");
        CHECK_EQ_INT(c->signal, SAT_ABSENT);
        CHECK_EQ_INT(r.cr[4].c.origin, SAT_CRASH_TEXT_GLIBC); /* prog[7]: one crash */
        CHECK_EQ_INT(r.cr[4].c.pid, 7);
    }
    rec_free(&r);
}

/* ---- the time in a core's file name (parse/crash/core_notes_name.c) -------------------- */
static void test_core_name_time(void)
{
    CHECK_EQ_INT(sat_core_name_time("core.1234.1749479056", 1234), NS(1749479056));
    CHECK_EQ_INT(sat_core_name_time("/var/lib/systemd/coredump/core.ns-slapd.389."
                                    "5f2c0e9a4b.1234.1749479056700000.zst", 1234),
                 NS(1749479056) + 700000000);
    CHECK_EQ_INT(sat_core_name_time("core-slapd-1749479056-1234", SAT_ABSENT), NS(1749479056));
    CHECK_EQ_INT(sat_core_name_time("core", 1), 0);
    CHECK_EQ_INT(sat_core_name_time("core.1234", 1234), 0);           /* the pid */
    CHECK_EQ_INT(sat_core_name_time("core.5000000000", 1), 0);        /* after 2100 */
    CHECK_EQ_INT(sat_core_name_time("core.12345678901", 1), 0);       /* 11 digits */
    CHECK_EQ_INT(sat_core_name_time("core.x1749479056", 1), 0);       /* not a whole field */
    CHECK_EQ_INT(sat_core_name_time("/tmp/1749479056/core", 1), 0);   /* a directory's name */
}

int main(void)
{
    test_kernel_lines();
    test_core_name_time();
    return CHECK_DONE();
}
