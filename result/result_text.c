/*
 * result_text.c - text forms of result sections (docs/output.md "Text"):
 * values in human units with three significant figures (161 us, 4.46 s,
 * 1.23 MiB, 45.5%), right plurals, and the one table printer every report
 * uses, fitted to 100 columns unless --wide.
 *
 * A section is printed from a layout hint: which values or columns, in what
 * order, under which labels ("key=Label" in the list), with the note under
 * it. Which sections come first is each report's own choice (the most
 * important thing first); how a section looks is decided here, once.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/escape.h"
#include "satscope/result_out.h"

const char *sat_plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* v rounded to three significant figures, printed without exponent. */
void sat_fmt_sig3(char *buf, size_t n, double v)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "-");
        return;
    }
    double a = fabs(v);
    if (a < 5e-10) {
        snprintf(buf, n, "0");
        return;
    }
    int mag = (int)floor(log10(a));
    /* rounding may carry into the next power of ten (999.6 -> 1000) */
    double r = round(a / pow(10, mag - 2)) * pow(10, mag - 2);
    if (r >= pow(10, mag + 1))
        mag++;
    int decimals = mag >= 2 ? 0 : 2 - mag;
    snprintf(buf, n, "%.*f", decimals, v);
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, n, "0");
}

/* The unit whose scale puts the value in [1, 1000), then three figures. */
static void fmt_scaled(char *buf, size_t n, double v, const double *scale, const char *const *unit,
                       size_t nunit)
{
    double a = fabs(v);
    size_t u = 0;
    for (size_t i = 0; i < nunit; i++) {
        char t[64];
        sat_fmt_sig3(t, sizeof t, a / scale[i]);
        double shown = strtod(t, NULL);
        if (shown >= 1 || i == 0)
            u = i;
        if (shown < 1000 && shown >= 1)
            break;
    }
    char t[64];
    sat_fmt_sig3(t, sizeof t, v / scale[u]);
    snprintf(buf, n, "%s %s", t, unit[u]);
}

void sat_fmt_duration(char *buf, size_t n, double s)
{
    static const double scale[] = {1e-9, 1e-6, 1e-3, 1, 60, 3600, 86400};
    static const char *const unit[] = {"ns", "us", "ms", "s", "min", "h", "d"};
    if (!isfinite(s)) {
        snprintf(buf, n, "-");
        return;
    }
    if (s == 0) {
        snprintf(buf, n, "0 s");
        return;
    }
    /* seconds stay seconds up to 999 s; minutes from 1000 s (16.7 min) */
    double a = fabs(s);
    if (a >= 0.9995 && a < 999.5) { /* 0.9997 s rounds to 1.00 s, not 1000 ms */
        char t[64];
        sat_fmt_sig3(t, sizeof t, s);
        snprintf(buf, n, "%s s", t);
        return;
    }
    if (a >= 999.5) {
        /* long ones in the unit people say: minutes below an hour, hours
         * below two days, then days */
        int u = a < 3600 ? 4 : a < 172800 ? 5 : 6;
        char t[64];
        sat_fmt_sig3(t, sizeof t, s / scale[u]);
        snprintf(buf, n, "%s %s", t, unit[u]);
        return;
    }
    fmt_scaled(buf, n, s, scale, unit, 3);
}

void sat_fmt_bytes(char *buf, size_t n, uint64_t b)
{
    static const double scale[] = {1, 1024.0, 1048576.0, 1073741824.0, 1099511627776.0};
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (b < 1000) {
        snprintf(buf, n, "%llu B", (unsigned long long)b);
        return;
    }
    fmt_scaled(buf, n, (double)b, scale + 1, unit + 1, 4);
}

void sat_fmt_value(char *buf, size_t n, const sat_value *v)
{
    if (!v || v->absent) {
        snprintf(buf, n, "-");
        return;
    }
    char t[64];
    switch (v->unit) {
    case SAT_UNIT_TEXT: snprintf(buf, n, "%s", v->v.s); break;
    case SAT_UNIT_COUNT: snprintf(buf, n, "%llu", (unsigned long long)v->v.u); break;
    case SAT_UNIT_INT: snprintf(buf, n, "%lld", (long long)v->v.i); break;
    case SAT_UNIT_TIME: sat_fmt_ts(buf, n, v->v.i); break;
    case SAT_UNIT_DURATION: sat_fmt_duration(buf, n, v->v.d); break;
    case SAT_UNIT_BYTES: sat_fmt_bytes(buf, n, v->v.u); break;
    case SAT_UNIT_RATIO:
        sat_fmt_sig3(t, sizeof t, v->v.d * 100);
        snprintf(buf, n, "%s%%", t);
        break;
    case SAT_UNIT_RATE:
        sat_fmt_sig3(t, sizeof t, v->v.d);
        snprintf(buf, n, "%s/s", t);
        break;
    case SAT_UNIT_NUMBER: sat_fmt_sig3(buf, n, v->v.d); break;
    case SAT_UNIT_BOOL: snprintf(buf, n, "%s", v->v.i ? "yes" : "no"); break;
    default: snprintf(buf, n, "-"); break;
    }
}

int sat_unit_right(int unit)
{
    return unit != SAT_UNIT_TEXT && unit != SAT_UNIT_TIME && unit != SAT_UNIT_BOOL &&
           unit != SAT_UNIT_NONE;
}


/* Display width of n bytes: UTF-8 continuation bytes do not count. */
static size_t display_width(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n && s[i]; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            w++;
    return w;
}

/* ---- the writer ---------------------------------------------------------------- */

void sat_text_init(sat_text *t, FILE *out, int wide)
{
    memset(t, 0, sizeof *t);
    t->out = out;
    t->width = wide ? 0 : SAT_TEXT_WIDTH;
}

/* The next item of a "a,b=Label,c" list: key (len *kl) and label. */
static const char *next_item(const char *p, char *key, size_t kn, char *label, size_t ln)
{
    while (*p == ',' || *p == ' ')
        p++;
    if (!*p)
        return NULL;
    size_t len = strcspn(p, ",");
    const char *eq = memchr(p, '=', len);
    size_t klen = eq ? (size_t)(eq - p) : len;
    snprintf(key, kn, "%.*s", (int)klen, p);
    if (eq)
        snprintf(label, ln, "%.*s", (int)(len - klen - 1), eq + 1);
    else
        label[0] = '\0';
    return p + len;
}

void sat_key_label(char *buf, size_t n, const char *key)
{
    static const char *const suffixes[] = {"_per_s", "_bytes", "_ratio", "_ts", "_s"};
    snprintf(buf, n, "%s", key ? key : "");
    size_t len = strlen(buf);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t sl = strlen(suffixes[i]);
        if (len > sl && strcmp(buf + len - sl, suffixes[i]) == 0) {
            buf[len - sl] = '\0';
            break;
        }
    }
    for (char *p = buf; *p; p++)
        if (*p == '_' || *p == '.')
            *p = ' ';
}

void sat_text_value(const sat_text *t, char *buf, size_t n, const sat_value *v)
{
    if (t && t->fmt)
        t->fmt(buf, n, v, t->fmt_ctx);
    else
        sat_fmt_value(buf, n, v);
}


/* A figure and its unit stay on one line: no break before a unit word
 * ("330 us", "2.50 ms", "48.9 %") that follows a word ending in a digit. */
static int unit_word(const char *w, size_t n)
{
    static const char *const units[] = {"ns", "us", "ms", "s", "min", "h", "d",
                                        "B", "KiB", "MiB", "GiB", "TiB"};
    while (n && strchr(",.;:)", w[n - 1]))
        n--;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i]) == n && !strncmp(w, units[i], n))
            return 1;
    return 0;
}

/* Writes text from column `col` (the caller wrote what comes before it),
 * wrapped at blanks to the width; continuation lines start at column `cont`.
 * A figure takes its unit along. A LF is a line break; every other control
 * is shown escaped (satscope/escape.h). Ends the line. */
static void wrap_from(sat_text *t, const char *text, size_t col, size_t cont)
{
    char *buf = sat_escape_dup(text, strlen(text), SAT_ESC_KEEP_LF);
    if (!buf) {
        t->err = SAT_E_NOMEM;
        return;
    }
    const char *p = buf;
    size_t limit = t->width ? t->width : (size_t)-1;
    int first = 1;
    while (*p) {
        if (*p == '\n') { /* a break the text asks for: on at the continuation column */
            fputc('\n', t->out);
            t->lines++;
            fprintf(t->out, "%*s", (int)cont, "");
            col = cont;
            first = 1;
            p++;
            continue;
        }
        const char *sp = p;
        while (*sp == ' ')
            sp++;
        size_t wl = strcspn(sp, " \n");
        if (sp[wl] == ' ' && wl && sp[wl - 1] >= '0' && sp[wl - 1] <= '9' &&
            unit_word(sp + wl + 1, strcspn(sp + wl + 1, " ")))
            wl += 1 + strcspn(sp + wl + 1, " \n");
        size_t need = (size_t)(sp - p) + wl;
        if (!first && col + need > limit && col > cont) {
            fputc('\n', t->out);
            fprintf(t->out, "%*s", (int)cont, "");
            col = cont;
            p = sp;
            need = wl;
        }
        /* a word longer than the line (a filter, a DN): cut where the line
         * ends and carried on the next, whole */
        while (t->width && col + display_width(p, need) > limit && col < limit) {
            size_t take = 0;
            for (size_t w = 0; take < need && col + w < limit; w++)
                do
                    take++;
                while (take < need && ((unsigned char)p[take] & 0xC0) == 0x80);
            fwrite(p, 1, take, t->out);
            fputc('\n', t->out);
            t->lines++;
            fprintf(t->out, "%*s", (int)cont, "");
            col = cont;
            p += take;
            need -= take;
        }
        fwrite(p, 1, need, t->out);
        col += display_width(p, need);
        p += need;
        first = 0;
    }
    fputc('\n', t->out);
    t->lines++;
    free(buf);
}

/* A title longer than the width (a sentence: "No scalability fit: ...")
 * wraps like prose, under its own first word. */
void sat_text_title(sat_text *t, const char *fmt, ...)
{
    if (t->lines)
        fputc('\n', t->out);
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* escaped first, LF too: a title breaks only where the width makes it */
    char *shown = sat_escape_dup(buf, strlen(buf), 0);
    if (!shown) {
        t->err = SAT_E_NOMEM;
        return;
    }
    wrap_from(t, shown, 0, strspn(shown, " ") + 2);
    free(shown);
}

void sat_text_line(sat_text *t, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* continuation lines indented like the first line's leading blanks plus two */
    wrap_from(t, buf, 0, strspn(buf, " ") + 2);
}

void sat_text_pre(sat_text *t, const char *indent, const char *line)
{
    fputs(indent ? indent : "", t->out);
    sat_escape_write(t->out, line ? line : "", line ? strlen(line) : 0, 0);
    fputc('\n', t->out);
    t->lines++;
}

/* The label of a value as shown: its own, else its key as words; escaped. */
static void value_label(const sat_rnode *c, char *lab, size_t n)
{
    char raw[128];
    if (sat_rnode_label(c))
        snprintf(raw, sizeof raw, "%s", sat_rnode_label(c));
    else
        sat_key_label(raw, sizeof raw, sat_rnode_key(c));
    sat_escape(lab, n, raw, strlen(raw), 0);
}

void sat_text_values(sat_text *t, const sat_rnode *obj, const char *indent)
{
    size_t ind = display_width(indent, strlen(indent)), lw = 0, nw = 0;
    char lab[128], val[4096]; /* a long text (a backtrace's signature) whole */
    for (const sat_rnode *c = sat_rnode_first(obj); c; c = sat_rnode_next(c)) {
        const sat_value *v = sat_rnode_value(c);
        if (!v)
            continue;
        value_label(c, lab, sizeof lab);
        size_t l = display_width(lab, strlen(lab));
        lw = l > lw ? l : lw;
        if (sat_unit_right(v->unit)) {
            sat_text_value(t, val, sizeof val, v);
            size_t w = display_width(val, strlen(val));
            nw = w > nw ? w : nw;
        }
    }
    /* a label column wider than a third of the page wraps its values instead */
    if (t->width && lw > t->width / 3)
        lw = t->width / 3;
    for (const sat_rnode *c = sat_rnode_first(obj); c; c = sat_rnode_next(c)) {
        const sat_value *v = sat_rnode_value(c);
        if (!v)
            continue;
        value_label(c, lab, sizeof lab);
        sat_text_value(t, val, sizeof val, v);
        size_t l = display_width(lab, strlen(lab)), w = display_width(val, strlen(val));
        fputs(indent, t->out);
        fputs(lab, t->out);
        size_t col = ind + l;
        if (l > lw) { /* a long label: its value on the next line, under the others */
            fputc('\n', t->out);
            t->lines++;
            col = 0;
        }
        size_t vcol = ind + lw + 2;
        size_t pad = vcol - col + (sat_unit_right(v->unit) && w < nw ? nw - w : 0);
        fprintf(t->out, "%*s", (int)pad, "");
        col += pad;
        const char *note = sat_rnode_note(c);
        char line[8192];
        snprintf(line, sizeof line, "%s%s%s", val, note ? "  " : "", note ? note : "");
        /* a text runs on under itself; a number's note under the note */
        size_t cont = !sat_unit_right(v->unit) || !note ? vcol : vcol + nw + 2;
        if (t->width && cont + 20 > t->width)
            cont = vcol;
        wrap_from(t, line, col, cont);
    }
}

static void text_table(sat_text *t, const sat_rnode *table, const char *columns, size_t max_rows,
                       const char *indent, int wrap)
{
    size_t ncols;
    const sat_col *cols = sat_table_cols(table, &ncols);
    const sat_col *use[TBL_MAXCOL];
    const char *titles[TBL_MAXCOL];
    char labels[TBL_MAXCOL][64];
    int nuse = 0;
    char key[128], label[64];
    if (columns) {
        for (const char *p = columns;
             nuse < TBL_MAXCOL && (p = next_item(p, key, sizeof key, label, sizeof label));) {
            for (size_t i = 0; i < ncols; i++)
                if (strcmp(cols[i].name, key) == 0) {
                    use[nuse] = &cols[i];
                    snprintf(labels[nuse], sizeof labels[nuse], "%s", label);
                    nuse++;
                    break;
                }
        }
    } else {
        for (size_t i = 0; i < ncols && nuse < TBL_MAXCOL; i++) {
            use[nuse] = &cols[i];
            labels[nuse][0] = '\0';
            nuse++;
        }
    }
    char spec[TBL_MAXCOL + 1];
    for (int i = 0; i < nuse; i++) {
        spec[i] = sat_unit_right(use[i]->unit)    ? 'r'
                  : use[i]->unit == SAT_UNIT_TIME ? 'L'
                  : wrap                          ? 'w'
                                                  : 'l';
        if (labels[i][0])
            titles[i] = labels[i];
        else if (use[i]->title)
            titles[i] = use[i]->title;
        else {
            sat_key_label(labels[i], sizeof labels[i], use[i]->name);
            titles[i] = labels[i];
        }
    }
    spec[nuse] = '\0';
    sat_tbl tb;
    sat_tbl_init(&tb, spec);
    sat_tbl_set_width(&tb, t->width);
    sat_tbl_row(&tb, titles);
    size_t shown = 0;
    char cells[TBL_MAXCOL][256];
    const char *row[TBL_MAXCOL];
    for (const sat_rnode *r = sat_rnode_first(table); r; r = sat_rnode_next(r)) {
        if (max_rows && shown == max_rows)
            break;
        for (int i = 0; i < nuse; i++) {
            const sat_value *v = sat_row_get(r, use[i]->name);
            if (v && !v->absent && v->unit == SAT_UNIT_TEXT && v->v.s) {
                row[i] = v->v.s; /* whole, however long: fitting it is the table's */
            } else {
                sat_text_value(t, cells[i], sizeof cells[i], v);
                row[i] = cells[i];
            }
        }
        sat_tbl_row(&tb, row);
        shown++;
    }
    if (tb.err)
        t->err = SAT_E_NOMEM;
    t->lines += sat_tbl_print(&tb, t->out, indent ? indent : "  ");
    if (tb.err)
        t->err = SAT_E_NOMEM;
}

void sat_text_table(sat_text *t, const sat_rnode *table, const char *columns, size_t max_rows,
                    const char *indent)
{
    text_table(t, table, columns, max_rows, indent, 0);
}

void sat_text_table_wrapped(sat_text *t, const sat_rnode *table, const char *columns,
                            size_t max_rows, const char *indent)
{
    text_table(t, table, columns, max_rows, indent, 1);
}

int sat_text_finish(sat_text *t)
{
    if (t->err)
        return t->err;
    return ferror(t->out) ? SAT_E_IO : SAT_OK;
}
