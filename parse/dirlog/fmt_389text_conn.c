/*
 * fmt_389text_conn.c - the connection lines of a 389 text access log
 * (fmt_389text.c): "fd=N slot=N connection from ... to ...", the close lines
 * with their disconnect_error_strings.h codes, and the TLS / SSL lines of the
 * connection's cipher and client certificate.
 */
#include "fmt_389text_int.h"

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

sat_str sat_t389_trim(const char *s, const char *e)
{
    while (s < e && (*s == ' ' || *s == '-'))
        s++;
    while (e > s && e[-1] == ' ')
        e--;
    return sat_str_make(s, (size_t)(e - s));
}

/* "... reason ... - CODE": the code after the last " - ". */
void sat_t389_split_close(const char *s, const char *end, sat_ldap_conn *c)
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
        sat_str code = sat_t389_trim(dash + 3, end);
        c->close_code = close_code_of(code.ptr, code.len);
        reason = c->close_code ? sat_t389_trim(s, dash) : sat_t389_trim(s, end);
    } else {
        c->close_code = SAT_CLOSE_NONE;
        reason = sat_t389_trim(s, end);
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
int sat_t389_parse_fd_line(const char *p, const char *end, sat_ldap_record *rec)
{
    sat_ldap_conn *c = &rec->conn_fields;
    p = skip_sp(p, end);
    if (STARTS(p, end, "closed")) {
        rec->kind = SAT_REC_CLOSE;
        sat_t389_split_close(p + 6, end, c);
        return 1;
    }
    if (STARTS(p, end, "Disconnect")) {
        rec->kind = SAT_REC_CLOSE;
        sat_t389_split_close(p + 10, end, c);
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
int sat_t389_parse_tls_line(const char *p, const char *end, sat_ldap_record *rec)
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
        c->client_cert = sat_t389_trim(p + 16, end);
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
    c->tls_cipher = sat_t389_trim(p, cend);
    if (semi) {
        const char *s = skip_sp(semi + 1, end);
        if (STARTS(s, end, "client ")) {
            const char *s2 = memchr(s, ';', (size_t)(end - s));
            c->client_cert = sat_t389_trim(s + 7, s2 ? s2 : end);
        }
    }
    return 1;
}
