/*
 * report_handshakes.c - the `satscope handshakes` report: totals (full,
 * resumed, failed, incomplete, the resumed ratio), the server CPU they cost,
 * versions, resumption mechanisms, durations, retries, the --by table and the
 * time series, as aligned text, JSON (keys of issue 3: connections, full,
 * resumed, failed, incomplete, resumed_ratio, windows[start_ts ...], and
 * failed_after_server_hello, the part of failed the server had answered) or CSV
 * (one row per window, or per group with --by).
 */
#include "render.h"
#include "text_table.h"

static const char *version_name(uint16_t v, char *buf, size_t n)
{
    switch (v) {
    case 0: return "(no ServerHello)";
    case 0x0300: return "SSLv3";
    case 0x0301: return "TLS1.0";
    case 0x0302: return "TLS1.1";
    case 0x0303: return "TLS1.2";
    case 0x0304: return "TLS1.3";
    case 0xffff: return "(other)";
    default: break;
    }
    if ((v & 0xff00) == 0x7f00)
        snprintf(buf, n, "TLS1.3-draft%u", v & 0xff);
    else if (v == 0x7e01 || v == 0x7e02)
        snprintf(buf, n, "TLS1.3-experiment(0x%04x)", v);
    else
        snprintf(buf, n, "0x%04x", v);
    return buf;
}

static void fmt_u(char *b, size_t n, uint64_t v) { snprintf(b, n, "%llu", (unsigned long long)v); }

static void fmt_ratio(char *b, size_t n, double r)
{
    if (r < 0)
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%.1f%%", 100.0 * r);
}

static double ratio_of(const sat_hs_counts *c)
{
    uint64_t fr = c->n[SAT_TLS_FULL] + c->n[SAT_TLS_RESUMED];
    return fr ? (double)c->n[SAT_TLS_RESUMED] / (double)fr : -1.0;
}

/* ---- text ------------------------------------------------------------------------------ */
static void print_tcp(const sat_hs_view *v, FILE *out)
{
    if (!v->tcp_conns)
        return;
    tbl t;
    fprintf(out, "\nTCP connections in the captures: %llu (%llu without TLS)\n",
            (unsigned long long)v->tcp_conns, (unsigned long long)v->tcp_no_tls);
    sat_tbl_init(&t, "lrl");
    static const char *const why[SAT_TCP_END__COUNT] = {
        "still open when the capture ended", "the client closed first (FIN)",
        "the server closed first (FIN)", "reset by the client (RST)",
        "reset by the server (RST: refused, or aborted)", "idle past the timeout",
        "evicted at the flow table's capacity"};
    for (int e = 0; e < SAT_TCP_END__COUNT; e++) {
        if (!v->tcp_by_end[e])
            continue;
        char c[32];
        fmt_u(c, sizeof c, v->tcp_by_end[e]);
        const char *row[3] = {sat_tcp_end_name(e), c, why[e]};
        sat_tbl_row(&t, row);
    }
    char sr[32], ns[32], t50[32] = "-", t99[32] = "-";
    fmt_u(sr, sizeof sr, v->tcp_syn_retrans);
    fmt_u(ns, sizeof ns, v->tcp_no_synack);
    const char *rs[3] = {"SYN retries", sr, "SYNs the clients sent again"};
    const char *rn[3] = {"unanswered", ns, "connection attempts without a SYN/ACK"};
    sat_tbl_row(&t, rs);
    sat_tbl_row(&t, rn);
    if (v->tcp_rtt_p50_s >= 0) {
        sat_report_fmt_num(t50, sizeof t50, v->tcp_rtt_p50_s * 1e3, 3);
        sat_report_fmt_num(t99, sizeof t99, v->tcp_rtt_p99_s * 1e3, 3);
    }
    char rtt[96];
    snprintf(rtt, sizeof rtt, "ms p50 (p99 %s): SYN to the client's ACK", t99);
    const char *rr2[3] = {"handshake RTT", t50, rtt};
    sat_tbl_row(&t, rr2);
    sat_tbl_print(&t, out, "  ");
}


static void counts_cells(const sat_hs_counts *c, char (*b)[32], const char **v)
{
    fmt_u(b[0], 32, c->connections);
    for (int o = SAT_TLS_FULL; o < SAT_HS_NOUT; o++)
        fmt_u(b[o], 32, c->n[o]);
    fmt_ratio(b[5], 32, ratio_of(c));
    sat_report_fmt_num(b[6], 32, c->cpu_s, 3);
    for (int i = 0; i < 7; i++)
        v[i] = b[i];
}

static int render_text(const void *vp, FILE *out)
{
    const sat_hs_view *v = (const sat_hs_view *)vp;
    char first[64] = "-", last[64] = "-";
    if (v->first_ts)
        sat_report_fmt_ts(first, sizeof first, v->first_ts);
    if (v->last_ts)
        sat_report_fmt_ts(last, sizeof last, v->last_ts);
    fprintf(out, "satscope handshakes: %llu TLS connections, %s .. %s\n\n",
            (unsigned long long)v->all.connections, first, last);

    if (!v->all.connections) {
        fprintf(out, "No TLS handshake in these inputs: handshakes come from packet captures\n"
                     "(pcap/pcapng) or from traces collected from them.%s\n",
                v->tcp_conns ? "\nThe captures' TCP connections carried no TLS." : "");
        print_tcp(v, out);
        return SAT_OK;
    }
    const sat_hs_counts *a = &v->all;
    char r[32];
    fmt_ratio(r, sizeof r, v->resumed_ratio);
    fprintf(out, "Handshakes (the first of each connection)\n");
    tbl t;
    sat_tbl_init(&t, "lrl");
    char b[8][32];
    const char *rows[][3] = {
        {"full", NULL, "certificate / key exchange: the expensive kind"},
        {"resumed", NULL, "session id, ticket or PSK accepted"},
        {"failed", NULL, "an alert ended the handshake"},
        {"incomplete", NULL, "ClientHello never answered before the client left"},
    };
    for (int o = SAT_TLS_FULL; o < SAT_HS_NOUT; o++) {
        fmt_u(b[o], sizeof b[o], a->n[o]);
        rows[o - 1][1] = b[o];
        sat_tbl_row(&t, rows[o - 1]);
    }
    /* the server's expensive part was done: capacity counts these */
    fmt_u(b[0], sizeof b[0], a->failed_after_server_hello);
    const char *fa[3] = {"failed after SH", b[0],
                         "of the failed: the server had answered (costed as full)"};
    sat_tbl_row(&t, fa);
    const char *rr[3] = {"resumed ratio", r, "resumed / (full + resumed)"};
    sat_tbl_row(&t, rr);
    char rate[32], peak[32], peakts[64] = "";
    sat_report_fmt_num(rate, sizeof rate, v->rate_per_s, 2);
    sat_report_fmt_num(peak, sizeof peak, v->peak_rate_per_s, 2);
    if (v->peak_ts)
        sat_report_fmt_ts(peakts, sizeof peakts, v->peak_ts);
    const char *rt[3] = {"per second", rate, "over the span"};
    sat_tbl_row(&t, rt);
    char peakwhy[96];
    snprintf(peakwhy, sizeof peakwhy, "busiest %llds window, at %s",
             (long long)(v->window / 1000000000), peakts);
    const char *rp[3] = {"peak per second", peak, peakwhy};
    sat_tbl_row(&t, rp);
    sat_tbl_print(&t, out, "  ");

    char cpu[32], fc[32], rc[32], pc[32];
    sat_report_fmt_num(cpu, sizeof cpu, a->cpu_s, 3);
    sat_report_fmt_num(fc, sizeof fc, v->full_cost_us, 1);
    sat_report_fmt_num(rc, sizeof rc, v->resumed_cost_us, 1);
    sat_report_fmt_num(pc, sizeof pc, v->psk_cost_us, 1);
    fprintf(out,
            "\nServer CPU for these handshakes (estimate): %s s\n"
            "  (per handshake: full %s us, resumed TLS <= 1.2 %s us, resumed TLS 1.3 PSK %s us;\n"
            "   --full-cost-us, --resumed-cost-us, --psk-cost-us change them)\n",
            cpu, fc, rc, pc);
    if (a->failed_after_server_hello)
        fprintf(out, "  %llu failed after the ServerHello are charged as full handshakes: the\n"
                     "  server had sent its certificate and key exchange before the alert\n",
                (unsigned long long)a->failed_after_server_hello);

    fprintf(out, "\nVersions chosen by the server\n");
    sat_tbl_init(&t, "rl");
    for (size_t i = 0; i < v->nversions; i++) {
        char c[32], nb[40];
        fmt_u(c, sizeof c, v->versions[i].count);
        const char *row[2] = {c, version_name(v->versions[i].version, nb, sizeof nb)};
        sat_tbl_row(&t, row);
    }
    sat_tbl_print(&t, out, "  ");

    fprintf(out, "\nResumption\n");
    sat_tbl_init(&t, "lrr");
    const char *hdr[3] = {"", "offered", "accepted"};
    sat_tbl_row(&t, hdr);
    static const char *const mech[3] = {"session id", "ticket", "PSK (TLS 1.3)"};
    for (int m = 0; m < 3; m++) {
        char o[32], ac[32];
        fmt_u(o, sizeof o, v->offered[m]);
        fmt_u(ac, sizeof ac, v->resumed_by[m]);
        const char *row[3] = {mech[m], o, ac};
        sat_tbl_row(&t, row);
    }
    sat_tbl_print(&t, out, "  ");

    char f50[32] = "-", f99[32] = "-", r50[32] = "-", r99[32] = "-";
    if (v->full_p50_s >= 0) {
        sat_report_fmt_num(f50, sizeof f50, v->full_p50_s * 1e3, 3);
        sat_report_fmt_num(f99, sizeof f99, v->full_p99_s * 1e3, 3);
    }
    if (v->resumed_p50_s >= 0) {
        sat_report_fmt_num(r50, sizeof r50, v->resumed_p50_s * 1e3, 3);
        sat_report_fmt_num(r99, sizeof r99, v->resumed_p99_s * 1e3, 3);
    }
    fprintf(out, "\nHandshake duration, ClientHello to done (ms)\n");
    sat_tbl_init(&t, "lrr");
    const char *dh[3] = {"", "p50", "p99"};
    const char *df[3] = {"full", f50, f99};
    const char *dr[3] = {"resumed", r50, r99};
    sat_tbl_row(&t, dh);
    sat_tbl_row(&t, df);
    sat_tbl_row(&t, dr);
    sat_tbl_print(&t, out, "  ");

    char gap[32];
    sat_report_fmt_num(gap, sizeof gap, v->retry_gap_mean_s, 3);
    fprintf(out,
            "\nRetries: %llu failed or incomplete handshakes were followed by the same\n"
            "  client's new connection to the same server (mean gap %s s)\n",
            (unsigned long long)v->retries, gap);
    if (v->hrr || v->renegotiated || v->ssl2_hello || v->late_start)
        fprintf(out,
                "Also: %llu HelloRetryRequest, %llu renegotiated (counted once), %llu SSLv2 "
                "ClientHello, %llu started before the capture\n",
                (unsigned long long)v->hrr, (unsigned long long)v->renegotiated,
                (unsigned long long)v->ssl2_hello, (unsigned long long)v->late_start);
    print_tcp(v, out);

    if (v->by != SAT_HS_BY_NONE) {
        static const char *const byname[] = {"", "client", "server", "SNI"};
        fprintf(out, "\nBy %s (top %zu of %zu, most full handshakes first)\n",
                byname[v->by], v->ngroups, v->groups_total);
        sat_tbl_init(&t, "lrrrrrrr");
        const char *h[8] = {"key", "conns", "full", "resumed", "failed", "incompl.",
                            "resumed%", "cpu s"};
        sat_tbl_row(&t, h);
        for (size_t i = 0; i < v->ngroups; i++) {
            char cb[8][32];
            const char *cells[8];
            cells[0] = v->groups[i].key;
            counts_cells(&v->groups[i].c, cb, cells + 1);
            sat_tbl_row(&t, cells);
        }
        sat_tbl_print(&t, out, "  ");
    }

    fprintf(out, "\nPer %lld s\n", (long long)(v->window / 1000000000));
    sat_tbl_init(&t, "lrrrrrrr");
    const char *wh[8] = {"start", "conns", "full", "resumed", "failed", "incompl.",
                         "resumed%", "cpu s"};
    sat_tbl_row(&t, wh);
    for (size_t i = 0; i < v->nwindows; i++) {
        char ts[64], cb[8][32];
        const char *cells[8];
        sat_report_fmt_ts(ts, sizeof ts, v->windows[i].start_ts);
        cells[0] = ts;
        counts_cells(&v->windows[i].c, cb, cells + 1);
        sat_tbl_row(&t, cells);
    }
    sat_tbl_print(&t, out, "  ");
    return t.err ? SAT_E_NOMEM : SAT_OK;
}

/* ---- JSON ------------------------------------------------------------------------------ */
static void json_counts(sat_json *j, const sat_hs_counts *c)
{
    sat_json_u64(j, "connections", c->connections);
    sat_json_u64(j, "full", c->n[SAT_TLS_FULL]);
    sat_json_u64(j, "resumed", c->n[SAT_TLS_RESUMED]);
    sat_json_u64(j, "failed", c->n[SAT_TLS_FAILED]);
    sat_json_u64(j, "failed_after_server_hello", c->failed_after_server_hello);
    sat_json_u64(j, "incomplete", c->n[SAT_TLS_INCOMPLETE]);
    double r = ratio_of(c);
    if (r < 0)
        sat_json_null(j, "resumed_ratio");
    else
        sat_json_num(j, "resumed_ratio", r, 4);
    sat_json_num(j, "cpu_s", c->cpu_s, 6);
}

static void json_s(sat_json *j, const char *k, double s)
{
    if (s < 0)
        sat_json_null(j, k);
    else
        sat_json_num(j, k, s, 6);
}

static int render_json(const void *vp, FILE *out)
{
    const sat_hs_view *v = (const sat_hs_view *)vp;
    sat_json j;
    sat_json_init(&j, out);
    sat_json_set_compact_depth(&j, 3);
    sat_json_document(&j);
    json_counts(&j, &v->all);
    sat_json_ts(&j, "first", v->first_ts);
    sat_json_ts(&j, "last", v->first_ts ? v->last_ts : 0);
    sat_json_num(&j, "span_s", v->span_s, 3);
    sat_json_num(&j, "rate_per_s", v->rate_per_s, 3);
    sat_json_num(&j, "peak_rate_per_s", v->peak_rate_per_s, 3);
    sat_json_ts(&j, "peak_at", v->peak_ts);
    sat_json_object(&j, "cost_us");
    sat_json_num(&j, "full", v->full_cost_us, 1);
    sat_json_num(&j, "resumed", v->resumed_cost_us, 1);
    sat_json_num(&j, "psk", v->psk_cost_us, 1);
    sat_json_end(&j);
    sat_json_object(&j, "versions");
    for (size_t i = 0; i < v->nversions; i++) {
        char nb[40];
        sat_json_u64(&j, version_name(v->versions[i].version, nb, sizeof nb),
                     v->versions[i].count);
    }
    sat_json_end(&j);
    static const char *const mech[3] = {"session_id", "ticket", "psk"};
    sat_json_object(&j, "offered");
    for (int m = 0; m < 3; m++)
        sat_json_u64(&j, mech[m], v->offered[m]);
    sat_json_end(&j);
    sat_json_object(&j, "resumed_by");
    for (int m = 0; m < 3; m++)
        sat_json_u64(&j, mech[m], v->resumed_by[m]);
    sat_json_end(&j);
    sat_json_object(&j, "duration");
    json_s(&j, "full_p50_s", v->full_p50_s);
    json_s(&j, "full_p99_s", v->full_p99_s);
    json_s(&j, "resumed_p50_s", v->resumed_p50_s);
    json_s(&j, "resumed_p99_s", v->resumed_p99_s);
    sat_json_end(&j);
    sat_json_u64(&j, "retries", v->retries);
    sat_json_num(&j, "retry_gap_mean_s", v->retry_gap_mean_s, 6);
    sat_json_u64(&j, "hello_retry_requests", v->hrr);
    sat_json_u64(&j, "renegotiated", v->renegotiated);
    sat_json_object(&j, "tcp");
    sat_json_u64(&j, "connections", v->tcp_conns);
    sat_json_u64(&j, "without_tls", v->tcp_no_tls);
    sat_json_object(&j, "by_end");
    for (int e = 0; e < SAT_TCP_END__COUNT; e++)
        sat_json_u64(&j, sat_tcp_end_name(e), v->tcp_by_end[e]);
    sat_json_end(&j);
    sat_json_u64(&j, "syn_retries", v->tcp_syn_retrans);
    sat_json_u64(&j, "unanswered", v->tcp_no_synack);
    json_s(&j, "rtt_p50_s", v->tcp_rtt_p50_s);
    json_s(&j, "rtt_p99_s", v->tcp_rtt_p99_s);
    sat_json_end(&j);
    if (v->by != SAT_HS_BY_NONE) {
        static const char *const byname[] = {"none", "client", "server", "sni"};
        sat_json_str(&j, "by", byname[v->by]);
        sat_json_array(&j, "groups");
        for (size_t i = 0; i < v->ngroups; i++) {
            sat_json_object(&j, NULL);
            sat_json_str(&j, "key", v->groups[i].key);
            json_counts(&j, &v->groups[i].c);
            sat_json_end(&j);
        }
        sat_json_end(&j);
    }
    sat_json_num(&j, "window_s", (double)v->window / 1e9, 3);
    sat_json_array(&j, "windows");
    for (size_t i = 0; i < v->nwindows; i++) {
        sat_json_object(&j, NULL);
        sat_json_ts(&j, "start_ts", v->windows[i].start_ts);
        json_counts(&j, &v->windows[i].c);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_end(&j);
    return sat_json_finish(&j);
}

/* ---- CSV ------------------------------------------------------------------------------- */
static void csv_counts(FILE *out, const sat_hs_counts *c)
{
    double r = ratio_of(c);
    char rs[32] = "";
    if (r >= 0)
        snprintf(rs, sizeof rs, "%.4f", r);
    fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%llu,%s,%.6f\n", (unsigned long long)c->connections,
            (unsigned long long)c->n[SAT_TLS_FULL], (unsigned long long)c->n[SAT_TLS_RESUMED],
            (unsigned long long)c->n[SAT_TLS_FAILED],
            (unsigned long long)c->failed_after_server_hello,
            (unsigned long long)c->n[SAT_TLS_INCOMPLETE], rs, c->cpu_s);
}

static int render_csv(const void *vp, FILE *out)
{
    const sat_hs_view *v = (const sat_hs_view *)vp;
    if (v->by != SAT_HS_BY_NONE) {
        fprintf(out, "key,connections,full,resumed,failed,failed_after_server_hello,"
                     "incomplete,resumed_ratio,cpu_s\n");
        for (size_t i = 0; i < v->ngroups; i++) {
            sat_csv_field(out, v->groups[i].key);
            csv_counts(out, &v->groups[i].c);
        }
        return SAT_OK;
    }
    fprintf(out, "start_ts,connections,full,resumed,failed,failed_after_server_hello,incomplete,"
                 "resumed_ratio,cpu_s\n");
    for (size_t i = 0; i < v->nwindows; i++) {
        char ts[64];
        sat_report_fmt_ts(ts, sizeof ts, v->windows[i].start_ts);
        fputs(ts, out);
        csv_counts(out, &v->windows[i].c);
    }
    return SAT_OK;
}

int sat_report_handshakes(const sat_hs *h, int fmt, FILE *out, sat_diag *diag)
{
    return sat_report_render(sat_hs_get_view(h), fmt, render_text, render_json, render_csv, out, diag);
}
