/*
 * test_anonymize.c - the pseudonymiser (collect/anonymize.c): DNs keep their
 * attribute names and shape with every value replaced; filters keep names,
 * operators, nesting and wildcards; addresses keep their common prefix bit for
 * bit (IPv4 and IPv6), and differ from the first bit where the inputs differ;
 * one key always gives the same pseudonyms, another key other ones; the key
 * file is refused when missing, short or readable by others; the sink hands
 * on rows with no original value left.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "satscope/anonymize.h"

static char *dup_s(sat_str s)
{
    char *p = malloc(s.len + 1);
    memcpy(p, s.ptr ? s.ptr : "", s.len);
    p[s.len] = '\0';
    return p;
}

static int contains(sat_str s, const char *needle)
{
    char *p = dup_s(s);
    int r = strstr(p, needle) != NULL;
    free(p);
    return r;
}

static int is_b32(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '2' && s[i] <= '7')))
            return 0;
    return 1;
}

/* Leading bits two addresses share. */
static int common_bits(const uint8_t *x, const uint8_t *y, int nbytes)
{
    int n = 0;
    for (int i = 0; i < nbytes * 8; i++) {
        if (((x[i / 8] >> (7 - i % 8)) & 1) != ((y[i / 8] >> (7 - i % 8)) & 1))
            break;
        n++;
    }
    return n;
}

static int addr_common(sat_anon *a, int family, const char *p, const char *q)
{
    uint8_t x[16], y[16];
    char *ps = dup_s(sat_anon_addr(a, sat_str_cstr(p)));
    char *qs = dup_s(sat_anon_addr(a, sat_str_cstr(q)));
    int ok = inet_pton(family, ps, x) == 1 && inet_pton(family, qs, y) == 1;
    free(ps);
    free(qs);
    return ok ? common_bits(x, y, family == AF_INET ? 4 : 16) : -1;
}

static void test_dn(sat_anon *a)
{
    sat_str d = sat_anon_dn(a, sat_str_cstr("uid=jdoe,ou=People,dc=example,dc=com"));
    CHECK_EQ_INT(d.len, strlen("uid=,ou=,dc=,dc=") + 4 * 12);
    CHECK(!memcmp(d.ptr, "uid=", 4));
    CHECK(contains(d, ",ou="));
    CHECK(contains(d, ",dc="));
    CHECK(!contains(d, "jdoe") && !contains(d, "People") && !contains(d, "example"));
    CHECK(is_b32(d.ptr + 4, 12));
    /* the same value under the same name gives the same pseudonym: both dc=com
     * and a DN written in another case */
    char *s1 = dup_s(d);
    sat_str d2 = sat_anon_dn(a, sat_str_cstr("UID=JDoe, ou=people, dc=Example, dc=COM"));
    char *s2 = dup_s(d2);
    CHECK(!memcmp(s1 + 4, s2 + 4, 12));
    CHECK(strstr(s2, ", ou=") != NULL); /* the spaces stay where they were */
    free(s1);
    free(s2);
    /* escapes and multi-valued RDNs */
    sat_str e = sat_anon_dn(a, sat_str_cstr("cn=Doe\\, John+uid=jd,dc=x"));
    CHECK(!contains(e, "Doe") && !contains(e, "John") && contains(e, "+uid="));
    CHECK_EQ_INT(e.len, strlen("cn=+uid=,dc=") + 3 * 12);
    /* absent and empty stay so */
    CHECK(sat_anon_dn(a, SAT_STR_NONE).ptr == NULL);
    CHECK_EQ_INT(sat_anon_dn(a, sat_str_cstr("")).len, 0);
}

static void test_filter(sat_anon *a)
{
    sat_str f = sat_anon_filter(a, sat_str_cstr("(&(objectClass=person)(uid=jdoe))"));
    CHECK(!contains(f, "person") && !contains(f, "jdoe"));
    CHECK(contains(f, "(&(objectClass=") && contains(f, ")(uid="));
    CHECK_EQ_INT(f.len, strlen("(&(objectClass=)(uid=))") + 2 * 12);
    /* wildcards keep their places, presence stays, operators stay */
    sat_str w = sat_anon_filter(a, sat_str_cstr("(|(cn=jo*n*)(mail=*)(age>=30)(!(sn~=smith)))"));
    char *ws = dup_s(w);
    CHECK(!strstr(ws, "jo") && !strstr(ws, "smith") && !strstr(ws, "30"));
    CHECK(strstr(ws, "(mail=*)") != NULL);
    CHECK(strstr(ws, "(age>=") != NULL && strstr(ws, "(!(sn~=") != NULL);
    /* (cn=jo*n*): pseudonym '*' pseudonym '*' */
    char *cn = strstr(ws, "(cn=");
    CHECK(cn && cn[4 + 12] == '*' && cn[4 + 12 + 1 + 12] == '*' && cn[4 + 26] == ')');
    free(ws);
    /* the value of a filter and the same value in a DN agree */
    sat_str f1 = sat_anon_filter(a, sat_str_cstr("(uid=jdoe)"));
    sat_str d1 = sat_anon_dn(a, sat_str_cstr("uid=jdoe"));
    CHECK(f1.len == 5 + 12 + 1 && d1.len == 4 + 12 && !memcmp(f1.ptr + 5, d1.ptr + 4, 12));
}

static void test_addr(sat_anon *a)
{
    /* IPv4: a shared /24 is kept exactly; the /25 bit differs there */
    CHECK_EQ_INT(addr_common(a, AF_INET, "192.0.2.10", "192.0.2.99"), 25);
    CHECK_EQ_INT(addr_common(a, AF_INET, "192.0.2.10", "192.0.2.200"), 24);
    CHECK_EQ_INT(addr_common(a, AF_INET, "10.1.2.3", "10.1.200.3"), 16);
    CHECK_EQ_INT(addr_common(a, AF_INET, "10.1.2.3", "138.1.2.3"), 0);
    /* IPv6 */
    CHECK_EQ_INT(addr_common(a, AF_INET6, "2001:db8:1:2::1", "2001:db8:1:2::ff"), 120);
    CHECK_EQ_INT(addr_common(a, AF_INET6, "2001:db8:1:2::1", "2001:db8:1:3::1"), 63);
    /* the address itself is replaced; ports, brackets and "local" stay */
    sat_str v4 = sat_anon_addr(a, sat_str_cstr("192.0.2.10"));
    CHECK(!contains(v4, "192.0.2"));
    sat_str p4 = sat_anon_addr(a, sat_str_cstr("192.0.2.10:389"));
    char *v4s = dup_s(v4);
    CHECK(p4.len == v4.len + 4 && !memcmp(p4.ptr, v4s, v4.len) && contains(p4, ":389"));
    free(v4s);
    sat_str p6 = sat_anon_addr(a, sat_str_cstr("[2001:db8::1]:636"));
    CHECK(p6.ptr[0] == '[' && contains(p6, "]:636") && !contains(p6, "2001:db8::1]"));
    CHECK_EQ_SSTR(sat_anon_addr(a, sat_str_cstr("local")), "local");
    sat_str sock = sat_anon_addr(a, sat_str_cstr("/run/slapd-acme.socket"));
    CHECK(sock.len == 12 && is_b32(sock.ptr, 12));
}

static void test_http(sat_anon *a)
{
    sat_str p = sat_anon_http_path(a, sat_str_cstr("/users/42/orders?id=jdoe&x=1"),
                                   sat_str_cstr("/users/{n}/orders"));
    char *s = dup_s(p);
    CHECK(!strncmp(s, "/users/", 7) && strstr(s, "/orders?id=") && strstr(s, "&x="));
    CHECK(!strstr(s, "42") && !strstr(s, "jdoe"));
    free(s);
    sat_str h = sat_anon_host(a, sat_str_cstr("ldap.acme.example"));
    CHECK_EQ_INT(h.len, 3 * 12 + 2);
    CHECK(!contains(h, "acme"));
}

/* Pseudonyms of a few values under key k, concatenated. */
static char *sample(const char *k)
{
    sat_diag d = {0};
    sat_anon *a = sat_anon_create(k, strlen(k), &d);
    if (!a)
        return strdup("");
    char buf[512];
    char *x = dup_s(sat_anon_dn(a, sat_str_cstr("uid=jdoe,dc=example,dc=com")));
    char *y = dup_s(sat_anon_addr(a, sat_str_cstr("192.0.2.10")));
    char *z = dup_s(sat_anon_filter(a, sat_str_cstr("(cn=Jo*)")));
    snprintf(buf, sizeof buf, "%s|%s|%s", x, y, z);
    free(x);
    free(y);
    free(z);
    sat_anon_free(a);
    return strdup(buf);
}

static void test_keys(void)
{
    const char *k1 = "0123456789abcdef0123456789abcdef";
    const char *k2 = "0123456789abcdef0123456789abcdeF";
    char *a1 = sample(k1), *a2 = sample(k1), *b1 = sample(k2);
    CHECK_EQ_STR(a1, a2);                 /* deterministic for a key */
    CHECK(strcmp(a1, b1) != 0);           /* another key, other pseudonyms */
    /* every part differs, not only one */
    CHECK(strncmp(a1 + 4, b1 + 4, 12) != 0);
    CHECK(strchr(a1, '|') && strcmp(strchr(a1, '|'), strchr(b1, '|')) != 0);
    free(a1);
    free(a2);
    free(b1);
    sat_diag d = {0};
    CHECK(sat_anon_create("short", 5, &d) == NULL && d.code == SAT_E_USAGE);
}

static void test_keyfile(void)
{
    char path[] = "/tmp/sat_anon_keyXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(write(fd, "0123456789abcdef", 16) == 16);
    sat_diag d = {0};
    fchmod(fd, 0600);
    CHECK(sat_anon_open_keyfile(path, &d) == NULL && d.code == SAT_E_USAGE); /* short */
    CHECK(write(fd, "0123456789abcdef", 16) == 16);
    memset(&d, 0, sizeof d);
    sat_anon *a = sat_anon_open_keyfile(path, &d);
    CHECK(a != NULL);
    sat_anon_free(a);
    fchmod(fd, 0644);
    memset(&d, 0, sizeof d);
    CHECK(sat_anon_open_keyfile(path, &d) == NULL && d.code == SAT_E_USAGE); /* o+r */
    close(fd);
    unlink(path);
    memset(&d, 0, sizeof d);
    CHECK(sat_anon_open_keyfile(path, &d) == NULL && d.code == SAT_E_USAGE); /* missing */
}

/* The sink: a row's strings are replaced before the next sink sees it. */
static int got_ok;
static int next_row(void *ctx, int table, const void *row)
{
    (void)ctx;
    if (table == SAT_TABLE_LDAP_OP) {
        const sat_ldap_op *op = row;
        got_ok = !contains(op->dn, "example") && !contains(op->bind_dn, "jdoe") &&
                 !contains(op->filter, "smith") && !contains(op->client_ip, "192.0.2") &&
                 contains(op->filter_shape, "(sn=*)") && op->err == 32;
    } else if (table == SAT_TABLE_REJECT) {
        const sat_reject *r = row;
        got_ok = r->excerpt.len == 0 && contains(r->reason, "no timestamp");
    }
    return SAT_OK;
}

static void test_sink(sat_anon *a)
{
    sat_event_sink next = {NULL, SAT_TABLES_ALL, next_row};
    sat_event_sink s = sat_anon_sink(a, &next);
    CHECK_EQ_INT(s.tables, SAT_TABLES_ALL);
    sat_ldap_op op;
    memset(&op, 0, sizeof op);
    op.type = SAT_OP_SRCH;
    op.err = 32;
    op.dn = sat_str_cstr("dc=example,dc=com");
    op.bind_dn = sat_str_cstr("uid=jdoe,dc=example,dc=com");
    op.filter = sat_str_cstr("(sn=smith)");
    op.filter_shape = sat_str_cstr("(sn=*)");
    op.client_ip = sat_str_cstr("192.0.2.10");
    got_ok = 0;
    CHECK_EQ_INT(sat_sink_emit(&s, SAT_TABLE_LDAP_OP, &op), SAT_OK);
    CHECK(got_ok);
    sat_reject r = {1, 7, sat_str_cstr("no timestamp"), sat_str_cstr("uid=jdoe 192.0.2.10")};
    got_ok = 0;
    CHECK_EQ_INT(sat_sink_emit(&s, SAT_TABLE_REJECT, &r), SAT_OK);
    CHECK(got_ok);
}

int main(void)
{
    const char *key = "a test key of thirty-two bytes!!";
    sat_diag d = {0};
    sat_anon *a = sat_anon_create(key, strlen(key), &d);
    CHECK(a != NULL);
    if (!a)
        return 1;
    test_dn(a);
    test_filter(a);
    test_addr(a);
    test_http(a);
    test_sink(a);
    sat_anon_free(a);
    test_keys();
    test_keyfile();
    return CHECK_DONE();
}
