/*
 * test_389text.c - the 389 legacy text access-log format (parse/dirlog/fmt_389text.c)
 * through the joiner: one check per line form, written here in the formats
 * 389-ds-base logs (timestamps with offsets, connection/TLS/close lines of
 * every generation, RESULT fields in any order, internal ops, restarts).
 */
#include "check.h"
#include "p389_collect.h"

extern const sat_log_format sat_fmt_389text;

static coll C;
static sat_source S;

static void run(const char *text)
{
    coll_free(&C);
    memset(&S, 0, sizeof S);
    coll_run(&C, &sat_fmt_389text, &S, text, strlen(text), 1);
}

static const sat_ldap_op *op_at(int64_t conn, int64_t op, int type)
{
    for (size_t i = 0; i < C.nops; i++)
        if (C.ops[i].conn == conn && C.ops[i].op == op && C.ops[i].type == type)
            return &C.ops[i];
    return NULL;
}

static const sat_ldap_conn *conn_at(int64_t conn)
{
    for (size_t i = 0; i < C.nconns; i++)
        if (C.conns[i].conn == conn)
            return &C.conns[i];
    return NULL;
}

#define TS(s) "[" s "] "

static void test_timestamps(void)
{
    run(TS("21/Apr/2009:11:39:51 -0700") "conn=11 op=0 BIND dn=\"cn=Directory Manager\" method=128 version=3\n"
        TS("21/Apr/2009:11:39:52.123456789 -0700") "conn=11 op=0 RESULT err=0 tag=97 nentries=0 etime=0\n");
    const sat_ldap_op *o = op_at(11, 0, SAT_OP_BIND);
    CHECK(o != NULL);
    if (!o)
        return;
    /* 2009-04-21 18:39:51 UTC = 1240339191 */
    CHECK_EQ_INT(o->ts_ns, 1240339191LL * 1000000000LL);
    CHECK_EQ_INT(o->result_ts_ns, 1240339192LL * 1000000000LL + 123456789);
    CHECK_EQ_INT(S.utc_offset_s, -7 * 3600);
    CHECK_EQ_INT(S.lines, 2);
    CHECK_EQ_INT(S.first_ts, o->ts_ns);
    CHECK_EQ_INT(S.last_ts, o->result_ts_ns);
    CHECK_EQ_INT(o->etime, 0);
    CHECK(o->flags & SAT_OPF_ETIME_COARSE);
    CHECK_EQ_SSTR(o->method, "SIMPLE");
    CHECK_EQ_SSTR(o->bind_dn, "cn=Directory Manager");

    /* positive offset, across a day boundary; the cache must not confuse hours */
    run(TS("01/Jan/2024:00:30:00 +0100") "conn=1 op=0 UNBIND\n"
        TS("01/Jan/2024:01:30:00.5 +0100") "conn=1 op=1 UNBIND\n"
        TS("01/Jan/2024:01:30:00 +0000") "conn=1 op=2 UNBIND\n");
    CHECK_EQ_INT(C.ops[0].ts_ns, 1704065400LL * 1000000000LL); /* 2023-12-31 23:30 UTC */
    CHECK_EQ_INT(C.ops[1].ts_ns, 1704069000LL * 1000000000LL + 500000000);
    CHECK_EQ_INT(C.ops[2].ts_ns, 1704072600LL * 1000000000LL);
    CHECK_EQ_INT(S.utc_offset_s, 0);
}

static void test_header(void)
{
    run("\t389-Directory/3.1.1 B2024.213.0201\n"
        "\tf4f1b2aab41e:3636 (/etc/dirsrv/slapd-localhost)\n"
        "\n"
        TS("08/Jun/2025:07:19:14.214871640 +0000") "conn=149981 fd=65 slot=65 connection from local to /data/run/slapd-localhost.socket\n");
    CHECK_EQ_INT(S.rejects, 0);
    CHECK_EQ_SSTR(S.server_version, "389-Directory/3.1.1 B2024.213.0201");
    CHECK_EQ_SSTR(S.server_name, "f4f1b2aab41e:3636");
    CHECK_EQ_INT(S.lines, 4);
}

static void test_connections(void)
{
    run(TS("21/Apr/2009:11:39:51 -0700") "conn=11 fd=608 slot=608 connection from 207.1.153.57 to 192.18.122.139\n"
        TS("21/Apr/2009:11:39:51 -0700") "conn=12 fd=609 slot=609 SSL connection from 10.0.0.2 to 10.0.0.1\n"
        TS("21/Apr/2009:11:39:51 -0700") "conn=13 fd=64 slot=64 connection from local to /run/slapd-x.socket\n"
        TS("21/Apr/2009:11:39:51 -0700") "conn=14 fd=65 slot=65 connection from ::1 to ::1\n"
        TS("21/Apr/2009:11:39:51 -0700") "conn=15 op=-1 msgId=-1 - fd=22 slot=22 LDAP connection from 127.0.0.1:40123 to 127.0.0.1\n"
        TS("21/Apr/2009:11:39:51 -0700") "conn=12 TLS1.3 256-bit AES-GCM\n"
        TS("21/Apr/2009:11:39:51 -0700") "conn=11 op=2 fd=608 closed - U1\n"
        TS("21/Apr/2009:11:39:52 -0700") "conn=12 op=-1 fd=609 closed error 32 (Broken pipe) - B4\n"
        TS("21/Apr/2009:11:39:53 -0700") "conn=13 op=3 fd=64 Disconnect - Cleanly Closed Connection - U1\n"
        TS("21/Apr/2009:11:39:54 -0700") "conn=14 op=-1 fd=65 Disconnect - Operation canceled - Connection aborted - A1\n"
        TS("21/Apr/2009:11:39:54 -0700") "conn=15 op=-1 fd=22 closed - Z9\n");
    CHECK_EQ_INT(S.rejects, 0);
    CHECK_EQ_INT(C.nconns, 5);
    const sat_ldap_conn *c = conn_at(11);
    CHECK(c && c->listener == SAT_LISTENER_LDAP && c->close_code == SAT_CLOSE_U1 && c->fd == 608);
    if (c) {
        CHECK_EQ_SSTR(c->client_ip, "207.1.153.57");
        CHECK_EQ_SSTR(c->server_addr, "192.18.122.139");
        CHECK(!c->close_reason.ptr);
        CHECK(!(c->flags & SAT_CONNF_NO_OPEN));
    }
    c = conn_at(12);
    CHECK(c && c->listener == SAT_LISTENER_LDAPS && c->close_code == SAT_CLOSE_B4 && (c->flags & SAT_CONNF_TLS));
    if (c) {
        CHECK_EQ_SSTR(c->close_reason, "error 32 (Broken pipe)");
        CHECK_EQ_SSTR(c->tls_version, "TLS1.3");
        CHECK_EQ_SSTR(c->tls_cipher, "256-bit AES-GCM");
    }
    c = conn_at(13);
    CHECK(c && c->listener == SAT_LISTENER_LDAPI && c->close_code == SAT_CLOSE_U1);
    if (c) {
        CHECK_EQ_SSTR(c->client_ip, "local");
        CHECK_EQ_SSTR(c->server_addr, "/run/slapd-x.socket");
        CHECK_EQ_SSTR(c->close_reason, "Cleanly Closed Connection");
    }
    c = conn_at(14);
    CHECK(c && c->close_code == SAT_CLOSE_A1);
    if (c) {
        CHECK_EQ_SSTR(c->client_ip, "::1");
        CHECK_EQ_SSTR(c->close_reason, "Operation canceled - Connection aborted");
    }
    c = conn_at(15);
    CHECK(c && c->close_code == SAT_CLOSE_OTHER && c->client_port == 40123);
    if (c) {
        CHECK_EQ_SSTR(c->client_ip, "127.0.0.1");
        CHECK_EQ_SSTR(c->close_reason, "Z9");
    }

    /* every close code */
    static const char *codes[] = {"A1", "B1", "B2", "B3", "B4", "P1", "P2", "P3",
                                  "P4", "R1", "S1", "T1", "T2", "T3", "U1"};
    char buf[4096];
    size_t o = 0;
    for (int i = 0; i < 15; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o,
                              TS("01/Jan/2024:00:00:00 +0000") "conn=%d op=-1 fd=64 closed - %s\n",
                              100 + i, codes[i]);
    run(buf);
    CHECK_EQ_INT(C.nconns, 15);
    for (int i = 0; i < 15 && i < (int)C.nconns; i++) {
        const sat_ldap_conn *k = conn_at(100 + i);
        CHECK(k && k->close_code == SAT_CLOSE_A1 + i && (k->flags & SAT_CONNF_NO_OPEN));
    }
}

static void test_tls_cert(void)
{
    run(TS("01/Jan/2024:00:00:00 +0000") "conn=7 fd=64 slot=64 SSL connection from 10.1.1.1 to 10.1.1.2\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=7 SSL 128-bit RC4\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=7 TLS1.2 client bound as uid=app,ou=people,dc=example,dc=com\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=7 TLS1.2 failed to map client certificate to LDAP DN (no such entry)\n");
    CHECK_EQ_INT(S.rejects, 0);
    const sat_ldap_conn *c = conn_at(7);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_SSTR(c->tls_version, "SSL");
        CHECK_EQ_SSTR(c->tls_cipher, "128-bit RC4");
        CHECK_EQ_SSTR(c->client_cert, "uid=app,ou=people,dc=example,dc=com");
        CHECK(c->flags & SAT_CONNF_UNCLOSED);
    }
}

static void test_requests(void)
{
    run(TS("01/Jan/2024:00:00:00 +0000") "conn=2 op=1 SRCH base=\"dc=example,dc=com\" scope=2 filter=\"(&(UID=jdoe)(cn=J*))\" attrs=\"cn mail\" options=persistent authzid=\"uid=proxy\"\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=2 op=2 ADD dn=\"cn=a,dc=x\"\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=2 op=3 MOD dn=\"cn=b,dc=x\"\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=2 op=4 DEL dn=\"cn=c,dc=x\"\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=2 op=5 MODRDN dn=\"cn=d,dc=x\" newrdn=\"cn=e\" newsuperior=\"ou=y,dc=x\"\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=2 op=6 CMP dn=\"cn=f,dc=x\" attr=\"member\"\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=2 op=7 EXT oid=\"1.3.6.1.4.1.4203.1.11.3\" name=\"whoami-plugin\"\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=2 op=8 ABANDON targetop=1 msgid=2\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=2 op=9 ABANDON targetop=NOTFOUND msgid=5\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=2 op=10 BIND dn=\"\" method=sasl version=3 mech=GSSAPI\n"
        TS("01/Jan/2024:00:00:01 +0000") "conn=2 op=2 RESULT err=0 tag=105 nentries=0 etime=0.000100 csn=5909c984000200020000\n");
    CHECK_EQ_INT(S.rejects, 0);
    const sat_ldap_op *o = op_at(2, 1, SAT_OP_SRCH);
    CHECK(o && (o->flags & SAT_OPF_PERSISTENT) && (o->flags & SAT_OPF_UNFINISHED) && o->scope == SAT_SCOPE_SUB);
    if (o) {
        CHECK_EQ_SSTR(o->dn, "dc=example,dc=com");
        CHECK_EQ_SSTR(o->filter, "(&(UID=jdoe)(cn=J*))");
        CHECK_EQ_SSTR(o->filter_shape, "(&(uid=*)(cn=*))");
        CHECK_EQ_SSTR(o->attrs, "cn mail");
        CHECK_EQ_SSTR(o->extra, "uid=proxy");
        CHECK_EQ_INT(o->err, SAT_ABSENT);
    }
    o = op_at(2, 2, SAT_OP_ADD);
    CHECK(o && o->err == 0 && o->etime == 100000 && !(o->flags & SAT_OPF_ETIME_COARSE));
    o = op_at(2, 3, SAT_OP_MOD);
    CHECK(o != NULL);
    if (o)
        CHECK_EQ_SSTR(o->dn, "cn=b,dc=x");
    CHECK(op_at(2, 4, SAT_OP_DEL) != NULL);
    o = op_at(2, 5, SAT_OP_MODRDN);
    CHECK(o != NULL);
    if (o)
        CHECK_EQ_SSTR(o->extra, "newrdn=\"cn=e\" newsuperior=\"ou=y,dc=x\"");
    o = op_at(2, 6, SAT_OP_CMP);
    CHECK(o != NULL);
    if (o)
        CHECK_EQ_SSTR(o->extra, "member");
    o = op_at(2, 7, SAT_OP_EXT);
    CHECK(o != NULL);
    if (o) {
        CHECK_EQ_SSTR(o->method, "1.3.6.1.4.1.4203.1.11.3");
        CHECK_EQ_SSTR(o->extra, "whoami-plugin");
    }
    o = op_at(2, 8, SAT_OP_ABANDON);
    CHECK(o && o->target_op == 1 && !(o->flags & SAT_OPF_UNFINISHED) && o->etime == SAT_ABSENT);
    o = op_at(2, 9, SAT_OP_ABANDON);
    CHECK(o && o->target_op == 5);
    o = op_at(2, 10, SAT_OP_BIND);
    CHECK(o != NULL);
    if (o)
        CHECK_EQ_SSTR(o->method, "GSSAPI");
    const sat_ldap_conn *c = conn_at(2);
    CHECK(c && c->ops == 10 && (c->flags & SAT_CONNF_NO_OPEN) && (c->flags & SAT_CONNF_UNCLOSED));
}

/* A quoted value ends at the first quote after an even run of backslashes
 * (each backslash escapes the character after it): 389 escapes quotes and
 * backslashes in filters and DNs so. */
static void test_escaped_quotes(void)
{
    run(TS("01/Jan/2024:00:00:00 +0000") "conn=3 op=1 SRCH base=\"dc=a\\\"b\" scope=2 filter=\"(cn=x\\\\)\" attrs=ALL\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=3 op=2 SRCH base=\"dc=c\\\\\\\"d\" scope=0 filter=\"(cn=\\\\\\\\)\" attrs=ALL\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=3 op=3 SRCH base=\"dc=e\\\" scope=0 filter=\"(cn=y)\" attrs=ALL\n");
    const sat_ldap_op *o = op_at(3, 1, SAT_OP_SRCH);
    CHECK(o != NULL);
    if (o) {
        CHECK_EQ_SSTR(o->dn, "dc=a\\\"b");     /* an escaped quote inside */
        CHECK_EQ_SSTR(o->filter, "(cn=x\\\\)"); /* two backslashes, then the end */
        CHECK_EQ_INT(o->scope, SAT_SCOPE_SUB);
    }
    o = op_at(3, 2, SAT_OP_SRCH);
    CHECK(o != NULL);
    if (o) {
        CHECK_EQ_SSTR(o->dn, "dc=c\\\\\\\"d"); /* three backslashes: the quote escaped */
        CHECK_EQ_SSTR(o->filter, "(cn=\\\\\\\\)");
        CHECK_EQ_INT(o->scope, SAT_SCOPE_BASE);
    }
    /* base="dc=e\" scope=...: the quote is escaped, the value runs on to the
     * next unescaped quote (filter's first), as a sequential scan reads it */
    o = op_at(3, 3, SAT_OP_SRCH);
    CHECK(o == NULL || o->dn.len > 4);
}

static void test_result_fields(void)
{
    run(TS("17/Oct/2024:17:21:51.930944766 +0200") "conn=2 op=7 SRCH base=\"dc=example,dc=com\" scope=2 filter=\"(objectClass=*)\" attrs=\"distinguishedName\"\n"
        TS("17/Oct/2024:17:21:51.931113128 +0200") "conn=2 op=7 RESULT notes=P,A sid=\"a - b\" err=0 pr_cookie=-1 tag=101 nentries=1 wtime=0.000189515 optime=0.000171470 etime=0.000358345 details=\"Paged Search - \\\"x\\\"\" wbusy=8/16 wqdepth=3 wqtime=0.1 - some text - here\n"
        TS("21/Apr/2009:11:39:55 -0700") "conn=14 op=0 BIND dn=\"\" method=sasl version=3 mech=DIGEST-MD5\n"
        TS("21/Apr/2009:11:39:55 -0700") "conn=14 op=0 RESULT err=14 tag=97 nentries=0 etime=0, SASL bind in progress\n"
        TS("21/Apr/2009:11:39:55 -0700") "conn=14 op=1 BIND dn=\"uid=jdoe,dc=example,dc=com\" method=sasl version=3 mech=DIGEST-MD5\n"
        TS("21/Apr/2009:11:39:55 -0700") "conn=14 op=1 RESULT err=0 tag=97 nentries=0 etime=0 dn=\"uid=JDOE,dc=example,dc=com\"\n"
        TS("21/Apr/2009:11:39:55 -0700") "conn=14 op=2 SRCH base=\"\" scope=0 filter=\"(objectClass=*)\" attrs=ALL\n"
        TS("21/Apr/2009:11:39:55 -0700") "conn=14 op=2 RESULT err=0 tag=101 nentries=1 etime=0 notes=U,F,M,N,B\n");
    CHECK_EQ_INT(S.rejects, 0);
    const sat_ldap_op *o = op_at(2, 7, SAT_OP_SRCH);
    CHECK(o != NULL);
    if (o) {
        CHECK_EQ_INT(o->notes, SAT_NOTE_P | SAT_NOTE_A);
        CHECK(o->flags & SAT_OPF_PAGED);
        CHECK_EQ_INT(o->err, 0);
        CHECK_EQ_INT(o->tag, 101);
        CHECK_EQ_INT(o->nentries, 1);
        CHECK_EQ_INT(o->wtime, 189515);
        CHECK_EQ_INT(o->optime, 171470);
        CHECK_EQ_INT(o->etime, 358345);
        CHECK_EQ_INT(o->wbusy, 8);
        CHECK_EQ_INT(o->wbusy_max, 16);
        CHECK_EQ_INT(o->wqdepth, 3);
        CHECK_EQ_SSTR(o->sid, "a - b");
        CHECK_EQ_SSTR(o->details, "Paged Search - \\\"x\\\"");
        CHECK_EQ_SSTR(o->text, "some text - here");
        CHECK_EQ_INT(o->ts_ns, 1729178511930944766LL);
    }
    o = op_at(14, 0, SAT_OP_BIND);
    CHECK(o && o->err == 14 && (o->flags & SAT_OPF_SASL_INPROGRESS));
    if (o) {
        CHECK_EQ_SSTR(o->text, "SASL bind in progress");
        CHECK_EQ_SSTR(o->method, "DIGEST-MD5");
    }
    o = op_at(14, 1, SAT_OP_BIND);
    CHECK(o && o->err == 0 && !(o->flags & SAT_OPF_SASL_INPROGRESS));
    if (o)
        CHECK_EQ_SSTR(o->bind_dn, "uid=JDOE,dc=example,dc=com");
    o = op_at(14, 2, SAT_OP_SRCH);
    CHECK(o != NULL);
    if (o) {
        CHECK_EQ_SSTR(o->bind_dn, "uid=JDOE,dc=example,dc=com");
        CHECK_EQ_SSTR(o->dn, "");
        CHECK_EQ_SSTR(o->attrs, "ALL");
        CHECK_EQ_INT(o->notes, SAT_NOTE_U | SAT_NOTE_F | SAT_NOTE_M | SAT_NOTE_N | SAT_NOTE_B);
    }
}

static void test_interleaved_and_unfinished(void)
{
    run(TS("01/Jan/2024:00:00:00 +0000") "conn=1 fd=64 slot=64 connection from 10.0.0.1 to 10.0.0.9\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=2 fd=65 slot=65 connection from 10.0.0.2 to 10.0.0.9\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=1 op=0 BIND dn=\"uid=a\" method=128 version=3\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=2 op=0 BIND dn=\"uid=b\" method=128 version=3\n"
        TS("01/Jan/2024:00:00:01 +0000") "conn=2 op=0 RESULT err=0 tag=97 nentries=0 etime=0.1\n"
        TS("01/Jan/2024:00:00:01 +0000") "conn=2 op=1 SRCH base=\"dc=x\" scope=1 filter=\"(cn=x)\" attrs=ALL\n"
        TS("01/Jan/2024:00:00:02 +0000") "conn=1 op=0 RESULT err=49 tag=97 nentries=0 etime=2\n"
        TS("01/Jan/2024:00:00:02 +0000") "conn=1 op=1 SRCH base=\"dc=x\" scope=2 filter=\"(cn=y)\" attrs=ALL\n"
        TS("01/Jan/2024:00:00:03 +0000") "conn=1 op=1 RESULT err=0 tag=101 nentries=3 etime=0.2\n"
        TS("01/Jan/2024:00:00:04 +0000") "conn=2 op=2 DEL dn=\"cn=z\"\n"
        TS("01/Jan/2024:00:00:05 +0000") "conn=2 op=-1 fd=65 closed - B1\n"
        TS("01/Jan/2024:00:00:06 +0000") "conn=3 op=5 RESULT err=0 tag=107 nentries=0 etime=0\n");
    CHECK_EQ_INT(S.rejects, 0);
    const sat_ldap_op *o = op_at(1, 0, SAT_OP_BIND);
    CHECK(o && o->err == 49);
    if (o) {
        CHECK_EQ_SSTR(o->dn, "uid=a");
        CHECK_EQ_SSTR(o->client_ip, "10.0.0.1");
        CHECK_EQ_SSTR(o->bind_dn, ""); /* failed bind: still anonymous */
    }
    o = op_at(1, 1, SAT_OP_SRCH);
    CHECK(o && o->nentries == 3 && o->scope == SAT_SCOPE_SUB);
    o = op_at(2, 1, SAT_OP_SRCH);
    CHECK(o && (o->flags & SAT_OPF_UNFINISHED) && o->err == SAT_ABSENT && o->scope == SAT_SCOPE_ONE);
    if (o) {
        CHECK_EQ_SSTR(o->bind_dn, "uid=b");
        CHECK_EQ_SSTR(o->client_ip, "10.0.0.2");
    }
    o = op_at(2, 2, SAT_OP_DEL);
    CHECK(o && (o->flags & SAT_OPF_UNFINISHED));
    o = op_at(3, 5, SAT_OP_DEL);
    CHECK(o && (o->flags & SAT_OPF_NO_REQUEST) && o->err == 0);
    const sat_ldap_conn *c = conn_at(2);
    CHECK(c && c->close_code == SAT_CLOSE_B1 && c->ops == 3);
    if (c)
        CHECK_EQ_SSTR(c->bind_dn, "uid=b");
    c = conn_at(1);
    CHECK(c && (c->flags & SAT_CONNF_UNCLOSED) && c->close_code == SAT_CLOSE_NONE);
}

static void test_internal(void)
{
    run(TS("01/Jan/2024:00:00:00 +0000") "conn=5 fd=64 slot=64 connection from 10.0.0.5 to 10.0.0.9\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=5 op=2 MOD dn=\"uid=u,dc=x\"\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=5 (Internal) op=2(1)(1) SRCH base=\"dc=x\" scope=2 filter=\"(member=uid=u,dc=x)\" attrs=ALL\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=5 (Internal) op=2(2)(2) MOD dn=\"cn=g,dc=x\"\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=5 (Internal) op=2(2)(2) RESULT err=0 tag=48 nentries=0 wtime=0.000001 optime=0.000002 etime=0.000003\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=5 (Internal) op=2(1)(1) RESULT err=0 tag=48 nentries=2 wtime=0.000001 optime=0.000002 etime=0.000003\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=5 op=2 RESULT err=0 tag=103 nentries=0 etime=0.001\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=Internal(0) op=0(1)(1) SRCH base=\"cn=config\" scope=0 filter=\"(objectClass=*)\" attrs=ALL\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=Internal(0) op=0(1)(1) RESULT err=0 tag=48 nentries=1 etime=0.000010\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=Internal op=-1 SRCH base=\"cn=a\" scope=0 filter=\"(objectClass=*)\" attrs=ALL\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=Internal op=-1 DEL dn=\"cn=b\"\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=Internal op=-1 RESULT err=32 tag=48 nentries=0 etime=0\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=Internal op=-1 RESULT err=0 tag=48 nentries=1 etime=0\n");
    CHECK_EQ_INT(S.rejects, 0);
    CHECK_EQ_INT(C.nops, 6);
    const sat_ldap_op *o = NULL;
    for (size_t i = 0; i < C.nops; i++)
        if (C.ops[i].conn == 5 && C.ops[i].internal_op == 2)
            o = &C.ops[i];
    CHECK(o && o->type == SAT_OP_MOD && o->internal_depth == 2 && o->op == 2 && o->err == 0);
    if (o)
        CHECK_EQ_SSTR(o->client_ip, "10.0.0.5");
    o = NULL;
    for (size_t i = 0; i < C.nops; i++)
        if (C.ops[i].conn == 5 && C.ops[i].internal_op == 1)
            o = &C.ops[i];
    CHECK(o && o->type == SAT_OP_SRCH && o->internal_depth == 1 && o->nentries == 2);
    o = NULL;
    for (size_t i = 0; i < C.nops; i++)
        if (C.ops[i].conn == 5 && C.ops[i].internal_op == SAT_ABSENT)
            o = &C.ops[i];
    CHECK(o && o->type == SAT_OP_MOD && o->internal_op == SAT_ABSENT && o->internal_depth == 0 && o->tag == 103);
    o = op_at(0, 0, SAT_OP_SRCH);
    CHECK(o && o->internal_op == 1 && o->internal_depth == 1 && o->nentries == 1);
    /* old style: the RESULTs pair with the most recent pending request */
    o = op_at(0, -1, SAT_OP_DEL);
    CHECK(o && o->err == 32 && o->internal_depth == 1);
    o = op_at(0, -1, SAT_OP_SRCH);
    CHECK(o && o->err == 0 && o->nentries == 1);
    const sat_ldap_conn *c = conn_at(5);
    CHECK(c && c->ops == 1);
    CHECK(conn_at(0) == NULL);
}

/* 389-ds-base 2.3 writes an operation nested in an internal one with the same
 * internal id X and a deeper Y (op=M(X)(Y)), as memberOf does for a group's
 * MOD and the server for its start-up searches: the nested one must not
 * close the one around it (which would count it unfinished, then its RESULT
 * again as one without a request). Lines as a real 2.3.1 log has them. */
static void test_internal_nested(void)
{
    run(TS("01/Dec/2026:09:12:33.878880325 +0000") "conn=14 fd=66 slot=66 connection from 127.0.0.1 to 127.0.0.1\n"
        TS("01/Dec/2026:09:12:33.942607478 +0000") "conn=14 op=1 MOD dn=\"cn=team2,ou=groups,dc=example,dc=com\"\n"
        TS("01/Dec/2026:09:12:33.954760576 +0000") "conn=14 (Internal) op=1(3)(1) SRCH base=\"dc=example,dc=com\" scope=2 filter=\"(member=uid=c3u1,ou=people,dc=example,dc=com)\" attrs=ALL\n"
        TS("01/Dec/2026:09:12:33.955143594 +0000") "conn=14 (Internal) op=1(3)(2) SRCH base=\"dc=example,dc=com\" scope=2 filter=\"(member=cn=team2,ou=groups,dc=example,dc=com)\" attrs=ALL\n"
        TS("01/Dec/2026:09:12:33.955495203 +0000") "conn=14 (Internal) op=1(3)(2) RESULT err=0 tag=48 nentries=0 wtime=0.000011642 optime=0.000352511 etime=0.000362109\n"
        TS("01/Dec/2026:09:12:33.955771842 +0000") "conn=14 (Internal) op=1(3)(1) RESULT err=0 tag=48 nentries=1 wtime=0.000013826 optime=0.001012168 etime=0.001024321\n"
        TS("01/Dec/2026:09:12:33.971565419 +0000") "conn=14 op=1 RESULT err=0 tag=103 nentries=0 wtime=0.003961741 optime=0.028992686 etime=0.032950821\n"
        TS("01/Dec/2026:09:12:26.573519343 +0000") "conn=Internal(0) op=0(188)(1) SRCH base=\"\" scope=0 filter=\"(objectclass=*)\" attrs=\"namingcontexts\"\n"
        TS("01/Dec/2026:09:12:26.577580702 +0000") "conn=Internal(0) op=0(188)(2) SRCH base=\"cn=config,cn=userroot,cn=ldbm database,cn=plugins,cn=config\" scope=0 filter=\"objectclass=*\" attrs=ALL\n"
        TS("01/Dec/2026:09:12:26.589800314 +0000") "conn=Internal(0) op=0(188)(2) RESULT err=32 tag=48 nentries=0 wtime=0.000021931 optime=0.012210125 etime=0.012225393\n"
        TS("01/Dec/2026:09:12:26.590320980 +0000") "conn=Internal(0) op=0(188)(2) MOD dn=\"cn=config,cn=userroot,cn=ldbm database,cn=plugins,cn=config\"\n"
        TS("01/Dec/2026:09:12:26.602518642 +0000") "conn=Internal(0) op=0(188)(2) RESULT err=32 tag=48 nentries=0 wtime=0.000022713 optime=0.012207699 etime=0.012223910\n"
        TS("01/Dec/2026:09:12:26.616601719 +0000") "conn=Internal(0) op=0(188)(1) RESULT err=0 tag=48 nentries=1 wtime=0.000030237 optime=0.043090902 etime=0.043114587\n");
    CHECK_EQ_INT(S.rejects, 0);
    CHECK_EQ_INT(C.nops, 6);
    size_t unfinished = 0, no_request = 0;
    const sat_ldap_op *outer = NULL, *inner = NULL, *top = NULL, *mod = NULL;
    for (size_t i = 0; i < C.nops; i++) {
        const sat_ldap_op *o = &C.ops[i];
        unfinished += (o->flags & SAT_OPF_UNFINISHED) != 0;
        no_request += (o->flags & SAT_OPF_NO_REQUEST) != 0;
        if (o->conn == 14 && o->internal_depth == 1)
            outer = o;
        if (o->conn == 14 && o->internal_depth == 2)
            inner = o;
        if (o->conn == 0 && o->internal_depth == 1)
            top = o;
        if (o->conn == 0 && o->internal_depth == 2 && o->type == SAT_OP_MOD)
            mod = o;
    }
    CHECK_EQ_INT(unfinished, 0);
    CHECK_EQ_INT(no_request, 0);
    /* each RESULT met its own request: the outer search found the entry */
    CHECK(outer && outer->type == SAT_OP_SRCH && outer->internal_op == 3 && outer->nentries == 1 &&
          outer->etime == 1024321);
    CHECK(inner && inner->type == SAT_OP_SRCH && inner->internal_op == 3 && inner->nentries == 0 &&
          inner->etime == 362109);
    if (inner)
        CHECK_EQ_SSTR(inner->filter, "(member=cn=team2,ou=groups,dc=example,dc=com)");
    CHECK(top && top->type == SAT_OP_SRCH && top->err == 0 && top->nentries == 1 &&
          top->etime == 43114587);
    CHECK(mod && mod->err == 32 && mod->etime == 12223910);
}

static void test_restart(void)
{
    run(TS("01/Jan/2024:00:00:00 +0000") "conn=10 fd=64 slot=64 connection from 10.0.0.1 to 10.0.0.9\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=10 op=0 SRCH base=\"dc=x\" scope=2 filter=\"(cn=a)\" attrs=ALL\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=11 fd=65 slot=65 connection from 10.0.0.2 to 10.0.0.9\n"
        "\t389-Directory/2.0.1 B2021.1\n"
        "\thost:389 (/etc/dirsrv/slapd-x)\n"
        TS("01/Jan/2024:00:01:00 +0000") "conn=1 fd=64 slot=64 connection from 10.0.0.3 to 10.0.0.9\n"
        TS("01/Jan/2024:00:01:00 +0000") "conn=1 op=0 BIND dn=\"\" method=128 version=3\n"
        TS("01/Jan/2024:00:01:00 +0000") "conn=1 op=0 RESULT err=0 tag=97 nentries=0 etime=0\n"
        TS("01/Jan/2024:00:01:00 +0000") "conn=10 op=0 RESULT err=0 tag=101 nentries=0 etime=0\n");
    CHECK_EQ_INT(S.rejects, 0);
    const sat_ldap_op *o = op_at(10, 0, SAT_OP_SRCH);
    CHECK(o && (o->flags & SAT_OPF_UNFINISHED) && o->conn_epoch == 0);
    const sat_ldap_op *r = NULL;
    for (size_t i = 0; i < C.nops; i++)
        if (C.ops[i].conn == 10 && C.ops[i].conn_epoch == 1)
            r = &C.ops[i];
    CHECK(r && (r->flags & SAT_OPF_NO_REQUEST) && r->type == SAT_OP_SRCH);
    o = op_at(1, 0, SAT_OP_BIND);
    CHECK(o && o->conn_epoch == 1);
    int restarted = 0;
    for (size_t i = 0; i < C.nconns; i++)
        if ((C.conns[i].flags & SAT_CONNF_RESTART) && C.conns[i].conn_epoch == 0)
            restarted++;
    CHECK_EQ_INT(restarted, 2);
}

static void test_autobind_starttls_session(void)
{
    run(TS("08/Jun/2025:07:19:14.214871640 +0000") "conn=9 fd=65 slot=65 connection from local to /run/s.socket\n"
        TS("08/Jun/2025:07:19:14.217943757 +0000") "conn=9 AUTOBIND dn=\"cn=Directory Manager\"\n"
        TS("08/Jun/2025:07:19:14.217947715 +0000") "conn=9 op=0 BIND dn=\"cn=Directory Manager\" method=sasl version=3 mech=EXTERNAL\n"
        TS("08/Jun/2025:07:19:14.217969340 +0000") "conn=9 op=0 RESULT err=0 tag=97 nentries=0 wtime=0.000054666 optime=0.000107709 etime=0.000161916 dn=\"cn=Directory Manager\"\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 fd=66 slot=66 connection from 10.0.0.1 to 10.0.0.9\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 op=0 EXT oid=\"1.3.6.1.4.1.1466.20037\" name=\"start_tls_plugin\"\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 op=0 RESULT err=0 tag=120 nentries=0 etime=0\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 TLS1.2 256-bit AES-GCM\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 op=1 SRCH base=\"dc=x\" scope=2 filter=\"(uid=a)\" attrs=ALL\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 op=1 SESSION \"STID_1\"\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 op=1 SORT uid\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 op=1 VLV 0:5:0210 10:5397 (0)\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 op=1 STAT read index: attribute=uid key(eq)=a --> count 1\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 op=1 ENTRY dn=\"uid=a,dc=x\"\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 op=1 REFERRAL\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=20 op=1 RESULT err=0 tag=101 nentries=1 etime=0\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=15 op=0 UNPROCESSED OPERATION - Anonymous access not allowed\n"
        TS("08/Jun/2025:07:19:15 +0000") "conn=15 op=0 RESULT err=48 tag=101 nentries=0 etime=0\n");
    CHECK_EQ_INT(S.rejects, 0);
    const sat_ldap_op *a = NULL;
    for (size_t i = 0; i < C.nops; i++)
        if (C.ops[i].type == SAT_OP_AUTOBIND)
            a = &C.ops[i];
    CHECK(a && a->conn == 9 && a->op == SAT_ABSENT && a->err == SAT_ABSENT);
    if (a)
        CHECK_EQ_SSTR(a->dn, "cn=Directory Manager");
    const sat_ldap_op *b = op_at(9, 0, SAT_OP_BIND);
    CHECK(b != NULL);
    if (b) {
        CHECK_EQ_SSTR(b->method, "EXTERNAL");
        CHECK_EQ_SSTR(b->client_ip, "local");
    }
    const sat_ldap_conn *c = conn_at(20);
    CHECK(c && c->listener == SAT_LISTENER_STARTTLS && (c->flags & SAT_CONNF_TLS));
    const sat_ldap_op *s = op_at(20, 1, SAT_OP_SRCH);
    CHECK(s != NULL);
    if (s)
        CHECK_EQ_SSTR(s->sid, "STID_1");
    c = conn_at(9);
    CHECK(c && c->ops == 1 && c->listener == SAT_LISTENER_LDAPI);
    const sat_ldap_op *u = op_at(15, 0, SAT_OP_SRCH);
    CHECK(u && u->err == 48 && !(u->flags & SAT_OPF_NO_REQUEST));
    if (u)
        CHECK_EQ_SSTR(u->text, "Anonymous access not allowed");
}

static void test_rejects(void)
{
    const char text[] =
        "garbage line\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=1 op=0 FOO bar\n"
        "[01/Jxx/2024:00:00:00 +0000] conn=1 op=0 UNBIND\n"
        TS("01/Jan/2024:00:00:00 +0000") "no conn here\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=1 op=0 RESULT err=0 tag=101 etime=abc\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=1 op=1 SRCH base=\"dc=x scope=2\n"
        "[01/Jan/2024:00:0\n"
        "\x00\x01\x02\n"
        TS("01/Jan/2024:00:00:00 +0000") "conn=1 op=2 UNBIND\n";
    coll_free(&C);
    memset(&S, 0, sizeof S);
    coll_run(&C, &sat_fmt_389text, &S, text, sizeof text - 1, 1);
    CHECK_EQ_INT(S.rejects, 8);
    CHECK_EQ_INT(C.nrejects, 8);
    CHECK_EQ_INT(S.lines, 9);
    if (C.nrejects == 8) {
        CHECK_EQ_INT(C.rejects[0].line_no, 1);
        CHECK_EQ_SSTR(C.rejects[0].reason, "no timestamp");
        CHECK_EQ_SSTR(C.rejects[1].reason, "unknown operation 'FOO'");
        CHECK_EQ_SSTR(C.rejects[2].reason, "bad timestamp");
        CHECK_EQ_SSTR(C.rejects[3].reason, "no conn=");
        CHECK_EQ_SSTR(C.rejects[4].reason, "bad RESULT field 'etime'");
        CHECK_EQ_INT(C.rejects[4].line_no, 5);
        CHECK_EQ_SSTR(C.rejects[5].reason, "bad SRCH line");
        CHECK_EQ_INT(C.rejects[7].line_no, 8);
    }
    CHECK(op_at(1, 2, SAT_OP_UNBIND) != NULL);
}

static void test_sniff(void)
{
    const char a[] = "\t389-Directory/3.1.1 B2024.213.0201\n\thost:389 (/etc/x)\n\n"
                     "[08/Jun/2025:07:19:14.214871640 +0000] conn=1 fd=65 slot=65 connection from local to /x\n";
    CHECK(sat_fmt_389text.sniff(a, sizeof a - 1) >= 90);
    CHECK(sat_fmt_389text.sniff(a, 20) >= 50); /* cut mid-line */
    const char b[] = "Jun  8 07:19:14 host slapd[1]: conn=1 op=0 BIND\n";
    CHECK(sat_fmt_389text.sniff(b, sizeof b - 1) < 30);
    sat_ts_ns ts = 0;
    CHECK_EQ_INT(sat_fmt_389text.first_ts(a, sizeof a - 1, &ts), SAT_OK);
    CHECK_EQ_INT(ts, 1749367154214871640LL);
    CHECK(sat_fmt_389text.first_ts(b, sizeof b - 1, &ts) < 0);
}

int main(void)
{
    test_timestamps();
    test_header();
    test_connections();
    test_tls_cert();
    test_requests();
    test_escaped_quotes();
    test_result_fields();
    test_interleaved_and_unfinished();
    test_internal();
    test_internal_nested();
    test_restart();
    test_autobind_starttls_session();
    test_rejects();
    test_sniff();
    coll_free(&C);
    return CHECK_DONE();
}
