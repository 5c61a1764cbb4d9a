/*
 * fmt_openldap_int.h - (private to the OpenLDAP stats format,
 * parse/dirlog/fmt_openldap*.c) the state its files share: the format's per-source
 * state, a line's prefix, the small scanners every reader uses, and the
 * functions one file calls in another.
 *   fmt_openldap.c         one line and the format table (sniff, first
 *                          timestamp and year);
 *   fmt_openldap_prefix.c  the three prefixes (BSD syslog, RFC 3339 syslog,
 *                          the 2.5 debug / 2.6 logfile hex time);
 *   fmt_openldap_conn.c    "conn=N fd=N" lines: ACCEPT, TLS, closed;
 *   fmt_openldap_op.c      "conn=N op=N" lines: requests and RESULTs.
 * The grammar and its sources are in fmt_openldap.c's opening comment.
 *
 * Ownership: records point into the line and are valid for the emit call
 * only; the source's server name and version point into ol_state.
 */
#ifndef SAT_PARSE_FMT_OPENLDAP_INT_H
#define SAT_PARSE_FMT_OPENLDAP_INT_H

#include "satscope/parse.h"
#include "timefmt.h"
#include "text_scan.h"

/* ctx->source->server_name / server_version point into this state: valid
 * until destroy (collect/ emits the source row before destroying it). */
typedef struct ol_state {
    sat_parse_ctx *ctx;
    int year;       /* for BSD syslog timestamps */
    int last_month; /* 1..12, 0 before the first */
    char host[256];
    char version[160];
    int prev_banner; /* the previous line was the version banner */
} ol_state;

/* ---- small scanners over [p, end) -------------------------------------------------- */

static inline int is_digit(char c) { return c >= '0' && c <= '9'; }
static inline int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static inline int fixed_digits(const char *p, const char *end, int k, int *out)
{
    int v = 0;
    if (end - p < k)
        return -1;
    for (int i = 0; i < k; i++) {
        if (!is_digit(p[i]))
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 0;
}

/* Unsigned decimal; returns the position after it or NULL. */
static inline const char *parse_i64(const char *p, const char *end, int64_t *out)
{
    int neg = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    const char *s = p;
    uint64_t v = 0;
    while (p < end && is_digit(*p)) {
        if (v > 922337203685477579ULL)
            return NULL;
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
    }
    if (p == s)
        return NULL;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return p;
}

/* "0.000123" seconds to ns (digits past the 9th dropped). */
static inline const char *parse_secs(const char *p, const char *end, int64_t *ns)
{
    int64_t sec = 0, frac = 0;
    const char *s = p;
    while (p < end && is_digit(*p)) {
        if (sec > 9000000000LL)
            return NULL;
        sec = sec * 10 + (*p - '0');
        p++;
    }
    if (p == s)
        return NULL;
    if (p < end && *p == '.')
        p = sat_fraction_ns(p + 1, end, &frac, NULL);
    *ns = sec * 1000000000LL + frac;
    return p;
}

enum { PFX_NONE = 0, PFX_HEX, PFX_RFC3339, PFX_BSD };

typedef struct prefix {
    int kind;
    sat_ts_ns ts;
    int32_t off;
    int mon, day, secs; /* BSD: resolved against a year later */
    const char *host;
    size_t hlen;
    int is_slapd;
    const char *msg;
} prefix;

/* ---- fmt_openldap_prefix.c: the three line prefixes ---------------------------- */
int sat_ol_parse_prefix(const char *p, const char *end, prefix *px);
sat_ts_ns sat_ol_bsd_ts(int year, const prefix *px);

/* ---- fmt_openldap_conn.c / fmt_openldap_op.c: the message after "conn=N " ------- */
int sat_ol_fd_line(const char *p, const char *end, sat_ldap_record *rec, int *known);
/* -1 for a line to reject; when the reason is a duration past the plausible
 * bound (sat_parse_dur_check), it is written into why (why[0] stays '\0'
 * otherwise). */
int sat_ol_op_line(const char *p, const char *end, sat_ldap_record *rec, char *why,
                   size_t nwhy);

#endif
