/*
 * test_chart.c - the chart engine (report/chart*.c): 1-2-5 ticks on linear
 * and log axes, time ticks on round local times across a UTC offset and a
 * midnight, unit-aware tick labels, text that never overlaps on a crowded
 * chart (what does not fit is dropped and listed), every output format a
 * valid file, the same bytes twice, SVG ids prefixed, and the structure
 * dump.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "report/chart/chart_int.h"

static double utc(int y, int mo, int d, int h, int mi, int s)
{
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    return (double)timegm(&tm);
}

static void test_nice(void)
{
    CHECK(fabs(ch_nice_step(0.7) - 1) < 1e-12);
    CHECK(fabs(ch_nice_step(1.3) - 2) < 1e-12);
    CHECK(fabs(ch_nice_step(3) - 5) < 1e-12);
    CHECK(fabs(ch_nice_step(7) - 10) < 1e-12);
    CHECK(fabs(ch_nice_step(0.03) - 0.05) < 1e-12);
    CHECK(fabs(ch_nice_step(2000) - 2000) < 1e-9);
}

static void test_linear(void)
{
    double v[64], lo = 0, hi = 87;
    size_t n = ch_ticks_linear(&lo, &hi, 1, SAT_UNIT_NUMBER, 5, v, 64);
    CHECK_EQ_INT(n, 6);
    CHECK(lo == 0 && hi == 100);
    CHECK(v[1] == 20 && v[5] == 100);
    /* bytes step in binary units */
    lo = 0, hi = 3.5 * 1048576;
    n = ch_ticks_linear(&lo, &hi, 1, SAT_UNIT_BYTES, 4, v, 64);
    CHECK_EQ_INT(n, 5);
    CHECK(v[1] == 1048576);
    char buf[64];
    ch_tick_label(buf, sizeof buf, SAT_UNIT_BYTES, v[1]);
    CHECK_EQ_STR(buf, "1 MiB");
    ch_tick_label(buf, sizeof buf, SAT_UNIT_BYTES, 512 * 1024);
    CHECK_EQ_STR(buf, "512 KiB");
    /* counts never step below one */
    lo = 0, hi = 3;
    n = ch_ticks_linear(&lo, &hi, 1, SAT_UNIT_COUNT, 8, v, 64);
    CHECK_EQ_INT(n, 4);
    /* durations past a minute step in minutes */
    lo = 0, hi = 1500;
    n = ch_ticks_linear(&lo, &hi, 1, SAT_UNIT_DURATION, 5, v, 64);
    CHECK(v[1] == 300);
    ch_tick_label(buf, sizeof buf, SAT_UNIT_DURATION, v[1]);
    CHECK_EQ_STR(buf, "5 min");
    /* labels carry their unit, trailing zeros trimmed */
    ch_tick_label(buf, sizeof buf, SAT_UNIT_DURATION, 0.0015);
    CHECK_EQ_STR(buf, "1.5 ms");
    ch_tick_label(buf, sizeof buf, SAT_UNIT_DURATION, 0.001);
    CHECK_EQ_STR(buf, "1 ms");
    ch_tick_label(buf, sizeof buf, SAT_UNIT_DURATION, 2);
    CHECK_EQ_STR(buf, "2 s");
    ch_tick_label(buf, sizeof buf, SAT_UNIT_RATIO, 0.45);
    CHECK_EQ_STR(buf, "45%");
    ch_tick_label(buf, sizeof buf, SAT_UNIT_RATIO, 1);
    CHECK_EQ_STR(buf, "100%");
    ch_tick_label(buf, sizeof buf, SAT_UNIT_COUNT, 12000);
    CHECK_EQ_STR(buf, "12k");
    ch_tick_label(buf, sizeof buf, SAT_UNIT_COUNT, 2500000);
    CHECK_EQ_STR(buf, "2.5M");
    ch_tick_label(buf, sizeof buf, SAT_UNIT_NUMBER, 0.2);
    CHECK_EQ_STR(buf, "0.2");
    ch_tick_label(buf, sizeof buf, SAT_UNIT_COUNT, 0);
    CHECK_EQ_STR(buf, "0");
}

static void test_log(void)
{
    double v[64], lo = 1.3e-5, hi = 0.3;
    size_t n = ch_ticks_log(&lo, &hi, 1, SAT_UNIT_DURATION, 6, v, 64);
    CHECK_EQ_INT(n, 6); /* 10 us .. 1 s, a tick per decade */
    CHECK(fabs(lo - 1e-5) < 1e-18 && fabs(hi - 1) < 1e-12);
    char buf[64];
    ch_tick_label(buf, sizeof buf, SAT_UNIT_DURATION, v[0]);
    CHECK_EQ_STR(buf, "10 us");
    ch_tick_label(buf, sizeof buf, SAT_UNIT_DURATION, v[2]);
    CHECK_EQ_STR(buf, "1 ms");
    ch_tick_label(buf, sizeof buf, SAT_UNIT_DURATION, v[5]);
    CHECK_EQ_STR(buf, "1 s");
    /* few decades: 1, 2, 5 in each */
    lo = 0.001, hi = 0.1;
    n = ch_ticks_log(&lo, &hi, 1, SAT_UNIT_DURATION, 6, v, 64);
    CHECK_EQ_INT(n, 7);
    CHECK(fabs(v[1] - 0.002) < 1e-15 && fabs(v[2] - 0.005) < 1e-15);
    /* many decades: every third */
    lo = 1e-9, hi = 1e3;
    n = ch_ticks_log(&lo, &hi, 1, SAT_UNIT_NUMBER, 4, v, 64);
    CHECK_EQ_INT(n, 5);
    CHECK(fabs(v[1] / 1e-6 - 1) < 1e-9 && fabs(v[4] / 1e3 - 1) < 1e-9);
    /* bytes on a log axis: powers of two */
    lo = 4096, hi = 64.0 * 1048576;
    n = ch_ticks_log(&lo, &hi, 1, SAT_UNIT_BYTES, 6, v, 64);
    CHECK(n >= 3 && n <= 7);
    for (size_t i = 0; i < n; i++)
        CHECK(fabs(log2(v[i]) - round(log2(v[i]))) < 1e-9);
    ch_tick_label(buf, sizeof buf, SAT_UNIT_BYTES, 1048576);
    CHECK_EQ_STR(buf, "1 MiB");
}

static void test_time(void)
{
    double v[64], step;
    char buf[64], date[32];
    /* UTC+02:00, 23:10 local to 02:10 local: half hours on the local clock,
     * the date under the first tick and under local midnight */
    double lo = utc(2025, 6, 8, 21, 10, 0), hi = lo + 3 * 3600;
    size_t n = ch_ticks_time(lo, hi, 7200, 6, v, 64, &step);
    CHECK(step == 1800);
    CHECK_EQ_INT(n, 6);
    CHECK(v[0] == utc(2025, 6, 8, 21, 30, 0)); /* 23:30 local */
    ch_time_label(buf, sizeof buf, date, sizeof date, v[0], 7200, step);
    CHECK_EQ_STR(buf, "23:30");
    CHECK_EQ_STR(date, "2025-06-08");
    ch_time_label(buf, sizeof buf, date, sizeof date, v[1], 7200, step);
    CHECK_EQ_STR(buf, "00:00");
    CHECK_EQ_STR(date, "2025-06-09");
    /* through an axis: only the first and the midnight tick carry a date */
    sat_chart *c = sat_chart_new(NULL, 400, 200);
    sat_chart_share_x(c, SAT_AXIS_TIME, NULL, SAT_UNIT_TIME);
    sat_chart_set_time_zone(c, 7200, 0);
    c->x.lo = lo;
    c->x.hi = hi;
    CHECK_EQ_INT(ch_axis_ticks(c, &c->x, 6, 0), SAT_OK);
    CHECK_EQ_INT(c->x.nticks, 6);
    CHECK(c->x.ticks[0].label2 && strcmp(c->x.ticks[0].label2, "2025-06-08") == 0);
    CHECK(c->x.ticks[1].label2 && strcmp(c->x.ticks[1].label2, "2025-06-09") == 0);
    CHECK(c->x.ticks[2].label2 == NULL);
    CHECK_EQ_STR(c->x.ticks[2].label, "00:30");
    /* --utc: the same instants on the UTC clock */
    sat_chart_set_time_zone(c, 7200, 1);
    CHECK_EQ_INT(ch_axis_ticks(c, &c->x, 6, 0), SAT_OK);
    CHECK_EQ_STR(c->x.ticks[0].label, "21:30");
    sat_chart_free(c);
    /* UTC+05:30: round hours of the local clock fall on UTC half hours */
    lo = utc(2025, 6, 8, 10, 7, 0);
    n = ch_ticks_time(lo, lo + 5 * 3600, 19800, 5, v, 64, &step);
    CHECK(step == 3600);
    CHECK(v[0] == utc(2025, 6, 8, 10, 30, 0));
    ch_time_label(buf, sizeof buf, NULL, 0, v[0], 19800, step);
    CHECK_EQ_STR(buf, "16:00");
    /* UTC-05:00 at minutes: round minutes, seconds zero */
    lo = utc(2025, 6, 8, 4, 58, 17);
    n = ch_ticks_time(lo, lo + 600, -18000, 5, v, 64, &step);
    CHECK(step == 120);
    for (size_t i = 0; i < n; i++)
        CHECK(fmod(v[i] - 18000 * 0, 120) == 0);
    ch_time_label(buf, sizeof buf, date, sizeof date, v[0], -18000, step);
    CHECK_EQ_STR(buf, "00:00");
    CHECK_EQ_STR(date, "2025-06-08");
    /* seconds */
    n = ch_ticks_time(lo, lo + 50, 0, 5, v, 64, &step);
    CHECK(step == 10);
    ch_time_label(buf, sizeof buf, NULL, 0, v[0], 0, step);
    CHECK_EQ_STR(buf, "04:58:20");
    /* days on local midnights */
    lo = utc(2025, 6, 1, 12, 0, 0);
    n = ch_ticks_time(lo, lo + 10 * 86400, 7200, 5, v, 64, &step);
    CHECK(step == 172800 || step == 86400);
    CHECK(fmod(v[0] + 7200, 86400) == 0);
    ch_zone_name(buf, sizeof buf, 7200, 0);
    CHECK_EQ_STR(buf, "UTC+02:00");
    ch_zone_name(buf, sizeof buf, -19800, 0);
    CHECK_EQ_STR(buf, "UTC-05:30");
    ch_zone_name(buf, sizeof buf, 7200, 1);
    CHECK_EQ_STR(buf, "UTC");
}

/* A crowded chart: three panels on a time axis, long legend names, many
 * spans and markers with labels, sources as bands, on a small page. */
static sat_chart *crowded(double w, double h)
{
    sat_chart *c = sat_chart_new("A crowded chart with a rather long title for its width", w, h);
    sat_chart_share_x(c, SAT_AXIS_TIME, "local time", SAT_UNIT_TIME);
    sat_chart_set_time_zone(c, 3600, 0);
    double t0 = utc(2025, 6, 8, 22, 40, 0);
    for (int p = 0; p < 3; p++) {
        sat_chart_panel *pa = sat_chart_panel_add(c, p == 0 ? "operations per second" : p == 1 ? "etime" : "share", 1);
        sat_chart_panel_y(pa, p == 1 ? SAT_AXIS_LOG : SAT_AXIS_LINEAR, p == 1 ? "etime" : "ops/s",
                          p == 1 ? SAT_UNIT_DURATION : SAT_UNIT_RATE);
        for (int s = 0; s < 7; s++) {
            char name[64];
            snprintf(name, sizeof name, "series number %d with a long name", s);
            sat_chart_series *se = sat_chart_series_add(pa, name, p == 0 ? SAT_SERIES_STACKED : SAT_SERIES_LINE,
                                                        SAT_COLOR_AUTO);
            for (int i = 0; i < 120; i++)
                sat_chart_point(se, t0 + i * 60, p == 1 ? 1e-4 * (1 + (i * 7 + s * 13) % 50) : (i * s) % 17);
        }
        if (p == 2) {
            sat_chart_panel_y2(pa, SAT_AXIS_LINEAR, "resumed", SAT_UNIT_RATIO, 0, 1);
            sat_chart_series *r = sat_chart_series_right(pa, "ratio", SAT_SERIES_LINE, SAT_COLOR_BLACK);
            for (int i = 0; i < 120; i++)
                sat_chart_point(r, t0 + i * 60, (i % 10) / 10.0);
            sat_chart_panel_hline(pa, 8, "a threshold line");
            sat_chart_panel_vline(pa, t0 + 3000, "a vertical line");
            sat_chart_panel_label(pa, t0 + 3600, 10, "a labelled point");
        }
    }
    for (int k = 0; k < 30; k++) {
        char label[64];
        snprintf(label, sizeof label, "storm %d", k + 1);
        sat_chart_span(c, t0 + k * 230, t0 + k * 230 + 100, label);
        snprintf(label, sizeof label, "crash SIGSEGV %d", k + 1);
        sat_chart_marker(c, t0 + k * 200 + 50, label);
    }
    for (int k = 0; k < 4; k++) {
        char label[64];
        snprintf(label, sizeof label, "access-%d.log", k);
        sat_chart_band(c, t0 + k * 1200, t0 + k * 1200 + 2400, label);
    }
    sat_chart_panel *empty = sat_chart_panel_add(c, "TLS handshakes", 0.5);
    sat_chart_panel_note(empty, "no TLS handshake in the inputs");
    return c;
}

static int overlaps(const sat_chart *c)
{
    int n = 0;
    for (size_t i = 0; i < c->ntexts; i++) {
        const ch_rect *b = &c->texts[i].box;
        if (b->x < -0.01 || b->y < -0.01 || b->x + b->w > c->w + 0.01 || b->y + b->h > c->h + 0.01) {
            fprintf(stderr, "outside the page: %s\n", c->texts[i].s);
            n++;
        }
        for (size_t k = i + 1; k < c->ntexts; k++)
            if (ch_rect_overlap(b, &c->texts[k].box)) {
                fprintf(stderr, "overlap: '%s' and '%s'\n", c->texts[i].s, c->texts[k].s);
                n++;
            }
    }
    return n;
}

static void test_crowded(void)
{
    static const double sizes[][2] = {{300, 260}, {500, 400}, {800, 900}, {120, 90}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        sat_chart *c = crowded(sizes[s][0], sizes[s][1]);
        CHECK_EQ_INT(ch_layout(c), SAT_OK);
        CHECK_EQ_INT(overlaps(c), 0);
        CHECK(c->ntexts > (s == 3 ? 2u : 10u));
        CHECK(c->ndropped > 0); /* 60 labels cannot all fit */
        int note = 0, ticks = 0;
        for (size_t i = 0; i < c->ntexts; i++) {
            note |= c->texts[i].role == CH_T_NOTE && strcmp(c->texts[i].s, "no TLS handshake in the inputs") == 0;
            ticks += c->texts[i].role == CH_T_TICK;
        }
        /* the two smallest pages hold less than four panels of 9 pt texts:
         * what does not fit is dropped, never overlapped */
        if (s == 1 || s == 2) {
            CHECK(note);
            CHECK(ticks >= 6);
        }
        sat_chart_free(c);
    }
}

typedef struct mem {
    unsigned char *p;
    size_t n;
} mem;

static int to_mem(void *closure, const unsigned char *data, size_t len)
{
    mem *m = closure;
    unsigned char *p = realloc(m->p, m->n + len);
    if (!p)
        return -1;
    memcpy(p + m->n, data, len);
    m->p = p;
    m->n += len;
    return 0;
}

static int fail_write(void *closure, const unsigned char *data, size_t len)
{
    (void)closure, (void)data, (void)len;
    return -1;
}

static mem render(sat_chart_format fmt, const char *prefix)
{
    sat_chart *c = crowded(500, 420);
    if (prefix)
        sat_chart_svg_id_prefix(c, prefix);
    mem m = {0};
    sat_diag d = {0};
    CHECK_EQ_INT(sat_chart_write(c, fmt, to_mem, &m, &d), SAT_OK);
    sat_chart_free(c);
    return m;
}

static int contains(const mem *m, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= m->n; i++)
        if (memcmp(m->p + i, s, n) == 0)
            return 1;
    return 0;
}

static void test_outputs(void)
{
    for (int f = SAT_CHART_PNG; f <= SAT_CHART_PDF; f++) {
        mem a = render((sat_chart_format)f, NULL), b = render((sat_chart_format)f, NULL);
        CHECK(a.n > 100);
        if (f == SAT_CHART_PNG)
            CHECK(a.n > 8 && memcmp(a.p, "\x89PNG\r\n\x1a\n", 8) == 0);
        if (f == SAT_CHART_SVG)
            CHECK(contains(&a, "<svg"));
        if (f == SAT_CHART_PDF) {
            CHECK(a.n > 5 && memcmp(a.p, "%PDF", 4) == 0);
            CHECK(contains(&a, "%%EOF"));
        }
        CHECK(a.n == b.n && memcmp(a.p, b.p, a.n) == 0); /* deterministic */
        if (getenv("SAT_CHART_OUT")) {
            char path[512];
            snprintf(path, sizeof path, "%s/out%d.a", getenv("SAT_CHART_OUT"), f);
            FILE *o = fopen(path, "wb");
            fwrite(a.p, 1, a.n, o);
            fclose(o);
            snprintf(path, sizeof path, "%s/out%d.b", getenv("SAT_CHART_OUT"), f);
            o = fopen(path, "wb");
            fwrite(b.p, 1, b.n, o);
            fclose(o);
        }
        free(a.p);
        free(b.p);
    }
    /* every SVG id and reference carries the prefix */
    mem s = render(SAT_CHART_SVG, "t1-");
    CHECK(contains(&s, "id=\"t1-t\"") && contains(&s, "clip-path=\"url(#t1-k0)\""));
    CHECK(!contains(&s, "id=\"glyph") && !contains(&s, "href=\"#glyph") && !contains(&s, "url(#clip"));
    /* its words are text, each window's values a title */
    CHECK(contains(&s, ">operations per second</text>") && contains(&s, "<title>"));
    free(s.p);
    mem d = render(SAT_CHART_SVG, NULL);
    CHECK(contains(&d, "id=\"c") && !contains(&d, "id=\"glyph"));
    free(d.p);
    /* words from the inputs: a control character and bytes that are no
     * UTF-8 become "?" (cairo's context would stop measuring and drawing
     * at them), markup is escaped in the SVG, UTF-8 kept */
    sat_chart *x = sat_chart_new("t", 400, 0);
    sat_chart_panel *xp = sat_chart_panel_add(x, "bars", 1);
    sat_chart_panel_y(xp, SAT_AXIS_CATEGORY, NULL, SAT_UNIT_TEXT);
    sat_chart_series *xs = sat_chart_series_add(xp, NULL, SAT_SERIES_HBARS, SAT_COLOR_BLUE);
    sat_chart_bar(xs, "a\x01" "b\xff<c>&\xc3\xa9", 1);
    sat_chart_bar(xs, "after", 0.5);
    mem xm = {0};
    sat_diag xd = {0};
    CHECK_EQ_INT(sat_chart_write(x, SAT_CHART_SVG, to_mem, &xm, &xd), SAT_OK);
    CHECK(contains(&xm, ">a?b?&lt;c&gt;&amp;\xc3\xa9</text>"));
    CHECK(contains(&xm, "<title>a?b?&lt;c&gt;&amp;\xc3\xa9: 1</title>"));
    CHECK(x->ntexts > 3 && x->texts[x->ntexts - 1].box.w > 0); /* still measured */
    free(xm.p);
    mem xp_png = {0};
    CHECK_EQ_INT(sat_chart_write(x, SAT_CHART_PNG, to_mem, &xp_png, &xd), SAT_OK);
    free(xp_png.p);
    sat_chart_free(x);
    /* a failing writer is an I/O error, said */
    sat_chart *c = crowded(200, 200);
    sat_diag diag = {0};
    CHECK_EQ_INT(sat_chart_write(c, SAT_CHART_PNG, fail_write, NULL, &diag), SAT_E_IO);
    CHECK(diag.msg[0] != 0);
    CHECK_EQ_INT(sat_chart_format_of("x.PNG"), SAT_CHART_PNG);
    CHECK_EQ_INT(sat_chart_format_of("a/b.svg"), SAT_CHART_SVG);
    CHECK_EQ_INT(sat_chart_format_of("x.pdf"), SAT_CHART_PDF);
    CHECK(sat_chart_format_of("x.jpg") < 0 && sat_chart_format_of("png") < 0);
    sat_chart_free(c);
}

static void test_structure(void)
{
    sat_chart *c = sat_chart_new("hist", 400, 300);
    sat_chart_panel *p = sat_chart_panel_add(c, "search", 1);
    sat_chart_panel_x(p, SAT_AXIS_LOG, "etime", SAT_UNIT_DURATION);
    sat_chart_panel_y(p, SAT_AXIS_LINEAR, "operations", SAT_UNIT_COUNT);
    sat_chart_series *s = sat_chart_series_add(p, "search", SAT_SERIES_BARS, SAT_COLOR_AUTO);
    for (int i = 0; i < 8; i++)
        sat_chart_point(s, 1e-5 * pow(2, i), 10 + i * 3);
    sat_chart_panel *q = sat_chart_panel_add(c, "where the time went", 1);
    sat_chart_panel_x(q, SAT_AXIS_LINEAR, "share of total etime", SAT_UNIT_RATIO);
    sat_chart_panel_y(q, SAT_AXIS_CATEGORY, NULL, SAT_UNIT_NONE);
    sat_chart_series *h = sat_chart_series_add(q, NULL, SAT_SERIES_HBARS, SAT_COLOR_AUTO);
    sat_chart_bar(h, "(&(objectClass=*)(uid=?))", 0.6);
    sat_chart_bar(h, "a very long filter shape that has to be cut to fit the left margin of this chart", 0.3);
    sat_chart_bar(h, "(cn=?)", 0.1);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    sat_diag d = {0};
    CHECK_EQ_INT(sat_chart_structure_json(c, f, &d), SAT_OK);
    fclose(f);
    CHECK(buf && strncmp(buf, "{\n  \"schema\": \"satscope/2\",\n  \"command\": \"chart\"", 48) == 0);
    CHECK(strstr(buf, "\"scale\": \"log\"") != NULL);
    CHECK(strstr(buf, "\"categories\": [\"(&(objectClass=*)(uid=?))\"") != NULL);
    CHECK(strstr(buf, "\xE2\x80\xA6") != NULL); /* the long one cut with an ellipsis */
    CHECK_EQ_INT(overlaps(c), 0);
    /* the bars' row, the x ticks of both panels */
    CHECK(p->x.nticks >= 2 && q->x.nticks >= 2);
    CHECK(h->row && h->row[2] == 2);
    free(buf);
    /* the dump is the same twice, and a builder call lays out again */
    sat_chart_point(s, 1e-5 * 256, 5);
    CHECK(!c->laid_out);
    CHECK_EQ_INT(ch_layout(c), SAT_OK);
    CHECK(c->laid_out);
    sat_chart_free(c);
    /* NULL handles do nothing */
    sat_chart_point(NULL, 1, 2);
    sat_chart_span(NULL, 1, 2, "x");
    sat_chart_panel_note(NULL, "x");
    CHECK(sat_chart_panel_add(NULL, "x", 1) == NULL);
    sat_chart_free(NULL);
}

/* Windows chosen for the reader (chart_rebin.c): a day in 1 s windows is
 * drawn in 300 s ones, half an hour in 10 s; counts keep their sum, a rate
 * its mean, a latency its peak; the window the inputs end inside is left
 * out rather than drawn as a drop. */
static void test_rebin(void)
{
    CHECK(ch_window_for(86400, 1, 300) == 300);
    CHECK(ch_window_for(1800, 1, 300) == 10);
    CHECK(ch_window_for(3600, 10, 300) == 20);
    CHECK(ch_window_for(600, 10, 300) == 10);
    CHECK(ch_window_for(86400 * 30, 1, 300) >= 86400 * 30 / 300.0);
    CHECK(fmod(ch_window_for(3600, 3, 300), 3) == 0); /* a multiple of the data's */

    double t0 = utc(2026, 3, 2, 0, 0, 0), end = t0 + 1799.002; /* the last window: 2 ms */
    sat_chart *c = sat_chart_new("t", 600, 400);
    sat_chart_share_x(c, SAT_AXIS_TIME, "time", SAT_UNIT_TIME);
    sat_chart_panel *p = sat_chart_panel_add(c, "p", 1);
    sat_chart_series *count = sat_chart_series_add(p, "count", SAT_SERIES_STACKED, SAT_COLOR_AUTO);
    sat_chart_series *rate = sat_chart_series_add(p, "rate", SAT_SERIES_STEP, SAT_COLOR_AUTO);
    sat_chart_series *lat = sat_chart_series_add(p, "p99", SAT_SERIES_STEP, SAT_COLOR_AUTO);
    sat_chart_series_width(count, 1);
    sat_chart_series_width(rate, 1);
    sat_chart_series_width(lat, 1);
    rate->merge = CH_MERGE_TIME_MEAN;
    lat->merge = CH_MERGE_MAX;
    for (int i = 0; i < 1800; i++) {
        sat_chart_point(count, t0 + i, 2);
        sat_chart_point(rate, t0 + i, 4);
        sat_chart_point(lat, t0 + i, i == 1234 ? 9 : 0.5);
    }
    ch_rebin(c, ch_window_for(1800, 1, 300), NAN, end);
    CHECK(count->n == 179 && count->width == 10);
    double sum = 0, peak = 0;
    for (size_t i = 0; i < count->n; i++) {
        sum += count->y[i];
        CHECK(count->x[i] + count->width <= end);
        CHECK(rate->y[i] == 4);
        peak = fmax(peak, lat->y[i]);
    }
    CHECK(sum == 2 * 1790);
    CHECK(peak == 9);
    sat_chart_free(c);
    /* a table with a window per server (the storms'): the servers' counts of
     * one window add up into it, in time order */
    c = sat_chart_new("t", 600, 400);
    sat_chart_share_x(c, SAT_AXIS_TIME, "time", SAT_UNIT_TIME);
    p = sat_chart_panel_add(c, "p", 1);
    count = sat_chart_series_add(p, "count", SAT_SERIES_STACKED, SAT_COLOR_AUTO);
    sat_chart_series_width(count, 10);
    for (int server = 0; server < 2; server++)
        for (int i = 0; i < 6; i++)
            sat_chart_point(count, t0 + i * 10, server + 1);
    ch_rebin(c, 10, NAN, t0 + 60);
    CHECK(count->n == 6);
    for (size_t i = 0; i < count->n; i++)
        CHECK(count->y[i] == 3 && count->x[i] == t0 + (double)i * 10);
    sat_chart_free(c);
}

int main(void)
{
    test_nice();
    test_rebin();
    test_linear();
    test_log();
    test_time();
    test_crowded();
    test_outputs();
    test_structure();
    /* a picture to look at: SAT_CHART_OUT=dir writes the crowded chart */
    const char *dir = getenv("SAT_CHART_OUT");
    if (dir) {
        char path[512];
        sat_chart *c = crowded(700, 620);
        snprintf(path, sizeof path, "%s/crowded.png", dir);
        sat_chart_write_file(c, path, NULL, NULL);
        sat_chart_free(c);
        c = crowded(300, 260);
        snprintf(path, sizeof path, "%s/small.png", dir);
        sat_chart_write_file(c, path, NULL, NULL);
        sat_chart_free(c);
    }
    sat_chart_release_fonts();
    return CHECK_DONE();
}
