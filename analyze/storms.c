/*
 * storms.c - the timeout-storm analyzer ("satscope storms"): client
 * failures from every source, counted per window, a detector that finds the
 * windows where they rose above the series' own baseline, adjacent windows
 * merged into storms, and per storm what rose before it and whether the
 * failures outlived their trigger (a metastable failure).
 *
 * This file: the accumulators' descriptions, create, free, the storms found
 * (storms_found.h). The rest of the analyzer, sharing storms_internal.h:
 *   storms_signals.c   what each signal and kind of failure is, in words
 *   storms_windows.c   the windows of a series (st_win)
 *   storms_detect.c    the detector (sat_storms_detect)
 *   storms_classify.c  rows to client failures (the event sink), dedup, the retry rule
 *   storms_http.c      HTTP requests to client failures and the load
 *   storms_chain.c     one storm described: failures, clients, its chain of signals
 *   storms_servers.c   the servers: each row to the sub-analyzer of its server, the
 *                      subs told apart into servers at finish, each finished on its own
 *                      (sat_storms_sink, sat_storms_finish, sat_storms_merge)
 *   storms_merge.c     one server's merge (a walk over the accumulators described here)
 *   storms_period.c    one server's finish: periods, their steps, the storms of each
 *   storms_result.c    the result sections every form renders (sat_storms_result)
 */
#include "storms_internal.h"

const sat_dur_ns st_auto_steps[ST_SERIES_MAX] = {
    1000000000LL, 2000000000LL, 5000000000LL, 10000000000LL};

/* ---- accumulators (acc.h): what sat_storms_merge adds up ------------------------------- */
#define ST_COUNTER(type, f, key, title, note) SAT_COUNTER(type, f, key, title, note),
#define ST_FAILURES_ACC(f, key, title, note) ST_COUNTER(st_failures, f, key, title, note)
#define ST_ROWS_ACC(f, key, title, note) ST_COUNTER(st_rows, f, key, title, note)
#define ST_HTTP_ACC(f, key, title, note) ST_COUNTER(st_http_inputs, f, key, title, note)
#define ST_STORM_ACC(f, key, title, note) ST_COUNTER(st_counts, f, key, title, note)
static const sat_acc_field failures_fields[] = {ST_FAILURE_TOTALS(ST_FAILURES_ACC)};
const sat_rec_desc st_failures_desc = {sizeof(st_failures), failures_fields,
                                       sizeof failures_fields / sizeof failures_fields[0], NULL};
static const sat_acc_field rows_fields[] = {ST_ROWS_READ(ST_ROWS_ACC)};
const sat_rec_desc st_rows_desc = {sizeof(st_rows), rows_fields,
                                   sizeof rows_fields / sizeof rows_fields[0], NULL};
static const sat_acc_field http_fields[] = {ST_HTTP_INPUTS(ST_HTTP_ACC)};
const sat_rec_desc st_http_inputs_desc = {sizeof(st_http_inputs), http_fields,
                                          sizeof http_fields / sizeof http_fields[0], NULL};
#define ST_WIN_OUT_ACC(f, key, title, note) ST_COUNTER(st_win_counts, f, key, title, note)
static const sat_acc_field counts_fields[] = {ST_STORM_COUNTS(ST_STORM_ACC)};
const sat_rec_desc st_counts_desc = {sizeof(st_counts), counts_fields,
                                     sizeof counts_fields / sizeof counts_fields[0], NULL};
static const sat_acc_field win_out_fields[] = {ST_WIN_OUT(ST_WIN_OUT_ACC)};
const sat_rec_desc st_win_counts_desc = {sizeof(st_win_counts), win_out_fields,
                                         sizeof win_out_fields / sizeof win_out_fields[0], NULL};

static const sat_acc_field totals_fields[] = {
    SAT_ACC_RUN(SAT_ACC_COUNT, st_totals, kinds),
    SAT_ACC_RUN(SAT_ACC_COUNT, st_totals, f),
    SAT_ACC_RUN(SAT_ACC_COUNT, st_totals, rows),
    SAT_ACC_RUN(SAT_ACC_COUNT, st_totals, http),
    SAT_ACC(SAT_ACC_BITS, st_totals, clients_lost),
    SAT_ACC(SAT_ACC_FIRST, st_totals, first_ts),
    SAT_ACC(SAT_ACC_LAST, st_totals, last_ts)};
const sat_rec_desc st_totals_desc = {sizeof(st_totals), totals_fields,
                                     sizeof totals_fields / sizeof totals_fields[0], NULL};

static const sat_acc_field src_fields[] = {SAT_ACC(SAT_ACC_MIN, st_src, first_ts),
                                           SAT_ACC(SAT_ACC_MAX, st_src, last_ts)};
const sat_rec_desc st_src_desc = {sizeof(st_src), src_fields, 2, NULL};
static const sat_acc_field server_fields[] = {SAT_ACC(SAT_ACC_COUNT, st_server, sources)};
const sat_rec_desc st_server_desc = {sizeof(st_server), server_fields, 1, NULL};
static const sat_acc_field srcid_fields[] = {SAT_ACC(SAT_ACC_MIN, st_srcid, first_ts),
                                             SAT_ACC(SAT_ACC_MAX, st_srcid, last_ts),
                                             SAT_ACC(SAT_ACC_MAX, st_srcid, server)};
const sat_rec_desc st_srcid_desc = {sizeof(st_srcid), srcid_fields, 3, NULL};
static const sat_acc_field cw_fields[] = {SAT_ACC(SAT_ACC_COUNT, st_cw, n)};
const sat_rec_desc st_cw_desc = {sizeof(st_cw), cw_fields, 1, NULL};

/* ---- lifecycle ---------------------------------------------------------------------- */
/* The analyzer a caller holds routes rows to one sub per server
 * (storms_servers.c): a router; its subs and the servers' merged analyzers
 * are plain ones. */
sat_storms *sat_storms_create(const sat_storms_opts *opts) { return st_create(opts, 1); }

sat_storms *st_create(const sat_storms_opts *opts, int router)
{
    sat_storms *s = (sat_storms *)calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (opts)
        s->opts = *opts;
    s->opts_in = s->opts;
    s->router = router;
    sat_strtab_init(&s->subkeys, sizeof(uint32_t), 0);
    s->auto_window = s->opts.window <= 0;
    s->nser = s->auto_window ? ST_SERIES_MAX : 1;
    for (int i = 0; i < s->nser; i++) {
        s->ser[i].base = s->ser[i].window = s->auto_window ? st_auto_steps[i] : s->opts.window;
        sat_strtab_init(&s->ser[i].windows, sizeof(st_win), 0);
    }
    s->opts.window = s->ser[0].base; /* the client-window table: the finest step */
    if (!s->opts.top_clients)
        s->opts.top_clients = 5;
    if (s->opts.retry_window <= 0) /* the handshakes analyzer's default too */
        s->opts.retry_window = 10 * (sat_dur_ns)1000000000;
    if (s->opts.slow == 0)
        s->opts.slow = SAT_STORMS_SLOW_DEFAULT;
    sat_strtab_init(&s->ldap_dedup, sizeof(st_dedup), ST_DEDUP_MAX);
    sat_strtab_init(&s->wire_dedup, sizeof(st_dedup), ST_DEDUP_MAX);
    sat_strtab_init(&s->peers, sizeof(uint32_t), ST_CLIENTS_MAX);
    s->found.arena.chunk_size = (size_t)64 << 10;
    if (sat_keyed_init(&s->sources, &st_src_desc, ST_CLIENTS_MAX) != SAT_OK ||
        sat_keyed_init(&s->cw, &st_cw_desc, ST_CW_MAX) != SAT_OK ||
        sat_keyed_init(&s->wire_servers, &st_server_desc, 0) != SAT_OK ||
        sat_keyed_init(&s->src_ids, &st_srcid_desc, ST_CLIENTS_MAX) != SAT_OK ||
        sat_keyed_init(&s->addrs, &st_server_desc, 256) != SAT_OK ||
        sat_keyed_init(&s->wire_sources, &st_server_desc, ST_CLIENTS_MAX) != SAT_OK) {
        sat_storms_free(s);
        return NULL;
    }
    return s;
}

const sat_storms_view *st_storms_found(const sat_storms *s) { return s ? &s->found.storms : NULL; }

void sat_storms_free(sat_storms *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nser; i++)
        sat_strtab_free(&s->ser[i].windows);
    sat_keyed_free(&s->sources);
    sat_keyed_free(&s->cw);
    sat_strtab_free(&s->ldap_dedup);
    sat_strtab_free(&s->wire_dedup);
    sat_strtab_free(&s->peers);
    sat_keyed_free(&s->wire_servers);
    sat_keyed_free(&s->src_ids);
    sat_keyed_free(&s->addrs);
    sat_keyed_free(&s->wire_sources);
    for (size_t i = 0; i < s->nsubs; i++)
        sat_storms_free(s->subs[i]);
    free(s->subs);
    sat_strtab_free(&s->subkeys);
    st_free_groups(s);
    free(s->attempts);
    free(s->hs_unfinished);
    free(s->waiting);
    sat_arena_free(&s->found.arena);
    free(s);
}
