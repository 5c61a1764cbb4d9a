/*
 * test_escape.c - controls from the inputs never reach a terminal or a CSV
 * file raw (satscope/escape.h): the rule itself (C0, DEL, C1 as UTF-8, bytes
 * that are not UTF-8, TAB and LF kept only where asked, a buffer too small
 * cut between units), then each writer on the same hostile text: a text
 * table, prose, a preformatted line and a title, a CSV field, a JSON string.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "satscope/escape.h"
#include "satscope/result_out.h"

/* ESC ] 0 ; t BEL, U+009B as UTF-8, a raw 0x9b, DEL, CR, TAB, LF, an accent */
static const char hostile[] = "a\033]0;t\007\302\2332J\233\177\r\t\nb caf\303\251";

typedef struct mem {
    char *buf;
    size_t len;
    FILE *f;
} mem;

static void mem_open(mem *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
}

static char *mem_close(mem *m)
{
    fclose(m->f);
    return m->buf;
}

/* No byte a terminal acts on: no C0 but those of `keep`, no DEL, no C1 (raw
 * or UTF-8). */
static int clean(const char *s, const char *keep)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; p[i]; i++) {
        if ((p[i] < 0x20 && !strchr(keep, p[i])) || p[i] == 0x7f)
            return 0;
        if (p[i] >= 0x80 && p[i] <= 0x9f && !(i && p[i - 1] >= 0xc0)) /* a lone one */
            return 0;
        if (p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
            return 0;
    }
    return 1;
}

int main(void)
{
    char buf[256];
    size_t n = sat_escape(buf, sizeof buf, hostile, strlen(hostile), 0);
    CHECK_EQ_STR(buf, "a\\x1b]0;t\\x07\\u009b2J\\x9b\\x7f\\x0d\\x09\\x0ab caf\303\251");
    CHECK(n == strlen(buf));
    sat_escape(buf, sizeof buf, hostile, strlen(hostile), SAT_ESC_KEEP_TAB | SAT_ESC_KEEP_LF);
    CHECK_EQ_STR(buf, "a\\x1b]0;t\\x07\\u009b2J\\x9b\\x7f\\x0d\t\nb caf\303\251");
    /* cut between units: never half an escape or half a character */
    n = sat_escape(buf, 4, "a\033b", 3, 0);
    CHECK_EQ_STR(buf, "a");
    CHECK(n == 6);
    n = sat_escape(buf, 5, "\303\251\303\251", 4, 0);
    CHECK_EQ_STR(buf, "\303\251\303\251");
    n = sat_escape(buf, 4, "\303\251\303\251", 4, 0);
    CHECK_EQ_STR(buf, "\303\251");
    /* a truncated sequence and an overlong are not UTF-8: byte by byte */
    sat_escape(buf, sizeof buf, "x\303", 2, 0);
    CHECK_EQ_STR(buf, "x\\xc3");
    sat_escape(buf, sizeof buf, "\300\257", 2, 0);
    CHECK_EQ_STR(buf, "\\xc0\\xaf");
    char *d = sat_escape_dup("\302\237", 2, 0);
    CHECK_EQ_STR(d, "\\u009f");
    free(d);

    /* a text table: the cell escaped, one line for the row */
    mem m;
    mem_open(&m);
    sat_tbl tb;
    sat_tbl_init(&tb, "ll");
    const char *row[2] = {"base", hostile};
    sat_tbl_row(&tb, row);
    sat_tbl_print(&tb, m.f, "");
    char *s = mem_close(&m);
    CHECK_EQ_STR(s, "base  a\\x1b]0;t\\x07\\u009b2J\\x9b\\x7f\\x0d\\x09\\x0ab caf\303\251\n");
    free(s);

    /* prose (LF a break), a preformatted line, a title */
    mem_open(&m);
    sat_text t;
    sat_text_init(&t, m.f, 0);
    sat_text_title(&t, "title %s", hostile);
    sat_text_line(&t, "line %s", hostile);
    sat_text_pre(&t, "  ", hostile);
    CHECK(sat_text_finish(&t) == SAT_OK);
    s = mem_close(&m);
    CHECK(clean(s, "\n"));
    CHECK_EQ_STR(s, "title a\\x1b]0;t\\x07\\u009b2J\\x9b\\x7f\\x0d\\x09\\x0ab caf\303\251\n"
                    "line a\\x1b]0;t\\x07\\u009b2J\\x9b\\x7f\\x0d\\x09\n"
                    "  b caf\303\251\n"
                    "  a\\x1b]0;t\\x07\\u009b2J\\x9b\\x7f\\x0d\\x09\\x0ab caf\303\251\n");
    free(s);

    /* a CSV field: TAB and LF kept inside quotes, the rest escaped */
    mem_open(&m);
    sat_csv c;
    sat_csv_init(&c, m.f);
    sat_csv_str(&c, hostile);
    sat_csv_end_row(&c);
    s = mem_close(&m);
    CHECK(clean(s, "\n\t"));
    CHECK_EQ_STR(s, "\"a\\x1b]0;t\\x07\\u009b2J\\x9b\\x7f\\x0d\t\nb caf\303\251\"\n");
    free(s);

    /* a JSON string: JSON's escapes, C1 too, U+FFFD for what is not UTF-8 */
    mem_open(&m);
    sat_json_write_string(m.f, hostile, strlen(hostile));
    s = mem_close(&m);
    CHECK(clean(s, ""));
    CHECK_EQ_STR(s, "\"a\\u001b]0;t\\u0007\\u009b2J\\ufffd\\u007f\\r\\t\\nb caf\303\251\"");
    free(s);
    return CHECK_DONE();
}
