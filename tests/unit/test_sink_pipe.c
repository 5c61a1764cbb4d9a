/*
 * test_sink_pipe.c - the two-thread sink (collect/sink_pipe.c): every row
 * arrives once, in order, with its strings (absent and "" kept apart), across
 * many batches and a row bigger than a batch; the inner sink's error comes
 * back to the producer and from close; crash and frame rows arrive with every
 * field and their strings copied.
 */
#include "check.h"
#include "satscope/collect.h"

typedef struct seen {
    uint64_t ops, bad_order, bad_str, conns, big;
    int64_t next_op;
    int fail_after; /* 0: never */
} seen;

static int on_op(void *ctx, const sat_ldap_op *o)
{
    seen *s = ctx;
    if (o->op != s->next_op)
        s->bad_order++;
    s->next_op = o->op + 1;
    char want[64];
    snprintf(want, sizeof want, "uid=user%lld,dc=x", (long long)o->op);
    if (o->op == 777) {
        if (!o->filter.ptr || o->filter.len != 3u << 20)
            s->bad_str++;
        else
            s->big++;
    }
    if (!o->dn.ptr || o->dn.len != strlen(want) || memcmp(o->dn.ptr, want, o->dn.len))
        s->bad_str++;
    if (o->client_ip.ptr != NULL)          /* absent stays absent */
        s->bad_str++;
    if (!o->bind_dn.ptr || o->bind_dn.len) /* "" stays present */
        s->bad_str++;
    s->ops++;
    if (s->fail_after && s->ops >= (uint64_t)s->fail_after)
        return SAT_E_STOP;
    return SAT_OK;
}

static int on_conn(void *ctx, const sat_ldap_conn *c)
{
    seen *s = ctx;
    if (c->conn == 5 && c->client_ip.ptr && c->client_ip.len == 8 &&
        !memcmp(c->client_ip.ptr, "10.0.0.5", 8))
        s->conns++;
    return SAT_OK;
}

static int rows_op_conn(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_LDAP_OP:
        return on_op(ctx, (const sat_ldap_op *)row);
    case SAT_TABLE_LDAP_CONN:
        return on_conn(ctx, (const sat_ldap_conn *)row);
    default:
        return 0;
    }
}

static int produce(sat_event_sink *in, int64_t n, char *big)
{
    int rc = SAT_OK;
    for (int64_t i = 0; i < n && rc == SAT_OK; i++) {
        sat_ldap_op o;
        memset(&o, 0, sizeof o);
        char dn[64];
        snprintf(dn, sizeof dn, "uid=user%lld,dc=x", (long long)i);
        o.op = i;
        o.dn = sat_str_cstr(dn);
        o.bind_dn = sat_str_make("", 0);
        if (i == 777)
            o.filter = sat_str_make(big, 3u << 20);
        rc = sat_sink_emit(in, SAT_TABLE_LDAP_OP, &o);
        if (i == 1000) {
            sat_ldap_conn c;
            memset(&c, 0, sizeof c);
            c.conn = 5;
            c.client_ip = sat_str_cstr("10.0.0.5");
            rc = sat_sink_emit(in, SAT_TABLE_LDAP_CONN, &c);
        }
    }
    return rc;
}

/* ---- crash and frame rows: every field and string copied, in order -------------------
 * A producer emits the frames of a crash before its crash row (event.h); its
 * string bytes are overwritten right after each call, so only a copy made by
 * the pipe can arrive intact. */
#define CRASHES 5000
#define FRAMES_PER_CRASH 8

static void make_crash(uint32_t i, sat_crash *k, char *buf, size_t cap)
{
    memset(k, 0, sizeof *k);
    int n = snprintf(buf, cap, "host%u|/usr/sbin/ns-slapd-%u|fp:%016x", i, i, i * 2654435761u);
    (void)n;
    k->ts = 1749367154214871640LL + (int64_t)i * 1000;
    k->source = i % 3;
    k->crash = i + 1;
    k->host = i % 4 ? sat_str_make(buf, (uint32_t)strcspn(buf, "|")) : SAT_STR_NONE;
    const char *exe = strchr(buf, '|') + 1;
    k->exe = sat_str_make(exe, (uint32_t)strcspn(exe, "|"));
    k->command = sat_str_make("", 0); /* present and empty */
    k->build_id = SAT_STR_NONE;
    k->pid = i % 5 ? (int32_t)i : SAT_ABSENT;
    k->uid = 389;
    k->signal = 11;
    k->si_code = SAT_ABSENT;
    k->fault_addr = (int64_t)(0xffffffffff600000ULL + i);
    k->orig_signal = SAT_ABSENT;
    k->orig_fault_addr = SAT_ABSENT;
    k->threads = (int32_t)(i % 40);
    k->crashing_tid = (int32_t)i + 7;
    k->origin = SAT_CRASH_CORE;
    k->arch = SAT_ARCH_X86_64;
    k->flags = (uint16_t)(i % 64);
    k->fingerprint = sat_str_cstr(strrchr(buf, '|') + 1);
    k->signature = i % 5 ? sat_str_cstr(buf) : SAT_STR_NONE;
    k->build_key = i % 2 ? sat_str_cstr(buf) : SAT_STR_NONE;
    k->missing = i % 3 ? SAT_STR_NONE : sat_str_make("", 0);
}

static void make_frame(uint32_t i, int32_t depth, sat_frame *f, char *buf, size_t cap)
{
    memset(f, 0, sizeof *f);
    snprintf(buf, cap, "fn_%u_%d|lib%d.so|/src/file%u.c", i, depth, depth, i % 100);
    char *a = strchr(buf, '|'), *b = strchr(a + 1, '|');
    f->source = i % 3;
    f->crash = i + 1;
    f->thread = depth < 4 ? (int32_t)i : 0;
    f->depth = depth;
    f->pc = depth == 7 ? SAT_ABSENT : (int64_t)(0x7f0000000000ULL + i * 16 + (uint32_t)depth);
    f->function = depth == 5 ? SAT_STR_NONE : sat_str_make(buf, (uint32_t)(a - buf));
    f->module = sat_str_make(a + 1, (uint32_t)(b - a - 1));
    f->build_id = depth == 2 ? sat_str_make("", 0) : SAT_STR_NONE;
    f->offset = depth == 7 ? SAT_ABSENT : (int64_t)i * 16;
    f->fn_offset = depth == 5 ? SAT_ABSENT : depth;
    f->file = sat_str_cstr(b + 1);
    f->line = depth == 6 ? SAT_ABSENT : (int32_t)(i % 5000);
    f->flags = (uint8_t)(depth % 8);
}

typedef struct crash_seen {
    uint32_t next_crash;  /* index of the crash whose rows come next */
    int32_t next_depth;   /* its next frame, FRAMES_PER_CRASH when the crash row is due */
    uint64_t crashes, frames, bad;
} crash_seen;

/* The numbers of two rows are compared whole (memcmp) once their strings,
 * compared apart, are zeroed with their padding: an assigned sat_str may
 * carry any bytes in its padding. */
#define ZERO(field) memset(&(field), 0, sizeof(field))

static int str_same(sat_str a, sat_str b)
{
    return (a.ptr == NULL) == (b.ptr == NULL) && sat_str_eq(a, b);
}

static int on_crash(void *ctx, const sat_crash *k)
{
    crash_seen *s = ctx;
    char buf[128];
    sat_crash want, got;
    memcpy(&got, k, sizeof got); /* its padding too */
    make_crash(s->next_crash, &want, buf, sizeof buf);
    if (s->next_depth != FRAMES_PER_CRASH || !str_same(got.host, want.host) ||
        !str_same(got.exe, want.exe) || !str_same(got.command, want.command) ||
        !str_same(got.build_id, want.build_id) ||
        !str_same(got.fingerprint, want.fingerprint) ||
        !str_same(got.signature, want.signature) ||
        !str_same(got.build_key, want.build_key) || !str_same(got.missing, want.missing))
        s->bad++;
    sat_crash *both[] = {&got, &want};
    for (int i = 0; i < 2; i++) {
        ZERO(both[i]->host), ZERO(both[i]->exe), ZERO(both[i]->command);
        ZERO(both[i]->build_id), ZERO(both[i]->fingerprint), ZERO(both[i]->build_key);
        ZERO(both[i]->missing), ZERO(both[i]->signature);
    }
    if (memcmp(&got, &want, sizeof got) != 0)
        s->bad++;
    s->crashes++;
    s->next_crash++;
    s->next_depth = 0;
    return SAT_OK;
}

static int on_frame(void *ctx, const sat_frame *f)
{
    crash_seen *s = ctx;
    char buf[128];
    sat_frame want, got;
    memcpy(&got, f, sizeof got);
    make_frame(s->next_crash, s->next_depth, &want, buf, sizeof buf);
    if (!str_same(got.module, want.module) || !str_same(got.build_id, want.build_id) ||
        !str_same(got.function, want.function) || !str_same(got.file, want.file))
        s->bad++;
    sat_frame *both[] = {&got, &want};
    for (int i = 0; i < 2; i++) {
        ZERO(both[i]->module), ZERO(both[i]->build_id);
        ZERO(both[i]->function), ZERO(both[i]->file);
    }
    if (memcmp(&got, &want, sizeof got) != 0)
        s->bad++;
    s->frames++;
    s->next_depth++;
    return SAT_OK;
}

static int rows_crash_frame(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_CRASH:
        return on_crash(ctx, (const sat_crash *)row);
    case SAT_TABLE_FRAME:
        return on_frame(ctx, (const sat_frame *)row);
    default:
        return 0;
    }
}

static void test_crash_rows(void)
{
    crash_seen s;
    memset(&s, 0, sizeof s);
    sat_event_sink inner = {&s, SAT_TABLE_BIT(SAT_TABLE_CRASH) |
                                SAT_TABLE_BIT(SAT_TABLE_FRAME), rows_crash_frame};
    sat_sink_pipe *p = sat_sink_pipe_create(&inner);
    CHECK(p != NULL);
    if (!p)
        return;
    sat_event_sink in = sat_sink_pipe_sink(p);
    CHECK(in.tables == (SAT_TABLE_BIT(SAT_TABLE_CRASH) | SAT_TABLE_BIT(SAT_TABLE_FRAME)));
    CHECK(!sat_sink_wants(&in, SAT_TABLE_LDAP_OP) && !sat_sink_wants(&in, SAT_TABLE_TCP_CONN));
    int rc = SAT_OK;
    char buf[128];
    for (uint32_t i = 0; i < CRASHES && rc == SAT_OK; i++) {
        for (int32_t depth = 0; depth < FRAMES_PER_CRASH && rc == SAT_OK; depth++) {
            sat_frame f;
            make_frame(i, depth, &f, buf, sizeof buf);
            rc = sat_sink_emit(&in, SAT_TABLE_FRAME, &f);
            memset(buf, '#', sizeof buf); /* the row's strings were borrowed */
        }
        sat_crash k;
        make_crash(i, &k, buf, sizeof buf);
        if (rc == SAT_OK)
            rc = sat_sink_emit(&in, SAT_TABLE_CRASH, &k);
        memset(buf, '#', sizeof buf);
    }
    CHECK_EQ_INT(rc, SAT_OK);
    CHECK_EQ_INT(sat_sink_pipe_close(p), SAT_OK);
    CHECK_EQ_INT(s.crashes, CRASHES);
    CHECK_EQ_INT(s.frames, (uint64_t)CRASHES * FRAMES_PER_CRASH);
    CHECK_EQ_INT(s.bad, 0);
}

int main(void)
{
    char *big = malloc(3u << 20);
    memset(big, 'f', 3u << 20);

    seen s;
    memset(&s, 0, sizeof s);
    sat_event_sink inner = {&s, SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) |
                                SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN), rows_op_conn};
    sat_sink_pipe *p = sat_sink_pipe_create(&inner);
    CHECK(p != NULL);
    sat_event_sink in = sat_sink_pipe_sink(p);
    CHECK(!sat_sink_wants(&in, SAT_TABLE_SOURCE) && !sat_sink_wants(&in, SAT_TABLE_REJECT));
    CHECK_EQ_INT(produce(&in, 200000, big), SAT_OK);
    CHECK_EQ_INT(sat_sink_pipe_close(p), SAT_OK);
    CHECK_EQ_INT(s.ops, 200000);
    CHECK_EQ_INT(s.bad_order, 0);
    CHECK_EQ_INT(s.bad_str, 0);
    CHECK_EQ_INT(s.conns, 1);
    CHECK_EQ_INT(s.big, 1);

    /* the consumer stops: the producer hears of it, close says it too */
    memset(&s, 0, sizeof s);
    s.fail_after = 10;
    p = sat_sink_pipe_create(&inner);
    in = sat_sink_pipe_sink(p);
    int rc = produce(&in, 2000000, big);
    CHECK_EQ_INT(rc, SAT_E_STOP);
    CHECK_EQ_INT(sat_sink_pipe_close(p), SAT_E_STOP);
    CHECK_EQ_INT(s.ops, 10);
    CHECK_EQ_INT(sat_sink_pipe_close(NULL), SAT_OK);
    free(big);
    test_crash_rows();
    return CHECK_DONE();
}
