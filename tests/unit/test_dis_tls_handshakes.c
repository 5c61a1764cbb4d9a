/*
 * test_dis_tls_handshakes.c - the TLS stream dissector (parse/wire/dis_tls.c) on
 * handshakes that complete, built here byte by byte (tls_build.h) and fed
 * whole, in chunks and cut after every byte (tls_run.h): TLS 1.2 full (and
 * renegotiated), resumed by session id and by ticket; TLS 1.3 full, with a
 * PSK taken or declined, after a HelloRetryRequest, the "experiment" and
 * draft versions; an SSLv2-format ClientHello; a capture that starts at the
 * ServerHello.
 */
#include "check.h"
#include "tls_run.h"

static void test_tls12_full(void)
{
    convo c = {0};
    hello_opts ch = {.sni = "www.example.com", .empty_ticket = 1};
    hello_opts sh = {.sid = SID_B, .sid_len = 32, .cipher = 0xc02f};
    ch_record(step(&c, SAT_DIR_C2S), &ch);  /* step 0 */
    server_full_flight(step(&c, SAT_DIR_S2C), &sh); /* 1 */
    client_finish_12(&c);                   /* 2 */
    server_finish_12(&c, 1);                /* 3 */
    appdata(&c, SAT_DIR_C2S);
    appdata(&c, SAT_DIR_S2C);
    capture w;
    sat_tls_hs h = check_convo("tls12_full", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_NONE);
    CHECK_EQ_INT(h.offered, 0);
    CHECK_EQ_INT(h.version, 0x0303);
    CHECK_EQ_INT(h.offered_version, 0x0303);
    CHECK_EQ_INT(h.cipher, 0xc02f);
    CHECK_EQ_SSTR(h.sni, "www.example.com");
    CHECK_EQ_STR(w.rows[0].cip, "192.0.2.1");
    CHECK_EQ_INT(h.source, 3);
    CHECK_EQ_INT(h.flow, 42);
    CHECK_EQ_INT(h.server_port, 443);
    CHECK_EQ_INT(h.ts, T0);
    CHECK_EQ_INT(h.server_hello_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.done_ts, T0 + 3 * STEP_NS);
    CHECK_EQ_INT(h.duration, 3 * STEP_NS);
    CHECK_EQ_INT(h.alert, SAT_ABSENT);
    CHECK_EQ_INT(h.flags, 0);

    /* renegotiation: the client's encrypted handshake record after its Finished */
    bb m = {{0}, 0};
    rec_raw(&m, 22, ENC, sizeof ENC);
    *step(&c, SAT_DIR_C2S) = m;
    h = check_convo("tls12_reneg", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.flags, SAT_TLSF_RENEGOTIATED);
    CHECK_EQ_INT(h.done_ts, T0 + 3 * STEP_NS);
}

static void test_tls12_resumed_sid(void)
{
    convo c = {0};
    hello_opts ch = {.sid = SID_A, .sid_len = 32};
    hello_opts sh = {.sid = SID_A, .sid_len = 32, .cipher = 0x002f};
    ch_record(step(&c, SAT_DIR_C2S), &ch);
    bb *s = step(&c, SAT_DIR_S2C);
    sh_record(s, &sh);
    ccs_finished_12(s);
    bb *cl = step(&c, SAT_DIR_C2S);
    ccs_finished_12(cl);
    appdata(&c, SAT_DIR_C2S);
    capture w;
    sat_tls_hs h = check_convo("tls12_resumed_sid", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_RESUMED);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_SESSION_ID);
    CHECK_EQ_INT(h.offered, SAT_TLS_RESUME_SESSION_ID);
    CHECK_EQ_INT(h.done_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.duration, STEP_NS);
    CHECK(!h.sni.ptr);
}

static void test_tls12_resumed_ticket(void)
{
    for (int echo = 0; echo < 2; echo++) {
        convo c = {0};
        hello_opts ch = {.sid = SID_A, .sid_len = echo ? 32 : 0, .ticket_len = 160};
        hello_opts sh = {.sid = SID_A, .sid_len = echo ? 32 : 0, .cipher = 0xc030,
                         .empty_ticket = 1};
        ch_record(step(&c, SAT_DIR_C2S), &ch);
        bb m = {{0}, 0};
        bb *s = step(&c, SAT_DIR_S2C);
        server_hello(&m, &sh);
        hs_empty(&m, 4, 170); /* a fresh NewSessionTicket before the CCS */
        rec(s, 22, &m);
        ccs_finished_12(s);
        bb *cl = step(&c, SAT_DIR_C2S);
        ccs_finished_12(cl);
        capture w;
        sat_tls_hs h = check_convo("tls12_resumed_ticket", &c, &w);
        CHECK_EQ_INT(h.outcome, SAT_TLS_RESUMED);
        CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_TICKET);
        CHECK_EQ_INT(h.offered, SAT_TLS_RESUME_TICKET | (echo ? SAT_TLS_RESUME_SESSION_ID : 0));
        CHECK_EQ_INT(h.cipher, 0xc030);
    }
}

static void test_tls13_full(void)
{
    convo c = {0};
    hello_opts ch = {.sid = SID_A, .sid_len = 32, .sni = "a.test", .versions = V13,
                     .nversions = 2};
    hello_opts sh = {.sid = SID_A, .sid_len = 32, .cipher = 0x1301, .versions = V13,
                     .nversions = 1};
    tls13_convo(&c, &ch, &sh, 0);
    capture w;
    sat_tls_hs h = check_convo("tls13_full", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.version, 0x0304);
    CHECK_EQ_INT(h.offered_version, 0x0304);
    CHECK_EQ_INT(h.cipher, 0x1301);
    CHECK_EQ_INT(h.offered, SAT_TLS_RESUME_SESSION_ID);
    CHECK_EQ_INT(h.server_hello_ts, T0 + STEP_NS);
    CHECK_EQ_INT(h.done_ts, T0 + 2 * STEP_NS);
    CHECK_EQ_INT(h.duration, 2 * STEP_NS);
    CHECK_EQ_SSTR(h.sni, "a.test");
}

static void test_tls13_psk(void)
{
    convo c = {0};
    hello_opts ch = {.sid = SID_A, .sid_len = 32, .versions = V13, .nversions = 2, .psk = 1};
    hello_opts sh = {.sid = SID_A, .sid_len = 32, .cipher = 0x1302, .versions = V13,
                     .nversions = 1, .psk = 1};
    tls13_convo(&c, &ch, &sh, 0);
    capture w;
    sat_tls_hs h = check_convo("tls13_psk", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_RESUMED);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_PSK);
    CHECK_EQ_INT(h.offered, SAT_TLS_RESUME_SESSION_ID | SAT_TLS_RESUME_PSK);

    /* offered a PSK, the server declined it: full */
    convo d = {0};
    sh.psk = 0;
    tls13_convo(&d, &ch, &sh, 0);
    h = check_convo("tls13_psk_declined", &d, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_NONE);
}

static void test_tls13_hrr(void)
{
    convo c = {0};
    hello_opts ch = {.sid = SID_A, .sid_len = 32, .versions = V13, .nversions = 2};
    hello_opts sh = {.sid = SID_A, .sid_len = 32, .cipher = 0x1301, .versions = V13,
                     .nversions = 1};
    tls13_convo(&c, &ch, &sh, 1);
    capture w;
    sat_tls_hs h = check_convo("tls13_hrr", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.flags, SAT_TLSF_HRR);
    CHECK_EQ_INT(h.ts, T0);
    CHECK_EQ_INT(h.server_hello_ts, T0 + 3 * STEP_NS); /* the real ServerHello */
    CHECK_EQ_INT(h.done_ts, T0 + 4 * STEP_NS);
}

/* "TLS 1.3 experiment": echoes the legacy session id, no PSK -> full */
static void test_tls13_experiment(void)
{
    static const unsigned VX[] = {0x7e01, 0x0303};
    convo c = {0};
    hello_opts ch = {.sid = SID_A, .sid_len = 32, .versions = VX, .nversions = 2};
    hello_opts sh = {.sid = SID_A, .sid_len = 32, .cipher = 0x1301, .versions = VX,
                     .nversions = 1};
    tls13_convo(&c, &ch, &sh, 0);
    capture w;
    sat_tls_hs h = check_convo("tls13_experiment", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.version, 0x7e01);
    CHECK_EQ_INT(h.offered_version, 0x7e01);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_NONE);

    /* a draft (0x7f1c) with a PSK: resumed */
    static const unsigned VD[] = {0x7f1c};
    convo d = {0};
    hello_opts ch2 = {.versions = VD, .nversions = 1, .psk = 1};
    hello_opts sh2 = {.cipher = 0x1301, .versions = VD, .nversions = 1, .psk = 1};
    tls13_convo(&d, &ch2, &sh2, 0);
    h = check_convo("tls13_draft28_psk", &d, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_RESUMED);
    CHECK_EQ_INT(h.version, 0x7f1c);
}

static void test_ssl2_hello(void)
{
    convo c = {0};
    bb *s = step(&c, SAT_DIR_C2S);
    /* SSLv2-format ClientHello (RFC 5246 E.2) offering SSLv3 */
    put8(s, 0x80);
    put8(s, 9 + 9 + 16);
    put8(s, 1);
    put16(s, 0x0300);
    put16(s, 9);
    put16(s, 0);
    put16(s, 16);
    static const uint8_t specs[9] = {0, 0, 4, 0, 0, 5, 0, 0, 0x0a};
    putn(s, specs, 9);
    putfill(s, 0xcc, 16);
    hello_opts sh = {.legacy = 0x0300, .sid = SID_B, .sid_len = 32, .cipher = 4};
    server_full_flight(step(&c, SAT_DIR_S2C), &sh);
    client_finish_12(&c);
    server_finish_12(&c, 0);
    capture w;
    sat_tls_hs h = check_convo("ssl2_hello", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.flags, SAT_TLSF_SSL2_HELLO);
    CHECK_EQ_INT(h.offered_version, 0x0300);
    CHECK_EQ_INT(h.version, 0x0300);
    CHECK_EQ_INT(h.cipher, 4);
    CHECK_EQ_INT(h.done_ts, T0 + 3 * STEP_NS);
}

static void test_server_hello_first(void)
{
    convo c = {0};
    hello_opts sh = {.sid = SID_B, .sid_len = 32, .cipher = 0xc02f};
    server_full_flight(step(&c, SAT_DIR_S2C), &sh);
    client_finish_12(&c);
    server_finish_12(&c, 0);
    capture w;
    sat_tls_hs h = check_convo("server_hello_first", &c, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_FULL);
    CHECK_EQ_INT(h.flags, SAT_TLSF_NO_CLIENT_HELLO);
    CHECK_EQ_INT(h.ts, T0);
    CHECK_EQ_INT(h.offered_version, 0);
    CHECK_EQ_INT(h.duration, SAT_ABSENT);
    CHECK_EQ_INT(h.done_ts, T0 + 2 * STEP_NS);

    /* late capture of an abbreviated handshake with an empty session id: ticket */
    convo d = {0};
    hello_opts sh2 = {.cipher = 0xc02f};
    bb *s = step(&d, SAT_DIR_S2C);
    sh_record(s, &sh2);
    ccs_finished_12(s);
    h = check_convo("server_hello_first_abbrev", &d, &w);
    CHECK_EQ_INT(h.outcome, SAT_TLS_RESUMED);
    CHECK_EQ_INT(h.resumed_by, SAT_TLS_RESUME_TICKET);
}

int main(void)
{
    test_tls12_full();
    test_tls12_resumed_sid();
    test_tls12_resumed_ticket();
    test_tls13_full();
    test_tls13_psk();
    test_tls13_hrr();
    test_tls13_experiment();
    test_ssl2_hello();
    test_server_hello_first();
    return CHECK_DONE();
}
