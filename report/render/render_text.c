/*
 * render_text.c - a document as text (`-o report.txt`, `-o -`, and every
 * analyzer command's own output): a visitor of the one walk (doc_int.h),
 * through the text layer of result/ (titles, prose wrapped to 100 columns
 * unless --wide, aligned values and tables, whose long cells are cut or, when
 * the block asks, wrapped): the findings first, then each
 * page's sections, a part of a section two columns further in than the
 * section, per-minute or per-hour sparklines of block characters in place of the
 * charts, then the inputs with their spans. Times are on the document's
 * clock (local at the inputs' offset, or UTC; a command's in RFC 3339 UTC).
 */
#include <string.h>

#include "doc_int.h"

typedef struct text_ctx {
    sat_text *t;
    rd_clock clock;
    size_t rows; /* the most rows shown of a table */
    int command; /* a command's own sections: no report head */
    size_t title_line; /* t->lines just after the last section title */
} text_ctx;

/* Blanks before a block of a section at `level`: its title's, plus two. */
static const char *indent(int level, int more)
{
    static const char blanks[] = "                                        ";
    int n = 2 * level + 2 * more;
    n = n < 0 ? 0 : n > 40 ? 40 : n;
    return blanks + 40 - n;
}

static void fmt_on_clock(char *buf, size_t n, const sat_value *v, const void *ctx)
{
    rd_fmt_value(buf, n, ctx, v);
}

static void head(void *ctx, const sat_rnode *root)
{
    text_ctx *x = ctx;
    const char *title = sat_get_text(root, "title", NULL);
    if (x->command) {
        if (title)
            sat_text_line(x->t, "%s", title);
        return;
    }
    char a[64], b[64], zone[32];
    rd_fmt_datetime(a, sizeof a, &x->clock, sat_get_time(root, "first_ts", 0));
    rd_fmt_datetime(b, sizeof b, &x->clock, sat_get_time(root, "last_ts", 0));
    rd_fmt_zone(zone, sizeof zone, &x->clock);
    sat_text_title(x->t, "%s", title ? title : "Report");
    size_t nin = sat_rnode_count(sat_get_table(root, "inputs"));
    sat_text_line(x->t, "%s to %s (times in %s), %zu %s", a, b, zone, nin,
                  sat_plural(nin, "input", "inputs"));
}

static void findings(void *ctx, const sat_rnode *list, const char *title, int page)
{
    text_ctx *x = ctx;
    (void)page;
    sat_text_title(x->t, "%s", title);
    for (const sat_rnode *f = sat_rnode_first(list); f; f = sat_rnode_next(f))
        sat_text_line(x->t, "%s: %s", rd_severity_word(sat_get_text(f, "severity", NULL)),
                      sat_get_text(f, "text", ""));
}

static void page_begin(void *ctx, const sat_rnode *pg, int no, int npages)
{
    text_ctx *x = ctx;
    (void)no;
    if (npages > 1) {
        const char *sub = sat_get_text(pg, "subtitle", NULL);
        sat_text_title(x->t, "==== %s%s%s", sat_get_text(pg, "title", ""), sub ? " - " : "",
                       sub ? sub : "");
    }
}

static void section_begin(void *ctx, const sat_rnode *s, const char *title, const char *anchor,
                          int level)
{
    text_ctx *x = ctx;
    (void)s;
    (void)anchor;
    /* a part that opens its section follows the section's title directly */
    if (level && x->t->lines == x->title_line)
        sat_text_line(x->t, "%s%s", indent(level, 0), title);
    else
        sat_text_title(x->t, "%s%s", indent(level, 0), title);
    x->title_line = x->t->lines;
}

static void paragraph(void *ctx, const char *text, int level)
{
    text_ctx *x = ctx;
    sat_text_line(x->t, "%s%s", indent(level, 1), text);
}

/* Lines as they are, from the first column whatever the level: they are
 * copied from here (an LDIF line that opens with a blank continues the one
 * before it). */
static void pre(void *ctx, const sat_rnode *lines, int level)
{
    text_ctx *x = ctx;
    (void)level;
    for (const sat_rnode *l = sat_rnode_first(lines); l; l = sat_rnode_next(l))
        sat_text_pre(x->t, "", sat_get_text(l, NULL, ""));
}

static void values(void *ctx, const sat_rnode *obj, int level)
{
    text_ctx *x = ctx;
    sat_text_values(x->t, obj, indent(level, 1));
}

static void table(void *ctx, const sat_rnode *block, int level)
{
    text_ctx *x = ctx;
    uint64_t total;
    const sat_rnode *rows = rd_block_rows(block, &total);
    size_t ncols;
    sat_table_cols(rows, &ncols);
    if (!rows || !ncols)
        return;
    const char *title = sat_get_text(block, "title", NULL), *note = sat_get_text(block, "note", NULL);
    int in = title ? 2 : 1; /* a titled table's rows under its title */
    if (title)
        sat_text_line(x->t, "%s%s%s%s%s", indent(level, 1), title, note ? " (" : "",
                      note ? note : "", note ? ")" : "");
    else if (note)
        sat_text_line(x->t, "%s(%s)", indent(level, 1), note);
    if (!sat_rnode_first(rows)) {
        sat_text_line(x->t, "%snone", indent(level, in));
        return;
    }
    /* within the width: the columns the builder marked wide_only left out */
    sat_col cols_shown[TBL_MAXCOL];
    size_t nshown = rd_block_cols(block, x->t->width != 0, cols_shown, TBL_MAXCOL);
    char spec[1024] = "";
    for (size_t i = 0, o = 0; nshown < ncols && i < nshown && o < sizeof spec; i++)
        o += (size_t)snprintf(spec + o, sizeof spec - o, "%s%s", i ? "," : "", cols_shown[i].name);
    const char *cols = nshown < ncols ? spec : NULL;
    if (sat_get_bool(block, "wrap", 0) == 1)
        sat_text_table_wrapped(x->t, rows, cols, x->rows, indent(level, in));
    else
        sat_text_table(x->t, rows, cols, x->rows, indent(level, in));
    size_t shown = sat_rnode_count(rows) < x->rows ? sat_rnode_count(rows) : x->rows;
    if (total < shown)
        total = shown;
    if (total > shown)
        sat_text_line(x->t, "%s... %llu more %s (the JSON form has every one)", indent(level, in),
                      (unsigned long long)(total - shown), sat_plural(total - shown, "row", "rows"));
    const char *foot = sat_get_text(block, "footnote", NULL);
    if (foot)
        sat_text_line(x->t, "%s%s", indent(level, in), foot);
}

/* The eight block characters, lowest to highest; a step without data is a
 * blank. The scale runs from 0 (or the least value, when it is negative)
 * to the largest. The line keeps to the width: when the steps outnumber the
 * room, each mark is the largest of the steps it stands for, and the line
 * says how many. */
static void sparkline(void *ctx, const sat_rnode *s, int level)
{
    text_ctx *x = ctx;
    static const char *const bars[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                        "\u2585", "\u2586", "\u2587", "\u2588"};
    const sat_rnode *pts = sat_get_list(s, "points");
    double lo = sat_get_num(s, "min", NAN), hi = sat_get_num(s, "max", NAN);
    if (!sat_rnode_first(pts) || !isfinite(hi))
        return;
    if (lo > 0)
        lo = 0;
    /* the range in the series' unit: a count is a whole number */
    const char *unit = sat_get_text(s, "unit", NULL);
    sat_value vlo = {SAT_UNIT_NUMBER, 0, 3, {.d = lo}}, vhi = {SAT_UNIT_NUMBER, 0, 3, {.d = hi}};
    if (unit && !strcmp(unit, "duration"))
        vlo.unit = vhi.unit = SAT_UNIT_DURATION;
    else if (unit && !strcmp(unit, "rate"))
        vlo.unit = vhi.unit = SAT_UNIT_RATE;
    else if (unit && !strcmp(unit, "count") && lo >= 0) {
        vlo.unit = vhi.unit = SAT_UNIT_COUNT;
        vlo.v.u = (uint64_t)llround(lo);
        vhi.v.u = (uint64_t)llround(hi);
    }
    char a[64], b[64], from[64], step[64] = "", tail[256], line[4096], text[4800];
    sat_fmt_value(a, sizeof a, &vlo);
    sat_fmt_value(b, sizeof b, &vhi);
    rd_fmt_time(from, sizeof from, &x->clock, sat_get_time(s, "first_ts", 0));
    size_t n = sat_rnode_count(pts), per = 1;
    size_t width = x->t->width ? x->t->width : (size_t)-1 / 2;
    size_t lead = strlen(indent(level, 1)) + 24 + 2; /* title column, two blanks */
    for (int pass = 0; pass < 2; pass++) { /* the note of `per` takes room too */
        double mark_s = sat_get_dur(s, "step_s", NAN) * (double)per;
        if (per > 1 && fmod(mark_s, 3600) == 0)
            snprintf(step, sizeof step, "%.0f h", mark_s / 3600);
        else if (per > 1 && fmod(mark_s, 60) == 0)
            snprintf(step, sizeof step, "%.0f min", mark_s / 60);
        else if (per > 1)
            sat_fmt_duration(step, sizeof step, mark_s);
        snprintf(tail, sizeof tail, "%s..%s from %s%s%s%s", a, b, from, per > 1 ? " (a mark: " : "",
                 step, per > 1 ? ")" : "");
        size_t room = width > lead + strlen(tail) + 12 ? width - lead - strlen(tail) : 10;
        per = (n + room - 1) / room;
        if (per < 1)
            per = 1;
    }
    size_t l = 0;
    const sat_rnode *p = sat_rnode_first(pts);
    while (p && l + 8 < sizeof line) {
        double v = NAN;
        for (size_t k = 0; k < per && p; k++, p = sat_rnode_next(p)) {
            double y = sat_get_num(p, NULL, NAN);
            if (isfinite(y) && !(y <= v))
                v = y;
        }
        if (!isfinite(v)) {
            line[l++] = ' ';
            continue;
        }
        int bi = hi > lo ? (int)((v - lo) / (hi - lo) * 7 + 0.5) : 0;
        bi = bi < 0 ? 0 : bi > 7 ? 7 : bi;
        memcpy(line + l, bars[bi], 3);
        l += 3;
    }
    line[l] = '\0';
    /* the line itself is never wrapped: written as is */
    snprintf(text, sizeof text, "%-24s%s  %s", sat_get_text(s, "title", ""), line, tail);
    sat_text_pre(x->t, indent(level, 1), text);
}

static const rd_visitor text_visitor = {
    .head = head,
    .findings = findings,
    .page_begin = page_begin,
    .section_begin = section_begin,
    .paragraph = paragraph,
    .pre = pre,
    .values = values,
    .sparkline = sparkline,
    .table = table,
};

static int render_text(sat_report *rep, const sat_report_render_opts *o, FILE *out, sat_diag *diag)
{
    sat_text t;
    sat_text_init(&t, out, o->wide);
    const sat_rnode *root = sat_result_root(sat_report_doc(rep));
    const char *kind = sat_get_text(root, "kind", "");
    text_ctx x = {&t, rd_clock_of(root, o->utc), rd_table_rows(o), !strcmp(kind, "command"), 0};
    t.fmt = fmt_on_clock;
    t.fmt_ctx = &x.clock;
    int rc = rd_walk(rep, &text_visitor, &x, &x.clock);
    if (rc == SAT_OK)
        rc = sat_text_finish(&t);
    if (rc < 0)
        sat_diag_set(diag, rc, NULL, "writing the text report: %s", sat_strerror(rc));
    return rc;
}

const sat_report_renderer sat_render_text = {".txt", "text", render_text};
const sat_report_renderer sat_render_stdout = {"-", "text", render_text};
