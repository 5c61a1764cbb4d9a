/*
 * test_internal_ops.c - internal operations attributed to the client
 * operation that ran them (analyze/internal_ops.c through the etime
 * analyzer's sink): nesting rebuilt from depths and RESULT order, entry DN
 * shapes, times and shares, the server's own operations, rows whose client
 * operation is not in the input, rows logged after their operation's RESULT
 * (also long after, past the ring of recent operations), depths and DN bytes
 * equal to the key separators, and a merge of two halves equal to one pass.
 */
#include <math.h>

#include "check.h"
#include "satscope/parse.h"
#include "satscope/analyze.h"
#include "result_check.h"

#define MS 1000000LL
#define T0 (1764580000LL * 1000000000LL)

static sat_ldap_op mk(int type, int64_t conn, int64_t opn, int depth, int32_t x, const char *dn,
                      int scope, const char *shape, int err, int64_t etime_ms)
{
    sat_ldap_record blank;
    sat_ldap_record_clear(&blank);
    sat_ldap_op o = blank.op_fields;
    o.ts_ns = T0;
    o.result_ts_ns = T0 + etime_ms * MS;
    o.conn = conn;
    o.op = opn;
    o.internal_depth = (uint8_t)depth;
    o.internal_op = depth ? x : SAT_ABSENT;
    o.type = (uint8_t)type;
    o.scope = (uint8_t)scope;
    o.err = err;
    o.etime = etime_ms * MS;
    o.dn = dn ? sat_str_cstr(dn) : SAT_STR_NONE;
    if (shape)
        o.filter = o.filter_shape = sat_str_cstr(shape);
    return o;
}

static void emit(sat_event_sink *k, sat_ldap_op o) { CHECK_EQ_INT(sat_sink_emit(k, SAT_TABLE_LDAP_OP, &o), 0); }

/* one group MOD as memberOf runs it: a base read of the group, a (member=)
 * search with one nested in it (logged first: its RESULT comes first), a MOD
 * of the user */
static void group_mod(sat_event_sink *k, int64_t conn, const char *group, int mod_err)
{
    emit(k, mk(SAT_OP_SRCH, conn, 1, 1, 1, group, SAT_SCOPE_BASE, "(objectclass=*)", 0, 10));
    emit(k, mk(SAT_OP_SRCH, conn, 1, 2, 2, "dc=x", SAT_SCOPE_SUB, "(member=*)", 0, 5));
    emit(k, mk(SAT_OP_SRCH, conn, 1, 1, 2, "dc=x", SAT_SCOPE_SUB, "(member=*)", 0, 20));
    emit(k, mk(SAT_OP_MOD, conn, 1, 1, 3, "uid=u1,ou=people,dc=x", SAT_SCOPE_NONE, NULL, mod_err, 30));
    emit(k, mk(SAT_OP_MOD, conn, 1, 0, 0, group, SAT_SCOPE_NONE, NULL, 0, 100));
}

static int build_etime(const void *e, sat_result *r)
{
    return sat_etime_result((const sat_etime *)e, r);
}

/* A group of the result's internal operations (its row of "groups") and its
 * rows (of "ops", in their order). */
typedef struct igroup {
    const sat_rnode *g;
    const sat_rnode *rows[64];
    size_t nrows;
} igroup;

static igroup group(sat_result *res, const char *type, const char *base)
{
    igroup x;
    memset(&x, 0, sizeof x);
    const sat_rnode *io = sat_get_obj(sat_result_root(res), "internal_operations");
    for (const sat_rnode *g = sat_rnode_first(sat_get_table(io, "groups")); g && !x.g;
         g = sat_rnode_next(g))
        if (!strcmp(sat_get_text(g, "op", ""), type) && !strcmp(sat_get_text(g, "base", ""), base))
            x.g = g;
    for (const sat_rnode *r = sat_rnode_first(sat_get_table(io, "ops")); r && x.g && x.nrows < 64;
         r = sat_rnode_next(r))
        if (!strcmp(sat_get_text(r, "parent_op", ""), type) &&
            !strcmp(sat_get_text(r, "parent_base", ""), base))
            x.rows[x.nrows++] = r;
    return x;
}

static uint64_t cnt(const sat_rnode *n, const char *path) { return sat_get_count(n, path, UINT64_MAX); }
static double num(const sat_rnode *n, const char *path) { return sat_get_num(n, path, NAN); }
static const char *txt(const sat_rnode *n, const char *path) { return sat_get_text(n, path, ""); }

static void test_attribution(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_event_sink k = sat_etime_sink(e);
    group_mod(&k, 5, "cn=g1,ou=groups,dc=x", 65);
    group_mod(&k, 6, "cn=g2,ou=groups,dc=x", 0);
    /* a post-operation plugin's row after conn 5's RESULT */
    emit(&k, mk(SAT_OP_DEL, 5, 1, 1, 4, "cn=t,dc=x", SAT_SCOPE_NONE, NULL, 0, 1));
    /* the server's own: a nested search, then the ADD around it */
    emit(&k, mk(SAT_OP_SRCH, 0, 0, 2, 7, "", SAT_SCOPE_BASE, "(objectclass=*)", 0, 2));
    emit(&k, mk(SAT_OP_ADD, 0, 0, 1, 7, "cn=task,cn=tasks,cn=config", SAT_SCOPE_NONE, NULL, 0, 4));
    /* a client operation never seen */
    emit(&k, mk(SAT_OP_SRCH, 9, 3, 1, 1, "dc=x", SAT_SCOPE_SUB, "(uid=*)", 0, 3));
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    sat_result *res = rc_result("etime", build_etime, e);
    const sat_rnode *io = sat_get_obj(sat_result_root(res), "internal_operations");
    CHECK_EQ_INT(cnt(io, "total"), 12);
    CHECK_EQ_INT(cnt(io, "of_clients"), 9);
    CHECK_EQ_INT(cnt(io, "of_server"), 2);
    CHECK_EQ_INT(cnt(io, "of_operations_not_in_input"), 1);
    CHECK_EQ_INT(cnt(io, "unattributed"), 0);
    CHECK_EQ_INT(sat_rnode_count(sat_get_table(io, "groups")), 3);
    igroup g = group(res, "MOD", "cn=*,ou=groups,dc=x");
    CHECK(g.g != NULL);
    if (g.g) {
        CHECK_EQ_INT(cnt(g.g, "operations"), 2);
        CHECK_EQ_INT(cnt(g.g, "internal"), 9);
        /* the outermost ones only (the nested search is inside its search;
         * the late DEL ran after the RESULT) */
        CHECK(fabs(num(g.g, "internal_s") - 0.120) < 1e-9);
        CHECK(fabs(num(g.g, "operations_etime_s") - 0.200) < 1e-9);
        CHECK(fabs(num(g.g, "share") - 0.6) < 1e-9);
        CHECK_EQ_INT(g.nrows, 5);
        if (g.nrows == 5) {
            const sat_rnode *const *r = g.rows;
            /* tree order, each level by total time */
            CHECK(cnt(r[0], "depth") == 1 && !strcmp(txt(r[0], "op"), "MOD") &&
                  cnt(r[0], "count") == 2 && cnt(r[0], "errors") == 1 &&
                  fabs(num(r[0], "per_operation") - 1.0) < 1e-9 &&
                  fabs(num(r[0], "share") - 0.3) < 1e-9);
            CHECK_EQ_STR(txt(r[0], "base"), "uid=*,ou=people,dc=x");
            CHECK(cnt(r[1], "depth") == 1 && !strcmp(txt(r[1], "op"), "SRCH") &&
                  fabs(num(r[1], "total_s") - 0.040) < 1e-9);
            CHECK_EQ_STR(txt(r[1], "base"), "dc=x");
            CHECK_EQ_STR(txt(r[1], "scope"), "sub");
            CHECK_EQ_STR(txt(r[1], "filter"), "(member=*)");
            CHECK(cnt(r[2], "depth") == 2 && cnt(r[2], "count") == 2 &&
                  fabs(num(r[2], "total_s") - 0.010) < 1e-9 &&
                  fabs(num(r[2], "max_s") - 0.005) < 1e-9);
            CHECK(cnt(r[3], "depth") == 1 && fabs(num(r[3], "total_s") - 0.020) < 1e-9);
            CHECK_EQ_STR(txt(r[3], "base"), "cn=*,ou=groups,dc=x");
            CHECK_EQ_STR(txt(r[3], "scope"), "base");
            CHECK(cnt(r[4], "depth") == 1 && !strcmp(txt(r[4], "op"), "DEL") &&
                  cnt(r[4], "count") == 1 && isnan(num(r[4], "share")));
        }
    }
    g = group(res, "(server)", "-");
    CHECK(g.g && cnt(g.g, "internal") == 2 && cnt(g.g, "operations") == 1 && g.nrows == 2 &&
          isnan(num(g.g, "share")));
    if (g.g && g.nrows == 2) {
        CHECK(cnt(g.rows[0], "depth") == 1 && !strcmp(txt(g.rows[0], "op"), "ADD"));
        CHECK_EQ_STR(txt(g.rows[0], "base"), "cn=*,cn=tasks,cn=config");
        CHECK(cnt(g.rows[1], "depth") == 2 && !strcmp(txt(g.rows[1], "op"), "SRCH"));
        CHECK_EQ_STR(txt(g.rows[1], "base"), "(root DSE)");
    }
    g = group(res, "(not in the input)", "-");
    CHECK(g.g && cnt(g.g, "internal") == 1 && cnt(g.g, "operations") == 0 && g.nrows == 1 &&
          isnan(num(g.rows[0], "per_operation")));
    sat_result_free(res);
    sat_etime_free(e);
}

static void test_merge(void)
{
    sat_etime *one = sat_etime_create(NULL), *a = sat_etime_create(NULL),
              *b = sat_etime_create(NULL);
    sat_event_sink k1 = sat_etime_sink(one), ka = sat_etime_sink(a), kb = sat_etime_sink(b);
    group_mod(&k1, 5, "cn=g1,ou=groups,dc=x", 65);
    group_mod(&k1, 6, "cn=g2,ou=groups,dc=x", 0);
    group_mod(&ka, 5, "cn=g1,ou=groups,dc=x", 65);
    group_mod(&kb, 6, "cn=g2,ou=groups,dc=x", 0);
    /* waiting in b when merged: its client operation is in neither half */
    emit(&kb, mk(SAT_OP_SRCH, 9, 3, 1, 1, "dc=x", SAT_SCOPE_SUB, "(uid=*)", 0, 3));
    CHECK_EQ_INT(sat_etime_finish(one), 0);
    CHECK_EQ_INT(sat_etime_finish(b), 0);
    CHECK_EQ_INT(sat_etime_merge(a, b), 0);
    CHECK_EQ_INT(sat_etime_finish(a), 0);
    sat_result *r1 = rc_result("etime", build_etime, one), *ra = rc_result("etime", build_etime, a);
    const sat_rnode *io1 = sat_get_obj(sat_result_root(r1), "internal_operations"),
                    *ioa = sat_get_obj(sat_result_root(ra), "internal_operations");
    CHECK_EQ_INT(cnt(ioa, "of_clients"), cnt(io1, "of_clients"));
    CHECK_EQ_INT(cnt(ioa, "of_operations_not_in_input"), 1);
    igroup g1 = group(r1, "MOD", "cn=*,ou=groups,dc=x");
    igroup ga = group(ra, "MOD", "cn=*,ou=groups,dc=x");
    CHECK(g1.g && ga.g && g1.nrows == ga.nrows && cnt(g1.g, "operations") == cnt(ga.g, "operations") &&
          cnt(g1.g, "internal") == cnt(ga.g, "internal") &&
          fabs(num(g1.g, "share") - num(ga.g, "share")) < 1e-12);
    if (g1.g && ga.g && g1.nrows == ga.nrows)
        for (size_t i = 0; i < g1.nrows; i++)
            CHECK(cnt(g1.rows[i], "count") == cnt(ga.rows[i], "count") &&
                  cnt(g1.rows[i], "depth") == cnt(ga.rows[i], "depth") &&
                  !strcmp(txt(g1.rows[i], "base"), txt(ga.rows[i], "base")) &&
                  fabs(num(g1.rows[i], "total_s") - num(ga.rows[i], "total_s")) < 1e-12);
    sat_result_free(r1);
    sat_result_free(ra);
    sat_etime_free(one);
    sat_etime_free(a);
    sat_etime_free(b);
}

/* depths that are the key separators' byte values, and control bytes in DNs */
static void test_hostile_bytes(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_event_sink k = sat_etime_sink(e);
    emit(&k, mk(SAT_OP_SRCH, 7, 2, 31, 1, "dc=\x1e\x1fx", SAT_SCOPE_SUB, "(a=\x1e)", 0, 1));
    emit(&k, mk(SAT_OP_SRCH, 7, 2, 30, 1, "dc=x", SAT_SCOPE_SUB, "(a=*)", 0, 1));
    emit(&k, mk(SAT_OP_MOD, 7, 2, 0, 0, "uid=\x1e,dc=x", SAT_SCOPE_NONE, NULL, 0, 5));
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    sat_result *res = rc_result("etime", build_etime, e);
    CHECK_EQ_INT(cnt(sat_result_root(res), "internal_operations.of_clients"), 2);
    igroup g = group(res, "MOD", "uid=*,dc=x");
    CHECK(g.g && g.nrows == 2);
    if (g.g && g.nrows == 2) {
        CHECK(cnt(g.rows[0], "depth") == 30 && cnt(g.rows[1], "depth") == 31);
        CHECK_EQ_STR(txt(g.rows[1], "base"), "dc=??x");
        CHECK_EQ_STR(txt(g.rows[1], "filter"), "(a=?)");
    }
    sat_result_free(res);
    sat_etime_free(e);
}

/* a row logged after its operation's RESULT still finds it when many other
 * operations were attributed since (past the memory of recent ones) */
static void test_late_row_long_after(void)
{
    sat_etime *e = sat_etime_create(NULL);
    sat_event_sink k = sat_etime_sink(e);
    emit(&k, mk(SAT_OP_SRCH, 3, 1, 1, 1, "dc=x", SAT_SCOPE_SUB, "(uid=*)", 0, 1));
    emit(&k, mk(SAT_OP_ADD, 3, 1, 0, 0, "uid=a,ou=people,dc=x", SAT_SCOPE_NONE, NULL, 0, 10));
    emit(&k, mk(SAT_OP_MOD, 3, 1, 1, 2, "cn=g,ou=groups,dc=x", SAT_SCOPE_NONE, NULL, 0, 2));
    for (int i = 0; i < 3000; i++) {
        emit(&k, mk(SAT_OP_SRCH, 4, i, 1, 1, "dc=x", SAT_SCOPE_SUB, "(cn=*)", 0, 1));
        emit(&k, mk(SAT_OP_SRCH, 4, i, 0, 0, "dc=x", SAT_SCOPE_SUB, NULL, 0, 2));
    }
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    sat_result *res = rc_result("etime", build_etime, e);
    const sat_rnode *io = sat_get_obj(sat_result_root(res), "internal_operations");
    CHECK_EQ_INT(cnt(io, "of_clients"), 3002);
    CHECK_EQ_INT(cnt(io, "of_operations_not_in_input"), 0);
    igroup g = group(res, "ADD", "uid=*,ou=people,dc=x");
    CHECK(g.g && cnt(g.g, "operations") == 1 && cnt(g.g, "internal") == 2 && g.nrows == 2);
    /* its share counts only the search, which ran inside the ADD */
    CHECK(g.g && fabs(num(g.g, "share") - 0.1) < 1e-9);
    sat_result_free(res);
    sat_etime_free(e);
}

int main(void)
{
    test_late_row_long_after();
    test_hostile_bytes();
    test_attribution();
    test_merge();
    return CHECK_DONE();
}
