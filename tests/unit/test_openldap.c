/*
 * test_openldap.c - the OpenLDAP stats format (parse/dirlog/fmt_openldap.c): every
 * line form under the three prefixes, year-less syslog rollover, rejects, and
 * the exact counts of the real slapd 2.5 fixture (fixtures/slapd/README.md).
 */
#include "check.h"
#include "ldap_capture.h"

extern const sat_log_format sat_fmt_openldap;
#define FMT (&sat_fmt_openldap)

static const char *syslog_session =
    "Mar  4 10:00:00 ldap1 slapd[42]: conn=5 fd=12 ACCEPT from IP=10.1.2.3:40000 (IP=0.0.0.0:389)\n"
    "Mar  4 10:00:00 ldap1 slapd[42]: conn=5 op=0 EXT oid=1.3.6.1.4.1.1466.20037\n"
    "Mar  4 10:00:00 ldap1 slapd[42]: conn=5 op=0 STARTTLS\n"
    "Mar  4 10:00:00 ldap1 slapd[42]: conn=5 op=0 RESULT oid= err=0 qtime=0.000010 etime=0.000110 text=\n"
    "Mar  4 10:00:00 ldap1 slapd[42]: conn=5 fd=12 TLS established tls_ssf=256 ssf=256 tls_proto=TLSv1.3 tls_cipher=TLS_AES_256_GCM_SHA384\n"
    "Mar  4 10:00:01 ldap1 slapd[42]: conn=5 op=1 BIND dn=\"uid=a,dc=x\" method=128\n"
    "Mar  4 10:00:01 ldap1 slapd[42]: conn=5 op=1 BIND dn=\"uid=a,dc=x\" mech=SIMPLE bind_ssf=0 ssf=256\n"
    "Mar  4 10:00:01 ldap1 slapd[42]: conn=5 op=1 RESULT tag=97 err=0 qtime=0.000002 etime=0.000502 text=\n"
    "Mar  4 10:00:02 ldap1 slapd[42]: conn=5 op=2 SRCH base=\"dc=x\" scope=2 deref=0 filter=\"(&(uid=bob)(cn=\"q\"))\"\n"
    "Mar  4 10:00:02 ldap1 slapd[42]: conn=5 op=2 SRCH attr=cn mail\n"
    "Mar  4 10:00:02 ldap1 slapd[42]: conn=5 op=2 ENTRY dn=\"uid=bob,dc=x\"\n"
    "Mar  4 10:00:02 ldap1 slapd[42]: conn=5 op=2 SEARCH RESULT tag=101 err=0 qtime=0.000100 etime=0.002100 nentries=1 text=\n"
    "Mar  4 10:00:03 ldap1 slapd[42]: conn=5 op=3 ADD dn=\"cn=n,dc=x\"\n"
    "Mar  4 10:00:03 ldap1 slapd[42]: conn=5 op=3 RESULT tag=105 err=68 qtime=0.000001 etime=0.000200 text=Already exists\n"
    "Mar  4 10:00:03 ldap1 slapd[42]: conn=5 op=4 MOD dn=\"cn=n,dc=x\"\n"
    "Mar  4 10:00:03 ldap1 slapd[42]: conn=5 op=4 MOD attr=description mail\n"
    "Mar  4 10:00:03 ldap1 slapd[42]: conn=5 op=4 RESULT tag=103 err=0 text=\n"
    "Mar  4 10:00:03 ldap1 slapd[42]: conn=5 op=5 MODRDN dn=\"cn=n,dc=x\"\n"
    "Mar  4 10:00:03 ldap1 slapd[42]: conn=5 op=5 RESULT tag=109 err=0 text=\n"
    "Mar  4 10:00:03 ldap1 slapd[42]: conn=5 op=6 CMP dn=\"cn=m,dc=x\" attr=\"sn\"\n"
    "Mar  4 10:00:03 ldap1 slapd[42]: conn=5 op=6 RESULT tag=111 err=6 text=\n"
    "Mar  4 10:00:03 ldap1 slapd[42]: conn=5 op=7 DEL dn=\"cn=m,dc=x\"\n"
    "Mar  4 10:00:03 ldap1 slapd[42]: conn=5 op=7 RESULT tag=107 err=0 text=\n"
    "Mar  4 10:00:04 ldap1 slapd[42]: conn=5 op=8 SRCH base=\"dc=x\" scope=1 deref=0 filter=\"(objectClass=*)\"\n"
    "Mar  4 10:00:04 ldap1 slapd[42]: conn=5 op=9 ABANDON msg=8\n"
    "Mar  4 10:00:04 ldap1 slapd[42]: conn=5 op=10 UNBIND\n"
    "Mar  4 10:00:04 ldap1 slapd[42]: conn=5 fd=12 closed\n"
    "Mar  4 10:00:05 ldap1 slapd[42]: conn=6 fd=13 ACCEPT from IP=[2001:db8::1]:50000 (IP=[::]:389)\n"
    "Mar  4 10:00:05 ldap1 slapd[42]: connection_read(13): input error=-2 id=6, closing.\n"
    "Mar  4 10:00:05 ldap1 slapd[42]: conn=6 fd=13 closed (connection lost)\n"
    "Mar  4 10:00:06 ldap1 postfix/smtpd[9]: connect from unknown[1.2.3.4]\n"
    "Mar  4 10:00:06 ldap1 slapd[42]: daemon: shutdown requested and initiated.\n";

static void test_syslog_session(void)
{
    capture c;
    sat_source src;
    cap_init(&c);
    CHECK_EQ_INT(cap_run_str(&c, FMT, syslog_session, &src), 0);
    CHECK_EQ_INT(c.nrejects, 0);
    CHECK_EQ_INT(src.lines, 32);
    CHECK_EQ_STR(c.server_name, "ldap1");
    CHECK_EQ_INT(src.first_ts, 1709546400LL * 1000000000LL); /* 2024-03-04T10:00:00Z */
    CHECK_EQ_INT(src.last_ts, 1709546406LL * 1000000000LL);

    const cap_op *o = cap_find(&c, 5, 0);
    CHECK(o && o->row.type == SAT_OP_EXT);
    if (o) {
        CHECK_EQ_STR(o->method, "1.3.6.1.4.1.1466.20037");
        CHECK_EQ_STR(o->extra, "STARTTLS");
        CHECK_EQ_INT(o->row.wtime, 10000);
        CHECK_EQ_INT(o->row.etime, 110000);
        CHECK_EQ_INT(o->row.optime, 100000);
    }
    o = cap_find(&c, 5, 1);
    CHECK(o && o->row.type == SAT_OP_BIND && o->row.err == 0);
    if (o) {
        CHECK_EQ_STR(o->dn, "uid=a,dc=x");
        CHECK_EQ_STR(o->method, "SIMPLE");
        CHECK_EQ_STR(o->client_ip, "10.1.2.3");
    }
    o = cap_find(&c, 5, 2);
    CHECK(o && o->row.type == SAT_OP_SRCH);
    if (o) {
        CHECK_EQ_STR(o->dn, "dc=x");
        CHECK_EQ_INT(o->row.scope, SAT_SCOPE_SUB);
        CHECK_EQ_STR(o->filter, "(&(uid=bob)(cn=\"q\"))");
        CHECK_EQ_STR(o->attrs, "cn mail");
        CHECK_EQ_INT(o->row.nentries, 1);
        CHECK_EQ_INT(o->row.etime, 2100000);
        CHECK_EQ_INT(o->row.tag, 101);
        CHECK_EQ_STR(o->bind_dn, "uid=a,dc=x");
    }
    o = cap_find(&c, 5, 3);
    CHECK(o && o->row.type == SAT_OP_ADD && o->row.err == 68);
    if (o)
        CHECK_EQ_STR(o->text, "Already exists");
    o = cap_find(&c, 5, 4);
    CHECK(o && o->row.type == SAT_OP_MOD && o->row.etime == SAT_ABSENT);
    if (o)
        CHECK_EQ_STR(o->attrs, "description mail");
    o = cap_find(&c, 5, 5);
    CHECK(o && o->row.type == SAT_OP_MODRDN);
    o = cap_find(&c, 5, 6);
    CHECK(o && o->row.type == SAT_OP_CMP && o->row.err == 6);
    if (o)
        CHECK_EQ_STR(o->extra, "sn");
    o = cap_find(&c, 5, 7);
    CHECK(o && o->row.type == SAT_OP_DEL);
    o = cap_find(&c, 5, 8);
    CHECK(o && o->row.type == SAT_OP_SRCH && (o->row.flags & SAT_OPF_UNFINISHED));
    o = cap_find(&c, 5, 9);
    CHECK(o && o->row.type == SAT_OP_ABANDON && o->row.target_op == 8);
    o = cap_find(&c, 5, 10);
    CHECK(o && o->row.type == SAT_OP_UNBIND);

    CHECK_EQ_INT(c.nconns, 2);
    for (size_t i = 0; i < c.nconns; i++) {
        const cap_conn *cn = &c.conns[i];
        if (cn->row.conn == 5) {
            CHECK_EQ_INT(cn->row.listener, SAT_LISTENER_STARTTLS);
            CHECK(cn->row.flags & SAT_CONNF_TLS);
            CHECK_EQ_STR(cn->tls_version, "TLSv1.3");
            CHECK_EQ_STR(cn->tls_cipher, "TLS_AES_256_GCM_SHA384");
            CHECK_EQ_INT(cn->row.client_port, 40000);
            CHECK_EQ_INT(cn->row.fd, 12);
            CHECK_EQ_INT(cn->row.close_code, SAT_CLOSE_OTHER);
            CHECK_EQ_INT(cn->row.ops, 11);
        } else {
            CHECK_EQ_INT(cn->row.conn, 6);
            CHECK_EQ_STR(cn->client_ip, "2001:db8::1");
            CHECK_EQ_INT(cn->row.client_port, 50000);
            CHECK_EQ_STR(cn->close_reason, "connection lost");
            CHECK_EQ_INT(cn->row.close_code, SAT_CLOSE_LOST);
        }
    }
    cap_free(&c);
}

static void test_prefixes(void)
{
    capture c;
    sat_source src;
    cap_init(&c);
    const char *log =
        /* RFC 3339 syslog: 12:00:00.5+02:00 = 10:00:00.5Z */
        "2024-05-01T12:00:00.500000+02:00 dir2 slapd[7]: conn=1 fd=9 ACCEPT from PATH=/run/slapd/ldapi (PATH=/run/slapd/ldapi)\n"
        "2024-05-01T12:00:00.600000+02:00 dir2 slapd[7]: conn=1 op=0 BIND dn=\"\" method=163\n"
        "2024-05-01T12:00:00.600000+02:00 dir2 slapd[7]: conn=1 op=0 BIND authcid=\"x\" authzid=\"x\"\n"
        "2024-05-01T12:00:00.600000+02:00 dir2 slapd[7]: conn=1 op=0 BIND dn=\"cn=peer\" mech=EXTERNAL bind_ssf=0 ssf=71\n"
        "2024-05-01T12:00:00.700000+02:00 dir2 slapd[7]: conn=1 op=0 RESULT tag=97 err=0 qtime=0.000001 etime=0.000050 text=\n";
    CHECK_EQ_INT(cap_run_str(&c, FMT, log, &src), 0);
    CHECK_EQ_INT(c.nrejects, 0);
    CHECK_EQ_INT(src.first_ts, 1714557600500000000LL);
    CHECK_EQ_INT(src.utc_offset_s, 7200);
    CHECK_EQ_STR(c.server_name, "dir2");
    const cap_op *o = cap_find(&c, 1, 0);
    CHECK(o != NULL);
    if (o) {
        CHECK_EQ_STR(o->method, "EXTERNAL");
        CHECK_EQ_STR(o->client_ip, "local");
    }
    CHECK(c.nconns == 1 && c.conns[0].row.listener == SAT_LISTENER_LDAPI);
    cap_free(&c);

    /* 2.6 logfile prefix */
    cap_init(&c);
    log = "6651a3f2.1a2b3c4d 0x7f00aa001640 conn=1001 fd=15 ACCEPT from IP=127.0.0.1:5000 (IP=0.0.0.0:636)\n"
          "6651a3f2.1a2b3c4e 0x7f00aa001640 conn=1001 op=0 UNBIND\n";
    CHECK_EQ_INT(cap_run_str(&c, FMT, log, &src), 0);
    CHECK_EQ_INT(c.nrejects, 0);
    CHECK_EQ_INT(src.first_ts, 0x6651a3f2LL * 1000000000LL + 0x1a2b3c4d);
    CHECK(c.nconns == 1 && c.conns[0].row.listener == SAT_LISTENER_LDAPS);
    cap_free(&c);
}

static void test_year_rollover_and_rejects(void)
{
    capture c;
    sat_source src;
    cap_init(&c);
    const char *log =
        "Dec 31 23:59:59 h slapd[1]: conn=1 op=0 UNBIND\n"
        "garbage without a prefix\n"
        "Jan  1 00:00:01 h slapd[1]: conn=2 op=0 UNBIND\n"
        "Jan  1 00:00:02 h slapd[1]: conn=x op=0 UNBIND\n"
        "Jan  1 00:00:03 h slapd[1]: conn=2 op=1 RESULT tag=97 text=no err\n"
        "\tcontinuation without a banner\n";
    CHECK_EQ_INT(cap_run(&c, FMT, log, strlen(log), &src, 2023), 0);
    CHECK_EQ_INT(src.first_ts, 1704067199LL * 1000000000LL); /* 2023-12-31T23:59:59Z */
    CHECK_EQ_INT(src.last_ts, 1704067203LL * 1000000000LL);  /* 2024-01-01T00:00:03Z */
    CHECK_EQ_INT(c.nrejects, 4);
    CHECK_EQ_INT(src.rejects, 4);
    if (c.nrejects == 4) {
        CHECK_EQ_INT(c.reject_lines[0], 2);
        CHECK_EQ_STR(c.reject_reason[0], "no timestamp");
        CHECK_EQ_INT(c.reject_lines[1], 4);
        CHECK_EQ_INT(c.reject_lines[2], 5);
        CHECK_EQ_INT(c.reject_lines[3], 6);
    }
    cap_free(&c);
}

static void test_sniff(void)
{
    const char *a = "Oct 26 12:46:58 ldap.example.com slapd[11086]: conn=6862452 fd=34 ACCEPT from IP=192.168.1.1:56822 (IP=0.0.0.0:389)\n";
    CHECK(FMT->sniff(a, strlen(a)) >= 70);
    const char *b = "6b0ce3df.240af1db 0x7fb0b0854200 @(#) $OpenLDAP: slapd 2.5.13+dfsg-5 (Feb  8 2023 01:56:12) $\n"
                    "\tDebian OpenLDAP Maintainers\n"
                    "6b0ce3df.2723b328 0x7fb0b0854200 slapd starting\n";
    CHECK(FMT->sniff(b, strlen(b)) >= 70);
    const char *t = "[08/Jun/2025:07:19:14.123456789 +0000] conn=1 op=0 BIND dn=\"\"\n";
    CHECK(FMT->sniff(t, strlen(t)) < 30);
    const char *j = "{\"local_time\":\"2025-02-10T13:41:53.166697090 -0500\"}\n";
    CHECK(FMT->sniff(j, strlen(j)) < 30);
    sat_ts_ns ts = 0;
    CHECK_EQ_INT(FMT->first_ts(b, strlen(b), &ts), SAT_OK);
    CHECK_EQ_INT(ts, 0x6b0ce3dfLL * 1000000000LL + 0x240af1db);
}

/* The one year rule for year-less syslog stamps: the latest year in which
 * the line is not after the file's time (plus a day of time-zone slack). */
static void test_year_inference(void)
{
    const sat_ts_ns jan1_2026 = 1767225600LL * 1000000000LL; /* 2026-01-01T00:00:00Z */
    CHECK_EQ_INT(sat_year_for(12, 31, 86399, jan1_2026 + 30 * 1000000000LL), 2025);
    CHECK_EQ_INT(sat_year_for(1, 1, 10, jan1_2026 + 30 * 1000000000LL), 2026);
    CHECK_EQ_INT(sat_year_for(1, 2, 0, jan1_2026), 2026);   /* within the day of slack */
    CHECK_EQ_INT(sat_year_for(1, 3, 0, jan1_2026), 2025);
    CHECK_EQ_INT(sat_year_for(6, 1, 0, jan1_2026 + 200LL * 86400 * 1000000000LL), 2026);
    CHECK_EQ_INT(sat_year_for(12, 31, 0, 1798675200LL * 1000000000LL), 2026); /* 2026-12-31 */
    const char *dec = "Dec 31 23:59:58 h slapd[7]: conn=1000 fd=12 ACCEPT from IP=127.0.0.1:1 (IP=127.0.0.1:389)\n";
    int y = 0;
    sat_ts_ns ts = 0;
    CHECK(FMT->first_year != NULL);
    CHECK_EQ_INT(FMT->first_year(dec, strlen(dec), jan1_2026 + 60 * 1000000000LL, &y, &ts), SAT_OK);
    CHECK_EQ_INT(y, 2025);
    CHECK_EQ_INT(ts, jan1_2026 - 2 * 1000000000LL);
    const char *hex = "6b0ce3df.2723b328 0x7fb0b0854200 slapd starting\n";
    CHECK(FMT->first_year(hex, strlen(hex), jan1_2026, &y, &ts) < 0); /* has its year */
}

/* The real slapd 2.5.13 fixture: counts listed in fixtures/slapd/README.md. */
static void test_fixture(void)
{
    const char *srcdir = getenv("SAT_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/slapd/slapd-2.5-stats.log", srcdir ? srcdir : ".");
    size_t len = 0;
    char *buf = cap_read_file(path, &len);
    CHECK(buf != NULL);
    if (!buf) {
        fprintf(stderr, "cannot read %s\n", path);
        return;
    }
    CHECK(FMT->sniff(buf, len) >= 70);
    capture c;
    sat_source src;
    cap_init(&c);
    CHECK_EQ_INT(cap_run(&c, FMT, buf, len, &src, 0), 0);
    CHECK_EQ_INT(c.nrejects, 0);
    CHECK_EQ_INT(src.lines, 181);
    CHECK_EQ_STR(c.server_version, "slapd 2.5.13+dfsg-5");
    CHECK_EQ_INT(c.nconns, 21);
    CHECK_EQ_INT(c.nops, 66);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_BIND, -2), 21);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_BIND, 49), 1);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_SRCH, -2), 14);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_ADD, 0), 2);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_MOD, 0), 2);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_MODRDN, 0), 1);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_DEL, 0), 1);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_CMP, -2), 2);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_EXT, 0), 2);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_UNBIND, -2), 21);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_SRCH, 4), 1);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_SRCH, 32), 1);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_CMP, 5), 1);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_CMP, 6), 1);
    size_t unfinished = 0, timed = 0, ext_names = 0, sasl = 0, ldapi = 0, closed = 0;
    for (size_t i = 0; i < c.nops; i++) {
        const cap_op *o = &c.ops[i];
        if (o->row.flags & SAT_OPF_UNFINISHED)
            unfinished++;
        if (o->row.type != SAT_OP_UNBIND && o->row.etime > 0 && o->row.wtime > 0 &&
            o->row.etime == o->row.wtime + o->row.optime)
            timed++;
        if (o->row.type == SAT_OP_EXT &&
            (strcmp(o->extra, "WHOAMI") == 0 || strcmp(o->extra, "PASSMOD") == 0))
            ext_names++;
        if (o->row.type == SAT_OP_BIND && strcmp(o->method, "EXTERNAL") == 0)
            sasl++;
    }
    for (size_t i = 0; i < c.nconns; i++) {
        if (c.conns[i].row.listener == SAT_LISTENER_LDAPI)
            ldapi++;
        if (c.conns[i].row.close_ts && c.conns[i].row.close_code == SAT_CLOSE_OTHER)
            closed++;
    }
    CHECK_EQ_INT(unfinished, 0);
    CHECK_EQ_INT(timed, 66 - 21);
    CHECK_EQ_INT(ext_names, 2);
    CHECK_EQ_INT(sasl, 1);
    CHECK_EQ_INT(ldapi, 1);
    CHECK_EQ_INT(closed, 21);
    const cap_op *o = cap_find(&c, 1003, 0);
    CHECK(o && o->row.err == 49);
    if (o)
        CHECK_EQ_STR(o->dn, "uid=bob,ou=people,dc=example,dc=com");
    o = cap_find(&c, 1006, 1);
    CHECK(o != NULL);
    if (o)
        CHECK_EQ_STR(o->shape, "(description=*)");
    cap_free(&c);
    free(buf);
}

int main(void)
{
    test_syslog_session();
    test_prefixes();
    test_year_rollover_and_rejects();
    test_year_inference();
    test_sniff();
    test_fixture();
    return CHECK_DONE();
}
