/*
 * collect_progress.c - what a collection tells the user while it runs: a
 * warning per input problem (to the caller's warn callback, else stderr as
 * "satscope: PATH: MSG"), the first problem kept for the caller's diag, and
 * the progress line on stderr (file, MB read of the total, lines per second),
 * cleared before any warning so the two never mix on one line.
 */
#include <stdarg.h>

#include "collect_run.h"

/* ---- warnings and progress ------------------------------------------------------ */

void sat_collect_warnf(sat_collect_warn_fn warn, void *ctx, const char *path, const char *fmt,
                       ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (warn)
        warn(ctx, path, msg);
    else
        fprintf(stderr, "satscope: %s: %s\n", path, msg);
}

void sat_run_progress_clear(run *r)
{
    if (r->progress_shown) {
        fprintf(stderr, "\r%-79s\r", "");
        r->progress_shown = 0;
    }
}

void sat_run_warn(run *r, const char *where, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sat_run_progress_clear(r);
    if (r->opts->warn)
        r->opts->warn(r->opts->warn_ctx, where, msg);
    else
        fprintf(stderr, "satscope: %s%s%s\n", where ? where : "",
                where && *where ? ": " : "", msg);
}

void sat_run_problem(run *r, int code, const char *where, const char *msg)
{
    /* an input that could not be opened or read for want of memory is not
     * an unreadable input: the run failed (sat_collect returns SAT_E_NOMEM) */
    if (code == SAT_E_NOMEM)
        r->nomem = 1;
    if (!r->first_problem.code)
        sat_diag_set(&r->first_problem, code, where, "%s", msg);
}

static double secs(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void sat_run_progress(run *r, const char *path, sat_input *in, uint64_t lines_now)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (secs(&r->last, &now) < 0.25)
        return;
    r->last = now;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    double el = secs(&r->t0, &now);
    double lps = el > 0 ? (double)(r->stats->lines + lines_now - r->lines_at_t0) / el : 0;
    double mb = (double)(r->done_raw + sat_input_raw_bytes(in)) / 1e6;
    char line[160];
    if (r->total_raw && !r->total_unknown)
        snprintf(line, sizeof line, "satscope: %.32s  %.1f / %.1f MB  %.2f M lines/s",
                 base, mb, (double)r->total_raw / 1e6, lps / 1e6);
    else
        snprintf(line, sizeof line, "satscope: %.32s  %.1f MB  %.2f M lines/s", base,
                 mb, lps / 1e6);
    fprintf(stderr, "\r%-79.79s", line);
    fflush(stderr);
    r->progress_shown = 1;
}
