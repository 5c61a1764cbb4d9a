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
 * the ones already used so that several traces and logs never collide. Which
 * fields hold them is read from the schema, as every row's size: the columns
 * named "server" (a server index) and "source" (a sat_source.id), and the
 * source table's own "id". A table added to the schema is renumbered with no
 * edit here. */
typedef struct numbers {
    size_t size;                /* sizeof the row struct; 0: not in the schema */
    int server_off, source_off; /* offsets of its uint32 numbers, -1: none */
} numbers;

typedef struct renumber {
    run *r;
    uint32_t server_base, source_base;
    uint32_t max_server, max_source;
    int any_server, any_source;
    int sink_rc;
    numbers tab[SAT_TABLE__COUNT];
    unsigned char *row; /* the renumbered copy handed on (the largest row size) */
    const char *input;  /* the trace as given: what --server NAME=PATH names */
} renumber;

/* Offset of table def's 32-bit column `name`, -1 if it has none. */
static int column_at(const sat_table_def *def, const char *name)
{
    for (size_t i = 0; i < def->ncolumns; i++)
        if (def->columns[i].type == SAT_COL_I32 && strcmp(def->columns[i].name, name) == 0)
            return def->columns[i].offset;
    return -1;
}

static int renumber_init(renumber *n)
{
    size_t max = 0;
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        const sat_table_def *def = sat_table_get(t);
        n->tab[t].server_off = n->tab[t].source_off = -1;
        if (!def)
            continue;
        n->tab[t].size = def->row_size;
        n->tab[t].server_off = column_at(def, "server");
        n->tab[t].source_off = column_at(def, t == SAT_TABLE_SOURCE ? "id" : "source");
        if (def->row_size > max)
            max = def->row_size;
    }
    n->row = malloc(max ? max : 1); /* malloc's alignment suits any row */
    return n->row ? SAT_OK : SAT_E_NOMEM;
}

static uint32_t get_u32(const void *row, int off)
{
    uint32_t v;
    memcpy(&v, (const unsigned char *)row + off, sizeof v);
    return v;
}
static void put_u32(void *row, int off, uint32_t v)
{
    memcpy((unsigned char *)row + off, &v, sizeof v);
}

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

/* What the collection counts of a trace's rows, as it counts them from logs. */
static void count(sat_collect_stats *st, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE: {
        const sat_source *s = row;
        st->bytes += s->bytes;
        st->lines += s->lines;
        st->rejects += s->rejects;
        break;
    }
    case SAT_TABLE_LDAP_OP:
        st->ops++;
        if (((const sat_ldap_op *)row)->flags & SAT_OPF_UNFINISHED)
            st->unfinished++;
        break;
    case SAT_TABLE_LDAP_CONN:
        st->conns++;
        break;
    default:
        break;
    }
}

/* Every row moved past the numbers used: by its server and source numbers
 * ((source, crash) of a frame still names its crash row); a table without
 * such numbers passes as it is. */
static int rn_row(void *ctx, int table, const void *row)
{
    renumber *n = ctx;
    const sat_event_sink *out = n->r->sink;
    if ((unsigned)table >= SAT_TABLE__COUNT || !n->tab[table].size)
        return pass(n, sat_sink_emit(out, table, row));
    const numbers *t = &n->tab[table];
    count(n->r->stats, table, row);
    memcpy(n->row, row, t->size);
    if (t->source_off >= 0) {
        uint32_t v = get_u32(row, t->source_off);
        see_source(n, v);
        put_u32(n->row, t->source_off, v + n->source_base);
    }
    if (t->server_off >= 0) {
        uint32_t v = get_u32(row, t->server_off);
        see_server(n, v);
        put_u32(n->row, t->server_off, v + n->server_base);
    }
    if (table == SAT_TABLE_SOURCE) /* --server names a trace's sources too */
        sat_collect_name_source(n->r->opts, n->input, (sat_source *)n->row);
    return pass(n, sat_sink_emit(out, table, n->row));
}

int sat_run_trace(run *r, item *it)
{
    renumber n;
    memset(&n, 0, sizeof n);
    if (renumber_init(&n) < 0)
        return SAT_E_NOMEM;
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_trace_reader *tr = sat_trace_reader_open(it->path, &d);
    if (!tr) {
        free(n.row);
        r->stats->unreadable++;
        sat_run_warn(r, it->path, "%s%s%s", d.where[0] && strcmp(d.where, it->path) ? d.where : "",
             d.where[0] && strcmp(d.where, it->path) ? ": " : "", d.msg);
        sat_run_problem(r, d.code ? d.code : SAT_E_IO, it->path, d.msg);
        return SAT_OK;
    }
    r->stats->traces++;
    if (d.code == SAT_E_TRUNCATED || d.code == SAT_E_CORRUPT) {
        /* read with a warning: a partial trace, a damaged file header */
        if (d.code == SAT_E_TRUNCATED)
            r->stats->truncated++;
        else
            r->stats->damaged_headers++;
        sat_run_warn(r, it->path, "%s", d.msg);
        sat_run_problem(r, d.code, it->path, d.msg);
    }
    n.r = r;
    n.input = it->path;
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
    free(n.row);
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
