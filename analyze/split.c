/*
 * split.c - a collection's rows split by server and local calendar day, one
 * analyzer set per (server, day) (analyze_split.h says the rules: hours
 * routed as rows come, merged into days at finish once the source rows have
 * said each origin's server and UTC offset).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/analyze.h"
#include "satscope/trace.h"

#define SLOT_NS ((int64_t)SAT_SPLIT_SLOT_S * 1000000000LL)
#define DAY_S 86400LL

typedef struct part {
    uint8_t by_source; /* origin is a source id (wire and crash rows), else a server */
    uint32_t origin;
    int64_t slot;      /* UTC hours since the epoch */
    uint64_t rows;
    sat_multi *m;
    sat_event_sink sink;
    /* at finish */
    uint32_t server;
    int64_t day;
    int dead;
} part;

typedef struct origin_rec {
    uint8_t by_source;
    uint32_t origin;
    int64_t newest; /* slot of its newest row */
} origin_rec;

typedef struct kept { /* a row copied until finish */
    int table;
    void *row;
} kept;

struct sat_split {
    sat_multi_opts set; /* borrowed members */
    size_t max_days;
    part *parts;
    size_t nparts, cap;
    size_t *map; /* open addressing: index + 1, 0 empty */
    size_t mapcap;
    origin_rec *origins;
    size_t norigins, ocap, olast;
    kept *kept;
    size_t nkept, kcap;
    int err;
    int finished;      /* the days are made (sat_split_assemble) */
    int days_finished; /* and their sets finished */
    sat_split_day *days;
    size_t ndays;
    uint64_t dropped_days, dropped_rows;
    char **names; /* strings the days point to */
    size_t nnames;
};

static uint64_t hkey(uint8_t bs, uint32_t o, int64_t slot)
{
    uint64_t h = (uint64_t)slot * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)o << 1 | bs) * 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 31);
}

static int map_rebuild(sat_split *s, size_t cap)
{
    size_t *m = calloc(cap, sizeof *m);
    if (!m)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < s->nparts; i++) {
        part *p = &s->parts[i];
        size_t h = (size_t)hkey(p->by_source, p->origin, p->slot) & (cap - 1);
        while (m[h])
            h = (h + 1) & (cap - 1);
        m[h] = i + 1;
    }
    free(s->map);
    s->map = m;
    s->mapcap = cap;
    return SAT_OK;
}

static part *part_find(const sat_split *s, uint8_t bs, uint32_t o, int64_t slot)
{
    if (!s->mapcap)
        return NULL;
    size_t h = (size_t)hkey(bs, o, slot) & (s->mapcap - 1);
    for (; s->map[h]; h = (h + 1) & (s->mapcap - 1)) {
        part *p = &s->parts[s->map[h] - 1];
        if (p->by_source == bs && p->origin == o && p->slot == slot)
            return p;
    }
    return NULL;
}

static part *part_get(sat_split *s, uint8_t bs, uint32_t o, int64_t slot)
{
    part *p = part_find(s, bs, o, slot);
    if (p)
        return p;
    if (SAT_GROW(s->parts, s->cap, s->nparts + 1) < 0)
        return NULL;
    if ((s->nparts + 1) * 2 > s->mapcap && map_rebuild(s, s->mapcap ? s->mapcap * 2 : 128) < 0)
        return NULL;
    sat_multi *m = sat_multi_create(&s->set);
    if (!m)
        return NULL;
    p = &s->parts[s->nparts++];
    memset(p, 0, sizeof *p);
    p->by_source = bs;
    p->origin = o;
    p->slot = slot;
    p->m = m;
    p->sink = sat_multi_sink(m);
    size_t h = (size_t)hkey(bs, o, slot) & (s->mapcap - 1);
    while (s->map[h])
        h = (h + 1) & (s->mapcap - 1);
    s->map[h] = s->nparts;
    return p;
}

static origin_rec *origin_get(sat_split *s, uint8_t bs, uint32_t o)
{
    if (s->olast < s->norigins && s->origins[s->olast].by_source == bs &&
        s->origins[s->olast].origin == o)
        return &s->origins[s->olast];
    for (size_t i = 0; i < s->norigins; i++)
        if (s->origins[i].by_source == bs && s->origins[i].origin == o) {
            s->olast = i;
            return &s->origins[i];
        }
    if (SAT_GROW(s->origins, s->ocap, s->norigins + 1) < 0)
        return NULL;
    origin_rec *r = &s->origins[s->norigins];
    r->by_source = bs;
    r->origin = o;
    r->newest = INT64_MIN;
    s->olast = s->norigins++;
    return r;
}

/* Frees the hours of an origin older than the bound before its newest. */
static int drop_old(sat_split *s, const origin_rec *r)
{
    int64_t keep_from = r->newest - (int64_t)(s->max_days + 1) * 24;
    size_t w = 0;
    int dropped = 0;
    for (size_t i = 0; i < s->nparts; i++) {
        part *p = &s->parts[i];
        if (p->by_source == r->by_source && p->origin == r->origin && p->slot < keep_from) {
            s->dropped_rows += p->rows;
            sat_multi_free(p->m);
            dropped = 1;
            continue;
        }
        s->parts[w++] = *p;
    }
    s->nparts = w;
    return dropped ? map_rebuild(s, s->mapcap) : SAT_OK;
}

static int keep_row(sat_split *s, int table, const void *row)
{
    if (SAT_GROW(s->kept, s->kcap, s->nkept + 1) < 0)
        return SAT_E_NOMEM;
    void *c = sat_table_row_copy(table, row);
    if (!c)
        return SAT_E_NOMEM;
    s->kept[s->nkept].table = table;
    s->kept[s->nkept++].row = c;
    return SAT_OK;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int split_row(void *ctx, int table, const void *row)
{
    sat_split *s = ctx;
    uint8_t bs = 0;
    uint32_t o = 0;
    sat_ts_ns ts = 0;
    switch (table) {
    case SAT_TABLE_LDAP_OP: {
        const sat_ldap_op *r = row;
        o = r->server;
        ts = r->ts_ns ? r->ts_ns : r->result_ts_ns;
        break;
    }
    case SAT_TABLE_LDAP_CONN: {
        const sat_ldap_conn *r = row;
        o = r->server;
        ts = r->open_ts ? r->open_ts : r->close_ts;
        break;
    }
    case SAT_TABLE_HTTP_REQ: { /* an access log's request: its server's, by its start */
        const sat_http_req *r = row;
        o = r->server;
        ts = r->ts;
        break;
    }
    case SAT_TABLE_TCP_CONN:
        bs = 1;
        o = ((const sat_tcp_conn *)row)->source;
        ts = ((const sat_tcp_conn *)row)->syn_ts;
        break;
    case SAT_TABLE_TLS_HS:
        bs = 1;
        o = ((const sat_tls_hs *)row)->source;
        ts = ((const sat_tls_hs *)row)->ts;
        break;
    default: /* sources, rejects, crashes and frames: placed at finish */
        return keep_row(s, table, row);
    }
    origin_rec *r = origin_get(s, bs, o);
    if (!r)
        return SAT_E_NOMEM;
    int64_t slot;
    if (ts)
        slot = floor_div(ts, SLOT_NS);
    else if (r->newest != INT64_MIN)
        slot = r->newest; /* undated: with the origin's newest rows */
    else {
        s->dropped_rows++;
        return SAT_OK;
    }
    if (r->newest != INT64_MIN && slot < r->newest - (int64_t)(s->max_days + 1) * 24) {
        s->dropped_rows++;
        return SAT_OK;
    }
    if (slot > r->newest) {
        int64_t old = r->newest;
        r->newest = slot;
        /* a new day began: the hours past the bound go */
        if (old != INT64_MIN && floor_div(slot, 24) != floor_div(old, 24)) {
            int rc = drop_old(s, r);
            if (rc < 0)
                return rc;
        }
    }
    part *p = part_get(s, bs, o, slot);
    if (!p)
        return SAT_E_NOMEM;
    p->rows++;
    int rc = p->sink.on_row ? sat_sink_emit(&p->sink, table, row) : SAT_OK;
    return rc == SAT_E_STOP ? SAT_OK : rc; /* a set that has enough: the others go on */
}

sat_split *sat_split_create(const sat_split_opts *o)
{
    if (!o || !o->set || !o->set->n)
        return NULL;
    sat_split *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->set = *o->set;
    s->max_days = o->max_days ? o->max_days : SAT_SPLIT_DAYS_DEFAULT;
    return s;
}

void sat_split_free(sat_split *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nparts; i++)
        sat_multi_free(s->parts[i].m);
    for (size_t i = 0; i < s->ndays; i++)
        sat_multi_free(s->days[i].set);
    for (size_t i = 0; i < s->nkept; i++)
        free(s->kept[i].row);
    for (size_t i = 0; i < s->nnames; i++)
        free(s->names[i]);
    free(s->names);
    free(s->parts);
    free(s->map);
    free(s->origins);
    free(s->kept);
    free(s->days);
    free(s);
}

sat_event_sink sat_split_sink(sat_split *s)
{
    sat_event_sink k = {s, 0, split_row};
    if (!s)
        return k;
    /* every table a member takes, and the source rows that place them */
    sat_multi *probe = sat_multi_create(&s->set);
    sat_event_sink ms = sat_multi_sink(probe);
    k.tables = ms.tables | SAT_TABLE_BIT(SAT_TABLE_SOURCE);
    if (ms.tables & SAT_TABLE_BIT(SAT_TABLE_FRAME))
        k.tables |= SAT_TABLE_BIT(SAT_TABLE_CRASH);
    sat_multi_free(probe);
    return k;
}

/* ---- finish: hours into days ------------------------------------------------------------ */

typedef struct server_info {
    uint32_t server;
    const char *host, *path;
    int32_t offset;
    int dated; /* offset taken from a source with a time range */
} server_info;

typedef struct ctx_fin {
    sat_split *s;
    server_info *servers;
    size_t nservers;
    const sat_source **srcs;
    size_t nsrcs;
} ctx_fin;

static server_info *server_of(ctx_fin *f, uint32_t server)
{
    for (size_t i = 0; i < f->nservers; i++)
        if (f->servers[i].server == server)
            return &f->servers[i];
    return NULL;
}

static const sat_source *source_by_id(ctx_fin *f, uint32_t id)
{
    for (size_t i = 0; i < f->nsrcs; i++)
        if (f->srcs[i]->id == id)
            return f->srcs[i];
    return NULL;
}

static int64_t local_day(int64_t ts_ns, int32_t offset)
{
    return floor_div(floor_div(ts_ns, 1000000000LL) + offset, DAY_S);
}

static int part_cmp(const void *a, const void *b)
{
    const part *x = a, *y = b;
    if (x->server != y->server)
        return x->server < y->server ? -1 : 1;
    if (x->day != y->day)
        return x->day < y->day ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    if (x->by_source != y->by_source)
        return x->by_source < y->by_source ? -1 : 1;
    return x->origin < y->origin ? -1 : x->origin > y->origin;
}

static char *keep_name(sat_split *s, sat_str v)
{
    if (!v.ptr || !v.len)
        return NULL;
    char **n = realloc(s->names, (s->nnames + 1) * sizeof *n);
    if (!n)
        return NULL;
    s->names = n;
    char *c = malloc(v.len + 1);
    if (!c)
        return NULL;
    memcpy(c, v.ptr, v.len);
    c[v.len] = '\0';
    s->names[s->nnames++] = c;
    return c;
}

/* The day a crash belongs to (its server's, by its time), or -1 without one. */
static int crash_place(ctx_fin *f, const sat_crash *c, uint32_t *server, int64_t *day)
{
    const sat_source *src = source_by_id(f, c->source);
    *server = src ? src->server : UINT32_MAX;
    server_info *si = server_of(f, *server);
    if (!c->ts)
        return -1;
    *day = local_day(c->ts, si ? si->offset : 0);
    return 0;
}

static sat_split_day *day_find(sat_split *s, uint32_t server, int64_t day)
{
    for (size_t i = 0; i < s->ndays; i++)
        if (s->days[i].server == server && s->days[i].day == day)
            return &s->days[i];
    return NULL;
}

static sat_split_day *day_last(sat_split *s, uint32_t server)
{
    sat_split_day *d = NULL;
    for (size_t i = 0; i < s->ndays; i++)
        if (s->days[i].server == server)
            d = &s->days[i];
    return d;
}

static int deliver(sat_split_day *d, int table, const void *row)
{
    sat_event_sink k = sat_multi_sink(d->set);
    int rc = sat_sink_emit(&k, table, row);
    return rc == SAT_E_STOP ? SAT_OK : rc;
}

static int add_day(sat_split *s, ctx_fin *f, uint32_t server, int64_t day, sat_multi *m)
{
    sat_split_day *nd = realloc(s->days, (s->ndays + 1) * sizeof *nd);
    if (!nd)
        return SAT_E_NOMEM;
    s->days = nd;
    sat_split_day *d = &s->days[s->ndays++];
    memset(d, 0, sizeof *d);
    d->server = server;
    d->day = day;
    d->set = m;
    server_info *si = server_of(f, server);
    if (si) {
        d->host = si->host;
        d->path = si->path;
        d->utc_offset_s = si->offset;
    }
    d->start_ts = day == SAT_SPLIT_UNDATED ? 0 : (day * DAY_S - d->utc_offset_s) * 1000000000LL;
    return SAT_OK;
}

static int day_cmp(const void *a, const void *b)
{
    const sat_split_day *x = a, *y = b;
    if (x->server != y->server)
        return x->server < y->server ? -1 : 1;
    return x->day < y->day ? -1 : x->day > y->day;
}

int sat_split_assemble(sat_split *s)
{
    if (!s || s->finished)
        return s ? SAT_OK : SAT_E_USAGE;
    s->finished = 1;
    ctx_fin f = {s, NULL, 0, NULL, 0};
    int rc = SAT_OK;
    f.srcs = calloc(s->nkept + 1, sizeof *f.srcs);
    f.servers = calloc(s->nkept + 1, sizeof *f.servers);
    if (!f.srcs || !f.servers) {
        rc = SAT_E_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < s->nkept; i++) {
        if (s->kept[i].table != SAT_TABLE_SOURCE)
            continue;
        const sat_source *src = s->kept[i].row;
        f.srcs[f.nsrcs++] = src;
        server_info *si = server_of(&f, src->server);
        if (!si) {
            si = &f.servers[f.nservers++];
            si->server = src->server;
            si->path = keep_name(s, src->path);
        }
        if (!si->host)
            si->host = keep_name(s, src->server_name);
        if (!si->dated && src->first_ts) {
            si->offset = src->utc_offset_s;
            si->dated = 1;
        }
    }
    /* each hour's server and local day */
    for (size_t i = 0; i < s->nparts; i++) {
        part *p = &s->parts[i];
        if (p->by_source) {
            const sat_source *src = source_by_id(&f, p->origin);
            p->server = src ? src->server : UINT32_MAX;
        } else {
            p->server = p->origin;
        }
        server_info *si = server_of(&f, p->server);
        p->day = floor_div(p->slot * (int64_t)SAT_SPLIT_SLOT_S + (si ? si->offset : 0), DAY_S);
    }
    if (s->nparts)
        qsort(s->parts, s->nparts, sizeof *s->parts, part_cmp);
    free(s->map);
    s->map = NULL;
    s->mapcap = 0;
    /* the days: each from its first hour, the others merged into it in time order */
    for (size_t i = 0; i < s->nparts && rc >= 0;) {
        size_t j = i + 1;
        while (j < s->nparts && s->parts[j].server == s->parts[i].server &&
               s->parts[j].day == s->parts[i].day)
            j++;
        if ((rc = add_day(s, &f, s->parts[i].server, s->parts[i].day, s->parts[i].m)) < 0)
            break;
        sat_split_day *d = &s->days[s->ndays - 1];
        s->parts[i].m = NULL;
        d->rows = s->parts[i].rows;
        for (size_t k = i + 1; k < j && rc >= 0; k++) {
            rc = sat_multi_merge(d->set, s->parts[k].m);
            d->rows += s->parts[k].rows;
            sat_multi_free(s->parts[k].m);
            s->parts[k].m = NULL;
        }
        i = j;
    }
    s->nparts = 0;
    /* days of crashes alone (a core beside no log of its server) */
    for (size_t i = 0; i < s->nkept && rc >= 0; i++) {
        uint32_t server;
        int64_t day;
        if (s->kept[i].table != SAT_TABLE_CRASH ||
            crash_place(&f, s->kept[i].row, &server, &day) < 0 || day_find(s, server, day))
            continue;
        sat_multi *m = sat_multi_create(&s->set);
        rc = m ? add_day(s, &f, server, day, m) : SAT_E_NOMEM;
        if (!m)
            break;
    }
    for (size_t i = 0; i < s->nkept && rc >= 0; i++) { /* a crash without a time: its last day */
        uint32_t server;
        int64_t day;
        if (s->kept[i].table != SAT_TABLE_CRASH ||
            crash_place(&f, s->kept[i].row, &server, &day) == 0 || day_last(s, server))
            continue;
        sat_multi *m = sat_multi_create(&s->set);
        rc = m ? add_day(s, &f, server, SAT_SPLIT_UNDATED, m) : SAT_E_NOMEM;
        if (!m)
            break;
    }
    if (rc < 0)
        goto out;
    if (s->ndays)
        qsort(s->days, s->ndays, sizeof *s->days, day_cmp);
    /* the bound: each server's last max_days days */
    {
        size_t w = 0;
        for (size_t i = 0; i < s->ndays; i++) {
            size_t later = 0;
            for (size_t k = i + 1; k < s->ndays && s->days[k].server == s->days[i].server; k++)
                later++;
            if (later >= s->max_days) {
                s->dropped_days++;
                s->dropped_rows += s->days[i].rows;
                sat_multi_free(s->days[i].set);
                continue;
            }
            s->days[w++] = s->days[i];
        }
        s->ndays = w;
    }
    /* the rows placed now: sources and rejects on the days they meet, crashes
     * and their frames on theirs */
    for (size_t i = 0; i < s->nkept && rc >= 0; i++) {
        int t = s->kept[i].table;
        const void *row = s->kept[i].row;
        if (t == SAT_TABLE_SOURCE || t == SAT_TABLE_REJECT) {
            const sat_source *src =
                t == SAT_TABLE_SOURCE ? row : source_by_id(&f, ((const sat_reject *)row)->source);
            if (!src)
                continue;
            for (size_t k = 0; k < s->ndays && rc >= 0; k++) {
                sat_split_day *d = &s->days[k];
                if (d->server != src->server)
                    continue;
                sat_ts_ns end = d->start_ts + DAY_S * 1000000000LL;
                if (src->first_ts && (src->last_ts < d->start_ts || src->first_ts >= end))
                    continue;
                rc = deliver(d, t, row);
            }
        } else if (t == SAT_TABLE_CRASH || t == SAT_TABLE_FRAME) {
            /* a frame goes where its crash goes */
            const sat_crash *c = NULL;
            if (t == SAT_TABLE_CRASH)
                c = row;
            else
                for (size_t k = 0; k < s->nkept && !c; k++)
                    if (s->kept[k].table == SAT_TABLE_CRASH &&
                        ((const sat_crash *)s->kept[k].row)->source == ((const sat_frame *)row)->source &&
                        ((const sat_crash *)s->kept[k].row)->crash == ((const sat_frame *)row)->crash)
                        c = s->kept[k].row;
            if (!c)
                continue; /* a frame of no crash: nothing shows it */
            uint32_t server;
            int64_t day;
            sat_split_day *d = crash_place(&f, c, &server, &day) == 0 ? day_find(s, server, day)
                                                                     : day_last(s, server);
            if (d)
                rc = deliver(d, t, row);
        }
    }
out:
    free(f.srcs);
    free(f.servers);
    s->err = rc < 0 ? rc : s->err;
    return rc;
}

int sat_split_finish(sat_split *s)
{
    if (!s)
        return SAT_E_USAGE;
    int rc = s->finished ? s->err : sat_split_assemble(s);
    if (s->days_finished)
        return rc;
    s->days_finished = 1;
    for (size_t i = 0; i < s->ndays && rc >= 0; i++)
        rc = sat_multi_finish(s->days[i].set);
    return rc;
}

int sat_split_merge(sat_split *into, const sat_split *from)
{
    if (!into || !from || into->finished || from->finished)
        return SAT_E_USAGE;
    for (size_t i = 0; i < from->nparts; i++) {
        const part *p = &from->parts[i];
        part *q = part_get(into, p->by_source, p->origin, p->slot);
        if (!q)
            return SAT_E_NOMEM;
        int rc = sat_multi_merge(q->m, p->m);
        if (rc < 0)
            return rc;
        q->rows += p->rows;
        origin_rec *r = origin_get(into, p->by_source, p->origin);
        if (!r)
            return SAT_E_NOMEM;
        if (p->slot > r->newest)
            r->newest = p->slot;
    }
    for (size_t i = 0; i < from->nkept; i++) {
        int rc = keep_row(into, from->kept[i].table, from->kept[i].row);
        if (rc < 0)
            return rc;
    }
    into->dropped_rows += from->dropped_rows;
    /* the merged parts keep the bound */
    for (size_t i = 0; i < into->norigins; i++) {
        int rc = drop_old(into, &into->origins[i]);
        if (rc < 0)
            return rc;
    }
    return SAT_OK;
}

size_t sat_split_days(const sat_split *s) { return s ? s->ndays : 0; }

const sat_split_day *sat_split_day_at(const sat_split *s, size_t i)
{
    return s && i < s->ndays ? &s->days[i] : NULL;
}

void sat_split_dropped(const sat_split *s, uint64_t *days, uint64_t *rows)
{
    if (days)
        *days = s ? s->dropped_days : 0;
    if (rows)
        *rows = s ? s->dropped_rows : 0;
}

void sat_split_day_name(int64_t day, char *buf, size_t n)
{
    if (day == SAT_SPLIT_UNDATED) {
        snprintf(buf, n, "undated");
        return;
    }
    /* civil from days (H. Hinnant's algorithm): no time zone database involved */
    int64_t z = day + 719468;
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    snprintf(buf, n, "%04lld-%02lld-%02lld", (long long)(y + (m <= 2)), (long long)m, (long long)d);
}

static void *split_create(const void *o) { return sat_split_create(o); }
static sat_event_sink split_sink(void *a) { return sat_split_sink(a); }
static int split_finish(void *a) { return sat_split_finish(a); }
static int split_merge(void *into, const void *from) { return sat_split_merge(into, from); }
static void split_free(void *a) { sat_split_free(a); }
const sat_analyzer sat_split_analyzer = {
    "split", "rows split by server and day, an analyzer set each", split_create, split_sink,
    split_finish, split_merge, split_free, NULL};
