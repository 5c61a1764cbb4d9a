/*
 * test_report_etime.c - the etime report through its result sections
 * (analyze/etime_result.c, rendered by the one JSON and CSV writer and
 * report/sections/section_etime*.c) and the JSON writer (report/json_writer.c): the JSON
 * is valid (a small strict RFC 8259 validator below) and has the documented
 * keys and values (times in *_ts, a grouped table's key column named after
 * its dimension, --by op the same document as the default), hostile strings
 * (quotes, control bytes, invalid UTF-8) are escaped, text has its sections
 * within 100 columns, CSV has its header and rows, every table of the result
 * is a CSV table the CLI knows, and output is deterministic.
 */
#include <math.h>

#include "check.h"
#include "satscope/parse.h"
#include "satscope/analyze.h"
#include "satscope/report.h"
#include "result_check.h"

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
/* The report of a finished analyzer in fmt (for CSV: table `csv`, NULL for
 * the main one), through its result; NULL when it cannot be built. */
static char *render_csv(const sat_etime *e, int fmt, const char *csv, int wide)
{
    sat_result *r = sat_result_new("etime");
    if (!r || sat_etime_result(e, r) != SAT_OK) {
        sat_result_free(r);
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_diag d;
    memset(&d, 0, sizeof d);
    int rc;
    if (fmt == SAT_REPORT_JSON) {
        rc = sat_result_json(r, f, &d);
    } else if (fmt == SAT_REPORT_CSV) {
        rc = sat_result_csv(r, csv, f, &d);
    } else {
        /* the command's text, as it prints it */
        char *t = rc_render(r, wide ? AS_TEXT_WIDE : AS_TEXT, NULL);
        rc = t ? SAT_OK : SAT_E_NOMEM;
        if (t)
            fputs(t, f);
        free(t);
    }
    fclose(f);
    sat_result_free(r);
    CHECK_EQ_INT(rc, 0);
    return buf;
}

static char *render(const sat_etime *e, int fmt) { return render_csv(e, fmt, NULL, 0); }

/* The longest line of s. */
static size_t longest_line(const char *s)
{
    size_t best = 0;
    while (*s) {
        size_t l = strcspn(s, "\n");
        if (l > best)
            best = l;
        s += l;
        if (*s)
            s++;
    }
    return best;
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
    const char *keys[] = {"\"schema\": \"satscope/2\"", "\"command\": \"etime\"",
                          "\"by\": \"op\"", "\"rejects\": 2",
                          "\"first_ts\": \"2025-06-08T07:00:00Z\"",
                          "\"last_ts\": \"2025-06-08T07:00:49Z\"", "\"span_s\": 49",
                          "\"ops\": [", "\"op\": \"SRCH\"", "\"mean_s\": 0.0255",
                          "\"p50_s\": 0.025,", "\"p90_s\": 0.045,", "\"p99_s\": 0.05,",
                          "\"p999_s\": 0.05,", "\"max_s\": 0.05,", "\"wtime_mean_s\": 0.0001,",
                          "\"optime_mean_s\": ", "\"share\": ", "\"total_s\": ",
                          "{\"op\": \"all\", \"count\": 51,", "\"connection_stats\": {",
                          "\"peak_concurrent\": 1",
                          "\"by_listener\": {\"LDAP\": 0, \"LDAPS\": 1, \"LDAPI\": 0, \"StartTLS\": 0}",
                          "{\"close_code\": \"U1\", \"count\": 1,", "\"result_codes\": [",
                          "{\"result_code\": 32, \"count\": 1, \"name\": \"noSuchObject\"}",
                          "{\"result_code\": 49, \"count\": 1,", "\"note_counts\": [",
                          "{\"note\": \"A\", \"count\": 1,", "{\"note\": \"P\", \"count\": 1,",
                          "\"op\": \"UNBIND\", \"count\": 1, \"results\": 0, \"errors\": 0, \"rate_per_s\": 0.020408, \"mean_s\": null",
                          "\"root_dn\": 1", "\"failed\": 1", "\"unindexed\": {",
                          "\"window_s\": 60", "\"windows\": [",
                          "{\"start_ts\": \"2025-06-08T07:00:00Z\", \"count\": 52, \"errors\": 2,",
                          "{\"version\": \"TLS1.3\", \"cipher\": null, \"count\": 1}",
                          "{\"path\": \"access\", \"format\": \"389-text\"",
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

    /* --by op groups by op as the default does: the same document */
    e = sample(SAT_ETIME_BY_NONE);
    j = render(e, SAT_REPORT_JSON);
    sat_etime *e2 = sample(SAT_ETIME_BY_OP);
    j2 = render(e2, SAT_REPORT_JSON);
    CHECK_EQ_STR(j, j2);
    CHECK(strstr(j, "\"groups\"") == NULL);
    free(j2);
    free(j);
    sat_etime_free(e2);
    sat_etime_free(e);

    e = sample(SAT_ETIME_BY_FILTER);
    j = render(e, SAT_REPORT_JSON);
    CHECK(json_valid(j));
    CHECK(strstr(j, "\"by\": \"filter\"") != NULL);
    CHECK(strstr(j, "\"groups\": [") != NULL);
    CHECK(strstr(j, "\"ops\": [") != NULL);
    CHECK(strstr(j, "{\"filter\": \"(uid=*)\", \"count\": 50") != NULL);
    CHECK(strstr(j, "{\"filter\": \"[BIND]\"") != NULL);
    CHECK(strstr(j, "\"key\"") == NULL);
    free(j);
    sat_etime_free(e);

    /* the key column is named after the dimension, in JSON and CSV alike */
    e = sample(SAT_ETIME_BY_CLIENT);
    j = render(e, SAT_REPORT_JSON);
    CHECK(strstr(j, "{\"client\": \"10.0.0.1\", \"count\": 52,") != NULL);
    free(j);
    j = render(e, SAT_REPORT_CSV);
    CHECK(strncmp(j, "client,count,results,errors,rate_per_s,", 39) == 0);
    free(j);
    sat_etime_free(e);

    /* minutes are a time series: the key column is the window's start */
    e = sample(SAT_ETIME_BY_MINUTE);
    j = render(e, SAT_REPORT_JSON);
    CHECK(strstr(j, "\"by\": \"minute\"") != NULL);
    CHECK(strstr(j, "{\"start_ts\": \"2025-06-08T07:00:00Z\", \"count\": 52, \"results\": 51,") !=
          NULL);
    free(j);
    sat_etime_free(e);

    /* empty analyzer: valid JSON, nulls */
    e = sat_etime_create(NULL);
    sat_etime_finish(e);
    j = render(e, SAT_REPORT_JSON);
    CHECK(json_valid(j));
    CHECK(strstr(j, "\"first_ts\": null") != NULL);
    CHECK(strstr(j, "\"mean_s\": null") != NULL);
    free(j);
    sat_etime_free(e);
}

static void test_text_and_csv(void)
{
    sat_etime *e = sample(SAT_ETIME_BY_NONE);
    char *t = render(e, SAT_REPORT_TEXT);
    const char *sections[] = {"satscope etime: 52 operations in 1 input (123 lines, 2 rejected)",
                              "  from 2025-06-08T07:00:00Z to 2025-06-08T07:00:49Z (49.0 s)",
                              "Where the time went, by operation type",
                              /* 102 columns: in two parts under the op column */
                              "  SRCH       50  25.5 ms  25.0 ms  45.0 ms  50.0 ms\n",
                              "  SRCH    50.0 ms   1.27 s   99.8%  100 us  25.4 ms       1\n",
                              "Operations", "Connections", "Peak concurrent connections ",
                              " - on LDAPS ", "Close codes", "Result codes", "   49      1",
                              "invalidCredentials", "Notes", "Unindexed searches",
                              "Binds", "Root DN (Directory Manager) binds ", "Failed binds by DN",
                              "cn=directory manager", "Top clients", "Top bind DNs",
                              "Top search bases", "Top search filters", "Per minute",
                              "Secure protocol versions",
                              "  Average etime                      25.0 ms",
                              "  Binds                                    1  (0.0204/s, 1.22/min)"};
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        if (!strstr(t, sections[i]))
            fprintf(stderr, "text lacks: %s\nin:\n%s\n", sections[i], t);
        CHECK(strstr(t, sections[i]) != NULL);
    }
    CHECK(strchr(t, '\x1b') == NULL); /* control bytes never reach the terminal */
    CHECK(longest_line(t) <= 100);
    CHECK(strstr(t, "1 lines") == NULL && strstr(t, "1 inputs") == NULL);
    free(t);
    /* --wide: every column of the grouped tables */
    t = render_csv(e, SAT_REPORT_TEXT, NULL, 1);
    CHECK(strstr(t, "p99.9") != NULL && strstr(t, "rate") != NULL);
    free(t);
    char *c = render(e, SAT_REPORT_CSV);
    CHECK(strncmp(c, "op,count,results,errors,rate_per_s,mean_s,p50_s,p90_s,p99_s,p999_s,max_s,"
                     "total_s,share,wtime_mean_s,optime_mean_s\n", 114) == 0);
    CHECK(strstr(c, "\nSRCH,50,50,1,") != NULL);
    CHECK(strstr(c, "\nUNBIND,1,0,0,0.020408,,,,,,,,,,\n") != NULL);
    CHECK(strstr(c, "\nall,51,") != NULL);
    free(c);
    /* any table by its path */
    c = render_csv(e, SAT_REPORT_CSV, "top.clients", 0);
    CHECK(strncmp(c, "client,count,total_s\n10.0.0.1,52,", 33) == 0);
    free(c);
    c = render_csv(e, SAT_REPORT_CSV, "result_codes", 0);
    CHECK(strstr(c, "result_code,count,name\n") == c && strstr(c, "\n49,1,invalidCredentials\n"));
    free(c);
    sat_etime_free(e);

    e = sample(SAT_ETIME_BY_BASE);
    c = render(e, SAT_REPORT_CSV);
    CHECK(strncmp(c, "base,count", 10) == 0);
    CHECK(strstr(c, "\"dc=example,dc=com\",50,") != NULL); /* RFC 4180 quoting */
    free(c);
    t = render(e, SAT_REPORT_TEXT);
    CHECK(strstr(t, "Where the time went, by base") != NULL);
    CHECK(longest_line(t) <= 100);
    free(t);
    sat_etime_free(e);

    /* not finished -> usage error, nothing built */
    e = sat_etime_create(NULL);
    sat_result *r = sat_result_new("etime");
    CHECK(sat_etime_result(e, r) == SAT_E_USAGE);
    sat_result_free(r);
    sat_etime_free(e);
}

/* Every table of a built result is one the CLI offers for --csv NAME (the
 * registry's list, which exists before the result), and the list holds no
 * table a result never has. */
static void test_csv_tables(void)
{
    const char *const *csv_tables = sat_csv_tables("etime");
    CHECK(csv_tables != NULL);
    if (!csv_tables)
        return;
    static const int bys[] = {SAT_ETIME_BY_NONE, SAT_ETIME_BY_FILTER, SAT_ETIME_BY_INTERNAL};
    int seen[64] = {0};
    size_t nlist = 0;
    while (csv_tables[nlist])
        nlist++;
    CHECK(nlist < 64);
    /* and HTTP requests, alone (their sections at the root) and beside the
     * operations (the "http" object) */
    for (size_t b = 0; b < sizeof bys / sizeof bys[0] + 2; b++) {
        int http = b >= sizeof bys / sizeof bys[0];
        sat_etime *e = http && b % 2 ? sat_etime_create(NULL) : sample(http ? 0 : bys[b]);
        if (http) {
            sat_http_req q;
            memset(&q, 0, sizeof q);
            q.ts = T0;
            q.status = 404;
            q.response_time = 1000;
            q.upstream_time = q.bytes = q.conn = q.conn_request = SAT_ABSENT;
            q.method = sat_str_cstr("GET");
            q.path = q.path_template = sat_str_cstr("/x");
            sat_event_sink k = sat_etime_sink(e);
            sat_sink_emit(&k, SAT_TABLE_HTTP_REQ, &q);
            CHECK_EQ_INT(sat_etime_finish(e), 0);
        }
        sat_result *r = sat_result_new("etime");
        CHECK_EQ_INT(sat_etime_result(e, r), 0);
        const char *const *paths;
        size_t n;
        sat_result_tables(r, &paths, &n);
        for (size_t i = 0; i < n; i++) {
            size_t k = 0;
            while (k < nlist && strcmp(csv_tables[k], paths[i]) != 0)
                k++;
            if (k == nlist)
                fprintf(stderr, "table %s is not in the CSV list\n", paths[i]);
            CHECK(k < nlist);
            if (k < nlist)
                seen[k] = 1;
        }
        sat_result_free(r);
        sat_etime_free(e);
    }
    for (size_t k = 0; k < nlist; k++) {
        if (!seen[k])
            fprintf(stderr, "CSV table %s is in no result\n", csv_tables[k]);
        CHECK(seen[k]);
    }
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
    sat_fmt_ts(ts, sizeof ts, T0 + 123456789);
    CHECK_EQ_STR(ts, "2025-06-08T07:00:00.123456789Z");
    sat_fmt_ts(ts, sizeof ts, T0 + 500000000);
    CHECK_EQ_STR(ts, "2025-06-08T07:00:00.5Z");
    /* a duration that rounds up to the next unit is said in it (the internal
     * operations' "1.00 s", never "1000 ms") */
    sat_fmt_duration(ts, sizeof ts, 0.99997);
    CHECK_EQ_STR(ts, "1.00 s");
    sat_fmt_duration(ts, sizeof ts, 0.000330);
    CHECK_EQ_STR(ts, "330 us");
    CHECK(sat_csv_tables("etime") != NULL);
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
    test_csv_tables();
    return CHECK_DONE();
}
