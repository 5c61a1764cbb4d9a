/*
 * chart_int.h - the chart engine's insides (report/chart*.c), shared by the
 * model (chart.c), the ticks (chart_ticks.c), the layout (chart_layout.c),
 * the drawing (chart_draw.c), the outputs (chart_out.c) and the structure
 * dump (chart_json.c).
 *
 * The rule that ties them: the layout is computed once (ch_layout) into the
 * chart (ranges, ticks, frames, every text with its box, every label that
 * was dropped), and both the drawing and the structure dump only read it, so
 * the dump describes exactly what is drawn. A builder call after a layout
 * marks it stale; the next output lays out again.
 */
#ifndef SAT_CHART_INT_H
#define SAT_CHART_INT_H

#include <cairo.h>
#include <math.h>
#include <stddef.h>
#include <time.h>

#include "satscope/chart.h"

#define CH_FONT "DejaVu Sans"

/* What a text is, in the structure dump and for the order of placement. */
typedef enum ch_role {
    CH_T_TITLE,
    CH_T_PANEL_TITLE,
    CH_T_AXIS_LABEL,
    CH_T_TICK,
    CH_T_LEGEND,
    CH_T_NOTE,
    CH_T_SPAN,
    CH_T_MARKER,
    CH_T_BAND,
    CH_T_LINE,  /* a panel's vline / hline label */
    CH_T_POINT, /* a panel's labelled point */
    CH_T_VALUE, /* the value at the end of a horizontal bar */
    CH_T__COUNT
} ch_role;
extern const char *const ch_role_names[CH_T__COUNT];

typedef struct ch_rect {
    double x, y, w, h;
} ch_rect;

/* A text as drawn: at (x, y), its baseline's left end (vertical texts: turned
 * a quarter to the left about that point); box is what it covers. */
typedef struct ch_text {
    char *s;
    ch_role role;
    double size;
    int bold, italic, vertical;
    int grey; /* drawn in grey rather than near-black; 2: white, on a bar */
    double x, y;
    ch_rect box;
    int panel; /* index, or -1 for the chart's own */
} ch_text;

typedef struct ch_tick {
    double v;
    char *label;  /* NULL: a tick without a label (it did not fit) */
    char *label2; /* a second line: the date under a time, where it changes */
} ch_tick;

typedef struct ch_axis {
    int set;
    sat_axis_scale scale;
    char *label;
    sat_unit unit;
    int fixed;
    double flo, fhi;
    /* laid out */
    double lo, hi;
    ch_tick *ticks;
    size_t nticks;
    /* CATEGORY: the categories, top to bottom */
    char **cats;
    size_t ncats;
    int *cat_text; /* laid out: each category's label, an index into the texts (-1: none) */
} ch_axis;

typedef enum ch_annot_kind { CH_A_SPAN, CH_A_MARKER, CH_A_BAND, CH_A_VLINE, CH_A_HLINE, CH_A_LABEL } ch_annot_kind;
extern const char *const ch_annot_names[];

typedef struct ch_annot {
    ch_annot_kind kind;
    double x0, x1, y;
    char *label;
    /* laid out */
    int text;    /* index into the chart's texts, -1 if none drawn */
    ch_rect rect; /* BAND: its bar */
} ch_annot;

/* How a series' values over windows merge into a longer window (ch_rebin):
 * counts add up; a rate or a level is averaged over the time; a latency
 * keeps the largest (a storm's peak stays seen); a ratio is averaged over
 * its points. */
typedef enum ch_merge { CH_MERGE_SUM, CH_MERGE_TIME_MEAN, CH_MERGE_MAX, CH_MERGE_MEAN } ch_merge;

struct sat_chart_series {
    sat_chart_panel *panel;
    char *name;
    sat_series_style style;
    int color;
    int right;
    int dashed;
    double width;
    double *x, *y;
    char **cat; /* HBARS */
    size_t n, cap;
    /* laid out */
    double *base;   /* STACKED: the top of the earlier stacks at each point */
    size_t *row;    /* HBARS: the category row of each bar */
    int *vtext;     /* HBARS: the text of each bar's value (-1: none) */
    ch_merge merge; /* how windows merge into longer ones (ch_rebin) */
    double bar_w;   /* STACKED/BARS/STEP: the width used (x units) */
    ch_rect swatch; /* its legend entry's sample */
    int in_legend;
};

struct sat_chart_panel {
    sat_chart *chart;
    size_t index;
    char *title;
    double weight;
    ch_axis x, y, y2;
    char *note;
    sat_chart_series **series;
    size_t nseries, capseries;
    ch_annot *annots;
    size_t nannots, capannots;
    int next_color;
    /* laid out */
    ch_rect frame;
    int show_x;   /* draws its x ticks (own axis, or the bottom panel of a shared one) */
    int has_data; /* some series has a point */
};

struct sat_chart {
    char *title;
    double w, h;
    int auto_h;     /* height 0 given: as tall as the panels need */
    double shown_w; /* the width it is shown at (0: its own) */
    int status;
    int shared;
    ch_axis x;
    int32_t tz;
    int utc;
    sat_chart_panel **panels;
    size_t npanels, cappanels;
    ch_annot *annots;
    size_t nannots, capannots;
    char id_prefix[24]; /* SVG ids; "" = from the chart's content */
    /* laid out */
    int laid_out;
    ch_text *texts;
    size_t ntexts, captexts;
    ch_text *dropped; /* labels that did not fit anywhere (their box where they were tried) */
    size_t ndropped, capdropped;
    ch_rect strip; /* the row(s) of span and marker labels above the panels */
};

/* Seconds since the epoch as a time_t, 0 for what no calendar holds (a
 * double out of time_t's range must not be cast). */
static inline time_t ch_secs(double t)
{
    return isfinite(t) && fabs(t) < 1e14 ? (time_t)floor(t) : 0;
}

/* ---- chart.c: small helpers --------------------------------------------------- */
char *ch_strdup(sat_chart *c, const char *s); /* NULL stays NULL; sets the sticky error */
void *ch_grow(sat_chart *c, void *p, size_t *cap, size_t need, size_t size);
void ch_axis_clear_layout(ch_axis *a);
/* The colour of palette entry i as 0..1 r, g, b; "#E69F00" in hex. */
void ch_color_rgb(int i, double rgb[3]);
const char *ch_color_hex(int i);
const char *ch_style_name(sat_series_style s);
const char *ch_scale_name(sat_axis_scale s);
/* The axis x values of panel p map on: the chart's shared one or its own. */
ch_axis *ch_panel_xaxis(sat_chart_panel *p);

/* ---- chart_ticks.c -------------------------------------------------------------- */
/* The 1-2-5 step at least raw (> 0). */
double ch_nice_step(double raw);
/* Ticks for [lo, hi] on a linear axis, about target of them (>= 2): the
 * step is 1, 2 or 5 times a power of ten (BYTES: of a power of 1024).
 * expand=1 widens hi (and lo when below 0) to a multiple of the step.
 * Returns the count (<= max) written to v. */
size_t ch_ticks_linear(double *lo, double *hi, int expand, sat_unit unit, int target, double *v,
                       size_t max);
/* Log axis: decades (BYTES: powers of two), with 2 and 5 between when there
 * are few decades, every k-th decade when there are many. */
size_t ch_ticks_log(double *lo, double *hi, int expand, sat_unit unit, int target, double *v,
                    size_t max);
/* TIME: x in seconds since the epoch; ticks on round local seconds,
 * minutes, hours or days at utc_offset_s; the step used in *step. */
size_t ch_ticks_time(double lo, double hi, int32_t utc_offset_s, int target, double *v, size_t max,
                     double *step);
/* The label of a value tick by unit ("10 ms", "45%", "1 MiB", "1.2k"). */
void ch_tick_label(char *buf, size_t n, sat_unit unit, double v);
/* A time tick's label ("14:05", "14:05:30", "Jun 8") and its date line
 * ("Jun 8") in local time at utc_offset_s. */
void ch_time_label(char *buf, size_t n, char *date, size_t dn, double t, int32_t utc_offset_s,
                   double step);
/* "UTC", "UTC+02:00", "UTC-05:30". */
void ch_zone_name(char *buf, size_t n, int32_t utc_offset_s, int utc);
/* Fills a laid-out axis's ticks and labels (value axes) for the given range
 * and target; TIME axes use the chart's zone. */
int ch_axis_ticks(sat_chart *c, ch_axis *a, int target, int expand);

/* ---- chart_text.c: measuring and placing texts ------------------------------------ */
/* The layout's context: the chart, and a cairo context to measure text with. */
typedef struct ch_lay {
    sat_chart *c;
    cairo_surface_t *surf;
    cairo_t *cr;
} ch_lay;
/* A text to place: what it is and how it is set. */
typedef struct ch_tspec {
    const char *s;
    ch_role role;
    double size;
    int bold, italic, vertical, grey, panel;
} ch_tspec;
int ch_rect_overlap(const ch_rect *a, const ch_rect *b);
void ch_set_font(ch_lay *l, double size, int bold, int italic);
/* The advance width of s, and the font's ascent and descent. */
double ch_measure(ch_lay *l, const char *s, double size, int bold, int italic, double *asc, double *desc);
double ch_line_h(ch_lay *l, double size); /* ascent + descent */
double ch_ascent(ch_lay *l, double size);
/* s (copied) cut at a character boundary with "\u2026" to at most maxw wide;
 * NULL when out of memory. */
char *ch_fit_text(ch_lay *l, const char *s, double size, int bold, double maxw);
/* The box t covers at (x, y) (its baseline's left end), and its width. */
ch_rect ch_text_box(ch_lay *l, const ch_tspec *t, double x, double y, double *w);
/* 1 if b is on the page and overlaps no text placed. */
int ch_box_free(ch_lay *l, const ch_rect *b);
/* Places t at the first free one of n candidate positions (x, y: the
 * baseline's left end; anchor 0 left, 1 centre, 2 right of x): the text's
 * index, or -1 when it was dropped (listed in the chart's dropped ones). */
int ch_place(ch_lay *l, const ch_tspec *t, const double *xs, const double *ys, const int *anchors,
             size_t n);
int ch_place1(ch_lay *l, const ch_tspec *t, double x, double y, int anchor);
/* Lists t as dropped at (x, y) without trying it. */
void ch_drop(ch_lay *l, const ch_tspec *t, double x, double y, int anchor);

/* ---- chart_data.c: what the data spans ---------------------------------------------- */
typedef struct ch_range {
    double lo, hi;
    int any;
} ch_range;
void ch_extend(ch_range *r, double v, int log_scale); /* not finite (log: <= 0): ignored */
/* Prepares a panel's series (stack bases, widths, has_data) and takes the x
 * range of its series and own annotations into rx. SAT_OK or SAT_E_NOMEM. */
int ch_panel_data(sat_chart *c, sat_chart_panel *p, ch_range *rx);
/* The y range of a side (right: the y2 axis) of a panel into a. */
void ch_panel_yrange(sat_chart_panel *p, int right, ch_axis *a);
/* An x range from what rx took (fixed ranges win; linear from 0). */
void ch_xrange_finish(ch_axis *a, ch_range *r);
/* Maps a value onto a frame: x across, y up (the frame's bottom is lo). */
double ch_map(const ch_axis *a, double v, double from, double len);
/* The right edge of point i of a bar, stacked or step series: x + its
 * width, or on a log axis (histogram bins) the next point's x. */
double ch_bar_right(const sat_chart_series *s, const ch_axis *xa, size_t i);

/* ---- sizes (chart_layout.c, chart_header.c) ---------------------------------------
 * Sizes in points, at the size the chart is shown (every embedding shows
 * it at its own size: chart.h, sat_chart_show_width): no text under 9 pt,
 * the least a reader reads without effort on paper or on a screen (12 px). */
#define M_OUT 8.0      /* outer margin */
#define SZ_TITLE 13.0
#define SZ_PANEL 10.5
#define SZ_TICK 9.0
#define SZ_AXIS 9.0
#define SZ_LEGEND 9.0
#define SZ_NOTE 9.5
#define SZ_ANNOT 9.0
#define SZ_BAND 9.0
#define TICK_LEN 3.0
#define GAP 4.0
#define PANEL_GAP 12.0
#define BAND_ROW 13.0
#define STRIP_ROWS 4
#define SWATCH_W 12.0
/* An auto-height chart (height 0): a row of horizontal bars, and a value
 * panel's frame per unit of its weight. */
#define ROW_H 19.0
#define FRAME_H 150.0

/* ---- chart_header.c --------------------------------------------------------------- */
/* Flows panel p's header from x0 over width fw at baseline y, on at most
 * max_lines lines; returns the lines used; with commit, places the texts. */
int ch_header_flow(ch_lay *l, sat_chart_panel *p, double x0, double fw, double y, int max_lines,
                   int commit);
/* A span or marker with a label: in the strip. */
int ch_is_strip(const ch_annot *a);
/* The strip row of each of the chart's annotations (-1: dropped) over frame
 * f, and the left end of its label in xs; returns the rows used. */
int ch_strip_rows(ch_lay *l, const ch_rect *f, int *row, double *xs);

/* ---- chart_layout.c ------------------------------------------------------------ */
int ch_layout(sat_chart *c);
/* A text's size at the size the chart is shown, in points. */
double ch_shown_pt(const sat_chart *c, double size);

/* ---- chart_rebin.c: windows chosen for the reader ------------------------------- */
/* The window length (seconds) for a time axis over span seconds whose data
 * comes in windows of src seconds (the longest of its tables'): the shortest
 * round length, a multiple of src, giving at most max windows. */
double ch_window_for(double span, double src, size_t max);
/* Merges the points of every series of the chart's panels into windows of
 * w seconds (from a multiple of w), by each series' rule, leaving out those
 * before `from` (NAN: none); a window the inputs end inside (end: the last
 * time read) is left out, see there. */
void ch_rebin(sat_chart *c, double w, double from, double end);

/* ---- chart_draw.c: what is drawn, through a painter ------------------------------
 * ch_paint walks the layout once and says what to draw in a few calls a
 * painter turns into marks: cairo's (chart_draw.c: PNG, PDF, a report's
 * page) or the SVG writer's (chart_svg.c: text as text, a hover title per
 * window or bar). A path is built (move, line, rect, circle) and then
 * filled or stroked, as in cairo. Colours are inks, not values, so the SVG
 * can give them classes (a dark scheme) and cairo its light ones. */
typedef enum ch_ink {
    /* 0 .. SAT_COLOR__COUNT-1: the palette's colours */
    CH_INK_PAGE = SAT_COLOR__COUNT, /* the ground */
    CH_INK_GRID,                    /* grid lines */
    CH_INK_FRAME,                   /* frames and ticks */
    CH_INK_FAINT,                   /* an empty panel's frame */
    CH_INK_MARK,                    /* markers and a panel's lines */
    CH_INK_TEXT,
    CH_INK_TEXT_GREY,
    CH_INK_TEXT_ON_BAR, /* a value written inside its bar */
    CH_INK__COUNT
} ch_ink;
/* The colour of an ink on a light ground, 0..1. */
void ch_ink_rgb(int ink, double rgb[3]);

typedef struct ch_painter {
    void *x;
    void (*move)(void *x, double px, double py);
    void (*line)(void *x, double px, double py);
    void (*rect)(void *x, double rx, double ry, double w, double h);
    void (*circle)(void *x, double cx, double cy, double r);
    void (*fill)(void *x, int ink, double alpha);
    /* dash: {on, off} or NULL */
    void (*stroke)(void *x, int ink, double alpha, double width, const double *dash);
    void (*clip)(void *x, const ch_rect *r); /* NULL: the clip ends */
    void (*text)(void *x, const ch_text *t);
    /* A region whose value a pointer over it shows (SVG <title>); NULL: none. */
    void (*hover)(void *x, const ch_rect *r, const char *title);
} ch_painter;
void ch_paint(sat_chart *c, const ch_painter *p);
/* The cairo painter over cr. */
void ch_draw(sat_chart *c, void *cr);
/* The font options every context uses, so measured and drawn extents agree. */
void ch_font_setup(void *cr);

/* ---- chart_svg.c ------------------------------------------------------------------ */
/* The chart as an SVG document (laid out), written to write(closure, ...);
 * SAT_OK or SAT_E_IO / SAT_E_NOMEM. */
int ch_svg(sat_chart *c, int (*write)(void *closure, const unsigned char *data, size_t len),
           void *closure);
/* What the chart shows in a sentence or two, with its key figures (an SVG's
 * <desc>, an image's alt text); NUL-terminated in buf. */
void ch_summary(sat_chart *c, char *buf, size_t n);

/* ---- chart_kinds.c: results as coordinates -------------------------------------
 * Results are read with the typed readers (satscope/result.h); a point in time
 * is a chart x in seconds since the epoch: */
double ch_time(int64_t ts_ns); /* NAN for 0 (not known) */
/* The window length of a series table in seconds (0 if it is none). */
double ch_window_s(const sat_rnode *table);
/* "2025-06-09 13:30" in local time at the offset (or UTC). */
void ch_local_minute(char *buf, size_t n, double t, int32_t utc_offset_s);

/* The kinds (one file each). */
extern const sat_chart_kind ch_kind_timeline, ch_kind_storm, ch_kind_distributions, ch_kind_capacity;

#endif /* SAT_CHART_INT_H */
