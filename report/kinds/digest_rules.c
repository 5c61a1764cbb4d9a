/*
 * report_digest_rules.c - the digest's rules: what makes a server's day
 * worth a finding against its baseline, in one const table (docs/digest.md
 * lists it for users; a change here is a change there). Each rule reads the
 * day's results and the baseline days of the same server (report_digest.h)
 * and writes its findings, each a sentence with its figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest_int.h"
#include "satscope/report.h"

/* ---- readers ------------------------------------------------------------------------ */

const sat_rnode *sat_dg_get(const sat_dg_day *d, int m, const char *path)
{
    if (!d || m < 0 || m >= SAT_DG__N || !d->res[m])
        return NULL;
    const sat_rnode *root = sat_result_root(d->res[m]);
    return path ? sat_rnode_get(root, path) : root;
}

const char *sat_dg_http_prefix(const sat_dg_day *d, int m)
{
    const sat_rnode *root = sat_dg_get(d, m, NULL);
    if (sat_rnode_get(root, "http.request_stats"))
        return "http.";
    if (sat_rnode_get(root, "request_stats") && sat_get_num(root, "requests", 0) > 0)
        return "";
    return NULL;
}

void sat_dg_fmt_count(char *buf, size_t n, double v)
{
    char raw[32];
    snprintf(raw, sizeof raw, "%.0f", isfinite(v) ? v : 0);
    size_t len = strlen(raw), o = 0;
    for (size_t i = 0; i < len && o + 2 < n; i++) {
        buf[o++] = raw[i];
        size_t left = len - i - 1;
        if (left && left % 3 == 0 && raw[i] != '-')
            buf[o++] = ',';
    }
    buf[o < n ? o : n - 1] = '\0';
}

const char *sat_dg_op_noun(const char *op, uint64_t n)
{
    static const struct { const char *op, *one, *many; } nouns[] = {
        {"BIND", "bind", "binds"},          {"SRCH", "search", "searches"},
        {"ADD", "add", "adds"},             {"MOD", "modify", "modifies"},
        {"DEL", "delete", "deletes"},       {"MODRDN", "rename", "renames"},
        {"CMP", "compare", "compares"},     {"EXT", "extended operation", "extended operations"}};
    for (size_t i = 0; i < sizeof nouns / sizeof nouns[0]; i++)
        if (!strcmp(op, nouns[i].op))
            return sat_plural(n, nouns[i].one, nouns[i].many);
    return sat_plural(n, "operation", "operations");
}

static void dur(char *buf, size_t n, double s) { sat_fmt_duration(buf, n, s); }

/* ---- latency ------------------------------------------------------------------------ */

int sat_digest_latency_regressed(const sat_digest_rule *r, const sat_dg_latency *x)
{
    if (!r || !x || x->cur_n < r->min_count || x->base_n < r->min_count)
        return 0;
    if (!isfinite(x->cur) || !isfinite(x->base) || x->base <= 0)
        return 0;
    double hi = isfinite(x->hi) ? x->hi : x->base;
    if (hi < x->base)
        hi = x->base;
    return x->cur >= x->base * r->ratio && x->cur > hi * (1.0 + r->margin) &&
           x->cur - x->base >= r->floor_s;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One baseline day's own hour-to-hour range of percentile pct, as a factor
 * of its whole day's (timeline hours with at least min_n operations): the
 * range of a day known from one day. NAN without hours. */
static void hourly_range(const sat_dg_day *d, const char *pct, uint64_t min_n, double *lo,
                         double *hi)
{
    *lo = *hi = NAN;
    const sat_rnode *hours = sat_dg_get(d, SAT_DG_TIMELINE, "hours");
    double day = sat_get_num(sat_dg_get(d, SAT_DG_TIMELINE, NULL), pct, NAN);
    if (!hours || !isfinite(day) || day <= 0)
        return;
    for (const sat_rnode *h = sat_rnode_first(hours); h; h = sat_rnode_next(h)) {
        double n = sat_get_num(h, "count", NAN), p = sat_get_num(h, pct, NAN);
        if (!isfinite(p) || !(n >= (double)min_n))
            continue;
        if (!isfinite(*lo) || p / day < *lo)
            *lo = p / day;
        if (!isfinite(*hi) || p / day > *hi)
            *hi = p / day;
    }
}

size_t sat_dg_baseline(const sat_dg_day *const *base, size_t nbase, const char *op,
                       const char *pct, uint64_t min_hour_n, sat_dg_latency *x)
{
    double vals[64];
    size_t nv = 0;
    x->base = x->lo = x->hi = NAN;
    x->base_n = 0;
    for (size_t i = 0; i < nbase && nv < 64; i++) {
        const sat_rnode *b = sat_get_row(sat_dg_get(base[i], SAT_DG_ETIME, "ops"), "op", op);
        double v = b ? sat_get_num(b, pct, NAN) : NAN, n = b ? sat_get_num(b, "count", NAN) : NAN;
        if (!isfinite(v))
            continue;
        vals[nv++] = v;
        x->base_n += isfinite(n) ? (uint64_t)n : 0;
    }
    if (!nv)
        return 0;
    qsort(vals, nv, sizeof vals[0], dbl_cmp);
    x->base = nv % 2 ? vals[nv / 2] : (vals[nv / 2 - 1] + vals[nv / 2]) / 2;
    if (nv > 1) {
        x->lo = vals[0];
        x->hi = vals[nv - 1];
    } else {
        const sat_dg_day *one = NULL;
        for (size_t i = 0; i < nbase && !one; i++)
            if (sat_get_row(sat_dg_get(base[i], SAT_DG_ETIME, "ops"), "op", op))
                one = base[i];
        double flo, fhi;
        hourly_range(one, pct, min_hour_n, &flo, &fhi);
        x->lo = x->base * flo;
        x->hi = x->base * fhi;
    }
    return nv;
}

static int check_latency(const sat_digest_rule *r, sat_dg_ctx *c)
{
    const sat_rnode *ops = sat_dg_get(c->day, SAT_DG_ETIME, "ops");
    if (!ops || !c->nbase)
        return 0;
    int found = 0;
    char pname[16];
    snprintf(pname, sizeof pname, "%.*s", (int)strcspn(r->pct, "_"), r->pct);
    for (const sat_rnode *row = sat_rnode_first(ops); row; row = sat_rnode_next(row)) {
        const char *op = sat_get_text(row, "op", NULL);
        if (!op || !strcmp(op, "all"))
            continue; /* the total row: its types are judged one by one */
        sat_dg_latency x = {sat_get_num(row, r->pct, NAN), NAN, NAN, NAN, 0, 0};
        double cn = sat_get_num(row, "count", NAN);
        x.cur_n = isfinite(cn) ? (uint64_t)cn : 0;
        size_t nv = sat_dg_baseline(c->base, c->nbase, op, r->pct, r->min_count / 10, &x);
        if (!nv)
            continue;
        int one_day = nv == 1;
        if (!sat_digest_latency_regressed(r, &x))
            continue;
        char a[64], b[64], lo[64], hi[64], n[32];
        dur(a, sizeof a, x.base);
        dur(b, sizeof b, x.cur);
        dur(lo, sizeof lo, x.lo);
        dur(hi, sizeof hi, x.hi);
        sat_dg_fmt_count(n, sizeof n, (double)x.cur_n);
        char range[200];
        /* a range whose ends read alike is said as one value */
        char span[140];
        if (!strcmp(lo, hi))
            snprintf(span, sizeof span, "all %s", lo);
        else
            snprintf(span, sizeof span, "%s-%s", lo, hi);
        if (!one_day)
            snprintf(range, sizeof range, "baseline days %s", span);
        else if (isfinite(x.hi))
            snprintf(range, sizeof range, "baseline day's hours %s", span);
        else
            snprintf(range, sizeof range, "one baseline day");
        sat_rnode *f = sat_doc_finding(c->findings, r->severity, r->section,
                                       "%s %s rose from %s to %s (%.1fx; %s, %s %s)", op, pname,
                                       a, b, x.cur / x.base, range, n,
                                       sat_dg_op_noun(op, x.cur_n));
        sat_put_text(f, "rule", r->id);
        sat_put_text(f, "op", op);
        sat_put_dur(f, "value_s", x.cur, 9);
        sat_put_dur(f, "baseline_s", x.base, 9);
        sat_put_dur(f, "baseline_low_s", x.lo, 9);
        sat_put_dur(f, "baseline_high_s", x.hi, 9);
        sat_put_num(f, "change", x.cur / x.base, 2);
        sat_put_count(f, "count", x.cur_n);
        sat_put_count(f, "baseline_count", x.base_n);
        sat_put_count(f, "baseline_days", nv);
        found++;
    }
    return found;
}

/* ---- new keys: what the day has and no baseline day had ------------------------------- */

/* Whether any baseline day's table (member m, path) has a row whose col is key. */
static int in_baseline(const sat_dg_ctx *c, int m, const char *path, const char *col,
                       const char *key)
{
    for (size_t i = 0; i < c->nbase; i++)
        if (sat_get_row(sat_dg_get(c->base[i], m, path), col, key))
            return 1;
    return 0;
}

typedef struct new_key {
    int member;
    const char *path, *col, *count_col;
    const char *(*describe)(const sat_rnode *row, char *buf, size_t n); /* may be NULL */
    const char *fmt; /* "%s new: ... %s (%s)" */
} new_key;

static const char *describe_code(const sat_rnode *row, char *buf, size_t n)
{
    const char *name = sat_get_text(row, "name", NULL);
    snprintf(buf, n, "%s", name ? name : "");
    return buf;
}

static const char *describe_status(const sat_rnode *row, char *buf, size_t n)
{
    const char *m = sat_get_text(row, "meaning", NULL);
    snprintf(buf, n, "%s", m ? m : "");
    return buf;
}

static int check_new(const sat_digest_rule *r, sat_dg_ctx *c, const new_key *k,
                     int (*skip)(const char *key))
{
    if (!c->nbase)
        return 0;
    const sat_rnode *t = sat_dg_get(c->day, k->member, k->path);
    int found = 0;
    for (const sat_rnode *row = t ? sat_rnode_first(t) : NULL; row; row = sat_rnode_next(row)) {
        char key[512], what[256] = "", n[32];
        sat_get_key(row, k->col, key, sizeof key);
        double cnt = sat_get_num(row, k->count_col, NAN);
        if ((skip && skip(key)) || !(cnt >= (double)r->min_count) ||
            in_baseline(c, k->member, k->path, k->col, key))
            continue;
        if (k->describe)
            k->describe(row, what, sizeof what);
        sat_dg_fmt_count(n, sizeof n, cnt);
        sat_rnode *f = sat_doc_finding(c->findings, r->severity, r->section, k->fmt, key,
                                       what[0] ? " (" : "", what, what[0] ? ")" : "", n);
        sat_put_text(f, "rule", r->id);
        if (sat_row_get(row, k->col))
            sat_put_value(f, k->col, sat_row_get(row, k->col)); /* in its own unit */
        sat_put_count(f, "count", (uint64_t)cnt);
        double tot = sat_get_num(row, "total_s", NAN);
        if (isfinite(tot))
            sat_put_dur(f, "total_s", tot, 9);
        found++;
    }
    return found;
}

static int skip_success(const char *key) { return !strcmp(key, "0"); }

static int check_new_error(const sat_digest_rule *r, sat_dg_ctx *c)
{
    static const new_key k = {SAT_DG_ETIME, "result_codes", "result_code", "count",
                              describe_code,
                              "new result code err=%s%s%s%s: %s results, none in the baseline"};
    return check_new(r, c, &k, skip_success);
}

/* The median of the baseline days' value of column col in the row of their
 * HTTP table `table` whose `key` column is k (NAN when none has it). */
double sat_dg_http_base(const sat_dg_day *const *b, size_t nb, int m, const char *table,
                        const char *key, const char *k, const char *col)
{
    double v[64];
    size_t n = 0;
    for (size_t i = 0; i < nb && n < 64; i++) {
        const char *pre = sat_dg_http_prefix(b[i], m);
        char path[64];
        if (!pre)
            continue;
        snprintf(path, sizeof path, "%s%s", pre, table);
        double x = sat_get_num(sat_get_row(sat_dg_get(b[i], m, path), key, k), col, NAN);
        if (isfinite(x))
            v[n++] = x;
    }
    if (!n)
        return NAN;
    for (size_t i = 1; i < n; i++) /* insertion sort: a few days */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* HTTP: the response time p90 of a method (and of every request, "all")
 * against the baseline days' median: a regression as the LDAP latency rules
 * take one (ratio, margin over the baseline, floor), on methods with
 * min_count requests or more. */
static int check_http_latency(const sat_digest_rule *r, sat_dg_ctx *c)
{
    const char *pre = sat_dg_http_prefix(c->day, SAT_DG_ETIME);
    if (!pre || !c->nbase)
        return 0;
    char path[32];
    snprintf(path, sizeof path, "%smethods", pre);
    int found = 0;
    for (const sat_rnode *row = sat_rnode_first(sat_dg_get(c->day, SAT_DG_ETIME, path)); row;
         row = sat_rnode_next(row)) {
        const char *m = sat_get_text(row, "method", NULL);
        double n = sat_get_num(row, "count", NAN), p90 = sat_get_num(row, "p90_s", NAN);
        if (!m || !(n >= (double)r->min_count) || !isfinite(p90))
            continue;
        double base = sat_dg_http_base(c->base, c->nbase, SAT_DG_ETIME, "methods", "method", m,
                                       "p90_s");
        if (!(base >= 0) || !(p90 >= base * r->ratio) || !(p90 - base >= r->floor_s))
            continue;
        char a[64], b[64], k[32];
        dur(a, sizeof a, p90);
        dur(b, sizeof b, base);
        sat_fmt_sig3(k, sizeof k, base > 0 ? p90 / base : NAN);
        sat_rnode *f = sat_doc_finding(c->findings, r->severity, r->section,
                                       "HTTP %s response time p90 %s against %s in the "
                                       "baseline (%sx), over %.0f requests",
                                       !strcmp(m, "all") ? "(every request)" : m, a, b, k, n);
        sat_put_text(f, "rule", r->id);
        sat_put_text(f, "method", m);
        sat_put_dur(f, "p90_s", p90, 9);
        sat_put_dur(f, "baseline_p90_s", base, 9);
        sat_put_count(f, "count", (uint64_t)n);
        found++;
    }
    return found;
}

/* HTTP: a status >= 400 no baseline day answered (etime's statuses table) */
static int skip_not_error(const char *key) { return atoi(key) < 400; }

static int check_new_status(const sat_digest_rule *r, sat_dg_ctx *c)
{
    const char *pre = sat_dg_http_prefix(c->day, SAT_DG_ETIME);
    if (!pre)
        return 0;
    char path[32];
    snprintf(path, sizeof path, "%sstatuses", pre);
    new_key k = {SAT_DG_ETIME, path, "status", "count", NULL,
                 "new HTTP status %s%s%s%s: %s requests, none in the baseline"};
    k.describe = describe_status;
    return check_new(r, c, &k, skip_not_error);
}

static int check_new_unindexed(const sat_digest_rule *r, sat_dg_ctx *c)
{
    static const new_key k = {SAT_DG_UNINDEXED, "groups", "filter", "count", NULL,
                              "new unindexed filter shape %s%s%s%s: %s searches, none in the "
                              "baseline"};
    return check_new(r, c, &k, NULL);
}

static int check_failing_bind(const sat_digest_rule *r, sat_dg_ctx *c)
{
    static const new_key k = {SAT_DG_ETIME, "binds.failed_by_dn", "binddn", "count", NULL,
                              "bind DN %s%s%s%s newly failing: %s failed binds, none in the "
                              "baseline's failing DNs"};
    return check_new(r, c, &k, NULL);
}

/* ---- heavy clients ------------------------------------------------------------------- */

typedef struct ranked {
    const sat_rnode *row;
    double v;
} ranked;

static int ranked_cmp(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    return x->v > y->v ? -1 : x->v < y->v;
}

/* A day's totals of a client table's measure (operations, time). */
static double table_sum(const sat_rnode *t, const char *col)
{
    double all = 0;
    for (const sat_rnode *r = t ? sat_rnode_first(t) : NULL; r; r = sat_rnode_next(r)) {
        double v = sat_get_num(r, col, NAN);
        all += isfinite(v) ? v : 0;
    }
    return all;
}

static int check_heavy_client(const sat_digest_rule *r, sat_dg_ctx *c)
{
    const sat_rnode *t = sat_dg_get(c->day, SAT_DG_CLIENTS, "groups");
    if (!t || !c->nbase)
        return 0;
    size_t n = sat_rnode_count(t);
    ranked *by = calloc(n ? n : 1, sizeof *by);
    if (!by)
        return 0;
    int found = 0;
    static const char *const measures[] = {"count", "total_s"};
    double all[2] = {table_sum(t, "count"), table_sum(t, "total_s")};
    for (int m = 0; m < 2; m++) {
        size_t k = 0;
        for (const sat_rnode *row = sat_rnode_first(t); row; row = sat_rnode_next(row)) {
            by[k].row = row;
            by[k].v = sat_get_num(row, measures[m], NAN);
            if (!isfinite(by[k].v))
                by[k].v = 0;
            k++;
        }
        qsort(by, k, sizeof *by, ranked_cmp);
        for (size_t i = 0; i < k && i < r->rank; i++) {
            const char *client = sat_get_text(by[i].row, "client", NULL);
            if (!client || !(all[m] > 0) || by[i].v / all[m] < r->share)
                continue;
            /* small in every baseline day (absent counts as none) */
            int small = 1;
            for (size_t b = 0; b < c->nbase && small; b++) {
                const sat_rnode *bt = sat_dg_get(c->base[b], SAT_DG_CLIENTS, "groups");
                const sat_rnode *br = sat_get_row(bt, "client", client);
                double bv = br ? sat_get_num(br, measures[m], NAN) : 0, ball = table_sum(bt, measures[m]);
                small = !(ball > 0) || !(bv / ball >= r->base_share);
            }
            if (!small)
                continue;
            /* once per client: by operations first */
            int again = 0;
            for (const sat_rnode *f = sat_rnode_first(c->findings); f && m == 1;
                 f = sat_rnode_next(f)) {
                const sat_rnode *fig = sat_rnode_get(f, "figures");
                const sat_value *cv = fig ? sat_rnode_val(fig, "client") : NULL;
                const sat_value *rv = fig ? sat_rnode_val(fig, "rule") : NULL;
                again |= cv && rv && !strcmp(rv->v.s, r->id) && !strcmp(cv->v.s, client);
            }
            if (again)
                continue;
            char cnt[32], tot[64];
            double ops_n = sat_get_num(by[i].row, "count", NAN), ts = sat_get_num(by[i].row, "total_s", NAN);
            sat_dg_fmt_count(cnt, sizeof cnt, ops_n);
            dur(tot, sizeof tot, ts);
            sat_rnode *f = sat_doc_finding(
                c->findings, r->severity, r->section,
                "new heavy client %s: %s operations (%.0f%%), %s of the server's time (%.0f%%), "
                "#%zu by %s; under %.0f%% of it in every baseline day",
                client, cnt, all[0] > 0 ? 100.0 * ops_n / all[0] : 0.0, tot,
                all[1] > 0 ? 100.0 * ts / all[1] : 0.0, i + 1, m == 0 ? "operations" : "time",
                100 * r->base_share);
            sat_put_text(f, "rule", r->id);
            sat_put_text(f, "client", client);
            sat_put_count(f, "count", isfinite(ops_n) ? (uint64_t)ops_n : 0);
            sat_put_dur(f, "total_s", ts, 9);
            sat_put_count(f, "rank", i + 1);
            sat_put_text(f, "by", m == 0 ? "operations" : "time");
            found++;
        }
    }
    free(by);
    return found;
}

/* ---- what needs no baseline ------------------------------------------------------------- */

static int old_tls(const char *v)
{
    static const char *const old[] = {"TLS1.0", "TLS1.1", "SSL3", "SSLv3", "TLSv1.0", "TLSv1.1"};
    for (size_t i = 0; v && i < sizeof old / sizeof old[0]; i++) {
        size_t n = strlen(old[i]);
        if (!strncmp(v, old[i], n) && (v[n] == '\0' || v[n] == ' '))
            return 1;
    }
    return 0;
}

static int check_old_tls(const sat_digest_rule *r, sat_dg_ctx *c)
{
    /* the log's connections (etime) and the handshakes seen on the wire */
    static const struct { int m; const char *path, *col, *count, *where; } src[] = {
        {SAT_DG_ETIME, "connection_stats.tls_versions", "version", "count", "connections"},
        {SAT_DG_HANDSHAKES, "versions", "version", "count", "handshakes"}};
    int found = 0;
    for (size_t s = 0; s < sizeof src / sizeof src[0]; s++) {
        const sat_rnode *t = sat_dg_get(c->day, src[s].m, src[s].path);
        for (const sat_rnode *row = t ? sat_rnode_first(t) : NULL; row; row = sat_rnode_next(row)) {
            const char *v = sat_get_text(row, src[s].col, NULL);
            double n = sat_get_num(row, src[s].count, NAN);
            if (!old_tls(v) || !(n >= (double)r->min_count))
                continue;
            char cnt[32];
            sat_dg_fmt_count(cnt, sizeof cnt, n);
            sat_rnode *f = sat_doc_finding(c->findings, r->severity, r->section,
                                           "%s still used: %s %s", v, cnt, src[s].where);
            sat_put_text(f, "rule", r->id);
            sat_put_text(f, "version", v);
            sat_put_count(f, "count", (uint64_t)n);
            found++;
        }
    }
    return found;
}

static int check_storms(const sat_digest_rule *r, sat_dg_ctx *c)
{
    const sat_rnode *t = sat_dg_get(c->day, SAT_DG_STORMS, "storms");
    size_t n = t ? sat_rnode_count(t) : 0;
    if (n < r->min_count)
        return 0;
    const sat_rnode *first = sat_rnode_first(t);
    double peak = 0;
    for (const sat_rnode *row = first; row; row = sat_rnode_next(row)) {
        double e = sat_get_num(row, "events", NAN);
        peak = isfinite(e) && e > peak ? e : peak;
    }
    char when[64] = "-";
    const sat_value *st = sat_row_get(first, "start_ts");
    if (st && !st->absent) {
        int64_t local = st->v.i / 1000000000LL + c->day->utc_offset_s;
        snprintf(when, sizeof when, "%02lld:%02lld", (long long)(((local % 86400) + 86400) % 86400 / 3600),
                 (long long)(((local % 3600) + 3600) % 3600 / 60));
    }
    sat_rnode *f = sat_doc_finding(c->findings, r->severity, r->section,
                                   "%zu %s of client failures, the first at %s", n,
                                   sat_plural(n, "storm", "storms"), when);
    sat_put_text(f, "rule", r->id);
    sat_put_count(f, "storm_count", n);
    if (st)
        sat_put_value(f, "first_ts", st);
    return 1;
}

static int check_crashes(const sat_digest_rule *r, sat_dg_ctx *c)
{
    const sat_rnode *t = sat_dg_get(c->day, SAT_DG_CRASHES, "crashes");
    size_t n = t ? sat_rnode_count(t) : 0;
    if (n < r->min_count)
        return 0;
    const sat_rnode *first = sat_rnode_first(t);
    const char *sig = sat_get_text(first, "signal_name", NULL);
    const char *exe = sat_get_text(first, "executable", NULL);
    sat_rnode *f = sat_doc_finding(c->findings, r->severity, r->section, "%zu %s%s%s%s%s", n,
                                   sat_plural(n, "crash", "crashes"), sig ? ": " : "",
                                   sig ? sig : "", exe ? " in " : "", exe ? exe : "");
    sat_put_text(f, "rule", r->id);
    sat_put_count(f, "crash_count", n);
    return 1;
}

static int check_cache(const sat_digest_rule *r, sat_dg_ctx *c)
{
    /* the entries the day's first target needs against the cache the
     * monitor data says is configured (logs alone do not say it) */
    const sat_rnode *root = sat_dg_get(c->day, SAT_DG_CACHESIZE, NULL);
    const sat_rnode *tg = sat_dg_get(c->day, SAT_DG_CACHESIZE, "targets");
    double have = sat_get_num(root, "monitor.current_entries", NAN);
    const sat_rnode *t0 = tg ? sat_rnode_first(tg) : NULL;
    double need = t0 ? sat_get_num(t0, "entries", NAN) : NAN, ratio = t0 ? sat_get_num(t0, "hit_ratio", NAN) : NAN;
    /* a target above the day's curve (cold misses) is reached by no size:
     * every entry the day named gives the most it can hit, and that is said */
    int most = t0 && sat_get_bool(t0, "reachable", 1) == 0;
    if (most) { /* no size for it: every entry the day named, for the most it allows */
        ratio = sat_get_num(root, "max_hit_ratio", NAN);
        need = sat_get_num(root, "unique", NAN);
    }
    if (!isfinite(have) || !isfinite(need) || need <= have || need < (double)r->min_count)
        return 0;
    char a[32], b[32];
    sat_dg_fmt_count(a, sizeof a, need);
    sat_dg_fmt_count(b, sizeof b, have);
    sat_rnode *f = sat_doc_finding(c->findings, r->severity, r->section,
                                   "the entry cache is below the working set: %s entries needed "
                                   "for a %.0f%% hit ratio%s, %s cached",
                                   a, 100 * ratio, most ? " (the most the day allows)" : "", b);
    sat_put_text(f, "rule", r->id);
    sat_put_count(f, "entries_needed", (uint64_t)need);
    sat_put_count(f, "entries_cached", (uint64_t)have);
    return 1;
}

/* The rules, in the order their findings are written. Latency: both sides
 * need min_count operations of the type; the day's percentile must be at
 * least `ratio` times the baseline's (the median of its days), above the
 * baseline's own range (several days: the highest day; one day: its worst
 * hour with min_count/10 operations, scaled to the day) widened by `margin`,
 * and higher by at least floor_s (0.1 ms -> 0.3 ms is no regression). */
#define LATENCY(pc, n, r, f)                                                              \
    .section = "latency", .check = check_latency, .pct = pc, .min_count = n, .ratio = r,   \
    .margin = 0.25, .floor_s = f, .regression = 1
static const sat_digest_rule rules[] = {
    {.id = "latency.p50", .severity = "warning", LATENCY("p50_s", 200, 1.5, 0.001)},
    {.id = "latency.p90", .severity = "warning", LATENCY("p90_s", 200, 1.5, 0.001)},
    {.id = "latency.p99", .severity = "warning", LATENCY("p99_s", 1000, 2.0, 0.005)},
    {.id = "errors.new_code", .severity = "warning", .section = "errors",
     .check = check_new_error, .min_count = 10, .regression = 1},
    {.id = "http.latency.p90", .severity = "warning", .section = "http",
     .check = check_http_latency, .min_count = 200, .ratio = 1.5, .floor_s = 0.001,
     .regression = 1},
    {.id = "errors.new_status", .severity = "warning", .section = "http",
     .check = check_new_status, .min_count = 10, .regression = 1},
    {.id = "unindexed.new_shape", .severity = "warning", .section = "unindexed",
     .check = check_new_unindexed, .min_count = 5, .regression = 1},
    {.id = "clients.new_heavy", .severity = "notice", .section = "clients",
     .check = check_heavy_client, .rank = 5, .share = 0.05, .base_share = 0.01,
     .regression = 1},
    {.id = "binds.newly_failing", .severity = "notice", .section = "binds",
     .check = check_failing_bind, .min_count = 10, .regression = 1},
    {.id = "tls.old_version", .severity = "warning", .section = "tls", .check = check_old_tls,
     .min_count = 1},
    {.id = "storms", .severity = "critical", .section = "storms", .check = check_storms,
     .min_count = 1},
    {.id = "crashes", .severity = "critical", .section = "crashes", .check = check_crashes,
     .min_count = 1},
    {.id = "cache.below_working_set", .severity = "warning", .section = "cache",
     .check = check_cache, .min_count = 1},
};

const sat_digest_rule *sat_digest_rules(size_t *n)
{
    if (n)
        *n = sizeof rules / sizeof rules[0];
    return rules;
}
