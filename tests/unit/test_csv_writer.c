/*
 * test_csv_writer.c - the CSV writer (report/csv_writer.c): RFC 4180 quoting
 * (a DN with commas and quotes, a newline, a CR), absent values as empty
 * fields, times in the same RFC 3339 form as the JSON.
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

int main(void)
{
    char *n = written(row_strn);
    CHECK_EQ_STR(n, "\"a,b\",,x\n");
    free(n);

    char *s = written(row_quoting);
    CHECK_EQ_STR(s, "dn,filter,note\n"
                    "\"cn=\"\"Doe, John\"\",ou=People,dc=example,dc=com\",(cn=plain),"
                    "\"two\nlines\r\"\n");
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
