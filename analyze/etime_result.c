/*
 * etime_result.c - the etime analyzer's results as result sections
 * (satscope/result.h), written once at the end from the analyzer's state
 * (etime_int.h), which every form renders: JSON and CSV by the one writer,
 * text by report/sections/section_etime*.c. Key names follow
 * docs/output.md: times in *_ts, seconds in *_s, shares 0..1, a grouped
 * table's key column named after its dimension ("op", "client", ...;
 * "start_ts" for minutes, which are a time series) and "by" saying which.
 *
 * A figure counted from a field no input can carry (fields.h) is absent
 * (null), not 0; the "not_logged" table says which fields and why, and the
 * text notes come from it.
 *
 * Requests of HTTP logs have sections of their own (etime_http_result.c):
 * on HTTP logs alone they are the result, with the inputs; beside a
 * directory's logs, its "http" object. The lists (codes, unindexed
 * searches, tops, abandons, inputs) are etime_result_tables.c's.
 *
 * Writing is linear in the state's rows (tops keep only their first rows)
 * and runs once, after the last row; it leaves the state as it was, which
 * may still be merged and finished again.
 */
#include <string.h>

#include "etime_names.h"
#include "etime_result_int.h"

#define DUR ET_DUR

/* ---- figures the inputs cannot hold (fields.h) -------------------------------------- */

static int fknown(const sat_etime *e, int field)
{
    return (sat_fields_known(&e->fields) & SAT_FIELD_BIT(field)) != 0;
}

/* A count from `field`: absent when no input can carry it. */
static void fcount(sat_rnode *o, const char *key, const sat_etime *e, int field, uint64_t n)
{
    if (fknown(e, field))
        sat_put_count(o, key, n);
    else
        sat_put_absent(o, key, SAT_UNIT_COUNT);
}

/* the first of two fields that is not known, else the first partial one */
static int fworst(const sat_etime *e, int a, int b)
{
    if (!fknown(e, a))
        return a;
    if (!fknown(e, b))
        return b;
    return e->fields.without[a] ? a : b;
}

void et_put_not_logged(sat_rnode *p, const sat_fields_seen *f)
{
    /* the fields some input cannot carry: the figures from them are absent
     * (none can) or partial (some can) */
    static const sat_col cols[] = {{"field", SAT_UNIT_TEXT, 0, NULL},
                                   {"partial", SAT_UNIT_BOOL, 0, NULL},
                                   {"of_inputs", SAT_UNIT_COUNT, 0, NULL},
                                   {"inputs_without", SAT_UNIT_COUNT, 0, NULL},
                                   {"why", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(p, "not_logged", cols, 5);
    uint32_t known = sat_fields_known(f);
    for (int k = 0; k < SAT_FIELD__COUNT; k++) {
        if (!f->without[k])
            continue;
        sat_rnode *o = sat_table_row(t);
        sat_put_text(o, "field", sat_field_name(k));
        sat_put_bool(o, "partial", (known & SAT_FIELD_BIT(k)) != 0);
        sat_put_count(o, "of_inputs", f->inputs);
        sat_put_count(o, "inputs_without", f->without[k]);
        sat_put_text(o, "why", f->why[k]);
    }
}

/* ---- groups and the series ---------------------------------------------------------- */

sat_rnode *et_group_table(sat_rnode *parent, const char *name, const char *keycol, int keyunit,
                          const char *keytitle, const sat_rec_desc *desc,
                          const char *count_title)
{
    sat_col cols[32];
    cols[0] = (sat_col){keycol, (uint8_t)keyunit, 0, keytitle};
    size_t n = 1 + sat_rec_cols(desc, cols + 1, 31);
    for (size_t i = 1; count_title && i < n; i++)
        if (!strcmp(cols[i].name, "count"))
            cols[i].title = count_title;
    return sat_table(parent, name, cols, n);
}

/* A row of a group table: its key, then the group's columns. */
static void group_row(sat_rnode *t, const char *keycol, const char *key, const et_group *g,
                      const et_row_ctx *ctx)
{
    sat_rnode *o = sat_table_row(t);
    sat_put_text(o, keycol, key);
    sat_rec_row(&et_group_desc, o, g, ctx);
}

/* --by minute: a group per window of the series, its rate over the window. */
typedef struct minute_walk {
    sat_rnode *groups, *windows; /* groups NULL: the series only */
    et_row_ctx ctx;
    int64_t width; /* ns */
} minute_walk;

static void minute_row(void *ctx, int64_t w, const et_group *g)
{
    minute_walk *m = (minute_walk *)ctx;
    sat_rnode *o = sat_table_row(m->windows);
    sat_put_time(o, "start_ts", w * m->width);
    sat_rec_row(&et_window_out, o, g, NULL);
    if (m->groups) {
        o = sat_table_row(m->groups);
        sat_put_time(o, "start_ts", w * m->width);
        sat_rec_row(&et_group_desc, o, g, &m->ctx);
    }
}

/* The --by groups other than minutes: the keyed table's rows by total etime,
 * "(other)" last. */
static int keyed_groups(sat_rnode *t, const char *kc, const sat_etime *e, const et_row_ctx *ctx)
{
    const sat_keyed *kt = &e->groups.k;
    size_t nk = sat_keyed_n(kt);
    const char **keys = (const char **)calloc(nk ? nk : 1, sizeof *keys);
    char (*conn)[96] = e->opts.by == SAT_ETIME_BY_CONN
                           ? (char (*)[96])malloc((nk ? nk : 1) * sizeof *conn)
                           : NULL;
    const et_group **gs = (const et_group **)calloc(nk ? nk : 1, sizeof *gs);
    if (!keys || !gs || (e->opts.by == SAT_ETIME_BY_CONN && !conn)) {
        free(keys);
        free(conn);
        free((void *)gs);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < nk; i++) {
        keys[i] = sat_keyed_key(kt, i);
        gs[i] = (const et_group *)sat_keyed_rec(kt, i);
        if (conn) {
            et_connkey ck;
            memcpy(&ck, keys[i], sizeof ck);
            if (ck.server == 0 && ck.epoch == 0)
                snprintf(conn[i], sizeof conn[i], "conn=%lld", (long long)ck.conn);
            else
                snprintf(conn[i], sizeof conn[i], "conn=%lld server=%u restart=%u",
                         (long long)ck.conn, ck.server, ck.epoch);
            keys[i] = conn[i];
        }
    }
    size_t *order = et_group_order(keys, gs, nk);
    int st = order ? SAT_OK : SAT_E_NOMEM;
    for (size_t i = 0; order && i < nk; i++)
        group_row(t, kc, keys[order[i]], gs[order[i]], ctx);
    const et_group *other = (const et_group *)kt->other;
    if (other->count)
        group_row(t, kc, "(other)", other, ctx);
    free(order);
    free(keys);
    free(conn);
    free((void *)gs);
    return st;
}

/* Where the time went: per operation type (the types seen, in enum order,
 * UNKNOWN last), then "all" (every operation with a RESULT) as its last
 * row; the --by groups; the series. Returns the main table. */
static const sat_rnode *groups(sat_rnode *root, const sat_etime *e, int by, double span,
                               sat_rnode **minute_groups)
{
    *minute_groups = NULL;
    et_row_ctx ctx = {sat_sum_d(e->all.esum), span};
    sat_rnode *ops = et_group_table(root, "ops", "op", SAT_UNIT_TEXT, NULL, &et_group_desc, NULL);
    for (int t = 1; t <= SAT_OP__COUNT; t++) {
        int tt = t % SAT_OP__COUNT;
        if (e->optype[tt].count)
            group_row(ops, "op", sat_optype_name(tt), &e->optype[tt], &ctx);
    }
    group_row(ops, "op", "all", &e->all, &ctx);
    const sat_rnode *main = ops;
    if (by != SAT_ETIME_BY_OP && by != SAT_ETIME_BY_INTERNAL) {
        int is_time = by == SAT_ETIME_BY_MINUTE;
        const char *kc = is_time ? "start_ts" : sat_etime_by_name(by);
        sat_rnode *g = et_group_table(root, "groups", kc, is_time ? SAT_UNIT_TIME : SAT_UNIT_TEXT,
                                      NULL, &et_group_desc, NULL);
        if (is_time) {
            sat_table_set_window(g, e->mwidth);
            *minute_groups = g; /* its rows are written with the series */
        } else if (keyed_groups(g, kc, e, &ctx) != SAT_OK) {
            return NULL;
        }
        sat_put_count(root, "groups_folded_keys",
                      is_time ? 0 : et_ktab_folded_keys(&e->groups));
        main = g;
    }
    return main;
}

/* The series: buckets of bucket_min minutes (etime.c: coarser on a long
 * span), from the first to the last; with --by minute, the groups too. */
static int windows(sat_rnode *root, const sat_etime *e, sat_rnode *minute_groups)
{
    int64_t bucket_min = e->mwidth / ET_MINUTE_NS;
    sat_put_dur(root, "window_s", (double)bucket_min * 60.0, 0);
    sat_rnode *t = et_group_table(root, "windows", "start_ts", SAT_UNIT_TIME, "minute (UTC)",
                                  &et_window_out, NULL);
    sat_table_set_window(t, e->mwidth);
    minute_walk mw = {minute_groups, t, {sat_sum_d(e->all.esum), 60.0 * (double)bucket_min},
                      e->mwidth};
    return et_series_walk(&e->minutes, minute_row, &mw);
}

/* The series' windows merged into hours of local time (the offset of the
 * first input that states one, as the timeline takes its hours): each hour's
 * percentiles from the merged sketches, the nearest rank of every operation
 * answered in it, so that a report's per-hour figure and this table agree.
 * Written while the series' window divides an hour (a span of weeks has
 * wider windows). */
typedef struct hour_walk {
    et_group *g;
    int64_t *hour;
    size_t n, cap;
    int64_t width, off;
    int nomem;
} hour_walk;

static void hour_add(void *ctx, int64_t w, const et_group *g)
{
    hour_walk *h = (hour_walk *)ctx;
    const int64_t hour_ns = 60 * ET_MINUTE_NS;
    if (!g->count || h->nomem)
        return;
    int64_t k = sat_win_index(w * h->width + h->off, hour_ns);
    if (!h->n || h->hour[h->n - 1] != k) { /* windows come in time order */
        if (h->n == h->cap) {
            size_t cap = h->cap ? 2 * h->cap : 32;
            et_group *ng = (et_group *)realloc(h->g, cap * sizeof *ng);
            if (ng)
                h->g = ng;
            int64_t *nh = ng ? (int64_t *)realloc(h->hour, cap * sizeof *nh) : NULL;
            if (!ng || !nh) {
                h->nomem = 1;
                return;
            }
            h->hour = nh;
            h->cap = cap;
        }
        memset(&h->g[h->n], 0, sizeof h->g[h->n]);
        h->hour[h->n++] = k;
    }
    if (sat_rec_merge(&et_group_desc, &h->g[h->n - 1], g) != SAT_OK)
        h->nomem = 1;
}

static int hours(sat_rnode *root, const sat_etime *e)
{
    const int64_t hour_ns = 60 * ET_MINUTE_NS;
    if (!e->mwidth || hour_ns % e->mwidth)
        return SAT_OK;
    sat_offset_pick pick = SAT_OFFSET_PICK_INIT; /* the timeline's hours' offset */
    for (size_t i = 0; i < e->nsrcs; i++)
        sat_offset_pick_add(&pick, e->srcs[i].id, e->srcs[i].utc_offset_s);
    int32_t off = pick.off;
    hour_walk h;
    memset(&h, 0, sizeof h);
    h.width = e->mwidth;
    h.off = (int64_t)off * 1000000000LL;
    int st = et_series_walk(&e->minutes, hour_add, &h);
    sat_rnode *t = et_group_table(root, "hours", "start_ts", SAT_UNIT_TIME, "hour (local)",
                                  &et_window_out, NULL);
    sat_table_set_window(t, hour_ns);
    for (size_t i = 0; i < h.n; i++) {
        sat_rnode *o = sat_table_row(t);
        sat_put_time(o, "start_ts", h.hour[i] * hour_ns - h.off);
        sat_rec_row(&et_window_out, o, &h.g[i], NULL);
        sat_rec_free(&et_group_desc, &h.g[i]);
    }
    free(h.g);
    free(h.hour);
    return st != SAT_OK || h.nomem ? SAT_E_NOMEM : SAT_OK;
}

/* ---- operations, connections, binds ----------------------------------------------- */

static void operations(sat_rnode *root, const sat_etime *e, const et_conn_figs *f)
{
    const et_counts *c = &e->c;
    const et_more *m = &c->more;
    sat_rnode *o = sat_obj(root, "operation_stats");
    sat_put_count(o, "total", c->ops);
    sat_put_count(o, "answered", m->answered);
    sat_put_count(o, "expecting_result", m->expect_result);
    /* logconv's "Overall Performance": answered / expecting an answer */
    sat_put_ratio(o, "answered_ratio",
                  m->expect_result ? (double)m->answered / (double)m->expect_result : NAN,
                  ET_FRAC);
    sat_put_count(o, "results", c->results);
    sat_put_count(o, "unfinished", c->unfinished);
    sat_put_count(o, "no_request", c->no_request);
    sat_put_count(o, "internal", c->internal_ops);
    sat_put_count(o, "persistent_searches", c->persistent);
    fcount(o, "paged_searches", e, SAT_FIELD_CONTROLS, c->paged);
    sat_put_count(o, "whole_subtree_searches", c->whole_base);
    sat_put_count(o, "proxied_auth", m->proxied);
    fcount(o, "vlv", e, SAT_FIELD_CONTROLS, m->vlv);
    int vf = fworst(e, SAT_FIELD_CONTROLS, SAT_FIELD_NOTES);
    fcount(o, "vlv_unindexed", e, vf, m->vlv_unindexed);
    fcount(o, "vlv_unindexed_components", e, vf, m->vlv_unindexed_components);
    fcount(o, "sort", e, SAT_FIELD_CONTROLS, m->sort);
    sat_put_count(o, "entries_returned", c->entries);
    sat_put_count(o, "entry_lines", m->entry_lines);
    sat_put_count(o, "referral_lines", m->referral_lines);
    sat_put_count(o, "extended", c->ext_ops);
    sat_put_count(o, "abandons", c->abandons);
    sat_put_count(o, "unbinds", c->unbinds);
    sat_put_count(o, "restarts", f->restarts);
    if (f->restarts) {
        sat_put_count(o, "restarts_start_line", f->restarts_start_line);
        sat_put_count(o, "restarts_connection_number", f->restarts_number);
    }
    const et_group *all = &e->all;
    sat_put_dur(o, "etime_mean_s",
                fknown(e, SAT_FIELD_ETIME) && all->timed
                    ? sat_sum_d(all->esum) / (double)all->timed / 1e9
                    : NAN,
                DUR);
    sat_put_dur(o, "wtime_mean_s",
                fknown(e, SAT_FIELD_WTIME) && all->wn ? sat_sum_d(all->wsum) / (double)all->wn / 1e9
                                                      : NAN,
                DUR);
    sat_put_dur(o, "optime_mean_s",
                fknown(e, SAT_FIELD_WTIME) && all->on ? sat_sum_d(all->osum) / (double)all->on / 1e9
                                                      : NAN,
                DUR);
}


/* The TLS connections by protocol version and cipher (each a column: the
 * log's "TLS1.2 256-bit AES-GCM" is a version, then its cipher), most used
 * first; cipher absent where the log names none. */
static int tls_versions(sat_rnode *o, const et_ktab *k)
{
    static const sat_col cols[] = {{"version", SAT_UNIT_TEXT, 0, NULL},
                                   {"cipher", SAT_UNIT_TEXT, 0, NULL},
                                   {"count", SAT_UNIT_COUNT, 0, "connections"}};
    sat_rnode *t = sat_table(o, "tls_versions", cols, 3);
    size_t n;
    size_t *idx = et_kv_top(k, 1000, &n);
    if (!idx && sat_keyed_n(&k->k))
        return SAT_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const et_kv *v = (const et_kv *)sat_keyed_rec(&k->k, idx[i]);
        const char *key = sat_keyed_key(&k->k, idx[i]), *sp = strchr(key, ' ');
        sat_rnode *r = sat_table_row(t);
        sat_put_textn(r, "version", key, sp ? (size_t)(sp - key) : strlen(key));
        sat_put_text(r, "cipher", sp ? sp + 1 : NULL);
        sat_put_count(r, "count", v->count);
    }
    free(idx);
    return SAT_OK;
}

static int connections(sat_rnode *root, const sat_etime *e, const et_conn_figs *f)
{
    const et_counts *c = &e->c;
    sat_rnode *o = sat_obj(root, "connection_stats");
    sat_put_count(o, "total", c->conns);
    sat_put_count(o, "opened", c->conns - c->conns_no_open);
    sat_put_count(o, "no_open_line", c->conns_no_open);
    sat_rnode *bl = sat_obj(o, "by_listener");
    sat_set_compact(bl);
    for (int l = SAT_LISTENER_LDAP; l < SAT_LISTENER__COUNT; l++)
        sat_put_count(bl, sat_listener_name(l), c->by_listener[l]);
    if (c->by_listener[SAT_LISTENER_UNKNOWN])
        sat_put_count(bl, "unknown", c->by_listener[SAT_LISTENER_UNKNOWN]);
    sat_put_count(o, "peak_concurrent", f->peak);
    sat_put_time(o, "peak_ts", f->peak ? f->peak_at : 0);
    sat_put_text(o, "peak_method",
                 "connections open at once per server, counted in log order as they "
                 "open and close; a connection without an open line counts from the "
                 "start of the input, one never closed to its end (rows of a 1.0 "
                 "trace: a sweep of their open and close times)");
    sat_put_count(o, "unclosed", c->conns_unclosed);
    fcount(o, "fds_taken", e, SAT_FIELD_FD, c->fds_taken);
    fcount(o, "fds_returned", e, SAT_FIELD_FD, c->fds_returned);
    if (c->highest_fd >= 0 && fknown(e, SAT_FIELD_FD))
        sat_put_int(o, "highest_fd", c->highest_fd);
    else
        sat_put_absent(o, "highest_fd", SAT_UNIT_INT);
    fcount(o, "broken_pipe", e, SAT_FIELD_CLOSE_ERRNO, c->broken_pipe);
    fcount(o, "reset_by_peer", e, SAT_FIELD_CLOSE_ERRNO, c->reset_by_peer);
    fcount(o, "resource_unavailable", e, SAT_FIELD_CLOSE_ERRNO, c->resource_unavail);
    fcount(o, "max_ber_exceeded", e, SAT_FIELD_CLOSE_CODE, c->max_ber);
    fcount(o, "lost", e, SAT_FIELD_CLOSE_LOST, c->by_close[SAT_CLOSE_LOST]);
    fcount(o, "lost_on_write", e, SAT_FIELD_CLOSE_LOST, c->by_close[SAT_CLOSE_LOST_WRITE]);
    int st = tls_versions(o, &e->tls_versions);

    static const sat_col ccols[] = {{"close_code", SAT_UNIT_TEXT, 0, "code"},
                                    {"count", SAT_UNIT_COUNT, 0, NULL},
                                    {"meaning", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(root, "close_codes", ccols, 3);
    for (int k = 1; k < SAT_CLOSE__COUNT; k++) {
        if (!c->by_close[k])
            continue;
        sat_rnode *r = sat_table_row(t);
        sat_put_text(r, "close_code", sat_close_code_name(k));
        sat_put_count(r, "count", c->by_close[k]);
        sat_put_text(r, "meaning", sat_close_code_meaning(k));
    }
    return st;
}

static int binds(sat_rnode *root, const sat_etime *e, const et_conn_figs *f)
{
    const et_counts *c = &e->c;
    size_t top = e->opts.top;
    sat_rnode *b = sat_obj(root, "binds");
    sat_put_count(b, "total", f->binds);
    fcount(b, "ldap_v2", e, SAT_FIELD_BIND_VERSION, c->more.binds_v2);
    fcount(b, "ldap_v3", e, SAT_FIELD_BIND_VERSION, c->more.binds_v3);
    sat_put_count(b, "simple", c->binds_simple);
    sat_put_count(b, "anonymous", c->binds_anon);
    sat_put_count(b, "sasl", c->binds_sasl);
    int st = et_result_top(b, "sasl_mechs", "mech", &e->sasl_mechs, 1000, 0);
    sat_put_count(b, "autobind", c->autobinds);
    sat_put_count(b, "sasl_steps_folded", c->sasl_steps);
    sat_put_count(b, "root_dn", f->binds_root);
    sat_put_text(b, "root_dn_name", e->root_dn);
    sat_put_count(b, "failed", c->binds_failed);
    sat_put_count(b, "ssl_client", c->more.cert_binds);
    sat_put_count(b, "ssl_client_failed", c->more.cert_map_failed);
    if (et_result_top(b, "failed_by_dn", "binddn", &e->failed_dn, top, 1) != SAT_OK ||
        et_result_top(b, "failed_by_client", "client", &e->failed_client, top, 1) != SAT_OK)
        st = SAT_E_NOMEM;

    sat_rnode *t = sat_obj(root, "top");
    const struct {
        const char *name, *keycol;
        const et_ktab *k;
    } tops[] = {{"clients", "client", &e->clients},   {"bind_dns", "binddn", &e->bind_dns},
                {"bases", "base", &e->bases},         {"filters", "filter", &e->filters},
                {"extended_ops", "oid", &e->ext_oids}, {"attributes", "attribute", &e->attrs}};
    for (size_t i = 0; i < sizeof tops / sizeof tops[0]; i++)
        if (et_result_top(t, tops[i].name, tops[i].keycol, tops[i].k, top, 1) != SAT_OK)
            st = SAT_E_NOMEM;
    if (et_result_abandons(root, e) != SAT_OK)
        st = SAT_E_NOMEM;
    return st;
}

/* ---- the result ------------------------------------------------------------------- */

static double span_of(sat_ts_ns first, sat_ts_ns last)
{
    return first ? (double)(last - first) / 1e9 : 0;
}

/* HTTP logs alone: the span, the lines read, the HTTP sections and the inputs. */
static int http_only(sat_result *r, sat_rnode *root, const sat_etime *e)
{
    const et_hcounts *h = &e->http.c;
    sat_put_count(root, "top_n", e->opts.top ? e->opts.top : 20);
    sat_put_time(root, "first_ts", h->first_ts);
    sat_put_time(root, "last_ts", h->first_ts ? h->last_ts : 0);
    sat_put_dur(root, "span_s", span_of(h->first_ts, h->last_ts), DUR);
    sat_put_count(root, "lines", et_lines(e));
    sat_put_count(root, "rejects", e->rejects);
    int st = SAT_OK;
    const sat_rnode *main = et_http_result(root, e, &st);
    et_result_inputs(root, e);
    if (main)
        sat_result_set_main(r, main);
    return st != SAT_OK ? st : sat_result_status(r);
}

int sat_etime_result(const sat_etime *e, sat_result *r)
{
    sat_rnode *root = sat_result_root(r);
    if (!e || !e->finished || !root)
        return SAT_E_USAGE;
    const et_counts *c = &e->c;
    int http = e->http.c.requests || e->http.fields.inputs, ldap = c->ops || c->conns;
    if (http && !ldap)
        return http_only(r, root, e);
    et_conn_figs f;
    if (et_conn_figures(e, &f) != SAT_OK)
        return SAT_E_NOMEM;
    int by = e->opts.by == SAT_ETIME_BY_NONE ? SAT_ETIME_BY_OP : e->opts.by;
    double span = span_of(c->first_ts, c->last_ts);
    sat_put_text(root, "by", sat_etime_by_name(by));
    sat_put_count(root, "top_n", e->opts.top ? e->opts.top : 20);
    sat_put_time(root, "first_ts", c->first_ts);
    sat_put_time(root, "last_ts", c->first_ts ? c->last_ts : 0);
    sat_put_dur(root, "span_s", span, DUR);
    sat_put_count(root, "lines", et_lines(e));
    sat_put_count(root, "rejects", e->rejects);
    sat_put_count(root, "operations", c->ops);
    sat_put_count(root, "connections", c->conns);

    sat_rnode *minute_groups;
    const sat_rnode *main = groups(root, e, by, span, &minute_groups);
    if (!main)
        return SAT_E_NOMEM;
    int st = SAT_OK;
    if (c->internal_ops || by == SAT_ETIME_BY_INTERNAL) {
        sat_rnode *io = sat_obj(root, "internal_operations");
        sat_put_count(io, "total", c->internal_ops);
        st = sat_iops_result(e->iops, io);
        if (by == SAT_ETIME_BY_INTERNAL)
            main = sat_rnode_get(root, "internal_operations.ops");
    }
    operations(root, e, &f);
    if (connections(root, e, &f) != SAT_OK || et_result_codes(root, e) != SAT_OK ||
        et_result_unindexed(root, e) != SAT_OK || binds(root, e, &f) != SAT_OK ||
        et_result_usage(root, e) != SAT_OK || et_result_during(root, e) != SAT_OK ||
        windows(root, e, minute_groups) != SAT_OK || hours(root, e) != SAT_OK)
        st = SAT_E_NOMEM;
    et_put_not_logged(root, &e->fields);
    if (http) { /* beside the operations: the requests' own span */
        const et_hcounts *h = &e->http.c;
        sat_rnode *o = sat_obj(root, "http");
        sat_put_time(o, "first_ts", h->first_ts);
        sat_put_time(o, "last_ts", h->first_ts ? h->last_ts : 0);
        sat_put_dur(o, "span_s", span_of(h->first_ts, h->last_ts), DUR);
        et_http_result(o, e, &st);
    }
    et_result_inputs(root, e);
    if (main)
        sat_result_set_main(r, main);
    return st != SAT_OK ? st : sat_result_status(r);
}
