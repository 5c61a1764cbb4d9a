/*
 * test_report_doc.c - the report model (satscope/report_doc.h): the document
 * helpers write the shape the header says (key order, table blocks with
 * their rows_total, ordered copies, sparklines), labels read as words, the
 * renderers' table answers by extension, and the post-mortem builder writes
 * its findings from the results it is given (built by hand here): a storm
 * that outlived its trigger is said to, with its figures; a TLS resumption
 * collapse before/during the storm is told; no storm and no crash is one
 * notice; the text form draws the per-hour sparklines with block characters.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/report.h"
#include "satscope/report_doc.h"

#define NS 1000000000LL
#define T0 (1749478800LL * NS) /* 2025-06-09T14:20:00Z */

static char *render(sat_report *rep, const char *path)
{
    const sat_report_renderer *r = sat_report_renderer_for(path);
    CHECK(r != NULL);
    if (!r)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_report_render_opts o;
    memset(&o, 0, sizeof o);
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(r->render(rep, &o, f, &d) >= 0);
    fclose(f);
    return buf;
}

static const sat_col src_cols[] = {{"name", SAT_UNIT_TEXT, 0, NULL},
                                   {"total_s", SAT_UNIT_DURATION, 3, "total"},
                                   {"count", SAT_UNIT_COUNT, 0, NULL}};

static void test_helpers(void)
{
    char b[64];
    sat_key_label(b, sizeof b, "p99_s");
    CHECK_EQ_STR(b, "p99");
    sat_key_label(b, sizeof b, "trigger.onset_ts");
    CHECK_EQ_STR(b, "trigger onset");
    sat_key_label(b, sizeof b, "recommended_cachememsize_bytes");
    CHECK_EQ_STR(b, "recommended cachememsize");
    sat_key_label(b, sizeof b, "full_handshakes");
    CHECK_EQ_STR(b, "full handshakes");

    CHECK(sat_report_renderer_for("x.HTML") && !strcmp(sat_report_renderer_for("x.HTML")->ext, ".html"));
    CHECK(sat_report_renderer_for("-") && !strcmp(sat_report_renderer_for("-")->ext, "-"));
    CHECK(sat_report_renderer_for("a.eml") != NULL && sat_report_renderer_for("a.pdf") != NULL);
    CHECK(sat_report_renderer_for("a.svg") != NULL && sat_report_renderer_for("a.png") != NULL);
    CHECK(sat_report_renderer_for("a.doc") == NULL && sat_report_renderer_for(".json") == NULL);
    CHECK(sat_report_kind_find("postmortem") != NULL && sat_report_kind_find("weekly") == NULL);

    /* a table copied in order of total, cut at 2 rows, counting all */
    sat_result *src = sat_result_new("x");
    sat_rnode *t = sat_table(sat_result_root(src), "t", src_cols, 3);
    const char *names[] = {"a", "b", "c", "d"};
    const double tot[] = {1, 5, NAN, 3};
    for (int i = 0; i < 4; i++) {
        sat_rnode *r = sat_table_row(t);
        sat_put_text(r, "name", names[i]);
        sat_put_dur(r, "total_s", tot[i], 3);
        sat_put_count(r, "count", (uint64_t)i);
    }
    sat_report *rep = sat_report_new("postmortem");
    sat_doc_head(rep, "T", T0, T0 + 60 * NS, 7200);
    sat_doc_findings(rep, NULL);
    sat_rnode *page = sat_doc_page(rep, "P", NULL, 0);
    sat_rnode *s = sat_doc_section(page, "sec", "Section");
    sat_doc_para(s, "one %d", 1);
    sat_rnode *copy = sat_doc_table_by(s, "By total", NULL, t, "total_s,name=who", 2, "total_s");
    CHECK(copy != NULL);
    const sat_rnode *r1 = sat_rnode_first(copy), *r2 = sat_rnode_next(r1);
    CHECK(r1 && r2 && !sat_rnode_next(r2));
    CHECK(r1 && !strcmp(sat_row_get(r1, "name")->v.s, "b"));
    CHECK(r2 && !strcmp(sat_row_get(r2, "name")->v.s, "d"));
    CHECK(r1 && sat_row_get(r1, "count") == NULL); /* not among the columns */
    size_t nc;
    const sat_col *cc = sat_table_cols(copy, &nc);
    CHECK_EQ_INT(nc, 2);
    CHECK(nc == 2 && !strcmp(cc[1].title, "who") && !strcmp(cc[0].title, "total"));
    /* a series (hours) as a sparkline: values and their range */
    sat_rnode *hours = sat_table(sat_result_root(src), "hours", src_cols, 3);
    static const sat_col hcols[] = {{"start_ts", SAT_UNIT_TIME, 0, NULL},
                                    {"count", SAT_UNIT_COUNT, 0, NULL}};
    hours = sat_table(sat_result_root(src), "hours2", hcols, 2);
    sat_table_set_window(hours, 3600 * NS);
    const uint64_t per_hour[] = {10, 80, 40, 0};
    for (int i = 0; i < 4; i++) {
        sat_rnode *r = sat_table_row(hours);
        sat_put_time(r, "start_ts", T0 + i * 3600 * NS);
        sat_put_count(r, "count", per_hour[i]);
    }
    sat_doc_sparkline(s, "operations per hour", hours, "count", 1);
    sat_doc_sparkline(s, "nothing", hours, "no_such_column", 1);
    CHECK(sat_result_status(sat_report_doc(rep)) == SAT_OK);

    char *json = render(rep, "r.json");
    CHECK(json != NULL);
    if (json) {
        /* the document's order: head, inputs (none here), findings, pages */
        const char *k = strstr(json, "\"kind\""), *ti = strstr(json, "\"title\""),
                   *fi = strstr(json, "\"findings\""), *pg = strstr(json, "\"pages\"");
        CHECK(k && ti && fi && pg && k < ti && ti < fi && fi < pg);
        CHECK(strstr(json, "\"utc_offset_s\": 7200") != NULL);
        CHECK(strstr(json, "\"rows_total\": 4") != NULL); /* b, d shown; a, c (no total: last) not */
        CHECK(strstr(json, "\"points\": [10, 80, 40, 0]") != NULL);
        CHECK(strstr(json, "\"nothing\"") == NULL);
    }
    free(json);
    char *txt = render(rep, "r.txt");
    CHECK(txt != NULL);
    if (txt) {
        /* local time at +02:00, the hour sparkline scaled 0..80 */
        CHECK(strstr(txt, "2025-06-09 16:20:00 to 2025-06-09 16:21:00 (times in UTC+02:00)") != NULL);
        CHECK(strstr(txt, "\u2582\u2588\u2585\u2581") != NULL);
        CHECK(strstr(txt, "... 2 more rows") != NULL);
    }
    free(txt);
    sat_report_free(rep);
    sat_result_free(src);
    sat_report_free(NULL);
}

/* A storms result with one storm that outlived its trigger, and handshakes
 * whose resumption collapsed during it. */
static sat_result *storms_result(int sustained)
{
    sat_result *r = sat_result_new("storms");
    sat_rnode *root = sat_result_root(r);
    sat_put_dur(root, "window_s", 10, 3);
    sat_put_count(root, "events", 300);
    static const sat_col cols[] = {
        {"storm", SAT_UNIT_COUNT, 0, NULL},          {"window_s", SAT_UNIT_DURATION, 3, NULL},
        {"start_ts", SAT_UNIT_TIME, 0, NULL},        {"end_ts", SAT_UNIT_TIME, 0, NULL},
        {"span_s", SAT_UNIT_DURATION, 3, NULL},      {"events", SAT_UNIT_COUNT, 0, NULL},
        {"peak_events", SAT_UNIT_COUNT, 0, NULL},    {"baseline_per_window", SAT_UNIT_NUMBER, 3, NULL},
        {"client_count", SAT_UNIT_COUNT, 0, NULL},   {"kinds.abandon", SAT_UNIT_COUNT, 0, NULL},
        {"kinds.close_A1", SAT_UNIT_COUNT, 0, NULL}, {"trigger.signal_name", SAT_UNIT_TEXT, 0, NULL},
        {"trigger.onset_ts", SAT_UNIT_TIME, 0, NULL}, {"trigger.back_ts", SAT_UNIT_TIME, 0, NULL},
        {"sustained", SAT_UNIT_BOOL, 0, NULL},       {"sustained_s", SAT_UNIT_DURATION, 3, NULL},
        {"sustained_by", SAT_UNIT_TEXT, 0, NULL},    {"conn_opens", SAT_UNIT_COUNT, 0, NULL},
        {"retries", SAT_UNIT_COUNT, 0, NULL},        {"mechanism", SAT_UNIT_TEXT, 0, NULL},
        {"mechanism_unit", SAT_UNIT_TEXT, 0, NULL},  {"mechanism_usual", SAT_UNIT_NUMBER, 3, NULL},
        {"mechanism_during", SAT_UNIT_NUMBER, 3, NULL},
        {"mechanism_after", SAT_UNIT_NUMBER, 3, NULL}};
    sat_rnode *t = sat_table(root, "storms", cols, sizeof cols / sizeof cols[0]);
    sat_rnode *row = sat_table_row(t);
    sat_put_count(row, "storm", 1);
    sat_put_dur(row, "window_s", 10, 3);
    sat_put_time(row, "start_ts", T0);
    sat_put_time(row, "end_ts", T0 + 300 * NS);
    sat_put_dur(row, "span_s", 300, 3);
    sat_put_count(row, "events", 300);
    sat_put_count(row, "peak_events", 40);
    sat_put_num(row, "baseline_per_window", 2, 3);
    sat_put_count(row, "client_count", 1);
    sat_put_count(row, "kinds.abandon", 100);
    sat_put_count(row, "kinds.close_A1", 200);
    sat_put_text(row, "trigger.signal_name", "full_hs_share");
    sat_put_time(row, "trigger.onset_ts", T0 - 20 * NS);
    sat_put_time(row, "trigger.back_ts", T0 + 200 * NS);
    sat_put_bool(row, "sustained", sustained);
    sat_put_dur(row, "sustained_s", sustained ? 95 : 0, 3);
    sat_put_text(row, "sustained_by", sustained ? "clients retrying what failed" : NULL);
    sat_put_text(row, "mechanism", sustained ? "retries" : NULL);
    sat_put_text(row, "mechanism_unit", sustained ? "count" : NULL);
    sat_put_num(row, "mechanism_usual", sustained ? 0.5 : NAN, 3);
    sat_put_num(row, "mechanism_during", sustained ? 3 : NAN, 3);
    sat_put_num(row, "mechanism_after", sustained ? 12 : NAN, 3);
    sat_put_count(row, "conn_opens", 900);
    sat_put_count(row, "retries", 400);
    static const sat_col scols[] = {{"storm", SAT_UNIT_COUNT, 0, NULL},
                                    {"signal_name", SAT_UNIT_TEXT, 0, NULL},
                                    {"label", SAT_UNIT_TEXT, 0, NULL},
                                    {"meaning", SAT_UNIT_TEXT, 0, NULL},
                                    {"unit", SAT_UNIT_TEXT, 0, NULL},
                                    {"rose", SAT_UNIT_BOOL, 0, NULL},
                                    {"baseline", SAT_UNIT_NUMBER, 6, NULL},
                                    {"lead_up", SAT_UNIT_NUMBER, 6, NULL},
                                    {"during", SAT_UNIT_NUMBER, 6, NULL}};
    sat_rnode *sig = sat_table(root, "signals", scols, sizeof scols / sizeof scols[0]);
    sat_rnode *sr = sat_table_row(sig);
    sat_put_count(sr, "storm", 1);
    sat_put_text(sr, "signal_name", "full_hs_share");
    sat_put_text(sr, "label", "full-handshake share");
    sat_put_text(sr, "meaning", "the share of full TLS handshakes");
    sat_put_text(sr, "unit", "ratio");
    sat_put_bool(sr, "rose", 1);
    sat_put_num(sr, "baseline", 0.05, 6);
    sat_put_num(sr, "lead_up", 0.6, 6);
    sat_put_num(sr, "during", 0.9, 6);
    /* the kinds in words, as storms says them */
    static const sat_col kcols[] = {{"kind", SAT_UNIT_TEXT, 0, NULL},
                                    {"events", SAT_UNIT_COUNT, 0, NULL},
                                    {"meaning", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *kt = sat_table(root, "failures", kcols, 3);
    static const char *const kinds[2][2] = {{"close_A1", "client aborts (A1)"},
                                            {"abandon", "abandoned operations"}};
    for (int i = 0; i < 2; i++) {
        sat_rnode *kr = sat_table_row(kt);
        sat_put_text(kr, "kind", kinds[i][0]);
        sat_put_count(kr, "events", i ? 100 : 200);
        sat_put_text(kr, "meaning", kinds[i][1]);
    }
    return r;
}

static sat_result *handshakes_result(void)
{
    sat_result *r = sat_result_new("handshakes");
    sat_rnode *root = sat_result_root(r);
    sat_put_count(root, "connections", 200);
    static const sat_col cols[] = {{"start_ts", SAT_UNIT_TIME, 0, NULL},
                                   {"connections", SAT_UNIT_COUNT, 0, NULL},
                                   {"full", SAT_UNIT_COUNT, 0, NULL},
                                   {"resumed", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *w = sat_table(root, "windows", cols, 4);
    sat_table_set_window(w, 60 * NS);
    /* before the storm: 90% resumed; during it: 10% */
    const int64_t at[] = {T0 - 120 * NS, T0 - 60 * NS, T0, T0 + 60 * NS};
    const uint64_t full[] = {1, 1, 9, 9}, res[] = {9, 9, 1, 1};
    for (int i = 0; i < 4; i++) {
        sat_rnode *row = sat_table_row(w);
        sat_put_time(row, "start_ts", at[i]);
        sat_put_count(row, "connections", full[i] + res[i]);
        sat_put_count(row, "full", full[i]);
        sat_put_count(row, "resumed", res[i]);
    }
    return r;
}

static char *postmortem(sat_result **res, size_t n)
{
    sat_report *rep = sat_report_new("postmortem");
    int set = sat_report_add_set(rep, res, n);
    CHECK_EQ_INT(set, 0);
    sat_report_input in;
    memset(&in, 0, sizeof in);
    in.set = sat_report_set(rep, 0);
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(sat_report_kind_find("postmortem")->build(rep, &in, &d) >= 0);
    char *json = render(rep, "r.json");
    sat_report_free(rep);
    return json;
}

static void test_postmortem(void)
{
    sat_result *res[2] = {storms_result(1), handshakes_result()};
    char *j = postmortem(res, 2);
    CHECK(j != NULL);
    if (j) {
        CHECK(strstr(j, "clients failed 300 times, 40 in the worst 10.0 s window against a usual 2.00 "
                        "per window: "
                        "200 client aborts (A1) and 100 abandoned operations, from 1 client.") != NULL);
        CHECK(strstr(j, "The likely trigger: the share of full TLS handshakes, which rose at 14:19:40, "
                        "20.0 s before the first failures (from a usual 5.00% per window to 60.0% just "
                        "before and 90.0% during it); it was back to usual at 14:23:20.") != NULL);
        CHECK(strstr(j, "TLS session resumption fell from 90.0% of handshakes before it to 10.0% "
                        "(18 full handshakes)") != NULL);
        CHECK(strstr(j, "The failures outlived their trigger: they went on for 95.0 s after it (the "
                        "share of full TLS handshakes) was back to usual at 14:23:20, longer than "
                        "the queue takes to drain: a self-sustaining (metastable) failure; clients "
                        "retrying what failed kept it going (0.5 per window usually, 3 while the "
                        "trigger was up, 12 after).") != NULL);
        CHECK(strstr(j, "\"mechanism\": \"retries\"") != NULL);
        CHECK(strstr(j, "\"sustained_s\": 95") != NULL);
        CHECK(strstr(j, "\"resumed_ratio_before\": 0.9") != NULL);
        CHECK(strstr(j, "The crashes analyzer did not run.") != NULL);
        CHECK(strstr(j, "No TLS handshake") == NULL);
    }
    free(j);
    sat_result *one[1] = {storms_result(0)};
    j = postmortem(one, 1);
    CHECK(j && strstr(j, "The failures did not outlive their trigger: they ended within the "
                         "queue's drain time after it (the share of full TLS handshakes) was back "
                         "to usual at 14:23:20.") != NULL);
    CHECK(j && strstr(j, "The handshakes analyzer did not run.") != NULL);
    free(j);
    /* nothing at all: one notice, every section says what it lacks */
    j = postmortem(NULL, 0);
    CHECK(j && strstr(j, "No storm of client failures and no crash in these inputs.") != NULL);
    CHECK(j && strstr(j, "The storms analyzer did not run.") != NULL);
    free(j);
}

int main(void)
{
    test_helpers();
    test_postmortem();
    return CHECK_DONE();
}
