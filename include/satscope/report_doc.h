/*
 * report_doc.h - reports: documents (a post-mortem, a nightly digest) built
 * from analyzer results and written as HTML, PDF, PNG, SVG, e-mail, text or
 * JSON (`satscope report INPUT... -o OUT`). A report is itself a sat_result
 * (satscope/result.h, command "report"): a builder (one per report kind)
 * writes the document tree from the results of the analyzers that read the
 * inputs; renderers (one per output form) walk that tree generically, with
 * the result sets at hand for the charts. A renderer never knows which
 * builder made the document, nor a builder how it will be drawn: a new kind
 * of block is added here, generically, never as a renderer branch per
 * section id.
 *
 * ---- The document (the JSON of `-o x.json` is exactly this tree) -----------
 *
 *   root object
 *     kind          TEXT   "postmortem" | "digest" (sat_report_kind.name), or
 *                          "command": an analyzer's own sections, what its
 *                          command prints (sat_report_sections)
 *     title         TEXT   the report's title (--title, else the builder's)
 *     first_ts      TIME   the span the inputs cover (absent: nothing dated)
 *     last_ts       TIME
 *     utc_offset_s  INT    the inputs' UTC offset (seconds east); the forms
 *                          show local times at that offset unless --utc
 *     inputs        table  one row per source: path, kind, format, bytes,
 *                          lines, rejects, first_ts, last_ts (its span)
 *     findings      list   the report's conclusions, most important first
 *                          (each a finding object, below); may be empty
 *     metrics       list   (may be absent) figures for monitoring, each
 *                          {metric TEXT (satscope_...), help TEXT, value
 *                          NUMBER, labels object of TEXT}: what the .prom
 *                          form (a node-exporter textfile) writes
 *     pages         list   postmortem: one page; digest: the fleet summary
 *                          first, then one page per server and day
 *
 *   finding object
 *     severity      TEXT   "critical" | "warning" | "notice"
 *     text          TEXT   one sentence, written from the results' figures
 *     section       TEXT   the id of the section that shows it (may be absent)
 *     figures       object the typed values the sentence quotes (so that a
 *                          reader of the JSON needs no parsing of prose)
 *
 *   page object
 *     title         TEXT
 *     subtitle      TEXT   (may be absent)
 *     utc_offset_s  INT    (may be absent) the offset the page's times are
 *                          shown at (a digest's server-day: its local day),
 *                          else the document's
 *     set           INT    index of the result set its charts draw from
 *                          (sat_report_set; 0 = the inputs' results)
 *     findings      list   findings of this page only (digest: per server
 *                          and day); may be absent
 *     sections      list   of section objects, in reading order
 *
 *   section object  (every block is optional; renderers draw them in this
 *                   order: paragraphs, pre, values, charts (the text forms:
 *                   the sparklines in their place), tables, sections)
 *     section       TEXT   its id, unique among its siblings ("timeline",
 *                          "storms"): the HTML anchor (with its parents'),
 *                          what findings' `section` names
 *     title         TEXT   (absent: an untitled group of blocks, drawn in
 *                          its place at its parent's level: how a builder
 *                          puts a table before a paragraph)
 *     paragraphs    list of TEXT   paragraphs of prose
 *     pre           list of TEXT   lines shown as they are (LDIF, a formula);
 *                          the text forms start them in the first column,
 *                          so that they can be copied
 *     values        object a summary: named values with units and notes
 *                          (sat_put_* and sat_put_note), shown "label value
 *                          note"; the label is the key read as words
 *                          (sat_key_label: "full_handshakes_s" -> "full
 *                          handshakes"), so builders name values to read well
 *     charts        list of TEXT   chart kind names (sat_chart_kind_find),
 *                          built from the page's set when drawn
 *     tables        list of table blocks: object {title TEXT, note TEXT
 *                          (may be absent), rows_total COUNT (may be absent:
 *                          the body's rows), body: table}; the body's columns
 *                          carry their text titles (sat_col.title); renderers
 *                          show at most SAT_DOC_TABLE_ROWS rows and "... N
 *                          more" after (N from rows_total: a builder may copy
 *                          fewer); footnote TEXT (may be absent) under it;
 *                          wrap BOOL (may be absent): 1 when the text forms
 *                          wrap its long text cells on further lines rather
 *                          than cut them (sat_doc_wrap); wide_only: list of
 *                          TEXT (may be absent), the columns a narrow form
 *                          (text within 100 columns, PDF) leaves out;
 *                          highlight TEXT (may be absent): a column whose
 *                          true or positive value marks its row
 *                          (sat_doc_highlight); detail_pages: list of
 *                          INT (may be absent), one per body row: the page
 *                          (1 the first of pages, 0 none) that details the
 *                          row, which HTML links its first cell to
 *     sparklines    list of sparkline objects (text forms only; HTML and
 *                          PDF draw charts instead): {title TEXT, unit TEXT
 *                          (a sat_unit name: "count", "duration"),
 *                          first_ts TIME, step_s DURATION, points: list of
 *                          NUMBER (absent = no data in that step), min, max
 *                          NUMBER}; per-minute or per-hour series from
 *                          timeline `minutes` or `hours` (sat_doc_spark_series)
 *     sections      list of section objects: its parts, a level deeper
 *
 *   Key names follow docs/output.md across every command (tests/cli/
 *   json_schema.py checks that one key holds one kind of value in every
 *   document): hence `section`, `paragraphs` and `body` rather than names
 *   other commands use for numbers; in values and figures reuse the
 *   analyzers' own names for the same thing (events, client_count,
 *   storm_count, signal_name) and never a name they use for a table.
 *
 *   Labels: a key shown to a person (a value of `values`, a column without
 *   a title) reads as words: its unit's suffix of the JSON conventions
 *   (_ts, _s, _bytes, _ratio, _per_s) dropped and '_' and '.' as blanks.
 *
 * ---- Ownership ---------------------------------------------------------------
 * A sat_report owns its document (a sat_result) and every result set added
 * to it (each result of a set is freed with sat_result_free when the report
 * is freed). Nodes and sets live until sat_report_free. Builder helpers on a
 * NULL node do nothing (as result.h's builders): a failed allocation is seen
 * once, by sat_result_status(sat_report_doc(rep)).
 */
#ifndef SATSCOPE_REPORT_DOC_H
#define SATSCOPE_REPORT_DOC_H

#include <stdio.h>

#include "satscope/base.h"
#include "satscope/chart.h"
#include "satscope/result.h"

/* The most rows a renderer shows of a table block. */
#define SAT_DOC_TABLE_ROWS 20

typedef struct sat_report sat_report;

/* A new report of `kind` with an empty document (root: kind; the builder
 * puts the rest). NULL when out of memory. */
sat_report *sat_report_new(const char *kind);
void sat_report_free(sat_report *rep); /* NULL ok */
sat_result *sat_report_doc(sat_report *rep);
/* Adds a set of results (one per analyzer, as sat_multi_results gives them):
 * the report takes ownership of results[0..n) (also on failure) and copies
 * the array. Returns the set's index (a page's `set`), or SAT_E_NOMEM. */
int sat_report_add_set(sat_report *rep, sat_result **results, size_t n);
/* n empty sets at the end, to be filled in any order (a by_day kind's days,
 * numbered as the inputs give them); the first one's index, or SAT_E_NOMEM. */
int sat_report_reserve_sets(sat_report *rep, size_t n);
/* Set i's results replaced by results[0..n) (taken, also on failure; the
 * old ones freed): a reserved set filled, or a set made smaller. */
int sat_report_put_set(sat_report *rep, size_t i, sat_result **results, size_t n);
size_t sat_report_nsets(const sat_report *rep);
/* Set i, NULL if there is none. Borrowed: lives as long as the report. */
const sat_result_set *sat_report_set(const sat_report *rep, size_t i);
/* The set a page draws from (its `set` value), NULL if none. */
const sat_result_set *sat_report_page_set(const sat_report *rep, const sat_rnode *page);

/* ---- building the document (report/report_doc.c) -------------------------------
 * Helpers that write the shape above, so that no builder spells it out. */

/* root: title, first_ts, last_ts, utc_offset_s (kind is there already). */
void sat_doc_head(sat_report *rep, const char *title, int64_t first_ts, int64_t last_ts,
                  int32_t utc_offset_s);
/* The inputs table (empty, its columns set), created on first call. */
sat_rnode *sat_doc_inputs(sat_report *rep);
/* A row of inputs: path, kind, format, bytes, lines, rejects and the span. */
void sat_doc_input(sat_report *rep, const char *path, const char *kind, const char *format,
                   uint64_t bytes, uint64_t lines, uint64_t rejects, int64_t first_ts,
                   int64_t last_ts);
/* A finding in list `findings` (the root's: sat_doc_findings(rep, NULL); a
 * page's: sat_doc_findings(rep, page)): returns its `figures` object for the
 * builder to put the quoted values in. section may be NULL. */
sat_rnode *sat_doc_findings(sat_report *rep, sat_rnode *page);
sat_rnode *sat_doc_finding(sat_rnode *findings, const char *severity, const char *section,
                           const char *fmt, ...) SAT_PRINTF(4, 5);
/* A figure for monitoring at the end of the root's metrics: its metric name
 * ("satscope_digest_errors"), help, value, and its labels as name, value
 * pairs ending with NULL ("server", "ldap01", "day", "2026-11-03", NULL). */
void sat_doc_metric(sat_report *rep, const char *metric, const char *help, double value, ...);
/* A page at the end of pages. */
sat_rnode *sat_doc_page(sat_report *rep, const char *title, const char *subtitle, int set);
/* A section (id: its `section` key) at the end of the sections of a page or
 * of a section (a part of it, a level deeper); title NULL: an untitled group. */
sat_rnode *sat_doc_section(sat_rnode *page, const char *id, const char *title);
/* A paragraph at the end of the section's text. */
void sat_doc_para(sat_rnode *section, const char *fmt, ...) SAT_PRINTF(2, 3);
/* A line shown as it is (preformatted), at the end of the section's `pre`. */
void sat_doc_pre(sat_rnode *section, const char *line);
/* A footnote under the section's last table block. */
void sat_doc_footnote(sat_rnode *section, const char *fmt, ...) SAT_PRINTF(2, 3);
/* The section's last table block keeps its text cells whole: the text
 * forms wrap them on further lines rather than cut them to fit the width
 * (names a reader needs whole: a backtrace's functions and source lines). */
void sat_doc_wrap(sat_rnode *section);
/* The section's last table block marks the rows whose column `col` is true
 * or above zero (a regression count, a `new` flag): the forms that can
 * (HTML, PDF) show those rows and that cell emphasised, so that what changed
 * is seen before it is read. */
void sat_doc_highlight(sat_rnode *section, const char *col);
/* The section's last table block: row i is detailed on page pages[i] (1 the
 * first of the document's pages; 0: on none); HTML links the row to it. */
void sat_doc_link_rows(sat_rnode *section, const int *pages, size_t n);
/* A chart kind name at the end of the section's charts. */
void sat_doc_chart(sat_rnode *section, const char *kind);
/* The section's values object (created on first call). */
sat_rnode *sat_doc_values(sat_rnode *section);
/* A table block: copies the rows of `src` (a table of an analyzer's result)
 * keeping the columns listed in `columns` ("a,b=Title,c"; NULL: all; a
 * column the table lacks is left out; "+b": b is wide_only) with their titles, at most max_rows
 * rows (0: all) from the first that `keep` accepts (NULL: every row);
 * rows_total counts the rows accepted. Returns the copied table (NULL if src
 * is NULL: nothing is added). */
sat_rnode *sat_doc_table(sat_rnode *section, const char *title, const char *note,
                         const sat_rnode *src, const char *columns, size_t max_rows,
                         int (*keep)(const sat_rnode *row, void *ctx), void *ctx);
/* The same, its rows ordered by column `by` (a number), largest first, ties
 * in the source's order ("the top offenders by total time"). */
sat_rnode *sat_doc_table_by(sat_rnode *section, const char *title, const char *note,
                            const sat_rnode *src, const char *columns, size_t max_rows,
                            const char *by);
/* A table block of the builder's own: a new table with these columns, to
 * fill with sat_table_row (rows_total is set by the renderers' count then);
 * a column named "+b" is column b, wide_only. */
sat_rnode *sat_doc_new_table(sat_rnode *section, const char *title, const char *note,
                             const sat_col *cols, size_t ncols);
/* A sparkline of column `col` of a series table (first column start_ts, a
 * window: timeline `hours`), its values divided by `per` (1: as they are).
 * Nothing when the table or the column is missing. */
void sat_doc_sparkline(sat_rnode *section, const char *title, const sat_rnode *series,
                       const char *col, double per);
/* The series a report's sparklines show of a timeline result: its minutes
 * when the span is short (the timeline writes them under three hours: a
 * half-hour incident is thirty marks, not one), else its hours; *step is
 * "minute" or "hour", for the sparklines' titles ("operations per minute").
 * NULL when the timeline has neither. */
const sat_rnode *sat_doc_spark_series(const sat_rnode *timeline, const char **step);
/* The series a report's latency sparklines show: etime's `windows` of a
 * minute each, or its local `hours`, when the sparklines are per minute or
 * per hour (nearest-rank percentiles from its sketches: what `etime --by
 * minute` and `--csv hours` print for the same minute or hour, where the
 * timeline's own series hold a coarser histogram's), else the timeline's
 * series (sat_doc_spark_series). step gets "minute" or "hour". */
const sat_rnode *sat_doc_latency_series(const sat_rnode *etime, const sat_rnode *timeline,
                                        char *step, size_t n);

/* ---- report kinds (report/report_kinds.c: one const table) ---------------------
 * A builder reads the inputs' results and writes the document. It runs no
 * analysis: the caller (the CLI) analyses the inputs as the kind asks, with
 * the analyzers it names (one pass over the inputs, one set of results), or,
 * for a kind `by_day`, with the digest's plan (analyze.h): the inputs and the
 * --baseline inputs split by server and local day, each day a set of results
 * named by role.
 *
 * Registering a kind: write report/report_<kind>.c defining a const
 * sat_report_kind, and add one line to the table of report_kinds.c. */

/* One (server, local day) of a by_day kind's inputs. */
typedef struct sat_report_day {
    const char *server;  /* its name: the host name its logs give, else its
                            input's (a rotated set's path without suffixes) */
    char date[16];       /* "2026-11-03", local; "undated" */
    int64_t start_ts;    /* its local midnight, UTC ns */
    int32_t utc_offset_s;
    uint64_t rows;
    int set;             /* the report's set of its results, by role */
    /* 1: it gets no page of its own, its line of the fleet table says it
     * (the kind's settle decided, and kept of its results only what that
     * line reads); 0: it has its page; -1: not decided yet */
    int quiet;
} sat_report_day;

typedef struct sat_report_input {
    const sat_result_set *set; /* the inputs' results (borrowed from rep); NULL by_day */
    char *const *paths;        /* the inputs as given */
    size_t npaths;
    const char *title;         /* --title, NULL: the builder's own */
    int utc;                   /* --utc */
    /* by_day: the inputs' days and the baseline's, in any order (borrowed) */
    const sat_report_day *days, *base_days;
    size_t ndays, nbase_days;
    uint64_t dropped_days;     /* days the split's bound left out */
    unsigned days_kept;        /* the bound: each server's last days kept */
} sat_report_input;

typedef struct sat_report_kind {
    const char *name;    /* "postmortem" */
    const char *summary; /* one line for --help */
    /* The analyzers whose results it reads, by registry name, NULL ended;
     * a name not in the registry is left out (an analyzer not built yet). */
    const char *const *analyzers;
    /* 1: analysed per server and day with the digest's plan, --baseline too */
    int by_day;
    /* Writes the document of rep from in; SAT_OK or < 0 with diag set. */
    int (*build)(sat_report *rep, const sat_report_input *in, sat_diag *diag);
    /* by_day, optional (NULL: none): one server's days (n, maybe 0) and its
     * baseline days, once their results are in the report and before the
     * next server's are made: the kind sets each day's `quiet`, and of the
     * days it will draw no page for (and of the baseline days no page will
     * compare with) keeps only what it reads of them. ndays_total: the days
     * of every server. So a fleet's digest holds one server's full results
     * at a time, and of the others what their pages show. SAT_OK or
     * SAT_E_NOMEM. */
    int (*settle)(sat_report *rep, sat_report_day *days, size_t n, sat_report_day *base,
                  size_t nb, size_t ndays_total);
} sat_report_kind;
const sat_report_kind *sat_report_kind_find(const char *name);
const sat_report_kind *const *sat_report_kind_list(size_t *n);

/* ---- output forms (report/report_render*.c: one const table by extension) ------ */
typedef struct sat_report_render_opts {
    int utc;               /* --utc: times in UTC (else local at utc_offset_s) */
    int wide;              /* text: no 100-column limit */
    size_t table_rows;     /* rows shown of a table block; 0: SAT_DOC_TABLE_ROWS,
                              SIZE_MAX: all (a command's own sections) */
    const char *mail_to;   /* .eml headers (--mail-to, --mail-from, --subject) */
    const char *mail_from;
    const char *subject;   /* NULL: the report's title and its count of findings */
    int64_t mail_date_ns;  /* .eml Date: (--mail-date; the CLI gives the time the
                              report is made); 0: the time it is rendered */
} sat_report_render_opts;

/* What an e-mail report's headers may hold (report/render/mail_header.c):
 * sat_mail_addr_check takes a From: or To: value, comma-separated mailboxes
 * (local@domain, Name <local@domain>, "Doe, John" <j@x>); sat_mail_text_check
 * a header's text (a subject): UTF-8 with no control character (a CR or LF
 * would end the header and start another). SAT_OK, or SAT_E_USAGE with why
 * ("holds a control character (\x0d)", "has 'x', not an address ..."). */
int sat_mail_addr_check(const char *list, char *why, size_t n);
int sat_mail_text_check(const char *s, char *why, size_t n);

typedef struct sat_report_renderer {
    const char *ext;     /* ".html"; "-" is standard output (text) */
    const char *name;    /* "HTML" */
    /* Writes rep (its document and sets) to out; SAT_OK or < 0, diag set. */
    int (*render)(sat_report *rep, const sat_report_render_opts *o, FILE *out, sat_diag *diag);
} sat_report_renderer;
/* The renderer for an output path by its extension ("-": text), NULL if
 * none. */
const sat_report_renderer *sat_report_renderer_for(const char *path);
/* The renderer of extension ext (".prom"), NULL if none. */
const sat_report_renderer *sat_report_renderer_of_ext(const char *ext);
const sat_report_renderer *const *sat_report_renderer_list(size_t *n);

#endif /* SATSCOPE_REPORT_DOC_H */
