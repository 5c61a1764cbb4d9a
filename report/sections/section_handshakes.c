/*
 * section_handshakes.c - the sections of the handshakes analyzer's result
 * (analyze/handshakes_result.c): what happened first (the handshakes by
 * outcome, the resumed ratio, the rates), then the CPU they cost, the
 * versions, resumption, durations, retries, the captures' TCP connections,
 * the --by table and the windows; then, or alone, the handshakes the HTTP
 * access logs tell of (the result's "logs"), and the TLS connections a
 * directory server's logs tell of ("dirlogs": their number, never their
 * resumption, which those logs do not record). `satscope handshakes` prints
 * them; the post-mortem's "TLS handshakes" holds them.
 */
#include <string.h>

#include "sections.h"

static void lead(const sec_ctx *c, const sat_rnode *root, char *buf, size_t n)
{
    uint64_t conns = sat_get_count(root, "connections", 0);
    const sat_rnode *d = sat_get_obj(root, "dirlogs");
    if (!conns && d && sat_get_count(d, "tls_connections", 0)) {
        uint64_t tls = sat_get_count(d, "tls_connections", 0);
        snprintf(buf, n, "no capture among the inputs; the directory server's logs: %llu TLS %s, "
                         "resumption not logged by this format",
                 (unsigned long long)tls, sat_plural(tls, "connection", "connections"));
        return;
    }
    if (!conns && d && !sat_get_obj(root, "logs") && !sat_get_count(root, "tcp.connections", 0)) {
        uint64_t all = sat_get_count(d, "connections", 0);
        snprintf(buf, n, "no capture among the inputs; no TLS connection in the directory server's "
                         "logs (%llu %s)",
                 (unsigned long long)all, sat_plural(all, "connection", "connections"));
        return;
    }
    if (!conns && sat_get_obj(root, "logs")) {
        snprintf(buf, n, "no TLS handshake on the wire (no capture among the inputs); what the "
                         "HTTP access logs tell of:");
        return;
    }
    char a[64], b[64];
    sec_fmt(c, a, sizeof a, root, "first_ts");
    sec_fmt(c, b, sizeof b, root, "last_ts");
    snprintf(buf, n, "%llu TLS %s, %s .. %s", (unsigned long long)conns,
             sat_plural(conns, "connection", "connections"), a, b);
}

static void tcp(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *t = sat_get_obj(root, "tcp");
    uint64_t conns = sat_get_count(t, "connections", 0);
    if (!conns)
        return;
    sat_rnode *s = sec_section(c, parent, "tcp", "TCP connections in the captures: %llu (%llu without TLS)",
                               (unsigned long long)conns,
                               (unsigned long long)sat_get_count(t, "without_tls", 0));
    sat_rnode *v = sat_doc_values(s);
    /* how they ended (the ends seen), then the SYN figures */
    for (const sat_rnode *e = sat_rnode_first(sat_get_obj(t, "by_end")); e; e = sat_rnode_next(e))
        if (sat_get_count(e, NULL, 0)) {
            char path[96];
            snprintf(path, sizeof path, "by_end.%s", sat_rnode_key(e));
            sec_copy(v, t, path, NULL, sat_rnode_key(e));
        }
    sec_copy(v, t, "syn_retries", NULL, "SYN retries");
    sec_copy(v, t, "unanswered", NULL, NULL);
    sec_copy(v, t, "rtt_p50_s", NULL, "handshake RTT p50");
    sec_copy(v, t, "rtt_p99_s", NULL, "handshake RTT p99");
}

/* The totals and rates, and beside the peak when and over what window. */
static void totals(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    sat_rnode *s = sec_section(c, parent, "handshakes", "Handshakes (the first of each connection)");
    sat_rnode *v = sat_doc_values(s);
    sec_copy(v, root, "full", NULL, NULL);
    sec_copy(v, root, "resumed", NULL, NULL);
    sec_copy(v, root, "failed", NULL, NULL);
    sec_copy(v, root, "incomplete", NULL, NULL);
    sec_copy(v, root, "failed_after_server_hello", NULL, "failed after SH");
    sec_copy(v, root, "no_sni", NULL, "without SNI");
    sec_copy(v, root, "resumed_ratio", NULL, "resumed ratio");
    sec_copy(v, root, "rate_per_s", NULL, "rate");
    const sat_value *peak = sat_rnode_val(root, "peak_rate_per_s");
    if (peak && v) {
        char w[64], at[64], note[160];
        sat_fmt_duration(w, sizeof w, (double)sat_table_window(sat_get_table(root, "windows")) / 1e9);
        sec_fmt(c, at, sizeof at, root, "peak_ts");
        snprintf(note, sizeof note, "the busiest %s window's, at %s", w, at);
        sat_put_value(v, "peak_rate_per_s", peak);
        sat_put_note(v, note);
        sat_put_label(v, "peak rate");
    }
}

static void cost(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    char a[64];
    const sat_rnode *per = sat_get_obj(root, "cost_per_handshake");
    sec_fmt(c, a, sizeof a, root, "cpu_s");
    sat_rnode *s = sec_section(c, parent, "cost", "Server CPU for these handshakes (estimate): %s", a);
    double full = sat_get_dur(per, "full_s", NAN), res = sat_get_dur(per, "resumed_s", NAN);
    if (full > 0 && res > 0) {
        char fc[64], rc[64];
        sat_fmt_duration(fc, sizeof fc, full);
        sat_fmt_duration(rc, sizeof rc, res);
        sat_doc_para(s,
                     "A full handshake costs the server about %s of CPU, a resumed one %s (%.0f "
                     "times less): clients that reconnect without resuming their TLS session "
                     "multiply the server's work.",
                     fc, rc, full / res);
    }
    sat_rnode *v = sat_doc_values(s);
    sec_copy(v, root, "cpu_s", NULL, "cpu");
    sec_copy(v, per, "full_s", "full_cost_s", "a full handshake");
    sat_put_note(v, "--full-cost-us");
    sec_copy(v, per, "resumed_s", "resumed_cost_s", "a resumed one, TLS <= 1.2");
    sat_put_note(v, "--resumed-cost-us");
    sec_copy(v, per, "psk_s", "psk_cost_s", "a resumed one, TLS 1.3 PSK");
    sat_put_note(v, "--psk-cost-us");
    uint64_t fsh = sat_get_count(root, "failed_after_server_hello", 0);
    if (fsh)
        sat_doc_para(s,
                     "%llu failed after the ServerHello %s: the server had sent its certificate "
                     "and key exchange before the alert",
                     (unsigned long long)fsh,
                     sat_plural(fsh, "is charged as a full handshake",
                                "are charged as full handshakes"));
}

static void retries(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    char a[64];
    uint64_t n = sat_get_count(root, "retries", 0);
    sat_rnode *s = sec_section(c, parent, "retries", "Retries");
    sec_fmt(c, a, sizeof a, root, "retry_gap_mean_s");
    if (n)
        sat_doc_para(s,
                     "%llu failed or incomplete %s retried: the same client's next connection "
                     "to the same server came after it gave up (%s later on average)",
                     (unsigned long long)n, sat_plural(n, "handshake was", "handshakes were"), a);
    else
        sat_doc_para(s, "no failed or incomplete handshake was retried: no client opened "
                        "another connection to the same server after giving up on one");
    uint64_t lost = sat_get_count(root, "retry_conns_not_examined", 0);
    if (lost)
        sat_doc_para(s, "%llu connections past the %s kept for this rule were not looked at: "
                        "the retries are a lower bound",
                     (unsigned long long)lost, "2,000,000");
    uint64_t hrr = sat_get_count(root, "hello_retry_requests", 0),
             reneg = sat_get_count(root, "renegotiated", 0),
             ssl2 = sat_get_count(root, "ssl2_client_hellos", 0),
             late = sat_get_count(root, "started_before_capture", 0);
    if (hrr || reneg || ssl2 || late)
        sat_doc_para(s,
                     "Also: %llu HelloRetryRequest%s, %llu renegotiated (counted once), %llu "
                     "SSLv2 ClientHello%s, %llu started before the capture",
                     (unsigned long long)hrr, sat_plural(hrr, "", "s"), (unsigned long long)reneg,
                     (unsigned long long)ssl2, sat_plural(ssl2, "", "s"), (unsigned long long)late);
}

static void groups(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *g = sat_get_table(root, "groups");
    const char *dim = sat_get_text(root, "by", NULL);
    if (!g || !dim)
        return;
    size_t shown = 0; /* the keys listed, "(other)" aside */
    for (const sat_rnode *r = sat_rnode_first(g); r; r = sat_rnode_next(r)) {
        const char *k = sat_get_text(r, dim, NULL);
        shown += !(k && !strcmp(k, "(other)"));
    }
    sat_rnode *s = sec_section(c, parent, "groups", "By %s (top %zu of %llu, most full handshakes first)",
                               strcmp(dim, "sni") ? dim : "SNI", shown,
                               (unsigned long long)sat_get_count(root, "groups_total", 0));
    char cols[256];
    snprintf(cols, sizeof cols, "%s,connections,full,resumed,failed,incomplete,resumed_ratio,cpu_s",
             dim);
    sat_doc_table(s, NULL, NULL, g, cols, 0, NULL, NULL);
}

/* The handshakes read from HTTP access logs (analyze/handshakes_http.c). */
static void logs(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *l = sat_get_obj(root, "logs");
    if (!l)
        return;
    char a[64], b[64];
    uint64_t req = sat_get_count(l, "requests", 0);
    sec_fmt(c, a, sizeof a, l, "first_ts");
    sec_fmt(c, b, sizeof b, l, "last_ts");
    sat_rnode *s = sec_section(c, parent, "logs", "From the HTTP access logs: %llu %s, %s .. %s",
                               (unsigned long long)req, sat_plural(req, "request", "requests"), a, b);
    const char *how = sat_get_text(l, "counted", NULL);
    if (how)
        sat_doc_para(s, "%s", how);
    sat_rnode *v = sat_doc_values(s);
    int counted = sat_get_has(l, "full");
    if (!counted) /* the title says how many when they are counted below */
        sec_copy(v, l, "requests", NULL, NULL);
    if (!counted && sat_get_has(l, "on_new_session")) {
        /* the flag without the first requests: the requests by their flag */
        sec_copy(v, l, "on_new_session", NULL, "on a new session");
        sec_copy(v, l, "on_resumed_session", NULL, "on a resumed session");
    } else if (counted) {
        sec_copy(v, l, "first_requests", NULL, "first requests");
        sec_copy(v, l, "full", NULL, NULL);
        sec_copy(v, l, "resumed", NULL, NULL);
        sec_copy(v, l, "resumed_ratio", NULL, "resumed ratio");
        sec_copy(v, l, "cpu_s", NULL, "cpu");
        sec_copy(v, l, "session_not_logged", NULL, "without a session flag");
        sec_copy(v, l, "later_requests", NULL, "later requests");
        sec_copy(v, l, "requests_without_number", NULL, "without their number");
        const sat_rnode *w = sat_get_table(l, "windows");
        sat_fmt_duration(a, sizeof a, (double)sat_table_window(w) / 1e9);
        sat_rnode *ws = sec_section(c, s, "windows", "Per %s, from the access logs (first requests)", a);
        sat_doc_table(ws, NULL, NULL, w, "start_ts,connections,full,resumed,resumed_ratio,cpu_s", 0,
                      NULL, NULL);
    }
    for (const sat_rnode *n = sat_rnode_first(sat_get_table(l, "not_logged")); n;
         n = sat_rnode_next(n))
        sat_doc_para(s, "%s %s: %s", sat_get_text(n, "field", "?"),
                     sat_get_bool(n, "partial", 0) ? "not logged by some inputs" : "not logged",
                     sat_get_text(n, "why", "the log format does not carry it"));
}

/* The TLS connections a directory server's logs tell of
 * (analyze/handshakes_dirlog.c): how many, and that their resumption is not
 * logged, never a 0. */
static void dirlogs(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    const sat_rnode *d = sat_get_obj(root, "dirlogs");
    if (!d)
        return;
    uint64_t tls = sat_get_count(d, "tls_connections", 0),
             all = sat_get_count(d, "connections", 0);
    const char *fmt = sat_get_text(d, "format", NULL);
    sat_rnode *s;
    if (!tls) {
        s = sec_section(c, parent, "dirlogs",
                        "From the directory server's logs: no TLS connection (of %llu)",
                        (unsigned long long)all);
        sat_doc_para(s, "No connection in the %s%slogs came on an LDAPS port or used StartTLS.",
                     fmt ? fmt : "", fmt ? " " : "");
        return;
    }
    char a[64], b[64];
    sec_fmt(c, a, sizeof a, d, "first_ts");
    sec_fmt(c, b, sizeof b, d, "last_ts");
    s = sec_section(c, parent, "dirlogs",
                    "From the directory server's logs: %llu TLS %s of %llu, %s .. %s",
                    (unsigned long long)tls, sat_plural(tls, "connection", "connections"),
                    (unsigned long long)all, a, b);
    sat_doc_para(s, "Each did a TLS handshake; full or resumed: %s.",
                 sat_get_text(d, "resumption", "not logged by this format"));
    sat_rnode *v = sat_doc_values(s);
    sec_copy(v, d, "tls_connections", NULL, "TLS connections");
    sec_copy(v, d, "ldaps", NULL, "LDAPS");
    sec_copy(v, d, "starttls", NULL, "StartTLS");
    sec_copy(v, d, "connections", NULL, "all connections");
    if (fmt) {
        sat_put_text(v, "format", fmt);
        sat_put_label(v, "log format");
    }
}

static void build(const sec_ctx *c, const sat_rnode *root, sat_rnode *parent)
{
    uint64_t conns = sat_get_count(root, "connections", 0);
    if (!conns && (sat_get_obj(root, "logs") || sat_get_count(root, "dirlogs.tls_connections", 0))) {
        /* logs without a capture: what they tell */
        tcp(c, root, parent);
        dirlogs(c, root, parent);
        logs(c, root, parent);
        return;
    }
    if (!conns) {
        sat_rnode *s = sec_section(c, parent, "none",
                                   "No TLS handshake in these inputs: handshakes come from packet "
                                   "captures");
        sat_doc_para(s, "(pcap/pcapng) or from traces collected from them.%s",
                     sat_get_count(root, "tcp.connections", 0)
                         ? " The captures' TCP connections carried no TLS."
                         : "");
        tcp(c, root, parent);
        dirlogs(c, root, parent);
        return;
    }
    totals(c, root, parent);
    cost(c, root, parent);
    sat_doc_table(sec_section(c, parent, "versions", "Versions chosen by the server"), NULL, NULL,
                  sat_get_table(root, "versions"), "count,version", 0, NULL, NULL);
    sat_doc_table(sec_section(c, parent, "resumption", "Resumption"), NULL, NULL,
                  sat_get_table(root, "resumption"), NULL, 0, NULL, NULL);
    sat_doc_table(sec_section(c, parent, "durations", "Handshake duration, ClientHello to done"),
                  NULL, NULL, sat_get_table(root, "durations"), NULL, 0, NULL, NULL);
    retries(c, root, parent);
    tcp(c, root, parent);
    groups(c, root, parent);
    const sat_rnode *w = sat_get_table(root, "windows");
    char a[64];
    sat_fmt_duration(a, sizeof a, (double)sat_table_window(w) / 1e9);
    sat_doc_table(sec_section(c, parent, "windows", "Per %s", a), NULL, NULL, w,
                  "start_ts,connections,full,resumed,failed,incomplete,resumed_ratio,cpu_s", 0, NULL,
                  NULL);
    dirlogs(c, root, parent);
    logs(c, root, parent);
}

static const char *const csv_tables[] = {"windows",      "groups",          "versions",
                                         "resumption",   "durations",       "logs.windows",
                                         "logs.not_logged", NULL};

const sec_builder sec_handshakes = {"handshakes", lead, build, csv_tables};
