/*
 * trace_rows.h - what the .sat trace tests (test_trace_*.c) share: a
 * deterministic row generator for every table with edge values sprinkled in,
 * a column-by-column row comparison (whole or projected), a sink that checks
 * every row read against the generator, a writer of such traces, and the
 * files around them (one temporary directory per test, whole-file read and
 * write, the offset of a block).
 */
#ifndef SAT_TEST_TRACE_ROWS_H
#define SAT_TEST_TRACE_ROWS_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "satscope/trace.h"

static char tmpdir[64];

static const char *const dns[] = {"uid=user1,ou=people,dc=example,dc=com",
                                  "", "cn=Directory Manager",
                                  "ou=groups,dc=example,dc=com",
                                  "uid=\xc3\xa9t\xc3\xa9,dc=example,dc=com"};
static const char *const ips[] = {"192.168.1.10", "local", "2001:db8::1", ""};

static inline sat_str pick(const char *const *pool, size_t n, uint64_t i, int absent_mod)
{
    if (absent_mod && i % (uint64_t)absent_mod == 0)
        return SAT_STR_NONE;
    return sat_str_cstr(pool[i % n]);
}

typedef union anyrow {
    sat_source s;
    sat_reject j;
    sat_ldap_op o;
    sat_ldap_conn c;
    sat_tcp_conn t;
    sat_tls_hs h;
    sat_crash k;
    sat_frame f;
    sat_http_req q;
} anyrow;

/* 1.3: strings of crash and frame rows (borrowed: they must outlive the rows) */
static const char *const hosts[] = {"ldap1.example.com", "", "db-\xc3\xa9.example"};
static const char *const fingerprints[] = {"fp:0123456789abcdef", "fp:ffffffffffffffff",
                                           "fp:0000000000000000"};
static const char *const modules[] = {"libc.so.6", "ns-slapd", "libslapd.so.0", "",
                                      "[vdso]"};
static const char *const functions[] = {"__pthread_kill_implementation", "main",
                                        ("std::vector<int, std::allocator<int> >::at("
                                         "unsigned long) const"),
                                        "slapi_ch_free", ""};

/* Row i of table t, deterministic, with edge values sprinkled in. */
static inline void gen_row(int t, uint64_t i, anyrow *r, int monotonic)
{
    memset(r, 0, sizeof *r);
    int64_t base = 1749367154214871640LL;
    switch (t) {
    case SAT_TABLE_SOURCE:
        r->s.id = (uint32_t)i;
        r->s.server = (uint32_t)(i * 7 + 0xFFFFFFF0u);
        r->s.path = pick(dns, 5, i, 3);
        r->s.kind = sat_str_cstr("log");
        r->s.format = sat_str_cstr(i % 2 ? "389-text" : "openldap");
        r->s.compression = sat_str_cstr("");
        r->s.server_name = SAT_STR_NONE;
        r->s.bytes = UINT64_MAX - i;
        r->s.lines = i * 1000;
        r->s.first_ts = i == 2 ? 0 : base + (int64_t)i;
        r->s.last_ts = base + (int64_t)i * 1000;
        r->s.utc_offset_s = -(int32_t)i * 3600;
        r->s.truncated = (uint8_t)(i % 2);
        break;
    case SAT_TABLE_REJECT:
        r->j.source = (uint32_t)(i % 3);
        r->j.line_no = i + 1;
        r->j.reason = sat_str_cstr(i % 2 ? "no timestamp" : "bad conn=");
        r->j.excerpt = pick(ips, 4, i, 5);
        break;
    case SAT_TABLE_LDAP_OP: {
        sat_ldap_op *o = &r->o;
        o->ts_ns = monotonic ? base + (int64_t)i * 1000000
                             : base + (int64_t)i * 1000003 - (i % 7 == 3 ? 5000000 : 0);
        if (!monotonic && i == 10)
            o->ts_ns = INT64_MAX;
        if (!monotonic && i == 11)
            o->ts_ns = INT64_MIN;
        o->result_ts_ns = i % 9 == 0 ? 0 : (int64_t)((uint64_t)o->ts_ns + 150000 + (i % 13) * 1000);
        o->server = (uint32_t)(i % 2);
        o->conn_epoch = 0;
        o->conn = i == 12 ? INT64_MAX : i == 13 ? INT64_MIN : 149981 + (int64_t)(i / 4);
        o->op = i % 11 == 0 ? SAT_ABSENT : (int64_t)(i % 4);
        o->internal_op = i % 5 == 0 ? 1 : SAT_ABSENT;
        o->internal_depth = (uint8_t)(i % 5 == 0);
        o->type = (uint8_t)(i % SAT_OP__COUNT);
        o->scope = o->type == SAT_OP_SRCH ? (uint8_t)(i % 3) : SAT_SCOPE_NONE;
        /* 1.1: flags past bit 7 and the ENTRY / REFERRAL line counts */
        o->flags = (uint16_t)(i % 17 == 0 ? SAT_OPF_UNFINISHED
                              : i % 7 == 0 ? SAT_OPF_VLV | SAT_OPF_SORT | SAT_OPF_BIND_V3
                                           : 0);
        o->entry_lines = (uint32_t)(i % 13 == 0 ? i : 0);
        o->referral_lines = (uint32_t)(i % 29 == 0 ? 1 : 0);
        o->notes = (uint16_t)(i % 23 == 0 ? SAT_NOTE_U | SAT_NOTE_A : 0);
        o->err = i % 9 == 0 ? SAT_ABSENT : (int32_t)(i % 50 == 0 ? 32 : 0);
        o->tag = i % 9 == 0 ? SAT_ABSENT : 101;
        o->nentries = i % 3 ? 1 : SAT_ABSENT;
        o->etime = i % 9 == 0 ? SAT_ABSENT : 161916 + (int64_t)(i * 7919 % 5000);
        o->wtime = i == 14 ? INT64_MIN : 54666;
        o->optime = i == 14 ? INT64_MAX : 107709 + (int64_t)(i % 100);
        o->wbusy = SAT_ABSENT;
        o->wbusy_max = i % 4 == 0 ? INT32_MAX : SAT_ABSENT;
        o->wqdepth = i % 4 == 0 ? INT32_MIN : SAT_ABSENT;
        o->target_op = o->type == SAT_OP_ABANDON ? (int64_t)i : SAT_ABSENT;
        o->dn = pick(dns, 5, i, 4);
        o->filter = o->type == SAT_OP_SRCH ? sat_str_cstr("(objectClass=*)") : SAT_STR_NONE;
        o->filter_shape = o->filter;
        o->attrs = i % 6 == 0 ? sat_str_cstr("") : SAT_STR_NONE;
        o->method = o->type == SAT_OP_BIND ? sat_str_cstr("SIMPLE") : SAT_STR_NONE;
        o->bind_dn = pick(dns, 5, i / 4, 0);
        o->client_ip = pick(ips, 4, i / 4, 0);
        o->text = i % 50 == 0 ? sat_str_cstr("Broken pipe") : SAT_STR_NONE;
        break;
    }
    case SAT_TABLE_LDAP_CONN: {
        sat_ldap_conn *c = &r->c;
        c->open_ts = i % 5 == 4 ? 0 : base + (int64_t)i * 6000000000LL;
        c->close_ts = base + (int64_t)i * 6000000000LL + 285000000;
        c->conn = 149981 + (int64_t)i;
        c->fd = i % 6 == 0 ? SAT_ABSENT : 65;
        c->client_port = (uint16_t)(i % 3 ? 0 : 65535);
        c->listener = (uint8_t)(i % SAT_LISTENER__COUNT);
        c->close_code = (uint8_t)(i % SAT_CLOSE__COUNT);
        c->flags = (uint8_t)(i % 16);
        c->ops = (uint32_t)i * 4;
        c->client_ip = pick(ips, 4, i, 7);
        c->server_addr = sat_str_cstr("/data/run/slapd-localhost.socket");
        c->tls_version = i % 2 ? sat_str_cstr("TLS1.3") : SAT_STR_NONE;
        c->close_reason = sat_str_cstr("Cleanly Closed Connection");
        c->bind_dn = pick(dns, 5, i, 0);
        break;
    }
    case SAT_TABLE_TCP_CONN: { /* 1.2 */
        sat_tcp_conn *c = &r->t;
        c->syn_ts = base + (int64_t)i * 1000000;
        c->end_ts = i % 4 ? c->syn_ts + 5000000 : 0;
        c->source = (uint32_t)(i % 2);
        c->flow = (uint32_t)i + 1;
        c->client_ip = pick(ips, 4, i, 0);
        c->server_ip = sat_str_cstr("127.0.0.1");
        c->client_port = (uint16_t)(40000 + i);
        c->server_port = 636;
        c->end = (uint8_t)(i % SAT_TCP_END__COUNT);
        c->flags = (uint8_t)(i % 64);
        c->syn_retrans = (uint16_t)(i % 3 == 0 ? 65535 : i % 3);
        c->rtt = i % 5 == 0 ? SAT_ABSENT : 45000 + (int64_t)i;
        c->bytes_c2s = i == 3 ? UINT64_MAX : i * 517;
        c->bytes_s2c = i * 4096;
        c->pkts_c2s = (uint32_t)i;
        c->pkts_s2c = i == 4 ? UINT32_MAX : (uint32_t)i * 2;
        c->retrans = (uint32_t)(i % 7);
        c->out_of_order = (uint32_t)(i % 11);
        c->last_c2s_to_end = i % 6 == 0 ? SAT_ABSENT : 1000 * (int64_t)i;
        break;
    }
    case SAT_TABLE_TLS_HS: { /* 1.2 */
        sat_tls_hs *h = &r->h;
        h->ts = base + (int64_t)i * 2000000;
        h->server_hello_ts = i % 5 == 4 ? 0 : h->ts + 300000;
        h->done_ts = i % 5 >= 3 ? 0 : h->ts + 900000;
        h->source = 0;
        h->flow = (uint32_t)i + 1;
        h->client_ip = pick(ips, 4, i, 0);
        h->server_ip = sat_str_cstr("::1");
        h->client_port = (uint16_t)(50000 + i);
        h->server_port = 443;
        h->sni = i % 3 ? sat_str_cstr("ldap.example.com") : SAT_STR_NONE;
        h->offered_version = 0x0304;
        h->version = i % 5 == 4 ? 0 : i % 2 ? 0x0304 : 0x7e01;
        h->cipher = i % 5 == 4 ? 0 : 0x1302;
        h->outcome = (uint8_t)(1 + i % 4);
        h->resumed_by = h->outcome == SAT_TLS_RESUMED ? SAT_TLS_RESUME_PSK : 0;
        h->offered = (uint8_t)(i % 8);
        h->flags = (uint8_t)(i % 32);
        h->alert = h->outcome == SAT_TLS_FAILED ? 40 : SAT_ABSENT;
        h->duration = h->done_ts ? h->done_ts - h->ts : SAT_ABSENT;
        break;
    }
    case SAT_TABLE_CRASH: { /* 1.3 */
        sat_crash *k = &r->k;
        k->ts = monotonic ? base + (int64_t)i * 1000000000LL
                          : i % 6 == 5 ? 0 : base + (int64_t)i * 7000000000LL;
        k->source = (uint32_t)(i % 3);
        k->crash = i == 1 ? UINT32_MAX : (uint32_t)(i / 3 + 1);
        k->host = pick(hosts, 3, i, 4);
        k->pid = i % 5 == 0 ? SAT_ABSENT : i == 3 ? INT32_MAX : 1000 + (int32_t)i;
        k->uid = i % 7 == 0 ? SAT_ABSENT : (int32_t)(i % 2) * 389;
        k->exe = i % 8 == 7 ? SAT_STR_NONE : sat_str_cstr("/usr/sbin/ns-slapd");
        k->command = i % 3 ? sat_str_cstr("ns-slapd -D /etc/dirsrv/slapd-ex -i "
                                          "/run/dirsrv/slapd-ex.pid")
                           : sat_str_cstr("");
        k->build_id = i % 3 == 2 ? SAT_STR_NONE
                                 : sat_str_cstr("5e0e1d2c3b4a59687766554433221100ffeeddcc");
        k->signal = i % 4 == 3 ? SAT_ABSENT : i % 2 ? 11 : 6;
        k->si_code = i % 4 == 3 ? SAT_ABSENT : i % 2 ? 1 : -6;
        /* addresses by bit pattern: above 2^63, the extremes, absent */
        k->fault_addr = i == 2 ? INT64_MIN : i == 4 ? INT64_MAX
                      : i % 5 == 1 ? SAT_ABSENT
                      : (int64_t)(0xffffffffff600000ULL - i * 4096);
        k->flags = (uint16_t)(i % 64);
        k->orig_signal = k->flags & SAT_CRASHF_HANDLER ? 11 : SAT_ABSENT;
        k->orig_fault_addr = k->flags & SAT_CRASHF_HANDLER ? (int64_t)i * 8 : SAT_ABSENT;
        k->threads = (int32_t)(i % 9);
        k->crashing_tid = i % 4 == 2 ? SAT_ABSENT : 4000 + (int32_t)i;
        k->origin = (uint8_t)(1 + i % (SAT_CRASH_ORIGIN__COUNT - 1));
        k->time_source = (uint8_t)(i % SAT_CRASH_TIME__COUNT);
        k->sender_pid = i % 3 ? 0 : 1000 + (int32_t)i;
        k->sender_uid = i % 3 ? 0 : 389;
        k->arch = (uint8_t)(i % 4);
        k->fingerprint = pick(fingerprints, 3, i, 0);
        k->build_key = i % 2 ? sat_str_cstr("5e0e1d2c:+0x11be|+0x2f00") : SAT_STR_NONE;
        k->missing = i % 5 == 0   ? sat_str_cstr("debuginfo of libc.so.6")
                     : i % 5 == 1 ? sat_str_cstr("")
                                  : SAT_STR_NONE;
        break;
    }
    case SAT_TABLE_FRAME: { /* 1.3 */
        sat_frame *f = &r->f;
        f->source = (uint32_t)(i / 10 % 3);
        f->crash = (uint32_t)(i / 30 + 1);
        f->thread = i % 20 < 10 ? 0 : i == 15 ? INT32_MIN : 4242;
        f->depth = (int32_t)(i % 10);
        f->pc = i % 9 == 8 ? SAT_ABSENT : i == 7 ? INT64_MIN
              : (int64_t)(0x7f1c2a400000ULL + i * 0x11be);
        f->module = pick(modules, 5, i, 6);
        f->build_id = i % 4 == 3 ? SAT_STR_NONE : sat_str_cstr("00112233445566778899");
        f->offset = f->pc == SAT_ABSENT || i % 11 == 5 ? SAT_ABSENT : (int64_t)(i * 0x11be);
        f->function = pick(functions, 5, i, 7);
        f->fn_offset = f->function.ptr ? (int64_t)(i % 300) : SAT_ABSENT;
        f->file = i % 3 == 0 ? SAT_STR_NONE : sat_str_cstr("ldap/servers/slapd/daemon.c");
        f->line = i % 3 == 0 ? SAT_ABSENT : i == 4 ? INT32_MAX : 1000 + (int32_t)i;
        f->flags = (uint8_t)(i % 8);
        break;
    }
    case SAT_TABLE_HTTP_REQ: { /* 1.5 */
        static const char *const paths[] = {"/item/1234?x=1", "/", "/static/a.css", "",
                                            "/api/v1/users/0xdeadbeef"};
        static const char *const methods[] = {"GET", "POST", "PROPFIND"};
        sat_http_req *q = &r->q;
        q->ts = monotonic ? base + (int64_t)i * 1000000 : base + (int64_t)(i % 17) * 1000000;
        q->source = (uint32_t)(i % 2);
        q->server = (uint32_t)(i % 3);
        q->utc_offset_s = i % 4 == 0 ? -25200 : i % 4 == 1 ? 3600 : 0;
        q->status = i % 9 == 8 ? SAT_ABSENT : (int32_t)(200 + (i % 5) * 100 + i % 5);
        q->bytes = i % 7 == 6 ? SAT_ABSENT : i == 5 ? INT64_MAX : (int64_t)(i * 611);
        q->response_time = i % 6 == 5 ? SAT_ABSENT : (int64_t)(i * 1000000 + 7);
        q->upstream_time = i % 2 ? SAT_ABSENT : (int64_t)(i * 900000);
        q->conn = i % 5 == 4 ? SAT_ABSENT : (int64_t)(i / 3 + 1);
        q->conn_request = i % 5 == 4 ? SAT_ABSENT : (int64_t)(i % 3 + 1);
        q->client_port = (uint16_t)(i % 3 ? 0 : 40000 + i);
        q->tls_session = (uint8_t)(i % 3);
        q->flags = (uint8_t)(i % 32);
        q->client_ip = pick(ips, 4, i / 3, 0);
        q->method = pick(methods, 3, i, 5);
        q->path = pick(paths, 5, i, 6);
        q->path_template = i % 5 == 0 ? sat_str_cstr("/item/{n}") : pick(paths, 5, i + 1, 0);
        q->protocol = i % 4 == 3 ? SAT_STR_NONE : sat_str_cstr("HTTP/1.1");
        q->tls_protocol = i % 3 ? sat_str_cstr("TLSv1.3") : SAT_STR_NONE;
        q->vhost = pick(hosts, 3, i, 4);
        q->user = i % 8 ? SAT_STR_NONE : sat_str_cstr("jdoe");
        q->user_agent = i % 2 ? sat_str_cstr("curl/7.88.1") : sat_str_cstr("");
        break;
    }
    }
}

/* Compares two rows column by column; proj NULL = all columns, else only the
 * projected ones must match and the others must be absent in got. */
static inline int row_eq(int t, const void *want, const void *got, const unsigned char *proj)
{
    const sat_table_def *def = sat_table_get(t);
    anyrow absent;
    memset(&absent, 0, sizeof absent);
    for (size_t c = 0; c < def->ncolumns; c++) {
        const sat_column_def *cd = &def->columns[c];
        const char *w = (const char *)want + cd->offset;
        const char *g = (const char *)got + cd->offset;
        if (cd->type == SAT_COL_STR) {
            sat_str a, b;
            memcpy(&a, w, sizeof a);
            memcpy(&b, g, sizeof b);
            if (proj && !proj[c]) {
                if (b.ptr)
                    return fprintf(stderr, "col %s not absent\n", cd->name), 0;
            } else if (!sat_str_eq(a, b)) {
                return fprintf(stderr, "col %s differs\n", cd->name), 0;
            }
            continue;
        }
        size_t wd = cd->type == SAT_COL_I32 ? 4 : cd->type == SAT_COL_U16 ? 2
                  : cd->type == SAT_COL_U8 ? 1 : 8;
        if ((!proj || proj[c]) && memcmp(w, g, wd) != 0)
            return fprintf(stderr, "col %s differs\n", cd->name), 0;
    }
    return 1;
}

typedef struct rctx {
    uint64_t n[SAT_TABLE__COUNT];
    uint64_t bad;
    int monotonic;
    const unsigned char *proj[SAT_TABLE__COUNT];
    uint64_t first_index; /* expected index of the first ldap_op row */
} rctx;

static inline int on_any(void *ctx, int t, const void *row)
{
    rctx *x = ctx;
    anyrow want;
    gen_row(t, x->n[t] + (t == SAT_TABLE_LDAP_OP ? x->first_index : 0), &want,
            x->monotonic);
    if (!row_eq(t, &want, row, x->proj[t])) {
        if (x->bad++ < 3)
            fprintf(stderr, "table %d row %llu differs\n", t,
                    (unsigned long long)x->n[t]);
    }
    x->n[t]++;
    return SAT_OK;
}

static inline sat_event_sink make_sink(rctx *x)
{
    sat_event_sink s = {x, SAT_TABLES_ALL, on_any};
    return s;
}

static inline void path_of(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
}

static inline int write_trace(const char *path, const uint64_t counts[SAT_TABLE__COUNT],
                       uint32_t rows_per_block, int monotonic)
{
    sat_diag d = {0};
    sat_trace_write_opts o = {rows_per_block, 0};
    sat_trace_writer *w = sat_trace_writer_create(path, &o, &d);
    if (!w)
        return fprintf(stderr, "create: %s\n", d.msg), -1;
    uint64_t mx = 0;
    for (int t = 0; t < SAT_TABLE__COUNT; t++)
        mx = counts[t] > mx ? counts[t] : mx;
    sat_event_sink sink = sat_trace_writer_sink(w);
    for (uint64_t i = 0; i < mx; i++)
        for (int t = 0; t < SAT_TABLE__COUNT; t++)
            if (i < counts[t]) {
                anyrow r;
                gen_row(t, i, &r, monotonic);
                if (sat_sink_emit(&sink, t, &r) != SAT_OK)
                    return -1;
            }
    int rc = sat_trace_writer_close(w, &d);
    if (rc)
        fprintf(stderr, "close: %s %s\n", d.where, d.msg);
    return rc;
}

static inline uint8_t *slurp(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static inline void spit(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(b, 1, n, f);
        fclose(f);
    }
}

/* Temporary files "NAME.XXXXXX.partial" left in tmpdir. */
static inline int count_partials(const char *name)
{
    DIR *dir = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    size_t l = strlen(name);
    while (dir && (e = readdir(dir)) != NULL) {
        size_t el = strlen(e->d_name);
        if (el > l + 9 && strncmp(e->d_name, name, l) == 0 && e->d_name[l] == '.' &&
            strcmp(e->d_name + el - 8, ".partial") == 0)
            n++;
    }
    if (dir)
        closedir(dir);
    return n;
}

/* Offset of the k-th block (k-th "SATB" after the header). */
static inline size_t block_offset(const uint8_t *b, size_t n, int k)
{
    for (size_t i = 20; i + 4 <= n; i++)
        if (memcmp(b + i, "SATB", 4) == 0 && k-- == 0)
            return i;
    return 0;
}

/* The test's temporary directory: made under /tmp, named after the test. */
static inline int trace_tmp_make(const char *test)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sat_%s.XXXXXX", test);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

/* Removes what the test left in its directory, then the directory. */
static inline void trace_tmp_remove(void)
{
    char p[320];
    DIR *dir = opendir(tmpdir);
    struct dirent *e;
    while (dir && (e = readdir(dir)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
            unlink(p);
        }
    if (dir)
        closedir(dir);
    rmdir(tmpdir);
}

#endif
