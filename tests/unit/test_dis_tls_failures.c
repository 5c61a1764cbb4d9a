/*
 * test_dis_tls_failures.c - the TLS stream dissector (parse/wire/dis_tls.c) on
 * handshakes that do not complete, built here (tls_build.h) and fed every
 * way (tls_run.h): a fatal alert before and after the ServerHello (in the
 * clear in TLS 1.2, protected in TLS 1.3, by the tag length of the cipher),
 * a warning, a client left waiting; streams that are not TLS or whose start
 * is missing (never a crash, never "resumed"); and the content sniff.
 */
#include "check.h"
#include "tls_run.h"

static void test_alert(void)
{
    convo c = {0};
    hello_opts ch = {.sni = "x.test"};
    ch_record(step(&c, SAT_DIR_C2S), &ch);
    static const uint8_t al[2] = {2, 40};
    rec_raw(step(&c, SAT_DIR_S2C), 21, al, 2);
    capture w;
    sat_tls_hs h = check_convo("alert", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FAILED);
    CHECK_EQ_INT(h.alert, 40);
    CHECK_EQ_INT(h.version, 0);
    CHECK_EQ_INT(h.server_hello_ts, 0);
    CHECK_EQ_INT(h.duration, SAT_ABSENT);

    /* a warning (no_renegotiation) is not the end */
    convo d = {0};
    ch_record(step(&d, SAT_DIR_C2S), &ch);
    static const uint8_t warn[2] = {1, 100};
    rec_raw(step(&d, SAT_DIR_S2C), 21, warn, 2);
    h = check_convo("alert_warning", &d, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_INCOMPLETE);
}

/* An alert after the ServerHello: failed, with the ServerHello's time kept
 * (the server had answered: analyzers charge it as a full handshake). */
static void test_alert_after_server_hello(void)
{
    /* TLS 1.2: the client rejects the certificate, its alert in the clear */
    convo c = {0};
    hello_opts ch = {.sni = "x.test"};
    hello_opts sh = {.sid = SID_B, .sid_len = 32, .cipher = 0xc02b};
    ch_record(step(&c, SAT_DIR_C2S), &ch);
    server_full_flight(step(&c, SAT_DIR_S2C), &sh);
    static const uint8_t unknown_ca[2] = {2, 48};
    rec_raw(step(&c, SAT_DIR_C2S), 21, unknown_ca, 2);
    capture w;
    sat_tls_hs h = check_convo("alert_after_sh_12", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FAILED);
    CHECK_EQ_INT(h.alert, 48);
    CHECK_EQ_INT(h.server_hello_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.version, 0x0303);

    /* TLS 1.3: the client's alert is protected (19 bytes: 2 + content type +
     * a 16-byte tag) where its Finished would be */
    static const uint8_t alert13[19] = {0x42};
    hello_opts ch13 = {.sid = SID_A, .sid_len = 32, .versions = V13, .nversions = 2};
    hello_opts sh13 = {.sid = SID_A, .sid_len = 32, .cipher = 0x1301, .versions = V13,
                       .nversions = 1};
    convo d = {0};
    ch_record(step(&d, SAT_DIR_C2S), &ch13);
    bb *s = step(&d, SAT_DIR_S2C);
    sh_record(s, &sh13);
    rec_raw(s, 20, &ONE, 1);
    rec_raw(s, 23, ENC, sizeof ENC);
    bb *cl = step(&d, SAT_DIR_C2S);
    rec_raw(cl, 20, &ONE, 1);
    rec_raw(cl, 23, alert13, sizeof alert13);
    h = check_convo("alert_after_sh_13", &d, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FAILED);
    CHECK_EQ_INT(h.alert, SAT_ABSENT);
    CHECK_EQ_INT(h.server_hello_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.done_ts, 0);
    CHECK_EQ_INT(h.version, 0x0304);

    /* with TLS_AES_128_CCM_8_SHA256 the tag is 8 bytes: an 11-byte alert,
     * and a 19-byte record is not one */
    convo e = {0};
    sh13.cipher = 0x1305;
    ch_record(step(&e, SAT_DIR_C2S), &ch13);
    s = step(&e, SAT_DIR_S2C);
    sh_record(s, &sh13);
    rec_raw(s, 23, ENC, sizeof ENC);
    rec_raw(step(&e, SAT_DIR_C2S), 23, alert13, 11);
    h = check_convo("alert_after_sh_13_ccm8", &e, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FAILED);
    e.data[2].n = 0;
    rec_raw(&e.data[2], 23, alert13, sizeof alert13);
    h = check_convo("finished_13_ccm8", &e, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.done_ts, T0 + 2 * STEP_NS);

    /* TLS 1.3, a client certificate required and not given: the client's
     * (empty) Certificate and Finished, then the server's protected alert
     * where its tickets would be */
    convo r = {0};
    sh13.cipher = 0x1302;
    ch_record(step(&r, SAT_DIR_C2S), &ch13);
    s = step(&r, SAT_DIR_S2C);
    sh_record(s, &sh13);
    rec_raw(s, 23, ENC, sizeof ENC);
    cl = step(&r, SAT_DIR_C2S);
    rec_raw(cl, 23, ENC, 25);
    rec_raw(cl, 23, ENC, sizeof ENC);
    rec_raw(step(&r, SAT_DIR_S2C), 23, alert13, sizeof alert13);
    h = check_convo("refused_after_finished_13", &r, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FAILED);
    CHECK_EQ_INT(h.server_hello_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.done_ts, 0);
    CHECK_EQ_INT(h.duration, SAT_ABSENT);
    /* the same with a ticket (a bigger record) first: full */
    r.data[3].n = 0;
    rec_raw(&r.data[3], 23, ENC, sizeof ENC);
    rec_raw(&r.data[3], 23, alert13, sizeof alert13); /* a later close_notify */
    h = check_convo("ticket_after_finished_13", &r, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.done_ts, T0 + 2 * STEP_NS);
}

static void test_incomplete(void)
{
    convo c = {0};
    hello_opts ch = {.sni = "slow.test", .versions = V13, .nversions = 2};
    ch_record(step(&c, SAT_DIR_C2S), &ch);
    capture w;
    sat_tls_hs h = check_convo("incomplete", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_INCOMPLETE);
    CHECK_EQ_INT(h.done_ts, 0);
    CHECK_EQ_INT(h.server_hello_ts, 0);
    CHECK_EQ_INT(h.duration, SAT_ABSENT);
    CHECK_EQ_INT(h.offered_version, 0x0304);
    CHECK_EQ_SSTR(h.sni, "slow.test");
}

/* not TLS, or TLS whose start is missing: no row, no crash */
static void test_garbage(void)
{
    uint32_t x = 12345;
    int resumed = 0, rows = 0;
    for (int round = 0; round < 300; round++) {
        convo c = {0};
        for (int k = 0; k < 6; k++) {
            bb *s = step(&c, k & 1);
            size_t n = 1 + (x >> 7) % 600;
            for (size_t i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                s->b[s->n++] = (uint8_t)(x >> 16);
            }
            if (round & 1) { /* plausible record headers with garbage inside */
                s->b[0] = (uint8_t)(20 + round % 4);
                s->b[1] = 3;
                s->b[2] = (uint8_t)(round % 5);
            }
        }
        for (size_t chunk = 0; chunk < 3; chunk++) {
            capture w;
            CHECK_EQ_INT(run(&c, chunk * 5, SIZE_MAX, &w), 0);
            rows += w.n;
            for (int i = 0; i < w.n && i < 4; i++)
                resumed += w.rows[i].h.outcome == SAT_TLS_RESUMED;
        }
    }
    CHECK_EQ_INT(resumed, 0);
    (void)rows;

    /* gap in the middle of the server flight: no resumed, no crash */
    sat_event_sink sink;
    capture w;
    memset(&sink, 0, sizeof sink);
    memset(&w, 0, sizeof w);
    sink.ctx = &w;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_TLS_HS);
    sink.on_row = rows_tls;
    sat_wire_ctx ctx = {&sink, NULL, 0};
    sat_flow_info fi;
    memset(&fi, 0, sizeof fi);
    void *st = sat_dissect_tls.create(&fi, &ctx);
    CHECK(st != NULL);
    bb a = {{0}, 0};
    hello_opts ch = {0};
    ch_record(&a, &ch);
    CHECK_EQ_INT(sat_dissect_tls.data(st, 0, T0, a.b, a.n), 0);
    CHECK_EQ_INT(sat_dissect_tls.gap(st, 1, T0, 100), 0);
    bb b = {{0}, 0};
    rec_raw(&b, 20, &ONE, 1);
    CHECK_EQ_INT(sat_dissect_tls.data(st, 1, T0, b.b, b.n), 0);
    CHECK_EQ_INT(sat_dissect_tls.end(st, 0, T0), 0);
    sat_dissect_tls.destroy(st);
    sat_dissect_tls.destroy(NULL);
    CHECK_EQ_INT(w.n, 1);
    CHECK_EQ_INT(w.rows[0].h.outcome, SAT_TLS_INCOMPLETE);
}

static void test_sniff(void)
{
    bb a = {{0}, 0};
    hello_opts ch = {0};
    ch_record(&a, &ch);
    int full = sat_dissect_tls.sniff(a.b, a.n, 0, 8080);
    CHECK(full >= 90);
    CHECK(sat_dissect_tls.sniff(a.b, 3, 0, 8080) > 0);
    CHECK(sat_dissect_tls.sniff(a.b, a.n, 0, 443) >= full);
    static const uint8_t http[] = "GET / HTTP/1.1\r\n";
    CHECK_EQ_INT(sat_dissect_tls.sniff(http, sizeof http - 1, 0, 443), 0);
    static const uint8_t ldap[] = {0x30, 0x0c, 0x02, 0x01, 0x01, 0x60, 0x07};
    CHECK_EQ_INT(sat_dissect_tls.sniff(ldap, sizeof ldap, 0, 389), 0);
    static const uint8_t badver[] = {22, 2, 0, 0, 10, 1};
    CHECK_EQ_INT(sat_dissect_tls.sniff(badver, sizeof badver, 0, 443), 0);
    static const uint8_t v2[] = {0x80, 0x22, 1, 3, 0, 0, 9, 0, 0, 0, 16};
    CHECK(sat_dissect_tls.sniff(v2, sizeof v2, 0, 443) >= 80);
    CHECK_EQ_STR(sat_dissect_tls.name, "tls");
}

int main(void)
{
    test_sniff();
    test_alert();
    test_alert_after_server_hello();
    test_incomplete();
    test_garbage();
    return CHECK_DONE();
}
