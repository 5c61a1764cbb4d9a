/*
 * fuzz_chart.c - libFuzzer target for the chart engine (report/chart*.c):
 * arbitrary bytes become a chart built through the public API (panels on a
 * shared or own axes of any scale, series of every style with any doubles:
 * NaN, infinities, huge, negative on log axes; bars with any category
 * bytes; spans, markers, bands, lines, labelled points, notes, fixed
 * ranges; any page size), which is laid out, dumped as its structure and
 * drawn; the layout's promise is checked too: no two texts drawn overlap and
 * none leaves the page. Seed corpus: tests/fuzz/corpus/fuzz_chart/.
 */
#include <cairo.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../report/chart/chart_int.h"

#define REC 17 /* an op byte, then two 8-byte doubles */

static double dbl(const uint8_t *p)
{
    double d;
    memcpy(&d, p, 8);
    return d;
}

/* Small numbers more often than not: a byte pair read as a value 0..6553.5,
 * or the raw double when the op says so. */
static double val(const uint8_t *p, int raw)
{
    return raw ? dbl(p) : (p[0] | p[1] << 8) / 10.0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) { /* fontconfig's caches, freed at exit for the leak checker */
        once = 1;
        atexit(sat_chart_release_fonts);
    }
    if (size < 4)
        return 0;
    double w = 60 + data[0] * 4, h = 60 + data[1] * 4;
    sat_chart *c = sat_chart_new(data[2] & 1 ? "a chart title of some length" : NULL, w, h);
    if (!c)
        return 0;
    static const sat_axis_scale scales[] = {SAT_AXIS_LINEAR, SAT_AXIS_LOG, SAT_AXIS_TIME, SAT_AXIS_CATEGORY};
    static const sat_unit units[] = {SAT_UNIT_COUNT, SAT_UNIT_DURATION, SAT_UNIT_BYTES, SAT_UNIT_RATIO,
                                     SAT_UNIT_RATE, SAT_UNIT_NUMBER};
    if (data[2] & 2) {
        sat_chart_share_x(c, scales[(data[2] >> 2) % 3], "x", units[(data[2] >> 4) % 6]);
        sat_chart_set_time_zone(c, (int32_t)(data[3] - 128) * 900, data[2] & 0x80);
    }
    data += 4;
    size -= 4;
    sat_chart_panel *p = NULL;
    sat_chart_series *s = NULL;
    for (size_t off = 0; off + REC <= size; off += REC) {
        const uint8_t *r = data + off;
        int raw = r[0] & 0x80;
        double a = val(r + 1, raw), b = val(r + 9, raw);
        char cat[9];
        switch (r[0] % 14) {
        case 0:
            p = sat_chart_panel_add(c, r[1] & 1 ? "a panel" : NULL, (r[2] % 4) / 2.0);
            sat_chart_panel_y(p, scales[r[3] % 4], r[4] & 1 ? "y label" : NULL, units[r[5] % 6]);
            sat_chart_panel_x(p, scales[r[6] % 3], r[7] & 1 ? "x label" : NULL, units[r[8] % 6]);
            s = NULL;
            break;
        case 1:
            s = (r[1] & 1 ? sat_chart_series_right : sat_chart_series_add)(
                p, r[2] & 1 ? "a series with a name" : NULL, (sat_series_style)(r[3] % 6),
                (int)(r[4] % 10) - 1);
            if (r[5] & 1)
                sat_chart_series_dashed(s);
            if (r[5] & 2)
                sat_chart_series_width(s, b);
            break;
        case 2:
        case 3:
        case 4: sat_chart_point(s, a, b); break;
        case 5:
            memcpy(cat, r + 1, 8);
            cat[8] = '\0';
            sat_chart_bar(s, cat, b);
            break;
        case 6: sat_chart_span(c, a, b, r[1] & 1 ? "a span" : NULL); break;
        case 7: sat_chart_marker(c, a, r[1] & 1 ? "a marker" : NULL); break;
        case 8: sat_chart_band(c, a, b, "a band"); break;
        case 9: sat_chart_panel_vline(p, a, "vline"); break;
        case 10: sat_chart_panel_hline(p, b, "hline"); break;
        case 11: sat_chart_panel_label(p, a, b, "a point"); break;
        case 12:
            if (r[1] & 1)
                sat_chart_panel_y_range(p, a, b);
            else
                sat_chart_set_x_range(c, a, b);
            if (r[2] & 1)
                sat_chart_panel_y2(p, scales[r[3] % 2], "y2", units[r[4] % 6], a, b);
            break;
        case 13: sat_chart_panel_note(p, "nothing here"); break;
        }
    }
    if (ch_layout(c) == SAT_OK) {
        for (size_t i = 0; i < c->ntexts; i++) {
            const ch_rect *t = &c->texts[i].box;
            if (t->x < -0.01 || t->y < -0.01 || t->x + t->w > c->w + 0.01 || t->y + t->h > c->h + 0.01)
                __builtin_trap(); /* a text off the page */
            for (size_t k = i + 1; k < c->ntexts; k++)
                if (ch_rect_overlap(t, &c->texts[k].box))
                    __builtin_trap(); /* two texts over each other */
        }
        FILE *out = fopen("/dev/null", "w");
        if (out) {
            sat_chart_structure_json(c, out, NULL);
            fclose(out);
        }
        cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 8, 8);
        cairo_t *cr = cairo_create(surf);
        sat_chart_draw(c, cr, 0, 0);
        cairo_destroy(cr);
        cairo_surface_destroy(surf);
    }
    sat_chart_free(c);
    return 0;
}
