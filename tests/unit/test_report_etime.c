/*
 * test_report_etime.c - the etime renderers (report/report_etime.c) and the
 * JSON writer (report/json_writer.c): the JSON is valid (a small strict
 * RFC 8259 validator below) and has the keys and values, hostile
 * strings (quotes, control bytes, invalid UTF-8) are escaped, text has its
 * sections, CSV has its header and rows, and output is deterministic.
 */
#include <math.h>

#include "check.h"
#include "satscope/parse.h"
#include "satscope/report.h"

#define S 1000000000LL
#define T0 (1749366000LL * S) /* 2025-06-08T07:00:00Z */

/* ---- a strict JSON validator ------------------------------------------------------ */
static const char *jv_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}
static const char *jv_value(const char *p, int depth);
static const char *jv_string(const char *p)
{
    if (*p != '"')
        return NULL;
    p++;
    while (*p != '"') {
        unsigned char c = (unsigned char)*p;
        if (c == 0 || c < 0x20)
            return NULL;
        if (c == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
                        return NULL;
                p += 5;
                continue;
            }
            if (!*p || !strchr("\"\\/bfnrt", *p))
                return NULL;
            p++;
            continue;
        }
        if (c >= 0x80) { /* well-formed UTF-8 only: decode and range-check */
            int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
            if (n < 0 || c > 0xF4)
                return NULL;
            uint32_t cp = c & (0x3Fu >> n);
            for (int i = 1; i <= n; i++) {
                if (((unsigned char)p[i] & 0xC0) != 0x80)
                    return NULL;
                cp = (cp << 6) | ((unsigned char)p[i] & 0x3Fu);
            }
            static const uint32_t min_cp[4] = {0, 0x80, 0x800, 0x10000};
            if (cp < min_cp[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                return NULL;
            p += n + 1;
            continue;
        }
        p++;
    }
    return p + 1;
}
static const char *jv_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return NULL;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return p;
}
static const char *jv_value(const char *p, int depth)
{
    if (depth > 64)
        return NULL;
    p = jv_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int obj = *p == '{';
        p = jv_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                p = jv_string(jv_ws(p));
                if (!p)
                    return NULL;
                p = jv_ws(p);
                if (*p != ':')
                    return NULL;
                p++;
            }
            p = jv_value(p, depth + 1);
            if (!p)
                return NULL;
            p = jv_ws(p);
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == close)
                return p + 1;
            return NULL;
        }
    }
    if (*p == '"')
        return jv_string(p);
    if (!strncmp(p, "null", 4))
        return p + 4;
    if (!strncmp(p, "true", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    return jv_number(p);
}
static int json_valid(const char *s)
{
    const char *p = jv_value(s, 0);
    return p && *jv_ws(p) == '\0';
}

/* ---- helpers ------------------------------------------------------------------------ */
static char *render(const sat_etime *e, int fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_diag d;
    memset(&d, 0, sizeof d);
    int rc = sat_report_etime(e, fmt, f, &d);
    fclose(f);
    CHECK_EQ_INT(rc, 0);
    return buf;
}

static sat_ldap_op mkop(int type, int64_t conn, sat_ts_ns ts, int err, sat_dur_ns etime)
{
    /* start from "nothing known", as a parser would */
    sat_ldap_record blank;
    sat_ldap_record_clear(&blank);
    sat_ldap_op o = blank.op_fields;
    o.ts_ns = ts;
    o.conn = conn;
    o.op = 1;
    o.type = (uint8_t)type;
    o.scope = SAT_SCOPE_SUB;
    o.err = err;
    o.etime = etime;
    o.client_ip = sat_str_cstr("10.0.0.1");
    o.bind_dn = sat_str_cstr("");
    return o;
}

static sat_etime *sample(int by)
{
    sat_etime_opts o;
    memset(&o, 0, sizeof o);
    o.by = by;
    sat_etime *e = sat_etime_create(&o);
    sat_event_sink k = sat_etime_sink(e);
    for (int i = 0; i < 50; i++) {
        sat_ldap_op op = mkop(SAT_OP_SRCH, 1 + i % 4, T0 + i * S, i == 7 ? 32 : 0,
                              (sat_dur_ns)(i + 1) * 1000000);
        op.wtime = 100000;
        op.optime = op.etime - 100000;
        op.dn = sat_str_cstr("dc=example,dc=com");
        op.filter = sat_str_cstr("(uid=\"quoted\"\\back)");
        op.filter_shape = sat_str_cstr("(uid=*)");
        if (i == 3) {
            op.notes = SAT_NOTE_A | SAT_NOTE_P;
            /* hostile bytes in a logged filter: tab, ESC, invalid UTF-8, é */
            op.filter = sat_str_cstr("(cn=a\tb\x1b\xff\xc3\xa9)");
        }
        sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &op);
    }
    sat_ldap_op b = mkop(SAT_OP_BIND, 9, T0 + 5 * S, 49, 2000000);
    b.dn = sat_str_cstr("cn=Directory Manager");
    b.method = sat_str_cstr("SIMPLE");
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &b);
    sat_ldap_op u = mkop(SAT_OP_UNBIND, 9, T0 + 6 * S, SAT_ABSENT, SAT_ABSENT);
    sat_sink_emit(&k, SAT_TABLE_LDAP_OP, &u);
    sat_ldap_conn c;
    memset(&c, 0, sizeof c);
    c.open_ts = T0;
    c.close_ts = T0 + 10 * S;
    c.conn = 9;
    c.fd = 64;
    c.listener = SAT_LISTENER_LDAPS;
    c.close_code = SAT_CLOSE_U1;
    c.tls_version = sat_str_cstr("TLS1.3");
    sat_sink_emit(&k, SAT_TABLE_LDAP_CONN, &c);
    sat_source s;
    memset(&s, 0, sizeof s);
    s.path = sat_str_cstr("access");
    s.format = sat_str_cstr("389-text");
    s.compression = sat_str_cstr("none");
    s.lines = 123;
    s.rejects = 2;
    sat_sink_emit(&k, SAT_TABLE_SOURCE, &s);
    CHECK_EQ_INT(sat_etime_finish(e), 0);
    return e;
}

static void test_json(void)
{
    sat_etime *e = sample(SAT_ETIME_BY_NONE);
    char *j = render(e, SAT_REPORT_JSON);
    CHECK(json_valid(j));
    const char *keys[] = {"\"rejects\": 2", "\"span\": {", "\"first\": \"2025-06-08T07:00:00Z\"",
                          "\"last\": \"2025-06-08T07:00:49Z\"", "\"seconds\": 49",
                          "\"ops\": [", "\"op\": \"SRCH\"", "\"mean_s\": 0.0255",
                          "\"p50_s\": 0.025,", "\"p90_s\": 0.045,", "\"p99_s\": 0.05,",
                          "\"p999_s\": 0.05,", "\"max_s\": 0.05,", "\"wtime_mean_s\": 0.0001,",
                          "\"optime_mean_s\": ", "\"share\": ", "\"total_s\": ",
                          "\"all\": {", "\"connections\": {", "\"peak_concurrent\": 1",
                          "\"by_listener\": {\"LDAP\": 0, \"LDAPS\": 1, \"LDAPI\": 0, \"StartTLS\": 0}",
                          "\"by_close_code\": {\"U1\": 1}", "\"errors\": {", "\"32\": 1",
                          "\"49\": 1", "\"notes\": {", "\"A\": 1", "\"P\": 1",
                          "\"op\": \"UNBIND\", \"count\": 1, \"results\": 0, \"errors\": 0, \"rate\": 0.020408, \"mean_s\": null",
                          "\"root_dn\": 1", "\"failed\": 1", "\"unindexed\": {",
                          "\"minutes\": [", "\"TLS1.3\": 1",
                          /* escaping */
                          "(uid=\\\"quoted\\\"\\\\back)", "(cn=a\\tb\\u001b\\ufffd\xc3\xa9)"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (!strstr(j, keys[i]))
            fprintf(stderr, "JSON lacks: %s\n", keys[i]);
        CHECK(strstr(j, keys[i]) != NULL);
    }
    /* deterministic */
    char *j2 = render(e, SAT_REPORT_JSON);
    CHECK_EQ_STR(j, j2);
    free(j2);
    free(j);
    sat_etime_free(e);

    e = sample(SAT_ETIME_BY_FILTER);
    j = render(e, SAT_REPORT_JSON);
    CHECK(json_valid(j));
    CHECK(strstr(j, "\"groups\": [") != NULL);
    CHECK(strstr(j, "\"ops\": [") == NULL);
    CHECK(strstr(j, "\"key\": \"(uid=*)\", \"count\": 50") != NULL);
    CHECK(strstr(j, "\"key\": \"[BIND]\"") != NULL);
    free(j);
    sat_etime_free(e);

    /* empty analyzer: valid JSON, nulls */
    e = sat_etime_create(NULL);
    sat_etime_finish(e);
    j = render(e, SAT_REPORT_JSON);
    CHECK(json_valid(j));
    CHECK(strstr(j, "\"first\": null") != NULL);
    CHECK(strstr(j, "\"mean_s\": null") != NULL);
    free(j);
    sat_etime_free(e);
}

static void test_text_and_csv(void)
{
    sat_etime *e = sample(SAT_ETIME_BY_NONE);
    char *t = render(e, SAT_REPORT_TEXT);
    const char *sections[] = {"satscope etime: 1 input, 123 lines, span 2025-06-08T07:00:00Z",
                              "2 rejected lines", "Where the time went, by operation type",
                              "Operations", "Connections", "Peak concurrent connections:",
                              " - on LDAPS:", "Close codes", "Result codes", "err=49",
                              "invalidCredentials", "Notes", "Unindexed searches",
                              "Binds", "Root DN (Directory Manager) binds:", "Failed binds by DN",
                              "cn=directory manager", "Top clients", "Top bind DNs",
                              "Top search bases", "Top search filters", "Per minute",
                              "Secure protocol versions"};
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        if (!strstr(t, sections[i]))
            fprintf(stderr, "text lacks: %s\n", sections[i]);
        CHECK(strstr(t, sections[i]) != NULL);
    }
    CHECK(strchr(t, '\x1b') == NULL); /* control bytes never reach the terminal */
    free(t);
    char *c = render(e, SAT_REPORT_CSV);
    CHECK(strncmp(c, "op,count,results,errors,rate,mean_s,p50_s,p90_s,p99_s,p999_s,max_s,"
                     "total_s,share,wtime_mean_s,optime_mean_s\n", 108) == 0);
    CHECK(strstr(c, "\nSRCH,50,50,1,") != NULL);
    CHECK(strstr(c, "\nUNBIND,1,0,0,0.020408,,,,,,,,,,\n") != NULL);
    CHECK(strstr(c, "\nall,51,") != NULL);
    free(c);
    sat_etime_free(e);

    e = sample(SAT_ETIME_BY_BASE);
    c = render(e, SAT_REPORT_CSV);
    CHECK(strncmp(c, "base,count", 10) == 0);
    CHECK(strstr(c, "\"dc=example,dc=com\",50,") != NULL); /* RFC 4180 quoting */
    free(c);
    t = render(e, SAT_REPORT_TEXT);
    CHECK(strstr(t, "Where the time went, by base") != NULL);
    free(t);
    sat_etime_free(e);

    /* not finished -> usage error, nothing printed */
    e = sat_etime_create(NULL);
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(sat_report_etime(e, SAT_REPORT_TEXT, stdout, &d) == SAT_E_USAGE);
    sat_etime_free(e);
}

static void test_json_writer(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_json j;
    sat_json_init(&j, f);
    sat_json_object(&j, NULL);
    sat_json_strn(&j, "s", "a\0b\"\\\x7f\xed\xa0\x80\xf0\x9f\x98\x80", 13);
    sat_json_num(&j, "n", 1.50, 9);
    sat_json_num(&j, "z", -0.0000000001, 9);
    sat_json_num(&j, "nan", NAN, 9);
    sat_json_array(&j, "empty");
    sat_json_end(&j);
    sat_json_end(&j);
    CHECK_EQ_INT(sat_json_finish(&j), 0);
    fclose(f);
    CHECK(json_valid(buf));
    /* NUL -> \u0000, DEL escaped, a UTF-16 surrogate encoded in UTF-8 is
     * invalid (3 replacement chars), the emoji passes through */
    CHECK(strstr(buf, "\"a\\u0000b\\\"\\\\\\u007f\\ufffd\\ufffd\\ufffd\xf0\x9f\x98\x80\"") != NULL);
    CHECK(strstr(buf, "\"n\": 1.5") != NULL);
    CHECK(strstr(buf, "\"z\": 0") != NULL);
    CHECK(strstr(buf, "\"nan\": null") != NULL);
    CHECK(strstr(buf, "\"empty\": []") != NULL);
    free(buf);
    char ts[48];
    sat_report_fmt_ts(ts, sizeof ts, T0 + 123456789);
    CHECK_EQ_STR(ts, "2025-06-08T07:00:00.123456789Z");
    sat_report_fmt_ts(ts, sizeof ts, T0 + 500000000);
    CHECK_EQ_STR(ts, "2025-06-08T07:00:00.5Z");
    CHECK(sat_renderer_find("etime", SAT_REPORT_JSON) != NULL);
    CHECK_EQ_INT(sat_report_fmt_parse("csv"), SAT_REPORT_CSV);
}

/* a document opens with the schema key; times are RFC 3339 UTC strings with the
 * precision known, null when not known (docs/output.md) */
static void test_json_document_and_times(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_json j;
    sat_json_init(&j, f);
    sat_json_document(&j);
    sat_json_ts(&j, "ns_ts", T0 + 1324512);
    sat_json_ts(&j, "whole_ts", T0);
    sat_json_ts(&j, "ms_ts", T0 + 120000000);
    sat_json_ts(&j, "none_ts", 0);
    sat_json_end(&j);
    CHECK_EQ_INT(sat_json_finish(&j), 0);
    fclose(f);
    CHECK(json_valid(buf));
    static const char head[] = "{\n  \"schema\": \"" SAT_JSON_SCHEMA "\",\n";
    CHECK(strncmp(buf, head, sizeof head - 1) == 0);
    CHECK(strstr(buf, "\"ns_ts\": \"2025-06-08T07:00:00.001324512Z\"") != NULL);
    CHECK(strstr(buf, "\"whole_ts\": \"2025-06-08T07:00:00Z\"") != NULL);
    CHECK(strstr(buf, "\"ms_ts\": \"2025-06-08T07:00:00.12Z\"") != NULL);
    CHECK(strstr(buf, "\"none_ts\": null") != NULL);
    free(buf);
}

/* random bytes (a cheap fuzz): the writer's output always validates */
static void test_json_random_bytes(void)
{
    uint64_t r = 0x9e3779b97f4a7c15ULL;
    int bad = 0;
    for (int round = 0; round < 2000; round++) {
        unsigned char in[64];
        size_t n = (size_t)(round % 64);
        for (size_t i = 0; i < n; i++) {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            in[i] = (unsigned char)r;
            if (round % 3 == 0 && in[i] < 0x80) /* more multi-byte lead bytes */
                in[i] |= 0xC0;
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        sat_json j;
        sat_json_init(&j, f);
        sat_json_object(&j, NULL);
        sat_json_strn(&j, (const char *)"k", (const char *)in, n);
        sat_json_end(&j);
        sat_json_finish(&j);
        fclose(f);
        if (!json_valid(buf) || strlen(buf) != len)
            bad++;
        free(buf);
    }
    CHECK_EQ_INT(bad, 0);
}

int main(void)
{
    test_json_random_bytes();
    test_json_writer();
    test_json_document_and_times();
    test_json();
    test_text_and_csv();
    return CHECK_DONE();
}
