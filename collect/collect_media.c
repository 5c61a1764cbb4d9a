/*
 * collect_media.c - the inputs that are not text: one capture file (pcap,
 * pcapng) or the live interface, read by capture.c with its rows through the
 * --from/--to window, and one core file, read by core_collect.c; each one
 * source, counted in the run's stats, its problems warned.
 */
#include "collect_run.h"

static void warn_cb(void *ctx, const char *where, const char *msg)
{
    sat_run_warn((run *)ctx, where, "%s", msg);
}

/* One capture file, or the live interface when it == NULL. */
int sat_run_capture(run *r, item *it)
{
    window win = {r->sink, r->opts->from_ns, r->opts->to_ns};
    /* Captures: every row table through the window (sources stay outside it);
     * rejects are always made (the window passes them on if wanted). */
    sat_event_sink rows = {&win,
                           ((r->sink->on_row ? r->sink->tables : 0) &
                            ~SAT_TABLE_BIT(SAT_TABLE_SOURCE)) | SAT_TABLE_BIT(SAT_TABLE_REJECT),
                           sat_run_window_row};
    sat_capture_job job;
    memset(&job, 0, sizeof job);
    job.path = it ? it->path : NULL;
    job.in = it ? it->kept : NULL;
    job.opts = r->opts;
    job.sink = r->sink;
    job.rows = &rows;
    job.source_id = r->next_source++;
    job.server = r->next_server++;
    job.stats = r->stats;
    job.warn = warn_cb;
    job.warn_ctx = r;
    int rc = sat_capture_collect(&job);
    if (it && it->kept) {
        sat_input_close(it->kept);
        it->kept = NULL;
    }
    if (it)
        r->done_raw += it->raw_size;
    if (job.unreadable) {
        r->stats->unreadable++;
        sat_run_problem(r, job.problem.code ? job.problem.code : SAT_E_IO,
                job.path ? job.path : "capture", job.problem.msg);
    } else if (job.truncated) {
        r->stats->truncated++;
        sat_run_problem(r, SAT_E_TRUNCATED, job.path ? job.path : "capture", job.problem.msg);
    }
    return rc;
}

/* One core file: its frames and crash row, then its source row. */
int sat_run_core(run *r, item *it)
{
    sat_core_job job;
    memset(&job, 0, sizeof job);
    job.path = it->path;
    job.in = it->kept;
    job.opts = r->opts;
    job.sink = r->sink;
    job.rows = r->sink;
    job.source_id = r->next_source++;
    job.server = r->next_server++;
    job.mtime = it->mtime;
    job.stats = r->stats;
    job.warn = warn_cb;
    job.warn_ctx = r;
    int rc = sat_core_collect(&job);
    if (it->kept) {
        sat_input_close(it->kept);
        it->kept = NULL;
    }
    r->done_raw += it->raw_size;
    if (job.unreadable) {
        r->stats->unreadable++;
        sat_run_problem(r, job.problem.code ? job.problem.code : SAT_E_IO, it->path, job.problem.msg);
    } else if (job.truncated) {
        r->stats->truncated++;
        sat_run_problem(r, SAT_E_TRUNCATED, it->path, job.problem.msg);
    }
    return rc;
}
