/*
 * chart.h - charts: a small declarative model of what to draw (panels stacked
 * on one page, axes, series, spans and markers), laid out once and then drawn
 * with cairo to PNG, SVG or PDF, or dumped as its structure (the series, the
 * points, the axis ranges and ticks, the boxes of every label) for tests.
 *
 * One look everywhere (report/chart_*.c): axes with their units and 1-2-5
 * ticks (time ticks on round seconds, minutes, hours or days, in the local
 * time of the input with its UTC offset shown, or UTC), legends, labels that
 * never overlap (their text extents are measured and a label that would
 * overlap another is moved or dropped), the Okabe-Ito colour-blind-safe
 * palette, and the DejaVu fonts the project installs (fonts-dejavu-core).
 * The same chart drawn twice gives the same bytes (PNG, SVG; PDF but for
 * its creation date, which the writer fixes).
 *
 * A chart is built by a chart kind (report/chart_kinds.c: timeline,
 * distributions, capacity) from result sections (satscope/result.h), never
 * from raw inputs.
 *
 * Ownership: the chart owns every panel, series and string given to it
 * (copied); handles live until sat_chart_free. Builder calls on NULL handles
 * do nothing; out of memory sets a sticky error (sat_chart_status).
 */
#ifndef SATSCOPE_CHART_H
#define SATSCOPE_CHART_H

#include <stdio.h>

#include "satscope/base.h"
#include "satscope/safe_out.h"
#include "satscope/result.h"

typedef struct sat_chart sat_chart;
typedef struct sat_chart_panel sat_chart_panel;
typedef struct sat_chart_series sat_chart_series;

/* How an axis maps values. TIME: x values are seconds since the epoch (UTC),
 * ticked on round local times. CATEGORY: the y axis of horizontal bars. */
typedef enum sat_axis_scale {
    SAT_AXIS_LINEAR,
    SAT_AXIS_LOG,
    SAT_AXIS_TIME,
    SAT_AXIS_CATEGORY
} sat_axis_scale;

typedef enum sat_series_style {
    SAT_SERIES_LINE,    /* points joined; a NAN y breaks the line */
    SAT_SERIES_STEP,    /* a value held over each window (x is the window's start) */
    SAT_SERIES_STACKED, /* stacked bars per window, on the panel's earlier STACKED series */
    SAT_SERIES_POINTS,  /* measured points (markers, no line) */
    SAT_SERIES_BARS,    /* bars per x (a histogram: x is the bin's lower edge) */
    SAT_SERIES_HBARS    /* horizontal bars: one per category (sat_chart_bar) */
} sat_series_style;

/* The Okabe-Ito palette, in its order; SAT_COLOR_AUTO takes the panel's next. */
enum { SAT_COLOR_AUTO = -1, SAT_COLOR_ORANGE = 0, SAT_COLOR_SKY_BLUE, SAT_COLOR_GREEN,
       SAT_COLOR_YELLOW, SAT_COLOR_BLUE, SAT_COLOR_VERMILLION, SAT_COLOR_PURPLE,
       SAT_COLOR_BLACK, SAT_COLOR__COUNT };

/* A chart of width x height points (1 pt = 1/72 in; PNGs are drawn at 2 px
 * per point for crisp text). title may be NULL. Height 0: as tall as its
 * panels need (rows of bars, frames by weight; sat_chart_height says). */
sat_chart *sat_chart_new(const char *title, double width_pt, double height_pt);
/* Its height in points, laid out (0 when it cannot be). */
double sat_chart_height(sat_chart *c);
/* The width the chart will be shown at, when not its own (a PNG scaled in a
 * page): the structure dump gives each text's size at that width (size_pt),
 * what a reader sees. Texts are laid out at 9 pt or more at the chart's own
 * size, so an embedding shows it at its size, never smaller. */
void sat_chart_show_width(sat_chart *c, double width_pt);
void sat_chart_free(sat_chart *c); /* NULL ok */
int sat_chart_status(const sat_chart *c); /* SAT_OK or SAT_E_NOMEM (sticky) */

/* Panels stack top to bottom; weight shares the height among them (1 = even).
 * With a shared x axis (sat_chart_share_x), every panel maps x alike, only the
 * bottom one shows the x ticks, and spans and markers cross every panel. */
void sat_chart_share_x(sat_chart *c, sat_axis_scale scale, const char *label, sat_unit unit);
/* TIME axes: show local time at this UTC offset (seconds east), labelled
 * "UTC+02:00"; utc=1 shows UTC whatever the offset (--utc). */
void sat_chart_set_time_zone(sat_chart *c, int32_t utc_offset_s, int utc);
/* Fixes the shared x range (else the data's). */
void sat_chart_set_x_range(sat_chart *c, double lo, double hi);

sat_chart_panel *sat_chart_panel_add(sat_chart *c, const char *title, double weight);
/* The panel's own x axis (charts without a shared x). */
void sat_chart_panel_x(sat_chart_panel *p, sat_axis_scale scale, const char *label, sat_unit unit);
/* The y axis: label and unit (ticks read "10 ms", "45%", "1.2 MiB"). */
void sat_chart_panel_y(sat_chart_panel *p, sat_axis_scale scale, const char *label, sat_unit unit);
/* Fixes the y range (e.g. 0..1 for ratios; else the data's, from 0 on linear axes). */
void sat_chart_panel_y_range(sat_chart_panel *p, double lo, double hi);
/* A right-hand y axis for series added with sat_chart_series_right (a ratio
 * over counts). */
void sat_chart_panel_y2(sat_chart_panel *p, sat_axis_scale scale, const char *label, sat_unit unit,
                        double lo, double hi);
/* A line of text in the panel when it has nothing to draw ("no TLS handshake
 * in the inputs"). */
void sat_chart_panel_note(sat_chart_panel *p, const char *text);

/* A series of the panel, named in the legend. width: a bar's or step's width in
 * x units (a window's length; 0: from the spacing of the points). */
sat_chart_series *sat_chart_series_add(sat_chart_panel *p, const char *name, sat_series_style style,
                                       int color);
sat_chart_series *sat_chart_series_right(sat_chart_panel *p, const char *name, sat_series_style style,
                                         int color);
void sat_chart_series_width(sat_chart_series *s, double width);
void sat_chart_series_dashed(sat_chart_series *s);
void sat_chart_point(sat_chart_series *s, double x, double y);
/* HBARS: one bar per category, top to bottom in the order given. */
void sat_chart_bar(sat_chart_series *s, const char *category, double value);

/* Annotations. Spans and markers of the chart cross every panel of a shared x
 * axis; a panel's own go in that panel. Labels are placed so as not to overlap. */
void sat_chart_span(sat_chart *c, double x0, double x1, const char *label);
void sat_chart_marker(sat_chart *c, double x, const char *label);
void sat_chart_panel_vline(sat_chart_panel *p, double x, const char *label);
void sat_chart_panel_hline(sat_chart_panel *p, double y, const char *label);
/* A labelled point in a panel (the USL's N*, a recommended cache size). */
void sat_chart_panel_label(sat_chart_panel *p, double x, double y, const char *label);
/* A thin band from x0 to x1 with its name, in a strip of its own under the
 * panels of a shared x axis, one row per band (the inputs: every source on
 * the one timeline). */
void sat_chart_band(sat_chart *c, double x0, double x1, const char *label);

/* ---- output ------------------------------------------------------------------ */
typedef enum sat_chart_format { SAT_CHART_PNG, SAT_CHART_SVG, SAT_CHART_PDF } sat_chart_format;
/* ".png", ".svg", ".pdf" at the end of path -> format; < 0 otherwise. */
int sat_chart_format_of(const char *path);

/* Writes the chart through write (called with chunks; returns 0 on success),
 * in format. SAT_OK, or SAT_E_IO / SAT_E_NOMEM with diag set. */
typedef int (*sat_chart_write_fn)(void *closure, const unsigned char *data, size_t len);
int sat_chart_write(sat_chart *c, sat_chart_format fmt, sat_chart_write_fn write, void *closure,
                    sat_diag *diag);
/* To path by its extension, through the safe writer (safe_out.h; oo may be
 * NULL: mode 0600, no inputs): a cairo error or a write error leaves nothing
 * under path. */
int sat_chart_write_file(sat_chart *c, const char *path, const sat_out_opts *oo, sat_diag *diag);
/* The chart written in fmt into a new buffer (*out, *len; the caller frees
 * *out). SAT_OK or < 0 with diag set. */
int sat_chart_bytes(sat_chart *c, sat_chart_format fmt, unsigned char **out, size_t *len,
                    sat_diag *diag);
/* The SVG's ids (its title, description and clips) are written with a
 * prefix, so that several SVGs inlined in one HTML page never share one:
 * this prefix (letters, digits, '-', '_'), or by default "c" and a hash of
 * the chart's texts followed by '-'. */
void sat_chart_svg_id_prefix(sat_chart *c, const char *prefix);
/* What the chart shows in a few sentences with its key figures (each
 * panel's peak or largest bar): an image's alt text, the SVG's <desc>. */
void sat_chart_summary(sat_chart *c, char *buf, size_t n);

/* Draws the chart into an existing cairo context (a page of a PDF report) with
 * its top-left corner at (x, y), at its own size. cr is a cairo_t *. */
int sat_chart_draw(sat_chart *c, void *cr, double x, double y);

/* The laid-out structure as JSON (schema "satscope/2", command "chart"): size,
 * panels with their axes (scale, range, ticks with their labels), series
 * (style, colour, points), annotations, and the box of every text drawn. What
 * the structural golden tests compare, instead of pixels. */
int sat_chart_structure_json(sat_chart *c, FILE *out, sat_diag *diag);

/* Frees the font caches cairo and fontconfig keep for the process's life,
 * so that a leak checker sees none: at program exit only, after the last
 * chart (the commands that draw call it before they return). */
void sat_chart_release_fonts(void);

/* ---- chart kinds: charts built from analyzer results (a sat_result_set) ----------- */
typedef struct sat_chart_opts {
    int utc;             /* --utc */
    double width_pt;     /* 0: the kind's default */
    double height_pt;    /* 0: the kind's default (some: as tall as their panels need) */
    int part;            /* 0: the whole chart; k >= 1: its k-th part (sat_chart_kind.parts) */
} sat_chart_opts;

typedef struct sat_chart_kind {
    const char *name;       /* "timeline" */
    const char *summary;    /* one line for --help */
    const char *const *analyzers; /* the analyzers whose results it reads, NULL ended */
    /* Builds the chart from the set; NULL when out of memory or the set lacks
     * everything it draws (diag says what). */
    sat_chart *(*build)(const sat_result_set *set, const sat_chart_opts *opts, sat_diag *diag);
    /* How many parts a page shows it in, one page region each (NULL: 1,
     * the whole); a report draws parts 1..n, `satscope chart` the whole. */
    size_t (*parts)(const sat_result_set *set);
} sat_chart_kind;
const sat_chart_kind *sat_chart_kind_find(const char *name);
/* The most windows a chart's time series is drawn in: as many as a page
 * shows side by side (a 10 s window over an hour, 60 s over six), not 2000
 * hairlines; whoever runs the timeline for charts asks for no more. */
#define SAT_CHART_WINDOWS 400
const sat_chart_kind *const *sat_chart_kind_list(size_t *n);

#endif /* SATSCOPE_CHART_H */
