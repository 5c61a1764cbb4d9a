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
#include "fmt_openldap_int.h"

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
    int nrc;
    if (sat_parse_nul_rejected(ctx, line_no, line, (size_t)(end - line), &nrc))
        return nrc;
    if (*p == '\t' || *p == ' ') {
        /* the banner's continuation ("\tDebian OpenLDAP Maintainers ...") */
        if (s->prev_banner)
            return SAT_OK;
        return sat_parse_reject(ctx, line_no, "unrecognised line", line, len);
    }
    s->prev_banner = 0;

    prefix px;
    if (!sat_ol_parse_prefix(p, end, &px))
        return sat_parse_reject(ctx, line_no, "no timestamp", line, len);
    if (px.kind == PFX_BSD) {
        if (!s->year)
            s->year = sat_year_for(px.mon, px.day, px.secs, 0);
        if (s->last_month && px.mon < s->last_month && s->last_month - px.mon >= 6)
            s->year++; /* Dec -> Jan within one file */
        s->last_month = px.mon;
        if (s->year < 1970 || s->year > 2261)
            return sat_parse_reject(ctx, line_no, "year out of range", line, len);
        px.ts = sat_ol_bsd_ts(s->year, &px);
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
        char why[96] = "";
        if (starts(p, end, "fd=")) {
            rc = sat_ol_fd_line(p + 3, end, &rec, &known);
        } else if (starts(p, end, "op=")) {
            int64_t op;
            r = parse_i64(p + 3, end, &op);
            if (!r || r >= end || *r != ' ')
                return sat_parse_reject(ctx, line_no, "malformed op= line", line, len);
            rec.op = op;
            rec.op_fields.op = op;
            rc = sat_ol_op_line(r + 1, end, &rec, why, sizeof why);
        } else {
            rc = 0;
            rec.kind = 0;
        }
        if (rc < 0)
            return sat_parse_reject(ctx, line_no, why[0] ? why : "malformed stats line", line,
                                    len);
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
        if (p < e && sat_ol_parse_prefix(p, e, &px)) {
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
        if (p < e && sat_ol_parse_prefix(p, e, px))
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
    *ts = sat_ol_bsd_ts(*year, &px);
    return SAT_OK;
}

/* Without the file's time: the same rule against now. */
static int ol_first_ts(const char *buf, size_t len, sat_ts_ns *ts)
{
    prefix px;
    if (!first_prefix(buf, len, &px))
        return SAT_E_FORMAT;
    *ts = px.kind == PFX_BSD ? sat_ol_bsd_ts(sat_year_for(px.mon, px.day, px.secs, 0), &px) : px.ts;
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
