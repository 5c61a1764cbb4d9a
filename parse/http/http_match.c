/*
 * http_match.c - one line against a compiled format (http_format_int.h): the
 * literal before the first field, then for each field its span, ended by its
 * own scanner, and the literal after it, which must be there. No regex and
 * no backtracking: a field's span is decided once, so a line costs one pass
 * with memchr over its free text. Every read is bounded by the line's end.
 *
 * Free text ends at the first occurrence of the literal that follows it. When
 * that literal opens with '"', a quote escaped by a backslash (Apache writes
 * \" and \\ in %r, %{...}i; nginx's escape=json writes \") is not the end.
 * Trailing blanks and a '\r' after the last literal are allowed; after a
 * preset's, so are key=value fields (http_extras.c).
 *
 * A line that does not match gets a reason naming the format's field where
 * the match stopped (its name as the definition wrote it).
 */
#include "http_format_int.h"

/* The first lit[0..n) at or after p that is not escaped (when esc), or NULL. */
static const char *find_lit(const char *p, const char *end, const char *lit, size_t n, int esc)
{
    while ((size_t)(end - p) >= n) {
        const char *c = memchr(p, lit[0], (size_t)(end - p) - n + 1);
        if (!c)
            return NULL;
        if (esc) {
            /* an odd run of backslashes before it escapes it */
            const char *b = c;
            while (b > p && b[-1] == '\\')
                b--;
            if ((c - b) & 1) {
                p = c + 1;
                continue;
            }
        }
        if (n == 1 || memcmp(c + 1, lit + 1, n - 1) == 0)
            return c;
        p = c + 1;
    }
    return NULL;
}

/* A number or "-"; NULL for none (a number field never logs nothing: "%I"
 * read where Tomcat wrote a thread's name fails there, not at the line's end). */
static const char *scan_number(const char *p, const char *end)
{
    const char *s = p;
    if (p < end && *p == '-')
        return p + 1;
    while (p < end && (hx_digit(*p) || *p == '.'))
        p++;
    return p > s ? p : NULL;
}

static const char *scan_clf(const char *p, const char *end)
{
    if (p < end && *p == '[') {
        const char *e = memchr(p, ']', (size_t)(end - p));
        return e ? e + 1 : NULL;
    }
    if (end - p < 26)
        return NULL;
    if (p < end && *p == '-')
        return p + 1;
    const char *q = p + 20;
    if (q < end && (*q == '.' || *q == ',')) {
        q++;
        while (q < end && hx_digit(*q))
            q++;
    }
    if (end - q < 6 || *q != ' ')
        return NULL;
    return q + 6;
}

static const char *scan_iso(const char *p, const char *end)
{
    if (p < end && *p == '-')
        return p + 1;
    if (end - p < 19)
        return NULL;
    const char *q = p + 19;
    while (q < end && (hx_digit(*q) || *q == '.' || *q == ',' || *q == ':' || *q == '+' ||
                       *q == '-' || *q == 'Z'))
        q++;
    return q;
}

/* "v1, v2 : v3": values without blanks, ", " or " : " between them; a value
 * ends too at `stop` (the first byte of the literal after the list). */
static const char *scan_list(const char *p, const char *end, char stop)
{
    for (;;) {
        while (p < end && *p != ' ' && *p != ',' && *p != stop)
            p++;
        if (end - p >= 3 && p[0] == ',' && p[1] == ' ' && p[2] != ' ') {
            p += 2;
            continue;
        }
        if (end - p >= 4 && p[0] == ' ' && p[1] == ':' && p[2] == ' ' && p[3] != ' ') {
            p += 3;
            continue;
        }
        return p;
    }
}

/* Why the line does not match, into caps: where the matcher stopped (item i of
 * f, f->n for text after the last one, -1 for the text before the first). */
static int nomatch(const sat_http_format *f, long i, const char *line, const char *at,
                   sat_http_caps *caps, const char **why)
{
    caps->fail_at = (size_t)(at - line);
    if (i < 0)
        snprintf(caps->why, sizeof caps->why, "does not match the log format at its start");
    else if ((size_t)i >= f->n)
        snprintf(caps->why, sizeof caps->why,
                 "does not match the log format: text after its last field");
    else
        snprintf(caps->why, sizeof caps->why,
                 "does not match the log format at field %ld of %zu (%s)", i + 1, f->n,
                 f->items[i].name);
    *why = caps->why;
    return 0;
}

int sat_http_format_match(const sat_http_format *f, const char *line, size_t len,
                          sat_http_caps *caps, const char **why)
{
    const char *p = line, *end = line + len;
    const char *lits = f->lits;
    sat_http_caps_clear(caps);
    if ((size_t)(end - p) < f->lead_len || memcmp(p, lits + f->lead_off, f->lead_len) != 0)
        return nomatch(f, -1, line, p, caps, why);
    p += f->lead_len;
    for (size_t i = 0; i < f->n; i++) {
        const hf_item *it = &f->items[i];
        const char *lit = lits + it->lit_off;
        size_t ln = it->lit_len;
        const char *e;
        switch (it->scan) {
        case HF_SCAN_NUMBER:
            e = scan_number(p, end);
            break;
        case HF_SCAN_CLF:
            e = scan_clf(p, end);
            break;
        case HF_SCAN_ISO:
            e = scan_iso(p, end);
            break;
        case HF_SCAN_LIST:
            e = scan_list(p, end, ln ? lit[0] : ' ');
            break;
        case HF_SCAN_PATH:
            e = p;
            while (e < end && *e != '?' && *e != ' ' && *e != '"')
                e++;
            break;
        case HF_SCAN_QUERY:
            if (p >= end || *p != '?') {
                e = p;
                break;
            }
            /* fallthrough */
        default:
            if (!ln) {
                e = end;
                while (e > p && (e[-1] == '\r' || e[-1] == ' '))
                    e--;
            } else {
                e = find_lit(p, end, lit, ln, lit[0] == '"');
            }
            break;
        }
        if (!e)
            return nomatch(f, (long)i, line, p, caps, why);
        if (it->field != SAT_HF_IGNORE)
            caps->v[it->field] = sat_str_make(p, (size_t)(e - p));
        if (ln && ((size_t)(end - e) < ln || memcmp(e, lit, ln) != 0))
            return nomatch(f, (long)i, line, p, caps, why);
        p = e + ln;
    }
    const char *last = p;
    while (p < end && (*p == ' ' || *p == '\r'))
        p++;
    if (p == end)
        return 1;
    /* a preset followed by key=value fields: after a blank, never glued on */
    if (f->facts.extras && p > last && sat_http_extras_read(p, end, f->facts.present, caps) == 0)
        return 1;
    return nomatch(f, (long)f->n, line, last, caps, why);
}

/* ---- a compiled format as a matcher (http_int.h) ------------------------------------- */
static int fmt_match(void *self, const char *line, size_t len, sat_http_caps *caps,
                     const char **why)
{
    return sat_http_format_match((const sat_http_format *)self, line, len, caps, why);
}

static void fmt_free(void *self) { sat_http_format_free((sat_http_format *)self); }

int sat_http_format_matcher(const char *def, sat_http_matcher *m, sat_diag *diag)
{
    memset(m, 0, sizeof *m);
    sat_http_format *f = sat_http_format_compile(def, diag);
    if (!f)
        return diag && diag->code ? diag->code : SAT_E_USAGE;
    m->self = f;
    m->match = fmt_match;
    m->free = fmt_free;
    m->facts = f->facts;
    return SAT_OK;
}
