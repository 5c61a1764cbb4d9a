/*
 * collect_trace.c - one .sat trace as an input of a collection: replayed
 * through the trace reader (only the tables the sink takes, only the blocks
 * of the time window), its server and source numbers moved past those used
 * so far so that several traces and logs never collide, its damaged blocks
 * named (table, rows, time range) and the rest still read.
 */
#include "collect_run.h"
#include "satscope/trace.h"

/* ---- traces ------------------------------------------------------------------------------
 * A trace's rows carry its own server and source numbers; they are moved past
 * the ones already used so that several traces and logs never collide. */
typedef struct renumber {
    run *r;
    uint32_t server_base, source_base;
    uint32_t max_server, max_source;
    int any_server, any_source;
    int sink_rc;
} renumber;

static void see_server(renumber *n, uint32_t s)
{
    if (!n->any_server || s > n->max_server)
        n->max_server = s;
    n->any_server = 1;
}
static void see_source(renumber *n, uint32_t s)
{
    if (!n->any_source || s > n->max_source)
        n->max_source = s;
    n->any_source = 1;
}
static int pass(renumber *n, int rc)
{
    if (rc < 0)
        n->sink_rc = rc;
    return rc;
}

/* Every row moved past the numbers used: sources by id and server, ldap rows
 * by server, capture and crash rows by source ((source, crash) of a frame
 * still names its crash row); a table without such numbers passes as it is. */
static int rn_row(void *ctx, int table, const void *row)
{
    renumber *n = ctx;
    const sat_event_sink *out = n->r->sink;
    switch (table) {
    case SAT_TABLE_SOURCE: {
        const sat_source *s = row;
        sat_source c = *s;
        see_source(n, s->id);
        see_server(n, s->server);
        c.id += n->source_base;
        c.server += n->server_base;
        n->r->stats->bytes += s->bytes;
        n->r->stats->lines += s->lines;
        n->r->stats->rejects += s->rejects;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_REJECT: {
        sat_reject c = *(const sat_reject *)row;
        see_source(n, c.source);
        c.source += n->source_base;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_LDAP_OP: {
        sat_ldap_op c = *(const sat_ldap_op *)row;
        see_server(n, c.server);
        c.server += n->server_base;
        n->r->stats->ops++;
        if (c.flags & SAT_OPF_UNFINISHED)
            n->r->stats->unfinished++;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_LDAP_CONN: {
        sat_ldap_conn c = *(const sat_ldap_conn *)row;
        see_server(n, c.server);
        c.server += n->server_base;
        n->r->stats->conns++;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_TCP_CONN: {
        sat_tcp_conn c = *(const sat_tcp_conn *)row;
        see_source(n, c.source);
        c.source += n->source_base;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_TLS_HS: {
        sat_tls_hs c = *(const sat_tls_hs *)row;
        see_source(n, c.source);
        c.source += n->source_base;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_CRASH: {
        sat_crash c = *(const sat_crash *)row;
        see_source(n, c.source);
        c.source += n->source_base;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_FRAME: {
        sat_frame c = *(const sat_frame *)row;
        see_source(n, c.source);
        c.source += n->source_base;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    case SAT_TABLE_HTTP_REQ: {
        sat_http_req c = *(const sat_http_req *)row;
        see_source(n, c.source);
        see_server(n, c.server);
        c.source += n->source_base;
        c.server += n->server_base;
        return pass(n, sat_sink_emit(out, table, &c));
    }
    default:
        return pass(n, sat_sink_emit(out, table, row));
    }
}

int sat_run_trace(run *r, item *it)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_trace_reader *tr = sat_trace_reader_open(it->path, &d);
    if (!tr) {
        r->stats->unreadable++;
        sat_run_warn(r, it->path, "%s%s%s", d.where[0] && strcmp(d.where, it->path) ? d.where : "",
             d.where[0] && strcmp(d.where, it->path) ? ": " : "", d.msg);
        sat_run_problem(r, d.code ? d.code : SAT_E_IO, it->path, d.msg);
        return SAT_OK;
    }
    r->stats->traces++;
    if (d.code == SAT_E_TRUNCATED) {
        r->stats->truncated++;
        sat_run_warn(r, it->path, "%s", d.msg);
        sat_run_problem(r, SAT_E_TRUNCATED, it->path, d.msg);
    }
    renumber n;
    memset(&n, 0, sizeof n);
    n.r = r;
    n.server_base = r->next_server;
    n.source_base = r->next_source;
    /* sources and rejects always: they are the accounting of what was read */
    sat_event_sink rs = {&n,
                         (r->sink->on_row ? r->sink->tables : 0) |
                             SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_REJECT),
                         rn_row};
    sat_trace_read_opts o;
    memset(&o, 0, sizeof o);
    o.from_ns = r->opts->from_ns;
    o.to_ns = r->opts->to_ns;
    o.tables = rs.tables; /* only the tables the sink takes are decoded */
    memset(&d, 0, sizeof d);
    int rc = sat_trace_read(tr, &o, &rs, &d);
    if (rc == SAT_E_CORRUPT && n.sink_rc != rc) {
        /* Damaged blocks were skipped, every other block read: name each
         * loss (table, rows, time range) so that the figures can be judged. */
        const sat_trace_damage *dm;
        size_t nd = sat_trace_reader_damage(tr, &dm);
        for (size_t i = 0; i < nd; i++) {
            char where[600], what[600];
            snprintf(where, sizeof where, "%s: block %llu (offset %llu)", it->path,
                     (unsigned long long)dm[i].block, (unsigned long long)dm[i].offset);
            sat_trace_damage_describe(&dm[i], what, sizeof what);
            sat_run_warn(r, where, "damaged block skipped: %s; the other blocks were read", what);
        }
        r->stats->damaged_blocks += nd;
        sat_run_problem(r, SAT_E_CORRUPT, d.where, d.msg);
        rc = SAT_OK;
    }
    sat_trace_reader_close(tr);
    if (n.any_server)
        r->next_server = n.server_base + n.max_server + 1;
    if (n.any_source)
        r->next_source = n.source_base + n.max_source + 1;
    r->done_raw += it->raw_size;
    if (rc < 0 && n.sink_rc == rc)
        return rc; /* the sink's own status goes back to the caller */
    if (rc < 0) {
        char where[600];
        snprintf(where, sizeof where, "%s%s%s", it->path, d.where[0] ? ": " : "", d.where);
        r->stats->truncated++;
        sat_run_warn(r, where, "%s; the rows before it were used", d.msg);
        sat_run_problem(r, SAT_E_TRUNCATED, where, d.msg);
    }
    return SAT_OK;
}
