/*
 * test_capture.c - sat_collect_run on the loopback capture of fixtures/wire
 * (made by fixtures/wire/make-fixture.sh with tcpdump, openssl s_server and
 * s_client): the capture is told by content, plain and gzip-compressed; its
 * source row and its two tcp_conn rows (a TLS connection the server closed
 * first, a connection refused with a RST) have the fates the tools produced.
 */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "satscope/collect.h"

static sat_tcp_conn conns[8];
static int nconns, nsources;
static sat_source src;
static char src_kind[16], src_format[16];

static int on_source(void *ctx, const sat_source *s)
{
    (void)ctx;
    src = *s;
    snprintf(src_kind, sizeof src_kind, "%.*s", (int)s->kind.len, s->kind.ptr);
    snprintf(src_format, sizeof src_format, "%.*s", (int)s->format.len, s->format.ptr);
    nsources++;
    return SAT_OK;
}
static int on_tcp(void *ctx, const sat_tcp_conn *c)
{
    (void)ctx;
    if (nconns < 8)
        conns[nconns] = *c;
    nconns++;
    return SAT_OK;
}

static int rows_source_tcp(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE:
        return on_source(ctx, (const sat_source *)row);
    case SAT_TABLE_TCP_CONN:
        return on_tcp(ctx, (const sat_tcp_conn *)row);
    default:
        return 0;
    }
}

static void run(const char *path, const char *compression)
{
    sat_event_sink sink = {NULL, SAT_TABLE_BIT(SAT_TABLE_SOURCE) |
                                 SAT_TABLE_BIT(SAT_TABLE_TCP_CONN), rows_source_tcp};
    sat_collect_stats st;
    sat_diag d;
    memset(&d, 0, sizeof d);
    nconns = nsources = 0;
    const char *paths[] = {path};
    int rc = sat_collect_run(paths, 1, NULL, &sink, &st, &d);
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK_EQ_INT(st.captures, 1);
    CHECK_EQ_INT(st.packets, 18);
    CHECK_EQ_INT(st.flows, 2);
    CHECK_EQ_INT(nsources, 1);
    CHECK_EQ_STR(src_kind, "pcap");
    CHECK_EQ_STR(src_format, "pcap");
    CHECK_EQ_INT(src.lines, 18);
    CHECK_EQ_INT(src.rejects, 0);
    CHECK_EQ_SSTR(src.compression, compression);
    CHECK_EQ_INT(nconns, 2);
    const sat_tcp_conn *tls = &conns[0], *refused = &conns[1];
    CHECK_EQ_INT(tls->end, SAT_TCP_END_FIN_SERVER);
    CHECK_EQ_INT(tls->server_port, 8443);
    CHECK_EQ_INT(tls->client_port, 58810);
    CHECK_EQ_INT(tls->bytes_c2s, 429);
    CHECK_EQ_INT(tls->bytes_s2c, 1871);
    CHECK_EQ_INT(tls->pkts_c2s, 8);
    CHECK_EQ_INT(tls->pkts_s2c, 7); /* the ACK of the last FIN comes after the row */
    CHECK_EQ_INT(tls->rtt, 51000);
    CHECK_EQ_INT(tls->retrans, 0);
    CHECK(tls->flags & SAT_TCPF_SYNACK);
    CHECK_EQ_INT(refused->end, SAT_TCP_END_RST_SERVER);
    CHECK_EQ_INT(refused->server_port, 8444);
    CHECK_EQ_INT(refused->rtt, SAT_ABSENT);
    CHECK(!(refused->flags & SAT_TCPF_SYNACK));
    CHECK_EQ_INT(refused->flow, 2);
}

int main(void)
{
    const char *srcdir = getenv("SAT_SRC");
    if (!srcdir) {
        printf("SAT_SRC not set: skipped\n");
        return 77;
    }
    char path[1024], gz[1100], cmd[2400];
    snprintf(path, sizeof path, "%s/fixtures/wire/lo-tls.pcap", srcdir);
    run(path, "none");
    snprintf(gz, sizeof gz, "/tmp/test_capture_%d.pcap.gz", (int)getpid());
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", path, gz);
    if (system(cmd) == 0) {
        run(gz, "gzip");
        unlink(gz);
    }
    return CHECK_DONE();
}
