/*
 * test_fields.c - absent is not zero (include/satscope/fields.h): what each
 * format and generation declares it can carry, the generational fields the
 * parsers mark as they see them, the fallback for traces written before the
 * source column, OpenLDAP's close kinds, the etime analyzer's known / partial
 * result (and its merge), and cachesize leaving out DNs that do not exist.
 */
#include <math.h>

#include "check.h"
#include "ldap_capture.h"
#include "satscope/analyze.h"
#include "result_check.h"

extern const sat_log_format sat_fmt_389text;
extern const sat_log_format sat_fmt_openldap;

#define B(f) SAT_FIELD_BIT(SAT_FIELD_##f)

static void test_declarations(void)
{
    /* 389 text: everything but OpenLDAP's close kinds; wtime only when seen */
    uint32_t f = sat_fields_settle(sat_str_cstr("389-text"), 0);
    CHECK(f & SAT_FIELDS_DECLARED);
    CHECK(f & B(NOTES));
    CHECK(f & B(CLOSE_CODE));
    CHECK(!(f & B(WTIME)));
    CHECK(!(f & B(CLOSE_LOST)));
    f = sat_fields_settle(sat_str_cstr("389-text"), B(WTIME) | B(CLOSE_LOST));
    CHECK(f & B(WTIME));
    CHECK(!(f & B(CLOSE_LOST))); /* a seen bit the format cannot carry is dropped */
    /* 389 JSON always has wtime */
    CHECK(sat_fields_settle(sat_str_cstr("389-json"), 0) & B(WTIME));
    /* OpenLDAP stats: no notes, no close codes or errnos; its own close kinds */
    f = sat_fields_settle(sat_str_cstr("openldap"), B(ETIME) | B(WTIME));
    CHECK(!(f & B(NOTES)));
    CHECK(!(f & B(CONTROLS)));
    CHECK(!(f & B(CLOSE_CODE)));
    CHECK(!(f & B(CLOSE_ERRNO)));
    CHECK(f & B(CLOSE_LOST));
    CHECK(f & B(FD));
    CHECK(f & B(ETIME) && f & B(WTIME));
    /* 2.4: no etime, no qtime seen */
    f = sat_fields_settle(sat_str_cstr("openldap"), 0);
    CHECK(!(f & B(ETIME)) && !(f & B(WTIME)));
    CHECK_EQ_STR(sat_field_why(sat_str_cstr("openldap"), SAT_FIELD_NOTES),
                 "OpenLDAP stats logs do not mark unindexed searches: no notes=");
    CHECK(sat_field_why(sat_str_cstr("389-text"), SAT_FIELD_NOTES) == NULL);
    /* the wire */
    f = sat_fields_settle(sat_str_cstr("pcap"), 0);
    CHECK(f & B(ETIME) && !(f & B(WTIME)) && !(f & B(FD)) && !(f & B(NOTES)));
    CHECK(sat_field_why(sat_str_cstr("pcapng"), SAT_FIELD_FD) != NULL);
    /* formats without LDAP rows declare nothing */
    CHECK_EQ_INT(sat_fields_settle(sat_str_cstr("crash-text"), 0), 0);
    CHECK_EQ_INT(sat_fields_settle(sat_str_cstr("empty"), 0), 0);
}

static void test_source_fallback(void)
{
    sat_source s;
    memset(&s, 0, sizeof s);
    s.kind = sat_str_cstr("log");
    s.format = sat_str_cstr("openldap");
    /* a trace written before the column: by the format's declaration */
    uint32_t f = sat_source_fields(&s);
    CHECK(f != 0);
    CHECK(!(f & B(NOTES)));
    CHECK(f & B(WTIME)); /* generational fields: old traces said nothing */
    /* a capture row without the column: nothing is known of its LDAP */
    s.kind = sat_str_cstr("pcap");
    s.format = sat_str_cstr("pcap");
    CHECK_EQ_INT(sat_source_fields(&s), 0);
    /* a declared row is taken as it is */
    s.fields = SAT_FIELDS_DECLARED | B(ETIME);
    CHECK_EQ_INT(sat_source_fields(&s), B(ETIME));
}

static void test_parsers_mark_generations(void)
{
    capture c;
    sat_source src;
    cap_init(&c);
    /* 389 DS 1.2: etime only */
    const char *old389 =
        "[27/Apr/2015:13:16:35 -0400] conn=1 fd=131 slot=131 connection from 10.0.0.1 to 10.0.0.2\n"
        "[27/Apr/2015:13:16:35 -0400] conn=1 op=0 SRCH base=\"dc=x\" scope=2 filter=\"(uid=a)\" attrs=ALL\n"
        "[27/Apr/2015:13:16:35 -0400] conn=1 op=0 RESULT err=0 tag=101 nentries=1 etime=0\n";
    CHECK_EQ_INT(cap_run_str(&c, &sat_fmt_389text, old389, &src), 0);
    CHECK(src.fields & B(ETIME));
    CHECK(!(src.fields & B(WTIME)));
    CHECK(!(sat_fields_settle(sat_str_cstr("389-text"), src.fields) & B(WTIME)));
    cap_free(&c);
    /* 389 2.x: wtime= optime= */
    cap_init(&c);
    const char *new389 =
        "[01/Dec/2026:09:15:02.359072085 +0000] conn=28 op=0 BIND dn=\"uid=gone-1,dc=x\" method=128 version=3\n"
        "[01/Dec/2026:09:15:02.359674606 +0000] conn=28 op=0 RESULT err=49 tag=97 nentries=0 wtime=0.000031549 optime=0.000643477 etime=0.000674174 - No such entry\n";
    CHECK_EQ_INT(cap_run_str(&c, &sat_fmt_389text, new389, &src), 0);
    CHECK(sat_fields_settle(sat_str_cstr("389-text"), src.fields) & B(WTIME));
    cap_free(&c);
    /* OpenLDAP 2.4 (no qtime/etime) and 2.5 */
    cap_init(&c);
    const char *ol24 =
        "Oct 26 03:30:54 ldap slapd[11086]: conn=7 op=1 BIND dn=\"uid=a,dc=x\" method=128\n"
        "Oct 26 03:30:54 ldap slapd[11086]: conn=7 op=1 RESULT tag=97 err=0 text=\n";
    CHECK_EQ_INT(cap_run_str(&c, &sat_fmt_openldap, ol24, &src), 0);
    CHECK(!(src.fields & (B(ETIME) | B(WTIME))));
    cap_free(&c);
    cap_init(&c);
    const char *ol25 =
        "Oct 26 03:30:54 ldap slapd[11086]: conn=7 op=1 BIND dn=\"uid=a,dc=x\" method=128\n"
        "Oct 26 03:30:54 ldap slapd[11086]: conn=7 op=1 RESULT tag=97 err=0 qtime=0.000010 etime=0.000110 text=\n";
    CHECK_EQ_INT(cap_run_str(&c, &sat_fmt_openldap, ol25, &src), 0);
    CHECK((src.fields & (B(ETIME) | B(WTIME))) == (B(ETIME) | B(WTIME)));
    cap_free(&c);
}

static void test_openldap_close_kinds(void)
{
    capture c;
    sat_source src;
    cap_init(&c);
    const char *log =
        "Mar  4 10:00:00 l slapd[1]: conn=1 fd=12 ACCEPT from IP=10.0.0.1:1 (IP=0.0.0.0:389)\n"
        "Mar  4 10:00:00 l slapd[1]: conn=1 fd=12 closed\n"
        "Mar  4 10:00:01 l slapd[1]: conn=2 fd=12 ACCEPT from IP=10.0.0.1:2 (IP=0.0.0.0:389)\n"
        "Mar  4 10:00:01 l slapd[1]: conn=2 fd=12 closed (connection lost)\n"
        "Mar  4 10:00:02 l slapd[1]: conn=3 fd=12 ACCEPT from IP=10.0.0.1:3 (IP=0.0.0.0:389)\n"
        "Mar  4 10:00:02 l slapd[1]: conn=3 fd=12 closed (connection lost on write)\n"
        "Mar  4 10:00:03 l slapd[1]: conn=4 fd=12 ACCEPT from IP=10.0.0.1:4 (IP=0.0.0.0:389)\n"
        "Mar  4 10:00:03 l slapd[1]: conn=4 fd=12 closed (idletimeout)\n";
    CHECK_EQ_INT(cap_run_str(&c, &sat_fmt_openldap, log, &src), 0);
    CHECK_EQ_INT(c.nconns, 4);
    int want[5] = {0, SAT_CLOSE_OTHER, SAT_CLOSE_LOST, SAT_CLOSE_LOST_WRITE, SAT_CLOSE_OTHER};
    for (size_t i = 0; i < c.nconns; i++) {
        int64_t n = c.conns[i].row.conn;
        CHECK(n >= 1 && n <= 4);
        if (n >= 1 && n <= 4)
            CHECK_EQ_INT(c.conns[i].row.close_code, want[n]);
    }
    CHECK_EQ_STR(sat_close_code_name(SAT_CLOSE_LOST), "lost");
    CHECK_EQ_STR(sat_close_code_name(SAT_CLOSE_LOST_WRITE), "lost-write");
    cap_free(&c);
}

/* one source row and one unindexed search of that source's server */
static void feed(sat_etime *e, uint32_t id, const char *format, uint32_t seen)
{
    sat_event_sink k = sat_etime_sink(e);
    sat_source s;
    memset(&s, 0, sizeof s);
    s.id = id;
    s.server = id;
    s.path = sat_str_cstr(format);
    s.kind = sat_str_cstr("log");
    s.format = sat_str_cstr(format);
    s.compression = sat_str_cstr("none");
    s.fields = sat_fields_settle(s.format, seen);
    CHECK_EQ_INT(sat_sink_emit(&k, SAT_TABLE_SOURCE, &s), SAT_OK);
    sat_ldap_op o;
    memset(&o, 0, sizeof o);
    o.ts_ns = o.result_ts_ns = (sat_ts_ns)1749400000 * 1000000000 + id;
    o.server = id;
    o.conn = 1;
    o.op = 1;
    o.internal_op = SAT_ABSENT;
    o.type = SAT_OP_SRCH;
    o.scope = SAT_SCOPE_SUB;
    o.err = 0;
    o.tag = SAT_ABSENT;
    o.nentries = 1;
    o.etime = 1000;
    o.wtime = o.optime = SAT_ABSENT;
    o.target_op = SAT_ABSENT;
    o.dn = sat_str_cstr("dc=x");
    o.filter = sat_str_cstr("(description=a)");
    o.notes = (uint16_t)(strcmp(format, "openldap") ? SAT_NOTE_A : 0);
    CHECK_EQ_INT(sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o), SAT_OK);
}

static int build_etime(const void *e, sat_result *r)
{
    return sat_etime_result((const sat_etime *)e, r);
}

/* The result's not_logged row of a field (NULL: every input can log it). */
static const sat_rnode *nl_row(sat_result *r, const char *field)
{
    return sat_get_row(sat_get_table(sat_result_root(r), "not_logged"), "field", field);
}

static void test_etime_result(void)
{
    /* OpenLDAP alone: notes not known, its why kept */
    sat_etime *e = sat_etime_create(NULL);
    feed(e, 0, "openldap", B(ETIME) | B(WTIME));
    CHECK_EQ_INT(sat_etime_finish(e), SAT_OK);
    sat_result *r = rc_result("etime", build_etime, e);
    const sat_rnode *n = nl_row(r, "notes");
    CHECK(n && sat_get_bool(n, "partial", -1) == 0); /* not known */
    CHECK(nl_row(r, "wtime") == NULL);               /* known */
    CHECK_EQ_INT(sat_get_count(n, "of_inputs", 0), 1);
    CHECK_EQ_INT(sat_get_count(n, "inputs_without", 0), 1);
    CHECK(strstr(sat_get_text(n, "why", ""), "unindexed"));
    /* not counted: absent, not 0 */
    CHECK(sat_rnode_val(sat_result_root(r), "unindexed.total") &&
          !sat_get_has(sat_result_root(r), "unindexed.total"));
    sat_result_free(r);
    sat_etime_free(e);

    /* 389 + OpenLDAP: known (from 389), partial (1 of 2 without) */
    e = sat_etime_create(NULL);
    feed(e, 0, "389-text", 0);
    feed(e, 1, "openldap", B(ETIME) | B(WTIME));
    CHECK_EQ_INT(sat_etime_finish(e), SAT_OK);
    r = rc_result("etime", build_etime, e);
    n = nl_row(r, "notes");
    CHECK(n && sat_get_bool(n, "partial", -1) == 1);
    CHECK_EQ_INT(sat_get_count(n, "of_inputs", 0), 2);
    CHECK_EQ_INT(sat_get_count(n, "inputs_without", 0), 1);
    CHECK_EQ_INT(sat_get_count(sat_result_root(r), "unindexed.total", 0), 1);
    /* wtime: 389 without it (not seen), OpenLDAP 2.5 with it: partial */
    const sat_rnode *w = nl_row(r, "wtime");
    CHECK(w && sat_get_bool(w, "partial", -1) == 1);
    CHECK_EQ_INT(sat_get_count(w, "inputs_without", 0), 1);
    CHECK(strstr(sat_get_text(w, "why", ""), "389"));

    /* the same two fed to two analyzers and merged: the same fields */
    sat_etime *a = sat_etime_create(NULL), *b = sat_etime_create(NULL);
    feed(a, 0, "389-text", 0);
    feed(b, 1, "openldap", B(ETIME) | B(WTIME));
    CHECK_EQ_INT(sat_etime_merge(a, b), SAT_OK);
    CHECK_EQ_INT(sat_etime_finish(a), SAT_OK);
    sat_result *m = rc_result("etime", build_etime, a);
    const sat_rnode *tm = sat_get_table(sat_result_root(m), "not_logged"),
                    *tv = sat_get_table(sat_result_root(r), "not_logged");
    CHECK_EQ_INT(sat_rnode_count(tm), sat_rnode_count(tv));
    for (const sat_rnode *x = sat_rnode_first(tm), *y = sat_rnode_first(tv); x && y;
         x = sat_rnode_next(x), y = sat_rnode_next(y)) {
        CHECK_EQ_STR(sat_get_text(x, "field", ""), sat_get_text(y, "field", ""));
        CHECK_EQ_INT(sat_get_bool(x, "partial", -1), sat_get_bool(y, "partial", -1));
        CHECK_EQ_INT(sat_get_count(x, "of_inputs", 0), sat_get_count(y, "of_inputs", 0));
        CHECK_EQ_INT(sat_get_count(x, "inputs_without", 0), sat_get_count(y, "inputs_without", 0));
        CHECK((sat_get_text(x, "why", NULL) == NULL) == (sat_get_text(y, "why", NULL) == NULL));
    }
    sat_result_free(m);
    sat_result_free(r);
    sat_etime_free(a);
    sat_etime_free(b);
    sat_etime_free(e);

    /* rows fed without any source row: everything known, as before */
    e = sat_etime_create(NULL);
    CHECK_EQ_INT(sat_etime_finish(e), SAT_OK);
    r = rc_result("etime", build_etime, e);
    CHECK_EQ_INT(sat_rnode_count(sat_get_table(sat_result_root(r), "not_logged")), 0);
    CHECK(sat_get_has(sat_result_root(r), "unindexed.total") &&
          sat_get_has(sat_result_root(r), "operation_stats.paged_searches"));
    sat_result_free(r);
    sat_etime_free(e);
}

static void cs_op(sat_cs *c, int type, const char *dn, int err, const char *text)
{
    sat_event_sink k = sat_cs_sink(c);
    sat_ldap_op o;
    memset(&o, 0, sizeof o);
    o.ts_ns = (sat_ts_ns)1749400000 * 1000000000;
    o.internal_op = SAT_ABSENT;
    o.type = (uint8_t)type;
    o.scope = SAT_SCOPE_BASE;
    o.err = err;
    o.nentries = SAT_ABSENT;
    o.dn = sat_str_cstr(dn);
    o.text = text ? sat_str_cstr(text) : SAT_STR_NONE;
    CHECK_EQ_INT(sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &o), SAT_OK);
}

/* The finished analyzer's result (the caller frees it). */
static sat_result *cs_result(const sat_cs *c)
{
    sat_result *r = sat_result_new("cachesize");
    CHECK(r && sat_cs_result(c, r) == SAT_OK);
    return r;
}

static void test_cachesize_missing(void)
{
    sat_cs *c = sat_cs_create(NULL);
    cs_op(c, SAT_OP_BIND, "uid=a,dc=x", 0, NULL);
    cs_op(c, SAT_OP_BIND, "uid=gone,dc=x", 49, "No such entry");      /* 389: missing */
    cs_op(c, SAT_OP_BIND, "uid=gone2,dc=x", 49, "NO SUCH ENTRY");     /* any case */
    cs_op(c, SAT_OP_BIND, "uid=b,dc=x", 49, "Invalid credentials");   /* exists: wrong password */
    cs_op(c, SAT_OP_BIND, "uid=c,dc=x", 49, NULL);                    /* OpenLDAP: can't tell */
    cs_op(c, SAT_OP_MOD, "uid=gone3,dc=x", 32, "Entry does not exist");
    cs_op(c, SAT_OP_SRCH, "uid=gone4,dc=x", 32, NULL);
    cs_op(c, SAT_OP_CMP, "uid=a,dc=x", 6, NULL);
    CHECK_EQ_INT(sat_cs_finish(c), SAT_OK);
    sat_result *r = cs_result(c);
    const sat_rnode *v = sat_result_root(r);
    CHECK_EQ_INT(sat_get_count(v, "stream.missing_entries", 0), 4);
    CHECK_EQ_INT(sat_get_count(v, "references", 0), 4);
    CHECK_EQ_INT(sat_get_count(v, "unique", 0), 3);
    CHECK_EQ_INT(sat_get_count(v, "stream.references_by_op.BIND", 0), 3);
    CHECK(!sat_get_has(v, "stream.references_by_op.MOD")); /* none: not listed */
    /* no monitor: the estimate, every read named */
    CHECK_EQ_STR(sat_get_text(v, "reads_seen.server_reads_from", ""), "estimate");
    CHECK_EQ_INT(sat_get_bool(v, "reads_seen.most_unseen", -1), 0);
    sat_result_free(r);
    sat_cs_free(c);
}

static void test_cachesize_reads_seen(void)
{
    /* two snapshots: 10 lookups, the log names 2 of them */
    sat_cs_monitor m[2];
    memset(m, 0, sizeof m);
    for (int i = 0; i < 2; i++) {
        m[i].entry_hits = i ? 7 : 0;
        m[i].entry_tries = i ? 10 : 0;
        m[i].entry_cur_bytes = m[i].entry_max_bytes = m[i].entry_cur_count = m[i].entry_max_count =
            SAT_ABSENT;
        m[i].dn_hits = m[i].dn_tries = m[i].dn_cur_bytes = m[i].dn_max_bytes = m[i].dn_cur_count =
            m[i].dn_max_count = SAT_ABSENT;
    }
    sat_cs_opts o;
    memset(&o, 0, sizeof o);
    o.monitor = m;
    o.nmonitor = 2;
    sat_cs *c = sat_cs_create(&o);
    cs_op(c, SAT_OP_BIND, "uid=a,dc=x", 0, NULL);
    cs_op(c, SAT_OP_BIND, "uid=b,dc=x", 0, NULL);
    CHECK_EQ_INT(sat_cs_finish(c), SAT_OK);
    sat_result *r = cs_result(c);
    const sat_rnode *v = sat_result_root(r);
    CHECK_EQ_STR(sat_get_text(v, "reads_seen.server_reads_from", ""), "cn=monitor");
    CHECK_EQ_INT(sat_get_count(v, "reads_seen.server_reads", 0), 10);
    CHECK(fabs(sat_get_num(v, "reads_seen.share_named", NAN) - 0.2) < 1e-9);
    CHECK_EQ_INT(sat_get_bool(v, "reads_seen.most_unseen", -1), 1);
    CHECK(fabs(sat_get_num(v, "monitor.measured_hit_ratio", NAN) - 0.7) < 1e-9);
    sat_result_free(r);
    sat_cs_free(c);
}

int main(void)
{
    test_declarations();
    test_source_fallback();
    test_parsers_mark_generations();
    test_openldap_close_kinds();
    test_etime_result();
    test_cachesize_missing();
    test_cachesize_reads_seen();
    return CHECK_DONE();
}
