/*
 * collect_log.c - one rotated set of logs (one server): one joiner fed by
 * every file of the set in order, --from/--to applied to its rows; per file
 * one parser state (or the two-thread parser, parse_parallel.c, for a format
 * whose lines are independent) and one sat_source row, emitted once the file
 * is done so that its counts are final. A text file that is no log, or a log
 * none of whose lines was its format's, is read for crash reports written as
 * text (crash_scan.c).
 */
#include "collect_run.h"
#include "parse_parallel.h"

typedef struct progress_at {
    run *r;
    const char *path;
    sat_input *in;
} progress_at;

static void progress_cb(void *u, uint64_t lines)
{
    progress_at *a = (progress_at *)u;
    sat_run_progress(a->r, a->path, a->in, lines);
}

/* ---- crash reports written as text (crash_scan.c) ------------------------------------------
 * Read `in` through the crash-text scanner into the sink, its rows carrying
 * src's id. Returns the crashes found, in the time window or not (0 also when
 * the input is not text), or a sink's negative status. */
static int64_t scan_for_crashes(run *r, item *it, sat_input *in, sat_source *src)
{
    size_t plen = 0;
    const char *peek = sat_input_peek(in, &plen);
    if (!sat_collect_is_text(peek, plen))
        return 0;
    sat_crash_scan_job job;
    memset(&job, 0, sizeof job);
    job.in = in;
    job.sink = r->sink;
    job.src = src;
    /* the year the log lines of this file were given, or the same rule */
    job.year = r->opts->year ? r->opts->year : it->yearless ? it->year : 0;
    job.year_ref = it->mtime;
    job.from_ns = r->opts->from_ns;
    job.to_ns = r->opts->to_ns;
    int rc = sat_collect_crash_scan(&job);
    if (rc < 0)
        return rc;
    if (job.input_rc < 0 && !src->truncated) {
        src->truncated = 1;
        r->stats->truncated++;
        sat_run_warn(r, it->path, "%s", job.diag.msg);
        sat_run_problem(r, job.input_rc, it->path, job.diag.msg);
    }
    uint64_t found = job.crashes + job.outside;
    if (found && !src->lines)
        src->lines = job.lines;
    return (int64_t)found;
}

/* ---- one log file ----------------------------------------------------------------------- */
/* The first line of a file that its format rejected, noted on the rejects' way
 * to the sink (one thread's or parse_parallel.c's replay alike): a file not
 * one line of which was read is said with it. */
typedef struct first_reject {
    const sat_event_sink *inner;
    uint64_t line_no; /* 0: none yet */
    char reason[160];
} first_reject;

static int note_reject(void *ctx, int table, const void *row)
{
    first_reject *f = ctx;
    if (table == SAT_TABLE_REJECT && !f->line_no) {
        const sat_reject *x = row;
        f->line_no = x->line_no;
        snprintf(f->reason, sizeof f->reason, "%.*s", (int)x->reason.len,
                 x->reason.ptr ? x->reason.ptr : "");
    }
    return sat_sink_emit(f->inner, table, row);
}

/* A file whose every line its format rejected: nothing of it was analysed,
 * an unreadable input, said at its first line with why that line was not read
 * (for a --log-format, the format's field where the line stopped matching). */
static void nothing_read(run *r, const char *path, const sat_source *src,
                         const first_reject *first)
{
    char where[1200];
    snprintf(where, sizeof where, "%s:%llu", path, (unsigned long long)first->line_no);
    r->stats->unreadable++;
    sat_run_warn(r, first->line_no ? where : path,
                 "nothing analysed, all %llu lines rejected, this first: %s",
                 (unsigned long long)src->rejects, first->line_no ? first->reason : "?");
    sat_run_problem(r, SAT_E_FORMAT, path, "no line of it was read");
}

/* A log's source row, named as --server and the CLI's defaults say once the
 * log's own header has been read. */
static int emit_source(run *r, const item *it, sat_source *src)
{
    sat_collect_name_source(r->opts, it->path, src);
    return sat_sink_emit(r->sink, SAT_TABLE_SOURCE, src);
}

static int collect_file(run *r, item *it, uint32_t server, sat_ldap_join *join,
                        const sat_event_sink *rows)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_input *in = it->kept;
    it->kept = NULL;
    if (!in)
        in = sat_input_open(it->path, &d);
    if (!in) { /* vanished or changed between the two looks */
        r->stats->unreadable++;
        sat_run_warn(r, it->path, "%s", d.msg);
        sat_run_problem(r, d.code ? d.code : SAT_E_IO, it->path, d.msg);
        return SAT_OK;
    }

    sat_source src;
    memset(&src, 0, sizeof src);
    src.id = r->next_source++;
    src.server = server;
    src.path = sat_str_cstr(it->path);
    src.kind = sat_str_cstr("log");
    src.compression = sat_str_cstr(sat_input_compression(in));
    src.server_name = SAT_STR_NONE;
    src.server_version = SAT_STR_NONE;

    if (!it->fmt) {
        int64_t crashes = it->empty ? 0 : scan_for_crashes(r, it, in, &src);
        if (crashes < 0) {
            sat_input_close(in);
            return (int)crashes;
        }
        if (crashes > 0) {
            /* not a log satscope parses, but crash reports were written in it */
            src.format = sat_str_cstr("crash-text");
            src.bytes = sat_input_bytes(in);
            r->stats->bytes += src.bytes;
            r->stats->lines += src.lines;
            r->done_raw += sat_input_raw_bytes(in);
            sat_input_close(in);
            return emit_source(r, it, &src);
        }
        if (it->companion) {
            /* however it was named (`access*` takes access.rotationinfo), it
             * is no log to analyse: said, counted, not an error */
            src.format = sat_str_cstr("unknown");
            r->stats->skipped++;
            sat_run_warn(r, NULL, "skipped: %s (%s)", it->path, it->companion);
        } else if (it->empty) {
            src.format = sat_str_cstr("empty");
            /* A compressed file cut before its first line decodes to nothing:
             * that is a damaged input, not an empty one. */
            const char *l;
            size_t n;
            sat_diag d2;
            memset(&d2, 0, sizeof d2);
            if (sat_input_next_line(in, &l, &n, &d2) < 0) {
                src.truncated = 1;
                r->stats->unreadable++;
                sat_run_warn(r, it->path, "%s", d2.msg);
                sat_run_problem(r, d2.code ? d2.code : SAT_E_TRUNCATED, it->path, d2.msg);
            }
        } else if (it->expanded && !r->opts->format) {
            /* The user named a directory or a pattern, not this file: a
             * README or a core beside the logs is passed over, said, and
             * counted, but the collection is not failed for it. */
            src.format = sat_str_cstr("unknown");
            r->stats->skipped++;
            sat_run_warn(r, it->path, "skipped: not a recognised log format (first bytes: \"%s\")",
                 it->first_bytes);
        } else {
            src.format = sat_str_cstr("unknown");
            r->stats->unreadable++;
            if (r->opts->format) {
                sat_run_warn(r, it->path, "unknown log format '%s'", r->opts->format);
                sat_run_problem(r, SAT_E_USAGE, it->path, "unknown log format");
            } else {
                sat_run_warn(r, it->path, "not a recognised log format (first bytes: \"%s\")",
                     it->first_bytes);
                sat_run_problem(r, SAT_E_FORMAT, it->path, "not a recognised log format");
            }
        }
        src.bytes = sat_input_bytes(in);
        sat_input_close(in);
        return emit_source(r, it, &src);
    }
    src.format = sat_str_cstr(it->fmt->name);

    sat_parse_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.join = join;
    first_reject first = {r->sink, 0, ""};
    sat_event_sink noted = {&first, r->sink->tables | SAT_TABLE_BIT(SAT_TABLE_REJECT),
                            note_reject};
    ctx.sink = &noted;
    ctx.rows = rows; /* rows a format emits itself (http_req), behind the window */
    ctx.log_format = r->opts->log_format;
    ctx.source = &src;
    ctx.reject_sample_max = r->opts->reject_sample_max ? r->opts->reject_sample_max : 100;
    /* Syslog timestamps have no year: the year found for the file's first
     * line (see the probe and order_years), said once; the parser bumps it
     * itself when the months wrap Dec -> Jan. */
    ctx.default_year = it->yearless || !r->opts->year ? it->year : r->opts->year;
    if (it->yearless)
        sat_run_warn(r, it->path, "syslog timestamps carry no year: %d assumed for the first line (%s)",
             ctx.default_year, it->year_why);

    sat_pp *pp = NULL;
    void *st = NULL;
    if (r->opts->parse_threads >= 2 && it->fmt->line_independent)
        pp = sat_pp_create(it->fmt, &ctx, r->opts->parse_chunk_bytes);
    if (!pp)
        st = it->fmt->create(&ctx);
    if (!pp && !st) {
        sat_input_close(in);
        return SAT_E_NOMEM;
    }
    uint64_t line_no = 0, cut_here = 0;
    int rc = SAT_OK, irc = 0;
    if (pp) {
        progress_at at = {r, it->path, in};
        sat_pp_result res;
        rc = sat_pp_run(pp, in, r->opts->progress ? progress_cb : NULL, &at, &res, &d);
        line_no = res.lines;
        cut_here = res.cut_lines;
        irc = res.input_rc;
    } else {
        const char *line;
        size_t len;
        while ((irc = sat_input_next_line(in, &line, &len, &d)) == 1) {
            line_no++;
            rc = it->fmt->line(st, line, len, line_no);
            if (rc < 0)
                break;
            if (r->opts->progress && (line_no & 0x3fff) == 0)
                sat_run_progress(r, it->path, in, line_no);
        }
    }
    if (rc >= 0 && sat_input_interrupted(in)) {
        /* The input ended at the interrupt (sat_input_set_interrupt): the
         * lines read before it are parsed and joined as usual, one of the
         * two parser threads' chunks included; the rest is not read. */
        src.truncated = 1;
        r->stats->interrupted = 1;
        size_t cut = sat_input_cut_by_interrupt(in);
        if (cut)
            sat_run_warn(r, it->path,
                         "interrupted after %llu lines: the rest of this input was not read "
                         "(nor the %zu bytes of the line it stopped inside)",
                         (unsigned long long)line_no, cut);
        else
            sat_run_warn(r, it->path,
                         "interrupted after %llu lines: the rest of this input was not read",
                         (unsigned long long)line_no);
    }
    if (rc >= 0 && irc < 0) {
        /* Everything decodable was parsed; say what was lost. */
        src.truncated = 1;
        r->stats->truncated++;
        sat_run_warn(r, it->path, "%s", d.msg);
        sat_run_problem(r, irc, it->path, d.msg);
    }
    if (rc >= 0 && st)
        rc = it->fmt->finish(st); /* sat_pp_run finished its own states */
    src.bytes = sat_input_bytes(in);
    src.lines = line_no;
    if (rc >= 0 && src.lines && src.rejects == src.lines && it->size_known) {
        /* Not one line was this format's (a 389 errors log has the access
         * log's timestamps): read it again for crashes written as text. */
        sat_diag d2;
        memset(&d2, 0, sizeof d2);
        sat_input *again = sat_input_open(it->path, &d2);
        int64_t crashes = again ? scan_for_crashes(r, it, again, &src) : 0;
        sat_input_close(again);
        if (crashes < 0)
            rc = (int)crashes;
        else if (crashes > 0)
            sat_run_warn(r, it->path, "no line was %s; %lld crash report%s written as text found in it",
                 it->fmt->name, (long long)crashes, crashes == 1 ? "" : "s");
        else
            nothing_read(r, it->path, &src, &first);
    } else if (rc >= 0 && src.rejects && !src.first_ts && !src.last_ts) {
        nothing_read(r, it->path, &src, &first); /* blank lines aside, none was read */
    }
    uint64_t cut = sat_input_cut_lines(in) + cut_here;
    if (cut)
        sat_run_warn(r, it->path, "%llu line%s longer than 1 MiB cut at 1 MiB",
             (unsigned long long)cut, cut == 1 ? "" : "s");
    r->stats->bytes += src.bytes;
    r->stats->lines += src.lines;
    r->stats->rejects += src.rejects;
    r->done_raw += sat_input_raw_bytes(in);
    /* what it can carry (fields.h); a file not one line of which was the
     * format's holds no LDAP rows and declares nothing */
    if (src.fields & SAT_FIELDS_HTTP_SOURCE) /* an HTTP log's format said it (fmt_http.c) */
        src.fields = src.lines > src.rejects ? src.fields : 0;
    else
        src.fields = src.lines > src.rejects ? sat_fields_settle(src.format, src.fields) : 0;
    if (rc >= 0)
        rc = emit_source(r, it, &src);
    if (st)
        it->fmt->destroy(st);
    sat_pp_free(pp); /* after the source row: it holds the header strings */
    sat_input_close(in);
    return rc;
}

/* http_req rows counted on their way to the window (the parsers emit them
 * on the calling thread, parse_parallel.c included). */
typedef struct counted {
    const sat_event_sink *inner;
    uint64_t *count;
} counted;

static int count_row(void *ctx, int table, const void *row)
{
    counted *c = ctx;
    if (table == SAT_TABLE_HTTP_REQ)
        (*c->count)++;
    return sat_sink_emit(c->inner, table, row);
}

int sat_run_log_set(run *r, group *g)
{
    uint32_t server = r->next_server++;
    sat_run_order_set(r, g);
    window win = {r->sink, r->opts->from_ns, r->opts->to_ns};
    sat_event_sink windowed = *r->sink;
    if (win.from || win.to) {
        windowed.ctx = &win;
        windowed.on_row = sat_run_window_row;
    }
    counted cnt = {&windowed, &r->stats->http_requests};
    sat_event_sink rows = {&cnt, windowed.tables | SAT_TABLE_BIT(SAT_TABLE_HTTP_REQ), count_row};
    sat_ldap_join *join = sat_ldap_join_create(server, &windowed, r->opts->max_pending);
    if (!join)
        return SAT_E_NOMEM;
    sat_ldap_join_set_filter_shapes(join, !r->opts->no_filter_shapes);
    sat_ldap_join_set_max_open(join, r->opts->max_open);
    int rc = SAT_OK;
    for (size_t i = 0; i < g->nitems && rc >= 0; i++) {
        if (r->opts->stop && *r->opts->stop) { /* interrupted: the rest of the set waits */
            r->stats->interrupted = 1;
            r->stats->not_started++;
            continue;
        }
        rc = collect_file(r, &r->items[g->items[i]], server, join, &rows);
    }
    if (rc >= 0)
        rc = sat_ldap_join_finish(join);
    sat_join_stats js;
    sat_ldap_join_stats(join, &js);
    r->stats->ops += js.ops;
    r->stats->conns += js.conns;
    r->stats->unfinished += js.unfinished;
    r->stats->conns_evicted += js.conns_evicted;
    r->stats->ops_evicted += js.evicted;
    sat_ldap_join_free(join);
    return rc;
}
