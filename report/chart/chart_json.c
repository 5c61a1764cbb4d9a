/*
 * chart_json.c - the laid-out structure of a chart as JSON (chart.h,
 * sat_chart_structure_json): what the structural golden tests compare
 * instead of pixels, read from the one layout the drawing reads.
 *
 *   schema, command "chart", title, width_pt, height_pt, shown_width_pt (the
 *   width it is shown at: its own unless sat_chart_show_width), time_zone (a time
 *   axis), x_axis (a shared axis), panels [ {title, weight, frame {x y w h},
 *   x_axis (its own axis), y_axis, y2_axis, note, has_data, series [ {name,
 *   style, color, axis "left"|"right", dashed, width, in_legend, points
 *   [{x (ts on a time axis), y, y0 (a stacked bar's bottom)}], or bars [{category, value,
 *   row, label (its category's text as drawn, null when none is), value_label}]} ],
 *   annotations [ {kind, x, y, label, drawn} ]} ], annotations (the chart's
 *   spans, markers, bands: kind, x0, x1, label, drawn), texts [ {text, role,
 *   panel, size, size_pt (at the width it is shown: shown_width_pt), box [x y w h]} ],
 *   dropped (labels with no free place).
 *
 * An axis: scale, label, unit, lo, hi, ticks [ {value, label, date} ]; a
 * time axis writes its values as RFC 3339 UTC strings in keys ending _ts
 * (lo_ts, hi_ts, a tick's ts, x0_ts ...), as every document does. Page
 * coordinates in points, two decimals.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chart_int.h"
#include "satscope/report.h"

static const char *unit_name(sat_unit u)
{
    static const char *const names[] = {"none", "text",     "count", "int",  "time",  "duration",
                                        "bytes", "ratio", "rate",  "number", "bool"};
    return (unsigned)u < sizeof names / sizeof names[0] ? names[u] : "none";
}

/* Opens containers on one line from here in. */
static int compact(sat_json *j)
{
    int saved = j->compact_from;
    if (!j->compact_from || j->compact_from > j->depth + 1)
        j->compact_from = (unsigned char)(j->depth + 1);
    return saved;
}

/* A value on axis a: a time is an RFC 3339 string in a key ending _ts
 * ("value" and "x" become "ts"), as every document of the project writes
 * times. */
static void xval(sat_json *j, const char *key, const ch_axis *a, double v)
{
    if (a->scale != SAT_AXIS_TIME) {
        sat_json_num(j, key, v, 6);
        return;
    }
    char k[32];
    if (key)
        snprintf(k, sizeof k, "%s_ts", key);
    if (key && (strcmp(key, "value") == 0 || strcmp(key, "x") == 0))
        snprintf(k, sizeof k, "ts");
    /* to the microsecond: a double of seconds since the epoch holds no more */
    if (isfinite(v) && fabs(v) < 9e12)
        sat_json_ts(j, key ? k : NULL, (int64_t)llround(v * 1e6) * 1000);
    else
        sat_json_null(j, key ? k : NULL);
}

static void rect(sat_json *j, const char *key, const ch_rect *r)
{
    int saved = compact(j);
    sat_json_object(j, key);
    sat_json_num(j, "x", r->x, 2);
    sat_json_num(j, "y", r->y, 2);
    sat_json_num(j, "w", r->w, 2);
    sat_json_num(j, "h", r->h, 2);
    sat_json_end(j);
    j->compact_from = (unsigned char)saved;
}

static void axis(sat_json *j, const char *key, const ch_axis *a)
{
    sat_json_object(j, key);
    sat_json_str(j, "scale", ch_scale_name(a->scale));
    sat_json_str(j, "label", a->label);
    sat_json_str(j, "unit", unit_name(a->unit));
    if (a->scale == SAT_AXIS_CATEGORY) {
        int saved = compact(j);
        sat_json_array(j, "categories");
        for (size_t i = 0; i < a->ncats; i++)
            sat_json_str(j, NULL, a->cats[i]);
        sat_json_end(j);
        j->compact_from = (unsigned char)saved;
    } else {
        xval(j, "lo", a, a->lo);
        xval(j, "hi", a, a->hi);
        sat_json_array(j, "ticks");
        for (size_t i = 0; i < a->nticks; i++) {
            int saved = compact(j);
            sat_json_object(j, NULL);
            xval(j, "value", a, a->ticks[i].v);
            sat_json_str(j, "label", a->ticks[i].label);
            if (a->ticks[i].label2)
                sat_json_str(j, "date", a->ticks[i].label2);
            sat_json_end(j);
            j->compact_from = (unsigned char)saved;
        }
        sat_json_end(j);
    }
    sat_json_end(j);
}

/* The text of index k, or null. */
static void text_ref(sat_json *j, const char *key, const sat_chart *c, int k)
{
    if (k >= 0 && (size_t)k < c->ntexts)
        sat_json_str(j, key, c->texts[k].s);
    else
        sat_json_null(j, key);
}

static void series(sat_json *j, sat_chart_panel *p, const sat_chart_series *s)
{
    const ch_axis *xa = ch_panel_xaxis(p);
    sat_json_object(j, NULL);
    sat_json_str(j, "name", s->name);
    sat_json_str(j, "style", ch_style_name(s->style));
    sat_json_str(j, "color", ch_color_hex(s->color));
    sat_json_str(j, "axis", s->right ? "right" : "left");
    sat_json_bool(j, "dashed", s->dashed);
    if (s->style == SAT_SERIES_STACKED || s->style == SAT_SERIES_BARS || s->style == SAT_SERIES_STEP)
        sat_json_num(j, "width", s->bar_w, 6);
    sat_json_bool(j, "in_legend", s->in_legend);
    if (s->style == SAT_SERIES_HBARS) {
        sat_json_array(j, "bars");
        for (size_t i = 0; i < s->n; i++) {
            int saved = compact(j);
            sat_json_object(j, NULL);
            sat_json_str(j, "category", s->cat[i]);
            sat_json_num(j, "value", s->y[i], 6);
            if (s->row) {
                sat_json_u64(j, "row", s->row[i]);
                text_ref(j, "label", p->chart, p->y.cat_text && s->row[i] < p->y.ncats ? p->y.cat_text[s->row[i]] : -1);
            }
            if (s->vtext)
                text_ref(j, "value_label", p->chart, s->vtext[i]);
            sat_json_end(j);
            j->compact_from = (unsigned char)saved;
        }
        sat_json_end(j);
    } else {
        sat_json_array(j, "points");
        for (size_t i = 0; i < s->n; i++) {
            int saved = compact(j);
            sat_json_object(j, NULL);
            xval(j, "x", xa, s->x[i]);
            sat_json_num(j, "y", s->y[i], 6);
            if (s->base)
                sat_json_num(j, "y0", s->base[i], 6);
            sat_json_end(j);
            j->compact_from = (unsigned char)saved;
        }
        sat_json_end(j);
    }
    sat_json_end(j);
}

static void annots(sat_json *j, const char *key, const ch_annot *a, size_t n, const ch_axis *xa)
{
    sat_json_array(j, key);
    for (size_t i = 0; i < n; i++) {
        int saved = compact(j);
        sat_json_object(j, NULL);
        sat_json_str(j, "kind", ch_annot_names[a[i].kind]);
        if (a[i].kind == CH_A_SPAN || a[i].kind == CH_A_BAND) {
            xval(j, "x0", xa, a[i].x0);
            xval(j, "x1", xa, a[i].x1);
        } else if (a[i].kind != CH_A_HLINE) {
            xval(j, "x", xa, a[i].x0);
        }
        if (a[i].kind == CH_A_HLINE || a[i].kind == CH_A_LABEL)
            sat_json_num(j, "y", a[i].y, 6);
        sat_json_str(j, "label", a[i].label);
        sat_json_bool(j, "drawn", a[i].text >= 0);
        sat_json_end(j);
        j->compact_from = (unsigned char)saved;
    }
    sat_json_end(j);
}

static void texts(sat_json *j, const char *key, const sat_chart *c, const ch_text *t, size_t n)
{
    sat_json_array(j, key);
    for (size_t i = 0; i < n; i++) {
        int saved = compact(j);
        sat_json_object(j, NULL);
        sat_json_str(j, "text", t[i].s);
        sat_json_str(j, "role", ch_role_names[t[i].role]);
        if (t[i].panel >= 0)
            sat_json_i64(j, "panel", t[i].panel);
        else
            sat_json_null(j, "panel");
        sat_json_num(j, "size", t[i].size, 2);
        sat_json_num(j, "size_pt", ch_shown_pt(c, t[i].size), 2);
        if (t[i].vertical)
            sat_json_bool(j, "vertical", 1);
        sat_json_array(j, "box");
        sat_json_num(j, NULL, t[i].box.x, 2);
        sat_json_num(j, NULL, t[i].box.y, 2);
        sat_json_num(j, NULL, t[i].box.w, 2);
        sat_json_num(j, NULL, t[i].box.h, 2);
        sat_json_end(j);
        sat_json_end(j);
        j->compact_from = (unsigned char)saved;
    }
    sat_json_end(j);
}

int sat_chart_structure_json(sat_chart *c, FILE *out, sat_diag *diag)
{
    int st = ch_layout(c);
    if (st != SAT_OK)
        return sat_diag_set(diag, st, NULL, "laying out the chart: %s", sat_strerror(st));
    sat_json j;
    sat_json_init(&j, out);
    sat_json_object(&j, NULL);
    sat_json_str(&j, "schema", SAT_RESULT_SCHEMA);
    sat_json_str(&j, "command", "chart");
    sat_json_str(&j, "title", c->title);
    sat_json_num(&j, "width_pt", c->w, 2);
    sat_json_num(&j, "height_pt", c->h, 2);
    sat_json_num(&j, "shown_width_pt", c->shown_w > 0 ? c->shown_w : c->w, 2);
    if (c->shared) {
        if (c->x.scale == SAT_AXIS_TIME) {
            char zone[32];
            ch_zone_name(zone, sizeof zone, c->tz, c->utc);
            sat_json_str(&j, "time_zone", zone);
        }
        axis(&j, "x_axis", &c->x);
    }
    sat_json_array(&j, "panels");
    for (size_t i = 0; i < c->npanels; i++) {
        sat_chart_panel *p = c->panels[i];
        sat_json_object(&j, NULL);
        sat_json_str(&j, "title", p->title);
        sat_json_num(&j, "weight", p->weight, 3);
        rect(&j, "frame", &p->frame);
        if (!c->shared)
            axis(&j, "x_axis", &p->x);
        axis(&j, "y_axis", &p->y);
        if (p->y2.set)
            axis(&j, "y2_axis", &p->y2);
        sat_json_str(&j, "note", p->note);
        sat_json_bool(&j, "has_data", p->has_data);
        sat_json_array(&j, "series");
        for (size_t k = 0; k < p->nseries; k++)
            series(&j, p, p->series[k]);
        sat_json_end(&j);
        annots(&j, "annotations", p->annots, p->nannots, ch_panel_xaxis(p));
        sat_json_end(&j);
    }
    sat_json_end(&j);
    annots(&j, "annotations", c->annots, c->nannots, &c->x);
    texts(&j, "texts", c, c->texts, c->ntexts);
    texts(&j, "dropped", c, c->dropped, c->ndropped);
    sat_json_end(&j);
    st = sat_json_finish(&j);
    if (st != SAT_OK)
        return sat_diag_set(diag, st, NULL, "writing the chart's structure: %s", sat_strerror(st));
    return SAT_OK;
}
