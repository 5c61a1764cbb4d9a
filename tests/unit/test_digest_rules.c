/*
 * test_digest_rules.c - the digest's rules (report/kinds/digest_rules.c):
 * each threshold on both sides. The latency rule on figures (samples on each
 * side, the ratio, the baseline's range widened by the margin, the absolute
 * floor); the other rules on days built by hand with the result sections
 * they read (new result codes, unindexed filter shapes, failing bind DNs,
 * heavy clients, old TLS, storms, crashes, the cache).
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "report/kinds/digest_int.h"
#include "satscope/analyze.h"

static const sat_digest_rule *rule(const char *id)
{
    size_t n;
    const sat_digest_rule *r = sat_digest_rules(&n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(r[i].id, id))
            return &r[i];
    CHECK(!"no such rule");
    return NULL;
}

static void test_latency(void)
{
    const sat_digest_rule *r = rule("latency.p90");
    CHECK_EQ_INT(r->min_count, 200);
    sat_dg_latency x = {0.010, 0.002, 0.0019, 0.0024, 1000, 1000};
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &x), 1);
    /* samples: the day and the baseline each need min_count */
    x.cur_n = 199;
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &x), 0);
    x.cur_n = 200;
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &x), 1);
    x.base_n = 199;
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &x), 0);
    x.base_n = 200;
    /* the ratio (1.5) */
    sat_dg_latency y = {0.00599, 0.004, 0.004, 0.004, 1000, 1000};
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &y), 0);
    y.cur = 0.006;
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &y), 1);
    /* beyond the baseline's range widened by the margin (25%) */
    sat_dg_latency z = {0.00625, 0.004, 0.0035, 0.005, 1000, 1000};
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &z), 0);
    z.cur = 0.00626;
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &z), 1);
    z.hi = NAN; /* no range known: the baseline itself */
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &z), 1);
    /* the floor (1 ms): 0.1 ms -> 0.3 ms is no regression */
    sat_dg_latency f = {0.0003, 0.0001, 0.0001, 0.0001, 1000, 1000};
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &f), 0);
    f.cur = 0.00109;
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &f), 0);
    f.cur = 0.00111;
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &f), 1);
    /* a missing figure is never a regression */
    f.base = NAN;
    CHECK_EQ_INT(sat_digest_latency_regressed(r, &f), 0);
    const sat_digest_rule *p99 = rule("latency.p99");
    sat_dg_latency q = {0.100, 0.020, 0.02, 0.02, 999, 5000};
    CHECK_EQ_INT(sat_digest_latency_regressed(p99, &q), 0);
    q.cur_n = 1000;
    CHECK_EQ_INT(sat_digest_latency_regressed(p99, &q), 1);
    q.cur = 0.0399; /* under 2x */
    CHECK_EQ_INT(sat_digest_latency_regressed(p99, &q), 0);
}

/* ---- days built by hand -------------------------------------------------------------- */

typedef struct hand {
    sat_dg_day d;
} hand;

static void hand_init(hand *h, const char *date)
{
    memset(h, 0, sizeof *h);
    h->d.server = "s1";
    snprintf(h->d.date, sizeof h->d.date, "%s", date);
    h->d.set = -1;
}

static sat_rnode *root_of(hand *h, int m, const char *command)
{
    if (!h->d.res[m])
        h->d.res[m] = sat_result_new(command);
    return sat_result_root(h->d.res[m]);
}

static void hand_free(hand *h)
{
    for (int m = 0; m < SAT_DG__N; m++)
        sat_result_free(h->d.res[m]);
}

/* A table at path (objects on the way) of a text key and a count. */
static sat_rnode *kv_table(hand *h, int m, const char *obj, const char *name, const char *key,
                           int key_int)
{
    sat_rnode *o = root_of(h, m, "x");
    if (obj)
        o = (sat_rnode *)(sat_rnode_get(o, obj) ? sat_rnode_get(o, obj) : sat_obj(o, obj));
    const sat_col cols[] = {{key, key_int ? SAT_UNIT_INT : SAT_UNIT_TEXT, 0, NULL},
                            {"count", SAT_UNIT_COUNT, 0, NULL},
                            {"total_s", SAT_UNIT_DURATION, 9, NULL}};
    sat_rnode *t = (sat_rnode *)sat_rnode_get(o, name);
    return t ? t : sat_table(o, name, cols, 3);
}

static void kv_row(sat_rnode *t, const char *key, const char *text, int64_t code, uint64_t count,
                   double total_s)
{
    sat_rnode *r = sat_table_row(t);
    if (text)
        sat_put_text(r, key, text);
    else
        sat_put_int(r, key, code);
    sat_put_count(r, "count", count);
    sat_put_dur(r, "total_s", total_s, 9);
}

/* Runs rule id on day d against base days; the findings it writes. */
static int run(const char *id, hand *d, hand *const *base, size_t nbase)
{
    sat_result *scratch = sat_result_new("report");
    sat_rnode *findings = sat_list(sat_result_root(scratch), "findings");
    const sat_dg_day *b[8];
    for (size_t i = 0; i < nbase; i++)
        b[i] = &base[i]->d;
    sat_dg_ctx c = {&d->d, b, nbase, findings, 0};
    const sat_digest_rule *r = rule(id);
    int n = r ? r->check(r, &c) : -1;
    CHECK_EQ_INT((int)sat_rnode_count(findings), n);
    sat_result_free(scratch);
    return n;
}

static void test_new_keys(void)
{
    hand day, b1;
    hand_init(&day, "2026-11-03");
    hand_init(&b1, "2026-11-02");
    hand *base[] = {&b1};
    /* result codes: 10 results of a code no baseline day had */
    sat_rnode *codes = kv_table(&day, SAT_DG_ETIME, NULL, "result_codes", "result_code", 1);
    kv_row(codes, "result_code", NULL, 0, 5000, 0);
    kv_row(codes, "result_code", NULL, 53, 10, 0);
    kv_row(codes, "result_code", NULL, 52, 9, 0);
    kv_row(codes, "result_code", NULL, 32, 40, 0);
    sat_rnode *bcodes = kv_table(&b1, SAT_DG_ETIME, NULL, "result_codes", "result_code", 1);
    kv_row(bcodes, "result_code", NULL, 32, 1, 0);
    CHECK_EQ_INT(run("errors.new_code", &day, base, 1), 1); /* 53; not 52 (9), 32, 0 */
    CHECK_EQ_INT(run("errors.new_code", &day, base, 0), 0); /* no baseline: nothing is new */
    /* unindexed filter shapes: 5 searches */
    sat_rnode *u = kv_table(&day, SAT_DG_UNINDEXED, NULL, "groups", "filter", 0);
    kv_row(u, "filter", "(a=*)", 0, 5, 1.0);
    kv_row(u, "filter", "(b=*)", 0, 4, 1.0);
    kv_row(u, "filter", "(c=*)", 0, 50, 1.0);
    kv_row(kv_table(&b1, SAT_DG_UNINDEXED, NULL, "groups", "filter", 0), "filter", "(c=*)", 0, 1,
           0.1);
    CHECK_EQ_INT(run("unindexed.new_shape", &day, base, 1), 1);
    /* failing bind DNs: 10 failures */
    sat_rnode *f = kv_table(&day, SAT_DG_ETIME, "binds", "failed_by_dn", "binddn", 0);
    kv_row(f, "binddn", "uid=a", 0, 10, 0);
    kv_row(f, "binddn", "uid=b", 0, 9, 0);
    kv_row(f, "binddn", "uid=c", 0, 30, 0);
    kv_row(kv_table(&b1, SAT_DG_ETIME, "binds", "failed_by_dn", "binddn", 0), "binddn", "uid=c",
           0, 2, 0);
    CHECK_EQ_INT(run("binds.newly_failing", &day, base, 1), 1);
    hand_free(&day);
    hand_free(&b1);
}

static void test_heavy_clients(void)
{
    hand day, b1, b2;
    hand_init(&day, "2026-11-03");
    hand_init(&b1, "2026-11-01");
    hand_init(&b2, "2026-11-02");
    hand *base[] = {&b1, &b2};
    /* the day: 1000 operations, 100 s; "new" has 5% of the operations and
     * 1% of the time, "slow" 0.1% of the operations and 5% of the time */
    sat_rnode *t = kv_table(&day, SAT_DG_CLIENTS, NULL, "groups", "client", 0);
    kv_row(t, "client", "a", 0, 600, 60);
    kv_row(t, "client", "b", 0, 344, 33);
    kv_row(t, "client", "new", 0, 50, 1);
    kv_row(t, "client", "slow", 0, 1, 5);
    kv_row(t, "client", "under", 0, 5, 1);
    for (int i = 0; i < 2; i++) {
        sat_rnode *bt = kv_table(base[i], SAT_DG_CLIENTS, NULL, "groups", "client", 0);
        kv_row(bt, "client", "a", 0, 800, 80);
        kv_row(bt, "client", "b", 0, 191, 19);
        /* "slow": 0.9% of a baseline day's time (small), then 1% (not) */
        kv_row(bt, "client", "slow", 0, 9, i == 0 ? 0.909 : 0.5);
    }
    CHECK_EQ_INT(run("clients.new_heavy", &day, base, 2), 2); /* new (ops), slow (time) */
    /* slow at 1% of a baseline day's time is not new */
    hand_free(&b2);
    hand_init(&b2, "2026-11-02");
    sat_rnode *bt = kv_table(&b2, SAT_DG_CLIENTS, NULL, "groups", "client", 0);
    kv_row(bt, "client", "a", 0, 800, 80);
    kv_row(bt, "client", "b", 0, 190, 19);
    kv_row(bt, "client", "slow", 0, 10, 1.0);
    CHECK_EQ_INT(run("clients.new_heavy", &day, base, 2), 1);
    hand_free(&day);
    /* under 5% of the operations: not heavy; and rank past the 5th: not looked at */
    hand_init(&day, "2026-11-03");
    t = kv_table(&day, SAT_DG_CLIENTS, NULL, "groups", "client", 0);
    kv_row(t, "client", "a", 0, 951, 99);
    kv_row(t, "client", "new", 0, 49, 0.9);
    CHECK_EQ_INT(run("clients.new_heavy", &day, base, 2), 0);
    hand_free(&day);
    hand_init(&day, "2026-11-03");
    t = kv_table(&day, SAT_DG_CLIENTS, NULL, "groups", "client", 0);
    const char *six[] = {"c1", "c2", "c3", "c4", "c5"};
    for (int i = 0; i < 5; i++)
        kv_row(t, "client", six[i], 0, 180, 18);
    kv_row(t, "client", "a", 0, 60, 6);
    kv_row(t, "client", "new", 0, 55, 1);
    /* c1..c5 are new too: five findings, not "new" (7th) */
    CHECK_EQ_INT(run("clients.new_heavy", &day, base, 2), 5);
    hand_free(&day);
    hand_free(&b1);
    hand_free(&b2);
}

static void test_no_baseline_rules(void)
{
    hand day;
    hand_init(&day, "2026-11-03");
    sat_rnode *cs = sat_obj(root_of(&day, SAT_DG_ETIME, "etime"), "connection_stats");
    const sat_col cols[] = {{"version", SAT_UNIT_TEXT, 0, NULL}, {"count", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *tv = sat_table(cs, "tls_versions", cols, 2);
    sat_rnode *r = sat_table_row(tv);
    sat_put_text(r, "version", "TLS1.2 256-bit AES-GCM");
    sat_put_count(r, "count", 100);
    CHECK_EQ_INT(run("tls.old_version", &day, NULL, 0), 0);
    r = sat_table_row(tv);
    sat_put_text(r, "version", "TLS1.1 128-bit AES");
    sat_put_count(r, "count", 1);
    CHECK_EQ_INT(run("tls.old_version", &day, NULL, 0), 1);
    /* storms and crashes: one is a finding, none is not */
    const sat_col sc[] = {{"storm", SAT_UNIT_COUNT, 0, NULL}, {"start_ts", SAT_UNIT_TIME, 0, NULL},
                          {"events", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *st = sat_table(root_of(&day, SAT_DG_STORMS, "storms"), "storms", sc, 3);
    CHECK_EQ_INT(run("storms", &day, NULL, 0), 0);
    r = sat_table_row(st);
    sat_put_count(r, "storm", 1);
    sat_put_time(r, "start_ts", (int64_t)1793689200 * 1000000000LL);
    sat_put_count(r, "events", 300);
    CHECK_EQ_INT(run("storms", &day, NULL, 0), 1);
    const sat_col cc[] = {{"ts", SAT_UNIT_TIME, 0, NULL}, {"signal_name", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *ct = sat_table(root_of(&day, SAT_DG_CRASHES, "crashes"), "crashes", cc, 2);
    CHECK_EQ_INT(run("crashes", &day, NULL, 0), 0);
    r = sat_table_row(ct);
    sat_put_text(r, "signal_name", "SIGSEGV");
    CHECK_EQ_INT(run("crashes", &day, NULL, 0), 1);
    /* the cache: below the entries the first target needs, known from the monitor */
    sat_rnode *croot = root_of(&day, SAT_DG_CACHESIZE, "cachesize");
    const sat_col tc[] = {{"hit_ratio", SAT_UNIT_RATIO, 2, NULL}, {"entries", SAT_UNIT_COUNT, 0, NULL}};
    r = sat_table_row(sat_table(croot, "targets", tc, 2));
    sat_put_ratio(r, "hit_ratio", 0.95, 2);
    sat_put_count(r, "entries", 100);
    CHECK_EQ_INT(run("cache.below_working_set", &day, NULL, 0), 0); /* no monitor data */
    sat_rnode *mon = sat_obj(croot, "monitor");
    sat_put_count(mon, "current_entries", 100);
    CHECK_EQ_INT(run("cache.below_working_set", &day, NULL, 0), 0);
    hand_free(&day);
    hand_init(&day, "2026-11-03");
    croot = root_of(&day, SAT_DG_CACHESIZE, "cachesize");
    r = sat_table_row(sat_table(croot, "targets", tc, 2));
    sat_put_ratio(r, "hit_ratio", 0.95, 2);
    sat_put_count(r, "entries", 100);
    sat_put_count(sat_obj(croot, "monitor"), "current_entries", 99);
    CHECK_EQ_INT(run("cache.below_working_set", &day, NULL, 0), 1);
    hand_free(&day);
}

/* The latency rule on days: the baseline's median and range, and the one-day
 * range from the hours. */
static void latency_day(hand *h, const char *op, uint64_t n, double p90)
{
    sat_rnode *root = root_of(h, SAT_DG_ETIME, "etime");
    const sat_col cols[] = {{"op", SAT_UNIT_TEXT, 0, NULL},
                            {"count", SAT_UNIT_COUNT, 0, NULL},
                            {"p90_s", SAT_UNIT_DURATION, 9, NULL}};
    sat_rnode *t = (sat_rnode *)sat_rnode_get(root, "ops");
    if (!t)
        t = sat_table(root, "ops", cols, 3);
    sat_rnode *r = sat_table_row(t);
    sat_put_text(r, "op", op);
    sat_put_count(r, "count", n);
    sat_put_dur(r, "p90_s", p90, 9);
}

static void test_latency_days(void)
{
    hand day, b1, b2, b3;
    hand_init(&day, "2026-11-04");
    hand_init(&b1, "2026-11-01");
    hand_init(&b2, "2026-11-02");
    hand_init(&b3, "2026-11-03");
    latency_day(&day, "SRCH", 5000, 0.0039);
    latency_day(&day, "all", 9000, 0.0100); /* the total row is never judged */
    latency_day(&b1, "SRCH", 5000, 0.0020);
    latency_day(&b2, "SRCH", 5000, 0.0022);
    latency_day(&b3, "SRCH", 5000, 0.0033);
    latency_day(&b1, "all", 9000, 0.0010);
    hand *base[] = {&b1, &b2, &b3};
    /* median 2.2 ms, range up to 3.3 ms: 3.9 ms is 1.8x but within 3.3 * 1.25 */
    CHECK_EQ_INT(run("latency.p90", &day, base, 3), 0);
    sat_dg_latency x;
    const sat_dg_day *bd[] = {&b1.d, &b2.d, &b3.d};
    CHECK_EQ_INT(sat_dg_baseline(bd, 3, "SRCH", "p90_s", 10, &x), 3);
    CHECK(fabs(x.base - 0.0022) < 1e-12 && fabs(x.lo - 0.0020) < 1e-12 && fabs(x.hi - 0.0033) < 1e-12);
    CHECK_EQ_INT(x.base_n, 15000);
    /* without the slow day: median 2.1 ms, range to 2.2 ms: a regression */
    CHECK_EQ_INT(run("latency.p90", &day, base, 2), 1);
    /* one day: its hours give the range (timeline hours, as a factor of its day) */
    sat_rnode *tl = root_of(&b1, SAT_DG_TIMELINE, "timeline");
    sat_put_dur(tl, "p90_s", 0.0010, 9);
    const sat_col hc[] = {{"start_ts", SAT_UNIT_TIME, 0, NULL},
                          {"count", SAT_UNIT_COUNT, 0, NULL},
                          {"p90_s", SAT_UNIT_DURATION, 9, NULL}};
    sat_rnode *hours = sat_table(tl, "hours", hc, 3);
    const double hp[] = {0.0008, 0.0010, 0.0016, 0.0050};
    const uint64_t hn[] = {100, 100, 100, 19}; /* the last: too few operations to count */
    for (int i = 0; i < 4; i++) {
        sat_rnode *r = sat_table_row(hours);
        sat_put_time(r, "start_ts", (int64_t)(1793516400 + 3600 * i) * 1000000000LL);
        sat_put_count(r, "count", hn[i]);
        sat_put_dur(r, "p90_s", hp[i], 9);
    }
    CHECK_EQ_INT(sat_dg_baseline(bd, 1, "SRCH", "p90_s", 20, &x), 1);
    CHECK(fabs(x.lo - 0.0016) < 1e-9 && fabs(x.hi - 0.0032) < 1e-9);
    /* 3.9 ms: 1.95x the day, but its worst hour scaled is 3.2 ms and 3.2 * 1.25 = 4 ms */
    CHECK_EQ_INT(run("latency.p90", &day, base, 1), 0);
    hand_free(&day);
    hand_init(&day, "2026-11-04");
    latency_day(&day, "SRCH", 5000, 0.00401);
    CHECK_EQ_INT(run("latency.p90", &day, base, 1), 1);
    hand_free(&day);
    hand_free(&b1);
    hand_free(&b2);
    hand_free(&b3);
}

int main(void)
{
    test_latency();
    test_new_keys();
    test_heavy_clients();
    test_no_baseline_rules();
    test_latency_days();
    return CHECK_DONE();
}
