/*
 * test_pm_findings_ops.c - the post-mortem's findings on the operations
 * (report/kinds/postmortem_findings_ops.c), each from results built by hand
 * here, once where its rule fires and once where it must not:
 *   - failed binds: a share of the binds, or most of them from one client
 *     among others; not under the share, not under the least count;
 *   - internal operations: a large share of a busy type's etime; not a
 *     small share;
 *   - the throughput collapse: answers fell while the operations asked for
 *     held, or while the connections opened held; not when the load fell
 *     with them, not when answers fell less than a third;
 * and the sections they come with (results, throughput) are written.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/report.h"
#include "satscope/report_doc.h"

#define NS 1000000000LL
#define T0 (1749478800LL * NS) /* 2025-06-09T14:20:00Z */

static char *render(sat_report *rep)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_report_render_opts o;
    memset(&o, 0, sizeof o);
    CHECK(sat_report_renderer_for("r.json")->render(rep, &o, f, NULL) >= 0);
    fclose(f);
    return buf;
}

static char *postmortem(sat_result **res, size_t n)
{
    sat_report *rep = sat_report_new("postmortem");
    CHECK_EQ_INT(sat_report_add_set(rep, res, n), 0);
    sat_report_input in;
    memset(&in, 0, sizeof in);
    in.set = sat_report_set(rep, 0);
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(sat_report_kind_find("postmortem")->build(rep, &in, &d) >= 0);
    char *json = render(rep);
    sat_report_free(rep); /* and the results: the report took them */
    return json;
}

/* ---- etime: binds, ops, result codes, internal operations ------------------------------ */

typedef struct etime_spec {
    uint64_t binds, failed, clients;      /* clients: distinct clients in all */
    uint64_t top_client_failed, failed_clients;
    double mod_s, all_s, internal_s;      /* MOD's etime, every op's, MOD's internal */
    uint64_t internal, internal_errors;
} etime_spec;

static const sat_col top_cols[] = {{"count", SAT_UNIT_COUNT, 0, NULL},
                                   {"total_s", SAT_UNIT_DURATION, 6, NULL},
                                   {"key", SAT_UNIT_TEXT, 0, NULL}};

static sat_result *etime_result(const etime_spec *e)
{
    sat_result *r = sat_result_new("etime");
    sat_rnode *root = sat_result_root(r);
    sat_put_count(root, "operations", 1000);
    static const sat_col ocols[] = {{"op", SAT_UNIT_TEXT, 0, NULL},
                                    {"count", SAT_UNIT_COUNT, 0, NULL},
                                    {"total_s", SAT_UNIT_DURATION, 6, NULL},
                                    {"errors", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *ops = sat_table(root, "ops", ocols, 4);
    const char *names[] = {"BIND", "MOD", "all"};
    double tot[] = {e->all_s - e->mod_s, e->mod_s, e->all_s};
    for (int i = 0; i < 3; i++) {
        sat_rnode *o = sat_table_row(ops);
        sat_put_text(o, "op", names[i]);
        sat_put_count(o, "count", 100);
        sat_put_dur(o, "total_s", tot[i], 6);
        sat_put_count(o, "errors", i == 0 ? e->failed : 0);
    }
    static const sat_col rcols[] = {{"result_code", SAT_UNIT_INT, 0, "err"},
                                    {"count", SAT_UNIT_COUNT, 0, NULL},
                                    {"name", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *rc = sat_table(root, "result_codes", rcols, 3);
    sat_rnode *o = sat_table_row(rc);
    sat_put_int(o, "result_code", 0);
    sat_put_count(o, "count", 1000 - e->failed);
    sat_put_text(o, "name", "success");
    o = sat_table_row(rc);
    sat_put_int(o, "result_code", 49);
    sat_put_count(o, "count", e->failed);
    sat_put_text(o, "name", "invalidCredentials");

    sat_rnode *b = sat_obj(root, "binds");
    sat_put_count(b, "total", e->binds);
    sat_put_count(b, "failed", e->failed);
    sat_col cc[3] = {top_cols[0], top_cols[1], {"client", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(b, "failed_by_client", cc, 3);
    uint64_t left = e->failed;
    for (uint64_t i = 0; i < e->failed_clients && left; i++) {
        uint64_t n = i == 0 ? e->top_client_failed : 1;
        char name[32];
        snprintf(name, sizeof name, "10.0.0.%llu", (unsigned long long)i + 1);
        o = sat_table_row(t);
        sat_put_count(o, "count", n);
        sat_put_dur(o, "total_s", 0.01, 6);
        sat_put_text(o, "client", name);
        left -= n < left ? n : left;
    }
    sat_put_count(b, "failed_by_client_distinct", e->failed_clients);
    sat_col dc[3] = {top_cols[0], top_cols[1], {"binddn", SAT_UNIT_TEXT, 0, NULL}};
    t = sat_table(b, "failed_by_dn", dc, 3);
    o = sat_table_row(t);
    sat_put_count(o, "count", e->failed / 2);
    sat_put_dur(o, "total_s", 0.01, 6);
    sat_put_text(o, "binddn", "uid=ssmith,ou=people,dc=example,dc=com");
    sat_put_count(sat_obj(root, "top"), "clients_distinct", e->clients);

    if (e->internal) {
        sat_rnode *io = sat_obj(root, "internal_operations");
        sat_put_count(io, "total", e->internal);
        static const sat_col gcols[] = {{"op", SAT_UNIT_TEXT, 0, NULL},
                                        {"base", SAT_UNIT_TEXT, 0, NULL},
                                        {"operations", SAT_UNIT_COUNT, 0, NULL},
                                        {"internal", SAT_UNIT_COUNT, 0, NULL},
                                        {"operations_etime_s", SAT_UNIT_DURATION, 6, NULL},
                                        {"internal_s", SAT_UNIT_DURATION, 6, NULL}};
        sat_rnode *g = sat_table_row(sat_table(io, "groups", gcols, 6));
        sat_put_text(g, "op", "MOD");
        sat_put_text(g, "base", "cn=*,ou=groups,dc=example,dc=com");
        sat_put_count(g, "operations", 100);
        sat_put_count(g, "internal", e->internal);
        sat_put_dur(g, "operations_etime_s", e->mod_s, 6);
        sat_put_dur(g, "internal_s", e->internal_s, 6);
        static const sat_col icols[] = {{"parent_op", SAT_UNIT_TEXT, 0, NULL},
                                        {"depth", SAT_UNIT_COUNT, 0, NULL},
                                        {"op", SAT_UNIT_TEXT, 0, NULL},
                                        {"base", SAT_UNIT_TEXT, 0, NULL},
                                        {"count", SAT_UNIT_COUNT, 0, NULL},
                                        {"errors", SAT_UNIT_COUNT, 0, NULL},
                                        {"error_codes", SAT_UNIT_TEXT, 0, NULL},
                                        {"total_s", SAT_UNIT_DURATION, 6, NULL}};
        sat_rnode *w = sat_table_row(sat_table(io, "ops", icols, 8));
        sat_put_text(w, "parent_op", "MOD");
        sat_put_count(w, "depth", 1);
        sat_put_text(w, "op", "MOD");
        sat_put_text(w, "base", "uid=*,ou=people,dc=example,dc=com");
        sat_put_count(w, "count", e->internal);
        sat_put_count(w, "errors", e->internal_errors);
        sat_put_text(w, "error_codes", e->internal_errors ? "65 objectClassViolation" : NULL);
        sat_put_dur(w, "total_s", e->internal_s, 6);
    }
    return r;
}

/* ---- timeline and storms: a storm from T0 to T0 + 100 s ----------------------------------- */

static sat_result *timeline_result(double asked_before, double answered_before, double asked_during,
                                   double answered_during, double opened_during)
{
    sat_result *r = sat_result_new("timeline");
    sat_rnode *root = sat_result_root(r);
    sat_put_dur(root, "window_s", 10, 3);
    sat_put_count(root, "connections", 400);
    static const sat_col cols[] = {{"start_ts", SAT_UNIT_TIME, 0, NULL},
                                   {"count", SAT_UNIT_COUNT, 0, NULL},
                                   {"errors", SAT_UNIT_COUNT, 0, NULL},
                                   {"answered", SAT_UNIT_COUNT, 0, NULL},
                                   {"conns.opened", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *w = sat_table(root, "windows", cols, 5);
    sat_table_set_window(w, 10 * NS);
    /* 20 windows before, 10 during, 10 after (as before) */
    for (int i = -20; i < 20; i++) {
        int during = i >= 0 && i < 10;
        sat_rnode *row = sat_table_row(w);
        sat_put_time(row, "start_ts", T0 + i * 10 * NS);
        sat_put_count(row, "count", (uint64_t)(during ? asked_during : asked_before));
        sat_put_count(row, "errors", during ? 5 : 0);
        sat_put_count(row, "answered", (uint64_t)(during ? answered_during : answered_before));
        sat_put_count(row, "conns.opened", (uint64_t)(during ? opened_during : 4));
    }
    return r;
}

static sat_result *storms_result(void)
{
    sat_result *r = sat_result_new("storms");
    sat_rnode *root = sat_result_root(r);
    sat_put_count(root, "events", 200);
    sat_put_count(sat_obj(root, "rows_read"), "ldap_op", 1000);
    static const sat_col cols[] = {{"storm", SAT_UNIT_COUNT, 0, NULL},
                                   {"start_ts", SAT_UNIT_TIME, 0, NULL},
                                   {"end_ts", SAT_UNIT_TIME, 0, NULL},
                                   {"events", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *row = sat_table_row(sat_table(root, "storms", cols, 4));
    sat_put_count(row, "storm", 1);
    sat_put_time(row, "start_ts", T0);
    sat_put_time(row, "end_ts", T0 + 100 * NS);
    sat_put_count(row, "events", 200);
    return r;
}

/* ---- the tests ---------------------------------------------------------------------------- */

static const etime_spec quiet = {1000, 5, 10, 2, 4, 10, 60, 0, 0, 0};

static void test_failed_binds(void)
{
    /* 100 of 1000 binds failed (10%), from 40 clients: fires */
    etime_spec e = quiet;
    e.failed = 100;
    e.top_client_failed = 20;
    e.failed_clients = 40;
    sat_result *one[] = {etime_result(&e)};
    char *j = postmortem(one, 1);
    CHECK(j && strstr(j, "100 of 1000 binds (10.0%) failed with invalid credentials (err=49); "
                         "from 40 clients, the most for uid=ssmith,ou=people,dc=example,dc=com "
                         "(50): wrong or stale passwords") != NULL);
    CHECK(j && strstr(j, "\"failed_share\": 0.1") != NULL);
    CHECK(j && strstr(j, "\"section\": \"results\"") != NULL);
    CHECK(j && strstr(j, "Result codes and failed binds") != NULL);
    free(j);

    /* 40 of 2000 (2%), 30 of them from one client among 10: fires, one client */
    e = quiet;
    e.binds = 2000;
    e.failed = 40;
    e.top_client_failed = 30;
    e.failed_clients = 5;
    one[0] = etime_result(&e);
    j = postmortem(one, 1);
    CHECK(j && strstr(j, "40 of 2000 binds (2.00%) failed with invalid credentials (err=49); 30 "
                         "of them (75.0%) from one client, 10.0.0.1") != NULL);
    CHECK(j && strstr(j, "a client retrying a wrong or stale password") != NULL);
    free(j);

    /* 30 of 1000 (3%) from 20 clients, none with most: not said */
    e = quiet;
    e.failed = 30;
    e.top_client_failed = 5;
    e.failed_clients = 20;
    one[0] = etime_result(&e);
    j = postmortem(one, 1);
    CHECK(j && strstr(j, "failed with invalid credentials (err=49);") == NULL);
    CHECK(j && strstr(j, "Result codes and failed binds") != NULL); /* the section is */
    free(j);

    /* 15 of 20 (75%): too few to tell */
    e = quiet;
    e.binds = 20;
    e.failed = 15;
    e.top_client_failed = 15;
    e.failed_clients = 1;
    one[0] = etime_result(&e);
    j = postmortem(one, 1);
    CHECK(j && strstr(j, "failed with invalid credentials (err=49);") == NULL);
    free(j);
}

static void test_internal(void)
{
    /* MOD: 50 s of the server's 60 s; its internal operations 10 s of it (20%) */
    etime_spec e = quiet;
    e.mod_s = 50;
    e.internal_s = 10;
    e.internal = 300;
    e.internal_errors = 100;
    sat_result *one[] = {etime_result(&e)};
    char *j = postmortem(one, 1);
    CHECK(j && strstr(j, "Internal operations took 10.0 s of the MOD operations' 50.0 s etime "
                         "(20.0%): 100 MOD operations ran 300 internal ones (3.00 per operation, "
                         "100 of them failed); the costliest: 300 internal MOD of "
                         "uid=*,ou=people,dc=example,dc=com (10.0 s, 100 failed: 65 objectClassViolation). "
                         "MOD operations "
                         "took 83.3% of the server's time.") != NULL);
    CHECK(j && strstr(j, "\"internal_errors\": 100") != NULL);
    free(j);
    /* 2 s of 50 s (4%): not said */
    e.internal_s = 2;
    one[0] = etime_result(&e);
    j = postmortem(one, 1);
    CHECK(j && strstr(j, "Internal operations took") == NULL);
    free(j);
    /* 20% of MOD's etime, but MOD 5 s of 60 s (8.3%): not said */
    e.mod_s = 5;
    e.internal_s = 1;
    one[0] = etime_result(&e);
    j = postmortem(one, 1);
    CHECK(j && strstr(j, "Internal operations took") == NULL);
    free(j);
}

static void test_throughput(void)
{
    /* answers 60 -> 20 per window while 62 -> 65 asked for: fires */
    sat_result *three[] = {storms_result(), timeline_result(62, 60, 65, 20, 4), etime_result(&quiet)};
    char *j = postmortem(three, 3);
    CHECK(j && strstr(j, "Throughput collapsed during storm 1: the server answered 20.0 operations "
                         "per 10.0 s window against 60.0 before it (66.7% fewer), while clients "
                         "asked for 65.0 per window (62.0 before): the load was there, the answers "
                         "were not; after it, 60.0 per window.") != NULL);
    CHECK(j && strstr(j, "\"answered_drop\": 0.6667") != NULL);
    CHECK(j && strstr(j, "Throughput before, during and after storm 1") != NULL);
    free(j);
    /* the load fell with the answers (a quiet hour, clients gone): not said */
    sat_result *fell[] = {storms_result(), timeline_result(62, 60, 21, 20, 1), etime_result(&quiet)};
    j = postmortem(fell, 3);
    CHECK(j && strstr(j, "Throughput collapsed") == NULL);
    CHECK(j && strstr(j, "Throughput before, during and after storm 1") != NULL);
    free(j);
    /* fewer operations asked for, but the clients kept connecting (the
     * server no longer read their requests): said, of the connections */
    sat_result *conns[] = {storms_result(), timeline_result(62, 60, 21, 20, 12), etime_result(&quiet)};
    j = postmortem(conns, 3);
    CHECK(j && strstr(j, "(66.7% fewer), while clients opened 12.0 connections per window (4.00 "
                         "before)") != NULL);
    free(j);
    /* answers fell by a quarter only: not said */
    sat_result *less[] = {storms_result(), timeline_result(62, 60, 65, 45, 4), etime_result(&quiet)};
    j = postmortem(less, 3);
    CHECK(j && strstr(j, "Throughput collapsed") == NULL);
    free(j);
}

int main(void)
{
    test_failed_binds();
    test_internal();
    test_throughput();
    return CHECK_DONE();
}
