/*
 * collect.c - sat_collect_run: a whole collection of inputs into one sink.
 *
 *  1. Expand the inputs: a glob pattern (glob(3)), a directory (its regular
 *     files, not recursive), a file, "-" for standard input.
 *  2. Look at each input's first bytes: a .sat trace (sat_trace_sniff) is
 *     replayed through the trace reader; a pcap/pcapng capture (after
 *     decompression) is read by capture.c; an ELF core file (also after
 *     decompression) by core_collect.c; anything else is a log whose
 *     format is sniffed (parse/ registry) and whose first timestamp is read.
 *  3. Group the logs into servers (rotation.c: a rotated set of one server's
 *     log) and order each set by the time of its content, not its names.
 *  4. Per server one joiner, fed by every file of the set in order; per file
 *     one parser state and one sat_source row, emitted once the file is done
 *     so its counts are final.
 *
 * Nothing is lost silently: every input ends up read, unreadable (warned,
 * counted) or truncated (warned, counted, its source row flagged).
 *
 * Each step is a file of its own (collect_run.h lists them); this one runs
 * them in order and makes the caller's status.
 */
#include "satscope/collect.h"
#include "satscope/parse.h"

#include <pthread.h>
#include <time.h>

#include "collect_run.h"

/* ---- the run ----------------------------------------------------------------------------- */
/* Runs may go on at once on several threads (the CLI analyses inputs in
 * parallel), all with the process's one interrupt flag: the input reader has
 * one, set by the first run to start and cleared by the last to end. */
static pthread_mutex_t interrupt_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned interrupt_runs;

static void interrupt_enter(const volatile sig_atomic_t *stop)
{
    pthread_mutex_lock(&interrupt_lock);
    if (interrupt_runs++ == 0) /* runs at once are given the one flag (cli_parallel.c) */
        sat_input_set_interrupt(stop);
    pthread_mutex_unlock(&interrupt_lock);
}

static void interrupt_leave(void)
{
    pthread_mutex_lock(&interrupt_lock);
    if (--interrupt_runs == 0)
        sat_input_set_interrupt(NULL);
    pthread_mutex_unlock(&interrupt_lock);
}

int sat_collect_run(const char *const *paths, size_t npaths,
                    const sat_collect_opts *opts, const sat_event_sink *sink,
                    sat_collect_stats *stats, sat_diag *diag)
{
    sat_collect_opts defaults;
    sat_collect_stats local;
    memset(&defaults, 0, sizeof defaults);
    if (!opts)
        opts = &defaults;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (!sink || (!paths && npaths))
        return sat_diag_set(diag, SAT_E_USAGE, "collect", "no sink or no inputs");
    if (opts->live_iface && !opts->live_duration && !opts->live_count && !opts->stop)
        return sat_diag_set(diag, SAT_E_USAGE, "collect",
                            "a live capture needs a duration, a packet count or a stop flag");
    if (opts->format && !sat_log_format_by_name(opts->format))
        return sat_diag_set(diag, SAT_E_USAGE, "collect", "unknown log format '%s'",
                            opts->format);
    if (opts->log_format && sat_http_log_format_check(opts->log_format, diag) < 0)
        return SAT_E_USAGE;

    run r;
    memset(&r, 0, sizeof r);
    r.opts = opts;
    r.sink = sink;
    r.stats = stats;
    r.next_source = opts->source_base;
    r.next_server = opts->server_base;
    /* from here on (the first looks at the inputs included) an interrupt
     * ends the read in hand, even one waiting on a FIFO */
    interrupt_enter(opts->stop);

    int rc = SAT_OK;
    for (size_t i = 0; i < npaths && rc == SAT_OK; i++)
        rc = sat_run_add_path(&r, paths[i]);
    stats->inputs += r.nitems;
    for (size_t i = 0; i < r.nitems && rc == SAT_OK; i++) {
        if (sat_run_same_file_before(&r, i))
            continue;
        sat_run_look(&r, &r.items[i]);
        r.total_raw += r.items[i].raw_size;
        if (!r.items[i].size_known && r.items[i].kind != ITEM_BAD &&
            r.items[i].kind != ITEM_SKIP)
            r.total_unknown = 1; /* a pipe: no "of N MB" then */
    }
    if (rc == SAT_OK)
        rc = sat_run_group_items(&r);

    clock_gettime(CLOCK_MONOTONIC, &r.t0);
    r.last = r.t0;
    if (rc == SAT_OK && opts->live_iface) {
        stats->inputs++;
        rc = sat_run_capture(&r, NULL);
    }

    /* Servers and traces in the order the user named them. Log servers are
     * numbered first-come; a trace's servers follow the ones used before it. */
    size_t *done_group = calloc(r.ngroups ? r.ngroups : 1, sizeof *done_group);
    if (!done_group && rc == SAT_OK)
        rc = SAT_E_NOMEM;
    for (size_t i = 0; i < r.nitems && rc >= 0; i++) {
        item *it = &r.items[i];
        if (opts->stop && *opts->stop) {
            stats->interrupted = 1;
            if (it->kind != ITEM_BAD && it->kind != ITEM_SKIP &&
                !(it->kind == ITEM_LOG && done_group[it->group]))
                stats->not_started++;
            continue;
        }
        if (it->kind == ITEM_TRACE) {
            rc = sat_run_trace(&r, it);
        } else if (it->kind == ITEM_CAPTURE) {
            rc = sat_run_capture(&r, it);
        } else if (it->kind == ITEM_CORE) {
            rc = sat_run_core(&r, it);
        } else if (it->kind == ITEM_LOG && !done_group[it->group]) {
            done_group[it->group] = 1;
            rc = sat_run_log_set(&r, &r.groups[it->group]);
        }
    }
    free(done_group);
    sat_run_progress_clear(&r);
    interrupt_leave();
    stats->next_source = r.next_source;
    stats->next_server = r.next_server;

    for (size_t i = 0; i < r.nitems; i++) {
        sat_input_close(r.items[i].kept);
        free(r.items[i].path);
    }
    free(r.items);
    for (size_t g = 0; g < r.ngroups; g++) {
        free(r.groups[g].key);
        free(r.groups[g].items);
    }
    free(r.groups);

    if (rc >= 0 && r.nomem)
        rc = SAT_E_NOMEM;
    if (rc < 0) {
        if (rc == SAT_E_NOMEM)
            sat_diag_set(diag, rc, "collect", "out of memory");
        return rc; /* a sink's status or an allocation failure */
    }
    if (stats->unreadable || stats->truncated || stats->damaged_blocks ||
        stats->damaged_headers) {
        int code = stats->unreadable ? SAT_E_IO
                   : stats->truncated ? SAT_E_TRUNCATED : SAT_E_CORRUPT;
        uint64_t nprob = stats->unreadable + stats->truncated + stats->damaged_blocks +
                         stats->damaged_headers;
        if (diag) {
            *diag = r.first_problem;
            if (nprob > 1) {
                char more[96];
                snprintf(more, sizeof more, " (and %llu more input problem%s, see above)",
                         (unsigned long long)(nprob - 1), nprob > 2 ? "s" : "");
                size_t l = strlen(diag->msg);
                snprintf(diag->msg + l, sizeof diag->msg - l, "%s", more);
            }
            diag->code = code;
        }
        return code;
    }
    return SAT_OK;
}
