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

static const sat_etime_iparent *group(const sat_etime_view *v, const char *type, const char *base)
{
    for (size_t i = 0; i < v->niparents; i++)
        if (!strcmp(v->iparents[i].type, type) && !strcmp(v->iparents[i].base, base))
            return &v->iparents[i];
    return NULL;
}

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
    const sat_etime_view *v = sat_etime_get_view(e);
    CHECK_EQ_INT(v->internal_ops, 12);
    CHECK_EQ_INT(v->internal_of_clients, 9);
    CHECK_EQ_INT(v->internal_of_server, 2);
    CHECK_EQ_INT(v->internal_orphans, 1);
    CHECK_EQ_INT(v->internal_unattributed, 0);
    CHECK_EQ_INT(v->niparents, 3);
    const sat_etime_iparent *g = group(v, "MOD", "cn=*,ou=groups,dc=x");
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ_INT(g->parents, 2);
        CHECK_EQ_INT(g->internal, 9);
        /* the outermost ones only (the nested search is inside its search;
         * the late DEL ran after the RESULT) */
        CHECK(fabs(g->internal_s - 0.120) < 1e-9);
        CHECK(fabs(g->parents_etime_s - 0.200) < 1e-9);
        CHECK(fabs(g->share - 0.6) < 1e-9);
        CHECK_EQ_INT(g->nrows, 5);
        if (g->nrows == 5) {
            const sat_etime_irow *r = g->rows;
            /* tree order, each level by total time */
            CHECK(r[0].depth == 1 && !strcmp(r[0].type, "MOD") && r[0].count == 2 &&
                  r[0].errors == 1 && fabs(r[0].per_parent - 1.0) < 1e-9 &&
                  fabs(r[0].share - 0.3) < 1e-9);
            CHECK_EQ_STR(r[0].base, "uid=*,ou=people,dc=x");
            CHECK(r[1].depth == 1 && !strcmp(r[1].type, "SRCH") && fabs(r[1].total_s - 0.040) < 1e-9);
            CHECK_EQ_STR(r[1].base, "dc=x");
            CHECK_EQ_STR(r[1].scope, "sub");
            CHECK_EQ_STR(r[1].filter, "(member=*)");
            CHECK(r[2].depth == 2 && r[2].count == 2 && fabs(r[2].total_s - 0.010) < 1e-9 &&
                  fabs(r[2].max_s - 0.005) < 1e-9);
            CHECK(r[3].depth == 1 && fabs(r[3].total_s - 0.020) < 1e-9);
            CHECK_EQ_STR(r[3].base, "cn=*,ou=groups,dc=x");
            CHECK_EQ_STR(r[3].scope, "base");
            CHECK(r[4].depth == 1 && !strcmp(r[4].type, "DEL") && r[4].count == 1 &&
                  isnan(r[4].share));
        }
    }
    g = group(v, "(server)", "-");
    CHECK(g && g->internal == 2 && g->parents == 1 && g->nrows == 2 && isnan(g->share));
    if (g && g->nrows == 2) {
        CHECK(g->rows[0].depth == 1 && !strcmp(g->rows[0].type, "ADD"));
        CHECK_EQ_STR(g->rows[0].base, "cn=*,cn=tasks,cn=config");
        CHECK(g->rows[1].depth == 2 && !strcmp(g->rows[1].type, "SRCH"));
        CHECK_EQ_STR(g->rows[1].base, "(root DSE)");
    }
    g = group(v, "(not in the input)", "-");
    CHECK(g && g->internal == 1 && g->parents == 0 && g->nrows == 1 && isnan(g->rows[0].per_parent));
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
    const sat_etime_view *v1 = sat_etime_get_view(one), *va = sat_etime_get_view(a);
    CHECK_EQ_INT(va->internal_of_clients, v1->internal_of_clients);
    CHECK_EQ_INT(va->internal_orphans, 1);
    const sat_etime_iparent *g1 = group(v1, "MOD", "cn=*,ou=groups,dc=x");
    const sat_etime_iparent *ga = group(va, "MOD", "cn=*,ou=groups,dc=x");
    CHECK(g1 && ga && g1->nrows == ga->nrows && g1->parents == ga->parents &&
          g1->internal == ga->internal && fabs(g1->share - ga->share) < 1e-12);
    if (g1 && ga && g1->nrows == ga->nrows)
        for (size_t i = 0; i < g1->nrows; i++)
            CHECK(g1->rows[i].count == ga->rows[i].count &&
                  g1->rows[i].depth == ga->rows[i].depth &&
                  !strcmp(g1->rows[i].base, ga->rows[i].base) &&
                  fabs(g1->rows[i].total_s - ga->rows[i].total_s) < 1e-12);
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
    const sat_etime_view *v = sat_etime_get_view(e);
    CHECK_EQ_INT(v->internal_of_clients, 2);
    const sat_etime_iparent *g = group(v, "MOD", "uid=*,dc=x");
    CHECK(g && g->nrows == 2);
    if (g && g->nrows == 2) {
        CHECK(g->rows[0].depth == 30 && g->rows[1].depth == 31);
        CHECK_EQ_STR(g->rows[1].base, "dc=??x");
        CHECK_EQ_STR(g->rows[1].filter, "(a=?)");
    }
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
    const sat_etime_view *v = sat_etime_get_view(e);
    CHECK_EQ_INT(v->internal_of_clients, 3002);
    CHECK_EQ_INT(v->internal_orphans, 0);
    const sat_etime_iparent *g = group(v, "ADD", "uid=*,ou=people,dc=x");
    CHECK(g && g->parents == 1 && g->internal == 2 && g->nrows == 2);
    /* its share counts only the search, which ran inside the ADD */
    CHECK(g && fabs(g->share - 0.1) < 1e-9);
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
