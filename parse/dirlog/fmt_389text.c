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
 * shared joiner (parse/join/ldap_join.c); lines starting with '{' are 389 3.1+ JSON
 * objects, handed to parse/dirlog/fmt_389json.c. Lines are not NUL-terminated: every
 * scan is bounded by the line's end. No allocation per line.
 */
#include "fmt_389text_int.h"

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

/* ---- the verbs -------------------------------------------------------------------- */
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
    int nrc;
    if (sat_parse_nul_rejected(st->ctx, line_no, line, len, &nrc))
        return nrc;
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
    p = sat_t389_parse_ts(p, end, st, &rec->ts, &off);
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
        if (!sat_t389_parse_fd_line(p, end, rec))
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
            st->reason[0] = '\0';
            if (sat_t389_parse_result_fields(p, end, o, &bad, st->reason, sizeof st->reason)) {
                return reject(st, line_no,
                              st->reason[0] ? st->reason
                                            : reason_with(st, "bad RESULT field ", bad,
                                                          strlen(bad), "", 1),
                              line, len);
            }
            break;
        }
        case V_REQ:
            rec->kind = SAT_REC_REQUEST;
            o->type = v->type;
            st->reason[0] = '\0';
            if (sat_t389_parse_request(p, end, v->type, o, st->reason, sizeof st->reason))
                return reject(st, line_no,
                              st->reason[0] ? st->reason
                                            : reason_with(st, "bad ", v->name, v->len, " line", 0),
                              line, len);
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
                    o->text = sat_t389_trim(d + 3, end);
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
        while ((r = sat_t389_kv_next(&p, end, &t, &tx)) == 1)
            if (t.v && KEY(&t, "dn"))
                o->dn = kv_str(&t);
        if (r < 0)
            return reject(st, line_no, "bad AUTOBIND line", line, len);
        return sat_parse_emit(st->ctx, rec);
    }
    if (wl >= 3 && (memcmp(w, "TLS", 3) == 0 || memcmp(w, "SSL", 3) == 0)) {
        int r = sat_t389_parse_tls_line(w, end, rec);
        if (r < 0)
            return reject(st, line_no, "bad TLS line", line, len);
        return r ? sat_parse_emit(st->ctx, rec) : SAT_OK;
    }
    if (wl == 7 && memcmp(w, "closing", 7) == 0) { /* DSEE */
        rec->kind = SAT_REC_CLOSE;
        sat_t389_split_close(p, end, &rec->conn_fields);
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
        const char *q = sat_t389_parse_ts(p, e, NULL, &ts, NULL);
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
        if (sat_t389_parse_ts(p, e, NULL, ts, NULL))
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
