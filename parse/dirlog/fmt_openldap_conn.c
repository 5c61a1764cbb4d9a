/*
 * fmt_openldap_conn.c - the connection lines of OpenLDAP's stats log
 * (fmt_openldap.c; servers/slapd/daemon.c and connection.c): "conn=N fd=N
 * ACCEPT from IP=... (IP=...)", "TLS established ...", "closed (reason)".
 */
#include "fmt_openldap_int.h"

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
int sat_ol_fd_line(const char *p, const char *end, sat_ldap_record *rec, int *known)
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
