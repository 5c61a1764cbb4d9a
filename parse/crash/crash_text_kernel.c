/*
 * crash_text_kernel.c - the kernel's and systemd-coredump's one-line notices of
 * a crash for the crash text scanner (crash_text.c): each a crash row of its own.
 */
#include "crash_text_int.h"

/* ---- the kernel's and systemd-coredump's one-line notices of a crash --------------
 * A fault the process did not handle makes the kernel log one line
 * (show_unhandled_signals, dmesg / the journal / syslog's kern.log):
 *     "COMM[PID]: segfault at ADDR ip IP sp SP error N in MODULE[OFF,BASE+SIZE]"
 *     "traps: COMM[PID] general protection fault ip:IP sp:SP error:N in MODULE[...]"
 *     "traps: COMM[PID] trap invalid opcode ip:..." / "trap divide error ip:..."
 * and systemd-coredump one per core it writes:
 *     "Process PID (COMM) of user UID dumped core."
 * Each is a crash row of its own (origin SAT_CRASH_TEXT_KERNEL, one frame when
 * the kernel gives the module and the offset in it), with the line's time: the
 * crashes analyzer takes that time for the core of the same process, which
 * holds no clock. */
static int hexnum(const char *p, const char *end, uint64_t *v, const char **e)
{
    uint64_t x = 0;
    const char *q = p;
    if (q + 1 < end && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
        q += 2;
    const char *s = q;
    for (; q < end && ishex(*q) && q - s < 16; q++)
        x = x * 16 + (uint64_t)hexval(*q);
    if (q == s)
        return 0;
    *v = x;
    *e = q;
    return 1;
}

/* "COMM[PID]" ending just before at: the command and pid */
static int comm_pid_before(const char *line, const char *at, const char **comm, size_t *clen,
                           int32_t *pid)
{
    const char *q = at;
    if (q <= line || q[-1] != ']')
        return 0;
    q--;
    const char *de = q;
    while (q > line && isdig(q[-1]))
        q--;
    if (q == de || q <= line || q[-1] != '[' || de - q > 9)
        return 0;
    int64_t v = 0;
    for (const char *d = q; d < de; d++)
        v = v * 10 + (*d - '0');
    const char *ce = q - 1, *cs = ce;
    while (cs > line && cs[-1] != ' ' && cs[-1] != '\t')
        cs--;
    if (cs == ce || v <= 0)
        return 0;
    *comm = cs;
    *clen = (size_t)(ce - cs);
    *pid = (int32_t)v;
    return 1;
}

int sat_ct_kernel_line(sat_crash_text *ct, const char *p, const char *end, int *taken)
{
    *taken = 0;
    const char *comm = NULL, *mod = NULL;
    size_t clen = 0, mlen = 0;
    int32_t pid = 0, signal = SAT_ABSENT;
    uint64_t addr = 0, ip = 0, off = 0;
    int have_addr = 0, have_ip = 0, have_off = 0;
    const char *m, *e;
    if ((m = find(p, end, ": segfault at ")) && comm_pid_before(p, m, &comm, &clen, &pid)) {
        signal = 11;
        have_addr = hexnum(m + 14, end, &addr, &e);
        const char *i = find(m, end, " ip ");
        have_ip = i && hexnum(i + 4, end, &ip, &e);
    } else if ((m = find(p, end, "traps: ")) && (e = find(m + 7, end, "] ")) &&
               comm_pid_before(p, e + 1, &comm, &clen, &pid)) {
        const char *what = e + 2;
        signal = find(what, end, "general protection") ? 11
                 : find(what, end, "invalid opcode")   ? 4
                 : find(what, end, "divide error")     ? 8
                 : find(what, end, "int3")             ? 5
                                                       : SAT_ABSENT;
        const char *i = find(what, end, " ip:");
        have_ip = i && hexnum(i + 4, end, &ip, &e);
        if (signal == SAT_ABSENT)
            return SAT_OK;
    } else if ((m = find(p, end, "Process ")) && find(m, end, " dumped core") &&
               (m == p || m[-1] == ' ')) {
        const char *q = m + 8;
        int64_t v = 0;
        while (q < end && isdig(*q) && v < 100000000)
            v = v * 10 + (*q++ - '0');
        if (v <= 0 || q + 2 >= end || q[0] != ' ' || q[1] != '(')
            return SAT_OK;
        const char *ce = memchr(q + 2, ')', (size_t)(end - q - 2));
        if (!ce || !find(ce, end, ") of user "))
            return SAT_OK;
        comm = q + 2;
        clen = (size_t)(ce - comm);
        pid = (int32_t)v;
    } else {
        return SAT_OK;
    }
    /* "in MODULE[OFF,BASE+SIZE]": the offset in the module (kernels since 6.1) */
    const char *in = find(m, end, " in ");
    if (in && (in += 4) < end) {
        const char *br = memchr(in, '[', (size_t)(end - in));
        if (br && br > in && !memchr(in, ' ', (size_t)(br - in))) {
            const char *comma = memchr(br, ',', (size_t)(end - br));
            const char *close = memchr(br, ']', (size_t)(end - br));
            if (comma && close && comma < close && hexnum(br + 1, comma, &off, &e) &&
                e == comma) {
                mod = in;
                mlen = (size_t)(br - in);
                have_off = 1;
            }
        }
    }
    *taken = 1;
    /* a backtrace of that process being read is the same crash, told better */
    for (int i = 0; i < SAT_CRASH_TEXT_BLOCKS; i++)
        if (ct->blocks[i].origin && ct->blocks[i].pid == pid)
            return SAT_OK;
    sat_ts_ns ts = sat_ct_ts_in(ct, p, end);
    if (ts && ((ct->opts.from_ns && ts < ct->opts.from_ns) ||
               (ct->opts.to_ns && ts >= ct->opts.to_ns))) {
        ct->stats.outside_window++;
        return SAT_OK;
    }
    uint32_t id = ++ct->next_crash;
    sat_frame f;
    memset(&f, 0, sizeof f);
    int rc = SAT_OK;
    if (have_off) {
        f.source = ct->opts.source;
        f.crash = id;
        f.pc = have_ip ? (int64_t)ip : SAT_ABSENT;
        f.module = sat_str_make(mod, mlen);
        f.build_id = SAT_STR_NONE;
        f.offset = (int64_t)off;
        f.function = SAT_STR_NONE;
        f.fn_offset = SAT_ABSENT;
        f.file = SAT_STR_NONE;
        f.line = SAT_ABSENT;
        rc = sat_sink_emit(ct->sink, SAT_TABLE_FRAME, &f);
        ct->stats.frames++;
        if (rc < 0)
            return rc;
    }
    sat_crash_keys keys;
    sat_crash_keys_of(have_off ? &f : NULL, have_off ? 1 : 0, SAT_STR_NONE, &keys);
    sat_crash c;
    memset(&c, 0, sizeof c);
    c.ts = ts;
    c.time_source = ts > 0 ? SAT_CRASH_TIME_LOG : SAT_CRASH_TIME_UNKNOWN;
    c.source = ct->opts.source;
    c.crash = id;
    c.host = SAT_STR_NONE;
    c.pid = pid;
    c.uid = SAT_ABSENT;
    c.exe = SAT_STR_NONE;
    c.command = sat_str_make(comm, clen);
    c.build_id = SAT_STR_NONE;
    c.signal = signal;
    c.si_code = SAT_ABSENT;
    c.fault_addr = have_addr ? (int64_t)addr : SAT_ABSENT;
    c.orig_signal = SAT_ABSENT;
    c.orig_fault_addr = SAT_ABSENT;
    c.threads = 1;
    c.crashing_tid = SAT_ABSENT;
    c.origin = SAT_CRASH_TEXT_KERNEL;
    c.arch = SAT_ARCH_UNKNOWN;
    c.flags = have_off ? 0 : SAT_CRASHF_TRUNCATED;
    c.fingerprint = sat_str_cstr(keys.fingerprint);
    c.signature = sat_str_cstr(keys.text);
    c.build_key = sat_str_cstr(keys.build_key);
    c.missing = sat_str_cstr(have_off ? "the other frames (a kernel log line holds one)"
                                      : "frames (a log line about the crash, not a backtrace)");
    rc = sat_sink_emit(ct->sink, SAT_TABLE_CRASH, &c);
    ct->stats.crashes++;
    ct->stats.by_origin[SAT_CRASH_TEXT_KERNEL]++;
    return rc;
}
