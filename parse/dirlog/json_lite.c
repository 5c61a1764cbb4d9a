/*
 * json_lite.c - the tolerant in-place JSON reader of json_lite.h (RFC 8259
 * syntax; trailing commas accepted because 389-DS's published examples have
 * them). Allocation-free: values are spans of the caller's buffer.
 */
#include "json_lite.h"

#include <string.h>

static void skip_ws(sat_json_iter *it)
{
    while (it->pos < it->len) {
        char c = it->p[it->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        it->pos++;
    }
}

static int iter_begin(sat_json_iter *it, const char *buf, size_t len, char open)
{
    memset(it, 0, sizeof *it);
    it->p = buf;
    it->len = len;
    it->first = 1;
    it->close = open == '{' ? '}' : ']';
    skip_ws(it);
    if (it->pos >= len || buf[it->pos] != open) {
        it->err = 1;
        return -1;
    }
    it->pos++;
    return 0;
}

int sat_json_object_begin(sat_json_iter *it, const char *buf, size_t len)
{
    return iter_begin(it, buf, len, '{');
}

int sat_json_array_begin(sat_json_iter *it, const char *buf, size_t len)
{
    return iter_begin(it, buf, len, '[');
}

/* Scans a string whose opening quote is at it->pos; leaves pos after the
 * closing quote. */
static int scan_string(sat_json_iter *it, sat_json_value *v)
{
    /* memchr to each quote, then count the backslashes before it: strings
     * are most of a log object's bytes, so no per-byte state machine */
    const char *s = it->p + it->pos + 1, *end = it->p + it->len, *q = s;
    for (;;) {
        q = (const char *)memchr(q, '"', (size_t)(end - q));
        if (!q)
            return -1;
        const char *b = q;
        while (b > s && b[-1] == '\\')
            b--;
        if (((q - b) & 1) == 0)
            break;
        q++;
    }
    v->type = SAT_JSON_STRING;
    v->ptr = s;
    v->len = (size_t)(q - s);
    v->has_escape = memchr(s, '\\', v->len) != NULL;
    it->pos = (size_t)(q + 1 - it->p);
    return 0;
}

/* Scans any value at it->pos. Nested containers are skipped with a bounded
 * bracket stack so mismatched brackets are caught without recursion. */
static int scan_value(sat_json_iter *it, sat_json_value *v)
{
    skip_ws(it);
    if (it->pos >= it->len)
        return -1;
    size_t start = it->pos;
    char c = it->p[start];
    memset(v, 0, sizeof *v);
    if (c == '"')
        return scan_string(it, v);
    if (c == '{' || c == '[') {
        char stack[SAT_JSON_MAX_DEPTH];
        int depth = 0;
        size_t i = start;
        while (i < it->len) {
            char d = it->p[i];
            if (d == '"') {
                sat_json_value tmp;
                it->pos = i;
                if (scan_string(it, &tmp) < 0)
                    return -1;
                i = it->pos;
                continue;
            }
            if (d == '{' || d == '[') {
                if (depth >= SAT_JSON_MAX_DEPTH)
                    return -1;
                stack[depth++] = d == '{' ? '}' : ']';
            } else if (d == '}' || d == ']') {
                if (depth == 0 || stack[depth - 1] != d)
                    return -1;
                if (--depth == 0) {
                    v->type = c == '{' ? SAT_JSON_OBJECT : SAT_JSON_ARRAY;
                    v->ptr = it->p + start;
                    v->len = i + 1 - start;
                    it->pos = i + 1;
                    return 0;
                }
            }
            i++;
        }
        return -1;
    }
    size_t i = start;
    while (i < it->len) {
        char d = it->p[i];
        if ((d >= '0' && d <= '9') || (d >= 'a' && d <= 'z') || d == '-' ||
            d == '+' || d == '.' || d == 'E')
            i++;
        else
            break;
    }
    size_t n = i - start;
    if (n == 0)
        return -1;
    v->ptr = it->p + start;
    v->len = n;
    if (n == 4 && memcmp(v->ptr, "true", 4) == 0)
        v->type = SAT_JSON_TRUE;
    else if (n == 5 && memcmp(v->ptr, "false", 5) == 0)
        v->type = SAT_JSON_FALSE;
    else if (n == 4 && memcmp(v->ptr, "null", 4) == 0)
        v->type = SAT_JSON_NULL;
    else if (c == '-' || (c >= '0' && c <= '9'))
        v->type = SAT_JSON_NUMBER;
    else
        return -1;
    it->pos = i;
    return 0;
}

/* Consumes the separator before the next member; 1 = a member follows,
 * 0 = closed (pos after the bracket), -1 = malformed. */
static int next_sep(sat_json_iter *it)
{
    if (it->err)
        return -1;
    skip_ws(it);
    if (it->pos >= it->len)
        goto bad;
    if (it->p[it->pos] == it->close) {
        it->pos++;
        return 0;
    }
    if (!it->first) {
        if (it->p[it->pos] != ',')
            goto bad;
        it->pos++;
        skip_ws(it);
        if (it->pos >= it->len)
            goto bad;
        if (it->p[it->pos] == it->close) { /* trailing comma: tolerated */
            it->pos++;
            return 0;
        }
    }
    it->first = 0;
    return 1;
bad:
    it->err = 1;
    return -1;
}

int sat_json_object_next(sat_json_iter *it, sat_json_value *key, sat_json_value *val)
{
    int r = next_sep(it);
    if (r <= 0)
        return r;
    if (it->p[it->pos] != '"' || scan_string(it, key) < 0)
        goto bad;
    skip_ws(it);
    if (it->pos >= it->len || it->p[it->pos] != ':')
        goto bad;
    it->pos++;
    if (scan_value(it, val) < 0)
        goto bad;
    return 1;
bad:
    it->err = 1;
    return -1;
}

int sat_json_array_next(sat_json_iter *it, sat_json_value *val)
{
    int r = next_sep(it);
    if (r <= 0)
        return r;
    if (scan_value(it, val) < 0) {
        it->err = 1;
        return -1;
    }
    return 1;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

long sat_json_unescape(const sat_json_value *v, char *out, size_t cap)
{
    const char *s = v->ptr;
    size_t n = v->len, o = 0;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c != '\\') {
            if (o >= cap)
                return -1;
            out[o++] = c;
            i++;
            continue;
        }
        if (i + 1 >= n)
            return -1;
        char e = s[i + 1];
        i += 2;
        char lit = 0;
        switch (e) {
        case '"': lit = '"'; break;
        case '\\': lit = '\\'; break;
        case '/': lit = '/'; break;
        case 'b': lit = '\b'; break;
        case 'f': lit = '\f'; break;
        case 'n': lit = '\n'; break;
        case 'r': lit = '\r'; break;
        case 't': lit = '\t'; break;
        case 'u': break;
        default: return -1;
        }
        if (e != 'u') {
            if (o >= cap)
                return -1;
            out[o++] = lit;
            continue;
        }
        unsigned cp;
        if (i + 4 > n || hex4(s + i, &cp) < 0)
            return -1;
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned lo;
            if (i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u' &&
                hex4(s + i + 2, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            } else {
                cp = 0xFFFD;
            }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            cp = 0xFFFD;
        }
        /* \uXXXX is 6 input bytes for at most 3 output bytes, a pair 12 for
         * 4: the output never outgrows the input. */
        unsigned char u[4];
        size_t k;
        if (cp < 0x80) {
            u[0] = (unsigned char)cp;
            k = 1;
        } else if (cp < 0x800) {
            u[0] = (unsigned char)(0xC0 | (cp >> 6));
            u[1] = (unsigned char)(0x80 | (cp & 0x3F));
            k = 2;
        } else if (cp < 0x10000) {
            u[0] = (unsigned char)(0xE0 | (cp >> 12));
            u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            u[2] = (unsigned char)(0x80 | (cp & 0x3F));
            k = 3;
        } else {
            u[0] = (unsigned char)(0xF0 | (cp >> 18));
            u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
            u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            u[3] = (unsigned char)(0x80 | (cp & 0x3F));
            k = 4;
        }
        if (cap - o < k)
            return -1;
        memcpy(out + o, u, k);
        o += k;
    }
    return (long)o;
}

int sat_json_key_is(const sat_json_value *k, const char *lit)
{
    size_t n = strlen(lit);
    return k->len == n && memcmp(k->ptr, lit, n) == 0;
}

int sat_json_to_i64(const sat_json_value *v, int64_t *out)
{
    if (v->type != SAT_JSON_NUMBER && v->type != SAT_JSON_STRING)
        return -1;
    const char *s = v->ptr;
    size_t n = v->len, i = 0;
    int neg = 0;
    if (i < n && s[i] == '-') {
        neg = 1;
        i++;
    }
    if (i >= n)
        return -1;
    uint64_t acc = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (acc > (UINT64_C(9223372036854775807) - d) / 10)
            return -1;
        acc = acc * 10 + d;
    }
    *out = neg ? -(int64_t)acc : (int64_t)acc;
    return 0;
}

int sat_json_seconds_to_ns(const sat_json_value *v, int64_t *ns)
{
    if (v->type != SAT_JSON_NUMBER && v->type != SAT_JSON_STRING)
        return -1;
    const char *s = v->ptr;
    size_t n = v->len, i = 0;
    int64_t sec = 0, frac = 0;
    int fd = 0;
    if (n == 0)
        return -1;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        if (sec > 900000000LL) /* one more digit passes ~285 years, beyond any
                                  etime, and sec * 1e9 still fits an int64 */
            return -1;
        sec = sec * 10 + (s[i] - '0');
    }
    if (i == 0)
        return -1;
    if (i < n && s[i] == '.') {
        i++;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (fd < 9) {
                frac = frac * 10 + (s[i] - '0');
                fd++;
            }
    }
    if (i != n)
        return -1;
    for (; fd < 9; fd++)
        frac *= 10;
    *ns = sec * 1000000000LL + frac;
    return 0;
}
