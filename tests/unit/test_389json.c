/*
 * test_389json.c - the tolerant JSON reader (parse/dirlog/json_lite.c) and the 389
 * JSON access-log format (parse/dirlog/fmt_389json.c): one-line and pretty objects,
 * trailing commas, escapes, every event kind joined into rows, the 1 MiB cap
 * and resynchronisation, an incomplete trailing object, sniffing.
 */
#include "check.h"
#include "ldap_capture.h"
#include "parse/dirlog/fmt_389json.h"
#include "parse/dirlog/json_lite.h"

extern const sat_log_format sat_fmt_389json;
#define FMT (&sat_fmt_389json)

static void test_json_lite(void)
{
    const char *j = " {\"a\":1, \"b\" : \"x\\u00e9\\ud83d\\ude00\\\"\", \"c\":[1,{\"d\":[]},],"
                    " \"e\":true,\"f\":null, \"g\":-12,}";
    sat_json_iter it;
    sat_json_value k, v;
    CHECK_EQ_INT(sat_json_object_begin(&it, j, strlen(j)), 0);
    int n = 0;
    while (sat_json_object_next(&it, &k, &v) == 1) {
        n++;
        if (sat_json_key_is(&k, "b")) {
            char out[64];
            long l = sat_json_unescape(&v, out, sizeof out);
            CHECK_EQ_INT(l, 1 + 2 + 4 + 1);
            CHECK(l == 8 && memcmp(out, "x\xc3\xa9\xf0\x9f\x98\x80\"", 8) == 0);
            CHECK_EQ_INT(sat_json_unescape(&v, out, 3), -1); /* too small */
        }
        if (sat_json_key_is(&k, "c")) {
            sat_json_iter ai;
            sat_json_value av;
            int m = 0;
            CHECK_EQ_INT(v.type, SAT_JSON_ARRAY);
            sat_json_array_begin(&ai, v.ptr, v.len);
            while (sat_json_array_next(&ai, &av) == 1)
                m++;
            CHECK_EQ_INT(m, 2);
            CHECK_EQ_INT(ai.err, 0);
        }
        if (sat_json_key_is(&k, "e"))
            CHECK_EQ_INT(v.type, SAT_JSON_TRUE);
        if (sat_json_key_is(&k, "f"))
            CHECK_EQ_INT(v.type, SAT_JSON_NULL);
        if (sat_json_key_is(&k, "g")) {
            int64_t x = 0;
            CHECK_EQ_INT(sat_json_to_i64(&v, &x), 0);
            CHECK_EQ_INT(x, -12);
        }
    }
    CHECK_EQ_INT(n, 6);
    CHECK_EQ_INT(it.err, 0);

    static const char *const bad[] = {
        "{\"a\":}", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{\"a\":[1,2}", "{\"a\":\"x}",
        "{\"a\":[}]}", "{a:1}", "{\"a\":1,,}", "{\"a\":tru}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int r;
        CHECK_EQ_INT(sat_json_object_begin(&it, bad[i], strlen(bad[i])), 0);
        while ((r = sat_json_object_next(&it, &k, &v)) == 1)
            ;
        if (r != -1)
            fprintf(stderr, "accepted bad json %zu: %s\n", i, bad[i]);
        CHECK_EQ_INT(r, -1);
    }
    /* nesting deeper than the cap is refused, not recursed */
    char deep[300];
    size_t o = 0;
    o += (size_t)snprintf(deep, sizeof deep, "{\"a\":");
    for (int i = 0; i < 100; i++)
        deep[o++] = '[';
    for (int i = 0; i < 100; i++)
        deep[o++] = ']';
    deep[o++] = '}';
    CHECK_EQ_INT(sat_json_object_begin(&it, deep, o), 0);
    CHECK_EQ_INT(sat_json_object_next(&it, &k, &v), -1);

    sat_json_value sv = {SAT_JSON_STRING, "0.000164202", 11, 0};
    int64_t ns = 0;
    CHECK_EQ_INT(sat_json_seconds_to_ns(&sv, &ns), 0);
    CHECK_EQ_INT(ns, 164202);
    sat_json_value sv2 = {SAT_JSON_STRING, "0.0000091731", 12, 0};
    CHECK_EQ_INT(sat_json_seconds_to_ns(&sv2, &ns), 0);
    CHECK_EQ_INT(ns, 9173);
}

static const char *one_line_log =
    "{\"local_time\":\"2025-02-10T13:49:28.202404005 -0500\",\"operation\":\"CONNECTION\",\"key\":\"1-1\",\"conn_id\":1,\"fd\":64,\"slot\":64,\"tls\":false,\"client_ip\":\"192.0.2.7\",\"server_ip\":\"192.0.2.1\"}\n"
    "{\"local_time\":\"2025-02-10T13:49:28.300000000 -0500\",\"operation\":\"TLS_INFO\",\"key\":\"1-1\",\"conn_id\":1,\"tls_version\":\"TLS1.3\",\"keysize\":256,\"cipher\":\"AES-GCM\"}\n"
    "{\"local_time\":\"2025-02-10T13:49:28.425317898 -0500\",\"operation\":\"BIND\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":0,\"bind_dn\":\"cn=Directory Manager\",\"version\":3,\"method\":\"128\"}\n"
    "{\"local_time\":\"2025-02-10T13:49:28.503395725 -0500\",\"operation\":\"RESULT\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":0,\"msg\":\"\",\"tag\":97,\"err\":0,\"nentries\":0,\"wtime\":\"0.000130401\",\"optime\":\"0.078189513\",\"etime\":\"0.078315869\",\"bind_dn\":\"cn=directory manager\"}\n"
    "{\"local_time\":\"2025-02-10T13:49:32.533097842 -0500\",\"operation\":\"SEARCH\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":2,\"base_dn\":\"dc=example,dc=com\",\"scope\":2,\"filter\":\"(cn=a\\\\2ab)\",\"attrs\":[\"cn\",\"sn\"],\"request_controls\":[{\"oid\":\"1.2.840.113556.1.4.319\",\"isCritical\":true}]}\n"
    "{\"local_time\":\"2025-02-10T13:49:32.912528455 -0500\",\"operation\":\"SEARCH\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":2,\"internal_op\":true,\"op_internal_id\":1,\"op_internal_nested_count\":1,\"base_dn\":\"cn=config\",\"scope\":0,\"filter\":\"(objectClass=*)\"}\n"
    "{\"local_time\":\"2025-02-10T13:49:32.912528456 -0500\",\"operation\":\"RESULT\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":2,\"internal_op\":true,\"op_internal_id\":1,\"op_internal_nested_count\":1,\"tag\":48,\"err\":32,\"nentries\":0}\n"
    "{\"local_time\":\"2025-02-10T13:49:32.912528455 -0500\",\"operation\":\"RESULT\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":2,\"msg\":\"\",\"tag\":101,\"err\":0,\"nentries\":11000,\"wtime\":\"0.000254256\",\"optime\":\"0.379430934\",\"etime\":\"3.379682490\",\"pr_idx\":0,\"pr_cookie\":-1,\"sid\":\"S1\",\"notes\":[{\"note\":\"A\",\"description\":\"Fully Unindexed Filter\"},{\"note\":\"P\",\"description\":\"Paged Search\"}]}\n"
    "{\"local_time\":\"2025-02-10T18:49:33Z\",\"operation\":\"MODRDN\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":3,\"target_dn\":\"uid=u3,dc=x\",\"newrdn\":\"cn=u3\",\"newsup\":\"ou=p,dc=x\",\"deleteoldrdn\":true}\n"
    "{\"local_time\":\"2025-02-10T18:49:33.1+00:00\",\"operation\":\"COMPARE\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":4,\"target_dn\":\"cn=t,dc=x\",\"cmp_attr\":\"sn\"}\n"
    "{\"local_time\":\"2025-02-10T18:49:33.2+00:00\",\"operation\":\"EXTENDED_OP\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":5,\"oid\":\"1.3.6.1.4.1.4203.1.11.3\",\"oid_name\":\"WHOAMI\",\"name\":\"whoami-plugin\"}\n"
    "{\"local_time\":\"2025-02-10T18:49:33.3+00:00\",\"operation\":\"ABANDON\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":6,\"etime\":\"0.0000091731\",\"nentries\":0,\"msgid\":7,\"target_op\":\"2\"}\n"
    "{\"local_time\":\"2025-02-10T18:49:33.4+00:00\",\"operation\":\"STAT\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":4,\"stat_etime\":\"0.000030363\"}\n"
    "{\"local_time\":\"2025-02-10T18:49:33.5+00:00\",\"operation\":\"UNBIND\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":7}\n"
    "{\"local_time\":\"2025-02-10T18:49:33.6+00:00\",\"operation\":\"DISCONNECT\",\"key\":\"1-1\",\"conn_id\":1,\"fd\":64,\"close_error\":\"Operation canceled\",\"close_reason\":\"Connection aborted - A1\"}\n";

static void test_events(void)
{
    capture c;
    sat_source src;
    cap_init(&c);
    CHECK_EQ_INT(cap_run_str(&c, FMT, one_line_log, &src), 0);
    CHECK_EQ_INT(c.nrejects, 0);
    CHECK_EQ_INT(src.lines, 15);
    CHECK_EQ_INT(src.utc_offset_s, 0); /* the last line's */
    CHECK_EQ_INT(src.first_ts, 1739213368202404005LL); /* 18:49:28.202404005Z */

    const cap_op *o = cap_find(&c, 1, 0);
    CHECK(o && o->row.type == SAT_OP_BIND && o->row.err == 0);
    if (o) {
        CHECK_EQ_STR(o->method, "SIMPLE");
        CHECK_EQ_STR(o->dn, "cn=Directory Manager");
        CHECK_EQ_INT(o->row.wtime, 130401);
        CHECK_EQ_INT(o->row.optime, 78189513);
        CHECK_EQ_INT(o->row.etime, 78315869);
        CHECK_EQ_INT(o->row.tag, 97);
        CHECK_EQ_STR(o->client_ip, "192.0.2.7");
    }
    /* the external SRCH and its internal child */
    size_t ext = 0, internal = 0;
    for (size_t i = 0; i < c.nops; i++) {
        const cap_op *x = &c.ops[i];
        if (x->row.conn != 1 || x->row.op != 2)
            continue;
        if (x->row.internal_depth) {
            internal++;
            CHECK_EQ_INT(x->row.internal_op, 1);
            CHECK_EQ_INT(x->row.err, 32);
            CHECK_EQ_STR(x->dn, "cn=config");
        } else {
            ext++;
            CHECK_EQ_STR(x->filter, "(cn=a\\2ab)");
            CHECK_EQ_STR(x->attrs, "cn sn");
            CHECK_EQ_INT(x->row.scope, SAT_SCOPE_SUB);
            CHECK_EQ_INT(x->row.nentries, 11000);
            CHECK_EQ_INT(x->row.etime, 3379682490LL);
            CHECK_EQ_INT(x->row.notes, SAT_NOTE_A | SAT_NOTE_P);
            CHECK(x->row.flags & SAT_OPF_PAGED);
            CHECK_EQ_STR(x->details, "Fully Unindexed Filter,Paged Search");
            CHECK_EQ_STR(x->sid, "S1");
            CHECK_EQ_STR(x->bind_dn, "cn=directory manager");
        }
    }
    CHECK_EQ_INT(ext, 1);
    CHECK_EQ_INT(internal, 1);
    o = cap_find(&c, 1, 3);
    CHECK(o && o->row.type == SAT_OP_MODRDN);
    if (o)
        CHECK_EQ_STR(o->extra, "newrdn=\"cn=u3\" newsuperior=\"ou=p,dc=x\"");
    o = cap_find(&c, 1, 4);
    CHECK(o && o->row.type == SAT_OP_CMP && (o->row.flags & SAT_OPF_UNFINISHED));
    if (o)
        CHECK_EQ_STR(o->extra, "sn");
    o = cap_find(&c, 1, 5);
    CHECK(o && o->row.type == SAT_OP_EXT);
    if (o) {
        CHECK_EQ_STR(o->method, "1.3.6.1.4.1.4203.1.11.3");
        CHECK_EQ_STR(o->extra, "whoami-plugin");
    }
    o = cap_find(&c, 1, 6);
    CHECK(o && o->row.type == SAT_OP_ABANDON && o->row.target_op == 2);
    if (o)
        CHECK_EQ_INT(o->row.etime, 9173);
    o = cap_find(&c, 1, 7);
    CHECK(o && o->row.type == SAT_OP_UNBIND);

    CHECK_EQ_INT(c.nconns, 1);
    if (c.nconns == 1) {
        const cap_conn *cn = &c.conns[0];
        CHECK_EQ_INT(cn->row.listener, SAT_LISTENER_LDAP);
        CHECK_EQ_INT(cn->row.fd, 64);
        CHECK_EQ_STR(cn->client_ip, "192.0.2.7");
        CHECK_EQ_STR(cn->server_addr, "192.0.2.1");
        CHECK_EQ_STR(cn->tls_version, "TLS1.3");
        CHECK_EQ_STR(cn->tls_cipher, "256-bit AES-GCM");
        CHECK_EQ_INT(cn->row.close_code, SAT_CLOSE_A1);
        CHECK_EQ_STR(cn->close_reason, "Connection aborted");
        CHECK(cn->row.flags & SAT_CONNF_TLS);
    }
    cap_free(&c);
}

/* The JSON log's op_internal_id / op_internal_nested_count are 389's X and Y:
 * a nested internal search (same id, count 2) must not close the one around
 * it. */
static void test_internal_nested(void)
{
    static const char *log =
        "{\"local_time\":\"2025-02-10T13:49:32.000000001 -0500\",\"operation\":\"MODIFY\",\"key\":\"1-1\",\"conn_id\":3,\"op_id\":1,\"target_dn\":\"cn=g,dc=x\"}\n"
        "{\"local_time\":\"2025-02-10T13:49:32.000000002 -0500\",\"operation\":\"SEARCH\",\"key\":\"1-1\",\"conn_id\":3,\"op_id\":1,\"internal_op\":true,\"op_internal_id\":3,\"op_internal_nested_count\":1,\"base_dn\":\"dc=x\",\"scope\":2,\"filter\":\"(member=uid=u,dc=x)\"}\n"
        "{\"local_time\":\"2025-02-10T13:49:32.000000003 -0500\",\"operation\":\"SEARCH\",\"key\":\"1-1\",\"conn_id\":3,\"op_id\":1,\"internal_op\":true,\"op_internal_id\":3,\"op_internal_nested_count\":2,\"base_dn\":\"dc=x\",\"scope\":2,\"filter\":\"(member=cn=g,dc=x)\"}\n"
        "{\"local_time\":\"2025-02-10T13:49:32.000000004 -0500\",\"operation\":\"RESULT\",\"key\":\"1-1\",\"conn_id\":3,\"op_id\":1,\"internal_op\":true,\"op_internal_id\":3,\"op_internal_nested_count\":2,\"tag\":48,\"err\":0,\"nentries\":0,\"etime\":\"0.000000001\"}\n"
        "{\"local_time\":\"2025-02-10T13:49:32.000000005 -0500\",\"operation\":\"RESULT\",\"key\":\"1-1\",\"conn_id\":3,\"op_id\":1,\"internal_op\":true,\"op_internal_id\":3,\"op_internal_nested_count\":1,\"tag\":48,\"err\":0,\"nentries\":1,\"etime\":\"0.000000003\"}\n"
        "{\"local_time\":\"2025-02-10T13:49:32.000000006 -0500\",\"operation\":\"RESULT\",\"key\":\"1-1\",\"conn_id\":3,\"op_id\":1,\"tag\":103,\"err\":0,\"nentries\":0,\"etime\":\"0.000000005\"}\n";
    capture c;
    sat_source src;
    cap_init(&c);
    CHECK_EQ_INT(cap_run_str(&c, FMT, log, &src), 0);
    CHECK_EQ_INT(c.nrejects, 0);
    CHECK_EQ_INT(c.nops, 3);
    size_t bad = 0, seen = 0;
    for (size_t i = 0; i < c.nops; i++) {
        const cap_op *x = &c.ops[i];
        bad += (x->row.flags & (SAT_OPF_UNFINISHED | SAT_OPF_NO_REQUEST)) != 0;
        if (x->row.internal_depth == 1) {
            seen++;
            CHECK(x->row.nentries == 1 && x->row.etime == 3);
            CHECK_EQ_STR(x->filter, "(member=uid=u,dc=x)");
        } else if (x->row.internal_depth == 2) {
            seen++;
            CHECK(x->row.nentries == 0 && x->row.etime == 1);
            CHECK_EQ_STR(x->filter, "(member=cn=g,dc=x)");
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(seen, 2);
    cap_free(&c);
}

static void test_pretty_and_resync(void)
{
    capture c;
    sat_source src;
    cap_init(&c);
    const char *log =
        "{\n"
        "  \"local_time\":\"2025-02-10T14:49:41.756271768 -0500\",\n"
        "  \"operation\":\"AUTOBIND\",\n"
        "  \"conn_id\":1,\n"
        "  \"bind_dn\":\"cn=dm\"\n"
        "}\n"
        "\n"
        "{\n"                                       /* line 8: trailing comma */
        "  \"local_time\":\"2025-02-10T14:49:41.756275809 -0500\",\n"
        "  \"operation\":\"BIND\", \"conn_id\":1, \"op_id\":0,\n"
        "  \"bind_dn\":\"cn=dm\", \"method\":\"sasl\", \"mech\":\"EXTERNAL\",\n"
        "} \n"
        "{ \"local_time\":\"2025-02-10T14:49:41.8 -0500\", \"operation\":\"RESULT\",\n"
        "  \"conn_id\":1, \"op_id\":0, \"tag\":97, \"err\":0, \"text\":\"{ not a brace }\" }"
        "{\"local_time\":\"2025-02-10T14:49:41.9 -0500\",\"operation\":\"UNBIND\",\"conn_id\":1,\"op_id\":1}\n"
        "not json at all\n"                         /* line 15: rejected */
        "{ \"local_time\":\"2025-02-10T14:49:42 -0500\", \"operation\":\"SEARCH\",\n" /* 16: cut short */
        "{\"operation\":\"UNBIND\",\"conn_id\":1,\"op_id\":2}\n" /* 17: no time */
        "{\"local_time\":\"yesterday\",\"operation\":\"UNBIND\",\"conn_id\":1,\"op_id\":2}\n" /* 18 */
        "{\"local_time\":\"2025-02-10T14:49:43 -0500\",\"operation\":\"UNBIND\",\"conn_id\":1,\"op_id\":3,}\n"
        "{\"local_time\":\"2025-02-10T14:49:44 -0500\",\"operation\":\"SEARCH\",\n"; /* 20: at EOF */
    CHECK_EQ_INT(cap_run_str(&c, FMT, log, &src), 0);
    CHECK_EQ_INT(c.nrejects, 5);
    if (c.nrejects == 5) {
        CHECK_EQ_INT(c.reject_lines[0], 15);
        CHECK_EQ_INT(c.reject_lines[1], 16);
        CHECK_EQ_STR(c.reject_reason[1], "incomplete JSON object");
        CHECK_EQ_INT(c.reject_lines[2], 17);
        CHECK_EQ_INT(c.reject_lines[3], 18);
        CHECK_EQ_INT(c.reject_lines[4], 20);
    }
    CHECK_EQ_INT(src.lines, 20);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_AUTOBIND, -2), 1);
    const cap_op *o = cap_find(&c, 1, 0);
    CHECK(o && o->row.type == SAT_OP_BIND && o->row.err == 0);
    if (o)
        CHECK_EQ_STR(o->method, "EXTERNAL");
    CHECK_EQ_INT(cap_count(&c, SAT_OP_UNBIND, -2), 2);
    cap_free(&c);

    /* over 1 MiB: rejected once, the following lines of it skipped, the
     * next object read */
    size_t big = (1u << 20) + 100;
    char *buf = (char *)malloc(big + 512);
    size_t n = 0;
    n += (size_t)sprintf(buf + n, "{\"local_time\":\"2025-02-10T14:49:43 -0500\",\n\"pad\":[\n");
    while (n < big) {
        memcpy(buf + n, "1,2,3,4,5,6,7,8,9,\n", 19);
        n += 19;
    }
    n += (size_t)sprintf(buf + n, "0]}\n{\"local_time\":\"2025-02-10T14:49:43 -0500\",\"operation\":\"UNBIND\",\"conn_id\":1,\"op_id\":3}\n");
    cap_init(&c);
    CHECK_EQ_INT(cap_run(&c, FMT, buf, n, &src, 0), 0);
    CHECK_EQ_INT(c.nrejects, 1);
    if (c.nrejects)
        CHECK_EQ_STR(c.reject_reason[0], "JSON object over 1 MiB");
    CHECK_EQ_INT(cap_count(&c, SAT_OP_UNBIND, -2), 1);
    cap_free(&c);
    free(buf);
}

static void test_stateless_object(void)
{
    /* what the 389 text parser calls for '{' lines of a mixed log */
    capture c;
    sat_source src;
    cap_init(&c);
    memset(&src, 0, sizeof src);
    sat_event_sink sink = {&c, SAT_TABLE_BIT(SAT_TABLE_REJECT) | SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) |
                               SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN), rows_reject_op_conn};
    sat_ldap_join *j = sat_ldap_join_create(0, &sink, 0);
    sat_parse_ctx ctx = {j, &sink, &src, 100, 0};
    const char *a = "{\"local_time\":\"2025-07-28T23:55:11.618760703 +0000\",\"operation\":\"ADD\",\"conn_id\":1,\"op_id\":9,\"target_dn\":\"uid=t\\\"q,dc=x\"}";
    const char *b = "{\"local_time\":\"2025-07-28T23:55:11.805266683 +0000\",\"operation\":\"RESULT\",\"conn_id\":1,\"op_id\":9,\"tag\":105,\"err\":0,\"nentries\":0,\"etime\":\"0.186634117\"}";
    CHECK_EQ_INT(sat_389json_object(&ctx, a, strlen(a), 11), 0);
    CHECK_EQ_INT(sat_389json_object(&ctx, b, strlen(b), 12), 0);
    CHECK_EQ_INT(sat_389json_object(&ctx, "{\"x\":", 5, 13), 0);
    sat_ldap_join_finish(j);
    sat_ldap_join_free(j);
    CHECK_EQ_INT(c.nrejects, 1);
    CHECK_EQ_INT(src.rejects, 1);
    const cap_op *o = cap_find(&c, 1, 9);
    CHECK(o && o->row.type == SAT_OP_ADD && o->row.etime == 186634117);
    if (o)
        CHECK_EQ_STR(o->dn, "uid=t\"q,dc=x");
    cap_free(&c);
}

static void test_sniff(void)
{
    const char *a = "{\n  \"local_time\":\"2025-02-10T13:41:53.166697090 -0500\",\n  \"operation\":\"ADD\",\n  \"conn_id\":1\n}\n";
    CHECK(FMT->sniff(a, strlen(a)) >= 70);
    const char *b = "[10/Feb/2025:13:41:53.166697090 -0500] conn=1 op=1 ADD dn=\"x\"\n";
    CHECK(FMT->sniff(b, strlen(b)) < 30);
    const char *d = "{\"some\":\"other json\"}\n";
    CHECK(FMT->sniff(d, strlen(d)) < 30);
    sat_ts_ns ts = 0;
    CHECK_EQ_INT(FMT->first_ts(a, strlen(a), &ts), SAT_OK);
    CHECK_EQ_INT(ts, 1739212913166697090LL);
    CHECK(FMT->first_ts(d, strlen(d), &ts) < 0);
}

int main(void)
{
    test_json_lite();
    test_events();
    test_internal_nested();
    test_pretty_and_resync();
    test_stateless_object();
    test_sniff();
    return CHECK_DONE();
}
