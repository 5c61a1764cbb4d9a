/*
 * doc_int.h - (internal to report/) what the report builders, the section
 * builders and the forms of report_doc.h share: the clock every form shows
 * times on (local at the inputs' UTC offset, or UTC, or a command's RFC 3339
 * UTC), a value in human form on that clock, and the one walk over a
 * document's pages and sections. Results are read with result.h's typed
 * readers (absent is the caller's stand-in, never a made-up zero).
 */
#ifndef SAT_REPORT_DOC_INT_H
#define SAT_REPORT_DOC_INT_H

#include <math.h>
#include <stdio.h>

#include "satscope/report.h"
#include "satscope/report_doc.h"

/* ---- the clock ----------------------------------------------------------------- */
typedef struct rd_clock {
    int32_t offset_s; /* shown offset: the inputs' (0 with utc) */
    int utc;
    int dates;        /* 1: times carry their date (the report spans days) */
    int rfc3339;      /* 1: every time as RFC 3339 UTC, to the nanosecond
                         (a command's own output: what its JSON says) */
} rd_clock;
/* The clock of a span at an offset, and --utc. */
rd_clock rd_clock_at(int32_t utc_offset_s, int utc, int64_t first_ts, int64_t last_ts);
/* The clock of a document (its utc_offset_s, first_ts, last_ts) and --utc;
 * a command's document ("kind" command) shows RFC 3339 UTC. */
rd_clock rd_clock_of(const sat_rnode *doc_root, int utc);
/* "14:20:20", "14:23:08.998", "2025-06-09 14:20:20" (dates); "-" for 0. */
void rd_fmt_time(char *buf, size_t n, const rd_clock *c, int64_t ts_ns);
/* "2025-06-09 14:20:20" whatever c->dates. */
void rd_fmt_datetime(char *buf, size_t n, const rd_clock *c, int64_t ts_ns);
/* "UTC" or "UTC+02:00". */
void rd_fmt_zone(char *buf, size_t n, const rd_clock *c);
/* A value for a person: times on the clock, the rest as sat_fmt_value
 * (161 us, 45.5%, 1.23 MiB, yes/no); "-" when absent. */
void rd_fmt_value(char *buf, size_t n, const rd_clock *c, const sat_value *v);
/* The word every form prints for a finding's severity (its `severity`:
 * "critical", "warning", "notice"): "critical", "warning", "note"; so that
 * a page printed in black and white, or read aloud, still says it. An
 * unknown or absent severity reads "note". */
const char *rd_severity_word(const char *severity);
/* The same for n findings ("warnings", "notes"). */
const char *rd_severity_words(const char *severity, uint64_t n);
/* The i-th severity, most severe first ("critical", "warning", "notice");
 * NULL past the last. */
const char *rd_severity_at(size_t i);
/* A column's heading: its title, else its name as words (sat_key_label). */
void rd_col_title(char *buf, size_t n, const sat_col *col);

/* ---- the one walk of a document (doc/doc_walk.c) ----------------------------------
 * Every form (text, HTML, PDF) is a visitor of the same walk: the head, the
 * report's findings, each page (its findings, then its sections depth first:
 * a section's own blocks in the order paragraphs, pre, values, charts,
 * sparklines, tables, then its own sections a level deeper), the inputs as a
 * section of their own, the tail. A callback left NULL is skipped: the text
 * form draws sparklines and no charts, HTML and PDF the reverse. `level` is
 * how deep a section is among titled ones (0: a page's); an untitled section
 * keeps its parent's level and is visited without begin/end; `anchor` is the
 * section's id prefixed by its parents' and its page's ("p1-storms-storm-1"). */
typedef struct rd_visitor {
    void (*head)(void *x, const sat_rnode *root);
    void (*findings)(void *x, const sat_rnode *list, const char *title, int page);
    void (*page_begin)(void *x, const sat_rnode *page, int page_no, int npages);
    void (*page_end)(void *x, const sat_rnode *page);
    void (*section_begin)(void *x, const sat_rnode *s, const char *title, const char *anchor,
                          int level);
    void (*section_end)(void *x, const sat_rnode *s, int level);
    void (*paragraph)(void *x, const char *text, int level);
    void (*pre)(void *x, const sat_rnode *lines, int level); /* a list of TEXT */
    void (*values)(void *x, const sat_rnode *obj, int level);
    void (*chart)(void *x, const char *kind, const sat_result_set *set, int level);
    void (*sparkline)(void *x, const sat_rnode *sparkline, int level);
    void (*table)(void *x, const sat_rnode *block, int level);
    void (*tail)(void *x, const sat_rnode *root);
} rd_visitor;
/* Walks rep's document; SAT_OK or SAT_E_NOMEM. clock (may be NULL): the
 * visitor's clock, set to a page's own offset (utc_offset_s) while the walk
 * is in that page, and back to the document's after. */
int rd_walk(sat_report *rep, const rd_visitor *v, void *x, rd_clock *clock);
/* The most rows a form shows of a table block: opts' table_rows, else
 * SAT_DOC_TABLE_ROWS. */
size_t rd_table_rows(const sat_report_render_opts *o);

/* ---- the document -------------------------------------------------------------- */
/* A table block's rows table and how many rows it stands for. */
const sat_rnode *rd_block_rows(const sat_rnode *block, uint64_t *total);
/* The columns of a table block a form shows, at most max into out: every
 * one, or where the form is narrow (text within its width, a PDF page) all
 * but those the builder marked wide_only. Returns how many. */
size_t rd_block_cols(const sat_rnode *block, int narrow, sat_col *out, size_t max);

/* The column a row of a table block is marked by (sat_doc_highlight: its
 * value true or above zero), NULL when it is not. */
const char *rd_block_highlight(const sat_rnode *block, const sat_rnode *row);

/* Part `part` (1..rd_chart_parts) of the chart of kind `name` from set
 * (NULL when the kind is unknown or has nothing to draw; why is left in
 * diag). width/height 0: the kind's size. */
sat_chart *rd_chart(const char *name, const sat_result_set *set, int utc, double width_pt,
                    double height_pt, int part, sat_diag *diag);
/* How many parts (charts, one page region each) a report draws kind `name` in. */
int rd_chart_parts(const char *name, const sat_result_set *set);

/* The size a report draws a chart of kind `name` at, in points, on a page
 * `width` wide (the timeline is tall: six panels; h 0: as tall as the
 * chart's panels need, sat_chart_height). Every embedding shows a chart at
 * this size, never scaled down: its texts are 9 pt or more at it. */
void rd_chart_size(const char *name, double width, double *w, double *h);

/* The HTML form (report_render_html.c) with its charts handed to `fn`
 * (NULL: inline SVG), which writes what stands for chart number n (1, 2,
 * ...) in the page: the e-mail's <img src="cid:...">. */
/* s escaped for HTML text and attribute values (&, <, >, "). */
void rd_html_esc(FILE *f, const char *s);
typedef void (*rd_html_chart_fn)(void *ctx, FILE *out, sat_chart *c, const char *kind, int n);
int rd_html(sat_report *rep, const sat_report_render_opts *o, FILE *out, rd_html_chart_fn fn,
            void *ctx, sat_diag *diag);

/* ---- the builders ---------------------------------------------------------------- */
extern const sat_report_kind sat_report_postmortem;

#endif
