/*
 * test_sink_pipe.c - the two-thread sink (collect/sink_pipe.c): every row
 * arrives once, in order, with its strings (absent and "" kept apart), across
 * many batches and a row bigger than a batch; the inner sink's error comes
 * back to the producer and from close.
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
        rc = in->on_ldap_op(in->ctx, &o);
        if (i == 1000) {
            sat_ldap_conn c;
            memset(&c, 0, sizeof c);
            c.conn = 5;
            c.client_ip = sat_str_cstr("10.0.0.5");
            rc = in->on_ldap_conn(in->ctx, &c);
        }
    }
    return rc;
}

int main(void)
{
    char *big = malloc(3u << 20);
    memset(big, 'f', 3u << 20);

    seen s;
    memset(&s, 0, sizeof s);
    sat_event_sink inner = {&s, NULL, NULL, on_op, on_conn};
    sat_sink_pipe *p = sat_sink_pipe_create(&inner);
    CHECK(p != NULL);
    sat_event_sink in = sat_sink_pipe_sink(p);
    CHECK(in.on_source == NULL && in.on_reject == NULL);
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
    return CHECK_DONE();
}
