/*
 * test_split.c - rows split by server and local day (analyze/split.c): LDAP
 * rows by their server, wire rows by their source's server, days in each
 * server's UTC offset (a row at 23:30 UTC is the next day at +01:00), host
 * names and paths from the source rows, crashes and their frames on their
 * day, an undated crash of its own input on an "undated" day, the bound on days, and parts of
 * the rows (cut anywhere) merged in order giving each day's results of one
 * pass, byte for byte.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdlib.h>

#include "check.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

#define S 1000000000LL
#define DAY0 ((int64_t)1793491200) /* 2026-11-01T00:00:00Z */

typedef struct rowv {
    int table;
    union {
        sat_source src;
        sat_ldap_op op;
        sat_ldap_conn conn;
        sat_tls_hs hs;
        sat_crash crash;
        sat_frame frame;
    } u;
} rowv;

static rowv rows[4096];
static size_t nrows;

static void op_at(uint32_t server, int64_t t, int type, int64_t etime_us)
{
    rowv *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    r->table = SAT_TABLE_LDAP_OP;
    r->u.op.ts_ns = t * S;
    r->u.op.result_ts_ns = t * S + etime_us * 1000;
    r->u.op.server = server;
    r->u.op.conn = 1 + (int64_t)(nrows % 7);
    r->u.op.op = (int64_t)nrows;
    r->u.op.internal_op = SAT_ABSENT;
    r->u.op.type = (uint8_t)type;
    r->u.op.scope = SAT_SCOPE_NONE;
    r->u.op.err = 0;
    r->u.op.tag = SAT_ABSENT;
    r->u.op.nentries = SAT_ABSENT;
    r->u.op.etime = etime_us * 1000;
    r->u.op.wtime = r->u.op.optime = SAT_ABSENT;
    r->u.op.wbusy = r->u.op.wbusy_max = r->u.op.wqdepth = SAT_ABSENT;
    r->u.op.target_op = SAT_ABSENT;
    r->u.op.client_ip = sat_str_cstr(server ? "10.0.0.2" : "10.0.0.1");
    r->u.op.bind_dn = sat_str_cstr("");
}

static void source(uint32_t id, uint32_t server, const char *path, const char *host,
                   int64_t first, int64_t last, int32_t offset, const char *kind)
{
    rowv *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    r->table = SAT_TABLE_SOURCE;
    r->u.src.id = id;
    r->u.src.server = server;
    r->u.src.path = sat_str_cstr(path);
    r->u.src.kind = sat_str_cstr(kind);
    r->u.src.format = sat_str_cstr("389-text");
    r->u.src.compression = sat_str_cstr("none");
    r->u.src.server_name = host ? sat_str_cstr(host) : SAT_STR_NONE;
    r->u.src.server_version = SAT_STR_NONE;
    r->u.src.first_ts = first * S;
    r->u.src.last_ts = last * S;
    r->u.src.utc_offset_s = offset;
}

static void make_rows(void)
{
    nrows = 0;
    /* server 0 at +01:00: 2026-11-01 09:00 local .. 2026-11-03 00:30 local */
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < 50; i++)
            op_at(0, DAY0 + d * 86400 + 8 * 3600 + i * 60, i % 3 ? SAT_OP_SRCH : SAT_OP_BIND,
                  100 + 10 * i + 1000 * d);
    for (int i = 0; i < 10; i++) /* 23:30-23:39 UTC on 11-02: 00:30 local on 11-03 */
        op_at(0, DAY0 + 86400 + 23 * 3600 + 1800 + i * 60, SAT_OP_SRCH, 5000);
    /* the crash of server 0 on 11-02 at 12:00 local, its frames first */
    for (int k = 0; k < 3; k++) {
        rowv *r = &rows[nrows++];
        memset(r, 0, sizeof *r);
        r->table = SAT_TABLE_FRAME;
        r->u.frame.source = 0;
        r->u.frame.crash = 1;
        r->u.frame.depth = k;
        r->u.frame.pc = 0x1000 + k;
        r->u.frame.offset = SAT_ABSENT;
        r->u.frame.fn_offset = SAT_ABSENT;
        r->u.frame.line = SAT_ABSENT;
        r->u.frame.function = sat_str_cstr(k ? "main" : "crash_here");
        r->u.frame.module = sat_str_cstr("ns-slapd");
    }
    rowv *c = &rows[nrows++];
    memset(c, 0, sizeof *c);
    c->table = SAT_TABLE_CRASH;
    c->u.crash.ts = (DAY0 + 86400 + 11 * 3600) * S;
    c->u.crash.source = 0;
    c->u.crash.crash = 1;
    c->u.crash.pid = 42;
    c->u.crash.signal = 11;
    c->u.crash.si_code = c->u.crash.uid = c->u.crash.threads = c->u.crash.crashing_tid = SAT_ABSENT;
    c->u.crash.orig_signal = SAT_ABSENT;
    c->u.crash.fault_addr = c->u.crash.orig_fault_addr = SAT_ABSENT;
    c->u.crash.origin = SAT_CRASH_TEXT_GDB;
    c->u.crash.exe = sat_str_cstr("/usr/sbin/ns-slapd");
    c->u.crash.fingerprint = sat_str_cstr("fp:0123456789abcdef");
    c->u.crash.signature = sat_str_cstr("ns-slapd:crash_here|ns-slapd:main");
    source(0, 0, "/logs/a/access", "ldap-a.example.com", DAY0 + 8 * 3600,
           DAY0 + 86400 + 23 * 3600 + 1800 + 540, 3600, "log");
    /* server 1 at -05:00, no host name: 2026-11-01 22:00 local = 11-02 03:00 UTC */
    for (int i = 0; i < 30; i++)
        op_at(1, DAY0 + 86400 + 3 * 3600 + i * 60, SAT_OP_SRCH, 300);
    source(1, 1, "/logs/b/access.1", NULL, DAY0 + 86400 + 3 * 3600, DAY0 + 86400 + 3 * 3600 + 1740,
           -18000, "log");
    /* a capture (source 2, server 2): its TLS handshakes, before its source row */
    for (int i = 0; i < 5; i++) {
        rowv *r = &rows[nrows++];
        memset(r, 0, sizeof *r);
        r->table = SAT_TABLE_TLS_HS;
        r->u.hs.ts = (DAY0 + 2 * 86400 + 600 + i) * S;
        r->u.hs.source = 2;
        r->u.hs.flow = (uint32_t)i + 1;
        r->u.hs.client_ip = sat_str_cstr("10.9.9.9");
        r->u.hs.server_ip = sat_str_cstr("10.0.0.5");
        r->u.hs.outcome = SAT_TLS_FULL;
        r->u.hs.version = 0x0302; /* TLS 1.1 */
        r->u.hs.alert = SAT_ABSENT;
        r->u.hs.duration = SAT_ABSENT;
    }
    source(2, 2, "/caps/tls.pcap", NULL, DAY0 + 2 * 86400 + 600, DAY0 + 2 * 86400 + 604, 0, "pcap");
    /* an undated crash of a crash text (source 3, server 3) */
    c = &rows[nrows++];
    memset(c, 0, sizeof *c);
    c->table = SAT_TABLE_CRASH;
    c->u.crash.source = 3;
    c->u.crash.crash = 1;
    c->u.crash.signal = 6;
    c->u.crash.pid = c->u.crash.si_code = c->u.crash.uid = c->u.crash.threads = SAT_ABSENT;
    c->u.crash.crashing_tid = c->u.crash.orig_signal = SAT_ABSENT;
    c->u.crash.fault_addr = c->u.crash.orig_fault_addr = SAT_ABSENT;
    c->u.crash.origin = SAT_CRASH_TEXT_GDB;
    source(3, 3, "/logs/gdb.txt", NULL, 0, 0, 0, "log");
}

static const sat_analyzer *etime_a, *crashes_a, *hs_a;
static sat_multi_member members[3];
static sat_multi_opts mo = {members, 3};

static sat_split *fed(size_t from, size_t to, size_t max_days)
{
    sat_split_opts so = {&mo, max_days};
    sat_split *s = sat_split_create(&so);
    CHECK(s != NULL);
    sat_event_sink k = sat_split_sink(s);
    for (size_t i = from; i < to; i++)
        CHECK(sat_sink_emit(&k, rows[i].table, &rows[i].u) >= 0);
    return s;
}

static char *json_of(sat_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(r && sat_result_json(r, f, &d) >= 0);
    fclose(f);
    return buf;
}

/* Every day's results as one text: name, day, rows, then each member's JSON. */
static char *days_text(const sat_split *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (size_t i = 0; i < sat_split_days(s); i++) {
        const sat_split_day *d = sat_split_day_at(s, i);
        char day[16];
        sat_split_day_name(d->day, day, sizeof day);
        fprintf(f, "server %u %s %s %s rows %llu\n", d->server, d->host ? d->host : "-",
                d->path ? d->path : "-", day, (unsigned long long)d->rows);
        sat_result *res[3] = {NULL};
        CHECK(sat_multi_results(d->set, res) >= 0);
        for (int m = 0; m < 3; m++) {
            char *j = json_of(res[m]);
            fputs(j ? j : "", f);
            free(j);
            sat_result_free(res[m]);
        }
    }
    fclose(f);
    return buf;
}

static const sat_value *root_val(const sat_split_day *d, int m, const char *key, sat_result **keep)
{
    sat_result *res[3] = {NULL};
    CHECK(sat_multi_results(d->set, res) >= 0);
    for (int i = 0; i < 3; i++)
        if (i != m)
            sat_result_free(res[i]);
    *keep = res[m];
    return sat_rnode_val(sat_result_root(res[m]), key);
}

static void test_days(void)
{
    sat_split *s = fed(0, nrows, 0);
    CHECK(sat_split_finish(s) >= 0);
    CHECK_EQ_INT(sat_split_days(s), 6);
    const char *want[][3] = {{"0", "2026-11-01", "ldap-a.example.com"},
                             {"0", "2026-11-02", "ldap-a.example.com"},
                             {"0", "2026-11-03", "ldap-a.example.com"},
                             {"1", "2026-11-01", "-"},
                             {"2", "2026-11-03", "-"},
                             {"3", "undated", "-"}};
    for (size_t i = 0; i < 6 && i < sat_split_days(s); i++) {
        const sat_split_day *d = sat_split_day_at(s, i);
        char day[16];
        sat_split_day_name(d->day, day, sizeof day);
        CHECK_EQ_INT(d->server, atoi(want[i][0]));
        CHECK_EQ_STR(day, want[i][1]);
        CHECK_EQ_STR(d->host ? d->host : "-", want[i][2]);
    }
    /* server 0's days: 50, 50 (+1 crash, 3 frames), 10 operations; local midnight at +01:00 */
    const sat_split_day *d1 = sat_split_day_at(s, 0), *d2 = sat_split_day_at(s, 1),
                        *d3 = sat_split_day_at(s, 2);
    CHECK_EQ_INT(d1->rows, 50);
    CHECK_EQ_INT(d3->rows, 10);
    CHECK_EQ_INT(d1->start_ts, (DAY0 - 3600) * S);
    CHECK_EQ_INT(d1->utc_offset_s, 3600);
    CHECK_EQ_STR(d1->path, "/logs/a/access");
    sat_result *keep;
    const sat_value *v = root_val(d2, 0, "operations", &keep);
    CHECK(v && v->v.u == 50);
    sat_result_free(keep);
    v = root_val(d3, 0, "operations", &keep);
    CHECK(v && v->v.u == 10);
    sat_result_free(keep);
    v = root_val(d2, 1, "count", &keep);
    CHECK(v && v->v.u == 1); /* the crash on its day, with its frames */
    sat_result_free(keep);
    v = root_val(d1, 1, "count", &keep);
    CHECK(v && v->v.u == 0);
    sat_result_free(keep);
    /* server 1 at -05:00: 03:00 UTC on 11-02 is 22:00 on 11-01 */
    const sat_split_day *b = sat_split_day_at(s, 3);
    CHECK_EQ_STR(b->path, "/logs/b/access.1");
    CHECK(b->host == NULL);
    CHECK_EQ_INT(b->utc_offset_s, -18000);
    CHECK_EQ_INT(b->rows, 30);
    /* the capture's handshakes on its own server's day */
    const sat_split_day *c = sat_split_day_at(s, 4);
    CHECK_EQ_INT(c->rows, 5);
    v = root_val(c, 2, "full", &keep);
    CHECK(v && v->v.u == 5);
    sat_result_free(keep);
    CHECK_EQ_STR(c->path, "/caps/tls.pcap");
    /* the crash text's undated crash: a day of its own, "undated" */
    const sat_split_day *u = sat_split_day_at(s, 5);
    CHECK(u->day == SAT_SPLIT_UNDATED);
    CHECK_EQ_INT(u->start_ts, 0);
    v = root_val(u, 1, "count", &keep);
    CHECK(v && v->v.u == 1);
    sat_result_free(keep);
    uint64_t dd, dr;
    sat_split_dropped(s, &dd, &dr);
    CHECK_EQ_INT(dd, 0);
    CHECK_EQ_INT(dr, 0);
    sat_split_free(s);
}

/* Parts cut anywhere, merged in order, give one pass's days. */
static void test_merge(void)
{
    sat_split *one = fed(0, nrows, 0);
    CHECK(sat_split_finish(one) >= 0);
    char *want = days_text(one);
    const size_t cuts[] = {1, 37, 100, 104, 111, 140, 150};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        sat_split *a = fed(0, cuts[c], 0), *b = fed(cuts[c], nrows, 0);
        CHECK(sat_split_merge(a, b) >= 0);
        sat_split_free(b);
        CHECK(sat_split_finish(a) >= 0);
        char *got = days_text(a);
        CHECK(want && got && strcmp(want, got) == 0);
        if (want && got && strcmp(want, got) != 0)
            fprintf(stderr, "cut at %zu differs\n", cuts[c]);
        free(got);
        sat_split_free(a);
    }
    free(want);
    sat_split_free(one);
}

/* The bound: each server's last max_days days; the others counted. */
static void test_bound(void)
{
    size_t saved = nrows;
    nrows = 0;
    for (int d = 0; d < 6; d++)
        for (int i = 0; i < 4; i++)
            op_at(0, DAY0 + d * 86400 + 12 * 3600 + i, SAT_OP_SRCH, 200);
    source(0, 0, "/logs/a/access", "a", DAY0 + 12 * 3600, DAY0 + 5 * 86400 + 12 * 3600 + 3, 0,
           "log");
    sat_split *s = fed(0, nrows, 2);
    CHECK(sat_split_finish(s) >= 0);
    CHECK_EQ_INT(sat_split_days(s), 2);
    char day[16];
    sat_split_day_name(sat_split_day_at(s, 0)->day, day, sizeof day);
    CHECK_EQ_STR(day, "2026-11-05");
    uint64_t dd, dr;
    sat_split_dropped(s, &dd, &dr);
    CHECK_EQ_INT(dr, 16); /* four days of four operations */
    CHECK(dd >= 1);       /* the day past the bound at finish (older ones went while reading) */
    sat_split_free(s);
    nrows = saved;
    make_rows();
}

int main(void)
{
    etime_a = sat_analyzer_find("etime");
    crashes_a = sat_analyzer_find("crashes");
    hs_a = sat_analyzer_find("handshakes");
    CHECK(etime_a && crashes_a && hs_a);
    members[0] = (sat_multi_member){etime_a, NULL};
    members[1] = (sat_multi_member){crashes_a, NULL};
    members[2] = (sat_multi_member){hs_a, NULL};
    make_rows();
    test_days();
    test_merge();
    test_bound();
    return CHECK_DONE();
}
