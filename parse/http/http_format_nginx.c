/*
 * http_format_nginx.c - nginx log_format bodies (ngx_http_log_module,
 * ngx_http_core_module and ngx_http_upstream_module variables): `$name` or
 * `${name}` among literal text. The variables satscope reads are mapped to
 * fields; every other variable is skipped (its span is matched as text, or
 * as a list for the $upstream_* ones, which log one value per server tried:
 * "a, b : c").
 *
 * nginx writes a line when the response has been sent: $time_local, $msec and
 * $time_iso8601 are the request's end.
 */
#include "http_format_int.h"

typedef struct nvar {
    const char *name;
    int field, scan, rank; /* rank: time fields' precision */
} nvar;

static const nvar vars[] = {
    {"remote_addr", SAT_HF_CLIENT, HF_SCAN_TEXT, 0},
    {"realip_remote_addr", SAT_HF_CLIENT, HF_SCAN_TEXT, 0},
    {"remote_port", SAT_HF_CLIENT_PORT, HF_SCAN_NUMBER, 0},
    {"remote_user", SAT_HF_USER, HF_SCAN_TEXT, 0},
    {"time_local", SAT_HF_TIME_CLF, HF_SCAN_CLF, 3},
    {"time_iso8601", SAT_HF_TIME_ISO, HF_SCAN_ISO, 3},
    {"msec", SAT_HF_TIME_EPOCH_S, HF_SCAN_NUMBER, 5},
    {"request", SAT_HF_REQUEST, HF_SCAN_TEXT, 0},
    {"request_method", SAT_HF_METHOD, HF_SCAN_TEXT, 0},
    {"request_uri", SAT_HF_TARGET, HF_SCAN_TEXT, 0},
    {"uri", SAT_HF_PATH, HF_SCAN_TEXT, 0},
    {"document_uri", SAT_HF_PATH, HF_SCAN_TEXT, 0},
    {"args", SAT_HF_IGNORE, HF_SCAN_TEXT, 0},
    {"query_string", SAT_HF_IGNORE, HF_SCAN_TEXT, 0},
    {"server_protocol", SAT_HF_PROTOCOL, HF_SCAN_TEXT, 0},
    {"status", SAT_HF_STATUS, HF_SCAN_NUMBER, 0},
    {"body_bytes_sent", SAT_HF_BYTES, HF_SCAN_NUMBER, 0},
    {"bytes_sent", SAT_HF_BYTES, HF_SCAN_NUMBER, 0},
    {"request_length", SAT_HF_IGNORE, HF_SCAN_NUMBER, 0},
    {"request_time", SAT_HF_RT_S, HF_SCAN_NUMBER, 0},
    {"upstream_response_time", SAT_HF_UPSTREAM_S, HF_SCAN_LIST, 0},
    {"ssl_protocol", SAT_HF_TLS_PROTOCOL, HF_SCAN_TEXT, 0},
    {"ssl_session_reused", SAT_HF_TLS_REUSED, HF_SCAN_TEXT, 0},
    {"connection", SAT_HF_CONN, HF_SCAN_NUMBER, 0},
    {"connection_requests", SAT_HF_CONN_REQUESTS, HF_SCAN_NUMBER, 0},
    {"host", SAT_HF_VHOST, HF_SCAN_TEXT, 0},
    {"http_host", SAT_HF_VHOST, HF_SCAN_TEXT, 0},
    {"server_name", SAT_HF_VHOST, HF_SCAN_TEXT, 0},
    {"http_user_agent", SAT_HF_USER_AGENT, HF_SCAN_TEXT, 0},
    {"http_referer", SAT_HF_REFERER, HF_SCAN_TEXT, 0},
    {"pid", SAT_HF_IGNORE, HF_SCAN_NUMBER, 0},
    {"server_port", SAT_HF_IGNORE, HF_SCAN_NUMBER, 0},
    {NULL, 0, 0, 0}};

static int name_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || hx_digit(c);
}

int sat_hf_nginx(hf_build *b, const char *def)
{
    const char *p = def, *lit = def;
    while (*p) {
        if (*p != '$') {
            p++;
            continue;
        }
        const char *s = p + 1, *e;
        int braced = *s == '{';
        if (braced)
            s++;
        e = s;
        while (name_char(*e))
            e++;
        if (e == s || (braced && *e != '}')) {
            if (braced) {
                sat_diag_set(b->diag, SAT_E_USAGE, "", "unclosed ${ at offset %d",
                             (int)(p - def));
                return -1;
            }
            p++; /* a '$' of the text */
            continue;
        }
        if (hf_lit(b, lit, (size_t)(p - lit)) < 0)
            return -1;
        size_t n = (size_t)(e - s);
        const nvar *v = NULL;
        for (const nvar *k = vars; k->name; k++)
            if (strlen(k->name) == n && !memcmp(k->name, s, n)) {
                v = k;
                break;
            }
        int field = v ? v->field : SAT_HF_IGNORE;
        int scan = v ? v->scan : HF_SCAN_TEXT;
        if (!v && n > 9 && !memcmp(s, "upstream_", 9))
            scan = HF_SCAN_LIST;
        if (hf_field(b, field, scan, 1, v ? v->rank : 0, p, (size_t)(e - p) + braced,
                     (int)(p - def)) < 0)
            return -1;
        p = e + braced;
        lit = p;
    }
    return hf_lit(b, lit, (size_t)(p - lit));
}
