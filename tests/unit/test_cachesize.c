#define _POSIX_C_SOURCE 200809L /* open_memstream */
/*
 * test_cachesize.c - the cache-sizing analyzer (analyze/cachesize.c): the
 * exact curve equals a brute-force LRU simulation (a cache of c entries,
 * least recently used evicted) at every size on small random streams and on
 * one long enough to renumber the time axis many times; SHARDS (fixed size,
 * and after the stored stream was spatially sampled) within a mean absolute
 * error of 0.005 and a worst one of 0.02 against exact on generated Zipf,
 * 80/20 and scan-heavy streams (fixed seeds); merging two halves equals the
 * whole; the reference stream taken from ldap_op rows (which operations and
 * DNs count, normalization, MODRDN's new DN, what the curve cannot see); the
 * working set per hour; the cn=monitor LDIF reader.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/report.h"
#include "result_check.h"

#define S ((sat_ts_ns)1000000000)
static const sat_ts_ns T0 = (sat_ts_ns)1749400000 * S;

static uint64_t rng;
static uint64_t next(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}
static double unif(void) { return (double)(next() >> 11) / 9007199254740992.0; }

static void add_key(sat_cs *c, uint32_t k, sat_ts_ns ts)
{
    char dn[64];
    int n = snprintf(dn, sizeof dn, "uid=u%u,ou=people,dc=example,dc=com", k);
    CHECK(sat_cs_add_ref(c, dn, (size_t)n, ts) == SAT_OK);
}

static int build_result(const void *a, sat_result *r) { return sat_cs_result((const sat_cs *)a, r); }

/* The finished analyzer's result; the caller frees it. */
static sat_result *result_of(const sat_cs *c)
{
    return rc_result("cachesize", build_result, c);
}

/* hits of a true LRU cache of `size` entries over keys[0..n) */
static uint64_t lru_hits(const uint32_t *keys, size_t n, size_t size)
{
    uint32_t *slot = malloc(size * sizeof *slot);
    size_t *used = malloc(size * sizeof *used);
    size_t filled = 0;
    uint64_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j;
        for (j = 0; j < filled && slot[j] != keys[i]; j++)
            ;
        if (j < filled) {
            hits++;
            used[j] = i;
            continue;
        }
        if (filled < size) {
            slot[filled] = keys[i];
            used[filled++] = i;
            continue;
        }
        size_t lru = 0;
        for (j = 1; j < filled; j++)
            if (used[j] < used[lru])
                lru = j;
        slot[lru] = keys[i];
        used[lru] = i;
    }
    free(slot);
    free(used);
    return hits;
}

static void test_exact_vs_bruteforce(void)
{
    static uint32_t keys[30000];
    for (int round = 0; round < 12; round++) {
        rng = 0x1234567ull + (uint64_t)round;
        size_t n = 300 + (size_t)round * 40, universe = 5 + (size_t)round * 7;
        sat_cs *c = sat_cs_create(NULL);
        for (size_t i = 0; i < n; i++) {
            /* half uniform, half skewed to the low keys */
            uint32_t k = (uint32_t)(round % 2 ? next() % universe
                                              : (uint32_t)(universe * unif() * unif()));
            keys[i] = k;
            add_key(c, k, T0 + (sat_ts_ns)i * S);
        }
        CHECK(sat_cs_finish(c) == SAT_OK);
        sat_result *r = result_of(c);
        CHECK_EQ_STR(sat_get_text(sat_result_root(r), "method", ""), "exact");
        CHECK_EQ_INT(sat_get_count(sat_result_root(r), "references", 0), n);
        sat_result_free(r);
        for (size_t size = 1; size <= universe + 2; size++) {
            uint64_t want = lru_hits(keys, n, size);
            double got = sat_cs_hits(c, size);
            if (got != (double)want)
                fprintf(stderr, "round %d size %zu: %g != %llu\n", round, size, got,
                        (unsigned long long)want);
            CHECK(got == (double)want);
        }
        sat_cs_free(c);
    }
    /* long enough to renumber the time axis (1024 first) and grow it, many keys */
    rng = 99;
    size_t n = 30000, universe = 3000;
    sat_cs *c = sat_cs_create(NULL);
    for (size_t i = 0; i < n; i++) {
        keys[i] = (uint32_t)(universe * unif() * unif());
        add_key(c, keys[i], 0);
    }
    CHECK(sat_cs_finish(c) == SAT_OK);
    static const size_t sizes[] = {1, 2, 17, 100, 512, 1000, 1500, 2999, 3000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        CHECK(sat_cs_hits(c, sizes[i]) == (double)lru_hits(keys, n, sizes[i]));
    sat_cs_free(c);
}

/* ---- SHARDS against exact ---------------------------------------------------------- */

enum { ZIPF, EIGHTY_TWENTY, SCAN, CYCLIC };
static uint64_t scan_at, scan_left;

static uint32_t draw(int kind, const double *cdf, size_t universe, size_t i)
{
    switch (kind) {
    case ZIPF: {
        double u = unif();
        size_t lo = 0, hi = universe - 1;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (cdf[mid] >= u)
                hi = mid;
            else
                lo = mid + 1;
        }
        return (uint32_t)lo;
    }
    case EIGHTY_TWENTY:
        return unif() < 0.8 ? (uint32_t)(next() % (universe / 5))
                            : (uint32_t)(universe / 5 + next() % (universe - universe / 5));
    case SCAN: /* half a hot set, half scans of 100 - 20000 consecutive entries */
        if (unif() < 0.5)
            return (uint32_t)(next() % 5000);
        if (!scan_left) {
            scan_at = 5000 + next() % (universe - 5000);
            scan_left = 100 + next() % 19900;
        }
        scan_left--;
        return (uint32_t)(5000 + (scan_at++ - 5000) % (universe - 5000));
    default: /* a hot set, and the same full scan over the rest, in turns */
        if ((i / 50000) % 2)
            return (uint32_t)(5000 + i % (universe - 5000));
        return (uint32_t)(next() % 5000);
    }
}

static void compare(const sat_cs *exact, const sat_cs *sh, const char *what, double *mae_out,
                    double *max_out)
{
    sat_result *re = result_of(exact), *rs = result_of(sh);
    uint64_t top = sat_get_count(sat_result_root(re), "unique", 0);
    double sum = 0, worst = 0;
    int pts = 400;
    for (int k = 1; k <= pts; k++) {
        uint64_t size = (uint64_t)((double)top * k / pts);
        if (!size)
            size = 1;
        double e = fabs(sat_cs_hit_ratio(exact, size) - sat_cs_hit_ratio(sh, size));
        sum += e;
        if (e > worst)
            worst = e;
    }
    *mae_out = sum / pts;
    *max_out = worst;
    fprintf(stderr, "%s: SHARDS rate %.5f, MAE %.5f, max %.5f, unique %llu (exact %llu)\n", what,
            sat_get_num(sat_result_root(rs), "sampling.shards_rate", NAN), *mae_out, *max_out,
            (unsigned long long)sat_get_count(sat_result_root(rs), "unique", 0),
            (unsigned long long)top);
    sat_result_free(re);
    sat_result_free(rs);
}

/* A periodic full scan makes the exact curve a vertical step: every scan
 * reference has the same distance. Sampling puts the step within about
 * 1/sqrt(distance x rate) of its place, so next to it the hit ratio at one
 * size can be far off (the worst error is not bounded there); what is
 * checked is where the step lands: the size reaching each hit ratio on the
 * step within 2% of the exact size. */
static void check_step(const sat_cs *ex, const sat_cs *sh)
{
    sat_result *r = result_of(ex);
    uint64_t top = sat_get_count(sat_result_root(r), "unique", 0);
    sat_result_free(r);
    double worst = 0;
    for (int k = 1; k < 10; k++) {
        /* levels on the step (the hot set is held well below top / 2) */
        double h = sat_cs_hit_ratio(ex, top / 2) +
                   (sat_cs_hit_ratio(ex, top) - sat_cs_hit_ratio(ex, top / 2)) * k / 10.0;
        uint64_t se = 1, ss = 1;
        while (se < top && sat_cs_hit_ratio(ex, se) < h)
            se += 50;
        while (ss < top && sat_cs_hit_ratio(sh, ss) < h)
            ss += 50;
        double rel = fabs((double)ss - (double)se) / (double)se;
        if (rel > worst)
            worst = rel;
    }
    fprintf(stderr, "  step: size error at equal hit ratio at most %.2f%%\n", 100 * worst);
    CHECK(worst <= 0.02);
}

static void test_shards_error(void)
{
    static const char *const names[] = {"zipf 0.9", "80/20", "scan-heavy", "cyclic full scan"};
    size_t universe = 200000, n = 1500000;
    double *cdf = malloc(universe * sizeof *cdf);
    double z = 0;
    for (size_t k = 0; k < universe; k++)
        z += pow((double)(k + 1), -0.9);
    double run = 0;
    for (size_t k = 0; k < universe; k++) {
        run += pow((double)(k + 1), -0.9) / z;
        cdf[k] = run;
    }
    for (int kind = 0; kind < 4; kind++) {
        rng = 0xC0FFEEull + (uint64_t)kind;
        sat_cs_opts so, to;
        memset(&so, 0, sizeof so);
        so.force_shards = 1;
        memset(&to, 0, sizeof to);
        to.max_refs = 600000; /* the stored stream gets spatially sampled first (at 1/4) */
        sat_cs *ex = sat_cs_create(NULL), *sh = sat_cs_create(&so), *th = sat_cs_create(&to);
        for (size_t i = 0; i < n; i++) {
            uint32_t k = draw(kind, cdf, universe, i);
            add_key(ex, k, 0);
            add_key(sh, k, 0);
            add_key(th, k, 0);
        }
        CHECK(sat_cs_finish(ex) == SAT_OK);
        CHECK(sat_cs_finish(sh) == SAT_OK);
        CHECK(sat_cs_finish(th) == SAT_OK);
        sat_result *rsh = result_of(sh), *rth = result_of(th);
        CHECK_EQ_STR(sat_get_text(sat_result_root(rsh), "method", ""), "shards");
        CHECK_EQ_STR(sat_get_text(sat_result_root(rth), "method", ""), "shards");
        CHECK(sat_get_count(sat_result_root(rth), "sampling.kept", UINT64_MAX) <= 600000);
        CHECK(sat_get_num(sat_result_root(rth), "sampling.keep_rate", 1) < 1);
        sat_result_free(rsh);
        sat_result_free(rth);
        double mae, worst;
        char what[64];
        snprintf(what, sizeof what, "%s (fixed-size)", names[kind]);
        compare(ex, sh, what, &mae, &worst);
        CHECK(mae <= 0.005);
        CHECK(kind == CYCLIC || worst <= 0.02);
        if (kind == CYCLIC)
            check_step(ex, sh);
        snprintf(what, sizeof what, "%s (stored stream sampled)", names[kind]);
        compare(ex, th, what, &mae, &worst);
        CHECK(mae <= 0.005);
        CHECK(kind == CYCLIC || worst <= 0.02);
        if (kind == CYCLIC)
            check_step(ex, th);
        sat_cs_free(ex);
        sat_cs_free(sh);
        sat_cs_free(th);
    }
    free(cdf);
}

/* ---- merge ----------------------------------------------------------------------- */

static void test_merge(void)
{
    rng = 4242;
    sat_cs *all = sat_cs_create(NULL), *a = sat_cs_create(NULL), *b = sat_cs_create(NULL);
    for (size_t i = 0; i < 20000; i++) {
        uint32_t k = (uint32_t)(2000 * unif() * unif());
        sat_ts_ns ts = T0 + (sat_ts_ns)i * 2 * S;
        add_key(all, k, ts);
        add_key(i < 9000 ? a : b, k, ts);
    }
    CHECK(sat_cs_finish(all) == SAT_OK);
    CHECK(sat_cs_finish(a) == SAT_OK); /* a finished one is finished again by merge */
    CHECK(sat_cs_merge(a, b) == SAT_OK);
    sat_result *ra = result_of(a), *rall = result_of(all);
    const sat_rnode *va = sat_result_root(ra), *vall = sat_result_root(rall);
    CHECK_EQ_INT(sat_get_count(va, "references", 0), 20000);
    CHECK_EQ_INT(sat_get_count(va, "unique", 0), sat_get_count(vall, "unique", 1));
    int same = 1;
    for (uint64_t size = 1; size <= 2001; size++)
        same &= sat_cs_hits(a, size) == sat_cs_hits(all, size);
    CHECK(same);
    const sat_rnode *ha = sat_get_table(va, "working_set"), *hall = sat_get_table(vall, "working_set");
    CHECK_EQ_INT(sat_rnode_count(ha), sat_rnode_count(hall));
    for (const sat_rnode *x = sat_rnode_first(ha), *y = sat_rnode_first(hall); x && y;
         x = sat_rnode_next(x), y = sat_rnode_next(y)) {
        CHECK_EQ_INT(sat_get_count(x, "distinct", 0), sat_get_count(y, "distinct", 1));
        CHECK_EQ_INT(sat_get_count(x, "references", 0), sat_get_count(y, "references", 1));
    }
    sat_result_free(ra);
    sat_result_free(rall);
    sat_cs_free(all);
    sat_cs_free(a);
    sat_cs_free(b);
}

/* ---- the reference stream from ldap_op rows ------------------------------------------ */

static void op(sat_event_sink *k, int type, const char *dn, int scope, const char *extra,
               sat_ts_ns ts)
{
    sat_ldap_op o;
    memset(&o, 0, sizeof o);
    o.ts_ns = ts;
    o.type = (uint8_t)type;
    o.scope = (uint8_t)scope;
    o.dn = sat_str_cstr(dn);
    o.extra = sat_str_cstr(extra);
    o.internal_op = SAT_ABSENT;
    o.nentries = type == SAT_OP_SRCH ? 3 : SAT_ABSENT;
    o.notes = scope == SAT_SCOPE_SUB && dn && !strcmp(dn, "dc=example,dc=com") ? SAT_NOTE_A : 0;
    CHECK(sat_sink_emit(k, SAT_TABLE_LDAP_OP, &o) == SAT_OK);
}

static void test_stream(void)
{
    sat_cs *c = sat_cs_create(NULL);
    sat_event_sink k = sat_cs_sink(c);
    sat_ts_ns h1 = T0 - T0 % (3600 * S), h2 = h1 + 3600 * S;
    op(&k, SAT_OP_BIND, "uid=A,ou=People,dc=example,dc=com", SAT_SCOPE_NONE, NULL, h1 + S);
    op(&k, SAT_OP_BIND, "", SAT_SCOPE_NONE, NULL, h1 + S);            /* anonymous */
    op(&k, SAT_OP_BIND, "cn=Directory Manager", SAT_SCOPE_NONE, NULL, h1 + S); /* root DN */
    op(&k, SAT_OP_SRCH, "uid=a, ou=people, dc=example, dc=com", SAT_SCOPE_BASE, NULL, h1 + 2 * S);
    op(&k, SAT_OP_SRCH, "", SAT_SCOPE_BASE, NULL, h1 + 2 * S);        /* root DSE */
    op(&k, SAT_OP_SRCH, "cn=schema", SAT_SCOPE_BASE, NULL, h1 + 2 * S);
    op(&k, SAT_OP_SRCH, "cn=userRoot,cn=ldbm database,cn=plugins,cn=config", SAT_SCOPE_BASE, NULL,
       h1 + 2 * S);
    op(&k, SAT_OP_SRCH, "dc=example,dc=com", SAT_SCOPE_SUB, NULL, h1 + 3 * S);
    op(&k, SAT_OP_SRCH, "ou=people,dc=example,dc=com", SAT_SCOPE_ONE, NULL, h1 + 3 * S);
    op(&k, SAT_OP_MOD, "uid=b,ou=people,dc=example,dc=com", SAT_SCOPE_NONE, NULL, h2);
    op(&k, SAT_OP_MODRDN, "uid=b,ou=people,dc=example,dc=com", SAT_SCOPE_NONE,
       "newrdn=\"uid=b-old\" newsuperior=\"(null)\"", h2 + S);
    op(&k, SAT_OP_MODRDN, "uid=c,ou=people,dc=example,dc=com", SAT_SCOPE_NONE,
       "newrdn=\"uid=c\" newsuperior=\"ou=old,dc=example,dc=com\"", h2 + S);
    op(&k, SAT_OP_SRCH, "UID=B-OLD,ou=people,dc=example,dc=com", SAT_SCOPE_BASE, NULL, h2 + 2 * S);
    /* a capture's MODRDN (bare values, an RDN with a blank): c-new renamed to "cn=c d" */
    op(&k, SAT_OP_MODRDN, "uid=c,ou=old,dc=example,dc=com", SAT_SCOPE_NONE,
       "newrdn=cn=C D newsuperior=ou=old,dc=example,dc=com", h2 + 3 * S);
    op(&k, SAT_OP_CMP, "cn=c d,ou=old,dc=example,dc=com", SAT_SCOPE_NONE, NULL, h2 + 3 * S);
    op(&k, SAT_OP_EXT, NULL, SAT_SCOPE_NONE, NULL, h2 + 3 * S);
    CHECK(sat_cs_finish(c) == SAT_OK);
    sat_result *r = result_of(c);
    const sat_rnode *v = sat_result_root(r), *st = sat_get_obj(v, "stream"),
                    *by = sat_get_obj(st, "references_by_op");
    /* refs: a, a | b, b, b-old, c, c-new, b-old, c-new (the capture MODRDN), "cn=c d" x2 */
    CHECK_EQ_INT(sat_get_count(v, "references", 0), 11);
    CHECK_EQ_INT(sat_get_count(v, "unique", 0), 6);
    CHECK_EQ_INT(sat_get_count(by, "BIND", 0), 1);
    CHECK_EQ_INT(sat_get_count(by, "SRCH", 0), 2);
    CHECK_EQ_INT(sat_get_count(by, "MODRDN", 0), 6);
    CHECK_EQ_INT(sat_get_count(st, "modrdn_new_dns", 0), 3);
    CHECK_EQ_INT(sat_get_count(st, "outside_backends", 0), 4);
    CHECK_EQ_INT(sat_get_count(st, "binds_without_dn", 0), 1);
    CHECK_EQ_INT(sat_get_count(st, "operations", 0), 16);
    CHECK_EQ_INT(sat_get_count(st, "naming_operations", 0), 8);
    CHECK_EQ_INT(sat_get_count(st, "unseen_operations", 0), 2);
    CHECK_EQ_INT(sat_get_count(st, "unseen_subtree", 0), 1);
    CHECK_EQ_INT(sat_get_count(st, "unseen_onelevel", 0), 1);
    CHECK_EQ_INT(sat_get_count(st, "unseen_unindexed", 0), 1);
    CHECK_EQ_INT(sat_get_count(st, "unseen_entries_returned", 0), 6);
    CHECK(fabs(sat_get_num(v, "unseen_share", NAN) - 2.0 / 10.0) < 1e-12);
    CHECK(sat_cs_hits(c, 1) == 3); /* a a, b b, "cn=c d" twice in a row */
    CHECK(sat_cs_hits(c, 2) == 4); /* + c-new after b-old */
    CHECK(sat_cs_hits(c, 3) == 5); /* + b-old after c, c-new */
    CHECK(fabs(sat_get_num(v, "max_hit_ratio", NAN) - 5.0 / 11.0) < 1e-12);
    const sat_rnode *hours = sat_get_table(v, "working_set");
    CHECK_EQ_INT(sat_rnode_count(hours), 2);
    CHECK_EQ_INT(sat_get_count(rc_row(hours, 0), "references", 0), 2);
    CHECK_EQ_INT(sat_get_count(rc_row(hours, 0), "distinct", 0), 1);
    CHECK_EQ_INT(sat_get_count(rc_row(hours, 1), "references", 0), 9);
    CHECK_EQ_INT(sat_get_count(rc_row(hours, 1), "distinct", 0), 5);
    CHECK(sat_rnode_count(sat_get_table(v, "mrc")) >= 4); /* 0..top: only 4 distinct sizes below 4 */
    CHECK(!sat_get_has(v, "recommend.entry_size"));
    CHECK(!sat_get_has(v, "recommend.cachememsize_bytes"));
    sat_result_free(r);
    sat_cs_free(c);
}

static void test_targets_and_bytes(void)
{
    sat_cs_monitor m[2];
    memset(m, 0, sizeof m);
    for (int i = 0; i < 2; i++) {
        int64_t *f = &m[i].entry_hits;
        for (int j = 0; j < 12; j++)
            f[j] = SAT_ABSENT;
    }
    strcpy(m[1].backend, "userRoot");
    m[0].entry_hits = 100;
    m[0].entry_tries = 200;
    m[1].entry_hits = 1000;
    m[1].entry_tries = 1200;
    m[1].entry_cur_bytes = 2000000;
    m[1].entry_cur_count = 1000; /* 2000 bytes an entry */
    m[1].entry_max_bytes = 200000; /* 100 entries */
    sat_cs_opts o;
    memset(&o, 0, sizeof o);
    o.targets[0] = 0.5;
    o.targets[1] = 0.999;
    o.ntargets = 2;
    o.monitor = m;
    o.nmonitor = 2;
    sat_cs *c = sat_cs_create(&o);
    /* 1000 keys referenced 10 times each, round robin: all hits need 1000 entries */
    for (int r = 0; r < 10; r++)
        for (uint32_t k = 0; k < 1000; k++)
            add_key(c, k, 0);
    CHECK(sat_cs_finish(c) == SAT_OK);
    sat_result *r = result_of(c);
    const sat_rnode *v = sat_result_root(r), *tg = sat_get_table(v, "targets"),
                    *rec = sat_get_obj(v, "recommend"), *mon = sat_get_obj(v, "monitor");
    CHECK(sat_cs_hits(c, 999) == 0);
    CHECK(sat_cs_hits(c, 1000) == 9000);
    CHECK_EQ_INT(sat_rnode_count(tg), 2);
    CHECK_EQ_INT(sat_get_bool(rc_row(tg, 0), "reachable", -1), 1);
    CHECK_EQ_INT(sat_get_count(rc_row(tg, 0), "entries", 0), 1000);
    CHECK_EQ_INT(sat_get_bool(rc_row(tg, 1), "reachable", -1), 0); /* max 0.9 */
    CHECK(sat_get_num(rec, "entry_size", NAN) == 2000);
    CHECK_EQ_STR(sat_get_text(rec, "entry_size_from", ""), "cn=monitor");
    CHECK_EQ_INT(sat_get_count(rc_row(tg, 0), "bytes", 0), 2000000);
    CHECK_EQ_INT(sat_get_count(rec, "cachememsize_bytes", 0), 2097152); /* 2,000,000 up to 2 MiB */
    CHECK_EQ_INT(sat_get_bool(mon, "measured_interval", -1), 1);
    CHECK(fabs(sat_get_num(mon, "measured_hit_ratio", NAN) - 0.9) < 1e-12);
    CHECK_EQ_INT(sat_get_count(mon, "current_entries", 0), 100);
    CHECK(sat_get_num(mon, "predicted_hit_ratio", NAN) == 0);
    CHECK_EQ_STR(sat_get_text(rec, "backend", ""), "userRoot");
    CHECK(sat_rnode_count(sat_get_table(v, "mrc")) >= 20);
    sat_result_free(r);
    sat_cs_free(c);
}

static void test_monitor_parse(void)
{
    static const char ldif[] =
        "# extended LDIF\n"
        "#\n"
        "# LDAPv3\n"
        "\n"
        "# monitor, userRoot, ldbm database, plugins, config\n"
        "dn: cn=monitor,cn=userRoot,cn=ldbm database,cn=plugins,cn=config\n"
        "objectClass: top\n"
        "objectClass: extensibleObject\n"
        "cn: monitor\n"
        "entrycachehits: 8123\n"
        "entrycachetries: 9000\n"
        "entrycachehitratio: 90\n"
        "currententrycachesize: 2345678\n"
        "maxentrycachesize: 20\n"
        " 9715200\n"
        "currententrycachecount: 1234\n"
        "maxentrycachecount: -1\n"
        "dncachehits: 77\n"
        "dncachetries: 100\n"
        "currentdncachesize: 123456\n"
        "description:: aGVsbG8=\n"
        "\n"
        "dn: cn=monitor, cn=ExampleDB, cn=ldbm database, cn=plugins, cn=config\r\n"
        "entryCacheHits: 5\r\n"
        "entrycachetries: 10\r\n"
        "\r\n"
        "dn: cn=config\n"
        "cn: config\n";
    sat_cs_monitor m[4];
    size_t n = sat_cs_monitor_parse(ldif, sizeof ldif - 1, m, 4);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_STR(m[0].backend, "userRoot");
    CHECK_EQ_INT(m[0].entry_hits, 8123);
    CHECK_EQ_INT(m[0].entry_tries, 9000);
    CHECK_EQ_INT(m[0].entry_cur_bytes, 2345678);
    CHECK_EQ_INT(m[0].entry_max_bytes, 209715200); /* a folded line */
    CHECK_EQ_INT(m[0].entry_cur_count, 1234);
    CHECK_EQ_INT(m[0].entry_max_count, SAT_ABSENT); /* -1: not a count */
    CHECK_EQ_INT(m[0].dn_hits, 77);
    CHECK_EQ_INT(m[0].dn_cur_bytes, 123456);
    CHECK_EQ_INT(m[0].dn_cur_count, SAT_ABSENT);
    CHECK_EQ_STR(m[1].backend, "ExampleDB");
    CHECK_EQ_INT(m[1].entry_hits, 5);
    CHECK_EQ_INT(sat_cs_monitor_parse(ldif, sizeof ldif - 1, m, 1), 1);
    CHECK_EQ_INT(sat_cs_monitor_parse("dn: x\n", 6, m, 4), 0);
    CHECK_EQ_INT(sat_cs_monitor_parse("", 0, m, 4), 0);
}

/* Merged halves of an operation stream give the document of one pass,
 * byte for byte: every accumulator merges (the counters, the hours, the
 * attributes the filters test, which size the DB cache, the curve). */
static char *cs_json(const sat_cs *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_result *r = sat_result_new("cachesize");
    if (f && r && sat_cs_result(c, r) == SAT_OK)
        sat_result_json(r, f, NULL);
    sat_result_free(r);
    if (f)
        fclose(f);
    return buf;
}

static void test_merge_result(void)
{
    static const struct sat_cs_dbfile files[] = {
        {"entryrdn", 40960}, {"uid", 8192}, {"mail", 16384}, {"cn", 4096}, {"ancestorid", 8192}};
    sat_cs_opts o;
    memset(&o, 0, sizeof o);
    o.entry_bytes = 2000;
    o.db_kind = SAT_CS_DB_BDB;
    o.db_list = files;
    o.db_nlist = sizeof files / sizeof files[0];
    o.db_files = 6;
    o.db_id2entry_bytes = 1 << 20;
    sat_cs *all = sat_cs_create(&o), *a = sat_cs_create(&o), *b = sat_cs_create(&o);
    CHECK(all && a && b);
    if (!all || !a || !b)
        return;
    sat_event_sink ka = sat_cs_sink(all), k0 = sat_cs_sink(a), k1 = sat_cs_sink(b);
    char dn[64];
    for (int i = 0; i < 400; i++) {
        sat_ts_ns ts = T0 + (sat_ts_ns)i * 20 * S; /* across three hours */
        snprintf(dn, sizeof dn, "uid=u%d,dc=example,dc=com", (i * 7) % 90);
        sat_event_sink *half = i < 250 ? &k0 : &k1;
        for (int w = 0; w < 2; w++)
            op(w ? half : &ka, SAT_OP_BIND, dn, 0, NULL, ts);
        sat_ldap_op s;
        memset(&s, 0, sizeof s);
        s.ts_ns = ts + 1;
        s.type = SAT_OP_SRCH;
        s.scope = SAT_SCOPE_SUB;
        s.dn = sat_str_cstr("dc=example,dc=com");
        /* the mail filter only in the second half: its index is read */
        s.filter = sat_str_cstr(i < 250 ? "(uid=u1)" : "(&(mail=a@b)(cn=x*))");
        s.nentries = 2;
        s.internal_op = SAT_ABSENT;
        CHECK(sat_sink_emit(&ka, SAT_TABLE_LDAP_OP, &s) == SAT_OK);
        CHECK(sat_sink_emit(half, SAT_TABLE_LDAP_OP, &s) == SAT_OK);
    }
    CHECK(sat_cs_finish(all) == SAT_OK);
    CHECK(sat_cs_finish(b) == SAT_OK);
    CHECK(sat_cs_merge(a, b) == SAT_OK);
    CHECK(sat_cs_finish(a) == SAT_OK);
    sat_result *res = sat_result_new("cachesize");
    CHECK(res && sat_cs_result(all, res) == SAT_OK);
    rc_check_text_and_tables(res);
    sat_result_free(res);
    char *ja = cs_json(a), *jall = cs_json(all);
    CHECK(ja && jall && strstr(jall, "\"db_indexes_read_names\": \"entryrdn uid mail cn ancestorid\""));
    CHECK(ja && jall && strcmp(ja, jall) == 0);
    if (ja && jall && strcmp(ja, jall))
        fprintf(stderr, "merged:\n%s\none pass:\n%s\n", ja, jall);
    free(ja);
    free(jall);
    sat_cs_free(all);
    sat_cs_free(a);
    sat_cs_free(b);
}

int main(void)
{
    test_merge_result();
    test_exact_vs_bruteforce();
    test_stream();
    test_targets_and_bytes();
    test_monitor_parse();
    test_merge();
    test_shards_error();
    return CHECK_DONE();
}
