/*
 * http_extras.c - the fields administrators append to the NCSA formats: a
 * `combined` or `common` line followed by ` rt=0.012 uct="0.000" urt="0.011"
 * reused=. cs=HIT`, nginx's most common habit (its blog's `upstream_time`
 * format, NGINX Amplify's `main_ext`), which GoAccess's COMBINED reads too.
 *
 * A preset (http_format.c: facts.extras) reads what follows its last field as
 * such a tail: blank-separated tokens, each `key=value` (the value bare or in
 * double quotes, a backslash escaping a quote), a quoted string alone, or a
 * bare word. The keys in the table below are read into the row's columns when
 * the format itself did not log that field; every other token is skipped. The
 * keys a line held name the source row ("http-combined+rt,urt,cs": fmt_http.c).
 */
#include "http_int.h"

typedef struct extra_key {
    const char *key;
    int field; /* enum sat_http_field; SAT_HF_IGNORE: named, no column for it */
} extra_key;

/* The names nginx users give their variables; `ua=` is Amplify's upstream
 * address, not a user agent, so it is not read as one. */
static const extra_key keys[] = {
    {"rt", SAT_HF_RT_S},                        /* $request_time */
    {"request_time", SAT_HF_RT_S},
    {"urt", SAT_HF_UPSTREAM_S},                 /* $upstream_response_time */
    {"ut", SAT_HF_UPSTREAM_S},                  /* Amplify's main_ext */
    {"upstream_response_time", SAT_HF_UPSTREAM_S},
    {"upstream_time", SAT_HF_UPSTREAM_S},
    {"reused", SAT_HF_TLS_REUSED},              /* $ssl_session_reused: r or . */
    {"ssl_reused", SAT_HF_TLS_REUSED},
    {"ssl_session_reused", SAT_HF_TLS_REUSED},
    {"ssl", SAT_HF_TLS_PROTOCOL},               /* $ssl_protocol */
    {"ssl_protocol", SAT_HF_TLS_PROTOCOL},
    {"tls", SAT_HF_TLS_PROTOCOL},
    {"conn", SAT_HF_CONN},                      /* $connection */
    {"connection", SAT_HF_CONN},
    {"reqs", SAT_HF_CONN_REQUESTS},             /* $connection_requests */
    {"conn_reqs", SAT_HF_CONN_REQUESTS},
    {"connection_requests", SAT_HF_CONN_REQUESTS},
    {"host", SAT_HF_VHOST},                     /* $host */
    {"sn", SAT_HF_VHOST},                       /* Amplify's $server_name */
    {"vhost", SAT_HF_VHOST},
    {NULL, 0}};

/* The field a key is read into, SAT_HF_IGNORE for any other key. */
static int key_field(const char *k, size_t n)
{
    for (const extra_key *e = keys; e->key; e++)
        if (strlen(e->key) == n && !memcmp(e->key, k, n))
            return e->field;
    return SAT_HF_IGNORE;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static int key_char(char c)
{
    return c == '_' || c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           hx_digit(c);
}

/* A double-quoted string at p ('"' there): the end of its text (the closing
 * quote), or NULL when it is not closed before end. */
static const char *quoted_end(const char *p, const char *end)
{
    for (const char *q = p + 1; q < end; q++) {
        if (*q == '\\' && q + 1 < end)
            q++;
        else if (*q == '"')
            return q;
    }
    return NULL;
}

/* One token at p (not a blank): its key ([*k, *k + *kn), *kn 0 when it has
 * none) and value; the position after it, or NULL for an unclosed quote. */
static const char *token(const char *p, const char *end, const char **k, size_t *kn,
                         sat_str *val)
{
    const char *s = p;
    *kn = 0;
    while (p < end && key_char(*p))
        p++;
    if (p > s && p < end && *p == '=') {
        *k = s;
        *kn = (size_t)(p - s);
        s = ++p;
    } else {
        p = s;
    }
    if (p < end && *p == '"') {
        const char *q = quoted_end(p, end);
        if (!q)
            return NULL;
        *val = sat_str_make(p + 1, (size_t)(q - p - 1));
        return q + 1;
    }
    while (p < end && !is_blank(*p))
        p++;
    *val = sat_str_make(s, (size_t)(p - s));
    return p;
}

int sat_http_extras_read(const char *p, const char *end, uint64_t present, sat_http_caps *caps)
{
    caps->tail = sat_str_make(p, (size_t)(end - p));
    while (p < end) {
        if (is_blank(*p)) {
            p++;
            continue;
        }
        const char *k = NULL;
        size_t kn;
        sat_str v;
        p = token(p, end, &k, &kn, &v);
        if (!p)
            return -1;
        if (p < end && !is_blank(*p))
            return -1; /* `a="b"c`: not a list of tokens */
        int f = kn ? key_field(k, kn) : SAT_HF_IGNORE;
        if (f == SAT_HF_IGNORE || (present & SAT_HF_BIT(f)) || caps->v[f].ptr)
            continue;
        caps->v[f] = v;
        caps->extra_present |= SAT_HF_BIT(f);
    }
    return 0;
}

size_t sat_http_extras_names(sat_str tail, char *out, size_t cap)
{
    const char *p = tail.ptr, *end = tail.ptr + tail.len;
    size_t o = 0;
    if (!cap)
        return 0;
    out[0] = '\0';
    while (p && p < end) {
        if (is_blank(*p)) {
            p++;
            continue;
        }
        const char *k = NULL;
        size_t kn;
        sat_str v;
        p = token(p, end, &k, &kn, &v);
        if (!p)
            break;
        if (!kn)
            continue;
        if (o + kn + 2 > cap) /* the names that fit, whole */
            break;
        if (o)
            out[o++] = ',';
        memcpy(out + o, k, kn);
        o += kn;
        out[o] = '\0';
    }
    return o;
}
