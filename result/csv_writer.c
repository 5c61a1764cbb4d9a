/*
 * csv_writer.c - the CSV writer behind every --csv (RFC 4180; satscope/result_out.h).
 *
 * Quoting is the minimal one RFC 4180 allows: a field is quoted only when it
 * holds a comma, a double quote or LF, and a double quote inside a quoted
 * field is doubled. Bytes from the inputs are shown by satscope/escape.h's
 * rule: TAB and LF kept, every other control (CR, ESC, C1) and every byte
 * that is not UTF-8 escaped (\x1b, \u009b), so a field never carries a
 * control to the terminal that shows the file. Rows end with LF (the line end
 * of every CSV satscope has written so far; RFC 4180's CRLF is accepted by
 * every reader of LF files).
 * Times share sat_fmt_ts with sat_json_ts, so a CSV column and the JSON
 * key of the same name hold the same string.
 *
 * A text field that a spreadsheet would take for a formula (OWASP's CSV
 * injection list: it starts with '=', '+', '-', '@', TAB or CR) is written
 * after a single quote, which makes it text there. A field of that one
 * character alone holds no formula and is left as it is (the "-" a table
 * writes for none). Only text fields: the numbers satscope writes itself
 * (-3, -0.5) go through their own writers and stay numbers.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "satscope/escape.h"
#include "satscope/result_out.h"

void sat_csv_init(sat_csv *c, FILE *out)
{
    c->out = out;
    c->nfield = 0;
}

/* A field keeps TAB and LF (quoted); every other control is escaped
 * (satscope/escape.h). */
#define CSV_KEEP (SAT_ESC_KEEP_TAB | SAT_ESC_KEEP_LF)

/* Whether a spreadsheet would run a text field starting with c as a formula. */
static int formula_start(char c)
{
    return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

static void field_n(FILE *out, const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    int quote = 0;
    const char *lead = len > 1 && formula_start(s[0]) ? "'" : "";
    /* an escape is never ',', '"' or LF: the raw bytes say whether to quote */
    for (size_t i = 0; i < len && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\n';
    if (quote)
        putc('"', out);
    fputs(lead, out);
    for (size_t i = 0; i < len;) {
        if (s[i] == '"') {
            fputs("\"\"", out);
            i++;
            continue;
        }
        char u[8];
        size_t used, k = sat_escape_unit(s + i, len - i, CSV_KEEP, u, &used);
        fwrite(u, 1, k, out);
        i += used;
    }
    if (quote)
        putc('"', out);
}

void sat_csv_field(FILE *out, const char *s) { field_n(out, s, strlen(s)); }

static void sep(sat_csv *c)
{
    if (c->nfield++)
        putc(',', c->out);
}

void sat_csv_str(sat_csv *c, const char *s)
{
    sep(c);
    if (s)
        sat_csv_field(c->out, s);
}

void sat_csv_strn(sat_csv *c, const char *s, size_t n)
{
    sep(c);
    if (s)
        field_n(c->out, s, n);
}

void sat_csv_u64(sat_csv *c, uint64_t v)
{
    sep(c);
    fprintf(c->out, "%" PRIu64, v);
}

void sat_csv_i64(sat_csv *c, int64_t v)
{
    sep(c);
    fprintf(c->out, "%" PRId64, v);
}

void sat_csv_num(sat_csv *c, double v, int decimals)
{
    sep(c);
    if (!isfinite(v))
        return;
    char b[64];
    sat_fmt_fixed(b, sizeof b, v, decimals);
    fputs(b, c->out);
}

void sat_csv_ts(sat_csv *c, int64_t ts_ns)
{
    sep(c);
    if (!ts_ns)
        return;
    char b[48];
    sat_fmt_ts(b, sizeof b, ts_ns);
    fputs(b, c->out);
}

void sat_csv_header(sat_csv *c, const char *const *names)
{
    for (; *names; names++)
        sat_csv_str(c, *names);
    sat_csv_end_row(c);
}

void sat_csv_end_row(sat_csv *c)
{
    putc('\n', c->out);
    c->nfield = 0;
}
