/*
 * test_chart_kinds.c - the chart kinds (report/chart_timeline.c,
 * chart_dist.c, chart_capacity.c) on results built by hand with the names
 * REPORT.md gives: the timeline's panels take their series from the right
 * sections (the storms' failure kinds in their groups, the closes by code,
 * the handshakes stacked with the resumed share on the right axis), the
 * storms shaded, their onset and the crashes marked, the sources as bands,
 * every panel without data saying so in its frame; the kinds find what they
 * need or say what is missing; the timeline run for charts has wide
 * windows (sat_cli_chart_opts).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "report/chart/chart_int.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

#define T0 1749477600LL /* 2025-06-09T14:00:00Z */
#define NS 1000000000LL

static sat_result *timeline_result(int with_windows)
{
    sat_result *r = sat_result_new("timeline");
    sat_rnode *root = sat_result_root(r);
    sat_put_time(root, "first_ts", T0 * NS);
    sat_put_time(root, "last_ts", (T0 + 600) * NS);
    sat_put_dur(root, "window_s", 10, 0);
    sat_put_int(root, "utc_offset_s", 7200);
    static const sat_col cols[] = {
        {"start_ts", SAT_UNIT_TIME, 0, NULL},      {"count", SAT_UNIT_COUNT, 0, NULL},
        {"ops.SRCH", SAT_UNIT_COUNT, 0, NULL},     {"ops.BIND", SAT_UNIT_COUNT, 0, NULL},
        {"p50_s", SAT_UNIT_DURATION, 6, NULL},     {"p90_s", SAT_UNIT_DURATION, 6, NULL},
        {"p99_s", SAT_UNIT_DURATION, 6, NULL},     {"wtime_mean_s", SAT_UNIT_DURATION, 6, NULL},
        {"optime_mean_s", SAT_UNIT_DURATION, 6, NULL}, {"concurrency", SAT_UNIT_NUMBER, 3, NULL},
        {"conns.open", SAT_UNIT_COUNT, 0, NULL},   {"conns.opened", SAT_UNIT_COUNT, 0, NULL},
        {"conns.closed", SAT_UNIT_COUNT, 0, NULL}, {"closes.U1", SAT_UNIT_COUNT, 0, NULL},
        {"closes.A1", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *t = sat_table(root, "windows", cols, sizeof cols / sizeof cols[0]);
    sat_table_set_window(t, 10 * NS);
    for (int i = 0; with_windows && i < 60; i++) {
        sat_rnode *row = sat_table_row(t);
        sat_put_time(row, "start_ts", (T0 + i * 10) * NS);
        sat_put_count(row, "count", 30);
        sat_put_count(row, "ops.SRCH", 20);
        sat_put_count(row, "ops.BIND", 10);
        sat_put_dur(row, "p50_s", 0.001, 6);
        sat_put_dur(row, "p90_s", 0.01, 6);
        sat_put_dur(row, "p99_s", i > 30 ? 2.0 : 0.05, 6);
        sat_put_absent(row, "wtime_mean_s", SAT_UNIT_DURATION); /* an OpenLDAP log has none */
        sat_put_dur(row, "optime_mean_s", 0.004, 6);
        sat_put_num(row, "concurrency", 0.5, 3);
        sat_put_count(row, "conns.open", 5);
        sat_put_count(row, "conns.opened", 3);
        sat_put_count(row, "conns.closed", 3);
        sat_put_count(row, "closes.U1", 2);
        sat_put_count(row, "closes.A1", 1);
    }
    static const sat_col scols[] = {{"path", SAT_UNIT_TEXT, 0, NULL},
                                    {"kind", SAT_UNIT_TEXT, 0, NULL},
                                    {"first_ts", SAT_UNIT_TIME, 0, NULL},
                                    {"last_ts", SAT_UNIT_TIME, 0, NULL}};
    sat_rnode *s = sat_table(root, "sources", scols, 4);
    sat_rnode *row = sat_table_row(s);
    sat_put_text(row, "path", "logs/access");
    sat_put_text(row, "kind", "log");
    sat_put_time(row, "first_ts", T0 * NS);
    sat_put_time(row, "last_ts", (T0 + 600) * NS);
    row = sat_table_row(s);
    sat_put_text(row, "path", "cores/core.1234");
    sat_put_text(row, "kind", "core");
    sat_put_time(row, "first_ts", (T0 + 400) * NS);
    sat_put_time(row, "last_ts", (T0 + 400) * NS);
    static const sat_col hcols[] = {{"op", SAT_UNIT_TEXT, 0, NULL},
                                    {"lo_s", SAT_UNIT_DURATION, 6, NULL},
                                    {"hi_s", SAT_UNIT_DURATION, 6, NULL},
                                    {"count", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *h = sat_table(root, "etime_histogram", hcols, 4);
    for (int k = 0; with_windows && k < 5; k++) {
        row = sat_table_row(h);
        sat_put_text(row, "op", "SRCH");
        sat_put_dur(row, "lo_s", 1e-4 * pow(10, k / 10.0), 6);
        sat_put_dur(row, "hi_s", 1e-4 * pow(10, (k + 1) / 10.0), 6);
        sat_put_count(row, "count", (uint64_t)(10 + k));
    }
    return r;
}

static sat_result *storms_result(void)
{
    sat_result *r = sat_result_new("storms");
    sat_rnode *root = sat_result_root(r);
    static const sat_col cols[] = {{"storm", SAT_UNIT_COUNT, 0, NULL},
                                   {"start_ts", SAT_UNIT_TIME, 0, NULL},
                                   {"end_ts", SAT_UNIT_TIME, 0, NULL},
                                   {"trigger.signal_name", SAT_UNIT_TEXT, 0, NULL},
                                   {"trigger.onset_ts", SAT_UNIT_TIME, 0, NULL}};
    sat_rnode *t = sat_table(root, "storms", cols, 5);
    sat_rnode *row = sat_table_row(t);
    sat_put_count(row, "storm", 1);
    sat_put_time(row, "start_ts", (T0 + 300) * NS);
    sat_put_time(row, "end_ts", (T0 + 450) * NS);
    sat_put_text(row, "trigger.signal_name", "unindexed");
    sat_put_time(row, "trigger.onset_ts", (T0 + 290) * NS);
    static const sat_col wcols[] = {{"start_ts", SAT_UNIT_TIME, 0, NULL},
                                    {"events", SAT_UNIT_COUNT, 0, NULL},
                                    {"kinds.abandon", SAT_UNIT_COUNT, 0, NULL},
                                    {"kinds.busy", SAT_UNIT_COUNT, 0, NULL},
                                    {"kinds.close_A1", SAT_UNIT_COUNT, 0, NULL},
                                    {"kinds.close_T2", SAT_UNIT_COUNT, 0, NULL},
                                    {"kinds.tls_incomplete", SAT_UNIT_COUNT, 0, NULL},
                                    {"kinds.rst_client", SAT_UNIT_COUNT, 0, NULL},
                                    {"kinds.something_new", SAT_UNIT_COUNT, 0, NULL}};
    sat_rnode *w = sat_table(root, "windows", wcols, sizeof wcols / sizeof wcols[0]);
    sat_table_set_window(w, 10 * NS);
    for (int i = 0; i < 60; i++) {
        row = sat_table_row(w);
        sat_put_time(row, "start_ts", (T0 + i * 10) * NS);
        int in = i >= 30 && i < 45;
        sat_put_count(row, "events", in ? 7 : 0);
        sat_put_count(row, "kinds.abandon", in ? 2 : 0);
        sat_put_count(row, "kinds.busy", 0);
        sat_put_count(row, "kinds.close_A1", in ? 1 : 0);
        sat_put_count(row, "kinds.close_T2", in ? 1 : 0);
        sat_put_count(row, "kinds.tls_incomplete", in ? 1 : 0);
        sat_put_count(row, "kinds.rst_client", in ? 1 : 0);
        sat_put_count(row, "kinds.something_new", in ? 1 : 0);
    }
    /* the kinds seen and their groups, as the analyzer writes them (none for
     * the kind it does not know, nor for busy: never seen) */
    static const sat_col fcols[] = {{"kind", SAT_UNIT_TEXT, 0, NULL},
                                    {"kind_group", SAT_UNIT_TEXT, 0, NULL}};
    static const char *const kg[][2] = {{"abandon", "abandons and time limits"},
                                        {"close_A1", "abrupt closes"},
                                        {"close_T2", "abrupt closes"},
                                        {"tls_incomplete", "TLS handshakes given up or failed"},
                                        {"rst_client", "clients that left waiting or retried"}};
    sat_rnode *f = sat_table(root, "failures", fcols, 2);
    for (size_t i = 0; i < sizeof kg / sizeof kg[0]; i++) {
        row = sat_table_row(f);
        sat_put_text(row, "kind", kg[i][0]);
        sat_put_text(row, "kind_group", kg[i][1]);
    }
    return r;
}

static sat_result *crashes_result(void)
{
    sat_result *r = sat_result_new("crashes");
    static const sat_col cols[] = {{"ts", SAT_UNIT_TIME, 0, NULL}, {"signal_name", SAT_UNIT_TEXT, 0, NULL}};
    sat_rnode *t = sat_table(sat_result_root(r), "crashes", cols, 2);
    sat_rnode *row = sat_table_row(t);
    sat_put_time(row, "ts", (T0 + 400) * NS);
    sat_put_text(row, "signal_name", "SIGSEGV");
    return r;
}

static const sat_chart_series *series_named(const sat_chart_panel *p, const char *name)
{
    for (size_t k = 0; k < p->nseries; k++)
        if (p->series[k]->name && strcmp(p->series[k]->name, name) == 0)
            return p->series[k];
    return NULL;
}

static int has_text(const sat_chart *c, ch_role role, const char *s)
{
    for (size_t i = 0; i < c->ntexts; i++)
        if (c->texts[i].role == role && strstr(c->texts[i].s, s))
            return 1;
    return 0;
}

static int no_overlap(const sat_chart *c)
{
    for (size_t i = 0; i < c->ntexts; i++)
        for (size_t k = i + 1; k < c->ntexts; k++)
            if (ch_rect_overlap(&c->texts[i].box, &c->texts[k].box))
                return 0;
    return 1;
}

static void test_timeline(void)
{
    sat_result *res[3] = {timeline_result(1), storms_result(), crashes_result()};
    sat_result_set set = {res, 3};
    const sat_chart_kind *k = sat_chart_kind_find("timeline");
    CHECK(k != NULL);
    sat_chart_opts o = {0};
    sat_diag d = {0};
    sat_chart *c = k->build(&set, &o, &d);
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK_EQ_INT(ch_layout(c), SAT_OK);
    CHECK_EQ_INT(c->npanels, 6);
    /* local time, UTC+02:00, in the title and on the axis */
    CHECK(strstr(c->title, "16:00") && strstr(c->title, "UTC+02:00"));
    CHECK(has_text(c, CH_T_AXIS_LABEL, "time (UTC+02:00)"));
    CHECK_EQ_STR(c->x.ticks[0].label, "16:00");
    /* 1: ops per second stacked, the counts over the window */
    const sat_chart_series *srch = series_named(c->panels[0], "SRCH");
    CHECK(srch && srch->style == SAT_SERIES_STACKED && srch->n == 60 && fabs(srch->y[0] - 2.0) < 1e-9);
    const sat_chart_series *bind = series_named(c->panels[0], "BIND");
    CHECK(bind && bind->base && fabs(bind->base[0] - 2.0) < 1e-9);
    /* 2: no wtime in the input: no such line, nor a legend entry */
    CHECK(series_named(c->panels[1], "p99") && !series_named(c->panels[1], "wtime mean (queue)"));
    CHECK(c->panels[1]->y.scale == SAT_AXIS_LOG);
    /* 3: open connections on the right axis */
    const sat_chart_series *open = series_named(c->panels[2], "connections open");
    CHECK(open && open->right);
    /* 4: failures in the result's groups; a kind of no group is "other" */
    const sat_chart_panel *f = c->panels[3];
    const sat_chart_series *ab = series_named(f, "abandons and time limits"),
                           *cl = series_named(f, "abrupt closes"),
                           *tls = series_named(f, "TLS handshakes given up or failed"),
                           *tcp = series_named(f, "clients that left waiting or retried"),
                           *oth = series_named(f, "other");
    CHECK(ab && cl && tls && tcp && oth);
    CHECK(f->nseries == 5); /* busy, all zero, is not drawn */
    CHECK(cl && fabs(cl->y[35] - 2) < 1e-9 && cl->y[0] == 0);
    CHECK(ab && fabs(ab->y[35] - 2) < 1e-9);
    /* 5: no handshakes result at all: the panel says so in its frame */
    const sat_chart_panel *tp = c->panels[4];
    CHECK(!tp->has_data && tp->note && strstr(tp->note, "no TLS handshake"));
    CHECK(has_text(c, CH_T_NOTE, "no TLS handshake in the inputs"));
    /* 6: closes by code, with what the code means, and the opened line */
    CHECK(series_named(c->panels[5], "U1 unbind") && series_named(c->panels[5], "A1 client aborted"));
    CHECK(series_named(c->panels[5], "opened"));
    /* across: the storm shaded and labelled, its onset and the crash marked, the sources as bands */
    int spans = 0, markers = 0, bands = 0;
    for (size_t i = 0; i < c->nannots; i++) {
        spans += c->annots[i].kind == CH_A_SPAN;
        markers += c->annots[i].kind == CH_A_MARKER;
        bands += c->annots[i].kind == CH_A_BAND;
    }
    CHECK_EQ_INT(spans, 1);
    CHECK_EQ_INT(markers, 2);
    CHECK_EQ_INT(bands, 2);
    CHECK(has_text(c, CH_T_SPAN, "storm 1"));
    CHECK(has_text(c, CH_T_MARKER, "onset: unindexed"));
    CHECK(has_text(c, CH_T_MARKER, "crash SIGSEGV"));
    CHECK(has_text(c, CH_T_BAND, "access"));
    CHECK(has_text(c, CH_T_BAND, "core: core.1234"));
    CHECK(no_overlap(c));
    sat_chart_free(c);
    /* --utc */
    o.utc = 1;
    c = k->build(&set, &o, &d);
    CHECK(c && ch_layout(c) == SAT_OK);
    CHECK(c && strstr(c->title, "14:00") && strstr(c->title, " UTC"));
    CHECK(c && has_text(c, CH_T_AXIS_LABEL, "time (UTC)"));
    sat_chart_free(c);
    for (int i = 0; i < 3; i++)
        sat_result_free(res[i]);

    /* an empty set: nothing to draw, said */
    sat_result_set none = {NULL, 0};
    memset(&d, 0, sizeof d);
    CHECK(k->build(&none, &o, &d) == NULL);
    CHECK(strstr(d.msg, "nothing to draw") != NULL);
    /* timeline without windows but a crash: drawn, every empty panel says so */
    sat_result *r2[2] = {timeline_result(0), crashes_result()};
    sat_result_set s2 = {r2, 2};
    c = k->build(&s2, &o, &d);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_INT(ch_layout(c), SAT_OK);
        for (size_t i = 0; i < c->npanels; i++)
            CHECK(!c->panels[i]->has_data && c->panels[i]->note);
        CHECK(has_text(c, CH_T_NOTE, "no operation in the inputs"));
        CHECK(has_text(c, CH_T_NOTE, "no storms analysis"));
        CHECK(has_text(c, CH_T_MARKER, "crash SIGSEGV"));
    }
    sat_chart_free(c);
    sat_result_free(r2[0]);
    sat_result_free(r2[1]);
}

static void test_distributions_capacity(void)
{
    sat_result *tl = timeline_result(1);
    sat_result *et = sat_result_new("etime");
    static const sat_col ocols[] = {{"op", SAT_UNIT_TEXT, 0, NULL}, {"total_s", SAT_UNIT_DURATION, 6, NULL}};
    sat_rnode *ops = sat_table(sat_result_root(et), "ops", ocols, 2);
    sat_rnode *row = sat_table_row(ops);
    sat_put_text(row, "op", "SRCH");
    sat_put_dur(row, "total_s", 100, 6);
    row = sat_table_row(ops); /* as etime writes it: the whole, last */
    sat_put_text(row, "op", "all");
    sat_put_dur(row, "total_s", 100, 6);
    static const sat_col fcols[] = {{"filter", SAT_UNIT_TEXT, 0, NULL}, {"count", SAT_UNIT_COUNT, 0, NULL},
                                    {"total_s", SAT_UNIT_DURATION, 6, NULL}};
    sat_rnode *top = sat_obj(sat_result_root(et), "top");
    sat_rnode *ft = sat_table(top, "filters", fcols, 3);
    row = sat_table_row(ft);
    sat_put_text(row, "filter", "(uid=?)");
    sat_put_count(row, "count", 900);
    sat_put_dur(row, "total_s", 10, 6);
    row = sat_table_row(ft); /* fewer, but more time: first */
    sat_put_text(row, "filter", "(description=*x*)");
    sat_put_count(row, "count", 3);
    sat_put_dur(row, "total_s", 60, 6);
    sat_result *res[2] = {tl, et};
    sat_result_set set = {res, 2};
    sat_diag d = {0};
    sat_chart *c = sat_chart_kind_find("distributions")->build(&set, NULL, &d);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_INT(ch_layout(c), SAT_OK);
        const sat_chart_series *h = series_named(c->panels[0], "SRCH (60)");
        CHECK(h && h->style == SAT_SERIES_LINE);
        CHECK(c->panels[0]->x.scale == SAT_AXIS_LOG);
        const sat_chart_series *b = c->panels[1]->series[0];
        CHECK(b->style == SAT_SERIES_HBARS && b->n == 2);
        CHECK(b->n == 2 && strcmp(b->cat[0], "(description=*x*)") == 0 && fabs(b->y[0] - 0.6) < 1e-9);
        CHECK(has_text(c, CH_T_VALUE, "60%"));
        CHECK(has_text(c, CH_T_NOTE, "no search base with an etime in the inputs"));
        CHECK(no_overlap(c));
    }
    sat_chart_free(c);
    /* with etime's usage tables: who used the server, by the work's share of
     * the whole ("(other)", the rest, one bar last, so the shares add up) */
    static const sat_col ucols[] = {{"filter_shape", SAT_UNIT_TEXT, 0, NULL},
                                    {"work_share", SAT_UNIT_RATIO, 6, NULL}};
    sat_rnode *ut = sat_table(sat_obj(sat_result_root(et), "usage"), "filter_shapes_used", ucols, 2);
    static const char *const shapes[] = {"(description=*)", "(uid=*)", "(other)"};
    static const double shares[] = {0.9, 0.06, 0.04};
    for (int i = 0; i < 3; i++) {
        row = sat_table_row(ut);
        sat_put_text(row, "filter_shape", shapes[i]);
        sat_put_ratio(row, "work_share", shares[i], 6);
    }
    c = sat_chart_kind_find("distributions")->build(&set, NULL, &d);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_INT(ch_layout(c), SAT_OK);
        const sat_chart_series *b = c->panels[1]->series[0];
        CHECK(b->style == SAT_SERIES_HBARS && b->n == 3);
        CHECK(b->n == 3 && strcmp(b->cat[0], "(description=*)") == 0 && fabs(b->y[0] - 0.9) < 1e-9);
        CHECK(b->n == 3 && strcmp(b->cat[2], "(other)") == 0 && fabs(b->y[2] - 0.04) < 1e-9);
        CHECK(has_text(c, CH_T_PANEL_TITLE, "Who used the server: searches by filter shape"));
    }
    sat_chart_free(c);
    /* capacity without either: nothing to draw; with the points only: the
     * cache panel says what it lacks */
    memset(&d, 0, sizeof d);
    CHECK(sat_chart_kind_find("capacity")->build(&set, NULL, &d) == NULL && d.msg[0]);
    sat_result *sat = sat_result_new("saturation");
    sat_rnode *root = sat_result_root(sat);
    sat_rnode *usl = sat_obj(root, "usl");
    sat_put_num(usl, "sigma", 0.03, 6);
    sat_put_num(usl, "kappa", 0.0008, 8);
    sat_put_num(usl, "lambda", 260, 3);
    sat_put_num(usl, "n_star", 35, 3);
    sat_put_num(usl, "x_max", 2900, 3);
    sat_put_bool(usl, "ok", 1);
    static const sat_col pcols[] = {{"concurrency", SAT_UNIT_NUMBER, 3, NULL},
                                    {"throughput", SAT_UNIT_NUMBER, 3, NULL},
                                    {"used", SAT_UNIT_BOOL, 0, NULL}};
    sat_rnode *pts = sat_table(root, "points", pcols, 3);
    for (int i = 1; i <= 8; i++) {
        row = sat_table_row(pts);
        sat_put_num(row, "concurrency", i * 8, 3);
        sat_put_num(row, "throughput", 260.0 * i * 8 / (1 + 0.03 * (i * 8 - 1) + 0.0008 * i * 8 * (i * 8 - 1)), 3);
        sat_put_bool(row, "used", 1);
    }
    sat_result *r2[1] = {sat};
    sat_result_set s2 = {r2, 1};
    c = sat_chart_kind_find("capacity")->build(&s2, NULL, &d);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_INT(ch_layout(c), SAT_OK);
        CHECK(!c->panels[0]->has_data && has_text(c, CH_T_NOTE, "no entry references"));
        CHECK(series_named(c->panels[1], "USL fit") && series_named(c->panels[1], "measured (fitted)"));
        CHECK(has_text(c, CH_T_LINE, "N* = 35"));
        CHECK(has_text(c, CH_T_LINE, "X_max = 2900/s"));
        CHECK(no_overlap(c));
    }
    sat_chart_free(c);
    sat_result_free(sat);
    sat_result_free(tl);
    sat_result_free(et);
}

/* The timeline run for charts: at most SAT_CHART_WINDOWS windows, so the
 * incident's half hour is in 10 s windows, not the analyzer's default 1 s. */
static void test_chart_windows(void)
{
    const char *src = getenv("SAT_SRC");
    char path[4200];
    snprintf(path, sizeof path, "%s/fixtures/incident/access", src ? src : ".");
    const sat_analyzer *a = sat_analyzer_find("timeline");
    CHECK(a != NULL);
    CHECK(sat_cli_chart_opts("etime") == NULL);
    for (int charts = 0; charts < 2; charts++) {
        const void *opts = charts ? sat_cli_chart_opts("timeline") : NULL;
        CHECK(!charts || opts != NULL);
        sat_cli_collect cc;
        memset(&cc, 0, sizeof cc);
        cc.quiet = 1;
        cc.jobs = 1;
        void *obj = a->create(opts);
        char *paths[] = {path};
        CHECK_EQ_INT(sat_cli_collect_into(&cc, a, opts, obj, paths, 1), 0);
        CHECK(a->finish(obj) >= 0);
        sat_result *r = sat_result_new("timeline");
        CHECK(a->result(obj, r) >= 0);
        CHECK_EQ_INT((long long)sat_get_num(sat_result_root(r), "window_s", NAN), charts ? 10 : 1);
        CHECK(sat_rnode_count(sat_get_table(sat_result_root(r), "windows")) <= (charts ? SAT_CHART_WINDOWS : SAT_TL_WINDOWS_MAX));
        sat_result_free(r);
        a->free(obj);
    }
}

int main(void)
{
    test_timeline();
    test_distributions_capacity();
    test_chart_windows();
    sat_chart_release_fonts();
    return CHECK_DONE();
}
