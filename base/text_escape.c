/*
 * text_escape.c - bytes from the inputs as a person may see them
 * (include/satscope/escape.h says the rule): UTF-8 as it is, controls and
 * bytes that are not UTF-8 as escapes, never raw.
 */
#include <stdlib.h>
#include <string.h>

#include "satscope/escape.h"

size_t sat_utf8_len(const unsigned char *p, size_t left)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (left < need)
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < need; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return need;
}

static size_t hex_escape(char out[8], const char *prefix, unsigned v)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(prefix);
    memcpy(out, prefix, n);
    out[n++] = hex[(v >> 4) & 15];
    out[n++] = hex[v & 15];
    return n;
}

size_t sat_escape_unit(const char *s, size_t left, unsigned keep, char out[8], size_t *used)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned char c = p[0];
    *used = 1;
    if (c < 0x20 || c == 0x7f) {
        if ((c == '\t' && (keep & SAT_ESC_KEEP_TAB)) || (c == '\n' && (keep & SAT_ESC_KEEP_LF))) {
            out[0] = (char)c;
            return 1;
        }
        return hex_escape(out, "\\x", c);
    }
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    size_t l = sat_utf8_len(p, left);
    if (l == 0)
        return hex_escape(out, "\\x", c);
    *used = l;
    if (sat_utf8_is_c1(p, l))
        return hex_escape(out, "\\u00", p[1]);
    memcpy(out, p, l);
    return l;
}

size_t sat_escape(char *buf, size_t n, const char *s, size_t len, unsigned keep)
{
    size_t o = 0, total = 0, i = 0;
    int full = 0;
    while (i < len) {
        char u[8];
        size_t used, k = sat_escape_unit(s + i, len - i, keep, u, &used);
        if (!full && o + k < n) {
            memcpy(buf + o, u, k);
            o += k;
        } else {
            full = 1; /* nothing after a unit cut: no half escape, no half character */
        }
        total += k;
        i += used;
    }
    if (n)
        buf[o] = '\0';
    return total;
}

char *sat_escape_dup(const char *s, size_t len, unsigned keep)
{
    size_t need = sat_escape(NULL, 0, s, len, keep);
    char *p = malloc(need + 1);
    if (p)
        sat_escape(p, need + 1, s, len, keep);
    return p;
}

void sat_escape_write(FILE *out, const char *s, size_t len, unsigned keep)
{
    size_t i = 0;
    while (i < len) {
        /* a run of printable ASCII at once */
        size_t j = i;
        while (j < len && (unsigned char)s[j] >= 0x20 && (unsigned char)s[j] < 0x7f)
            j++;
        if (j > i) {
            fwrite(s + i, 1, j - i, out);
            i = j;
            continue;
        }
        char u[8];
        size_t used, k = sat_escape_unit(s + i, len - i, keep, u, &used);
        fwrite(u, 1, k, out);
        i += used;
    }
}
