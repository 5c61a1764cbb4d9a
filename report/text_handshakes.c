/*
 * text_handshakes.c - the text form of `satscope handshakes` (docs/output.md
 * "Text"), read from the result only (analyze/handshakes_result.c): what
 * happened first (the handshakes by outcome, the resumed ratio, the rates),
 * then the CPU they cost, the versions, resumption, durations, retries, the
 * captures' TCP connections, the --by table and the windows; then, or alone,
 * the handshakes the HTTP access logs tell of (the result's "logs").
 */
#include <string.h>

#include "satscope/report.h"

static uint64_t count_of(const sat_rnode *o, const char *path)
{
    const sat_value *v = sat_rnode_value(sat_rnode_get(o, path));
    return v && !v->absent && v->unit == SAT_UNIT_COUNT ? v->v.u : 0;
}

static const char *fmt_of(const sat_rnode *o, const char *path, char *buf, size_t n)
{
    sat_fmt_value(buf, n, sat_rnode_value(sat_rnode_get(o, path)));
    return buf;
}

static void print_tcp(sat_text *t, const sat_rnode *root)
{
    const sat_rnode *tcp = sat_rnode_get(root, "tcp");
    uint64_t conns = count_of(tcp, "connections");
    if (!conns)
        return;
    sat_text_title(t, "TCP connections in the captures: %llu (%llu without TLS)",
                   (unsigned long long)conns, (unsigned long long)count_of(tcp, "without_tls"));
    /* how they ended: the ends seen, then the SYN figures */
    char keys[1024] = "";
    for (const sat_rnode *e = sat_rnode_first(sat_rnode_get(tcp, "by_end")); e;
         e = sat_rnode_next(e)) {
        const sat_value *v = sat_rnode_value(e);
        if (v && v->v.u && strlen(keys) + 2 * strlen(sat_rnode_key(e)) + 12 < sizeof keys)
            snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "by_end.%s=%s,",
                     sat_rnode_key(e), sat_rnode_key(e));
    }
    snprintf(keys + strlen(keys), sizeof keys - strlen(keys),
             "syn_retries=SYN retries,unanswered,rtt_p50_s=handshake RTT p50,rtt_p99_s=handshake RTT p99");
    sat_text_summary(t, tcp, keys, "  ");
}

/* The totals, the rates and, beside the peak, when and over what window. */
static int print_totals(sat_text *t, const sat_rnode *root)
{
    static const char *const keys[] = {"full", "resumed", "failed", "incomplete",
                                       "failed_after_server_hello", "resumed_ratio",
                                       "rate_per_s"};
    sat_result *s = sat_result_new("handshakes");
    sat_rnode *o = sat_result_root(s);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const sat_rnode *n = sat_rnode_get(root, keys[i]);
        if (!n || !sat_rnode_value(n))
            continue;
        sat_put_value(o, keys[i], sat_rnode_value(n));
        sat_put_note(o, sat_rnode_note(n));
    }
    const sat_rnode *peak = sat_rnode_get(root, "peak_rate_per_s");
    if (peak && sat_rnode_value(peak)) {
        char w[64], at[64], note[160];
        const sat_rnode *wn = sat_rnode_get(root, "windows");
        sat_fmt_duration(w, sizeof w, (double)sat_table_window(wn) / 1e9);
        sat_fmt_value(at, sizeof at, sat_rnode_value(sat_rnode_get(root, "peak_ts")));
        snprintf(note, sizeof note, "the busiest %s window's, at %s", w, at);
        sat_put_value(o, "peak_rate_per_s", sat_rnode_value(peak));
        sat_put_note(o, note);
    }
    int rc = sat_result_status(s);
    if (rc == SAT_OK)
        sat_text_summary(t, o,
                         "full,resumed,failed,incomplete,failed_after_server_hello=failed after SH,"
                         "resumed_ratio,rate_per_s=rate,peak_rate_per_s=peak rate",
                         "  ");
    sat_result_free(s);
    return s ? rc : SAT_E_NOMEM;
}

/* The handshakes read from HTTP access logs (analyze/handshakes_http.c). */
static void print_logs(sat_text *t, const sat_rnode *root)
{
    const sat_rnode *l = sat_rnode_get(root, "logs");
    if (!l)
        return;
    char a[64], b[64];
    const sat_value *full = sat_rnode_val(l, "full");
    uint64_t req = count_of(l, "requests");
    sat_text_title(t, "From the HTTP access logs: %llu %s, %s .. %s",
                   (unsigned long long)req, sat_plural(req, "request", "requests"),
                   fmt_of(l, "first_ts", a, sizeof a), fmt_of(l, "last_ts", b, sizeof b));
    const sat_value *how = sat_rnode_val(l, "counted");
    if (how && !how->absent)
        sat_text_line(t, "  %s", how->v.s);
    const sat_value *onnew = sat_rnode_val(l, "on_new_session");
    if ((!full || full->absent) && onnew && !onnew->absent) {
        /* the flag without the first requests: the requests by their flag */
        sat_text_summary(t, l,
                         "requests,on_new_session=on a new session,on_resumed_session=on a "
                         "resumed session",
                         "  ");
    } else if (!full || full->absent) {
        sat_text_summary(t, l, "requests", "  ");
    } else {
        sat_text_summary(t, l,
                         "first_requests=first requests,full,resumed,resumed_ratio,cpu_s=cpu,"
                         "session_not_logged=without a session flag,later_requests=later "
                         "requests,requests_without_number=without their number",
                         "  ");
        const sat_rnode *w = sat_rnode_get(l, "windows");
        sat_fmt_duration(a, sizeof a, (double)sat_table_window(w) / 1e9);
        sat_text_title(t, "Per %s, from the access logs (first requests)", a);
        sat_text_table(t, w, "start_ts,connections,full,resumed,resumed_ratio,cpu_s", 0, "  ");
    }
    for (const sat_rnode *n = sat_rnode_first(sat_rnode_get(l, "not_logged")); n;
         n = sat_rnode_next(n)) {
        const sat_value *f = sat_row_get(n, "field"), *why = sat_row_get(n, "why"),
                        *part = sat_row_get(n, "partial");
        sat_text_line(t, "  %s %s: %s", f && !f->absent ? f->v.s : "?",
                      part && !part->absent && part->v.i ? "not logged by some inputs"
                                                         : "not logged",
                      why && !why->absent ? why->v.s : "the log format does not carry it");
    }
}

static int render(sat_result *r, sat_text *t)
{
    const sat_rnode *root = sat_result_root(r);
    char a[64], b[64];
    uint64_t conns = count_of(root, "connections");
    if (!conns && sat_rnode_get(root, "logs")) {
        /* access logs without a capture */
        sat_text_line(t, "satscope handshakes: no TLS handshake on the wire (no capture among "
                         "the inputs); what the HTTP access logs tell of:");
        print_tcp(t, root);
        print_logs(t, root);
        return SAT_OK;
    }
    sat_text_line(t, "satscope handshakes: %llu TLS %s, %s .. %s", (unsigned long long)conns,
                  sat_plural(conns, "connection", "connections"), fmt_of(root, "first_ts", a, sizeof a),
                  fmt_of(root, "last_ts", b, sizeof b));
    if (!conns) {
        sat_text_title(t, "No TLS handshake in these inputs: handshakes come from packet captures");
        sat_text_line(t, "(pcap/pcapng) or from traces collected from them.");
        if (count_of(root, "tcp.connections"))
            sat_text_line(t, "The captures' TCP connections carried no TLS.");
        print_tcp(t, root);
        return SAT_OK;
    }
    sat_text_title(t, "Handshakes (the first of each connection)");
    if (print_totals(t, root) < 0)
        return SAT_E_NOMEM;

    const sat_rnode *cost = sat_rnode_get(root, "cost_per_handshake");
    char f[64], rs[64], p[64];
    sat_text_title(t, "Server CPU for these handshakes (estimate): %s",
                   fmt_of(root, "cpu_s", a, sizeof a));
    sat_text_line(t, "  per handshake: full %s, resumed TLS <= 1.2 %s, resumed TLS 1.3 PSK %s "
                     "(--full-cost-us, --resumed-cost-us, --psk-cost-us change them)",
                  fmt_of(cost, "full_s", f, sizeof f), fmt_of(cost, "resumed_s", rs, sizeof rs),
                  fmt_of(cost, "psk_s", p, sizeof p));
    uint64_t fsh = count_of(root, "failed_after_server_hello");
    if (fsh)
        sat_text_line(t, "  %llu failed after the ServerHello %s: the server had sent its "
                         "certificate and key exchange before the alert",
                      (unsigned long long)fsh,
                      sat_plural(fsh, "is charged as a full handshake",
                                 "are charged as full handshakes"));

    sat_text_title(t, "Versions chosen by the server");
    sat_text_table(t, sat_rnode_get(root, "versions"), "count,version", 0, "  ");
    sat_text_title(t, "Resumption");
    sat_text_table(t, sat_rnode_get(root, "resumption"), NULL, 0, "  ");
    sat_text_title(t, "Handshake duration, ClientHello to done");
    sat_text_table(t, sat_rnode_get(root, "durations"), NULL, 0, "  ");

    uint64_t retries = count_of(root, "retries");
    sat_text_title(t, "Retries");
    if (retries)
        sat_text_line(t, "  %llu failed or incomplete %s followed by the same client's new "
                         "connection to the same server (mean gap %s)",
                      (unsigned long long)retries,
                      sat_plural(retries, "handshake was", "handshakes were"),
                      fmt_of(root, "retry_gap_mean_s", a, sizeof a));
    else
        sat_text_line(t, "  no failed or incomplete handshake was followed by the same client's "
                         "new connection to the same server");
    uint64_t hrr = count_of(root, "hello_retry_requests"), reneg = count_of(root, "renegotiated"),
             ssl2 = count_of(root, "ssl2_client_hellos"),
             late = count_of(root, "started_before_capture");
    if (hrr || reneg || ssl2 || late)
        sat_text_line(t, "Also: %llu HelloRetryRequest%s, %llu renegotiated (counted once), %llu "
                         "SSLv2 ClientHello%s, %llu started before the capture",
                      (unsigned long long)hrr, sat_plural(hrr, "", "s"),
                      (unsigned long long)reneg, (unsigned long long)ssl2,
                      sat_plural(ssl2, "", "s"), (unsigned long long)late);
    print_tcp(t, root);

    const sat_rnode *groups = sat_rnode_get(root, "groups");
    const sat_value *by = sat_rnode_value(sat_rnode_get(root, "by"));
    if (groups && by && by->unit == SAT_UNIT_TEXT) {
        const char *dim = by->v.s;
        size_t shown = 0; /* the keys listed, "(other)" aside */
        for (const sat_rnode *g = sat_rnode_first(groups); g; g = sat_rnode_next(g)) {
            const sat_value *k = sat_row_get(g, dim);
            shown += !(k && !k->absent && k->unit == SAT_UNIT_TEXT && !strcmp(k->v.s, "(other)"));
        }
        sat_text_title(t, "By %s (top %zu of %llu, most full handshakes first)",
                       strcmp(dim, "sni") ? dim : "SNI", shown,
                       (unsigned long long)count_of(root, "groups_total"));
        char cols[256];
        snprintf(cols, sizeof cols,
                 "%s,connections,full,resumed,failed,incomplete,resumed_ratio,cpu_s", dim);
        sat_text_table(t, groups, cols, 0, "  ");
    }

    const sat_rnode *w = sat_rnode_get(root, "windows");
    sat_fmt_duration(a, sizeof a, (double)sat_table_window(w) / 1e9);
    sat_text_title(t, "Per %s", a);
    sat_text_table(t, w, "start_ts,connections,full,resumed,failed,incomplete,resumed_ratio,cpu_s",
                   0, "  ");
    print_logs(t, root);
    return SAT_OK;
}

static const char *const csv_tables[] = {"windows",      "groups",          "versions",
                                         "resumption",   "durations",       "logs.windows",
                                         "logs.not_logged", NULL};

const sat_text_report sat_text_handshakes = {"handshakes", render, csv_tables};
