/*
 * test_parse_parallel.c - a log parsed on two threads in chunks
 * (collect/parse_parallel.c) gives exactly the rows, rejects and source facts
 * of the one-thread parse: every row of every table is written out as text
 * and the two texts compared, for chunks from 1 byte (a chunk per line) to
 * the default, on the real fixtures (plain and gzip) and on a made-up log
 * with rejected lines, header lines, CRLF, a JSON line, a line over 1 MiB
 * and no final newline.
 */
#include "check.h"
#include "satscope/collect.h"

#include <stdarg.h>
#include <unistd.h>

typedef struct dump {
    char *p;
    size_t len, cap;
} dump;

static void put(dump *d, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(d->p + d->len, d->cap - d->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < d->cap - d->len) {
            d->len += (size_t)n;
            return;
        }
        d->cap = d->cap * 2 + (size_t)n + 4096;
        d->p = realloc(d->p, d->cap);
        if (!d->p)
            abort();
    }
}

static void put_str(dump *d, const char *name, sat_str s)
{
    if (!s.ptr)
        put(d, " %s=-", name);
    else
        put(d, " %s=\"%.*s\"", name, (int)s.len, s.ptr);
}

static int on_source(void *ctx, const sat_source *s)
{
    dump *d = ctx;
    put(d, "source %u %u", s->id, s->server);
    put_str(d, "path", s->path);
    put_str(d, "format", s->format);
    put_str(d, "comp", s->compression);
    put_str(d, "name", s->server_name);
    put_str(d, "version", s->server_version);
    put(d, " bytes=%llu lines=%llu rejects=%llu first=%lld last=%lld off=%d trunc=%d\n",
        (unsigned long long)s->bytes, (unsigned long long)s->lines,
        (unsigned long long)s->rejects, (long long)s->first_ts, (long long)s->last_ts,
        s->utc_offset_s, s->truncated);
    return SAT_OK;
}

static int on_reject(void *ctx, const sat_reject *r)
{
    dump *d = ctx;
    put(d, "reject %u %llu", r->source, (unsigned long long)r->line_no);
    put_str(d, "reason", r->reason);
    put_str(d, "excerpt", r->excerpt);
    put(d, "\n");
    return SAT_OK;
}

static int on_op(void *ctx, const sat_ldap_op *o)
{
    dump *d = ctx;
    put(d, "op %lld %lld %u %u %lld %lld %d %u %u %u %u %u %d %d %lld %lld %lld %lld %d %d %d %lld "
           "%d %d",
        (long long)o->ts_ns, (long long)o->result_ts_ns, o->server, o->conn_epoch,
        (long long)o->conn, (long long)o->op, o->internal_op, o->internal_depth, o->type,
        o->scope, (unsigned)o->flags, o->notes, o->err, o->tag, (long long)o->nentries,
        (long long)o->etime, (long long)o->wtime, (long long)o->optime, o->wbusy,
        o->wbusy_max, o->wqdepth, (long long)o->target_op, (int)o->entry_lines,
        (int)o->referral_lines);
    put_str(d, "dn", o->dn);
    put_str(d, "filter", o->filter);
    put_str(d, "shape", o->filter_shape);
    put_str(d, "attrs", o->attrs);
    put_str(d, "method", o->method);
    put_str(d, "extra", o->extra);
    put_str(d, "binddn", o->bind_dn);
    put_str(d, "ip", o->client_ip);
    put_str(d, "text", o->text);
    put_str(d, "details", o->details);
    put_str(d, "sid", o->sid);
    put(d, "\n");
    return SAT_OK;
}

static int on_conn(void *ctx, const sat_ldap_conn *c)
{
    dump *d = ctx;
    put(d, "conn %lld %lld %u %u %lld %d %u %u %u %u %u %d %d", (long long)c->open_ts,
        (long long)c->close_ts, c->server, c->conn_epoch, (long long)c->conn, c->fd,
        c->client_port, c->listener, c->close_code, c->flags, c->ops, (int)c->concurrent,
        (int)c->preopen_closed);
    put_str(d, "ip", c->client_ip);
    put_str(d, "to", c->server_addr);
    put_str(d, "tls", c->tls_version);
    put_str(d, "cipher", c->tls_cipher);
    put_str(d, "cert", c->client_cert);
    put_str(d, "reason", c->close_reason);
    put_str(d, "binddn", c->bind_dn);
    put(d, "\n");
    return SAT_OK;
}

static int rows_source_reject_op_conn(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE:
        return on_source(ctx, (const sat_source *)row);
    case SAT_TABLE_REJECT:
        return on_reject(ctx, (const sat_reject *)row);
    case SAT_TABLE_LDAP_OP:
        return on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN:
        return on_conn(ctx, (const sat_ldap_conn *)row);
    default:
        return 0;
    }
}

static void quiet(void *ctx, const char *where, const char *msg)
{
    dump *d = ctx;
    put(d, "warn %s: %s\n", where, msg);
}

/* Every row of one collection of `path`, as text (caller frees). */
static char *collect_dump(const char *path, int threads, size_t chunk, int *rc)
{
    dump d = {malloc(4096), 0, 4096};
    if (!d.p)
        abort();
    d.p[0] = '\0';
    sat_event_sink sink = {&d, SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_REJECT) |
                               SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) |
                               SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN), rows_source_reject_op_conn};
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.reject_sample_max = 5; /* fewer than the made-up log rejects */
    o.parse_threads = threads;
    o.parse_chunk_bytes = chunk;
    o.warn = quiet;
    o.warn_ctx = &d;
    sat_collect_stats st;
    sat_diag diag;
    memset(&diag, 0, sizeof diag);
    *rc = sat_collect_run(&path, 1, &o, &sink, &st, &diag);
    put(&d, "rc=%d lines=%llu rejects=%llu ops=%llu conns=%llu\n", *rc,
        (unsigned long long)st.lines, (unsigned long long)st.rejects,
        (unsigned long long)st.ops, (unsigned long long)st.conns);
    return d.p;
}

static void same_rows(const char *path)
{
    int rc1, rc2;
    char *one = collect_dump(path, 1, 0, &rc1);
    static const size_t chunks[] = {1, 100, 4096, 65536, 0};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        char *two = collect_dump(path, 2, chunks[i], &rc2);
        CHECK_EQ_INT(rc2, rc1);
        if (strcmp(one, two) != 0) {
            size_t k = 0;
            while (one[k] && one[k] == two[k])
                k++;
            size_t from = k > 200 ? k - 200 : 0;
            printf("%s, chunk %zu: rows differ at byte %zu:\n--- one thread:\n%.400s\n"
                   "--- two:\n%.400s\n", path, chunks[i], k, one + from, two + from);
        }
        CHECK(strcmp(one, two) == 0);
        free(two);
    }
    CHECK(strlen(one) > 100); /* something was collected */
    free(one);
}

/* A 389 log with what a chunk boundary could break. */
static void write_made_up(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fputs("\t389-Directory/2.3.1 B2023.100.0000\n\tldap.example.com:636 (/etc/dirsrv/slapd-x)\n\n", f);
    for (int i = 0; i < 400; i++) {
        int c = 100 + i / 4;
        fprintf(f, "[09/Jun/2025:14:%02d:%02d.%09d +0200] conn=%d fd=64 slot=64 connection from "
                   "10.0.0.%d to 10.0.0.1\r\n", i / 60, i % 60, i * 1000, c, i % 200);
        fprintf(f, "[09/Jun/2025:14:%02d:%02d.%09d +0200] conn=%d op=0 SRCH base=\"dc=x\" scope=2 "
                   "filter=\"(uid=u%d)\" attrs=ALL\n", i / 60, i % 60, i * 1000 + 1, c, i);
        if (i % 37 == 0)
            fprintf(f, "this line is not a log line %d\n", i);
        if (i % 53 == 0)
            fprintf(f, "[09/Jun/2025:14:99:00.000000000 +0200] conn=%d op=1 bad time\n", c);
        fprintf(f, "[09/Jun/2025:14:%02d:%02d.%09d +0200] conn=%d op=0 RESULT err=0 tag=101 "
                   "nentries=1 wtime=0.000100000 optime=0.000200000 etime=0.000300000\n",
                i / 60, i % 60, i * 1000 + 2, c);
        if (i == 200) { /* a line over 1 MiB: cut at 1 MiB, then rejected */
            fputs("[09/Jun/2025:14:03:20.000000000 +0200] conn=1 op=9 SRCH base=\"", f);
            for (int k = 0; k < (1 << 20) + 5000; k++)
                fputc('a', f);
            fputs("\"\n", f);
        }
        if (i == 300)
            fputs("{\"local_time\": \"2025-06-09T14:05:00.000000001 +0200\", \"operation\": "
                  "\"UNBIND\", \"conn_id\": 175, \"op_id\": 1}\n", f);
        if (i % 4 == 3)
            fprintf(f, "[09/Jun/2025:14:%02d:%02d.%09d +0200] conn=%d op=1 fd=64 closed error "
                       "- U1\n", i / 60, i % 60, i * 1000 + 3, c);
    }
    fputs("[09/Jun/2025:15:00:00.000000000 +0200] conn=999 op=0 UNBIND", f); /* no '\n' */
    fclose(f);
}

int main(void)
{
    const char *src = getenv("SAT_SRC");
    char path[1024];
    if (src) {
        static const char *const fixtures[] = {"fixtures/incident/access",
                                               "fixtures/incident/access.20250609-133000.gz",
                                               "fixtures/389ds/access-2.3.1.log"};
        for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", src, fixtures[i]);
            if (access(path, R_OK) == 0)
                same_rows(path);
            else
                printf("note: %s not found\n", path);
        }
    }
    char tmpl[] = "/tmp/sat_pp_XXXXXX";
    int fd = mkstemp(tmpl);
    CHECK(fd >= 0);
    if (fd >= 0) {
        close(fd);
        write_made_up(tmpl);
        same_rows(tmpl);
        int rc;
        char *one = collect_dump(tmpl, 2, 1, &rc);
        CHECK(strstr(one, "reject 0 6 reason=\"no timestamp\"") != NULL); /* line numbers */
        CHECK(strstr(one, "line longer than 1 MiB cut") != NULL);
        CHECK(strstr(one, "version=\"389-Directory/2.3.1 B2023.100.0000\"") != NULL);
        free(one);
        unlink(tmpl);
    }
    return CHECK_DONE();
}
