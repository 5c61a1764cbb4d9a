/*
 * test_result.c - the result model (analyze/result.c) and its writers
 * (report/result_json.c, result_csv.c, result_text.c): units decide each
 * form, dotted columns nest in JSON, absent values are null / empty / "-",
 * text units have three significant figures, tables fit 100 columns, and a
 * row given a value of the wrong unit is an error, not a silent output.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

#define S 1000000000LL

typedef int (*write_fn)(sat_result *r, FILE *f);

static char *render(sat_result *r, write_fn fn)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = fn(r, f);
    fclose(f);
    if (rc < 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The widest line of buf, in display columns. */
static size_t rc_widest_of(const char *buf)
{
    size_t col = 0, widest = 0;
    for (const char *p = buf; p && *p; p++) {
        if (*p == '\n')
            col = 0;
        else if (((unsigned char)*p & 0xc0) != 0x80 && ++col > widest)
            widest = col;
    }
    return widest;
}

static int w_json(sat_result *r, FILE *f) { return sat_result_json(r, f, NULL); }
static int w_csv(sat_result *r, FILE *f) { return sat_result_csv(r, NULL, f, NULL); }
static int w_csv_windows(sat_result *r, FILE *f) { return sat_result_csv(r, "tcp.windows", f, NULL); }

static const sat_col crash_cols[] = {
    {"ts", SAT_UNIT_TIME, 0, NULL},
    {"sender.pid", SAT_UNIT_INT, 0, NULL},
    {"sender.name", SAT_UNIT_TEXT, 0, NULL},
    {"wait_s", SAT_UNIT_DURATION, 6, "wait"},
    {"share", SAT_UNIT_RATIO, 4, NULL},
};

static sat_result *sample(void)
{
    sat_result *r = sat_result_new("demo");
    sat_rnode *root = sat_result_root(r);
    sat_put_count(root, "connections", 94);
    sat_put_note(root, "TCP connections seen");
    sat_put_time(root, "first_ts", 1764479632LL * S + 69332000);
    sat_put_time(root, "last_ts", 0);
    sat_put_dur(root, "cpu_s", 0.000330, 6);
    sat_put_ratio(root, "resumed_ratio", 0.45454, 4);
    sat_put_bytes(root, "memory_bytes", 1289748);
    sat_put_bool(root, "truncated", 0);
    sat_put_text(root, "dn", "cn=\"Doe, John\",dc=x");
    sat_rnode *by = sat_obj(root, "by_end");
    sat_set_compact(by);
    sat_put_count(by, "fin-client", 37);
    sat_put_count(by, "rst-client", 14);
    sat_rnode *tcp = sat_obj(root, "tcp");
    static const sat_col wcols[] = {{"start_ts", SAT_UNIT_TIME, 0, NULL},
                                    {"connections", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *w = sat_table(tcp, "windows", wcols, 2);
    sat_table_set_window(w, 10 * S);
    for (int i = 0; i < 2; i++) {
        sat_rnode *row = sat_table_row(w);
        sat_put_time(row, "start_ts", 1764479630LL * S + i * 10 * S);
        sat_put_count(row, "connections", (uint64_t)(14 - 4 * i));
    }
    sat_rnode *c = sat_table(root, "crashes", crash_cols, 5);
    sat_result_set_main(r, c);
    sat_rnode *row = sat_table_row(c);
    sat_put_time(row, "ts", 1764479640LL * S);
    sat_put_int(row, "sender.pid", 4242);
    sat_put_text(row, "sender.name", "ns-slapd");
    sat_put_dur(row, "wait_s", 1.5e-5, 6);
    sat_put_ratio(row, "share", NAN, 4);
    sat_rnode *frames = sat_list(row, "frames");
    sat_put_text(frames, NULL, "abort");
    sat_put_text(frames, NULL, "main");
    return r;
}

static void test_json(void)
{
    sat_result *r = sample();
    CHECK_EQ_INT(sat_result_status(r), SAT_OK);
    char *j = render(r, w_json);
    static const char want[] =
        "{\n"
        "  \"schema\": \"satscope/2\",\n"
        "  \"command\": \"demo\",\n"
        "  \"connections\": 94,\n"
        "  \"first_ts\": \"2025-11-30T05:13:52.069332Z\",\n"
        "  \"last_ts\": null,\n"
        "  \"cpu_s\": 0.00033,\n"
        "  \"resumed_ratio\": 0.4545,\n"
        "  \"memory_bytes\": 1289748,\n"
        "  \"truncated\": false,\n"
        "  \"dn\": \"cn=\\\"Doe, John\\\",dc=x\",\n"
        "  \"by_end\": {\"fin-client\": 37, \"rst-client\": 14},\n"
        "  \"tcp\": {\n"
        "    \"windows\": [\n"
        "      {\"start_ts\": \"2025-11-30T05:13:50Z\", \"connections\": 14},\n"
        "      {\"start_ts\": \"2025-11-30T05:14:00Z\", \"connections\": 10}\n"
        "    ]\n"
        "  },\n"
        "  \"crashes\": [\n"
        "    {\"ts\": \"2025-11-30T05:14:00Z\", \"sender\": {\"pid\": 4242, \"name\": \"ns-slapd\"}, "
        "\"wait_s\": 0.000015, \"share\": null, \"frames\": [\"abort\", \"main\"]}\n"
        "  ]\n"
        "}\n";
    CHECK_EQ_STR(j, want);
    if (j && strcmp(j, want))
        fprintf(stderr, "%s", j);
    free(j);
    sat_result_free(r);
}

static void test_csv(void)
{
    sat_result *r = sample();
    const char *const *paths;
    size_t n;
    sat_result_tables(r, &paths, &n);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(paths[0], "tcp.windows");
        CHECK_EQ_STR(paths[1], "crashes");
    }
    char *c = render(r, w_csv);
    CHECK_EQ_STR(c, "ts,sender.pid,sender.name,wait_s,share\n"
                    "2025-11-30T05:14:00Z,4242,ns-slapd,0.000015,\n");
    free(c);
    c = render(r, w_csv_windows);
    CHECK_EQ_STR(c, "start_ts,connections\n2025-11-30T05:13:50Z,14\n2025-11-30T05:14:00Z,10\n");
    free(c);
    sat_diag d;
    memset(&d, 0, sizeof d);
    FILE *devnull = fopen("/dev/null", "w");
    CHECK_EQ_INT(sat_result_csv(r, "nope", devnull, &d), SAT_E_USAGE);
    CHECK_EQ_STR(d.msg, "no CSV table 'nope' in the demo report (tcp.windows, crashes)");
    fclose(devnull);
    sat_result_free(r);
}

static void check_dur(double s, const char *want)
{
    char b[64];
    sat_fmt_duration(b, sizeof b, s);
    CHECK_EQ_STR(b, want);
}

static void check_sig3(double v, const char *want)
{
    char b[64];
    sat_fmt_sig3(b, sizeof b, v);
    CHECK_EQ_STR(b, want);
}

static void test_units(void)
{
    check_dur(0.000161, "161 us");
    check_dur(4.4649, "4.46 s");
    check_dur(0.000330, "330 us");
    check_dur(0.0012, "1.20 ms");
    check_dur(0.0009996, "1.00 ms");
    check_dur(999.7e-9, "1.00 us");
    check_dur(0, "0 s");
    check_dur(2.5e-8, "25.0 ns");
    check_dur(161.2, "161 s");
    check_dur(1000, "16.7 min");
    check_dur(7200, "2.00 h");
    check_dur(3 * 86400, "3.00 d");
    check_dur(NAN, "-");
    check_sig3(7.837e-4, "0.000784");
    check_sig3(2.7, "2.70");
    check_sig3(12345.6, "12346");
    check_sig3(99.96, "100");
    check_sig3(-0.0001, "-0.000100");
    check_sig3(0, "0");
    char b[64];
    sat_fmt_bytes(b, sizeof b, 512);
    CHECK_EQ_STR(b, "512 B");
    sat_fmt_bytes(b, sizeof b, 1289748);
    CHECK_EQ_STR(b, "1.23 MiB");
    sat_value v = {SAT_UNIT_RATIO, 0, 4, {.d = 0.45454}};
    sat_fmt_value(b, sizeof b, &v);
    CHECK_EQ_STR(b, "45.5%");
    CHECK_EQ_STR(sat_plural(1, "line", "lines"), "line");
    CHECK_EQ_STR(sat_plural(0, "line", "lines"), "lines");
}

static int w_text(sat_result *r, FILE *f)
{
    sat_text t;
    sat_text_init(&t, f, 0);
    sat_rnode *root = sat_result_root(r);
    sat_text_title(&t, "Summary");
    /* values copied with their notes and labels, one missing (left out) */
    sat_result *v = sat_result_new("values");
    sat_rnode *vals = sat_result_root(v);
    sat_put_copy(vals, "connections", root, "connections");
    sat_put_note(vals, sat_rnode_note(sat_rnode_get(root, "connections")));
    sat_put_copy(vals, "cpu_s", root, "cpu_s");
    sat_put_label(vals, "server CPU");
    sat_put_copy(vals, "resumed_ratio", root, "resumed_ratio");
    sat_put_label(vals, "resumed ratio");
    CHECK(!sat_put_copy(vals, "missing", root, "missing"));
    sat_put_copy(vals, "dn", root, "dn");
    sat_text_values(&t, vals, "  ");
    sat_result_free(v);
    sat_text_title(&t, "Crashes");
    sat_text_table(&t, sat_rnode_get(root, "crashes"), "ts,sender.name=name,wait_s", 0, NULL);
    sat_text_table(&t, sat_rnode_get(root, "tcp.windows"), NULL, 1, NULL);
    return sat_text_finish(&t);
}

static void test_text(void)
{
    sat_result *r = sample();
    char *t = render(r, w_text);
    CHECK_EQ_STR(t, "Summary\n"
                    "  connections        94  TCP connections seen\n"
                    "  server CPU     330 us\n"
                    "  resumed ratio   45.5%\n"
                    "  dn             cn=\"Doe, John\",dc=x\n"
                    "\n"
                    "Crashes\n"
                    "  ts                    name         wait\n"
                    "  2025-11-30T05:14:00Z  ns-slapd  15.0 us\n"
                    "  start                 connections\n"
                    "  2025-11-30T05:13:50Z           14\n");
    free(t);
    sat_result_free(r);
}

/* A table wider than 100 columns: its widest text column is cut, numbers never. */
static int w_wide(sat_result *r, FILE *f)
{
    sat_text t;
    sat_text_init(&t, f, 0);
    sat_text_table(&t, sat_rnode_get(sat_result_root(r), "t"), NULL, 0, "");
    return sat_text_finish(&t);
}

static void test_width(void)
{
    sat_result *r = sat_result_new("w");
    static const sat_col cols[] = {{"filter", SAT_UNIT_TEXT, 0, NULL},
                                   {"count", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *tb = sat_table(sat_result_root(r), "t", cols, 2);
    char longf[200];
    memset(longf, 'x', sizeof longf - 1);
    longf[sizeof longf - 1] = '\0';
    sat_rnode *row = sat_table_row(tb);
    sat_put_text(row, "filter", longf);
    sat_put_count(row, "count", 123456);
    char *t = render(r, w_wide);
    CHECK(t != NULL);
    if (t) {
        char *second = strchr(t, '\n');
        CHECK(second != NULL);
        if (second) {
            second++;
            size_t l = strcspn(second, "\n");
            CHECK_EQ_INT(l, 100);
            CHECK(strstr(second, "x...  123456") != NULL);
            if (!strstr(second, "x...  123456"))
                fprintf(stderr, "%s", t);
        }
    }
    free(t);
    /* a value of the wrong unit in a row is a usage error */
    sat_put_dur(row, "count", 1.0, 3);
    CHECK_EQ_INT(sat_result_status(r), SAT_E_USAGE);
    sat_result_free(r);
}

/* The typed readers: one rule for absent values (the caller's stand-in),
 * units read as their type only, rows by their key column. */
static void test_readers(void)
{
    sat_result *r = sample();
    const sat_rnode *root = sat_result_root(r);
    CHECK_EQ_INT(sat_get_count(root, "connections", 0), 94);
    CHECK_EQ_INT(sat_get_count(root, "by_end.rst-client", 0), 14);   /* a dotted path */
    CHECK_EQ_INT(sat_get_count(root, "missing", 7), 7);              /* not there */
    CHECK_EQ_INT(sat_get_count(root, "dn", 7), 7);                   /* text is no count */
    CHECK_EQ_INT(sat_get_count(root, "memory_bytes", 0), 1289748);   /* bytes read as a count */
    CHECK(sat_get_dur(root, "cpu_s", NAN) > 0.000329 && sat_get_dur(root, "cpu_s", NAN) < 0.000331);
    CHECK(isnan(sat_get_dur(root, "resumed_ratio", NAN)));         /* a ratio is no duration */
    CHECK(sat_get_num(root, "resumed_ratio", NAN) > 0.4545);          /* but a number */
    CHECK_EQ_INT(sat_get_time(root, "last_ts", -1), -1);              /* absent: the stand-in */
    CHECK(!sat_get_has(root, "last_ts") && sat_get_has(root, "first_ts"));
    CHECK_EQ_STR(sat_get_text(root, "dn", NULL), "cn=\"Doe, John\",dc=x");
    CHECK(sat_get_text(root, "connections", NULL) == NULL);
    CHECK_EQ_INT(sat_get_bool(root, "truncated", -1), 0);
    CHECK_EQ_INT(sat_get_bool(root, "connections", -1), -1);
    CHECK(sat_get_table(root, "crashes") && !sat_get_table(root, "tcp"));
    CHECK(sat_get_obj(root, "tcp") && sat_get_table(root, "tcp.windows"));
    const sat_rnode *row = sat_rnode_first(sat_get_table(root, "crashes"));
    CHECK_EQ_INT(sat_get_int(row, "sender.pid", 0), 4242);            /* a column with a dot */
    CHECK_EQ_STR(sat_get_text(row, "sender.name", ""), "ns-slapd");
    CHECK(sat_get_list(row, "frames") != NULL);
    char key[32];
    CHECK_EQ_STR(sat_get_key(row, "sender.pid", key, sizeof key), "4242");
    CHECK(sat_get_row(sat_get_table(root, "crashes"), "sender.pid", "4242") == row);
    CHECK(sat_get_row(sat_get_table(root, "crashes"), "sender.name", "ns-slapd") == row);
    CHECK(sat_get_row(sat_get_table(root, "crashes"), "sender.name", "slapd") == NULL);
    CHECK(sat_get_row(sat_get_table(root, "tcp.windows"), "connections", "10") != NULL);
    sat_result_free(r);
}

/* A table wider than the page even with its text cut: its columns in
 * groups that fit, each under the first column again. */
static void test_table_split(void)
{
    sat_col cols[9] = {{"name", SAT_UNIT_TEXT, 0, NULL}};
    static const char *const names[] = {"a_s", "b_s", "c_s", "d_s", "e_s", "f_s", "g_s", "h_s"};
    for (int i = 0; i < 8; i++)
        cols[i + 1] = (sat_col){names[i], SAT_UNIT_DURATION, 6, NULL};
    sat_result *r = sat_result_new("wide");
    sat_rnode *t = sat_table(sat_result_root(r), "t", cols, 9);
    for (int k = 0; k < 2; k++) {
        sat_rnode *row = sat_table_row(t);
        sat_put_text(row, "name", k ? "second" : "first");
        for (int i = 0; i < 8; i++)
            sat_put_dur(row, names[i], 1234.5 * (i + 1) + k, 6);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_text tx;
    sat_text_init(&tx, f, 0);
    tx.width = 40;
    sat_text_table(&tx, t, NULL, 0, "  ");
    fclose(f);
    CHECK(buf && rc_widest_of(buf) <= 40);
    /* every value is there, the name once per group */
    CHECK(buf && strstr(buf, "20.6 min") && strstr(buf, "2.74 h"));
    size_t firsts = 0;
    for (const char *p = buf; p && (p = strstr(p, "first")); p++)
        firsts++;
    CHECK(firsts >= 2);
    free(buf);
    sat_result_free(r);
}

int main(void)
{
    test_readers();
    test_table_split();
    test_json();
    test_csv();
    test_units();
    test_text();
    test_width();
    return CHECK_DONE();
}
