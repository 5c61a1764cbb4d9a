/*
 * fmt_389text.c - the legacy text access log of 389 Directory Server (1.2 ..
 * 3.x), Red Hat Directory Server and Sun/Oracle DSEE, which share its line
 * grammar:
 *
 *   [dd/Mon/yyyy:HH:MM:SS[.nnnnnnnnn] +ZZZZ] conn=N [op=N] VERB key=value ...
 *
 * Written from 389-ds-base's own log statements as seen in real logs and the
 * port389.org design docs (result.c RESULT lines, connection.c / daemon.c
 * connection and close lines, disconnect_error_strings.h close codes, the
 * logconv.pl reader). Each line becomes zero or more sat_ldap_record fed to the
 * shared joiner (parse/ldap_join.c); lines starting with '{' are 389 3.1+ JSON
 * objects, handed to parse/fmt_389json.c. Lines are not NUL-terminated: every
 * scan is bounded by the line's end. No allocation per line.
 */
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
static const char *scan_u64(const char *p, const char *end, int64_t *out)
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

static int parse_i64(const char *v, size_t n, int64_t *out)
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
static int parse_dur(const char *v, size_t n, int64_t *ns, int *coarse)
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

/* ---- timestamps ---------------------------------------------------------------- */
static inline int d2(const char *p) { return (p[0] - '0') * 10 + (p[1] - '0'); }
static inline int all_digits(const char *p, int n)
{
    for (int i = 0; i < n; i++)
        if (!is_digit(p[i]))
            return 0;
    return 1;
}

/* Parses "[dd/Mon/yyyy:HH:MM:SS[.frac] +ZZZZ]" at p. Returns the position
 * after ']' or NULL. The cache (may be NULL) remembers the last hour. */
static const char *parse_ts(const char *p, const char *end, t389 *cache,
                            sat_ts_ns *ts, int32_t *off_out)
{
    /* shortest: [dd/Mon/yyyy:HH:MM:SS +ZZZZ] = 28 bytes */
    if (end - p < 28 || p[0] != '[' || p[3] != '/' || p[7] != '/' || p[12] != ':' ||
        p[15] != ':' || p[18] != ':')
        return NULL;
    if (!all_digits(p + 16, 2) || !all_digits(p + 19, 2))
        return NULL;
    const char *q = p + 21;
    int64_t frac = 0;
    if (*q == '.') {
        int digits;
        q = sat_fraction_ns(q + 1, end, &frac, &digits);
        if (!digits)
            return NULL;
    }
    if (end - q < 7 || q[0] != ' ' || (q[1] != '+' && q[1] != '-') ||
        !all_digits(q + 2, 4) || q[6] != ']')
        return NULL;
    int mm = d2(p + 16), ss = d2(p + 19);
    if (mm > 59 || ss > 60)
        return NULL;
    int64_t hour_s;
    int32_t off;
    if (cache && cache->ts_key_valid && memcmp(cache->ts_key, p + 1, 14) == 0 &&
        memcmp(cache->ts_key + 14, q + 1, 5) == 0) {
        hour_s = cache->ts_hour_s;
        off = cache->ts_off_s;
    } else {
        if (!all_digits(p + 1, 2) || !all_digits(p + 8, 4) || !all_digits(p + 13, 2))
            return NULL;
        int day = d2(p + 1), mon = sat_month_of(p + 4), hh = d2(p + 13);
        int64_t year = d2(p + 8) * 100 + d2(p + 10);
        /* int64 nanoseconds since 1970 end in 2262 */
        if (!mon || day < 1 || day > 31 || hh > 23 || year < 1970 || year > 2261)
            return NULL;
        int oh = d2(q + 2), om = d2(q + 4);
        if (oh > 23 || om > 59)
            return NULL;
        off = (oh * 3600 + om * 60) * (q[1] == '-' ? -1 : 1);
        hour_s = sat_days_from_civil(year, (unsigned)mon, (unsigned)day) * 86400 + hh * 3600 - off;
        if (cache) {
            memcpy(cache->ts_key, p + 1, 14);
            memcpy(cache->ts_key + 14, q + 1, 5);
            cache->ts_hour_s = hour_s;
            cache->ts_off_s = off;
            cache->ts_key_valid = 1;
        }
    }
    *ts = (hour_s + mm * 60 + ss) * 1000000000LL + frac;
    if (off_out)
        *off_out = off;
    return q + 7;
}

/* ---- key=value tokens ------------------------------------------------------------ */
typedef struct kv {
    const char *k, *v; /* v == NULL: a bare word without '=' */
    size_t klen, vlen;
    const char *start, *stop; /* the whole token as logged */
    int quoted;
} kv;

/* 1 = a token, 0 = end (maybe with trailing text), -1 = unterminated quote. */
static int kv_next(const char **pp, const char *end, kv *t, sat_str *text)
{
    const char *p = skip_sp(*pp, end);
    if (p >= end) {
        *pp = p;
        return 0;
    }
    if (*p == '-' && (p + 1 == end || p[1] == ' ')) {
        const char *s = skip_sp(p + 1, end);
        const char *e = end;
        while (e > s && e[-1] == ' ')
            e--;
        *text = sat_str_make(s, (size_t)(e - s));
        *pp = end;
        return 0;
    }
    t->start = p;
    t->k = p;
    while (p < end && *p != '=' && *p != ' ')
        p++;
    t->klen = (size_t)(p - t->k);
    t->quoted = 0;
    if (p >= end || *p == ' ') {
        t->v = NULL;
        t->vlen = 0;
    } else {
        p++; /* '=' */
        if (p < end && *p == '"') {
            p++;
            t->v = p;
            while (p < end && *p != '"') {
                if (*p == '\\' && p + 1 < end)
                    p++;
                p++;
            }
            if (p >= end) {
                *pp = end;
                return -1;
            }
            t->vlen = (size_t)(p - t->v);
            t->quoted = 1;
            p++;
        } else {
            t->v = p;
            while (p < end && *p != ' ')
                p++;
            t->vlen = (size_t)(p - t->v);
        }
    }
    t->stop = p;
    *pp = p;
    return 1;
}

static inline int key_is(const kv *t, const char *k, size_t n)
{
    return t->klen == n && memcmp(t->k, k, n) == 0;
}
#define KEY(t, lit) key_is((t), (lit), sizeof(lit) - 1)

static inline sat_str kv_str(const kv *t) { return sat_str_make(t->v, t->vlen); }

/* ---- rejects ----------------------------------------------------------------------- */
static int reject(t389 *st, uint64_t line_no, const char *reason, const char *line,
                  size_t len)
{
    return sat_parse_reject(st->ctx, line_no, reason, line, len);
}

static const char *reason_with(t389 *st, const char *pre, const char *w, size_t n,
                               const char *post, int quote)
{
    char word[32];
    size_t o = 0;
    for (size_t i = 0; i < n && o < sizeof word - 1; i++) {
        unsigned char c = (unsigned char)w[i];
        word[o++] = (c >= 0x21 && c < 0x7f && c != '\'') ? (char)c : '?';
    }
    word[o] = '\0';
    snprintf(st->reason, sizeof st->reason, quote ? "%s'%s'%s" : "%s%s%s", pre, word, post);
    return st->reason;
}

/* ---- RESULT ---------------------------------------------------------------------- */
static int set_notes(sat_ldap_op *o, const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *hit = v[i] ? strchr(SAT_NOTE_LETTERS, v[i]) : NULL;
        if (hit)
            o->notes |= (uint16_t)(1u << (hit - SAT_NOTE_LETTERS));
        else if (v[i] != ',')
            return -1;
    }
    return 0;
}

/* A numeric value followed by ", text" (old SASL "etime=0, SASL bind in
 * progress"): strip the comma, the rest of the line is the text. */
static size_t num_len(const kv *t, const char *end, sat_str *text, const char **pp)
{
    if (!t->quoted && t->vlen && t->v[t->vlen - 1] == ',') {
        const char *s = skip_sp(t->v + t->vlen, end);
        const char *e = end;
        while (e > s && e[-1] == ' ')
            e--;
        if (e > s)
            *text = sat_str_make(s, (size_t)(e - s));
        *pp = end;
        return t->vlen - 1;
    }
    return t->vlen;
}

/* Fields of a RESULT (also the trailing numbers of newer ABANDON lines).
 * Returns 0, or -1 with *bad naming the field. */
static int parse_result_fields(const char *p, const char *end, sat_ldap_op *o,
                               const char **bad)
{
    kv t;
    int r;
    while ((r = kv_next(&p, end, &t, &o->text)) == 1) {
        if (!t.v)
            continue; /* a bare word we do not know: tolerated */
        int64_t x;
        int coarse;
        size_t n;
        *bad = NULL;
        if (KEY(&t, "err")) {
            n = num_len(&t, end, &o->text, &p);
            if (parse_i64(t.v, n, &x) || x < INT32_MIN || x > INT32_MAX) { *bad = "err"; return -1; }
            o->err = (int32_t)x;
        } else if (KEY(&t, "tag")) {
            n = num_len(&t, end, &o->text, &p);
            if (parse_i64(t.v, n, &x) || x < 0 || x > INT32_MAX) { *bad = "tag"; return -1; }
            o->tag = (int32_t)x;
        } else if (KEY(&t, "nentries")) {
            n = num_len(&t, end, &o->text, &p);
            if (parse_i64(t.v, n, &x) || x < 0) { *bad = "nentries"; return -1; }
            o->nentries = x;
        } else if (KEY(&t, "etime")) {
            n = num_len(&t, end, &o->text, &p);
            if (parse_dur(t.v, n, &x, &coarse)) { *bad = "etime"; return -1; }
            o->etime = x;
            if (coarse)
                o->flags |= SAT_OPF_ETIME_COARSE;
        } else if (KEY(&t, "wtime")) {
            n = num_len(&t, end, &o->text, &p);
            if (parse_dur(t.v, n, &x, &coarse)) { *bad = "wtime"; return -1; }
            o->wtime = x;
        } else if (KEY(&t, "optime")) {
            n = num_len(&t, end, &o->text, &p);
            if (parse_dur(t.v, n, &x, &coarse)) { *bad = "optime"; return -1; }
            o->optime = x;
        } else if (KEY(&t, "wqtime") || KEY(&t, "writetime")) {
            /* logged by some builds; no column yet, but must be well formed */
            n = num_len(&t, end, &o->text, &p);
            if (parse_dur(t.v, n, &x, &coarse)) { *bad = KEY(&t, "wqtime") ? "wqtime" : "writetime"; return -1; }
        } else if (KEY(&t, "wbusy")) {
            const char *slash = memchr(t.v, '/', t.vlen);
            int64_t a, b;
            if (!slash || parse_i64(t.v, (size_t)(slash - t.v), &a) ||
                parse_i64(slash + 1, (size_t)(t.v + t.vlen - slash - 1), &b) ||
                a < 0 || b < 0 || a > INT32_MAX || b > INT32_MAX) { *bad = "wbusy"; return -1; }
            o->wbusy = (int32_t)a;
            o->wbusy_max = (int32_t)b;
        } else if (KEY(&t, "wqdepth")) {
            n = num_len(&t, end, &o->text, &p);
            if (parse_i64(t.v, n, &x) || x < 0 || x > INT32_MAX) { *bad = "wqdepth"; return -1; }
            o->wqdepth = (int32_t)x;
        } else if (KEY(&t, "notes")) {
            if (set_notes(o, t.v, t.vlen)) { *bad = "notes"; return -1; }
        } else if (KEY(&t, "details")) {
            o->details = kv_str(&t);
        } else if (KEY(&t, "pr_idx") || KEY(&t, "pr_cookie")) {
            o->flags |= SAT_OPF_PAGED;
        } else if (KEY(&t, "sid")) {
            o->sid = kv_str(&t);
        } else if (KEY(&t, "authzid")) {
            /* logconv.pl counts " authzid=" on any line: also the RESULT's */
            o->flags |= SAT_OPF_PROXIED;
        } else if (KEY(&t, "dn")) {
            o->dn = kv_str(&t);
        } else if (KEY(&t, "targetop")) {
            if (!parse_i64(t.v, t.vlen, &x))
                o->target_op = x;
        } else if (KEY(&t, "msgid")) {
            if (o->target_op == SAT_ABSENT && !parse_i64(t.v, t.vlen, &x))
                o->target_op = x;
        }
        /* csn=, oid= and fields of later versions: accepted, not kept */
    }
    if (r < 0) {
        *bad = "quote";
        return -1;
    }
    return 0;
}

/* ---- requests ---------------------------------------------------------------------- */
typedef struct verb_def {
    const char *name;
    uint8_t len, kind, type;
} verb_def;

enum { V_REQ = 1, V_DETAIL, V_RESULT, V_SESSION, V_UNPROCESSED };
enum { D_NONE = 0, D_SORT, D_VLV, D_ENTRY, D_REFERRAL };

static const verb_def verbs[] = {
    {"RESULT", 6, V_RESULT, SAT_OP_UNKNOWN},
    {"SRCH", 4, V_REQ, SAT_OP_SRCH},
    {"BIND", 4, V_REQ, SAT_OP_BIND},
    {"UNBIND", 6, V_REQ, SAT_OP_UNBIND},
    {"EXT", 3, V_REQ, SAT_OP_EXT},
    {"MOD", 3, V_REQ, SAT_OP_MOD},
    {"ADD", 3, V_REQ, SAT_OP_ADD},
    {"DEL", 3, V_REQ, SAT_OP_DEL},
    {"MODRDN", 6, V_REQ, SAT_OP_MODRDN},
    {"CMP", 3, V_REQ, SAT_OP_CMP},
    {"ABANDON", 7, V_REQ, SAT_OP_ABANDON},
    /* detail lines: `type` holds what the line marks on its operation */
    {"SORT", 4, V_DETAIL, D_SORT},
    {"VLV", 3, V_DETAIL, D_VLV},
    {"STAT", 4, V_DETAIL, D_NONE},
    {"ENTRY", 5, V_DETAIL, D_ENTRY},
    {"REFERRAL", 8, V_DETAIL, D_REFERRAL},
    {"SESSION", 7, V_SESSION, SAT_OP_UNKNOWN},
    {"UNPROCESSED", 11, V_UNPROCESSED, SAT_OP_UNKNOWN},
};

static int parse_request(const char *p, const char *end, int type, sat_ldap_op *o)
{
    kv t;
    int r;
    sat_str mech = SAT_STR_NONE, method = SAT_STR_NONE;
    const char *rdn_start = NULL, *rdn_stop = NULL;
    sat_str text = SAT_STR_NONE;
    while ((r = kv_next(&p, end, &t, &text)) == 1) {
        if (!t.v)
            continue;
        if (KEY(&t, "dn") || KEY(&t, "base")) {
            o->dn = kv_str(&t);
        } else if (KEY(&t, "scope")) {
            if (t.vlen == 1 && t.v[0] >= '0' && t.v[0] <= '2')
                o->scope = (uint8_t)(t.v[0] - '0');
            else
                return -1;
        } else if (KEY(&t, "filter")) {
            o->filter = kv_str(&t);
        } else if (KEY(&t, "attrs")) {
            o->attrs = kv_str(&t);
        } else if (KEY(&t, "options")) {
            if (t.vlen == 10 && memcmp(t.v, "persistent", 10) == 0)
                o->flags |= SAT_OPF_PERSISTENT;
        } else if (KEY(&t, "authzid")) {
            o->flags |= SAT_OPF_PROXIED;
            if (type != SAT_OP_CMP && type != SAT_OP_EXT && type != SAT_OP_MODRDN)
                o->extra = kv_str(&t);
        } else if (KEY(&t, "version")) {
            if (t.vlen == 1 && t.v[0] == '3')
                o->flags |= SAT_OPF_BIND_V3;
            else if (t.vlen == 1 && t.v[0] == '2')
                o->flags |= SAT_OPF_BIND_V2;
        } else if (KEY(&t, "method")) {
            method = kv_str(&t);
        } else if (KEY(&t, "mech")) {
            mech = kv_str(&t);
        } else if (KEY(&t, "oid")) {
            o->method = kv_str(&t);
        } else if (KEY(&t, "name")) {
            o->extra = kv_str(&t);
        } else if (KEY(&t, "attr")) {
            o->extra = kv_str(&t);
        } else if (KEY(&t, "newrdn") || KEY(&t, "newsuperior") || KEY(&t, "deleteoldrdn")) {
            if (!rdn_start)
                rdn_start = t.start;
            rdn_stop = t.stop;
        } else if (KEY(&t, "targetop")) {
            int64_t x;
            if (!parse_i64(t.v, t.vlen, &x))
                o->target_op = x;
        } else if (KEY(&t, "msgid")) {
            int64_t x;
            if (o->target_op == SAT_ABSENT && !parse_i64(t.v, t.vlen, &x))
                o->target_op = x;
        } else if (KEY(&t, "nentries") || KEY(&t, "etime") || KEY(&t, "wtime") ||
                   KEY(&t, "optime")) {
            /* newer ABANDON lines carry their own timing */
            const char *bad = NULL;
            if (parse_result_fields(t.start, t.stop, o, &bad))
                return -1;
        }
    }
    if (r < 0)
        return -1;
    if (text.ptr)
        o->text = text;
    if (rdn_start)
        o->extra = sat_str_make(rdn_start, (size_t)(rdn_stop - rdn_start));
    if (type == SAT_OP_BIND) {
        if (method.len == 3 && memcmp(method.ptr, "128", 3) == 0)
            o->method = sat_str_make("SIMPLE", 6);
        else if (mech.ptr)
            o->method = mech;
        else if (method.len == 4 && memcmp(method.ptr, "sasl", 4) == 0)
            o->method = sat_str_make("SASL", 4);
        else
            o->method = method;
    }
    return 0;
}

/* ---- connection and close lines --------------------------------------------------- */
static uint8_t close_code_of(const char *c, size_t n)
{
    static const char codes[] = "A1B1B2B3B4P1P2P3P4R1S1T1T2T3U1";
    if (n != 2)
        return SAT_CLOSE_NONE;
    for (int i = 0; i < 15; i++)
        if (c[0] == codes[2 * i] && c[1] == codes[2 * i + 1])
            return (uint8_t)(SAT_CLOSE_A1 + i);
    return SAT_CLOSE_NONE;
}

static sat_str trim(const char *s, const char *e)
{
    while (s < e && (*s == ' ' || *s == '-'))
        s++;
    while (e > s && e[-1] == ' ')
        e--;
    return sat_str_make(s, (size_t)(e - s));
}

/* "... reason ... - CODE": the code after the last " - ". */
static void split_close(const char *s, const char *end, sat_ldap_conn *c)
{
    const char *dash = NULL;
    for (const char *q = end - 3; q >= s; q--) {
        if (q[0] == ' ' && q[1] == '-' && q[2] == ' ') {
            dash = q;
            break;
        }
    }
    sat_str reason;
    if (dash) {
        sat_str code = trim(dash + 3, end);
        c->close_code = close_code_of(code.ptr, code.len);
        reason = c->close_code ? trim(s, dash) : trim(s, end);
    } else {
        c->close_code = SAT_CLOSE_NONE;
        reason = trim(s, end);
    }
    if (!c->close_code)
        c->close_code = SAT_CLOSE_OTHER;
    c->close_reason = reason.len ? reason : SAT_STR_NONE;
}

static void split_host_port(sat_str a, sat_ldap_conn *c)
{
    const char *p = a.ptr, *end = a.ptr + a.len;
    if (a.len > 2 && p[0] == '[') { /* [v6]:port */
        const char *rb = memchr(p, ']', a.len);
        if (rb) {
            c->client_ip = sat_str_make(p + 1, (size_t)(rb - p - 1));
            int64_t port;
            if (rb + 1 < end && rb[1] == ':' && !parse_i64(rb + 2, (size_t)(end - rb - 2), &port) &&
                port <= 65535)
                c->client_port = (uint16_t)port;
            return;
        }
    }
    const char *colon = memchr(p, ':', a.len);
    if (colon && !memchr(colon + 1, ':', (size_t)(end - colon - 1)) && memchr(p, '.', a.len)) {
        int64_t port;
        if (!parse_i64(colon + 1, (size_t)(end - colon - 1), &port) && port <= 65535) {
            c->client_ip = sat_str_make(p, (size_t)(colon - p));
            c->client_port = (uint16_t)port;
            return;
        }
    }
    c->client_ip = a;
}

/* After "fd=N": a connection line or a close line. 1 = record filled. */
static int parse_fd_line(const char *p, const char *end, sat_ldap_record *rec)
{
    sat_ldap_conn *c = &rec->conn_fields;
    p = skip_sp(p, end);
    if (STARTS(p, end, "closed")) {
        rec->kind = SAT_REC_CLOSE;
        split_close(p + 6, end, c);
        return 1;
    }
    if (STARTS(p, end, "Disconnect")) {
        rec->kind = SAT_REC_CLOSE;
        split_close(p + 10, end, c);
        return 1;
    }
    if (STARTS(p, end, "slot=")) {
        int64_t slot;
        p = scan_u64(p + 5, end, &slot);
        if (!p)
            return 0;
        p = skip_sp(p, end);
    }
    uint8_t listener = SAT_LISTENER_LDAP;
    if (STARTS(p, end, "SSL ")) { listener = SAT_LISTENER_LDAPS; p += 4; }
    else if (STARTS(p, end, "LDAPS ")) { listener = SAT_LISTENER_LDAPS; p += 6; }
    else if (STARTS(p, end, "LDAPI ")) { listener = SAT_LISTENER_LDAPI; p += 6; }
    else if (STARTS(p, end, "LDAP ")) { p += 5; }
    if (!STARTS(p, end, "connection from "))
        return 0;
    p += 16;
    const char *a = p;
    while (p < end && *p != ' ')
        p++;
    sat_str from = sat_str_make(a, (size_t)(p - a));
    if (!from.len)
        return 0;
    p = skip_sp(p, end);
    if (STARTS(p, end, "to ")) {
        p += 3;
        const char *b = p;
        while (p < end && *p != ' ')
            p++;
        c->server_addr = sat_str_make(b, (size_t)(p - b));
    }
    if (from.len == 5 && memcmp(from.ptr, "local", 5) == 0) {
        listener = SAT_LISTENER_LDAPI;
        c->client_ip = from;
    } else {
        split_host_port(from, c);
    }
    c->listener = listener;
    rec->kind = SAT_REC_CONNECT;
    return 1;
}

/* "TLS1.3 256-bit AES-GCM", "SSL 128-bit RC4; client CN=..; issuer CN=..",
 * "TLS1.2 client bound as uid=..", "SSL failed to map client certificate ..".
 * 1 = record filled, 0 = accepted without a record, -1 = not a TLS line. */
static int parse_tls_line(const char *p, const char *end, sat_ldap_record *rec)
{
    const char *v = p;
    while (p < end && *p != ' ')
        p++;
    sat_str ver = sat_str_make(v, (size_t)(p - v));
    p = skip_sp(p, end);
    sat_ldap_conn *c = &rec->conn_fields;
    /* logconv.pl matches only the "SSL " spelling of these two lines; 389
     * 1.3+ writes the protocol version ("TLS1.2 client bound as"): both count */
    if (STARTS(p, end, "client bound as ")) {
        rec->kind = SAT_REC_CLIENT_CERT;
        c->client_cert = trim(p + 16, end);
        c->flags |= SAT_CONNF_CERT_BOUND;
        return 1;
    }
    if (STARTS(p, end, "failed to map client certificate")) {
        rec->kind = SAT_REC_CLIENT_CERT;
        c->flags |= SAT_CONNF_CERT_MAP_FAILED;
        return 1;
    }
    if (STARTS(p, end, "client "))
        return 0;
    const char *q = p;
    while (q < end && is_digit(*q))
        q++;
    if (q == p || !STARTS(q, end, "-bit"))
        return -1;
    const char *semi = memchr(p, ';', (size_t)(end - p));
    const char *cend = semi ? semi : end;
    rec->kind = SAT_REC_TLS;
    c->tls_version = ver;
    c->tls_cipher = trim(p, cend);
    if (semi) {
        const char *s = skip_sp(semi + 1, end);
        if (STARTS(s, end, "client ")) {
            const char *s2 = memchr(s, ';', (size_t)(end - s));
            c->client_cert = trim(s + 7, s2 ? s2 : end);
        }
    }
    return 1;
}

/* ---- one line -------------------------------------------------------------------------- */
static void keep_header(char *dst, const char *s, const char *e, sat_str *view)
{
    size_t n = (size_t)(e - s);
    if (n >= HDR_MAX)
        n = HDR_MAX - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    *view = sat_str_make(dst, n);
}

static int header_line(t389 *st, const char *p, const char *end)
{
    const char *s = p, *e = end;
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    if (s == e)
        return 1; /* blank */
    const char *sp = memchr(s, ' ', (size_t)(e - s));
    const char *tok_end = sp ? sp : e;
    if (memchr(s, '/', (size_t)(tok_end - s)) && memchr(s, '-', (size_t)(tok_end - s)) &&
        memchr(s, '[', (size_t)(e - s)) == NULL) {
        keep_header(st->version, s, e, &st->ctx->source->server_version);
        return 1;
    }
    if (sp && sp + 1 < e && sp[1] == '(' && memchr(s, ':', (size_t)(tok_end - s))) {
        keep_header(st->name, s, tok_end, &st->ctx->source->server_name);
        return 1;
    }
    return 0;
}

static int t389_line(void *state, const char *line, size_t len, uint64_t line_no)
{
    t389 *st = (t389 *)state;
    sat_source *src = st->ctx->source;
    src->lines++;
    if (len && line[len - 1] == '\r')
        len--;
    const char *p = line, *end = line + len;
    if (len == 0)
        return SAT_OK;
    if (*p == '{')
        return sat_389json_object(st->ctx, line, len, line_no);
    if (*p != '[') {
        if ((*p == '\t' || *p == ' ' || STARTS(p, end, "389-Directory/") ||
             STARTS(p, end, "Red Hat-Directory/") || STARTS(p, end, "Sun-")) &&
            header_line(st, p, end))
            return SAT_OK;
        return reject(st, line_no, "no timestamp", line, len);
    }
    sat_ldap_record *rec = &st->rec;
    if (st->ctx->record_slot && !(rec = st->ctx->record_slot(st->ctx->emit_ctx)))
        return SAT_E_NOMEM;
    sat_ldap_record_clear(rec);
    int32_t off;
    p = parse_ts(p, end, st, &rec->ts, &off);
    if (!p)
        return reject(st, line_no, "bad timestamp", line, len);
    src->utc_offset_s = off;
    if (!src->first_ts || rec->ts < src->first_ts)
        src->first_ts = rec->ts;
    if (rec->ts > src->last_ts)
        src->last_ts = rec->ts;

    p = skip_sp(p, end);
    if (!STARTS(p, end, "conn="))
        return reject(st, line_no, "no conn=", line, len);
    p += 5;
    int64_t x;
    if (STARTS(p, end, "Internal")) {
        p += 8;
        rec->internal = 1;
        rec->conn = 0;
        if (p < end && *p == '(') {
            const char *q = scan_u64(p + 1, end, &x);
            if (!q || q >= end || *q != ')')
                return reject(st, line_no, "bad conn=", line, len);
            rec->conn = x;
            p = q + 1;
        }
    } else {
        p = scan_u64(p, end, &x);
        if (!p)
            return reject(st, line_no, "bad conn=", line, len);
        rec->conn = x;
        if (STARTS(p, end, " (Internal)")) {
            rec->internal = 1;
            p += 11;
        }
    }
    p = skip_sp(p, end);
    if (STARTS(p, end, "op=")) {
        p += 3;
        int neg = 0;
        if (p < end && *p == '-') {
            neg = 1;
            p++;
        }
        p = scan_u64(p, end, &x);
        if (!p)
            return reject(st, line_no, "bad op=", line, len);
        rec->op = neg ? -x : x;
        if (p < end && *p == '(') { /* op=P(I)(D): internal op id and depth */
            int64_t iop, depth = 1;
            const char *q = scan_u64(p + 1, end, &iop);
            if (!q || q >= end || *q != ')' || iop > INT32_MAX)
                return reject(st, line_no, "bad op=", line, len);
            q++;
            if (q < end && *q == '(') {
                q = scan_u64(q + 1, end, &depth);
                if (!q || q >= end || *q != ')')
                    return reject(st, line_no, "bad op=", line, len);
                q++;
            }
            rec->internal = 1;
            rec->internal_op = (int32_t)iop;
            rec->internal_depth = (uint8_t)(depth > 255 ? 255 : depth < 1 ? 1 : depth);
            p = q;
        }
        p = skip_sp(p, end);
    }
    if (rec->internal && !rec->internal_depth)
        rec->internal_depth = 1;
    /* DSEE: "msgId=N - VERB" */
    if (STARTS(p, end, "msgId=")) {
        p = scan_u64(p + 6 + (p + 6 < end && p[6] == '-'), end, &x);
        if (!p)
            return reject(st, line_no, "bad msgId=", line, len);
        p = skip_sp(p, end);
        if (STARTS(p, end, "- "))
            p = skip_sp(p + 2, end);
    }
    if (p >= end)
        return reject(st, line_no, "no operation", line, len);

    const char *w = p;
    while (p < end && *p != ' ')
        p++;
    size_t wl = (size_t)(p - w);
    sat_ldap_op *o = &rec->op_fields;

    if (wl > 3 && memcmp(w, "fd=", 3) == 0) {
        if (!scan_u64(w + 3, w + wl, &x) || x > INT32_MAX)
            return reject(st, line_no, "bad fd=", line, len);
        rec->conn_fields.fd = (int32_t)x;
        if (!parse_fd_line(p, end, rec))
            return reject(st, line_no, "bad connection line", line, len);
        return sat_parse_emit(st->ctx, rec);
    }
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        const verb_def *v = &verbs[i];
        if (wl != v->len || memcmp(w, v->name, wl) != 0)
            continue;
        switch (v->kind) {
        case V_RESULT: {
            const char *bad = NULL;
            rec->kind = SAT_REC_RESULT;
            if (parse_result_fields(p, end, o, &bad)) {
                return reject(st, line_no,
                              reason_with(st, "bad RESULT field ", bad, strlen(bad), "", 1),
                              line, len);
            }
            break;
        }
        case V_REQ:
            rec->kind = SAT_REC_REQUEST;
            o->type = v->type;
            if (parse_request(p, end, v->type, o))
                return reject(st, line_no,
                              reason_with(st, "bad ", v->name, v->len, " line", 0), line, len);
            break;
        case V_DETAIL:
            rec->kind = SAT_REC_DETAIL;
            /* the RESULT carries nentries and the timings; these lines say
             * which controls the operation used (logconv.pl's VLV and SORT
             * operations) and, at access-log level 512, one line per entry
             * or referral sent (its Entry Operations, Smart Referrals) */
            switch (v->type) {
            case D_SORT: o->flags |= SAT_OPF_SORT; break;
            case D_VLV: o->flags |= SAT_OPF_VLV; break;
            case D_ENTRY: {
                o->entry_lines = 1;
                /* ENTRY dn="...": the entry sent (cache sizing's references) */
                const char *q = skip_sp(p, end);
                if (end - q > 4 && !memcmp(q, "dn=\"", 4)) {
                    const char *e = end;
                    while (e > q + 4 && e[-1] != '"')
                        e--;
                    if (e > q + 4)
                        o->entry_dns = sat_str_make(q + 4, (size_t)(e - 1 - (q + 4)));
                }
                break;
            }
            case D_REFERRAL: o->referral_lines = 1; break;
            default: return SAT_OK; /* STAT: nothing the tables keep */
            }
            break;
        case V_SESSION: {
            rec->kind = SAT_REC_SESSION;
            const char *s = skip_sp(p, end), *e = end;
            while (e > s && e[-1] == ' ')
                e--;
            if (e - s >= 2 && *s == '"' && e[-1] == '"') {
                s++;
                e--;
            }
            o->sid = sat_str_make(s, (size_t)(e - s));
            break;
        }
        case V_UNPROCESSED: /* "UNPROCESSED OPERATION - Anonymous access not allowed" */
            rec->kind = SAT_REC_REQUEST;
            o->type = SAT_OP_UNKNOWN;
            {
                const char *d = p;
                while (d + 2 < end && !(d[0] == ' ' && d[1] == '-' && d[2] == ' '))
                    d++;
                if (d + 2 < end)
                    o->text = trim(d + 3, end);
            }
            break;
        }
        return sat_parse_emit(st->ctx, rec);
    }
    if (wl == 8 && memcmp(w, "AUTOBIND", 8) == 0) {
        kv t;
        sat_str tx = SAT_STR_NONE;
        int r;
        rec->kind = SAT_REC_AUTOBIND;
        while ((r = kv_next(&p, end, &t, &tx)) == 1)
            if (t.v && KEY(&t, "dn"))
                o->dn = kv_str(&t);
        if (r < 0)
            return reject(st, line_no, "bad AUTOBIND line", line, len);
        return sat_parse_emit(st->ctx, rec);
    }
    if (wl >= 3 && (memcmp(w, "TLS", 3) == 0 || memcmp(w, "SSL", 3) == 0)) {
        int r = parse_tls_line(w, end, rec);
        if (r < 0)
            return reject(st, line_no, "bad TLS line", line, len);
        return r ? sat_parse_emit(st->ctx, rec) : SAT_OK;
    }
    if (wl == 7 && memcmp(w, "closing", 7) == 0) { /* DSEE */
        rec->kind = SAT_REC_CLOSE;
        split_close(p, end, &rec->conn_fields);
        return sat_parse_emit(st->ctx, rec);
    }
    if (wl == 7 && memcmp(w, "closed.", 7) == 0)
        return SAT_OK; /* DSEE's second close line: the "closing" one counted */
    return reject(st, line_no, reason_with(st, "unknown operation ", w, wl, "", 1), line, len);
}

/* ---- the format table ----------------------------------------------------------------- */
static void *t389_create(sat_parse_ctx *ctx)
{
    t389 *st = (t389 *)calloc(1, sizeof *st);
    if (st)
        st->ctx = ctx;
    return st;
}

static int t389_finish(void *state)
{
    (void)state;
    return SAT_OK;
}

static void t389_destroy(void *state) { free(state); }

static const char *next_line(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl + 1 : end;
}

static int t389_sniff(const char *buf, size_t len)
{
    const char *p = buf, *end = buf + (len > 65536 ? 65536 : len);
    int score = 0, lines = 0;
    while (p < end && lines < 64) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        if (STARTS(p, e, "\t389-Directory/") || STARTS(p, e, "389-Directory/") ||
            STARTS(p, e, "\tRed Hat-Directory/"))
            score = score > 80 ? score : 80;
        sat_ts_ns ts;
        const char *q = parse_ts(p, e, NULL, &ts, NULL);
        if (q) {
            q = skip_sp(q, e);
            if (STARTS(q, e, "conn="))
                return 95;
            /* "[ts] - ERR - plugin - ...": the server's errors log, whose
             * timestamps are the access log's; it holds no operation */
            if (!STARTS(q, e, "- "))
                score = score > 40 ? score : 40;
        }
        lines++;
        p = e < end ? e + 1 : end;
    }
    return score;
}

static int t389_first_ts(const char *buf, size_t len, sat_ts_ns *ts)
{
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        if (parse_ts(p, e, NULL, ts, NULL))
            return SAT_OK;
        p = next_line(p, end);
    }
    return SAT_E_FORMAT;
}

const sat_log_format sat_fmt_389text = {
    "389-text",
    "389 Directory Server / Red Hat DS / Sun-Oracle DSEE text access log",
    t389_sniff,
    t389_first_ts,
    t389_create,
    t389_line,
    t389_finish,
    t389_destroy,
    1, /* line_independent: only the timestamp cache and header facts are kept */
};
