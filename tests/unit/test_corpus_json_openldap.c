/*
 * test_corpus_json_openldap.c - conformance of the 389 JSON and OpenLDAP
 * stats formats on the public samples in $SAT_CORPUS/ldap (see its
 * README.md for provenance). Exits 77 (skipped, visibly) without a corpus.
 */
#include "check.h"
#include "ldap_capture.h"

extern const sat_log_format sat_fmt_389json;
extern const sat_log_format sat_fmt_openldap;

static char *corpus_file(const char *name, size_t *len)
{
    const char *dir = getenv("SAT_CORPUS");
    char path[4096];
    if (!dir)
        return NULL;
    snprintf(path, sizeof path, "%s/ldap/%s", dir, name);
    return cap_read_file(path, len);
}

static const cap_op *find_filter(const capture *c, const char *filter)
{
    /* captured strings are cut at CAP_STR - 1 bytes */
    for (size_t i = 0; i < c->nops; i++)
        if (strncmp(c->ops[i].filter, filter, CAP_STR - 1) == 0)
            return &c->ops[i];
    return NULL;
}

/* 41 objects (652 lines), two with a trailing comma: every one accepted. */
static void test_json_examples(char *buf, size_t len)
{
    size_t objects = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '{' && (i == 0 || buf[i - 1] == '\n'))
            objects++;
    CHECK_EQ_INT(objects, 41);
    CHECK(sat_fmt_389json.sniff(buf, len) >= 70);
    capture c;
    sat_source src;
    cap_init(&c);
    CHECK_EQ_INT(cap_run(&c, &sat_fmt_389json, buf, len, &src, 0), 0);
    CHECK_EQ_INT(c.nrejects, 0); /* decoded or deliberately ignored, none lost */
    CHECK_EQ_INT(src.lines, 652);
    CHECK_EQ_INT(src.utc_offset_s, -5 * 3600);
    /* the two trailing-comma objects */
    const cap_op *o = find_filter(&c, "(|(objectclass=*)(objectclass=ldapsubentry))");
    CHECK(o && o->row.internal_depth == 1 && o->row.err == 32);
    o = find_filter(&c, "(uid=*)");
    CHECK(o && o->row.type == SAT_OP_SRCH && o->row.nentries == 5);
    /* the unindexed search with its notes[] */
    o = find_filter(&c, "(&(|(objectClass=nsAccount)(objectClass=nsPerson)(objectClass=simpleSecurityObject)(objectClass=organization)(objectClass=person)(objectClass=account)(objectClass=organizationalUnit)(objectClass=netscapeServer)(objectClass=domain)(objectClass=posixAccount)(objectClass=shadowAccount)(objectClass=posixGroup)(objectClass=mailRecipient))(uid=test*))");
    CHECK(o && (o->row.notes & SAT_NOTE_A) && o->row.etime == 3379682490LL &&
          o->row.nentries == 11000);
    o = find_filter(&c, "(objectClass=*)");
    CHECK(o && (o->row.flags & SAT_OPF_PERSISTENT));
    size_t autobind = cap_count(&c, SAT_OP_AUTOBIND, -2), abandon = 0, closed_a1 = 0;
    for (size_t i = 0; i < c.nops; i++)
        if (c.ops[i].row.type == SAT_OP_ABANDON && c.ops[i].row.target_op == 2)
            abandon++;
    for (size_t i = 0; i < c.nconns; i++)
        if (c.conns[i].row.close_code == SAT_CLOSE_A1)
            closed_a1++;
    CHECK_EQ_INT(autobind, 1);
    CHECK_EQ_INT(abandon, 1);
    CHECK_EQ_INT(closed_a1, 1);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_MODRDN, -2), 1);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_CMP, -2), 1);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_EXT, -2), 1);
    cap_free(&c);
}

/* 8 garbage lines and 2 legacy lines rejected, the 6 JSON lines parsed. */
static void test_mixed_garbage(char *buf, size_t len)
{
    capture c;
    sat_source src;
    cap_init(&c);
    CHECK_EQ_INT(cap_run(&c, &sat_fmt_389json, buf, len, &src, 0), 0);
    CHECK_EQ_INT(src.lines, 16);
    CHECK_EQ_INT(c.nrejects, 10);
    CHECK_EQ_INT(c.nops, 3);
    const cap_op *o = cap_find(&c, 1, 7);
    CHECK(o && o->row.type == SAT_OP_SRCH && o->row.notes == SAT_NOTE_F && o->row.err == 0);
    if (o) {
        CHECK_EQ_STR(o->text, " - Invalid attribute in filter - results may not be complete.");
        CHECK_EQ_STR(o->details, "Filter Element Missing From Schema");
    }
    o = cap_find(&c, 1, 9);
    CHECK(o && o->row.type == SAT_OP_ADD && o->row.etime == 186634117);
    o = cap_find(&c, 1, 10);
    CHECK(o && o->row.type == SAT_OP_MODRDN && o->row.tag == 109);
    if (o)
        CHECK_EQ_STR(o->extra, "newrdn=\"uid=user_modrdn_renamed\"");
    cap_free(&c);
}

static void test_openldap_search(char *buf, size_t len)
{
    capture c;
    sat_source src;
    cap_init(&c);
    CHECK(sat_fmt_openldap.sniff(buf, len) >= 70);
    CHECK_EQ_INT(cap_run(&c, &sat_fmt_openldap, buf, len, &src, 2019), 0);
    CHECK_EQ_INT(c.nrejects, 0);
    CHECK_EQ_INT(src.lines, 16);
    CHECK_EQ_STR(c.server_name, "ldap.example.com");
    CHECK_EQ_INT(c.nops, 5);
    const cap_op *o = cap_find(&c, 6832973, 0);
    CHECK(o && o->row.type == SAT_OP_EXT && o->row.err == 0);
    if (o)
        CHECK_EQ_STR(o->extra, "STARTTLS");
    o = cap_find(&c, 6832973, 1);
    CHECK(o && o->row.type == SAT_OP_BIND && o->row.err == 0);
    if (o)
        CHECK_EQ_STR(o->method, "SIMPLE");
    o = cap_find(&c, 6832973, 3);
    CHECK(o && o->row.nentries == 1626 && o->row.etime == SAT_ABSENT);
    if (o) {
        CHECK_EQ_STR(o->attrs, "sshPublicKey loginShell homeDirectory mail uidNumber uid");
        CHECK_EQ_STR(o->bind_dn, "uid=bind-generateusers,ou=logins,dc=example");
        CHECK_EQ_STR(o->client_ip, "192.168.1.1");
    }
    CHECK_EQ_INT(cap_count(&c, SAT_OP_UNBIND, -2), 1);
    CHECK_EQ_INT(c.nconns, 1);
    if (c.nconns == 1) {
        CHECK_EQ_INT(c.conns[0].row.listener, SAT_LISTENER_STARTTLS);
        CHECK_EQ_INT(c.conns[0].row.close_code, SAT_CLOSE_OTHER);
        CHECK_EQ_INT(c.conns[0].row.client_port, 43050);
    }
    /* Oct 26 03:30:53 2019 UTC */
    CHECK_EQ_INT(src.first_ts, 1572060653LL * 1000000000LL);
    cap_free(&c);
}

static void test_openldap_failure(char *buf, size_t len)
{
    capture c;
    sat_source src;
    cap_init(&c);
    CHECK_EQ_INT(cap_run(&c, &sat_fmt_openldap, buf, len, &src, 2019), 0);
    CHECK_EQ_INT(c.nrejects, 0);
    CHECK_EQ_INT(src.lines, 7);
    CHECK_EQ_INT(c.nops, 2);
    CHECK_EQ_INT(cap_count(&c, SAT_OP_BIND, 49), 1);
    const cap_op *o = cap_find(&c, 6862452, 1);
    CHECK(o != NULL);
    if (o)
        CHECK_EQ_STR(o->dn, "mail=user@example.com,o=com,dc=example");
    CHECK(c.nconns == 1 && (c.conns[0].row.flags & SAT_CONNF_UNCLOSED));
    cap_free(&c);
}

int main(void)
{
    const char *dir = getenv("SAT_CORPUS");
    size_t len = 0;
    char *buf = corpus_file("389ds-3.x_json-pretty_design-doc-examples.json", &len);
    if (!dir || !buf) {
        printf("SKIP: corpus not found (SAT_CORPUS=%s): conformance on 389 JSON / "
               "OpenLDAP samples not run\n", dir ? dir : "(unset)");
        return 77;
    }
    test_json_examples(buf, len);
    free(buf);
    static const struct {
        const char *name;
        void (*fn)(char *, size_t);
    } cases[] = {
        {"389ds-logconv_test_mixed_legacy_json_garbage.log", test_mixed_garbage},
        {"openldap-2.4_syslog_mozilla-humanizer_search-action.log", test_openldap_search},
        {"openldap-2.4_syslog_mozilla-humanizer_login-failure.log", test_openldap_failure},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        buf = corpus_file(cases[i].name, &len);
        CHECK(buf != NULL);
        if (!buf) {
            fprintf(stderr, "missing corpus file %s\n", cases[i].name);
            continue;
        }
        cases[i].fn(buf, len);
        free(buf);
    }
    return CHECK_DONE();
}
