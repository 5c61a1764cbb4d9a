/*
 * json_writer.c - the JSON writer behind every --json (RFC 8259).
 *
 * Escaping: '"' and '\\' are escaped, control bytes < 0x20 become \n \r \t
 * \b \f or \u00XX, DEL is escaped as \u007f and the C1 controls (U+0080 -
 * U+009F) as \u0080 - \u009f, bytes that are not well-formed UTF-8
 * (overlongs, surrogates, > U+10FFFF, truncated sequences) are replaced by
 * U+FFFD one byte at a time, so any input (log text is untrusted) yields
 * valid JSON that puts no control on a terminal (satscope/escape.h's rule in
 * JSON's escapes). Numbers never go through the locale: %.*f with the "C" decimal
 * point is what printf does in the default locale, which library code never
 * changes. Every point in time goes through sat_json_ts (RFC 3339 UTC, the
 * fraction trimmed) and every document opens with sat_json_document (the
 * "schema" key): the conventions of docs/output.md.
 */
#include <math.h>
#include <time.h>

#include "satscope/escape.h"
#include "satscope/result_out.h"

void sat_fmt_fixed(char *buf, size_t n, double v, int decimals)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "null");
        return;
    }
    snprintf(buf, n, "%.*f", decimals, v);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *end = buf + strlen(buf) - 1;
        while (end > dot && *end == '0')
            *end-- = '\0';
        if (end == dot)
            *end = '\0';
    }
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, n, "0");
}

void sat_fmt_ts(char *buf, size_t n, int64_t ts_ns)
{
    int64_t secs = ts_ns >= 0 ? ts_ns / 1000000000 : (ts_ns - 999999999) / 1000000000;
    int64_t frac = ts_ns - secs * 1000000000;
    time_t t = (time_t)secs;
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(buf, n, "?");
        return;
    }
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    if (frac) {
        char f[16];
        snprintf(f, sizeof f, "%09lld", (long long)frac);
        size_t l = strlen(f);
        while (l > 0 && f[l - 1] == '0')
            f[--l] = '\0';
        snprintf(buf, n, "%s.%sZ", base, f);
    } else {
        snprintf(buf, n, "%sZ", base);
    }
}

int sat_json_write_string(FILE *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    putc('"', out);
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            /* run of plain bytes */
            size_t j = i + 1;
            while (j < n && p[j] >= 0x20 && p[j] < 0x7f && p[j] != '"' && p[j] != '\\')
                j++;
            fwrite(p + i, 1, j - i, out);
            i = j;
            continue;
        }
        switch (c) {
        case '"': fputs("\\\"", out); i++; continue;
        case '\\': fputs("\\\\", out); i++; continue;
        case '\n': fputs("\\n", out); i++; continue;
        case '\r': fputs("\\r", out); i++; continue;
        case '\t': fputs("\\t", out); i++; continue;
        case '\b': fputs("\\b", out); i++; continue;
        case '\f': fputs("\\f", out); i++; continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7f) {
            fprintf(out, "\\u%04x", c);
            i++;
            continue;
        }
        size_t l = sat_utf8_len(p + i, n - i);
        if (l == 0) {
            fputs("\\ufffd", out);
            i++;
        } else if (sat_utf8_is_c1(p + i, l)) {
            fprintf(out, "\\u%04x", p[i + 1]);
            i += l;
        } else {
            fwrite(p + i, 1, l, out);
            i += l;
        }
    }
    putc('"', out);
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

void sat_json_init(sat_json *j, FILE *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
}

void sat_json_set_compact_depth(sat_json *j, int depth)
{
    j->compact_from = (unsigned char)(depth > 0 && depth < 255 ? depth : 0);
}

static int compact(const sat_json *j, int depth)
{
    return j->compact_from && depth >= j->compact_from;
}

/* Separator, newline and indent before an item at the current depth. */
static void item_begin(sat_json *j, const char *key)
{
    if (j->err)
        return;
    if (j->depth > 0) {
        if (j->n[j->depth])
            putc(',', j->out);
        if (compact(j, j->depth)) {
            if (j->n[j->depth])
                putc(' ', j->out);
        } else {
            putc('\n', j->out);
            for (int i = 0; i < j->depth; i++)
                fputs("  ", j->out);
        }
        j->n[j->depth] = 1;
    }
    if (key && j->depth > 0) {
        sat_json_write_string(j->out, key, strlen(key));
        fputs(": ", j->out);
    }
}

static void open_container(sat_json *j, const char *key, char c)
{
    item_begin(j, key);
    if (j->err)
        return;
    if (j->depth + 1 >= SAT_JSON_MAX_DEPTH) {
        j->err = SAT_E_USAGE;
        return;
    }
    putc(c, j->out);
    j->depth++;
    j->n[j->depth] = 0;
    j->close[j->depth] = c == '{' ? '}' : ']';
}

void sat_json_object(sat_json *j, const char *key) { open_container(j, key, '{'); }
void sat_json_array(sat_json *j, const char *key) { open_container(j, key, '['); }

void sat_json_end(sat_json *j)
{
    if (j->err)
        return;
    if (j->depth <= 0) {
        j->err = SAT_E_USAGE;
        return;
    }
    int had = j->n[j->depth];
    char c = j->close[j->depth];
    j->depth--;
    if (had && !compact(j, j->depth + 1)) {
        putc('\n', j->out);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->out);
    }
    putc(c, j->out);
}

static void scalar(sat_json *j, const char *key, const char *text)
{
    item_begin(j, key);
    if (!j->err)
        fputs(text, j->out);
}

void sat_json_str(sat_json *j, const char *key, const char *s)
{
    if (!s) {
        sat_json_null(j, key);
        return;
    }
    sat_json_strn(j, key, s, strlen(s));
}

void sat_json_strn(sat_json *j, const char *key, const char *s, size_t n)
{
    item_begin(j, key);
    if (!j->err)
        sat_json_write_string(j->out, s, n);
}

void sat_json_u64(sat_json *j, const char *key, uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    scalar(j, key, b);
}

void sat_json_i64(sat_json *j, const char *key, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    scalar(j, key, b);
}

void sat_json_num(sat_json *j, const char *key, double v, int decimals)
{
    char b[64];
    sat_fmt_fixed(b, sizeof b, v, decimals);
    scalar(j, key, b);
}

void sat_json_bool(sat_json *j, const char *key, int v) { scalar(j, key, v ? "true" : "false"); }
void sat_json_null(sat_json *j, const char *key) { scalar(j, key, "null"); }

void sat_json_document(sat_json *j)
{
    sat_json_object(j, NULL);
    sat_json_str(j, "schema", SAT_JSON_SCHEMA);
}

void sat_json_ts(sat_json *j, const char *key, int64_t ts_ns)
{
    if (!ts_ns) {
        sat_json_null(j, key);
        return;
    }
    char b[48];
    sat_fmt_ts(b, sizeof b, ts_ns);
    sat_json_str(j, key, b);
}

int sat_json_finish(sat_json *j)
{
    if (!j->err && j->depth != 0)
        j->err = SAT_E_USAGE;
    if (!j->err)
        putc('\n', j->out);
    if (!j->err && ferror(j->out))
        j->err = SAT_E_IO;
    return j->err;
}
