/*
 * test_dur_bound.c - the one plausible bound of a duration (event.h
 * SAT_DUR_PLAUSIBLE_MAX_NS, a week): every parser that reads one (389 text and
 * JSON, OpenLDAP, an nginx format) rejects a line whose etime, wtime, optime,
 * qtime, response or upstream time is past it, with its file's line number
 * and a reason naming the field and its value, hands on no row with such a
 * value, and analyses the rest of the input; a week exactly is still
 * plausible.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "satscope/collect.h"
#include "satscope/parse.h"

#define S 1000000000LL

/* ---- parsers: the bound ------------------------------------------------------------ */
typedef struct got {
    size_t ops, http, rejects;
    char reason[8][128];
    uint64_t line[8];
    int64_t max_dur; /* the largest duration of any row handed on */
} got;

static void see_dur(got *g, int64_t v)
{
    if (v > g->max_dur)
        g->max_dur = v;
}

static int got_row(void *ctx, int table, const void *row)
{
    got *g = ctx;
    if (table == SAT_TABLE_REJECT) {
        const sat_reject *r = row;
        if (g->rejects < 8) {
            snprintf(g->reason[g->rejects], sizeof g->reason[0], "%.*s", (int)r->reason.len,
                     r->reason.ptr ? r->reason.ptr : "");
            g->line[g->rejects] = r->line_no;
        }
        g->rejects++;
    } else if (table == SAT_TABLE_LDAP_OP) {
        const sat_ldap_op *o = row;
        g->ops++;
        see_dur(g, o->etime);
        see_dur(g, o->wtime);
        see_dur(g, o->optime);
    } else if (table == SAT_TABLE_HTTP_REQ) {
        const sat_http_req *h = row;
        g->http++;
        see_dur(g, h->response_time);
        see_dur(g, h->upstream_time);
    }
    return SAT_OK;
}

/* Collects `text` written to a temporary file, with log_format (NULL: the
 * format is sniffed), through the real collection. */
static int collect_text(got *g, const char *text, const char *log_format)
{
    memset(g, 0, sizeof *g);
    g->max_dur = -1;
    char path[] = "/tmp/sat_arith_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    const char *paths[1] = {path};
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.log_format = log_format;
    o.reject_sample_max = 100;
    sat_event_sink sink = {g, SAT_TABLES_ALL, got_row};
    sat_collect_stats st;
    sat_diag d;
    memset(&d, 0, sizeof d);
    int rc = sat_collect_run(paths, 1, &o, &sink, &st, &d);
    unlink(path);
    return rc;
}

#define BOUND " is past the plausible bound of 7 d"

static void test_389text(void)
{
    static const char log[] =
        "[09/Jun/2025:14:20:00.100000000 +0000] conn=1 fd=64 slot=64 connection from 10.0.0.1 to 10.0.0.2\n"
        "[09/Jun/2025:14:20:00.200000000 +0000] conn=1 op=0 SRCH base=\"dc=x\" scope=2 filter=\"(uid=a)\" attrs=ALL\n"
        "[09/Jun/2025:14:20:00.300000000 +0000] conn=1 op=0 RESULT err=0 tag=101 nentries=1 wtime=6000000000 optime=0.000100 etime=0.000200\n"
        "[09/Jun/2025:14:20:00.400000000 +0000] conn=1 op=1 SRCH base=\"dc=x\" scope=2 filter=\"(uid=b)\" attrs=ALL\n"
        "[09/Jun/2025:14:20:00.500000000 +0000] conn=1 op=1 RESULT err=0 tag=101 nentries=1 wtime=0.000100 optime=604800.5 etime=0.000200\n"
        "[09/Jun/2025:14:20:00.600000000 +0000] conn=1 op=2 SRCH base=\"dc=x\" scope=2 filter=\"(uid=c)\" attrs=ALL\n"
        "[09/Jun/2025:14:20:00.700000000 +0000] conn=1 op=2 RESULT err=0 tag=101 nentries=1 wtime=0.000100 optime=0.000100 etime=8999999999\n"
        "[09/Jun/2025:14:20:00.800000000 +0000] conn=1 op=3 SRCH base=\"dc=x\" scope=2 filter=\"(uid=d)\" attrs=ALL\n"
        "[09/Jun/2025:14:20:00.900000000 +0000] conn=1 op=3 RESULT err=0 tag=101 nentries=1 wtime=604799.9999 optime=0.000100 etime=604800\n"
        "[09/Jun/2025:14:20:01.000000000 +0000] conn=1 op=4 ABANDON targetop=3 msgid=4 nentries=0 etime=7000000 wtime=0.1\n"
        "[09/Jun/2025:14:20:01.100000000 +0000] conn=1 op=5 UNBIND\n";
    got g;
    CHECK_EQ_INT(collect_text(&g, log, NULL), SAT_OK);
    CHECK_EQ_INT(g.rejects, 4);
    CHECK_EQ_STR(g.reason[0], "wtime 6000000000 s" BOUND);
    CHECK_EQ_INT(g.line[0], 3);
    CHECK_EQ_STR(g.reason[1], "optime 604800.5 s" BOUND);
    CHECK_EQ_INT(g.line[1], 5);
    CHECK_EQ_STR(g.reason[2], "etime 8999999999 s" BOUND);
    CHECK_EQ_INT(g.line[2], 7);
    CHECK_EQ_STR(g.reason[3], "etime 7000000 s" BOUND);
    CHECK_EQ_INT(g.line[3], 10);
    /* the rest was analysed: a week exactly is still plausible */
    CHECK(g.ops >= 4);
    CHECK_EQ_INT(g.max_dur, 604800 * S);
}

static void test_389json(void)
{
    static const char log[] =
        "{\"local_time\":\"2025-06-09T14:20:00.100000000 +0000\",\"operation\":\"RESULT\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":0,\"tag\":101,\"err\":0,\"nentries\":0,\"wtime\":\"0.000130401\",\"optime\":\"0.078189513\",\"etime\":\"0.078315869\"}\n"
        "{\"local_time\":\"2025-06-09T14:20:00.200000000 +0000\",\"operation\":\"RESULT\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":1,\"tag\":101,\"err\":0,\"nentries\":0,\"wtime\":\"6000000000\",\"optime\":\"0.078189513\",\"etime\":\"0.078315869\"}\n"
        "{\"local_time\":\"2025-06-09T14:20:00.300000000 +0000\",\"operation\":\"RESULT\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":2,\"tag\":101,\"err\":0,\"nentries\":0,\"wtime\":\"0.1\",\"optime\":\"0.2\",\"etime\":700000.25}\n"
        "{\"local_time\":\"2025-06-09T14:20:00.400000000 +0000\",\"operation\":\"RESULT\",\"key\":\"1-1\",\"conn_id\":1,\"op_id\":3,\"tag\":101,\"err\":0,\"nentries\":0,\"wtime\":\"0.1\",\"optime\":\"0.2\",\"etime\":\"0.3\"}\n";
    got g;
    CHECK_EQ_INT(collect_text(&g, log, NULL), SAT_OK);
    CHECK_EQ_INT(g.rejects, 2);
    CHECK_EQ_STR(g.reason[0], "wtime 6000000000 s" BOUND);
    CHECK_EQ_INT(g.line[0], 2);
    CHECK_EQ_STR(g.reason[1], "etime 700000.25 s" BOUND);
    CHECK_EQ_INT(g.line[1], 3);
    CHECK(g.max_dur >= 0 && g.max_dur < S);
}

static void test_openldap(void)
{
    static const char log[] =
        "6846ee50.00000000 0x7fecc37fe6c0 conn=1000 fd=11 ACCEPT from IP=127.0.0.1:45214 (IP=127.0.0.1:389)\n"
        "6846ee50.00000001 0x7fecc37fe6c0 conn=1000 op=0 BIND dn=\"\" method=128\n"
        "6846ee50.00000002 0x7fecc37fe6c0 conn=1000 op=0 RESULT tag=97 err=0 qtime=6000000000 etime=6000000000.000189 text=\n"
        "6846ee50.00000003 0x7fecc37fe6c0 conn=1000 op=1 SRCH base=\"\" scope=0 deref=0 filter=\"(objectClass=*)\"\n"
        "6846ee50.00000004 0x7fecc37fe6c0 conn=1000 op=1 SEARCH RESULT tag=101 err=0 qtime=0.000062 etime=604800.000181 nentries=1 text=\n"
        "6846ee50.00000005 0x7fecc37fe6c0 conn=1000 op=2 SRCH base=\"\" scope=0 deref=0 filter=\"(objectClass=*)\"\n"
        "6846ee50.00000006 0x7fecc37fe6c0 conn=1000 op=2 SEARCH RESULT tag=101 err=0 qtime=0.000062 etime=0.000181 nentries=1 text=\n"
        "6846ee50.00000007 0x7fecc37fe6c0 conn=1000 fd=11 closed\n";
    got g;
    CHECK_EQ_INT(collect_text(&g, log, NULL), SAT_OK);
    CHECK_EQ_INT(g.rejects, 2);
    CHECK_EQ_STR(g.reason[0], "qtime 6000000000 s" BOUND);
    CHECK_EQ_INT(g.line[0], 3);
    CHECK_EQ_STR(g.reason[1], "etime 604800.000181 s" BOUND);
    CHECK_EQ_INT(g.line[1], 5);
    CHECK(g.ops >= 1);
    CHECK(g.max_dur >= 0 && g.max_dur < S);
}

static void test_http(void)
{
    static const char fmt[] = "$remote_addr $connection $connection_requests $msec "
                              "$time_iso8601 \"$request\" $status $body_bytes_sent "
                              "$request_time $upstream_response_time $ssl_protocol "
                              "$ssl_session_reused";
    static const char log[] =
        "127.0.0.1 2 1 1749478800.100 2025-06-09T14:20:00+00:00 \"GET /a HTTP/1.1\" 200 512 0.010 - TLSv1.2 .\n"
        "127.0.0.1 2 2 1749478800.200 2025-06-09T14:20:00+00:00 \"GET /b HTTP/1.1\" 200 512 6000000000.000 - TLSv1.2 .\n"
        "127.0.0.1 2 3 1749478800.300 2025-06-09T14:20:00+00:00 \"GET /c HTTP/1.1\" 200 512 0.010 400000.000, 300000.000 TLSv1.2 .\n"
        "127.0.0.1 2 4 1749478800.400 2025-06-09T14:20:00+00:00 \"GET /d HTTP/1.1\" 200 512 0.010 0.005 TLSv1.2 .\n";
    got g;
    CHECK_EQ_INT(collect_text(&g, log, fmt), SAT_OK);
    CHECK_EQ_INT(g.rejects, 2);
    CHECK_EQ_STR(g.reason[0], "response time 6000000000 s" BOUND);
    CHECK_EQ_INT(g.line[0], 2);
    CHECK_EQ_STR(g.reason[1], "upstream time 700000 s" BOUND);
    CHECK_EQ_INT(g.line[1], 3);
    CHECK_EQ_INT(g.http, 2);
    CHECK(g.max_dur >= 0 && g.max_dur < S);
}

int main(void)
{
    test_389text();
    test_389json();
    test_openldap();
    test_http();
    return CHECK_DONE();
}
