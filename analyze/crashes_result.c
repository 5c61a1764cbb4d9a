/*
 * crashes_result.c - the sections of the crashes analyzer's result
 * (satscope/result.h, docs/output.md): a summary of what was read, the
 * table of crashes (one row per crash; its nested facts by path: sender.pid,
 * first_fault.signal, before.ops; its crashing thread's frames and every
 * thread grouped by identical stacks as tables inside the row), and the
 * table of groups by fingerprint, written from what finish found
 * (crashes_internal.h cr_found). The text, JSON and CSV forms are all
 * written from these (report/sections/section_crashes.c and the generic
 * writers).
 */
#include <inttypes.h>
#include <math.h>
#include <time.h>

#include "crashes_internal.h"
#include "satscope/signals.h"
#include "storms_found.h" /* the storms found on the same rows */

static const char *const origin_key[SAT_CRASH_ORIGIN__COUNT] = {
    "?", "core", "text_ceph", "text_glibc", "text_gdb", "text_kernel"};
static const char *const arch_name[] = {"?", "x86_64", "aarch64", "i386"};
static const char *const time_key[SAT_CRASH_TIME__COUNT] = {NULL, "file_mtime", "core_name",
                                                            "log", "option"};

static const sat_col crash_cols[] = {
    {"ts", SAT_UNIT_TIME, 0, "time"},
    {"origin", SAT_UNIT_TEXT, 0, NULL},
    {"arch", SAT_UNIT_TEXT, 0, NULL},
    {"core_writer", SAT_UNIT_TEXT, 0, "core written by"},
    {"host", SAT_UNIT_TEXT, 0, NULL},
    {"pid", SAT_UNIT_INT, 0, NULL},
    {"uid", SAT_UNIT_INT, 0, NULL},
    {"executable", SAT_UNIT_TEXT, 0, NULL},
    {"command", SAT_UNIT_TEXT, 0, NULL},
    {"build_id", SAT_UNIT_TEXT, 0, "build-id"},
    {"signal", SAT_UNIT_INT, 0, NULL},
    {"signal_name", SAT_UNIT_TEXT, 0, "signal name"},
    {"si_code", SAT_UNIT_INT, 0, "signal code"},
    {"si_code_name", SAT_UNIT_TEXT, 0, "signal code name"},
    {"fault_addr", SAT_UNIT_TEXT, 0, "fault address"},
    {"time_source", SAT_UNIT_TEXT, 0, "time from"},
    {"time_warning", SAT_UNIT_TEXT, 0, "time warning"},
    {"sender.pid", SAT_UNIT_INT, 0, "sent by pid"},
    {"sender.uid", SAT_UNIT_INT, 0, "sent by uid"},
    {"sender.self", SAT_UNIT_BOOL, 0, "sent by itself"},
    {"first_fault.signal", SAT_UNIT_INT, 0, "first fault signal"},
    {"first_fault.signal_name", SAT_UNIT_TEXT, 0, "first fault signal name"},
    {"first_fault.fault_addr", SAT_UNIT_TEXT, 0, "first fault address"},
    {"threads", SAT_UNIT_INT, 0, NULL},
    {"crashing_tid", SAT_UNIT_INT, 0, "crashing thread"},
    {"fingerprint", SAT_UNIT_TEXT, 0, NULL},
    {"signature", SAT_UNIT_TEXT, 0, NULL},
    {"build_key", SAT_UNIT_TEXT, 0, "build key"},
    {"group", SAT_UNIT_COUNT, 0, NULL},
    {"truncated", SAT_UNIT_BOOL, 0, NULL},
    {"unwind_cut", SAT_UNIT_BOOL, 0, "unwind cut short"},
    {"exe_not_found", SAT_UNIT_BOOL, 0, "executable not found"},
    {"missing", SAT_UNIT_TEXT, 0, NULL},
    {"before.covered", SAT_UNIT_BOOL, 0, "load before: covered"},
    {"before.from_ts", SAT_UNIT_TIME, 0, "load before: from"},
    {"before.to_ts", SAT_UNIT_TIME, 0, "load before: to"},
    {"before.operations", SAT_UNIT_COUNT, 0, "ops before"},
    {"before.usual_operations", SAT_UNIT_NUMBER, 1, "usual ops before"},
    {"before.usual_from_ts", SAT_UNIT_TIME, 0, "usual from"},
    {"before.errors", SAT_UNIT_COUNT, 0, "errors before"},
    {"before.conn_opens", SAT_UNIT_COUNT, 0, "connections opened before"},
    {"before.handshakes", SAT_UNIT_COUNT, 0, "handshakes before"},
    {"before.full_handshakes", SAT_UNIT_COUNT, 0, "full handshakes before"},
    {"before.capture", SAT_UNIT_TEXT, 0, "capture before"},
    {"before.storm", SAT_UNIT_INT, 0, "storm"},
    {"before.storm_start_ts", SAT_UNIT_TIME, 0, "storm start"},
    {"before.storm_end_ts", SAT_UNIT_TIME, 0, "storm end"},
    {"before.storm_failures", SAT_UNIT_COUNT, 0, "storm failures"},
    {"before.storm_sustained", SAT_UNIT_BOOL, 0, "storm sustained"},
};

static const sat_col frame_cols[] = {
    {"depth", SAT_UNIT_INT, 0, NULL},
    {"function", SAT_UNIT_TEXT, 0, NULL},
    {"module", SAT_UNIT_TEXT, 0, NULL},
    {"offset", SAT_UNIT_TEXT, 0, NULL},
    {"pc", SAT_UNIT_TEXT, 0, NULL},
    {"fn_offset", SAT_UNIT_INT, 0, "offset in function"},
    {"file", SAT_UNIT_TEXT, 0, NULL},
    {"line", SAT_UNIT_INT, 0, NULL},
    {"signal_frame", SAT_UNIT_BOOL, 0, "signal frame"},
};

static const sat_col stack_cols[] = {
    {"count", SAT_UNIT_COUNT, 0, NULL},
    {"crashing", SAT_UNIT_BOOL, 0, NULL},
};

static const sat_col group_cols[] = {
    {"group", SAT_UNIT_COUNT, 0, NULL},
    {"fingerprint", SAT_UNIT_TEXT, 0, NULL},
    {"signature", SAT_UNIT_TEXT, 0, "frames"},
    {"count", SAT_UNIT_COUNT, 0, "crashes"},
    {"builds", SAT_UNIT_COUNT, 0, NULL},
    {"first_ts", SAT_UNIT_TIME, 0, "first"},
    {"last_ts", SAT_UNIT_TIME, 0, "last"},
};

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

static void put_str(sat_rnode *o, const char *k, sat_str s)
{
    if (s.ptr && s.len)
        sat_put_textn(o, k, s.ptr, s.len);
    else
        sat_put_absent(o, k, SAT_UNIT_TEXT);
}

static void put_i(sat_rnode *o, const char *k, int64_t v)
{
    if (v == SAT_ABSENT)
        sat_put_absent(o, k, SAT_UNIT_INT);
    else
        sat_put_int(o, k, v);
}

static void put_hex(sat_rnode *o, const char *k, int64_t v)
{
    char b[32];
    if (v == SAT_ABSENT) {
        sat_put_absent(o, k, SAT_UNIT_TEXT);
        return;
    }
    snprintf(b, sizeof b, "0x%" PRIx64, (uint64_t)v);
    sat_put_text(o, k, b);
}

/* a time before 1970 is a bad clock: not known */
static void put_ts(sat_rnode *o, const char *k, sat_ts_ns ts) { sat_put_time(o, k, ts > 0 ? ts : 0); }

static void put_frames(sat_rnode *row, const char *key, const sat_frame *f, size_t n)
{
    sat_rnode *t = sat_table(row, key, frame_cols, NCOLS(frame_cols));
    for (size_t i = 0; i < n; i++) {
        sat_rnode *r = sat_table_row(t);
        sat_put_int(r, "depth", f[i].depth);
        put_str(r, "function", f[i].function);
        put_str(r, "module", f[i].module);
        put_hex(r, "offset", f[i].offset);
        put_hex(r, "pc", f[i].pc);
        put_i(r, "fn_offset", f[i].fn_offset);
        put_str(r, "file", f[i].file);
        put_i(r, "line", f[i].line);
        sat_put_bool(r, "signal_frame", (f[i].flags & SAT_FRAMEF_SIGNAL) != 0);
    }
}

/* "2025-06-09T14:10:00.5Z": RFC 3339 UTC, the fraction trimmed (as the
 * writers print TIME values; the warning below is prose, not a value). */
static void fmt_ts(char *buf, size_t n, sat_ts_ns ts)
{
    time_t t = (time_t)(ts / 1000000000);
    int64_t frac = ts % 1000000000;
    struct tm tm;
    char base[32] = "?";
    if (gmtime_r(&t, &tm))
        strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    char f[16] = "";
    if (frac > 0) {
        snprintf(f, sizeof f, ".%09lld", (long long)frac);
        size_t l = strlen(f);
        while (f[l - 1] == '0')
            f[--l] = '\0';
    }
    snprintf(buf, n, "%s%sZ", base, f);
}

/* A core dated by its file's mtime while logs of another period were given
 * beside it: the mtime is most likely that of a copy. "" if not so. */
static void mtime_warning(const sat_crashes *c, const sat_crash *r, char *b, size_t n)
{
    b[0] = '\0';
    if (r->time_source != SAT_CRASH_TIME_MTIME || !c->found.have_load || !c->t.load_first ||
        r->ts <= 0)
        return;
    if (r->ts >= c->t.load_first && r->ts <= c->t.load_last + c->opts.context)
        return;
    char a[64], z[64];
    fmt_ts(a, sizeof a, c->t.load_first);
    fmt_ts(z, sizeof z, c->t.load_last);
    snprintf(b, n, "the core's mtime is outside the period of the logs and captures given "
                   "(%s .. %s): it is probably the time of a copy or a decompression, and the "
                   "load before the crash cannot be found; give --crash-time", a, z);
}

/* How much of [from, to] the captures ran over: "covered", "partly covered",
 * "not covered", or NULL when no capture was read. */
static const char *capture_cover(const cr_tally *t, sat_ts_ns from, sat_ts_ns to)
{
    if (!t->capture_first)
        return NULL;
    if (t->capture_last < from || t->capture_first > to)
        return "not covered";
    return t->capture_first <= from && t->capture_last >= to ? "covered" : "partly covered";
}

static void put_before(sat_rnode *row, const sat_crashes *cs, const cr_info *c)
{
    const cr_found *v = &cs->found;
    static const char *const cols[] = {
        "before.covered", "before.from_ts", "before.to_ts", "before.operations", "before.usual_operations",
        "before.usual_from_ts", "before.errors", "before.conn_opens", "before.handshakes",
        "before.full_handshakes", "before.capture", "before.storm", "before.storm_start_ts", "before.storm_end_ts",
        "before.storm_failures", "before.storm_sustained"};
    const cr_context *x = &c->ctx;
    if (!v->have_load || c->row.ts <= 0) {
        for (size_t i = 0; i < NCOLS(cols); i++)
            for (size_t k = 0; k < NCOLS(crash_cols); k++)
                if (!strcmp(crash_cols[k].name, cols[i]))
                    sat_put_absent(row, cols[i], (sat_unit)crash_cols[k].unit);
        return;
    }
    sat_put_bool(row, "before.covered", x->have);
    put_ts(row, "before.from_ts", x->from_ts);
    put_ts(row, "before.to_ts", x->to_ts);
    sat_put_count(row, "before.operations", x->ops);
    sat_put_num(row, "before.usual_operations", x->usual_ops >= 0 ? x->usual_ops : NAN, 1);
    put_ts(row, "before.usual_from_ts", x->usual_from_ts);
    sat_put_count(row, "before.errors", x->errors);
    sat_put_count(row, "before.conn_opens", x->conn_opens);
    /* handshakes are known where a capture ran: absent (never 0) without one
     * or outside it */
    const char *cover = capture_cover(&cs->t, x->from_ts, x->to_ts);
    if (cover && strcmp(cover, "not covered")) {
        sat_put_count(row, "before.handshakes", x->handshakes);
        sat_put_count(row, "before.full_handshakes", x->hs_full);
    } else {
        sat_put_absent(row, "before.handshakes", SAT_UNIT_COUNT);
        sat_put_absent(row, "before.full_handshakes", SAT_UNIT_COUNT);
    }
    sat_put_text(row, "before.capture", cover);
    const sat_storm *st = x->storm >= 0 && v->storms && (size_t)x->storm < v->storms->nstorms
                              ? &v->storms->storms[x->storm]
                              : NULL;
    put_i(row, "before.storm", st ? x->storm + 1 : SAT_ABSENT);
    put_ts(row, "before.storm_start_ts", st ? st->start_ts : 0);
    put_ts(row, "before.storm_end_ts", st ? st->end_ts : 0);
    if (st) {
        sat_put_count(row, "before.storm_failures", st->events);
        if (st->trigger >= 0) /* no trigger: outliving it is unknown */
            sat_put_bool(row, "before.storm_sustained", st->sustained);
        else
            sat_put_absent(row, "before.storm_sustained", SAT_UNIT_BOOL);
    } else {
        sat_put_absent(row, "before.storm_failures", SAT_UNIT_COUNT);
        sat_put_absent(row, "before.storm_sustained", SAT_UNIT_BOOL);
    }
}

static void put_crash(sat_rnode *t, const sat_crashes *cs, const cr_info *c)
{
    const sat_crash *r = &c->row;
    sat_rnode *row = sat_table_row(t);
    put_ts(row, "ts", r->ts);
    sat_put_text(row, "origin", r->origin < SAT_CRASH_ORIGIN__COUNT ? origin_key[r->origin] : "?");
    sat_put_text(row, "arch", r->arch <= SAT_ARCH_I386 ? arch_name[r->arch] : "?");
    sat_put_text(row, "core_writer", r->origin != SAT_CRASH_CORE        ? NULL
                                     : r->flags & SAT_CRASHF_GDB_CORE ? "gdb"
                                                                      : "kernel");
    put_str(row, "host", r->host);
    put_i(row, "pid", r->pid);
    put_i(row, "uid", r->uid);
    put_str(row, "executable", r->exe);
    put_str(row, "command", r->command);
    put_str(row, "build_id", r->build_id);
    put_i(row, "signal", r->signal);
    sat_put_text(row, "signal_name", r->signal != SAT_ABSENT ? sat_signal_name(r->signal) : NULL);
    put_i(row, "si_code", r->si_code);
    sat_put_text(row, "si_code_name",
                 r->si_code != SAT_ABSENT ? sat_si_code_name(r->signal, r->si_code) : NULL);
    /* si_addr means a fault address only for SIGSEGV, SIGBUS, SIGILL, SIGFPE */
    put_hex(row, "fault_addr", sat_signal_has_fault_addr(r->signal) ? r->fault_addr : SAT_ABSENT);
    sat_put_text(row, "time_source",
                 r->time_source < SAT_CRASH_TIME__COUNT ? time_key[r->time_source] : NULL);
    char warn[512];
    mtime_warning(cs, r, warn, sizeof warn);
    sat_put_text(row, "time_warning", warn[0] ? warn : NULL);
    int sender = r->sender_pid > 0;
    put_i(row, "sender.pid", sender ? r->sender_pid : SAT_ABSENT);
    put_i(row, "sender.uid", sender ? r->sender_uid : SAT_ABSENT);
    if (sender)
        sat_put_bool(row, "sender.self", r->pid != SAT_ABSENT && r->sender_pid == r->pid);
    else
        sat_put_absent(row, "sender.self", SAT_UNIT_BOOL);
    int ff = (r->flags & SAT_CRASHF_HANDLER) != 0;
    put_i(row, "first_fault.signal", ff ? r->orig_signal : SAT_ABSENT);
    sat_put_text(row, "first_fault.signal_name", ff ? sat_signal_name(r->orig_signal) : NULL);
    put_hex(row, "first_fault.fault_addr", ff ? r->orig_fault_addr : SAT_ABSENT);
    sat_put_int(row, "threads", r->threads);
    put_i(row, "crashing_tid", r->crashing_tid);
    put_str(row, "fingerprint", r->fingerprint);
    put_str(row, "signature", r->signature);
    put_str(row, "build_key", r->build_key);
    sat_put_count(row, "group", c->group + 1);
    sat_put_bool(row, "truncated", (r->flags & SAT_CRASHF_TRUNCATED) != 0);
    sat_put_bool(row, "unwind_cut", (r->flags & SAT_CRASHF_UNWIND_CUT) != 0);
    sat_put_bool(row, "exe_not_found", (r->flags & SAT_CRASHF_NO_EXE) != 0);
    put_str(row, "missing", r->missing);
    put_before(row, cs, c);
    put_frames(row, "frames", c->frames, c->nframes);
    sat_rnode *th = sat_table(row, "threads_detail", stack_cols, NCOLS(stack_cols));
    for (size_t s = 0; s < c->nstacks; s++) {
        const cr_stack *st = &c->stacks[s];
        sat_rnode *sr = sat_table_row(th);
        sat_put_count(sr, "count", st->ntids);
        sat_put_bool(sr, "crashing", st->crashing);
        sat_rnode *tids = sat_list(sr, "tids");
        sat_set_compact(tids);
        for (size_t k = 0; k < st->ntids; k++)
            sat_put_int(tids, NULL, st->tids[k]);
        put_frames(sr, "frames", st->frames, st->nframes);
    }
}

int sat_crashes_result(const sat_crashes *c, sat_result *res)
{
    sat_rnode *root = sat_result_root(res);
    if (!c || !root)
        return SAT_E_USAGE;
    const cr_found *v = &c->found;
    /* the crashes listed by where they were read; the frames of no crash row */
    uint64_t origins[SAT_CRASH_ORIGIN__COUNT] = {0}, orphan_frames = 0;
    for (size_t i = 0; i < v->ncrashes; i++)
        if (v->crashes[i].row.origin < SAT_CRASH_ORIGIN__COUNT)
            origins[v->crashes[i].row.origin]++;
    for (size_t i = 0; i < c->nentries; i++)
        if (!c->entries[i].have_row && !c->entries[i].matched)
            orphan_frames += c->entries[i].nframes;
    sat_put_count(root, "count", v->ncrashes);
    sat_put_count(root, "groups_count", v->ngroups);
    sat_rnode *o = sat_obj(root, "origins");
    sat_set_compact(o);
    for (int k = 1; k < SAT_CRASH_ORIGIN__COUNT; k++)
        sat_put_count(o, origin_key[k], origins[k]);
    sat_put_count(root, "not_detailed", c->t.dropped);
    sat_put_count(root, "orphan_frames", orphan_frames);
    sat_put_count(root, "frames_not_kept", c->t.frames_cut);
    sat_put_count(root, "log_lines_matched", v->log_lines_matched);
    sat_put_count(root, "load_rows_not_counted", c->t.load_cut);
    sat_put_dur(root, "context_s", (double)c->opts.context / 1e9, 3);
    put_ts(root, "load_first_ts", v->have_load ? c->t.load_first : 0);
    put_ts(root, "load_last_ts", v->have_load ? c->t.load_last : 0);
    put_ts(root, "capture_first_ts", c->t.capture_first);
    put_ts(root, "capture_last_ts", c->t.capture_first ? c->t.capture_last : 0);
    sat_rnode *t = sat_table(root, "crashes", crash_cols, NCOLS(crash_cols));
    sat_result_set_main(res, t);
    for (size_t i = 0; i < v->ncrashes; i++)
        put_crash(t, c, &v->crashes[i]);
    sat_rnode *g = sat_table(root, "groups", group_cols, NCOLS(group_cols));
    for (size_t i = 0; i < v->ngroups; i++) {
        const cr_group *G = &v->groups[i];
        sat_rnode *r = sat_table_row(g);
        sat_put_count(r, "group", i + 1);
        sat_put_text(r, "fingerprint", G->fingerprint);
        sat_put_text(r, "signature", G->signature);
        sat_put_count(r, "count", G->count);
        sat_put_count(r, "builds", G->builds);
        put_ts(r, "first_ts", G->first_ts);
        put_ts(r, "last_ts", G->last_ts);
    }
    return sat_result_status(res);
}
