/*
 * test_tls_fixtures.c - satscope's classification of every TLS connection of
 * the real-tool captures in fixtures/tls/ (openssl s_server / s_client on
 * loopback, captured with tcpdump: see fixtures/tls/README.md) against what
 * the clients themselves printed (fixtures/tls/<name>.expected): per client
 * port, the outcome (full / resumed / failed / incomplete), the resumption
 * mechanism and the SNI. The whole path runs: libpcap reading, packet
 * decoding, TCP reassembly, the TLS dissector, the tls_hs rows.
 *
 * Where the .expected file notes it (`..._after_server_hello`), a failure
 * after the ServerHello must have the ServerHello's time in its row (the
 * analyzers count it as failed_after_server_hello and charge it as full).
 *
 * Then the same pipeline on the public captures of $SAT_CORPUS/tls (Zeek's and
 * Wireshark's test traces), against the counts of its README: connections,
 * full, resumed, and "no SH" (a ClientHello never answered: failed or
 * incomplete here), and failures after a ServerHello (Zeek's expected ssl.log:
 * an alert and established F with a version chosen). DTLS (UDP) is out of
 * scope and skipped, said so. Captures marked optional are checked when the
 * corpus holds them, and said skipped otherwise.
 */
#include "check.h"
#include "satscope/collect.h"

#include <stdlib.h>
#include <unistd.h>

#define MAX_ROWS 256

typedef struct got {
    size_t n;
    sat_tls_hs rows[MAX_ROWS];
    char sni[MAX_ROWS][64];
} got;

static int on_tls(void *ctx, const sat_tls_hs *h)
{
    got *g = ctx;
    if (g->n < MAX_ROWS) {
        g->rows[g->n] = *h;
        snprintf(g->sni[g->n], sizeof g->sni[g->n], "%.*s", (int)h->sni.len,
                 h->sni.ptr ? h->sni.ptr : "-");
        g->n++;
    }
    return SAT_OK;
}

static int rows_tls(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_TLS_HS:
        return on_tls(ctx, (const sat_tls_hs *)row);
    default:
        return 0;
    }
}

static void quiet(void *ctx, const char *where, const char *msg)
{
    (void)ctx;
    printf("warning: %s: %s\n", where, msg);
}

/* The tls_hs rows of one capture, through the whole collection (caller frees). */
static got *collect_rows(const char *path)
{
    got *g = calloc(1, sizeof *g);
    if (!g)
        abort();
    sat_event_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.ctx = g;
    sink.tables = SAT_TABLE_BIT(SAT_TABLE_TLS_HS);
    sink.on_row = rows_tls;
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.warn = quiet;
    sat_collect_stats st;
    sat_diag d;
    memset(&d, 0, sizeof d);
    const char *paths[1] = {path};
    CHECK_EQ_INT(sat_collect_run(paths, 1, &o, &sink, &st, &d), SAT_OK);
    return g;
}

static const char *outcome_word(int o)
{
    return sat_tls_outcome_name(o);
}

static const char *mech_word(int m)
{
    return m == SAT_TLS_RESUME_SESSION_ID ? "session_id"
         : m == SAT_TLS_RESUME_TICKET     ? "ticket"
         : m == SAT_TLS_RESUME_PSK        ? "psk"
                                          : "-";
}

static void check_fixture(const char *src, const char *name)
{
    char pcap[1024], exp[1024];
    snprintf(pcap, sizeof pcap, "%s/fixtures/tls/%s.pcap", src, name);
    snprintf(exp, sizeof exp, "%s/fixtures/tls/%s.expected", src, name);
    got *g = collect_rows(pcap);

    FILE *f = fopen(exp, "r");
    CHECK(f != NULL);
    if (!f) {
        free(g);
        return;
    }
    char line[512];
    size_t lines = 0, bad = 0;
    int notes_sh = 0; /* the notes say "_after_server_hello" (tls-verdict.sh) */
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            notes_sh |= strstr(line, "_after_server_hello when") != NULL;
            continue;
        }
        if (line[0] == '\n')
            continue;
        unsigned port;
        char sni[128], offered[32], proto[32], said[32], cls[32], mech[32], cipher[64],
            note[128] = "-";
        if (sscanf(line, "%u %127s %31s %31s %31s %31s %31s %63s %127s", &port, sni, offered,
                   proto, said, cls, mech, cipher, note) < 7)
            continue;
        lines++;
        size_t k = 0;
        while (k < g->n && g->rows[k].client_port != port)
            k++;
        if (k == g->n) {
            printf("%s: client port %u: no tls_hs row (expected %s)\n", name, port, cls);
            bad++;
            continue;
        }
        const sat_tls_hs *h = &g->rows[k];
        int ok = !strcmp(outcome_word(h->outcome), cls) &&
                 !strcmp(mech_word(h->resumed_by), mech) && !strcmp(g->sni[k], sni);
        if (ok && notes_sh && !strcmp(cls, "failed")) {
            size_t nl = strlen(note), sl = strlen("_after_server_hello");
            int after = nl > sl && !strcmp(note + nl - sl, "_after_server_hello");
            if (after != (h->server_hello_ts != 0)) {
                printf("%s: client port %u: failed %s the ServerHello, the client says %s\n",
                       name, port, h->server_hello_ts ? "after" : "before", note);
                bad++;
            }
        }
        if (!ok) {
            printf("%s: client port %u: got %s %s sni=%s, the client said %s %s sni=%s\n", name,
                   port, outcome_word(h->outcome), mech_word(h->resumed_by), g->sni[k], cls,
                   mech, sni);
            bad++;
        }
    }
    fclose(f);
    printf("%s: %zu connections, %zu rows, %zu disagree\n", name, lines, g->n, bad);
    CHECK(lines > 0);
    CHECK_EQ_INT(g->n, lines); /* one row per connection, no more */
    CHECK_EQ_INT(bad, 0);
    free(g);
}

typedef struct corpus_case {
    const char *file;
    unsigned conns, full, resumed, no_sh;
    unsigned after_sh;  /* failed after a ServerHello */
    int optional;       /* 1: checked when the corpus holds it */
    int all_hellos;     /* 1: every row must have its ClientHello read */
} corpus_case;

static const corpus_case corpus_cases[] = {
    {"zeek/google-cert-repeat.pcap", 8, 8, 0, 0},
    {"zeek/ecdhe.pcap", 1, 1, 0, 0},
    {"zeek/ssl.v3.pcap", 3, 3, 0, 0},
    {"zeek/tls13_psk_succesfull.pcap", 1, 0, 1, 0},
    {"zeek/hrr.pcap", 1, 1, 0, 0},
    {"zeek/tls-1.2-handshake-failure.pcap", 1, 0, 0, 1},
    {"zeek/smtp-starttls.pcap", 1, 1, 0, 0}, /* TLS after SMTP STARTTLS, port 25 */
    {"wireshark/rsasnakeoil2.pcap", 2, 1, 1, 0},
    {"wireshark/tls13-rfc8446.pcap", 2, 1, 1, 0},
    {"wireshark/dhe1.pcapng", 1, 0, 1, 0},
    {"wireshark/tls-renegotiation.pcap", 1, 1, 0, 0},
    {"wireshark/tls12-chacha20poly1305.pcap", 7, 7, 0, 0},
    /* Zeek's expected ssl.log: TLSv12, last_alert handshake_failure, established F, the
     * server having asked for a client certificate */
    {"zeek/certificate-request-failed.pcap", 1, 0, 0, 0, 1, 1, 0},
    /* Zeek's ssl.log (scripts.base.protocols.ssl.tls13): TLSv13-draft16, unknown_ca,
     * established F; then one established */
    {"zeek/tls13draft16-ff52.a01-aborted.pcap", 2, 1, 0, 0, 1, 1, 0},
    /* the same log: no version chosen, protocol_version alerts (before any ServerHello) */
    {"zeek/tls13draft16-chrome55.0.2879.0-canary-aborted.pcap", 2, 0, 0, 2, 0, 1, 0},
    /* Wireshark's test: 100 connections whose ClientHello is cut into many segments, the
     * first holding its 0x16 alone (tshark reads the 1000 extensions): outcomes not
     * checked, every ClientHello must be read */
    {"wireshark/tls-fragmented-handshakes.pcap.gz", 100, 0, 0, 0, 0, 1, 1},
    {"wireshark/tls-fragmented-handshakes.pcap", 100, 0, 0, 0, 0, 1, 1},
};

static void check_corpus(const char *corpus)
{
    for (size_t i = 0; i < sizeof corpus_cases / sizeof corpus_cases[0]; i++) {
        const corpus_case *c = &corpus_cases[i];
        char path[1024];
        snprintf(path, sizeof path, "%s/tls/%s", corpus, c->file);
        if (c->optional && access(path, R_OK) != 0) {
            printf("SKIP (not in the corpus): %s\n", c->file);
            continue;
        }
        got *g = collect_rows(path);
        unsigned n[SAT_TLS_OUTCOME__COUNT] = {0}, after_sh = 0, hellos = 0;
        for (size_t k = 0; k < g->n; k++) {
            const sat_tls_hs *h = &g->rows[k];
            if (h->outcome < SAT_TLS_OUTCOME__COUNT)
                n[h->outcome]++;
            after_sh += h->outcome == SAT_TLS_FAILED && h->server_hello_ts;
            hellos += !(h->flags & SAT_TLSF_NO_CLIENT_HELLO);
        }
        unsigned no_sh = n[SAT_TLS_FAILED] - after_sh + n[SAT_TLS_INCOMPLETE];
        printf("%s: %zu conns (%u with their ClientHello), %u full, %u resumed, %u no "
               "ServerHello, %u failed after it (expected: %u %u %u %u %u)\n",
               c->file, g->n, hellos, n[SAT_TLS_FULL], n[SAT_TLS_RESUMED], no_sh, after_sh,
               c->conns, c->full, c->resumed, c->no_sh, c->after_sh);
        CHECK_EQ_INT(g->n, c->conns);
        if (c->all_hellos) {
            CHECK_EQ_INT(hellos, c->conns);
        } else {
            CHECK_EQ_INT(n[SAT_TLS_FULL], c->full);
            CHECK_EQ_INT(n[SAT_TLS_RESUMED], c->resumed);
            CHECK_EQ_INT(no_sh, c->no_sh);
            CHECK_EQ_INT(after_sh, c->after_sh);
        }
        free(g);
    }
    printf("skipped: zeek/dtls1_2.pcap, wireshark/snakeoil-dtls.pcap (DTLS over UDP: out of scope)\n");
}

int main(void)
{
    const char *src = getenv("SAT_SRC");
    if (!src) {
        printf("SKIP: SAT_SRC not set\n");
        return 77;
    }
    static const char *const names[] = {"tls12-full", "tls12-sessid", "tls12-ticket", "tls13",
                                        "tls-alerts", "tls12-frozen", "tls-storm", "tls-abort",
                                        "tls-split"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        check_fixture(src, names[i]);
    const char *corpus = getenv("SAT_CORPUS");
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/tls/README.md", corpus ? corpus : "");
    if (corpus && access(probe, R_OK) == 0)
        check_corpus(corpus);
    else
        printf("SKIP (corpus part): %s not found\n", probe);
    return CHECK_DONE();
}
