/*
 * escape.h - how bytes from the inputs (a log field, a file name, a rejected
 * line) are shown to a person (base/text_escape.c): never a control that a
 * terminal or a spreadsheet would act on, always something that says which
 * byte was there.
 *
 * The rule, said once for the text and CSV writers and the messages on
 * standard error:
 *   - printable ASCII and well-formed UTF-8 (RFC 3629) are written as they are;
 *   - C0 controls (0x00-0x1f) and DEL (0x7f) are written \xNN ("\x1b" for
 *     ESC, "\x07" for BEL), except TAB and LF where the caller keeps them
 *     (a CSV field keeps both, quoted; prose keeps LF as its line break);
 *   - C1 controls, U+0080-U+009F written as UTF-8 (0xC2 0x80-0x9F), are
 *     written \u00NN ("\u009b" for the CSI that clears a screen);
 *   - a byte that is not part of well-formed UTF-8 (a raw 0x9b, a truncated
 *     sequence, an overlong) is written \xNN, one byte at a time.
 * The JSON writer (result/json_writer.c) applies the same rule in JSON's own
 * escapes (\u001b, \u009b, U+FFFD for a byte that is not UTF-8).
 */
#ifndef SATSCOPE_ESCAPE_H
#define SATSCOPE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* What the caller keeps as it is (or-ed): TAB, LF. */
#define SAT_ESC_KEEP_TAB 1u
#define SAT_ESC_KEEP_LF 2u

/* Length of the well-formed UTF-8 sequence at p (1..4), of the `left` bytes
 * there (left >= 1); 0 when it is not one (RFC 3629 table 3-7). */
size_t sat_utf8_len(const unsigned char *p, size_t left);

/* Whether the sequence of `len` bytes at p (sat_utf8_len's) is a C1 control. */
static inline int sat_utf8_is_c1(const unsigned char *p, size_t len)
{
    return len == 2 && p[0] == 0xC2 && p[1] < 0xA0;
}

/* The next unit of s (left >= 1 bytes): how many bytes it takes (*used) and
 * what is shown for them in out (at most 4 bytes of UTF-8 or a 6-byte escape;
 * not NUL-terminated); returns the length of what is shown. */
size_t sat_escape_unit(const char *s, size_t left, unsigned keep, char out[8], size_t *used);

/* s (len bytes) shown by the rule into buf (n bytes, NUL-terminated when n >
 * 0, cut before a unit that does not fit); returns the length the whole would
 * take, as snprintf does. */
size_t sat_escape(char *buf, size_t n, const char *s, size_t len, unsigned keep);

/* The same, a new string (malloc'd, NUL-terminated); NULL when out of memory. */
char *sat_escape_dup(const char *s, size_t len, unsigned keep);

/* The same, written to out. */
void sat_escape_write(FILE *out, const char *s, size_t len, unsigned keep);

#endif /* SATSCOPE_ESCAPE_H */
