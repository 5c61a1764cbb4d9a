/*
 * test_sums.c - the analyzers' sums of durations saturate instead of wrapping
 * (analyze/acc.h sat_sum_add): rows of plausible durations (a week each, as a
 * trace may hand over) whose sum passes an int64 of ns, through etime (LDAP
 * and HTTP), storms, timeline and saturation, in one pass and as two merged
 * halves (each within the range, their sum past it), leave every figure made
 * of such a sum absent (docs/output.md): never negative, never a wrapped or a
 * pinned number, and the merge equals the one pass. Under the sanitizer
 * build (UBSan halts on error) a signed overflow fails it too.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "result_check.h"
#include "satscope/analyze.h"

#define S 1000000000LL
#define DAY (86400 * S)
static const int64_t T0 = 1749478800LL * S; /* 2025-06-09T14:20:00Z */

/* ---- analyzers: sums that saturate --------------------------------------------------- */
/* Past INT64_MAX ns (292 years) in one second's window: 16,000 operations of a
 * week each (plausible one by one) sum to 9.68e18 ns. */
#define NOPS 16000
#define WEEK (7 * DAY)

typedef struct row {
    int table;
    union {
        sat_ldap_op op;
        sat_http_req http;
        sat_source src;
    } u;
} row;

static row rows[NOPS + 2];
static size_t nrows;

static void make_ldap_rows(void)
{
    nrows = 0;
    row *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    r->table = SAT_TABLE_SOURCE;
    r->u.src.path = sat_str_cstr("absurd.log");
    r->u.src.kind = sat_str_cstr("log");
    r->u.src.format = sat_str_cstr("389-text");
    r->u.src.first_ts = T0;
    r->u.src.last_ts = T0 + S;
    r->u.src.fields = SAT_FIELDS_DECLARED | SAT_FIELD_BIT(SAT_FIELD_ETIME) |
                      SAT_FIELD_BIT(SAT_FIELD_WTIME);
    for (int i = 0; i < NOPS; i++) {
        r = &rows[nrows++];
        memset(r, 0, sizeof *r);
        r->table = SAT_TABLE_LDAP_OP;
        sat_ldap_op *o = &r->u.op;
        o->ts_ns = T0 + (int64_t)i * 1000; /* all in one second */
        o->result_ts_ns = o->ts_ns + WEEK;
        o->type = SAT_OP_SRCH;
        o->err = 0;
        o->tag = 101;
        o->etime = o->wtime = WEEK;
        o->optime = WEEK / 2;
        o->internal_op = SAT_ABSENT;
        o->target_op = SAT_ABSENT;
        o->nentries = 1;
        o->conn = 1 + i % 50;
        o->op = i;
        o->dn = sat_str_cstr("dc=example,dc=com");
        o->filter = sat_str_cstr("(uid=x)");
        o->filter_shape = sat_str_cstr("(uid=*)");
        o->client_ip = sat_str_cstr("10.0.0.1");
        o->bind_dn = sat_str_cstr("cn=app");
    }
}

static void make_http_rows(void)
{
    nrows = 0;
    row *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    r->table = SAT_TABLE_SOURCE;
    r->u.src.path = sat_str_cstr("access.log");
    r->u.src.kind = sat_str_cstr("log");
    r->u.src.format = sat_str_cstr("nginx");
    r->u.src.first_ts = T0;
    r->u.src.last_ts = T0 + S;
    r->u.src.fields = SAT_FIELDS_DECLARED | SAT_FIELDS_HTTP_SOURCE |
                      SAT_FIELD_BIT(SAT_FIELD_ETIME) | SAT_FIELD_BIT(SAT_FIELD_UPSTREAM);
    for (int i = 0; i < NOPS; i++) {
        r = &rows[nrows++];
        memset(r, 0, sizeof *r);
        r->table = SAT_TABLE_HTTP_REQ;
        sat_http_req *h = &r->u.http;
        h->ts = T0 + (int64_t)i * 1000;
        h->status = 200;
        h->bytes = 512;
        h->response_time = h->upstream_time = WEEK;
        h->conn = 1 + i % 50;
        h->conn_request = 1 + i / 50;
        h->client_ip = sat_str_cstr("10.0.0.1");
        h->method = sat_str_cstr("GET");
        h->path = h->path_template = sat_str_cstr("/a");
        h->protocol = sat_str_cstr("HTTP/1.1");
    }
}

static void *feed(const sat_analyzer *a, size_t from, size_t to)
{
    void *x = a->create(NULL);
    CHECK(x != NULL);
    sat_event_sink k = a->sink(x);
    for (size_t i = from; i < to; i++)
        CHECK_EQ_INT(sat_sink_emit(&k, rows[i].table, &rows[i].u), SAT_OK);
    return x;
}

/* Every number of the result: durations, ratios, rates and numbers are never
 * negative here (no figure of these rows can be), and no duration passes the
 * figure a saturated sum would read as (INT64_MAX ns, 292 years): a sum past
 * what 64 bits hold is absent, not a wrapped or pinned number. */
static size_t bad_values(const sat_rnode *n, const char *where, int depth)
{
    size_t bad = 0;
    for (const sat_rnode *c = sat_rnode_first(n); c; c = sat_rnode_next(c)) {
        const char *k = sat_rnode_key(c);
        if (sat_rnode_kind_of(c) == SAT_RN_VALUE) {
            const sat_value *v = sat_rnode_value(c);
            if (v->absent)
                continue;
            double x = sat_value_num(v);
            int is_num = v->unit == SAT_UNIT_DURATION || v->unit == SAT_UNIT_RATIO ||
                         v->unit == SAT_UNIT_RATE || v->unit == SAT_UNIT_NUMBER;
            if (is_num && (!(x >= 0) || (v->unit == SAT_UNIT_DURATION && x > 9.2e9))) {
                if (bad < 5)
                    fprintf(stderr, "  %s: %s.%s = %g\n", where, depth ? "row" : "", k ? k : "?",
                            x);
                bad++;
            }
        } else if (depth < 8) {
            bad += bad_values(c, where, depth + 1);
        }
    }
    return bad;
}

static void check_analyzer(const char *name, int http)
{
    const sat_analyzer *a = sat_analyzer_find(name);
    CHECK(a != NULL);
    if (!a)
        return;
    /* one pass, and two halves merged (each below the range, their sum past it) */
    void *one = feed(a, 0, nrows);
    void *p1 = feed(a, 0, nrows / 2), *p2 = feed(a, nrows / 2, nrows);
    CHECK_EQ_INT(a->merge(p1, p2), SAT_OK);
    void *xs[2] = {one, p1};
    char *json[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(a->finish(xs[i]), SAT_OK);
        sat_result *r = sat_result_new(name);
        CHECK_EQ_INT(a->result(xs[i], r), SAT_OK);
        char where[64];
        snprintf(where, sizeof where, "%s%s%s", name, http ? " (HTTP)" : "",
                 i ? " merged" : "");
        size_t bad = bad_values(sat_result_root(r), where, 0);
        if (bad)
            fprintf(stderr, "%s: %zu figures wrapped or pinned\n", where, bad);
        CHECK_EQ_INT(bad, 0);
        json[i] = rc_render(r, AS_JSON, NULL);
        sat_result_free(r);
    }
    CHECK(json[0] && json[1] && strcmp(json[0], json[1]) == 0);
    free(json[0]);
    free(json[1]);
    a->free(one);
    a->free(p1);
    a->free(p2);
}

/* What etime says of the saturated sums: total, mean and share absent; what is
 * not a sum (count, percentiles, max) as it is. */
static void test_etime_figures(void)
{
    make_ldap_rows();
    const sat_analyzer *a = sat_analyzer_find("etime");
    void *e = feed(a, 0, nrows);
    CHECK_EQ_INT(a->finish(e), SAT_OK);
    sat_result *r = sat_result_new("etime");
    CHECK_EQ_INT(a->result(e, r), SAT_OK);
    const sat_rnode *ops = sat_get_table(sat_result_root(r), "ops");
    const sat_rnode *srch = ops ? sat_get_row(ops, "op", "SRCH") : NULL;
    CHECK(srch != NULL);
    if (srch) {
        CHECK_EQ_INT(sat_get_count(srch, "count", 0), NOPS);
        CHECK(isnan(sat_get_dur(srch, "total_s", NAN)));
        CHECK(isnan(sat_get_dur(srch, "mean_s", NAN)));
        CHECK(isnan(sat_get_dur(srch, "wtime_mean_s", NAN)));
        /* optime: half a week each, 4.84e18 ns in all: below the range, exact */
        CHECK(fabs(sat_get_dur(srch, "optime_mean_s", NAN) - 302400.0) < 1e-3);
        CHECK(fabs(sat_get_dur(srch, "max_s", NAN) - 604800.0) < 1e-3);
    }
    sat_result_free(r);
    a->free(e);
}

int main(void)
{
    make_ldap_rows();
    check_analyzer("etime", 0);
    check_analyzer("storms", 0);
    check_analyzer("timeline", 0);
    check_analyzer("saturation", 0);
    make_http_rows();
    check_analyzer("etime", 1);
    check_analyzer("storms", 1);
    check_analyzer("timeline", 1);
    check_analyzer("saturation", 1);
    test_etime_figures();
    return CHECK_DONE();
}
