/*
 * fmt_openldap.c - OpenLDAP slapd `loglevel stats` (256) lines, as written by
 * servers/slapd/{daemon,connection,result,bind,search,...}.c in 2.4-2.6:
 *
 *   conn=N fd=N ACCEPT from IP=a.b.c.d:port (IP=0.0.0.0:389)   (also PATH=, [v6])
 *   conn=N fd=N TLS established tls_ssf=256 ssf=256 [tls_proto= tls_cipher=]
 *   conn=N op=N BIND dn="..." method=128        + BIND dn="..." mech=SIMPLE ...
 *   conn=N op=N SRCH base="..." scope=2 deref=0 filter="..."  + SRCH attr=...
 *   conn=N op=N ADD|MOD|DEL|MODRDN dn="..."  (+ MOD attr=...), CMP dn= attr=
 *   conn=N op=N EXT oid=...                     + STARTTLS / WHOAMI / PASSMOD
 *   conn=N op=N ABANDON msg=N, UNBIND
 *   conn=N op=N [SEARCH ]RESULT tag= err= [qtime= etime=] [nentries=] text=...
 *   conn=N op=N RESULT oid= err= ... text=       conn=N fd=N closed [(reason)]
 *
 * behind one of three prefixes: BSD syslog "Mon dd HH:MM:SS host slapd[pid]: "
 * (no year: ctx->default_year, which collect/ takes from ol_first_year, i.e.
 * sat_year_for the file's mtime; bumped when the month wraps Dec -> Jan),
 * RFC 3339 syslog "2024-05-01T12:00:00.123456+02:00 host slapd[pid]: ", and
 * the 2.5 debug / 2.6 logfile "hexsec.hexnsec threadid ". qtime (time queued
 * before a thread took the operation) is the wait time; OpenLDAP's etime
 * counts from the operation's arrival, so optime = etime - qtime.
 *
 * Other slapd lines (daemon:, banner, shutdown, backend chatter) are counted
 * as lines but neither rejected nor turned into events; lines with no known
 * prefix are rejected.
 */
#include "satscope/parse.h"
#include "timefmt.h"

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

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int fixed_digits(const char *p, const char *end, int k, int *out)
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
static const char *parse_i64(const char *p, const char *end, int64_t *out)
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
static const char *parse_secs(const char *p, const char *end, int64_t *ns)
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

static int starts(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

/* Finds lit in [p, end). */
static const char *find(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    while ((size_t)(end - p) >= n) {
        const char *q = (const char *)memchr(p, lit[0], (size_t)(end - p) - n + 1);
        if (!q)
            return NULL;
        if (memcmp(q, lit, n) == 0)
            return q;
        p = q + 1;
    }
    return NULL;
}

/* ---- prefixes --------------------------------------------------------------------- */

/* "hexsec.hexnsec threadid " (2.5 debug output, 2.6 logfile). */
static const char *hex_prefix(const char *p, const char *end, sat_ts_ns *ts)
{
    uint64_t sec = 0, frac = 0;
    const char *s = p;
    while (p < end && hexval(*p) >= 0 && p - s < 16)
        sec = sec * 16 + (uint64_t)hexval(*p++);
    if (p - s < 8 || p >= end || *p != '.')
        return NULL;
    s = ++p;
    while (p < end && hexval(*p) >= 0 && p - s < 8)
        frac = frac * 16 + (uint64_t)hexval(*p++);
    if (p - s != 8 || p >= end || *p != ' ')
        return NULL;
    p++;
    s = p;
    while (p < end && *p != ' ')
        p++;
    if (p == s || p >= end || sec > (uint64_t)INT64_MAX / 2000000000ULL)
        return NULL;
    if (frac >= 1000000000ULL) /* a binary fraction, not nanoseconds */
        frac = (frac * 1000000000ULL) >> 32;
    *ts = (sat_ts_ns)(sec * 1000000000ULL + frac);
    return p + 1;
}

/* "host prog[pid]: " after a syslog timestamp; sets host and whether the
 * program is slapd. */
static const char *syslog_tail(const char *p, const char *end, const char **host,
                               size_t *hlen, int *is_slapd)
{
    if (p >= end || *p != ' ')
        return NULL;
    p++;
    *host = p;
    while (p < end && *p != ' ')
        p++;
    *hlen = (size_t)(p - *host);
    if (*hlen == 0 || p >= end)
        return NULL;
    p++;
    const char *prog = p;
    while (p < end && *p != ' ' && *p != '[' && *p != ':')
        p++;
    size_t plen = (size_t)(p - prog);
    if (p < end && *p == '[') {
        while (p < end && *p != ']')
            p++;
        if (p >= end)
            return NULL;
        p++;
    }
    if (p >= end || *p != ':')
        return NULL;
    p++;
    if (p < end && *p == ' ')
        p++;
    *is_slapd = plen >= 5 && memcmp(prog + plen - 5, "slapd", 5) == 0;
    return p;
}

/* RFC 3339: 2024-05-01T12:00:00.123456+02:00 */
static const char *rfc3339(const char *p, const char *end, sat_ts_ns *ts, int32_t *off_s)
{
    int Y, M, D, h, mi, s;
    if (fixed_digits(p, end, 4, &Y) || end - p < 19 || p[4] != '-' ||
        fixed_digits(p + 5, end, 2, &M) || p[7] != '-' || fixed_digits(p + 8, end, 2, &D) ||
        (p[10] != 'T' && p[10] != ' ') || fixed_digits(p + 11, end, 2, &h) || p[13] != ':' ||
        fixed_digits(p + 14, end, 2, &mi) || p[16] != ':' || fixed_digits(p + 17, end, 2, &s))
        return NULL;
    /* int64 nanoseconds since 1970 end in 2262 */
    if (Y < 1970 || Y > 2261 || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || mi > 59 ||
        s > 60)
        return NULL;
    p += 19;
    int64_t frac = 0;
    if (p < end && *p == '.')
        p = sat_fraction_ns(p + 1, end, &frac, NULL);
    int32_t off = 0;
    if (p < end && (*p == 'Z' || *p == 'z')) {
        p++;
    } else if (p < end && (*p == '+' || *p == '-')) {
        int sign = *p == '-' ? -1 : 1, oh, om;
        p++;
        if (fixed_digits(p, end, 2, &oh))
            return NULL;
        p += 2;
        if (p < end && *p == ':')
            p++;
        if (fixed_digits(p, end, 2, &om))
            return NULL;
        p += 2;
        if (oh > 23 || om > 59)
            return NULL;
        off = sign * (oh * 3600 + om * 60);
    } else {
        return NULL;
    }
    *ts = ((sat_days_from_civil(Y, (unsigned)M, (unsigned)D) * 86400) + h * 3600 + mi * 60 + s - off) *
              1000000000LL + frac;
    *off_s = off;
    return p;
}

/* "Oct 26 03:30:53" (day may be space padded). */
static const char *bsd_time(const char *p, const char *end, int *mon, int *day, int *secs)
{
    int d, h, mi, s;
    if (end - p < 15 || !(*mon = sat_month_of(p)) || p[3] != ' ')
        return NULL;
    if (p[4] == ' ' && is_digit(p[5]))
        d = p[5] - '0';
    else if (fixed_digits(p + 4, end, 2, &d))
        return NULL;
    if (p[6] != ' ' || fixed_digits(p + 7, end, 2, &h) || p[9] != ':' ||
        fixed_digits(p + 10, end, 2, &mi) || p[12] != ':' || fixed_digits(p + 13, end, 2, &s))
        return NULL;
    if (d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return NULL;
    *day = d;
    *secs = h * 3600 + mi * 60 + s;
    return p + 15;
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

static int parse_prefix(const char *p, const char *end, prefix *px)
{
    const char *m;
    memset(px, 0, sizeof *px);
    px->is_slapd = 1;
    if (p < end && hexval(*p) >= 0 && (m = hex_prefix(p, end, &px->ts))) {
        px->kind = PFX_HEX;
        px->msg = m;
        return 1;
    }
    if (p < end && is_digit(*p) && (m = rfc3339(p, end, &px->ts, &px->off)) &&
        (m = syslog_tail(m, end, &px->host, &px->hlen, &px->is_slapd))) {
        px->kind = PFX_RFC3339;
        px->msg = m;
        return 1;
    }
    if ((m = bsd_time(p, end, &px->mon, &px->day, &px->secs)) &&
        (m = syslog_tail(m, end, &px->host, &px->hlen, &px->is_slapd))) {
        px->kind = PFX_BSD;
        px->msg = m;
        return 1;
    }
    return 0;
}

static sat_ts_ns bsd_ts(int year, const prefix *px)
{
    return (sat_days_from_civil(year, (unsigned)px->mon, (unsigned)px->day) * 86400 + px->secs) *
           1000000000LL;
}

/* ---- message bodies --------------------------------------------------------------- */

/* Value of key="..." where the closing quote is the one followed by `next`
 * (" scope=", " method=", ...) or, with next == NULL, the line's last quote. */
static int quoted(const char *p, const char *end, const char *next, sat_str *out,
                  const char **after)
{
    if (p >= end || *p != '"')
        return -1;
    p++;
    const char *q;
    if (next) {
        char pat[32];
        size_t n = strlen(next);
        if (n + 1 >= sizeof pat)
            return -1;
        pat[0] = '"';
        memcpy(pat + 1, next, n + 1);
        q = find(p, end, pat);
    } else {
        q = end;
        while (q > p && q[-1] != '"')
            q--;
        q = q > p ? q - 1 : NULL;
    }
    if (!q)
        return -1;
    *out = sat_str_make(p, (size_t)(q - p));
    if (after)
        *after = q + 1;
    return 0;
}

/* key=value tokens of a RESULT line; text= takes the rest of the line. */
static int result_fields(const char *p, const char *end, sat_ldap_op *o)
{
    int64_t qtime = SAT_ABSENT;
    while (p < end) {
        while (p < end && *p == ' ')
            p++;
        if (p >= end)
            break;
        if (starts(p, end, "text=")) {
            o->text = sat_str_make(p + 5, (size_t)(end - p - 5));
            break;
        }
        const char *eq = p;
        while (eq < end && *eq != '=' && *eq != ' ')
            eq++;
        if (eq >= end || *eq != '=')
            return -1;
        size_t kl = (size_t)(eq - p);
        const char *v = eq + 1, *ve = v;
        while (ve < end && *ve != ' ')
            ve++;
        int64_t n;
        const char *r;
#define KEY(lit) (kl == sizeof(lit) - 1 && memcmp(p, lit, kl) == 0)
        if (KEY("tag")) {
            if (!(r = parse_i64(v, ve, &n)) || r != ve) return -1;
            o->tag = (int32_t)n;
        } else if (KEY("err")) {
            if (!(r = parse_i64(v, ve, &n)) || r != ve) return -1;
            o->err = (int32_t)n;
        } else if (KEY("nentries")) {
            if (!(r = parse_i64(v, ve, &n)) || r != ve) return -1;
            o->nentries = n;
        } else if (KEY("qtime")) {
            if (!(r = parse_secs(v, ve, &n)) || r != ve) return -1;
            qtime = n;
        } else if (KEY("etime")) {
            if (!(r = parse_secs(v, ve, &n)) || r != ve) return -1;
            o->etime = n;
        } else if (KEY("oid")) {
            if (ve > v)
                o->method = sat_str_make(v, (size_t)(ve - v));
        }
#undef KEY
        p = ve;
    }
    if (o->err == SAT_ABSENT)
        return -1;
    if (qtime != SAT_ABSENT) {
        o->wtime = qtime;
        if (o->etime != SAT_ABSENT && o->etime >= qtime)
            o->optime = o->etime - qtime;
    }
    return 0;
}

/* "a.b.c.d:port", "[::1]:port" or "PATH=/path" (after "IP="). */
static void split_hostport(const char *p, const char *e, sat_str *ip, uint16_t *port)
{
    const char *colon = NULL;
    if (p < e && *p == '[') {
        const char *rb = (const char *)memchr(p, ']', (size_t)(e - p));
        if (rb) {
            *ip = sat_str_make(p + 1, (size_t)(rb - p - 1));
            colon = rb + 1 < e && rb[1] == ':' ? rb + 1 : NULL;
        } else {
            *ip = sat_str_make(p, (size_t)(e - p));
        }
    } else {
        for (const char *q = e; q > p; q--)
            if (q[-1] == ':') {
                colon = q - 1;
                break;
            }
        /* a bare IPv6 address has several colons: no port */
        if (colon && memchr(p, ':', (size_t)(colon - p)))
            colon = NULL;
        *ip = sat_str_make(p, (size_t)((colon ? colon : e) - p));
    }
    if (colon) {
        int64_t n;
        const char *r = parse_i64(colon + 1, e, &n);
        if (r == e && n >= 0 && n <= 65535)
            *port = (uint16_t)n;
    }
}

/* conn=N fd=N ... */
static int fd_line(const char *p, const char *end, sat_ldap_record *rec, int *known)
{
    sat_ldap_conn *c = &rec->conn_fields;
    int64_t fd;
    const char *r = parse_i64(p, end, &fd);
    if (!r || r >= end || *r != ' ')
        return -1;
    c->fd = fd >= 0 && fd <= INT32_MAX ? (int32_t)fd : SAT_ABSENT;
    p = r + 1;
    *known = 1;
    if (starts(p, end, "ACCEPT from ")) {
        rec->kind = SAT_REC_CONNECT;
        p += 12;
        const char *sp = (const char *)memchr(p, ' ', (size_t)(end - p));
        const char *e = sp ? sp : end;
        if (starts(p, e, "IP=")) {
            split_hostport(p + 3, e, &c->client_ip, &c->client_port);
            c->listener = SAT_LISTENER_LDAP;
        } else if (starts(p, e, "PATH=")) {
            c->client_ip = sat_str_cstr("local");
            c->listener = SAT_LISTENER_LDAPI;
        } else {
            return -1;
        }
        if (sp && sp + 2 < end && sp[1] == '(') {
            const char *s = sp + 2, *cl = end;
            if (cl > s && cl[-1] == ')')
                cl--;
            if (starts(s, cl, "IP="))
                s += 3;
            else if (starts(s, cl, "PATH="))
                s += 5;
            c->server_addr = sat_str_make(s, (size_t)(cl - s));
            /* 636 is ldaps by convention; slapd logs no scheme */
            if (c->listener == SAT_LISTENER_LDAP && cl - s > 4 &&
                memcmp(cl - 4, ":636", 4) == 0)
                c->listener = SAT_LISTENER_LDAPS;
        }
        return 0;
    }
    if (starts(p, end, "TLS established")) {
        rec->kind = SAT_REC_TLS;
        const char *v = find(p, end, "tls_proto=");
        if (v) {
            v += 10;
            const char *ve = v;
            while (ve < end && *ve != ' ')
                ve++;
            c->tls_version = sat_str_make(v, (size_t)(ve - v));
        }
        v = find(p, end, "tls_cipher=");
        if (v) {
            v += 11;
            const char *ve = v;
            while (ve < end && *ve != ' ')
                ve++;
            c->tls_cipher = sat_str_make(v, (size_t)(ve - v));
        }
        return 0;
    }
    if (starts(p, end, "closed")) {
        rec->kind = SAT_REC_CLOSE;
        c->close_code = SAT_CLOSE_OTHER;
        p += 6;
        while (p < end && *p == ' ')
            p++;
        if (p < end && *p == '(') {
            const char *e = end;
            if (e[-1] == ')')
                e--;
            c->close_reason = sat_str_make(p + 1, (size_t)(e - p - 1));
            /* slapd's reasons for closing (servers/slapd/connection.c,
             * daemon.c): "connection lost" when reading from the client
             * failed or it went away without an UNBIND, "connection lost on
             * write" when an answer could not be sent. Neither is a clean
             * close; other reasons (idletimeout, ...) stay "other". */
            static const char lost[] = "connection lost", lost_w[] = "connection lost on write";
            size_t rn = c->close_reason.len;
            if (rn == sizeof lost - 1 && memcmp(p + 1, lost, rn) == 0)
                c->close_code = SAT_CLOSE_LOST;
            else if (rn == sizeof lost_w - 1 && memcmp(p + 1, lost_w, rn) == 0)
                c->close_code = SAT_CLOSE_LOST_WRITE;
        }
        return 0;
    }
    /* other per-fd chatter ("TLS accept failure", ...): not an event */
    rec->kind = 0;
    return 0;
}

static int op_line(const char *p, const char *end, sat_ldap_record *rec)
{
    sat_ldap_op *o = &rec->op_fields;
    const char *r;
    rec->kind = SAT_REC_REQUEST;
    if (starts(p, end, "BIND ")) {
        p += 5;
        o->type = SAT_OP_BIND;
        if (starts(p, end, "dn=")) {
            if (find(p, end, "\" method=")) {
                if (quoted(p + 3, end, " method=", &o->dn, &r) < 0)
                    return -1;
                int64_t m;
                const char *q = parse_i64(r + 8, end, &m);
                if (!q)
                    return -1;
                /* LDAP_AUTH_SIMPLE 0x80, LDAP_AUTH_SASL 0xa3 (RFC 4511) */
                o->method = sat_str_cstr(m == 128 ? "SIMPLE" : m == 163 ? "SASL" : "other");
                return 0;
            }
            if (find(p, end, "\" mech=")) {
                rec->kind = SAT_REC_DETAIL;
                if (quoted(p + 3, end, " mech=", &o->dn, &r) < 0)
                    return -1;
                const char *m = r + 6, *me = m;
                while (me < end && *me != ' ')
                    me++;
                o->method = sat_str_make(m, (size_t)(me - m));
                return 0;
            }
            return -1;
        }
        if (starts(p, end, "anonymous") || starts(p, end, "authcid=")) {
            rec->kind = SAT_REC_DETAIL; /* adds nothing the request lacks */
            return 0;
        }
        return -1;
    }
    if (starts(p, end, "SRCH ")) {
        p += 5;
        o->type = SAT_OP_SRCH;
        if (starts(p, end, "attr=")) {
            rec->kind = SAT_REC_DETAIL;
            o->attrs = sat_str_make(p + 5, (size_t)(end - p - 5));
            return 0;
        }
        if (!starts(p, end, "base=") || quoted(p + 5, end, " scope=", &o->dn, &r) < 0)
            return -1;
        int64_t n;
        p = r + 7;
        if (!(p = parse_i64(p, end, &n)))
            return -1;
        o->scope = n >= 0 && n <= 2 ? (uint8_t)n : SAT_SCOPE_NONE;
        const char *f = find(p, end, "filter=");
        if (f && quoted(f + 7, end, NULL, &o->filter, NULL) < 0)
            return -1;
        return 0;
    }
    if (starts(p, end, "SEARCH RESULT ")) {
        rec->kind = SAT_REC_RESULT;
        o->type = SAT_OP_UNKNOWN;
        return result_fields(p + 14, end, o);
    }
    if (starts(p, end, "RESULT ")) {
        rec->kind = SAT_REC_RESULT;
        return result_fields(p + 7, end, o);
    }
    static const struct { const char *verb; int type; } dnops[] = {
        {"ADD dn=", SAT_OP_ADD}, {"MOD dn=", SAT_OP_MOD}, {"DEL dn=", SAT_OP_DEL},
        {"MODRDN dn=", SAT_OP_MODRDN}, {"CMP dn=", SAT_OP_CMP}};
    for (size_t i = 0; i < sizeof dnops / sizeof dnops[0]; i++) {
        if (!starts(p, end, dnops[i].verb))
            continue;
        o->type = (uint8_t)dnops[i].type;
        p += strlen(dnops[i].verb);
        if (dnops[i].type == SAT_OP_CMP) {
            if (quoted(p, end, " attr=", &o->dn, &r) < 0)
                return -1;
            r += 6;
            if (r < end && *r == '"')
                quoted(r, end, NULL, &o->extra, NULL);
            else
                o->extra = sat_str_make(r, (size_t)(end - r));
            return 0;
        }
        return quoted(p, end, NULL, &o->dn, NULL);
    }
    if (starts(p, end, "MOD attr=")) {
        rec->kind = SAT_REC_DETAIL;
        o->attrs = sat_str_make(p + 9, (size_t)(end - p - 9));
        return 0;
    }
    if (starts(p, end, "EXT oid=")) {
        o->type = SAT_OP_EXT;
        const char *v = p + 8, *ve = v;
        while (ve < end && *ve != ' ')
            ve++;
        o->method = sat_str_make(v, (size_t)(ve - v));
        return 0;
    }
    if (starts(p, end, "ABANDON msg=")) {
        o->type = SAT_OP_ABANDON;
        int64_t n;
        if (!(r = parse_i64(p + 12, end, &n)))
            return -1;
        o->target_op = n;
        return 0;
    }
    if (starts(p, end, "UNBIND")) {
        o->type = SAT_OP_UNBIND;
        return 0;
    }
    if (starts(p, end, "ENTRY ")) {
        rec->kind = SAT_REC_DETAIL;
        o->nentries = 1;
        return 0;
    }
    /* the name line after EXT oid=: STARTTLS, WHOAMI, PASSMOD ..., CANCEL, ... */
    const char *w = p;
    while (w < end && ((*w >= 'A' && *w <= 'Z') || *w == '_'))
        w++;
    if (w > p && (w == end || *w == ' ')) {
        if ((w - p == 3 && memcmp(p, "REF", 3) == 0) ||
            (w - p == 6 && memcmp(p, "INTERM", 6) == 0)) {
            rec->kind = 0;
            return 0;
        }
        rec->kind = SAT_REC_DETAIL;
        o->extra = sat_str_make(p, (size_t)(w - p));
        return 0;
    }
    rec->kind = 0; /* other op chatter ("do_search: invalid dn", ...) */
    return 0;
}

/* ---- the format ------------------------------------------------------------------- */

static void *ol_create(sat_parse_ctx *ctx)
{
    ol_state *s = (ol_state *)calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ctx = ctx;
    s->year = ctx->default_year > 0 ? ctx->default_year : 0; /* 0: from the first line */
    return s;
}

static void ol_destroy(void *state) { free(state); }

static int ol_line(void *state, const char *line, size_t len, uint64_t line_no)
{
    ol_state *s = (ol_state *)state;
    sat_parse_ctx *ctx = s->ctx;
    sat_source *src = ctx->source;
    const char *p = line, *end = line + len;
    if (src)
        src->lines++;
    while (end > p && (end[-1] == '\r' || end[-1] == '\n'))
        end--;
    if (p == end)
        return SAT_OK;
    if (*p == '\t' || *p == ' ') {
        /* the banner's continuation ("\tDebian OpenLDAP Maintainers ...") */
        if (s->prev_banner)
            return SAT_OK;
        return sat_parse_reject(ctx, line_no, "unrecognised line", line, len);
    }
    s->prev_banner = 0;

    prefix px;
    if (!parse_prefix(p, end, &px))
        return sat_parse_reject(ctx, line_no, "no timestamp", line, len);
    if (px.kind == PFX_BSD) {
        if (!s->year)
            s->year = sat_year_for(px.mon, px.day, px.secs, 0);
        if (s->last_month && px.mon < s->last_month && s->last_month - px.mon >= 6)
            s->year++; /* Dec -> Jan within one file */
        s->last_month = px.mon;
        if (s->year < 1970 || s->year > 2261)
            return sat_parse_reject(ctx, line_no, "year out of range", line, len);
        px.ts = bsd_ts(s->year, &px);
    }
    if (px.host && px.hlen && src && !src->server_name.ptr) {
        size_t n = px.hlen < sizeof s->host - 1 ? px.hlen : sizeof s->host - 1;
        memcpy(s->host, px.host, n);
        s->host[n] = '\0';
        src->server_name = sat_str_make(s->host, n);
    }
    if (!px.is_slapd)
        return SAT_OK; /* another daemon sharing the syslog file */
    if (src) {
        if (src->first_ts == 0 || px.ts < src->first_ts)
            src->first_ts = px.ts;
        if (px.ts > src->last_ts)
            src->last_ts = px.ts;
        src->utc_offset_s = px.off;
    }

    p = px.msg;
    sat_ldap_record rec;
    sat_ldap_record_clear(&rec);
    rec.ts = px.ts;
    if (starts(p, end, "conn=")) {
        int64_t conn;
        const char *r = parse_i64(p + 5, end, &conn);
        if (!r || r >= end || *r != ' ')
            return sat_parse_reject(ctx, line_no, "malformed conn= line", line, len);
        rec.conn = conn;
        rec.conn_fields.conn = conn;
        rec.op_fields.conn = conn;
        p = r + 1;
        int rc, known = 0;
        if (starts(p, end, "fd=")) {
            rc = fd_line(p + 3, end, &rec, &known);
        } else if (starts(p, end, "op=")) {
            int64_t op;
            r = parse_i64(p + 3, end, &op);
            if (!r || r >= end || *r != ' ')
                return sat_parse_reject(ctx, line_no, "malformed op= line", line, len);
            rec.op = op;
            rec.op_fields.op = op;
            rc = op_line(r + 1, end, &rec);
        } else {
            rc = 0;
            rec.kind = 0;
        }
        if (rc < 0)
            return sat_parse_reject(ctx, line_no, "malformed stats line", line, len);
        if (!rec.kind)
            return SAT_OK;
        return sat_parse_emit(ctx, &rec);
    }
    if (starts(p, end, "slapd starting")) {
        rec.kind = SAT_REC_RESTART;
        return sat_parse_emit(ctx, &rec);
    }
    if (starts(p, end, "@(#) $OpenLDAP: ")) {
        s->prev_banner = 1;
        const char *v = p + 16, *ve = v;
        while (ve < end && *ve != '(' && *ve != '$')
            ve++;
        while (ve > v && ve[-1] == ' ')
            ve--;
        if (src && !src->server_version.ptr) {
            size_t n = (size_t)(ve - v) < sizeof s->version - 1 ? (size_t)(ve - v)
                                                                  : sizeof s->version - 1;
            memcpy(s->version, v, n);
            s->version[n] = '\0';
            src->server_version = sat_str_make(s->version, n);
        }
        return SAT_OK;
    }
    /* any other slapd message: daemon:, connection_read(N): ..., shutdown,
     * backend and overlay chatter */
    return SAT_OK;
}

static int ol_finish(void *state)
{
    (void)state;
    return SAT_OK;
}

/* Looks at up to 16 lines; a known prefix followed by slapd stats wording. */
static int ol_sniff(const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    int lines = 0, prefixed = 0, stats = 0;
    if (len > 8192)
        end = buf + 8192;
    while (p < end && lines < 16) {
        const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        prefix px;
        if (p < e && parse_prefix(p, e, &px)) {
            if (px.is_slapd)
                prefixed++;
            if (find(px.msg, e, "conn=") || starts(px.msg, e, "slapd starting") ||
                starts(px.msg, e, "@(#) $OpenLDAP:"))
                stats++;
        }
        lines++;
        if (!nl)
            break;
        p = nl + 1;
    }
    if (stats && prefixed)
        return stats * 2 >= lines ? 90 : 70;
    return prefixed ? 25 : 0;
}

/* The first line with a prefix; 0 when none. */
static int first_prefix(const char *buf, size_t len, prefix *px)
{
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        if (p < e && parse_prefix(p, e, px))
            return 1;
        if (!nl)
            break;
        p = nl + 1;
    }
    return 0;
}

static int ol_first_year(const char *buf, size_t len, sat_ts_ns ref, int *year, sat_ts_ns *ts)
{
    prefix px;
    if (!first_prefix(buf, len, &px) || px.kind != PFX_BSD)
        return SAT_E_FORMAT;
    *year = sat_year_for(px.mon, px.day, px.secs, ref);
    *ts = bsd_ts(*year, &px);
    return SAT_OK;
}

/* Without the file's time: the same rule against now. */
static int ol_first_ts(const char *buf, size_t len, sat_ts_ns *ts)
{
    prefix px;
    if (!first_prefix(buf, len, &px))
        return SAT_E_FORMAT;
    *ts = px.kind == PFX_BSD ? bsd_ts(sat_year_for(px.mon, px.day, px.secs, 0), &px) : px.ts;
    return SAT_OK;
}

const sat_log_format sat_fmt_openldap = {
    "openldap",
    "OpenLDAP slapd loglevel stats (syslog, RFC 3339 syslog, 2.6 logfile)",
    ol_sniff,
    ol_first_ts,
    ol_create,
    ol_line,
    ol_finish,
    ol_destroy,
    0,
    ol_first_year,
};
