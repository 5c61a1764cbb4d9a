/*
 * crash_scan.c - a text input read for the crash reports written in it as text
 * (parse/crash_text.c: Ceph's fatal-signal blocks, glibc backtrace_symbols()
 * runs, gdb output), for collect_log.c. Two kinds of input come here:
 *
 *  - a text file that is not a recognised LDAP log (a daemon's stderr capture,
 *    a journal export, a Ceph log, a file of gdb output): read once, through
 *    the scanner only; its source row says format "crash-text" when it held
 *    crashes, and stays "unknown" (warned, as before) when it held none;
 *  - a recognised LDAP log of which every line was rejected (a 389 errors log
 *    has the access log's timestamps and so is sniffed as 389-text): read a
 *    second time, through the scanner; its crashes carry its source id.
 *
 * A log with some valid LDAP lines is not scanned: its lines go to the format
 * parser (on two threads for 389-text), and scanning each of them as well would
 * put a second parser on the hot path for text that access logs do not carry.
 */
#include <elf.h>

#include "collect_internal.h"
#include "satscope/crash.h"

int sat_collect_is_text(const char *peek, size_t n)
{
    if (!n || memchr(peek, '\0', n))
        return 0; /* cores, captures, binaries: NUL bytes in the first 64 KiB */
    return !(n >= SELFMAG && memcmp(peek, ELFMAG, SELFMAG) == 0);
}

/* Crash rows pass through; their times widen the source's first/last ts. */
typedef struct scan_sink {
    sat_crash_scan_job *job;
} scan_sink;

static int scan_row(void *ctx, int table, const void *row)
{
    sat_crash_scan_job *job = ((scan_sink *)ctx)->job;
    if (table == SAT_TABLE_CRASH) {
        const sat_crash *c = row;
        job->crashes++;
        if (c->ts && job->src) {
            if (!job->src->first_ts || c->ts < job->src->first_ts)
                job->src->first_ts = c->ts;
            if (c->ts > job->src->last_ts)
                job->src->last_ts = c->ts;
        }
    }
    return sat_sink_emit(job->sink, table, row);
}

int sat_collect_crash_scan(sat_crash_scan_job *job)
{
    scan_sink ss = {job};
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.ctx = &ss;
    /* both tables always: the crashes are counted even for a sink without them */
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_CRASH) | SAT_TABLE_BIT(SAT_TABLE_FRAME);
    sink.on_row = scan_row;
    sat_crash_text_opts o;
    memset(&o, 0, sizeof o);
    o.source = job->src->id;
    o.default_year = job->year;
    o.year_ref = job->year_ref;
    o.from_ns = job->from_ns;
    o.to_ns = job->to_ns;
    sat_crash_text *ct = sat_crash_text_create(&o, &sink);
    if (!ct)
        return SAT_E_NOMEM;
    const char *line;
    size_t len;
    int rc = SAT_OK, irc;
    uint64_t line_no = 0;
    while ((irc = sat_input_next_line(job->in, &line, &len, &job->diag)) == 1) {
        rc = sat_crash_text_line(ct, line, len, ++line_no);
        if (rc < 0)
            break;
    }
    if (rc >= 0)
        rc = sat_crash_text_finish(ct);
    sat_crash_text_stats st;
    sat_crash_text_get_stats(ct, &st);
    job->outside = st.outside_window;
    sat_crash_text_free(ct);
    job->lines = line_no;
    job->input_rc = irc < 0 ? irc : 0;
    return rc;
}
