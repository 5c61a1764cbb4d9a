/*
 * report_doc.c - the report (satscope/report_doc.h): a document that is a
 * sat_result of command "report", the result sets its charts draw from, and
 * the helpers that write the document's shape (head, inputs, findings,
 * pages, sections and their blocks) so that every builder writes it alike.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/report_doc.h"

struct sat_report {
    sat_result *doc;
    sat_result_set *sets;
    sat_result ***owned; /* sets[i].results, owned */
    size_t nsets;
};

sat_report *sat_report_new(const char *kind)
{
    sat_report *rep = calloc(1, sizeof *rep);
    if (!rep)
        return NULL;
    rep->doc = sat_result_new("report");
    if (!rep->doc) {
        free(rep);
        return NULL;
    }
    sat_put_text(sat_result_root(rep->doc), "kind", kind);
    return rep;
}

void sat_report_free(sat_report *rep)
{
    if (!rep)
        return;
    for (size_t i = 0; i < rep->nsets; i++) {
        for (size_t k = 0; k < rep->sets[i].n; k++)
            sat_result_free(rep->owned[i][k]);
        free(rep->owned[i]);
    }
    free(rep->sets);
    free(rep->owned);
    sat_result_free(rep->doc);
    free(rep);
}

sat_result *sat_report_doc(sat_report *rep) { return rep ? rep->doc : NULL; }

int sat_report_add_set(sat_report *rep, sat_result **results, size_t n)
{
    sat_result **copy = n ? malloc(n * sizeof *copy) : NULL;
    sat_result_set *ns = rep ? realloc(rep->sets, (rep->nsets + 1) * sizeof *ns) : NULL;
    if (ns)
        rep->sets = ns;
    sat_result ***no = ns ? realloc(rep->owned, (rep->nsets + 1) * sizeof *no) : NULL;
    if (no)
        rep->owned = no;
    if (!ns || !no || (n && !copy)) {
        for (size_t k = 0; k < n; k++)
            sat_result_free(results[k]);
        free(copy);
        return SAT_E_NOMEM;
    }
    if (n)
        memcpy(copy, results, n * sizeof *copy);
    rep->owned[rep->nsets] = copy;
    rep->sets[rep->nsets].results = copy;
    rep->sets[rep->nsets].n = n;
    return (int)rep->nsets++;
}

int sat_report_reserve_sets(sat_report *rep, size_t n)
{
    int first = rep ? (int)rep->nsets : SAT_E_NOMEM;
    for (size_t i = 0; i < n && first >= 0; i++)
        if (sat_report_add_set(rep, NULL, 0) < 0)
            return SAT_E_NOMEM;
    return first;
}

int sat_report_put_set(sat_report *rep, size_t i, sat_result **results, size_t n)
{
    sat_result **copy = n ? malloc(n * sizeof *copy) : NULL;
    if (!rep || i >= rep->nsets || (n && !copy)) {
        for (size_t k = 0; k < n; k++)
            sat_result_free(results[k]);
        free(copy);
        return rep && i < rep->nsets ? SAT_E_NOMEM : SAT_E_USAGE;
    }
    for (size_t k = 0; k < rep->sets[i].n; k++)
        sat_result_free(rep->owned[i][k]);
    free(rep->owned[i]);
    if (n)
        memcpy(copy, results, n * sizeof *copy);
    rep->owned[i] = copy;
    rep->sets[i].results = copy;
    rep->sets[i].n = n;
    return SAT_OK;
}

size_t sat_report_nsets(const sat_report *rep) { return rep ? rep->nsets : 0; }

const sat_result_set *sat_report_set(const sat_report *rep, size_t i)
{
    return rep && i < rep->nsets ? &rep->sets[i] : NULL;
}

const sat_result_set *sat_report_page_set(const sat_report *rep, const sat_rnode *page)
{
    const sat_value *v = page ? sat_rnode_val(page, "set") : NULL;
    if (!v || v->absent || v->unit != SAT_UNIT_INT || v->v.i < 0)
        return NULL;
    return sat_report_set(rep, (size_t)v->v.i);
}

/* ---- the document's shape --------------------------------------------------------- */

void sat_doc_head(sat_report *rep, const char *title, int64_t first_ts, int64_t last_ts,
                  int32_t utc_offset_s)
{
    sat_rnode *root = sat_result_root(sat_report_doc(rep));
    sat_put_text(root, "title", title);
    sat_put_time(root, "first_ts", first_ts);
    sat_put_time(root, "last_ts", last_ts);
    sat_put_int(root, "utc_offset_s", utc_offset_s);
}

sat_rnode *sat_doc_inputs(sat_report *rep)
{
    sat_rnode *root = sat_result_root(sat_report_doc(rep));
    sat_rnode *t = (sat_rnode *)sat_rnode_get(root, "inputs");
    if (t || !root)
        return t;
    static const sat_col cols[] = {{"path", SAT_UNIT_TEXT, 0, NULL},
                                   {"kind", SAT_UNIT_TEXT, 0, NULL},
                                   {"format", SAT_UNIT_TEXT, 0, NULL},
                                   {"bytes", SAT_UNIT_BYTES, 0, "size"},
                                   {"lines", SAT_UNIT_COUNT, 0, NULL},
                                   {"rejects", SAT_UNIT_COUNT, 0, NULL},
                                   {"first_ts", SAT_UNIT_TIME, 0, "from"},
                                   {"last_ts", SAT_UNIT_TIME, 0, "to"}};
    return sat_table(root, "inputs", cols, sizeof cols / sizeof cols[0]);
}

void sat_doc_input(sat_report *rep, const char *path, const char *kind, const char *format,
                   uint64_t bytes, uint64_t lines, uint64_t rejects, int64_t first_ts,
                   int64_t last_ts)
{
    sat_rnode *row = sat_table_row(sat_doc_inputs(rep));
    sat_put_text(row, "path", path);
    sat_put_text(row, "kind", kind);
    sat_put_text(row, "format", format);
    sat_put_bytes(row, "bytes", bytes);
    sat_put_count(row, "lines", lines);
    sat_put_count(row, "rejects", rejects);
    sat_put_time(row, "first_ts", first_ts);
    sat_put_time(row, "last_ts", last_ts);
}

/* The child `key` of o, made by make when missing. */
static sat_rnode *child(sat_rnode *o, const char *key, sat_rnode *(*make)(sat_rnode *, const char *))
{
    if (!o)
        return NULL;
    sat_rnode *c = (sat_rnode *)sat_rnode_get(o, key);
    return c ? c : make(o, key);
}

void sat_doc_metric(sat_report *rep, const char *metric, const char *help, double value, ...)
{
    sat_rnode *list = child(sat_result_root(sat_report_doc(rep)), "metrics", sat_list);
    sat_rnode *m = list ? sat_obj(list, NULL) : NULL;
    if (!m)
        return;
    sat_put_text(m, "metric", metric);
    sat_put_text(m, "help", help);
    sat_put_num(m, "value", value, 9);
    sat_rnode *labels = sat_obj(m, "labels");
    va_list ap;
    va_start(ap, value);
    for (const char *k = va_arg(ap, const char *); k; k = va_arg(ap, const char *)) {
        const char *v = va_arg(ap, const char *);
        sat_put_text(labels, k, v ? v : "");
    }
    va_end(ap);
}

sat_rnode *sat_doc_findings(sat_report *rep, sat_rnode *page)
{
    return child(page ? page : sat_result_root(sat_report_doc(rep)), "findings", sat_list);
}

sat_rnode *sat_doc_finding(sat_rnode *findings, const char *severity, const char *section,
                           const char *fmt, ...)
{
    if (!findings)
        return NULL;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sat_rnode *f = sat_obj(findings, NULL);
    sat_put_text(f, "severity", severity);
    sat_put_text(f, "text", buf);
    sat_put_text(f, "section", section);
    return sat_obj(f, "figures");
}

sat_rnode *sat_doc_page(sat_report *rep, const char *title, const char *subtitle, int set)
{
    sat_rnode *pages = child(sat_result_root(sat_report_doc(rep)), "pages", sat_list);
    sat_rnode *p = sat_obj(pages, NULL);
    sat_put_text(p, "title", title);
    sat_put_text(p, "subtitle", subtitle);
    sat_put_int(p, "set", set);
    return p;
}

sat_rnode *sat_doc_section(sat_rnode *page, const char *id, const char *title)
{
    sat_rnode *s = sat_obj(child(page, "sections", sat_list), NULL);
    sat_put_text(s, "section", id);
    sat_put_text(s, "title", title);
    return s;
}

void sat_doc_para(sat_rnode *section, const char *fmt, ...)
{
    if (!section)
        return;
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sat_put_text(child(section, "paragraphs", sat_list), NULL, buf);
}

void sat_doc_pre(sat_rnode *section, const char *line)
{
    sat_put_text(child(section, "pre", sat_list), NULL, line ? line : "");
}

/* The section's last table block (the builder's own node, written by it). */
static sat_rnode *last_table_block(sat_rnode *section)
{
    const sat_rnode *tables = sat_get_list(section, "tables");
    sat_rnode *last = NULL;
    for (const sat_rnode *b = sat_rnode_first(tables); b; b = sat_rnode_next(b))
        last = (sat_rnode *)b;
    return last;
}

void sat_doc_footnote(sat_rnode *section, const char *fmt, ...)
{
    sat_rnode *last = last_table_block(section);
    if (!last)
        return;
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sat_put_text(last, "footnote", buf);
}

void sat_doc_wrap(sat_rnode *section)
{
    sat_rnode *last = last_table_block(section);
    if (last)
        sat_put_bool(last, "wrap", 1);
}

void sat_doc_highlight(sat_rnode *section, const char *col)
{
    sat_rnode *last = last_table_block(section);
    if (last)
        sat_put_text(last, "highlight", col);
}

void sat_doc_link_rows(sat_rnode *section, const int *pages, size_t n)
{
    sat_rnode *last = last_table_block(section);
    sat_rnode *l = last ? sat_list(last, "detail_pages") : NULL;
    for (size_t i = 0; l && i < n; i++)
        sat_put_int(l, NULL, pages[i]);
}

void sat_doc_chart(sat_rnode *section, const char *kind)
{
    sat_put_text(child(section, "charts", sat_list), NULL, kind);
}

sat_rnode *sat_doc_values(sat_rnode *section) { return child(section, "values", sat_obj); }

/* The next "name" or "name=Title" of a column list; NULL at its end. */
static const char *next_col(const char *p, char *name, size_t nn, char *title, size_t tn,
                            int *wide_only)
{
    while (*p == ',')
        p++;
    if (!*p)
        return NULL;
    *wide_only = *p == '+';
    p += *wide_only;
    size_t len = strcspn(p, ",");
    size_t eq = strcspn(p, "=,");
    snprintf(name, nn, "%.*s", (int)(eq < len ? eq : len), p);
    if (eq < len)
        snprintf(title, tn, "%.*s", (int)(len - eq - 1), p + eq + 1);
    else
        title[0] = '\0';
    return p + len;
}

static sat_rnode *table_block(sat_rnode *section, const char *title, const char *note)
{
    sat_rnode *b = sat_obj(child(section, "tables", sat_list), NULL);
    sat_put_text(b, "title", title);
    sat_put_text(b, "note", note);
    return b;
}

#define MAX_COLS 64

typedef struct ranked {
    const sat_rnode *row;
    double key;
    size_t pos;
} ranked;

static int ranked_cmp(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    int xn = isnan(x->key), yn = isnan(y->key);
    if (xn != yn)
        return xn - yn; /* absent last */
    if (!xn && x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}


static sat_rnode *copy_table(sat_rnode *section, const char *title, const char *note,
                             const sat_rnode *src, const char *columns, size_t max_rows,
                             int (*keep)(const sat_rnode *row, void *ctx), void *ctx,
                             const char *by)
{
    if (!section || !src || sat_rnode_kind_of(src) != SAT_RN_TABLE)
        return NULL;
    size_t nsrc;
    const sat_col *scols = sat_table_cols(src, &nsrc);
    sat_col cols[MAX_COLS];
    char titles[MAX_COLS][64];
    int wide[MAX_COLS] = {0};
    size_t n = 0;
    if (columns) {
        char name[128], t[64];
        int w;
        for (const char *p = columns;
             n < MAX_COLS && (p = next_col(p, name, sizeof name, t, sizeof t, &w));)
            for (size_t i = 0; i < nsrc; i++)
                if (strcmp(scols[i].name, name) == 0) {
                    cols[n] = scols[i];
                    if (t[0]) {
                        snprintf(titles[n], sizeof titles[n], "%s", t);
                        cols[n].title = titles[n];
                    }
                    wide[n] = w;
                    n++;
                    break;
                }
    } else {
        for (size_t i = 0; i < nsrc && n < MAX_COLS; i++)
            cols[n++] = scols[i];
    }
    size_t nrows = sat_rnode_count(src), k = 0;
    ranked *order = nrows ? malloc(nrows * sizeof *order) : NULL;
    if (nrows && !order)
        return NULL;
    for (const sat_rnode *row = sat_rnode_first(src); row; row = sat_rnode_next(row)) {
        if (keep && !keep(row, ctx))
            continue;
        order[k].row = row;
        order[k].key = by ? sat_value_num(sat_row_get(row, by)) : 0;
        order[k].pos = k;
        k++;
    }
    if (by && k > 1)
        qsort(order, k, sizeof *order, ranked_cmp);
    sat_rnode *b = table_block(section, title, note);
    sat_rnode *wl = NULL;
    for (size_t c = 0; c < n; c++)
        if (wide[c])
            sat_put_text(wl ? wl : (wl = sat_list(b, "wide_only")), NULL, cols[c].name);
    sat_rnode *t = sat_table(b, "body", cols, n);
    sat_table_set_window(t, sat_table_window(src));
    for (size_t i = 0; i < k && (!max_rows || i < max_rows); i++) {
        sat_rnode *r = sat_table_row(t);
        for (size_t c = 0; c < n; c++) {
            const sat_value *v = sat_row_get(order[i].row, cols[c].name);
            if (v)
                sat_put_value(r, cols[c].name, v);
        }
    }
    sat_put_count(b, "rows_total", k);
    free(order);
    return t;
}

sat_rnode *sat_doc_table(sat_rnode *section, const char *title, const char *note,
                         const sat_rnode *src, const char *columns, size_t max_rows,
                         int (*keep)(const sat_rnode *row, void *ctx), void *ctx)
{
    return copy_table(section, title, note, src, columns, max_rows, keep, ctx, NULL);
}

sat_rnode *sat_doc_table_by(sat_rnode *section, const char *title, const char *note,
                            const sat_rnode *src, const char *columns, size_t max_rows,
                            const char *by)
{
    return copy_table(section, title, note, src, columns, max_rows, NULL, NULL, by);
}

sat_rnode *sat_doc_new_table(sat_rnode *section, const char *title, const char *note,
                             const sat_col *cols, size_t ncols)
{
    if (!section || ncols > MAX_COLS)
        return NULL;
    sat_col own[MAX_COLS];
    sat_rnode *b = table_block(section, title, note), *wl = NULL;
    for (size_t c = 0; c < ncols; c++) {
        own[c] = cols[c];
        if (own[c].name[0] == '+') { /* wide_only */
            own[c].name++;
            sat_put_text(wl ? wl : (wl = sat_list(b, "wide_only")), NULL, own[c].name);
        }
    }
    return sat_table(b, "body", own, ncols);
}

static const char *unit_name(int unit)
{
    static const char *const names[] = {"none",     "text",  "count", "int",  "time",  "duration",
                                        "bytes",    "ratio", "rate",  "number", "bool"};
    return unit >= 0 && unit <= SAT_UNIT_BOOL ? names[unit] : "none";
}


void sat_doc_sparkline(sat_rnode *section, const char *title, const sat_rnode *series,
                       const char *col, double per)
{
    if (!section || !series || sat_rnode_kind_of(series) != SAT_RN_TABLE || !sat_rnode_first(series))
        return;
    size_t ncols;
    const sat_col *cols = sat_table_cols(series, &ncols);
    int unit = -1;
    for (size_t i = 0; i < ncols; i++)
        if (strcmp(cols[i].name, col) == 0)
            unit = cols[i].unit;
    if (unit < 0 || !ncols)
        return;
    if (!(per > 0))
        per = 1;
    sat_rnode *s = sat_obj(child(section, "sparklines", sat_list), NULL);
    sat_put_text(s, "title", title);
    sat_put_text(s, "unit", unit_name(unit == SAT_UNIT_COUNT && per != 1 ? SAT_UNIT_RATE : unit));
    const sat_value *first = sat_row_get(sat_rnode_first(series), cols[0].name);
    sat_put_time(s, "first_ts", first && !first->absent && first->unit == SAT_UNIT_TIME ? first->v.i : 0);
    sat_put_dur(s, "step_s", (double)sat_table_window(series) / 1e9, 3);
    sat_rnode *pts = sat_list(s, "points");
    double lo = NAN, hi = NAN;
    for (const sat_rnode *row = sat_rnode_first(series); row; row = sat_rnode_next(row)) {
        double x = sat_value_num(sat_row_get(row, col)) / per;
        sat_put_num(pts, NULL, x, 6);
        if (isfinite(x)) {
            lo = isfinite(lo) && lo < x ? lo : x;
            hi = isfinite(hi) && hi > x ? hi : x;
        }
    }
    sat_set_compact(pts);
    sat_put_num(s, "min", lo, 6);
    sat_put_num(s, "max", hi, 6);
}

const sat_rnode *sat_doc_spark_series(const sat_rnode *timeline, const char **step)
{
    const sat_rnode *m = sat_get_table(timeline, "minutes");
    if (m && sat_rnode_first(m)) {
        *step = "minute";
        return m;
    }
    *step = "hour";
    return sat_get_table(timeline, "hours");
}

const sat_rnode *sat_doc_latency_series(const sat_rnode *etime, const sat_rnode *timeline,
                                        char *step, size_t n)
{
    const char *s = "hour";
    const sat_rnode *t = sat_doc_spark_series(timeline, &s);
    /* the same minutes or hours as the timeline's series, from etime's
     * sketches */
    const sat_rnode *w = sat_get_table(etime, "windows"), *h = sat_get_table(etime, "hours");
    if (!strcmp(s, "minute") && sat_rnode_first(w) && sat_get_num(etime, "window_s", NAN) == 60)
        t = w;
    else if (!strcmp(s, "hour") && sat_rnode_first(h) &&
             sat_get_num(timeline, "hours_window_s", NAN) == 3600)
        t = h;
    snprintf(step, n, "%s", s);
    return t;
}

/* The severities of a finding (report_doc.h), most severe first, and the
 * word each form prints, for one and for several. */
static const struct {
    const char *severity, *word, *words;
} severities[] = {{"critical", "critical", "critical"},
                  {"warning", "warning", "warnings"},
                  {"notice", "note", "notes"}};
#define NSEVERITIES (sizeof severities / sizeof severities[0])

const char *rd_severity_words(const char *severity, uint64_t n)
{
    for (size_t i = 0; severity && i < NSEVERITIES; i++)
        if (!strcmp(severity, severities[i].severity))
            return n == 1 ? severities[i].word : severities[i].words;
    return n == 1 ? "note" : "notes";
}

const char *rd_severity_word(const char *severity) { return rd_severity_words(severity, 1); }

const char *rd_severity_at(size_t i) { return i < NSEVERITIES ? severities[i].severity : NULL; }
