/*
 * text_crashes.c - the text form of the crashes result (analyze/
 * crashes_result.c), read at 3 a.m.: per crash first what happened (the
 * signal, the process, how it came) and the crashing thread's top frames,
 * then the other threads grouped by identical stacks, the load in the
 * minute before, and the facts of where it was read from; then the groups
 * of crashes by fingerprint. Reads only the result tree; fits the width
 * (100 columns unless --wide): long values wrap under their label, frame
 * tables cut their widest cells.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/report.h"
#include "satscope/signals.h"
#include "satscope/result_out.h"

#define HANG 14 /* "  executable  ": where a field's value starts */

static const char *const origin_keys[] = {"core",     "text_ceph", "text_glibc",
                                          "text_gdb", "text_kernel"};
static const char *const origin_label[] = {
    "core file", "Ceph-style backtrace in a log", "glibc backtrace in a log",
    "gdb backtrace in a log", "kernel or systemd-coredump log line"};
static const char *const origin_short[] = {"core files", "Ceph-style text", "glibc backtraces",
                                           "gdb backtraces", "kernel log lines"};

/* ---- reading a row --------------------------------------------------------------- */
static const char *txt(const sat_rnode *row, const char *k)
{
    const sat_value *v = sat_row_get(row, k);
    return v && !v->absent && v->unit == SAT_UNIT_TEXT ? v->v.s : NULL;
}

/* 1 and *out when present (INT, COUNT, TIME, BOOL) */
static int num(const sat_rnode *row, const char *k, int64_t *out)
{
    const sat_value *v = row && sat_rnode_kind_of(row) == SAT_RN_OBJECT ? sat_row_get(row, k)
                                                                         : NULL;
    if (!v || v->absent)
        return 0;
    *out = v->unit == SAT_UNIT_COUNT ? (int64_t)v->v.u : v->v.i;
    return 1;
}

static int64_t num_or(const sat_rnode *row, const char *k, int64_t dflt)
{
    int64_t x;
    return num(row, k, &x) ? x : dflt;
}

static double dbl(const sat_rnode *row, const char *k)
{
    const sat_value *v = sat_row_get(row, k);
    return v && !v->absent ? v->v.d : NAN;
}

static int64_t obj_num(const sat_rnode *obj, const char *k)
{
    const sat_rnode *n = sat_rnode_get(obj, k);
    const sat_value *v = n ? sat_rnode_value(n) : NULL;
    if (!v || v->absent)
        return 0;
    return v->unit == SAT_UNIT_COUNT ? (int64_t)v->v.u : v->v.i;
}

/* ---- writing ------------------------------------------------------------------- */

/* "  label       value", the value wrapped at blanks under itself */
static void field(sat_text *t, const char *label, const char *fmt, ...) SAT_PRINTF(3, 4);
static void field(sat_text *t, const char *label, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t col = (size_t)fprintf(t->out, "  %-*s", HANG - 3, label);
    if (col < HANG) {
        fputc(' ', t->out);
        col++;
    }
    size_t limit = t->width ? t->width : (size_t)-1;
    const char *p = buf;
    int first = 1;
    while (*p) {
        if (*p == '\n') { /* a line of its own under the value */
            fprintf(t->out, "\n%*s", HANG, "");
            col = HANG;
            first = 1;
            p++;
            continue;
        }
        size_t sp = strspn(p, " ");
        size_t wl = strcspn(p + sp, " \n");
        if (!first && col + sp + wl > limit) {
            fprintf(t->out, "\n%*s", HANG, "");
            col = HANG;
            p += sp;
            sp = 0;
        }
        fwrite(p, 1, sp + wl, t->out);
        col += sp + wl;
        p += sp + wl;
        first = 0;
    }
    fputc('\n', t->out);
    t->lines++;
}

/* "SIGSEGV (Segmentation fault)", "signal 77", "unknown signal" */
static void fmt_signal(char *b, size_t n, const sat_rnode *row, const char *key)
{
    int64_t sig;
    if (!num(row, key, &sig)) {
        snprintf(b, n, "unknown signal");
        return;
    }
    const char *name = sat_signal_name((int)sig), *desc = sat_signal_desc((int)sig);
    if (name)
        snprintf(b, n, "%s (%s)", name, desc);
    else
        snprintf(b, n, "signal %lld", (long long)sig);
}

static const char *origin_of(const char *key, const char *const *labels)
{
    for (size_t i = 0; key && i < sizeof origin_keys / sizeof origin_keys[0]; i++)
        if (!strcmp(key, origin_keys[i]))
            return labels[i];
    return "?";
}

/* "#3  0x00007f12...  libc.so.6  raise+0x10  (raise.c:51)" as table cells */
static void frame_cells(const sat_rnode *f, char cells[5][384])
{
    const char *fn = txt(f, "function"), *mod = txt(f, "module"), *off = txt(f, "offset"),
               *pc = txt(f, "pc"), *file = txt(f, "file");
    int64_t fo, line;
    snprintf(cells[0], 384, "#%lld", (long long)num_or(f, "depth", 0));
    if (pc)
        snprintf(cells[1], 384, "0x%016llx", strtoull(pc, NULL, 16));
    else
        snprintf(cells[1], 384, "-");
    snprintf(cells[2], 384, "%s", mod ? mod : "-");
    if (num_or(f, "signal_frame", 0))
        snprintf(cells[3], 384, "<signal handler called>");
    else if (fn && num(f, "fn_offset", &fo) && fo > 0)
        snprintf(cells[3], 384, "%.300s+0x%llx", fn, (unsigned long long)fo);
    else if (fn)
        snprintf(cells[3], 384, "%.300s", fn);
    else if (off)
        snprintf(cells[3], 384, "(+%s)", off);
    else
        snprintf(cells[3], 384, "??");
    if (file && num(f, "line", &line))
        snprintf(cells[4], 384, "%.300s:%lld", file, (long long)line);
    else if (file)
        snprintf(cells[4], 384, "%.300s", file);
    else
        cells[4][0] = '\0';
}

/* The pc only with --wide: in 100 columns the function and the source line
 * matter more (the JSON and --wide have it). */
static int print_frames(sat_text *t, const sat_rnode *frames, const char *indent)
{
    sat_tbl tb;
    int pc = t->width == 0;
    sat_tbl_init(&tb, pc ? "lllll" : "llll");
    sat_tbl_set_width(&tb, t->width);
    char cells[5][384];
    for (const sat_rnode *f = sat_rnode_first(frames); f; f = sat_rnode_next(f)) {
        frame_cells(f, cells);
        const char *row[5] = {cells[0], cells[1], cells[2], cells[3], cells[4]};
        if (!pc)
            row[1] = cells[2], row[2] = cells[3], row[3] = cells[4];
        sat_tbl_row(&tb, row);
    }
    int err = tb.err;
    t->lines += tb.nrows;
    sat_tbl_print(&tb, t->out, indent);
    return err ? SAT_E_NOMEM : SAT_OK;
}

/* "libc.so.6:pthread_cond_wait < ns-slapd:connection_wait < ..." (top 4) */
static void stack_summary(char *b, size_t n, const sat_rnode *frames)
{
    size_t len = 0, i = 0;
    b[0] = '\0';
    for (const sat_rnode *f = sat_rnode_first(frames); f && i < 4 && len + 1 < n;
         f = sat_rnode_next(f), i++) {
        const char *fn = txt(f, "function"), *mod = txt(f, "module"), *off = txt(f, "offset");
        int k = fn    ? snprintf(b + len, n - len, "%s%s", i ? " < " : "", fn)
              : off ? snprintf(b + len, n - len, "%s%s+%s", i ? " < " : "", mod ? mod : "-", off)
                    : snprintf(b + len, n - len, "%s??", i ? " < " : "");
        if (k < 0)
            break;
        len += (size_t)k < n - len ? (size_t)k : n - len - 1;
    }
    if (frames && sat_rnode_count(frames) > 4 && len + 6 < n)
        snprintf(b + len, n - len, " < ...");
}

/* Where the crash's time came from, in words. */
static const char *time_words(const char *src, int core)
{
    if (!src)
        return NULL;
    if (!strcmp(src, "file_mtime"))
        return "the core file's modification time (a core holds no clock; a copy or a "
               "decompression resets it: --crash-time sets it)";
    if (!strcmp(src, "core_name"))
        return "the core file's name (the core_pattern time field)";
    if (!strcmp(src, "log"))
        return core ? "a log line about the same process" : "the log line of the crash";
    if (!strcmp(src, "option"))
        return "--crash-time";
    return NULL;
}

/* How the signal was sent when a process sent it (si_code <= 0). */
static const char *sent_with(int64_t si_code)
{
    switch (si_code) {
    case 0: return "kill(2)";
    case -1: return "sigqueue(3)";
    case -3: return "a message queue notification";
    case -6: return "tkill(2)/tgkill(2)";
    default: return "a system call";
    }
}

/* "14:23:10Z" of a TIME value */
static void clock_of(char *b, size_t n, int64_t ts)
{
    char full[64];
    sat_fmt_ts(full, sizeof full, ts);
    snprintf(b, n, "%s", strlen(full) > 11 ? full + 11 : full);
}

static void print_context(sat_text *t, const sat_rnode *root, const sat_rnode *c)
{
    int64_t load_first, ts, covered;
    if (!num(root, "load_first_ts", &load_first))
        return; /* no load rows were read */
    if (!num(c, "ts", &ts)) {
        field(t, "before it", "unknown: the crash has no time");
        return;
    }
    if (!num(c, "before.covered", &covered) || !covered) {
        field(t, "before it", "no operation, connection or handshake in the minute before\n"
                              "(the other inputs do not cover it)");
        return;
    }
    int64_t from = num_or(c, "before.from_ts", 0), to = num_or(c, "before.to_ts", 0);
    int64_t ufrom = num_or(c, "before.usual_from_ts", 0);
    uint64_t ops = (uint64_t)num_or(c, "before.operations", 0);
    double usual = dbl(c, "before.usual_operations");
    char span[64], fromc[64], u[192], hs[96] = "", extra[512] = "";
    sat_fmt_duration(span, sizeof span, (double)(to - from) / 1e9);
    clock_of(fromc, sizeof fromc, from);
    if (!isnan(usual)) {
        char un[64];
        sat_fmt_fixed(un, sizeof un, usual, 1);
        snprintf(u, sizeof u, "usual %s: the %s before", un, span);
    } else {
        snprintf(u, sizeof u, "usual unknown: too little log before it");
    }
    uint64_t nhs = (uint64_t)num_or(c, "before.handshakes", 0);
    if (nhs)
        snprintf(hs, sizeof hs, ", %" PRIu64 " TLS handshakes (%" PRIu64 " full)", nhs,
                 (uint64_t)num_or(c, "before.full_handshakes", 0));
    size_t el = 0;
    char d[64];
    if (load_first > from) {
        sat_fmt_duration(d, sizeof d, (double)(to - load_first) / 1e9);
        el += (size_t)snprintf(extra + el, sizeof extra - el,
                               "\nthe logs start %s before the crash: the rest of that period "
                               "is not in them", d);
    } else if (ufrom > from - (to - from)) {
        sat_fmt_duration(d, sizeof d, (double)(from - ufrom) / 1e9);
        el += (size_t)snprintf(extra + el, sizeof extra - el,
                               "\nonly %s of log before that: the usual is scaled up from them",
                               d);
    }
    if (ops && usual > 0 && (double)ops > 2 * usual)
        el += (size_t)snprintf(extra + el, sizeof extra - el, "\nthe load was %.1fx the usual",
                               (double)ops / usual);
    int64_t storm;
    if (num(c, "before.storm", &storm)) {
        char a[64], b[64];
        clock_of(a, sizeof a, num_or(c, "before.storm_start_ts", 0));
        clock_of(b, sizeof b, num_or(c, "before.storm_end_ts", 0));
        uint64_t nf = (uint64_t)num_or(c, "before.storm_failures", 0);
        snprintf(extra + el, sizeof extra - el,
                 "\nin storm %lld of client failures (%s .. %s, %" PRIu64 " %s%s)",
                 (long long)storm, a, b, nf, sat_plural(nf, "failure", "failures"),
                 num_or(c, "before.storm_sustained", 0) ? ", sustained past its trigger" : "");
    } else {
        snprintf(extra + el, sizeof extra - el, "\nno storm of client failures around it");
    }
    uint64_t errs = (uint64_t)num_or(c, "before.errors", 0),
             opens = (uint64_t)num_or(c, "before.conn_opens", 0);
    field(t, "before it",
          "%s from %s to the crash: %" PRIu64 " %s (%s), %" PRIu64 " %s, %" PRIu64
          " %s opened%s%s",
          span, fromc, ops, sat_plural(ops, "operation", "operations"), u, errs,
          sat_plural(errs, "error", "errors"), opens,
          sat_plural(opens, "connection", "connections"), hs, extra);
}

/* "a|b|c" as "a | b | c", so that it wraps */
static void spaced(char *b, size_t n, const char *sig)
{
    size_t o = 0;
    for (const char *p = sig; p && *p && o + 4 < n; p++) {
        if (*p == '|') {
            memcpy(b + o, " | ", 3);
            o += 3;
        } else {
            b[o++] = *p;
        }
    }
    b[o] = '\0';
}

static const sat_rnode *group_row(const sat_rnode *groups, int64_t g)
{
    int64_t i = 1;
    for (const sat_rnode *r = sat_rnode_first(groups); r; r = sat_rnode_next(r), i++)
        if (i == g)
            return r;
    return NULL;
}

static int render_crash(sat_text *t, const sat_rnode *root, const sat_rnode *c, size_t i)
{
    char ts[64] = "time unknown", sig[96];
    int64_t x, pid = num_or(c, "pid", -1), spid = num_or(c, "sender.pid", 0);
    if (num(c, "ts", &x))
        sat_fmt_ts(ts, sizeof ts, x);
    fmt_signal(sig, sizeof sig, c, "signal");
    const char *exe = txt(c, "executable") ? txt(c, "executable")
                    : txt(c, "command")    ? txt(c, "command")
                                           : "?";
    const char *base = strrchr(exe, '/');
    char pids[32] = "", sent[64] = "";
    if (pid != -1)
        snprintf(pids, sizeof pids, " (pid %lld)", (long long)pid);
    int self = num_or(c, "sender.self", 0) != 0;
    if (spid > 0 && !self)
        snprintf(sent, sizeof sent, " sent by pid %lld", (long long)spid);
    char title[512];
    snprintf(title, sizeof title, "CRASH %zu  %s  %s%s  %s%s", i + 1, ts, base ? base + 1 : exe,
             pids, sig, sent);
    if (t->width && strlen(title) > t->width) /* the "sent by" line below says it too */
        snprintf(title, sizeof title, "CRASH %zu  %s  %s%s  %s", i + 1, ts,
                 base ? base + 1 : exe, pids, sig);
    sat_text_title(t, "%s", title);
    /* what happened: sent, or the fault */
    int64_t si;
    int have_si = num(c, "si_code", &si);
    const char *cn = txt(c, "si_code_name"), *fault = txt(c, "fault_addr");
    char code[32];
    snprintf(code, sizeof code, "si_code %lld", (long long)si);
    if (spid > 0) {
        if (self)
            field(t, "sent by", "the process itself (pid %lld) with %s (%s): raise(), abort() or "
                                "pthread_kill()",
                  (long long)spid, sent_with(si), cn ? cn : code);
        else
            field(t, "sent by", "pid %lld (uid %lld) with %s (%s): another process sent the "
                                "signal; the stack shows where the process was when it came, not "
                                "a fault of its own",
                  (long long)spid, (long long)num_or(c, "sender.uid", -1), sent_with(si),
                  cn ? cn : code);
    } else if (have_si || fault) {
        char at[64] = "";
        if (fault)
            snprintf(at, sizeof at, "%sat address %s", have_si ? " " : "", fault);
        field(t, "fault", "%s%s", have_si ? (cn ? cn : code) : "", at);
    }
    if (txt(c, "first_fault.signal_name") || num(c, "first_fault.signal", &x)) {
        char os[96], at[64] = "";
        fmt_signal(os, sizeof os, c, "first_fault.signal");
        if (txt(c, "first_fault.fault_addr"))
            snprintf(at, sizeof at, " at address %s", txt(c, "first_fault.fault_addr"));
        field(t, "first fault", "%s%s: a signal handler caught it, then the process died of %s",
              os, at, txt(c, "signal_name") ? txt(c, "signal_name") : "another signal");
    }
    /* the crashing thread's frames, then the others */
    const sat_rnode *frames = sat_rnode_get(c, "frames");
    int rc = SAT_OK;
    int64_t ctid;
    int have_ctid = num(c, "crashing_tid", &ctid);
    if (frames && sat_rnode_count(frames)) {
        sat_text_line(t, "  crashing thread%s:", have_ctid ? "" : " (first)");
        rc = print_frames(t, frames, "    ");
    } else {
        sat_text_line(t, "  no frames%s",
                      num_or(c, "exe_not_found", 0) ? " (the executable was not found)" : "");
    }
    const sat_rnode *stacks = sat_rnode_get(c, "threads_detail");
    int others = 0;
    for (const sat_rnode *s = sat_rnode_first(stacks); s; s = sat_rnode_next(s)) {
        if (num_or(s, "crashing", 0))
            continue;
        if (!others++)
            sat_text_line(t, "  other threads, grouped by identical stacks:");
        char sum[512];
        stack_summary(sum, sizeof sum, sat_rnode_get(s, "frames"));
        const sat_rnode *tids = sat_rnode_get(s, "tids");
        uint64_t n = (uint64_t)num_or(s, "count", 0);
        if (n > 1) {
            char cnt[32];
            snprintf(cnt, sizeof cnt, "x%" PRIu64, n);
            sat_text_line(t, "    %-5s %s", cnt, sum);
        } else {
            const sat_value *tv = sat_rnode_first(tids) ? sat_rnode_value(sat_rnode_first(tids))
                                                        : NULL;
            sat_text_line(t, "    %-5lld %s", tv ? (long long)tv->v.i : -1LL, sum);
        }
    }
    print_context(t, root, c);
    /* the facts */
    const char *origin = txt(c, "origin");
    int core = origin && !strcmp(origin, "core");
    if (core)
        field(t, "from", "%s (%s, written by %s)", origin_of(origin, origin_label),
              txt(c, "arch") ? txt(c, "arch") : "?",
              txt(c, "core_writer") && !strcmp(txt(c, "core_writer"), "gdb") ? "gdb"
                                                                            : "the kernel");
    else
        field(t, "from", "%s", origin_of(origin, origin_label));
    if (txt(c, "executable"))
        field(t, "executable", "%s%s%s", txt(c, "executable"),
              txt(c, "build_id") ? "  build-id " : "", txt(c, "build_id") ? txt(c, "build_id") : "");
    if (txt(c, "command"))
        field(t, "command", "%s", txt(c, "command"));
    if (txt(c, "host"))
        field(t, "host", "%s", txt(c, "host"));
    const char *tw = time_words(txt(c, "time_source"), core);
    if (tw)
        field(t, "time from", "%s", tw);
    if (txt(c, "time_warning"))
        field(t, "WARNING", "%s", txt(c, "time_warning"));
    int64_t nth = num_or(c, "threads", 0);
    char ct[48] = "";
    if (have_ctid)
        snprintf(ct, sizeof ct, "; crashing thread %lld", (long long)ctid);
    field(t, "threads", "%lld%s", (long long)nth, ct);
    char sp[2048];
    spaced(sp, sizeof sp, txt(c, "signature") ? txt(c, "signature") : "-");
    field(t, "fingerprint", "%s  %s", txt(c, "fingerprint") ? txt(c, "fingerprint") : "-", sp);
    int64_t g = num_or(c, "group", 0);
    const sat_rnode *G = group_row(sat_rnode_get(root, "groups"), g);
    uint64_t gn = (uint64_t)num_or(G, "count", 0);
    if (gn > 1)
        field(t, "", "the same crash as %" PRIu64 " %s here (group %lld)", gn - 1,
              sat_plural(gn - 1, "other", "others"), (long long)g);
    if (num_or(c, "truncated", 0))
        field(t, "TRUNCATED", "the core ends early: the facts above are what it holds");
    if (txt(c, "missing"))
        field(t, "missing", "%s", txt(c, "missing"));
    if (num_or(c, "unwind_cut", 0))
        field(t, "note", "the crashing thread's unwind stopped early");
    return rc;
}

static int render(sat_result *r, sat_text *t)
{
    const sat_rnode *root = sat_result_root(r);
    const sat_rnode *crashes = sat_rnode_get(root, "crashes");
    const sat_rnode *groups = sat_rnode_get(root, "groups");
    uint64_t n = sat_rnode_count(crashes), ng = sat_rnode_count(groups);
    char by[256] = "";
    size_t bl = 0;
    const sat_rnode *origins = sat_rnode_get(root, "origins");
    for (size_t o = 0; o < sizeof origin_keys / sizeof origin_keys[0]; o++) {
        int64_t k = obj_num(origins, origin_keys[o]);
        if (k)
            bl += (size_t)snprintf(by + bl, sizeof by - bl, "%s%s: %lld", bl ? ", " : " (",
                                   origin_short[o], (long long)k);
    }
    sat_text_line(t, "satscope crashes: %" PRIu64 " %s in %" PRIu64 " %s%s%s", n,
                  sat_plural(n, "crash", "crashes"), ng, sat_plural(ng, "group", "groups"), by,
                  bl ? ")" : "");
    uint64_t k;
    if ((k = (uint64_t)obj_num(root, "not_detailed")))
        sat_text_line(t, "  (%" PRIu64 " more %s past the 10000 kept in detail were not listed)",
                      k, sat_plural(k, "crash", "crashes"));
    if ((k = (uint64_t)obj_num(root, "orphan_frames")))
        sat_text_line(t, "  (%" PRIu64 " %s belonged to no crash row: a cut trace?)", k,
                      sat_plural(k, "frame", "frames"));
    if ((k = (uint64_t)obj_num(root, "frames_not_kept")))
        sat_text_line(t, "  (%" PRIu64 " %s past the deepest kept per thread were left out)", k,
                      sat_plural(k, "frame", "frames"));
    if ((k = (uint64_t)obj_num(root, "load_rows_not_counted")))
        sat_text_line(t, "  (%" PRIu64 " operations, connections or handshakes past the "
                         "analyzer's bound were not counted: the load before each crash is "
                         "partial)", k);
    if ((k = (uint64_t)obj_num(root, "log_lines_matched")))
        sat_text_line(t, "  (%" PRIu64 " crash %s in the logs (a kernel or systemd-coredump line, "
                         "a backtrace) about a process of another crash here: listed with it)",
                      k, sat_plural(k, "report", "reports"));
    if (!n) {
        sat_text_title(t, "No crash: no core file and no backtrace in the inputs.");
        return SAT_OK;
    }
    size_t i = 0;
    for (const sat_rnode *c = sat_rnode_first(crashes); c; c = sat_rnode_next(c), i++) {
        int rc = render_crash(t, root, c, i);
        if (rc < 0)
            return rc;
    }
    sat_text_title(t, "GROUPS (by fingerprint: the same top frames, module-relative; and crashes "
                      "of");
    sat_text_line(t, "one build at the same offsets, named or not)");
    if (t->width == 0) { /* --wide: the frames in the table */
        sat_text_table(t, groups, "group,count,first_ts,last_ts,fingerprint,signature", 0, "  ");
        return SAT_OK;
    }
    /* in 100 columns the frames go under the table, wrapped, one group each */
    sat_text_table(t, groups, "group,count,first_ts,last_ts,fingerprint,builds", 0, "  ");
    for (const sat_rnode *g = sat_rnode_first(groups); g; g = sat_rnode_next(g)) {
        char sp[2048], label[32];
        spaced(sp, sizeof sp, txt(g, "signature") ? txt(g, "signature") : "?");
        snprintf(label, sizeof label, "group %lld", (long long)num_or(g, "group", 0));
        field(t, label, "%s", sp);
    }
    return SAT_OK;
}

static const char *const csv_tables[] = {"crashes", "groups", NULL};
const sat_text_report sat_text_crashes = {"crashes", render, csv_tables};
