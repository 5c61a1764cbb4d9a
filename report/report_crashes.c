/*
 * report_crashes.c - the `satscope crashes` report (issue 5): per crash the
 * signal, the process, the crashing thread's frames and the other threads
 * grouped by identical stacks, its fingerprint, and what the server was
 * doing in the minute before; then the groups of crashes by fingerprint.
 * Text for a person, or JSON with the keys of the issue: crashes[{signal,
 * signal_name, threads, crashing_tid, fault_addr, frames[{function, module,
 * offset, pc}], threads_detail, fingerprint}].
 */
#include <inttypes.h>
#include <math.h>

#include "render.h"
#include "satscope/signals.h"
#include "text_table.h"

static const char *const origin_label[SAT_CRASH_ORIGIN__COUNT] = {
    "?", "core file", "Ceph-style backtrace in a log", "glibc backtrace in a log",
    "gdb backtrace in a log", "kernel or systemd-coredump log line"};
static const char *const origin_key[SAT_CRASH_ORIGIN__COUNT] = {
    "?", "core", "text_ceph", "text_glibc", "text_gdb", "text_kernel"};
static const char *const origin_short[SAT_CRASH_ORIGIN__COUNT] = {
    "?", "core files", "Ceph-style text", "glibc backtraces", "gdb backtraces",
    "kernel log lines"};
static const char *const arch_name[] = {"?", "x86_64", "aarch64", "i386"};

static const char *const time_key[SAT_CRASH_TIME__COUNT] = {NULL, "file_mtime", "core_name",
                                                            "log", "option"};

static const char *arch_of(int a) { return a >= 0 && a <= SAT_ARCH_I386 ? arch_name[a] : "?"; }
static const char *origin_of(int o)
{
    return o > 0 && o < SAT_CRASH_ORIGIN__COUNT ? origin_label[o] : "?";
}

/* "SIGSEGV (Segmentation fault)", "signal 77", "unknown signal" */
static void fmt_signal(char *b, size_t n, int sig)
{
    const char *name = sat_signal_name(sig), *desc = sat_signal_desc(sig);
    if (sig == SAT_ABSENT)
        snprintf(b, n, "unknown signal");
    else if (name)
        snprintf(b, n, "%s (%s)", name, desc);
    else
        snprintf(b, n, "signal %d", sig);
}

static const char *or_dash(sat_str s) { return s.ptr && s.len ? s.ptr : "-"; }

/* "#3  0x00007f12...  libc.so.6  raise+0x10  (raise.c:51)" as table cells */
static void frame_cells(const sat_frame *f, char cells[5][384])
{
    snprintf(cells[0], 384, "#%d", f->depth);
    if (f->pc != SAT_ABSENT)
        snprintf(cells[1], 384, "0x%016" PRIx64, (uint64_t)f->pc);
    else
        snprintf(cells[1], 384, "-");
    snprintf(cells[2], 384, "%s", or_dash(f->module));
    if (f->function.len && f->fn_offset > 0)
        snprintf(cells[3], 384, "%.300s+0x%" PRIx64, f->function.ptr, (uint64_t)f->fn_offset);
    else if (f->function.len)
        snprintf(cells[3], 384, "%.300s", f->function.ptr);
    else if (f->offset != SAT_ABSENT)
        snprintf(cells[3], 384, "(+0x%" PRIx64 ")", (uint64_t)f->offset);
    else
        snprintf(cells[3], 384, "??");
    if (f->flags & SAT_FRAMEF_SIGNAL)
        snprintf(cells[3], 384, "<signal handler called>");
    if (f->file.len && f->line != SAT_ABSENT)
        snprintf(cells[4], 384, "%.300s:%d", f->file.ptr, f->line);
    else if (f->file.len)
        snprintf(cells[4], 384, "%.300s", f->file.ptr);
    else
        cells[4][0] = '\0';
}

static int print_frames(FILE *out, const sat_frame *fr, size_t n, const char *indent)
{
    tbl t;
    sat_tbl_init(&t, "lllll");
    char cells[5][384];
    for (size_t i = 0; i < n; i++) {
        frame_cells(&fr[i], cells);
        const char *row[5] = {cells[0], cells[1], cells[2], cells[3], cells[4]};
        sat_tbl_row(&t, row);
    }
    int err = t.err;
    sat_tbl_print(&t, out, indent);
    return err ? SAT_E_NOMEM : SAT_OK;
}

/* "libc.so.6:pthread_cond_wait < ns-slapd:connection_wait < ..." (top 4) */
static void stack_summary(char *b, size_t n, const sat_crash_stack *s)
{
    size_t len = 0;
    b[0] = '\0';
    for (size_t i = 0; i < s->nframes && i < 4 && len + 1 < n; i++) {
        const sat_frame *f = &s->frames[i];
        int k;
        if (f->function.len)
            k = snprintf(b + len, n - len, "%s%s", i ? " < " : "", f->function.ptr);
        else if (f->offset != SAT_ABSENT)
            k = snprintf(b + len, n - len, "%s%s+0x%" PRIx64, i ? " < " : "", or_dash(f->module),
                         (uint64_t)f->offset);
        else
            k = snprintf(b + len, n - len, "%s??", i ? " < " : "");
        if (k < 0)
            break;
        len += (size_t)k < n - len ? (size_t)k : n - len - 1;
    }
    if (s->nframes > 4 && len + 6 < n)
        snprintf(b + len, n - len, " < ...");
}

/* Where the crash's time came from, in words. */
static const char *time_words(const sat_crash *r)
{
    switch (r->time_source) {
    case SAT_CRASH_TIME_MTIME:
        return "the core file's modification time (a core holds no clock; a copy or a "
               "decompression resets it: --crash-time sets it)";
    case SAT_CRASH_TIME_CORE_NAME:
        return "the core file's name (the core_pattern time field)";
    case SAT_CRASH_TIME_LOG:
        return r->origin == SAT_CRASH_CORE ? "a log line about the same process"
                                           : "the log line of the crash";
    case SAT_CRASH_TIME_OPTION:
        return "--crash-time";
    default:
        return NULL;
    }
}

/* A core dated by its file's mtime while logs of another period were given
 * beside it: the mtime is most likely that of a copy. "" if not so. */
static void mtime_warning(const sat_crashes_view *v, const sat_crash *r, sat_dur_ns context,
                          char *b, size_t n)
{
    b[0] = '\0';
    if (r->time_source != SAT_CRASH_TIME_MTIME || !v->have_load || !v->load_first_ts ||
        r->ts <= 0)
        return;
    if (r->ts >= v->load_first_ts && r->ts <= v->load_last_ts + context)
        return;
    char a[64], z[64];
    sat_report_fmt_ts(a, sizeof a, v->load_first_ts);
    sat_report_fmt_ts(z, sizeof z, v->load_last_ts);
    snprintf(b, n, "the core's mtime is outside the period of the logs and captures given "
                   "(%s .. %s): it is probably the time of a copy or a decompression, and the "
                   "load before the crash cannot be found; give --crash-time", a, z);
}

/* How the signal was sent when a process sent it (si_code <= 0). */
static const char *sent_with(int32_t si_code)
{
    switch (si_code) {
    case 0: return "kill(2)";
    case -1: return "sigqueue(3)";
    case -3: return "a message queue notification";
    case -6: return "tkill(2)/tgkill(2)";
    default: return "a system call";
    }
}

static void print_context(const sat_crashes_view *v, const sat_crash_info *c, FILE *out)
{
    const sat_crash_context *x = &c->ctx;
    if (!v->have_load)
        return;
    if (c->row.ts <= 0) {
        fprintf(out, "  before it   unknown: the crash has no time\n");
        return;
    }
    if (!x->have) {
        fprintf(out, "  before it   no operation, connection or handshake in the minute before\n"
                     "              (the other inputs do not cover it)\n");
        return;
    }
    char from[64], usual[64];
    sat_report_fmt_ts(from, sizeof from, x->from_ts);
    double secs = (double)(x->to_ts - x->from_ts) / 1e9;
    fprintf(out, "  before it   %.0f s from %s to the crash: %" PRIu64 " operations (", secs,
            from + 11, x->ops);
    if (x->usual_ops >= 0) {
        sat_report_fmt_num(usual, sizeof usual, x->usual_ops, 1);
        fprintf(out, "usual %s: the %.0f s before", usual, secs);
    } else {
        fprintf(out, "usual unknown: too little log before it");
    }
    fprintf(out, "), %" PRIu64 " errors,\n              %" PRIu64 " connections opened",
            x->errors, x->conn_opens);
    if (x->handshakes)
        fprintf(out, ", %" PRIu64 " TLS handshakes (%" PRIu64 " full)", x->handshakes, x->hs_full);
    fprintf(out, "\n");
    sat_ts_ns usual_start = x->from_ts - (x->to_ts - x->from_ts);
    if (v->load_first_ts > x->from_ts)
        fprintf(out, "              the logs start %.1f s before the crash: the rest of that "
                     "period is not in them\n",
                (double)(x->to_ts - v->load_first_ts) / 1e9);
    else if (x->usual_from_ts > usual_start)
        fprintf(out, "              only %.1f s of log before that: the usual is scaled up "
                     "from them\n",
                (double)(x->from_ts - x->usual_from_ts) / 1e9);
    if (x->ops && x->usual_ops > 0 && (double)x->ops > 2 * x->usual_ops)
        fprintf(out, "              the load was %.1fx the usual\n", (double)x->ops / x->usual_ops);
    if (x->storm >= 0 && v->storms && (size_t)x->storm < v->storms->nstorms) {
        const sat_storm *s = &v->storms->storms[x->storm];
        char a[64], b[64];
        sat_report_fmt_ts(a, sizeof a, s->start_ts);
        sat_report_fmt_ts(b, sizeof b, s->end_ts);
        fprintf(out, "              in storm %d of client failures (%s .. %s, %" PRIu64
                     " failures%s)\n",
                x->storm + 1, a + 11, b + 11, s->events,
                s->sustained ? ", sustained past its trigger" : "");
    } else {
        fprintf(out, "              no storm of client failures around it\n");
    }
}

static int render_crash_text(const sat_crashes_view *v, const sat_crash_info *c, size_t i,
                             FILE *out)
{
    const sat_crash *r = &c->row;
    char ts[64] = "time unknown", sig[96];
    if (r->ts > 0)
        sat_report_fmt_ts(ts, sizeof ts, r->ts);
    fmt_signal(sig, sizeof sig, r->signal);
    const char *exe = r->exe.len ? r->exe.ptr : r->command.len ? r->command.ptr : "?";
    const char *base = strrchr(exe, '/');
    fprintf(out, "\nCRASH %zu  %s  %s", i + 1, ts, base ? base + 1 : exe);
    if (r->pid != SAT_ABSENT)
        fprintf(out, " (pid %d)", r->pid);
    int self = r->sender_pid > 0 && r->pid != SAT_ABSENT && r->sender_pid == r->pid;
    if (r->sender_pid > 0 && !self)
        fprintf(out, "  %s sent by pid %d\n", sig, r->sender_pid);
    else
        fprintf(out, "  %s\n", sig);
    fprintf(out, "  from        %s", origin_of(r->origin));
    if (r->origin == SAT_CRASH_CORE)
        fprintf(out, " (%s, written by %s)", arch_of(r->arch),
                r->flags & SAT_CRASHF_GDB_CORE ? "gdb" : "the kernel");
    fprintf(out, "\n");
    if (r->exe.len)
        fprintf(out, "  executable  %s%s%s\n", r->exe.ptr, r->build_id.len ? "  build-id " : "",
                r->build_id.len ? r->build_id.ptr : "");
    if (r->command.len)
        fprintf(out, "  command     %s\n", r->command.ptr);
    if (r->host.len)
        fprintf(out, "  host        %s\n", r->host.ptr);
    /* si_addr means a fault address only for SIGSEGV, SIGBUS, SIGILL, SIGFPE */
    int64_t fault = sat_signal_has_fault_addr(r->signal) ? r->fault_addr : SAT_ABSENT;
    const char *cn = r->si_code != SAT_ABSENT ? sat_si_code_name(r->signal, r->si_code) : NULL;
    char code[32];
    snprintf(code, sizeof code, "si_code %d", r->si_code);
    if (r->sender_pid > 0) {
        /* sent, not a fault: say by whom, in place of the fault line */
        if (self)
            fprintf(out, "  sent by     the process itself (pid %d) with %s (%s): raise(), "
                         "abort() or pthread_kill()\n",
                    r->sender_pid, sent_with(r->si_code), cn ? cn : code);
        else
            fprintf(out, "  sent by     pid %d (uid %d) with %s (%s): another process sent the "
                         "signal; the stack shows where the process was when it came, not a "
                         "fault of its own\n",
                    r->sender_pid, r->sender_uid, sent_with(r->si_code), cn ? cn : code);
    } else if (r->si_code != SAT_ABSENT || fault != SAT_ABSENT) {
        fprintf(out, "  fault      ");
        if (r->si_code != SAT_ABSENT)
            fprintf(out, " %s", cn ? cn : code);
        if (fault != SAT_ABSENT)
            fprintf(out, " at address 0x%" PRIx64, (uint64_t)fault);
        fprintf(out, "\n");
    }
    if (r->flags & SAT_CRASHF_HANDLER) {
        char os[96];
        fmt_signal(os, sizeof os, r->orig_signal);
        fprintf(out, "  first fault %s", os);
        if (r->orig_fault_addr != SAT_ABSENT)
            fprintf(out, " at address 0x%" PRIx64, (uint64_t)r->orig_fault_addr);
        fprintf(out, ": a signal handler caught it, then the process died of %s\n",
                sat_signal_name(r->signal) ? sat_signal_name(r->signal) : "another signal");
    }
    const char *tw = time_words(r);
    if (tw)
        fprintf(out, "  time from   %s\n", tw);
    char warn[512];
    mtime_warning(v, r, v->context, warn, sizeof warn);
    if (warn[0])
        fprintf(out, "  WARNING     %s\n", warn);
    fprintf(out, "  threads     %d", r->threads);
    if (r->crashing_tid != SAT_ABSENT)
        fprintf(out, "; crashing thread %d", r->crashing_tid);
    fprintf(out, "\n");
    fprintf(out, "  fingerprint %s  %s\n", or_dash(r->fingerprint), or_dash(r->signature));
    const sat_crash_group *g = &v->groups[c->group];
    if (g->count > 1)
        fprintf(out, "              the same crash as %" PRIu64 " other%s here (group %zu)\n",
                g->count - 1, g->count == 2 ? "" : "s", c->group + 1);
    if (r->flags & SAT_CRASHF_TRUNCATED)
        fprintf(out, "  TRUNCATED   the core ends early: the facts above are what it holds\n");
    if (r->missing.len)
        fprintf(out, "  missing     %s\n", r->missing.ptr);
    if (r->flags & SAT_CRASHF_UNWIND_CUT)
        fprintf(out, "  note        the crashing thread's unwind stopped early\n");
    int rc = SAT_OK;
    if (c->nframes) {
        fprintf(out, "  crashing thread%s:\n", r->crashing_tid != SAT_ABSENT ? "" : " (first)");
        rc = print_frames(out, c->frames, c->nframes, "    ");
    } else {
        fprintf(out, "  no frames%s\n",
                r->flags & SAT_CRASHF_NO_EXE ? " (the executable was not found)" : "");
    }
    size_t others = 0;
    for (size_t s = 0; s < c->nstacks; s++)
        others += !c->stacks[s].crashing;
    if (others) {
        fprintf(out, "  other threads, grouped by identical stacks:\n");
        for (size_t s = 0; s < c->nstacks; s++) {
            const sat_crash_stack *st = &c->stacks[s];
            if (st->crashing)
                continue;
            char sum[512];
            stack_summary(sum, sizeof sum, st);
            if (st->ntids > 1)
                fprintf(out, "    x%-4zu %s\n", st->ntids, sum);
            else
                fprintf(out, "    %-5d %s\n", st->tids[0], sum);
        }
    }
    print_context(v, c, out);
    return rc;
}

static int render_text(const void *vp, FILE *out)
{
    const sat_crashes_view *v = (const sat_crashes_view *)vp;
    fprintf(out, "satscope crashes: %zu crash%s in %zu group%s", v->ncrashes,
            v->ncrashes == 1 ? "" : "es", v->ngroups, v->ngroups == 1 ? "" : "s");
    int first = 1;
    for (int o = 1; o < SAT_CRASH_ORIGIN__COUNT; o++) {
        if (!v->origins[o])
            continue;
        fprintf(out, "%s%s: %" PRIu64, first ? " (" : ", ", origin_short[o], v->origins[o]);
        first = 0;
    }
    fprintf(out, "%s\n", first ? "" : ")");
    if (v->dropped)
        fprintf(out, "  (%" PRIu64 " more crashes past the %d kept in detail were not listed)\n",
                v->dropped, 10000);
    if (v->orphan_frames)
        fprintf(out, "  (%" PRIu64 " frames belonged to no crash row: a cut trace?)\n",
                v->orphan_frames);
    if (v->frames_cut)
        fprintf(out, "  (%" PRIu64 " frames past the deepest kept per thread were left out)\n",
                v->frames_cut);
    if (v->load_cut)
        fprintf(out, "  (%" PRIu64 " operations, connections or handshakes past the analyzer's "
                     "bound were not counted: the load before each crash is partial)\n",
                v->load_cut);
    if (v->log_lines_matched)
        fprintf(out, "  (%" PRIu64 " crash report%s in the logs (a kernel or systemd-coredump "
                     "line, a backtrace) about a process of another crash here: listed with "
                     "it)\n",
                v->log_lines_matched, v->log_lines_matched == 1 ? "" : "s");
    if (!v->ncrashes) {
        fprintf(out, "\nNo crash: no core file and no backtrace in the inputs.\n");
        return SAT_OK;
    }
    for (size_t i = 0; i < v->ncrashes; i++) {
        int rc = render_crash_text(v, &v->crashes[i], i, out);
        if (rc < 0)
            return rc;
    }
    fprintf(out, "\nGROUPS (by fingerprint: the same top frames, module-relative; and crashes of\n"
                 "one build at the same offsets, named or not)\n");
    tbl t;
    sat_tbl_init(&t, "rrllll");
    const char *hdr[6] = {"group", "crashes", "first", "last", "fingerprint", "frames"};
    sat_tbl_row(&t, hdr);
    for (size_t g = 0; g < v->ngroups; g++) {
        const sat_crash_group *G = &v->groups[g];
        char gi[32], cnt[32], a[64] = "-", b[64] = "-";
        snprintf(gi, sizeof gi, "%zu", g + 1);
        snprintf(cnt, sizeof cnt, "%" PRIu64, G->count);
        if (G->first_ts)
            sat_report_fmt_ts(a, sizeof a, G->first_ts);
        if (G->last_ts)
            sat_report_fmt_ts(b, sizeof b, G->last_ts);
        const char *row[6] = {gi, cnt, a, b, G->fingerprint, G->signature};
        sat_tbl_row(&t, row);
    }
    int err = t.err;
    sat_tbl_print(&t, out, "  ");
    return err ? SAT_E_NOMEM : SAT_OK;
}

/* ---- JSON ------------------------------------------------------------------------------ */
static void json_str(sat_json *j, const char *k, sat_str s)
{
    if (s.ptr && s.len)
        sat_json_strn(j, k, s.ptr, s.len);
    else
        sat_json_null(j, k);
}

static void json_i(sat_json *j, const char *k, int64_t v)
{
    if (v == SAT_ABSENT)
        sat_json_null(j, k);
    else
        sat_json_i64(j, k, v);
}

static void json_hex(sat_json *j, const char *k, int64_t v)
{
    char b[32];
    if (v == SAT_ABSENT) {
        sat_json_null(j, k);
        return;
    }
    snprintf(b, sizeof b, "0x%" PRIx64, (uint64_t)v);
    sat_json_str(j, k, b);
}

static void json_ts(sat_json *j, const char *k, sat_ts_ns ts)
{
    sat_json_ts(j, k, ts > 0 ? ts : 0); /* a time before 1970 is a bad clock: not known */
}

static void json_frames(sat_json *j, const char *key, const sat_frame *f, size_t n)
{
    sat_json_array(j, key);
    for (size_t i = 0; i < n; i++) {
        sat_json_object(j, NULL);
        sat_json_i64(j, "depth", f[i].depth);
        json_str(j, "function", f[i].function);
        json_str(j, "module", f[i].module);
        json_hex(j, "offset", f[i].offset);
        json_hex(j, "pc", f[i].pc);
        json_i(j, "fn_offset", f[i].fn_offset);
        json_str(j, "file", f[i].file);
        json_i(j, "line", f[i].line);
        if (f[i].flags & SAT_FRAMEF_SIGNAL)
            sat_json_bool(j, "signal_frame", 1);
        sat_json_end(j);
    }
    sat_json_end(j);
}

static int render_json(const void *vp, FILE *out)
{
    const sat_crashes_view *v = (const sat_crashes_view *)vp;
    sat_json j;
    sat_json_init(&j, out);
    sat_json_set_compact_depth(&j, 5);
    sat_json_document(&j);
    sat_json_u64(&j, "count", v->ncrashes);
    sat_json_u64(&j, "not_detailed", v->dropped);
    sat_json_u64(&j, "orphan_frames", v->orphan_frames);
    sat_json_u64(&j, "log_lines_matched", v->log_lines_matched);
    sat_json_u64(&j, "load_rows_not_counted", v->load_cut);
    sat_json_array(&j, "crashes");
    for (size_t i = 0; i < v->ncrashes; i++) {
        const sat_crash_info *c = &v->crashes[i];
        const sat_crash *r = &c->row;
        sat_json_object(&j, NULL);
        json_ts(&j, "ts", r->ts);
        sat_json_str(&j, "origin", r->origin < SAT_CRASH_ORIGIN__COUNT ? origin_key[r->origin]
                                                                        : "?");
        sat_json_str(&j, "arch", arch_of(r->arch));
        json_str(&j, "host", r->host);
        json_i(&j, "pid", r->pid);
        json_i(&j, "uid", r->uid);
        json_str(&j, "executable", r->exe);
        json_str(&j, "command", r->command);
        json_str(&j, "build_id", r->build_id);
        json_i(&j, "signal", r->signal);
        sat_json_str(&j, "signal_name", r->signal != SAT_ABSENT ? sat_signal_name(r->signal)
                                                                : NULL);
        json_i(&j, "si_code", r->si_code);
        sat_json_str(&j, "si_code_name", r->si_code != SAT_ABSENT
                                             ? sat_si_code_name(r->signal, r->si_code) : NULL);
        json_hex(&j, "fault_addr",
                 sat_signal_has_fault_addr(r->signal) ? r->fault_addr : SAT_ABSENT);
        sat_json_str(&j, "time_source",
                     r->time_source < SAT_CRASH_TIME__COUNT ? time_key[r->time_source] : NULL);
        char warn[512];
        mtime_warning(v, r, v->context, warn, sizeof warn);
        sat_json_str(&j, "time_warning", warn[0] ? warn : NULL);
        if (r->sender_pid > 0) {
            sat_json_object(&j, "sender");
            sat_json_i64(&j, "pid", r->sender_pid);
            sat_json_i64(&j, "uid", r->sender_uid);
            sat_json_bool(&j, "self", r->pid != SAT_ABSENT && r->sender_pid == r->pid);
            sat_json_end(&j);
        } else {
            sat_json_null(&j, "sender");
        }
        if (r->flags & SAT_CRASHF_HANDLER) {
            sat_json_object(&j, "first_fault");
            json_i(&j, "signal", r->orig_signal);
            sat_json_str(&j, "signal_name", sat_signal_name(r->orig_signal));
            json_hex(&j, "fault_addr", r->orig_fault_addr);
            sat_json_end(&j);
        }
        sat_json_i64(&j, "threads", r->threads);
        json_i(&j, "crashing_tid", r->crashing_tid);
        json_frames(&j, "frames", c->frames, c->nframes);
        sat_json_array(&j, "threads_detail");
        for (size_t s = 0; s < c->nstacks; s++) {
            const sat_crash_stack *st = &c->stacks[s];
            sat_json_object(&j, NULL);
            sat_json_u64(&j, "count", st->ntids);
            sat_json_bool(&j, "crashing", st->crashing);
            sat_json_array(&j, "tids");
            for (size_t t = 0; t < st->ntids; t++)
                sat_json_i64(&j, NULL, st->tids[t]);
            sat_json_end(&j);
            json_frames(&j, "frames", st->frames, st->nframes);
            sat_json_end(&j);
        }
        sat_json_end(&j);
        json_str(&j, "fingerprint", r->fingerprint);
        json_str(&j, "signature", r->signature);
        json_str(&j, "build_key", r->build_key);
        sat_json_u64(&j, "group", c->group + 1);
        sat_json_bool(&j, "truncated", (r->flags & SAT_CRASHF_TRUNCATED) != 0);
        json_str(&j, "missing", r->missing);
        if (v->have_load && r->ts > 0) {
            const sat_crash_context *x = &c->ctx;
            sat_json_object(&j, "before");
            json_ts(&j, "from_ts", x->from_ts);
            json_ts(&j, "to_ts", x->to_ts);
            sat_json_u64(&j, "ops", x->ops);
            if (x->usual_ops >= 0)
                sat_json_num(&j, "usual_ops", x->usual_ops, 1);
            else
                sat_json_null(&j, "usual_ops");
            json_ts(&j, "usual_from_ts", x->usual_from_ts);
            sat_json_u64(&j, "errors", x->errors);
            sat_json_u64(&j, "conn_opens", x->conn_opens);
            sat_json_u64(&j, "handshakes", x->handshakes);
            sat_json_u64(&j, "full_handshakes", x->hs_full);
            if (x->storm >= 0)
                sat_json_i64(&j, "storm", x->storm + 1);
            else
                sat_json_null(&j, "storm");
            sat_json_end(&j);
        }
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_array(&j, "groups");
    for (size_t g = 0; g < v->ngroups; g++) {
        const sat_crash_group *G = &v->groups[g];
        sat_json_object(&j, NULL);
        sat_json_str(&j, "fingerprint", G->fingerprint);
        sat_json_str(&j, "signature", G->signature);
        sat_json_u64(&j, "count", G->count);
        sat_json_u64(&j, "builds", G->builds);
        json_ts(&j, "first_ts", G->first_ts);
        json_ts(&j, "last_ts", G->last_ts);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_end(&j);
    return sat_json_finish(&j);
}

/* ---- CSV ------------------------------------------------------------------------------- */
/* The main section: one row per crash, the scalar keys of its JSON object
 * under the same names, those of the nested objects by path (sender.pid,
 * before.ops); the frames and threads_detail arrays stay in the JSON. Every
 * row has every column: a value the JSON has as null or leaves out is empty. */
static void csv_s(sat_csv *c, sat_str s) { sat_csv_strn(c, s.ptr, s.len); }

static void csv_i(sat_csv *c, int64_t v)
{
    if (v == SAT_ABSENT)
        sat_csv_str(c, NULL);
    else
        sat_csv_i64(c, v);
}

static void csv_hex(sat_csv *c, int64_t v)
{
    char b[32];
    if (v == SAT_ABSENT) {
        sat_csv_str(c, NULL);
        return;
    }
    snprintf(b, sizeof b, "0x%" PRIx64, (uint64_t)v);
    sat_csv_str(c, b);
}

static void csv_ts(sat_csv *c, sat_ts_ns ts) { sat_csv_ts(c, ts > 0 ? ts : 0); }

static const char *csv_bool(int v) { return v ? "true" : "false"; }

static int render_csv(const void *vp, FILE *out)
{
    const sat_crashes_view *v = (const sat_crashes_view *)vp;
    static const char *const cols[] = {
        "ts", "origin", "arch", "host", "pid", "uid", "executable", "command", "build_id",
        "signal", "signal_name", "si_code", "si_code_name", "fault_addr", "time_source",
        "time_warning", "sender.pid", "sender.uid", "sender.self", "first_fault.signal",
        "first_fault.signal_name", "first_fault.fault_addr", "threads", "crashing_tid",
        "fingerprint", "signature", "build_key", "group", "truncated", "missing",
        "before.from_ts", "before.to_ts", "before.ops", "before.usual_ops",
        "before.usual_from_ts", "before.errors", "before.conn_opens", "before.handshakes",
        "before.full_handshakes", "before.storm", NULL};
    sat_csv c;
    sat_csv_init(&c, out);
    sat_csv_header(&c, cols);
    for (size_t i = 0; i < v->ncrashes; i++) {
        const sat_crash_info *ci = &v->crashes[i];
        const sat_crash *r = &ci->row;
        csv_ts(&c, r->ts);
        sat_csv_str(&c, r->origin < SAT_CRASH_ORIGIN__COUNT ? origin_key[r->origin] : "?");
        sat_csv_str(&c, arch_of(r->arch));
        csv_s(&c, r->host);
        csv_i(&c, r->pid);
        csv_i(&c, r->uid);
        csv_s(&c, r->exe);
        csv_s(&c, r->command);
        csv_s(&c, r->build_id);
        csv_i(&c, r->signal);
        sat_csv_str(&c, r->signal != SAT_ABSENT ? sat_signal_name(r->signal) : NULL);
        csv_i(&c, r->si_code);
        sat_csv_str(&c, r->si_code != SAT_ABSENT ? sat_si_code_name(r->signal, r->si_code) : NULL);
        csv_hex(&c, sat_signal_has_fault_addr(r->signal) ? r->fault_addr : SAT_ABSENT);
        sat_csv_str(&c, r->time_source < SAT_CRASH_TIME__COUNT ? time_key[r->time_source] : NULL);
        char warn[512];
        mtime_warning(v, r, v->context, warn, sizeof warn);
        sat_csv_str(&c, warn[0] ? warn : NULL);
        int sender = r->sender_pid > 0;
        csv_i(&c, sender ? r->sender_pid : SAT_ABSENT);
        csv_i(&c, sender ? r->sender_uid : SAT_ABSENT);
        sat_csv_str(&c, sender ? csv_bool(r->pid != SAT_ABSENT && r->sender_pid == r->pid) : NULL);
        int ff = (r->flags & SAT_CRASHF_HANDLER) != 0;
        csv_i(&c, ff ? r->orig_signal : SAT_ABSENT);
        sat_csv_str(&c, ff ? sat_signal_name(r->orig_signal) : NULL);
        csv_hex(&c, ff ? r->orig_fault_addr : SAT_ABSENT);
        sat_csv_i64(&c, r->threads);
        csv_i(&c, r->crashing_tid);
        csv_s(&c, r->fingerprint);
        csv_s(&c, r->signature);
        csv_s(&c, r->build_key);
        sat_csv_u64(&c, ci->group + 1);
        sat_csv_str(&c, csv_bool((r->flags & SAT_CRASHF_TRUNCATED) != 0));
        csv_s(&c, r->missing);
        if (v->have_load && r->ts > 0) {
            const sat_crash_context *x = &ci->ctx;
            csv_ts(&c, x->from_ts);
            csv_ts(&c, x->to_ts);
            sat_csv_u64(&c, x->ops);
            sat_csv_num(&c, x->usual_ops >= 0 ? x->usual_ops : NAN, 1);
            csv_ts(&c, x->usual_from_ts);
            sat_csv_u64(&c, x->errors);
            sat_csv_u64(&c, x->conn_opens);
            sat_csv_u64(&c, x->handshakes);
            sat_csv_u64(&c, x->hs_full);
            csv_i(&c, x->storm >= 0 ? x->storm + 1 : SAT_ABSENT);
        } else {
            for (int k = 0; k < 10; k++)
                sat_csv_str(&c, NULL);
        }
        sat_csv_end_row(&c);
    }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

/* The groups, one row per group (groups[] of the JSON). */
static int csv_groups(const void *vp, FILE *out)
{
    const sat_crashes_view *v = (const sat_crashes_view *)vp;
    static const char *const cols[] = {"fingerprint", "signature", "count", "builds",
                                       "first_ts", "last_ts", NULL};
    sat_csv c;
    sat_csv_init(&c, out);
    sat_csv_header(&c, cols);
    for (size_t g = 0; g < v->ngroups; g++) {
        const sat_crash_group *G = &v->groups[g];
        sat_csv_str(&c, G->fingerprint);
        sat_csv_str(&c, G->signature);
        sat_csv_u64(&c, G->count);
        sat_csv_u64(&c, G->builds);
        csv_ts(&c, G->first_ts);
        csv_ts(&c, G->last_ts);
        sat_csv_end_row(&c);
    }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

static const void *crashes_view(const void *r)
{
    return sat_crashes_get_view((const sat_crashes *)r);
}
static const char *const csv_names[] = {"crashes", "groups", NULL};
static const sat_render_fn csv_write[] = {render_csv, csv_groups};
const sat_csv_report sat_csv_crashes = {"crashes", crashes_view, csv_names, csv_write};

int sat_report_crashes(const sat_crashes *c, int fmt, FILE *out, sat_diag *diag)
{
    return sat_report_render(sat_crashes_get_view(c), fmt, render_text, render_json, render_csv, out, diag);
}
