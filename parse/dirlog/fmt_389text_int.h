/*
 * fmt_389text_int.h - (private to the 389 text access-log format,
 * parse/dirlog/fmt_389text*.c) the state its files share: the format's per-source
 * state, the small scanners (numbers, durations) and key=value tokens every
 * reader uses, and the functions one file calls in another.
 *   fmt_389text.c       one line: timestamp, conn=, op=, the verb; the format
 *                       table (sniff, first timestamp);
 *   fmt_389text_scan.c  the timestamp, key=value tokens;
 *   fmt_389text_op.c    the fields of RESULT and of request lines;
 *   fmt_389text_conn.c  connection, close and TLS lines.
 * The grammar and its sources are in fmt_389text.c's opening comment.
 *
 * Ownership: records point into the line (or into t389's header copies) and
 * are valid for the emit call only.
 */
#ifndef SAT_PARSE_FMT_389TEXT_INT_H
#define SAT_PARSE_FMT_389TEXT_INT_H

#include "fmt_389json.h"
#include "timefmt.h"
#include "satscope/parse.h"

#define HDR_MAX 256

typedef struct t389 {
    sat_parse_ctx *ctx;
    /* timestamp cache: "dd/Mon/yyyy:HH" + "+ZZZZ" -> UTC epoch s of that hour */
    char ts_key[19];
    int ts_key_valid;
    int64_t ts_hour_s;
    int32_t ts_off_s;
    /* header facts, owned here so the source's views outlive the line */
    char version[HDR_MAX];
    char name[HDR_MAX];
    sat_ldap_record rec;
    char reason[96];
} t389;

/* ---- small scanners ----------------------------------------------------------- */
static inline int is_digit(char c) { return c >= '0' && c <= '9'; }

static inline int starts(const char *p, const char *end, const char *lit, size_t n)
{
    return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}
#define STARTS(p, end, lit) starts((p), (end), (lit), sizeof(lit) - 1)

static inline const char *skip_sp(const char *p, const char *end)
{
    while (p < end && *p == ' ')
        p++;
    return p;
}

/* Unsigned decimal, at most 18 digits; returns the end or NULL. */
static inline const char *scan_u64(const char *p, const char *end, int64_t *out)
{
    const char *s = p;
    int64_t v = 0;
    while (p < end && is_digit(*p) && p - s < 18)
        v = v * 10 + (*p++ - '0');
    if (p == s || (p < end && is_digit(*p)))
        return NULL;
    *out = v;
    return p;
}

static inline int parse_i64(const char *v, size_t n, int64_t *out)
{
    int neg = 0;
    if (n && v[0] == '-') {
        neg = 1;
        v++;
        n--;
    }
    const char *e = scan_u64(v, v + n, out);
    if (!e || e != v + n)
        return -1;
    if (neg)
        *out = -*out;
    return 0;
}

/* "3", "0.001000", "0.000054666", "0.0011" -> ns; *coarse for whole seconds. */
static inline int parse_dur(const char *v, size_t n, int64_t *ns, int *coarse)
{
    const char *end = v + n, *p;
    int64_t s;
    p = scan_u64(v, end, &s);
    if (!p || s > 9000000000LL)
        return -1;
    int64_t frac = 0;
    *coarse = 1;
    if (p < end && *p == '.') {
        int digits;
        *coarse = 0;
        p = sat_fraction_ns(p + 1, end, &frac, &digits);
        if (!digits)
            return -1;
    }
    if (p != end)
        return -1;
    *ns = s * 1000000000LL + frac;
    return 0;
}

/* ---- key=value tokens ------------------------------------------------------------ */
typedef struct kv {
    const char *k, *v; /* v == NULL: a bare word without '=' */
    size_t klen, vlen;
    const char *start, *stop; /* the whole token as logged */
    int quoted;
} kv;

static inline int key_is(const kv *t, const char *k, size_t n)
{
    return t->klen == n && memcmp(t->k, k, n) == 0;
}
#define KEY(t, lit) key_is((t), (lit), sizeof(lit) - 1)

static inline sat_str kv_str(const kv *t) { return sat_str_make(t->v, t->vlen); }

/* ---- fmt_389text_scan.c: the timestamp, key=value tokens ------------------------- */
const char *sat_t389_parse_ts(const char *p, const char *end, t389 *cache, sat_ts_ns *ts,
                              int32_t *off_out);
int sat_t389_kv_next(const char **pp, const char *end, kv *t, sat_str *text);

/* ---- fmt_389text_op.c: the fields of RESULT and request lines -------------------
 * Both return 0, or -1 for a line to reject; when the reason is a duration
 * past the plausible bound (sat_parse_dur_check), it is written into why
 * (why[0] stays '\0' otherwise). */
int sat_t389_parse_result_fields(const char *p, const char *end, sat_ldap_op *o,
                                 const char **bad, char *why, size_t nwhy);
int sat_t389_parse_request(const char *p, const char *end, int type, sat_ldap_op *o,
                           char *why, size_t nwhy);

/* ---- fmt_389text_conn.c: connection, close and TLS lines ------------------------ */
sat_str sat_t389_trim(const char *s, const char *e);
void sat_t389_split_close(const char *s, const char *end, sat_ldap_conn *c);
int sat_t389_parse_fd_line(const char *p, const char *end, sat_ldap_record *rec);
int sat_t389_parse_tls_line(const char *p, const char *end, sat_ldap_record *rec);

#endif
