/*
 * section_crashes.c - the sections of the crashes analyzer's result
 * (analyze/crashes_result.c), read at 3 a.m.: per crash (a section "crash-N")
 * first what happened (the signal, the process, how it came), the crashing
 * thread's frames, the other threads grouped by identical stacks, then the
 * load and the storms in the minute before it and the facts of where it was
 * read from; then the groups of crashes by fingerprint. `satscope crashes`
 * prints them; a report embeds those it names. A frame's function and source
 * line are kept whole (their tables wrap rather than cut: sat_doc_wrap).
 */
#include <inttypes.h>
#include <string.h>

#include "satscope/signals.h"
#include "sections.h"

/* The result's origins (the keys of its "origins" object), in words. */
static const char *const origin_keys[] = {"core", "text_ceph", "text_glibc", "text_gdb",
                                          "text_kernel"};
static const char *const origin_label[] = {
    "core file", "Ceph-style backtrace in a log", "glibc backtrace in a log",
    "gdb backtrace in a log", "kernel or systemd-coredump log line"};
static const char *const origin_short[] = {"core files", "Ceph-style text", "glibc backtraces",
                                           "gdb backtraces", "kernel log lines"};
#define NORIGINS (sizeof origin_keys / sizeof origin_keys[0])

static const char *origin_of(const char *key, const char *const *words)
{
    for (size_t i = 0; key && i < NORIGINS; i++)
        if (!strcmp(key, origin_keys[i]))
            return words[i];
    return "?";
}

static void lead(const sec_ctx *c, const sat_rnode *root, char *buf, size_t n)
{
    (void)c;
    uint64_t nc = sat_rnode_count(sat_get_table(root, "crashes")),
             ng = sat_rnode_count(sat_get_table(root, "groups"));
    char by[256] = "";
    size_t bl = 0;
    const sat_rnode *origins = sat_get_obj(root, "origins");
    for (size_t o = 0; o < NORIGINS; o++) {
        uint64_t k = sat_get_count(origins, origin_keys[o], 0);
        if (k && bl < sizeof by)
            bl += (size_t)snprintf(by + bl, sizeof by - bl, "%s%s: %" PRIu64, bl ? ", " : " (",
                                   origin_short[o], k);
    }
    snprintf(buf, n, "%" PRIu64 " %s in %" PRIu64 " %s%s%s", nc, sat_plural(nc, "crash", "crashes"),
             ng, sat_plural(ng, "group", "groups"), by, bl ? ")" : "");
}

/* What the analyzer read but could not list: in parentheses, under the lead. */
static void not_listed(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    uint64_t k;
    if (!sat_get_count(root, "not_detailed", 0) && !sat_get_count(root, "orphan_frames", 0) &&
        !sat_get_count(root, "frames_not_kept", 0) &&
        !sat_get_count(root, "load_rows_not_counted", 0) &&
        !sat_get_count(root, "log_lines_matched", 0))
        return;
    sat_rnode *s = sec_section(c, parent, "not-listed", NULL);
    if ((k = sat_get_count(root, "not_detailed", 0)))
        sat_doc_para(s, "(%" PRIu64 " more %s past the 10000 kept in detail were not listed)", k,
                     sat_plural(k, "crash", "crashes"));
    if ((k = sat_get_count(root, "orphan_frames", 0)))
        sat_doc_para(s, "(%" PRIu64 " %s belonged to no crash row: a cut trace?)", k,
                     sat_plural(k, "frame", "frames"));
    if ((k = sat_get_count(root, "frames_not_kept", 0)))
        sat_doc_para(s, "(%" PRIu64 " %s past the deepest kept per thread were left out)", k,
                     sat_plural(k, "frame", "frames"));
    if ((k = sat_get_count(root, "load_rows_not_counted", 0)))
        sat_doc_para(s, "(%" PRIu64 " operations, connections or handshakes past the analyzer's "
                        "bound were not counted: the load before each crash is partial)",
                     k);
    if ((k = sat_get_count(root, "log_lines_matched", 0)))
        sat_doc_para(s, "(%" PRIu64 " crash %s in the logs (a kernel or systemd-coredump line, a "
                        "backtrace) about a process of another crash here: listed with it)",
                     k, sat_plural(k, "report", "reports"));
}

/* "SIGSEGV (Segmentation fault)", "signal 77", "unknown signal" */
static void signal_words(char *b, size_t n, const sat_rnode *row, const char *key)
{
    int64_t sig = sat_get_int(row, key, -1);
    const char *name = sig >= 0 ? sat_signal_name((int)sig) : NULL;
    if (sig < 0)
        snprintf(b, n, "unknown signal");
    else if (name)
        snprintf(b, n, "%s (%s)", name, sat_signal_desc((int)sig));
    else
        snprintf(b, n, "signal %" PRId64, sig);
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

/* A time of day on the context's clock ("14:23:10Z", "14:23:10"): the
 * crash's title has the date. */
static void time_of_day(const sec_ctx *c, char *b, size_t n, int64_t ts)
{
    char full[64];
    sec_time(c, full, sizeof full, ts);
    const char *t = strchr(full, 'T');
    snprintf(b, n, "%s", t ? t + 1 : full);
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

/* The title: "CRASH 1  <time>  <program> (pid P)  SIGNAL (words)", and who
 * sent it when that fits in a line (the block says it too). */
static void crash_title(const sec_ctx *c, char *b, size_t n, const sat_rnode *row, size_t i)
{
    char ts[64] = "time unknown", sig[96], pid[32] = "", sent[64] = "";
    if (sat_get_time(row, "ts", 0))
        sec_time(c, ts, sizeof ts, sat_get_time(row, "ts", 0));
    signal_words(sig, sizeof sig, row, "signal");
    const char *exe = sat_get_text(row, "executable", sat_get_text(row, "command", "?"));
    const char *base = strrchr(exe, '/');
    if (sat_get_has(row, "pid"))
        snprintf(pid, sizeof pid, " (pid %" PRId64 ")", sat_get_int(row, "pid", 0));
    int64_t spid = sat_get_int(row, "sender.pid", 0);
    if (spid > 0 && sat_get_bool(row, "sender.self", 0) != 1)
        snprintf(sent, sizeof sent, " sent by pid %" PRId64, spid);
    snprintf(b, n, "CRASH %zu  %s  %s%s  %s%s", i + 1, ts, base ? base + 1 : exe, pid, sig, sent);
    if (strlen(b) > SAT_TEXT_WIDTH)
        snprintf(b, n, "CRASH %zu  %s  %s%s  %s", i + 1, ts, base ? base + 1 : exe, pid, sig);
}

/* What happened: who sent the signal, or the fault; the first fault that a
 * handler caught. */
static void what_happened(sat_rnode *v, const sat_rnode *row)
{
    int64_t spid = sat_get_int(row, "sender.pid", 0), si = sat_get_int(row, "si_code", 0);
    int have_si = sat_get_has(row, "si_code");
    const char *cn = sat_get_text(row, "si_code_name", NULL),
               *fault = sat_get_text(row, "fault_addr", NULL);
    char code[48], text[512];
    snprintf(code, sizeof code, "si_code %" PRId64, si);
    if (spid > 0) {
        if (sat_get_bool(row, "sender.self", 0) == 1)
            snprintf(text, sizeof text,
                     "the process itself (pid %" PRId64 ") with %s (%s): raise(), abort() or "
                     "pthread_kill()",
                     spid, sent_with(si), cn ? cn : code);
        else
            snprintf(text, sizeof text,
                     "pid %" PRId64 " (uid %" PRId64 ") with %s (%s): another process sent the "
                     "signal; the stack shows where the process was when it came, not a fault "
                     "of its own",
                     spid, sat_get_int(row, "sender.uid", -1), sent_with(si), cn ? cn : code);
        sat_put_text(v, "sent_by", text);
        sat_put_label(v, "sent by");
    } else if (have_si || fault) {
        snprintf(text, sizeof text, "%s%s%s%s", have_si ? (cn ? cn : code) : "",
                 fault && have_si ? " " : "", fault ? "at address " : "", fault ? fault : "");
        sat_put_text(v, "fault", text);
    }
    if (sat_get_text(row, "first_fault.signal_name", NULL) ||
        sat_get_has(row, "first_fault.signal")) {
        char first[96], at[64] = "";
        signal_words(first, sizeof first, row, "first_fault.signal");
        if (sat_get_text(row, "first_fault.fault_addr", NULL))
            snprintf(at, sizeof at, " at address %s",
                     sat_get_text(row, "first_fault.fault_addr", NULL));
        snprintf(text, sizeof text, "%s%s: a signal handler caught it, then the process died of %s",
                 first, at, sat_get_text(row, "signal_name", "another signal"));
        sat_put_text(v, "handler_fault", text);
        sat_put_label(v, "first fault");
    }
}

/* A frame's function as a reader looks for it: "raise+0x10", "<signal
 * handler called>", "(+0x114d)" (no name: the offset in its module), "??". */
static void frame_function(char *b, size_t n, const sat_rnode *f)
{
    const char *fn = sat_get_text(f, "function", NULL), *off = sat_get_text(f, "offset", NULL);
    int64_t fo = sat_get_int(f, "fn_offset", 0);
    if (sat_get_bool(f, "signal_frame", 0) == 1)
        snprintf(b, n, "<signal handler called>");
    else if (fn && fo > 0)
        snprintf(b, n, "%s+0x%" PRIx64, fn, (uint64_t)fo);
    else if (fn)
        snprintf(b, n, "%s", fn);
    else if (off)
        snprintf(b, n, "(+%s)", off);
    else
        snprintf(b, n, "??");
}

/* The crashing thread's frames, innermost first: "#", module, function,
 * file:line when any frame has one (the pc is the JSON's). */
static void frames_table(sat_rnode *s, const sat_rnode *frames, int first_thread)
{
    static const sat_col cols[] = {{"depth", SAT_UNIT_INT, 0, "#"},
                                   {"module", SAT_UNIT_TEXT, 0, NULL},
                                   {"function", SAT_UNIT_TEXT, 0, NULL},
                                   {"source", SAT_UNIT_TEXT, 0, NULL}};
    size_t ncols = 3;
    for (const sat_rnode *f = sat_rnode_first(frames); f && ncols == 3; f = sat_rnode_next(f))
        if (sat_get_text(f, "file", NULL))
            ncols = 4;
    sat_rnode *t = sat_doc_new_table(s, first_thread ? "crashing thread (first)" : "crashing thread",
                                     NULL, cols, ncols);
    char fn[4096], src[4096]; /* a C++ name whole */
    for (const sat_rnode *f = sat_rnode_first(frames); f && t; f = sat_rnode_next(f)) {
        sat_rnode *row = sat_table_row(t);
        sat_put_int(row, "depth", sat_get_int(f, "depth", 0));
        sat_put_text(row, "module", sat_get_text(f, "module", NULL));
        frame_function(fn, sizeof fn, f);
        sat_put_text(row, "function", fn);
        const char *file = sat_get_text(f, "file", NULL);
        if (file && sat_get_has(f, "line"))
            snprintf(src, sizeof src, "%s:%" PRId64, file, sat_get_int(f, "line", 0));
        else
            snprintf(src, sizeof src, "%s", file ? file : "");
        if (ncols == 4)
            sat_put_text(row, "source", src[0] ? src : NULL);
    }
    sat_doc_wrap(s);
}

/* "pthread_cond_wait < connection_wait < ..." (the top 4 frames) */
static void stack_summary(char *b, size_t n, const sat_rnode *frames)
{
    size_t len = 0, i = 0;
    b[0] = '\0';
    for (const sat_rnode *f = sat_rnode_first(frames); f && i < 4 && len + 1 < n;
         f = sat_rnode_next(f), i++) {
        const char *fn = sat_get_text(f, "function", NULL), *mod = sat_get_text(f, "module", NULL),
                   *off = sat_get_text(f, "offset", NULL);
        int k = fn    ? snprintf(b + len, n - len, "%s%s", i ? " < " : "", fn)
              : off ? snprintf(b + len, n - len, "%s%s+%s", i ? " < " : "", mod ? mod : "-", off)
                    : snprintf(b + len, n - len, "%s??", i ? " < " : "");
        if (k < 0)
            break;
        len += (size_t)k < n - len ? (size_t)k : n - len - 1;
    }
    if (sat_rnode_count(frames) > 4 && len + 6 < n)
        snprintf(b + len, n - len, " < ...");
}

/* The other threads, one line per stack shared: how many, the thread when
 * alone, the top of the stack. */
static void other_threads(sat_rnode *s, const sat_rnode *stacks)
{
    static const sat_col cols[] = {{"count", SAT_UNIT_COUNT, 0, "threads"},
                                   {"tid", SAT_UNIT_INT, 0, NULL},
                                   {"stack", SAT_UNIT_TEXT, 0, "top of the stack"}};
    sat_rnode *t = NULL;
    char sum[4096];
    for (const sat_rnode *st = sat_rnode_first(stacks); st; st = sat_rnode_next(st)) {
        if (sat_get_bool(st, "crashing", 0) == 1)
            continue;
        if (!t)
            t = sat_doc_new_table(s, "other threads, grouped by identical stacks", NULL, cols,
                                  sizeof cols / sizeof cols[0]);
        uint64_t n = sat_get_count(st, "count", 0);
        sat_rnode *row = sat_table_row(t);
        sat_put_count(row, "count", n);
        if (n == 1)
            sat_put_int(row, "tid", sat_get_int(sat_rnode_first(sat_get_list(st, "tids")), NULL, -1));
        else
            sat_put_absent(row, "tid", SAT_UNIT_INT);
        stack_summary(sum, sizeof sum, sat_get_table(st, "frames"));
        sat_put_text(row, "stack", sum);
    }
    if (t)
        sat_doc_wrap(s);
}

/* The load and the storms in the minute before the crash, in words. */
static void load_before(const sec_ctx *c, sat_rnode *v, const sat_rnode *root,
                        const sat_rnode *row)
{
    int64_t load_first = sat_get_time(root, "load_first_ts", 0), ts = sat_get_time(row, "ts", 0);
    char text[2048];
    if (!load_first)
        return; /* no load rows were read */
    if (!ts) {
        snprintf(text, sizeof text, "unknown: the crash has no time");
    } else if (sat_get_bool(row, "before.covered", 0) != 1) {
        snprintf(text, sizeof text, "no operation, connection or handshake in the minute before\n"
                                    "(the other inputs do not cover it)");
    } else {
        int64_t from = sat_get_time(row, "before.from_ts", 0), to = sat_get_time(row, "before.to_ts", 0);
        int64_t ufrom = sat_get_time(row, "before.usual_from_ts", 0);
        uint64_t ops = sat_get_count(row, "before.operations", 0);
        double usual = sat_get_num(row, "before.usual_operations", NAN);
        char span[64], fromc[64], u[192], hs[256] = "", extra[512] = "", d[64];
        sat_fmt_duration(span, sizeof span, (double)(to - from) / 1e9);
        time_of_day(c, fromc, sizeof fromc, from);
        if (!isnan(usual)) {
            char un[64];
            sat_fmt_fixed(un, sizeof un, usual, 1);
            snprintf(u, sizeof u, "usual %s: the %s before", un, span);
        } else {
            snprintf(u, sizeof u, "usual unknown: too little log before it");
        }
        /* handshakes where a capture ran; outside it they are not known */
        const char *cover = sat_get_text(row, "before.capture", NULL);
        uint64_t nhs = sat_get_count(row, "before.handshakes", 0);
        char ca[64], cb[64];
        sec_fmt(c, ca, sizeof ca, root, "capture_first_ts");
        sec_fmt(c, cb, sizeof cb, root, "capture_last_ts");
        if (cover && !strcmp(cover, "not covered"))
            snprintf(hs, sizeof hs,
                     ", TLS handshakes not covered by the capture (capture spans %s .. %s)", ca, cb);
        else if (cover && !strcmp(cover, "partly covered"))
            snprintf(hs, sizeof hs,
                     ", %" PRIu64 " TLS handshakes (%" PRIu64 " full) in the part the capture "
                     "covers (capture spans %s .. %s)",
                     nhs, sat_get_count(row, "before.full_handshakes", 0), ca, cb);
        else if (cover)
            snprintf(hs, sizeof hs, ", %" PRIu64 " TLS handshakes (%" PRIu64 " full)", nhs,
                     sat_get_count(row, "before.full_handshakes", 0));
        size_t el = 0;
        if (load_first > from) {
            sat_fmt_duration(d, sizeof d, (double)(to - load_first) / 1e9);
            el += (size_t)snprintf(extra + el, sizeof extra - el,
                                   "\nthe logs start %s before the crash: the rest of that "
                                   "period is not in them",
                                   d);
        } else if (ufrom > from - (to - from)) {
            sat_fmt_duration(d, sizeof d, (double)(from - ufrom) / 1e9);
            el += (size_t)snprintf(extra + el, sizeof extra - el,
                                   "\nonly %s of log before that: the usual is scaled up from them",
                                   d);
        }
        if (ops && usual > 0 && (double)ops > 2 * usual)
            el += (size_t)snprintf(extra + el, sizeof extra - el, "\nthe load was %.1fx the usual",
                                   (double)ops / usual);
        if (sat_get_has(row, "before.storm")) {
            char a[64], b[64];
            time_of_day(c, a, sizeof a, sat_get_time(row, "before.storm_start_ts", 0));
            time_of_day(c, b, sizeof b, sat_get_time(row, "before.storm_end_ts", 0));
            uint64_t nf = sat_get_count(row, "before.storm_failures", 0);
            snprintf(extra + el, sizeof extra - el,
                     "\nin storm %" PRId64 " of client failures (%s .. %s, %" PRIu64 " %s%s)",
                     sat_get_int(row, "before.storm", 0), a, b, nf,
                     sat_plural(nf, "failure", "failures"),
                     sat_get_bool(row, "before.storm_sustained", 0) == 1
                         ? ", sustained past its trigger"
                         : "");
        } else {
            snprintf(extra + el, sizeof extra - el, "\nno storm of client failures around it");
        }
        uint64_t errs = sat_get_count(row, "before.errors", 0),
                 opens = sat_get_count(row, "before.conn_opens", 0);
        snprintf(text, sizeof text,
                 "%s from %s to the crash: %" PRIu64 " %s (%s), %" PRIu64 " %s, %" PRIu64
                 " %s opened%s%s",
                 span, fromc, ops, sat_plural(ops, "operation", "operations"), u, errs,
                 sat_plural(errs, "error", "errors"), opens,
                 sat_plural(opens, "connection", "connections"), hs, extra);
    }
    sat_put_text(v, "load_before", text);
    sat_put_label(v, "before it");
}

static const sat_rnode *group_row(const sat_rnode *groups, uint64_t g)
{
    uint64_t i = 1;
    for (const sat_rnode *r = sat_rnode_first(groups); r; r = sat_rnode_next(r), i++)
        if (i == g)
            return r;
    return NULL;
}

/* The facts: where it was read from, the program, where its time came
 * from, its threads, its fingerprint and group, what the core lacks. */
static void facts(sat_rnode *v, const sat_rnode *root, const sat_rnode *row)
{
    char text[4096];
    const char *origin = sat_get_text(row, "origin", NULL);
    int core = origin && !strcmp(origin, "core");
    const char *writer = sat_get_text(row, "core_writer", NULL);
    if (core)
        snprintf(text, sizeof text, "%s (%s, written by %s)", origin_of(origin, origin_label),
                 sat_get_text(row, "arch", "?"),
                 writer && !strcmp(writer, "gdb") ? "gdb" : "the kernel");
    else
        snprintf(text, sizeof text, "%s", origin_of(origin, origin_label));
    sat_put_text(v, "read_from", text);
    sat_put_label(v, "from");
    const char *exe = sat_get_text(row, "executable", NULL), *bid = sat_get_text(row, "build_id", NULL);
    if (exe) {
        snprintf(text, sizeof text, "%s%s%s", exe, bid ? "  build-id " : "", bid ? bid : "");
        sat_put_text(v, "executable", text);
    }
    if (sat_get_text(row, "command", NULL))
        sat_put_text(v, "command", sat_get_text(row, "command", NULL));
    if (sat_get_text(row, "host", NULL))
        sat_put_text(v, "host", sat_get_text(row, "host", NULL));
    const char *tw = time_words(sat_get_text(row, "time_source", NULL), core);
    if (tw) {
        sat_put_text(v, "time_from", tw);
        sat_put_label(v, "time from");
    }
    if (sat_get_text(row, "time_warning", NULL)) {
        sat_put_text(v, "time_warning", sat_get_text(row, "time_warning", NULL));
        sat_put_label(v, "WARNING");
    }
    char ct[64] = "";
    if (sat_get_has(row, "crashing_tid"))
        snprintf(ct, sizeof ct, "; crashing thread %" PRId64, sat_get_int(row, "crashing_tid", 0));
    snprintf(text, sizeof text, "%" PRId64 "%s", sat_get_int(row, "threads", 0), ct);
    sat_put_text(v, "thread_count", text);
    sat_put_label(v, "threads");
    char sig[3900];
    spaced(sig, sizeof sig, sat_get_text(row, "signature", "-"));
    snprintf(text, sizeof text, "%s  %s", sat_get_text(row, "fingerprint", "-"), sig);
    sat_put_text(v, "fingerprint", text);
    uint64_t g = sat_get_count(row, "group", 0);
    uint64_t gn = sat_get_count(group_row(sat_get_table(root, "groups"), g), "count", 0);
    if (gn > 1) {
        snprintf(text, sizeof text, "the same crash as %" PRIu64 " %s here (group %" PRIu64 ")",
                 gn - 1, sat_plural(gn - 1, "other", "others"), g);
        sat_put_text(v, "same_crash", text);
        sat_put_label(v, "");
    }
    if (sat_get_bool(row, "truncated", 0) == 1) {
        sat_put_text(v, "core_truncated", "the core ends early: the facts above are what it holds");
        sat_put_label(v, "TRUNCATED");
    }
    if (sat_get_text(row, "missing", NULL))
        sat_put_text(v, "missing", sat_get_text(row, "missing", NULL));
    if (sat_get_bool(row, "unwind_cut", 0) == 1) {
        sat_put_text(v, "unwind_note", "the crashing thread's unwind stopped early");
        sat_put_label(v, "note");
    }
}

static void crash(const sec_ctx *c, const sat_rnode *root, const sat_rnode *row, size_t i,
                  sat_rnode *parent)
{
    char id[32], title[512];
    snprintf(id, sizeof id, "crash-%zu", i + 1);
    crash_title(c, title, sizeof title, row, i);
    sat_rnode *s = sec_section(c, parent, id, "%s", title);
    if (!s)
        return;
    what_happened(sat_doc_values(s), row);
    const sat_rnode *frames = sat_get_table(row, "frames");
    if (sat_rnode_first(frames))
        frames_table(s, frames, !sat_get_has(row, "crashing_tid"));
    other_threads(s, sat_get_table(row, "threads_detail"));
    /* after the tables, in their place: untitled groups */
    if (!sat_rnode_first(frames))
        sat_doc_para(sec_section(c, s, "no-frames", NULL), "no frames%s",
                     sat_get_bool(row, "exe_not_found", 0) == 1
                         ? " (the executable was not found)"
                         : "");
    sat_rnode *v = sat_doc_values(sec_section(c, s, "facts", NULL));
    load_before(c, v, root, row);
    facts(v, root, row);
}

/* The groups: the table, then each group's frames (its signature). */
static void groups(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    static const sat_col sig_cols[] = {{"group", SAT_UNIT_COUNT, 0, NULL},
                                       {"signature", SAT_UNIT_TEXT, 0, "frames"}};
    const sat_rnode *g = sat_get_table(root, "groups");
    sat_rnode *s = sec_section(c, parent, "groups", "GROUPS by fingerprint");
    sat_doc_para(s, "The same top frames (module-relative) make a group, and so do crashes of one "
                    "build at the same offsets, named or not.");
    sat_doc_table(s, NULL, NULL, g, "group,count,first_ts,last_ts,fingerprint,builds", 0, NULL,
                  NULL);
    sat_rnode *t = sat_doc_new_table(s, NULL, NULL, sig_cols, sizeof sig_cols / sizeof sig_cols[0]);
    char sig[4096];
    for (const sat_rnode *r = sat_rnode_first(g); r && t; r = sat_rnode_next(r)) {
        sat_rnode *row = sat_table_row(t);
        sat_put_count(row, "group", sat_get_count(r, "group", 0));
        spaced(sig, sizeof sig, sat_get_text(r, "signature", "?"));
        sat_put_text(row, "signature", sig);
    }
    sat_doc_wrap(s);
}

static void build(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    not_listed(c, root, parent);
    const sat_rnode *crashes = sat_get_table(root, "crashes");
    if (!sat_rnode_first(crashes)) {
        sec_section(c, parent, "none", "No crash: no core file and no backtrace in the inputs.");
        return;
    }
    size_t i = 0;
    for (const sat_rnode *r = sat_rnode_first(crashes); r; r = sat_rnode_next(r), i++)
        crash(c, root, r, i, parent);
    groups(c, root, parent);
}

static const char *const csv_tables[] = {"crashes", "groups", NULL};

const sec_builder sec_crashes = {"crashes", lead, build, csv_tables};
