/*
 * test_csv_writer.c - the CSV writer (result/csv_writer.c): RFC 4180 quoting
 * (a DN with commas and quotes, a newline; a CR escaped), absent values as empty
 * fields, times in the same RFC 3339 form as the JSON; a text field a
 * spreadsheet would run as a formula made text with a leading quote, the
 * negative numbers satscope writes left numbers (through a result table too).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "satscope/result_out.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

/* Runs the row writer on a memory stream and returns what it wrote (malloc'd). */
static char *written(void (*fn)(sat_csv *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    sat_csv c;
    sat_csv_init(&c, f);
    fn(&c);
    fclose(f);
    return buf;
}

static void row_quoting(sat_csv *c)
{
    static const char *const cols[] = {"dn", "filter", "note", NULL};
    sat_csv_header(c, cols);
    sat_csv_str(c, "cn=\"Doe, John\",ou=People,dc=example,dc=com");
    sat_csv_str(c, "(cn=plain)");
    sat_csv_str(c, "two\nlines\r");
    sat_csv_end_row(c);
}

static void row_absent(sat_csv *c)
{
    sat_csv_str(c, NULL);
    sat_csv_num(c, NAN, 3);
    sat_csv_ts(c, 0);
    sat_csv_str(c, "");
    sat_csv_end_row(c);
}

static void row_values(sat_csv *c)
{
    sat_csv_ts(c, 1749478820001324512LL);
    sat_csv_ts(c, 1749477600000000000LL);
    sat_csv_num(c, 0.000161, 6);
    sat_csv_num(c, 2.5000, 4);
    sat_csv_num(c, -0.0, 3);
    sat_csv_u64(c, 18446744073709551615ULL);
    sat_csv_i64(c, -3);
    sat_csv_end_row(c);
}

static void row_strn(sat_csv *c)
{
    sat_csv_strn(c, "a,b-not-this", 3);
    sat_csv_strn(c, NULL, 4);
    sat_csv_strn(c, "x\0y", 3);
    sat_csv_end_row(c);
}

static void row_formula(sat_csv *c)
{
    sat_csv_str(c, "=HYPERLINK(\"http://x\")");
    sat_csv_str(c, "+cmd|' /C calc'!A0");
    sat_csv_str(c, "-2+3");
    sat_csv_str(c, "@SUM(1+1)");
    sat_csv_str(c, "\tdc=tab");
    sat_csv_str(c, "\rcr");
    sat_csv_strn(c, "=1+2xyz", 4);
    sat_csv_str(c, "a=1-2"); /* only the first character counts */
    sat_csv_str(c, "-");     /* alone, no formula: the "-" of none */
    sat_csv_i64(c, -3);
    sat_csv_num(c, -0.5, 3);
    sat_csv_end_row(c);
}

/* A result table whose text column holds a number-looking "-3" and whose
 * number columns hold negative figures: only the text is protected. */
static char *table_csv(void)
{
    static const sat_col cols[] = {{"base", SAT_UNIT_TEXT, 0, NULL},
                                   {"delta", SAT_UNIT_INT, 0, NULL},
                                   {"skew_s", SAT_UNIT_DURATION, 3, NULL},
                                   {"ratio", SAT_UNIT_RATIO, 2, NULL}};
    sat_result *r = sat_result_new("t");
    sat_rnode *t = sat_table(sat_result_root(r), "rows", cols, 4);
    sat_rnode *row = sat_table_row(t);
    sat_put_text(row, "base", "-3");
    sat_put_int(row, "delta", -3);
    sat_put_dur(row, "skew_s", -0.5, 3);
    sat_put_ratio(row, "ratio", -0.25, 2);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        CHECK(sat_result_csv_table(t, f) == SAT_OK);
        fclose(f);
    }
    sat_result_free(r);
    return buf;
}

int main(void)
{
    char *fm = written(row_formula);
    CHECK_EQ_STR(fm, "\"'=HYPERLINK(\"\"http://x\"\")\",'+cmd|' /C calc'!A0,'-2+3,'@SUM(1+1),"
                     "'\tdc=tab,'\\x0dcr,'=1+2,a=1-2,-,-3,-0.5\n");
    free(fm);
    char *tc = table_csv();
    CHECK_EQ_STR(tc, "base,delta,skew_s,ratio\n'-3,-3,-0.5,-0.25\n");
    free(tc);

    char *n = written(row_strn);
    CHECK_EQ_STR(n, "\"a,b\",,x\n");
    free(n);

    char *s = written(row_quoting);
    CHECK_EQ_STR(s, "dn,filter,note\n"
                    "\"cn=\"\"Doe, John\"\",ou=People,dc=example,dc=com\",(cn=plain),"
                    "\"two\nlines\\x0d\"\n");
    free(s);

    s = written(row_absent);
    CHECK_EQ_STR(s, ",,,\n");
    free(s);

    s = written(row_values);
    CHECK_EQ_STR(s, "2025-06-09T14:20:20.001324512Z,2025-06-09T14:00:00Z,0.000161,2.5,0,"
                    "18446744073709551615,-3\n");
    free(s);

    /* a time column holds exactly what sat_json_ts writes for the same key */
    char ts[48];
    sat_fmt_ts(ts, sizeof ts, 1749478820001324512LL);
    CHECK_EQ_STR(ts, "2025-06-09T14:20:20.001324512Z");
    return CHECK_DONE();
}
