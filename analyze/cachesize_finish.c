/*
 * cachesize_finish.c - the cachesize analyzer's results from its
 * accumulators (cachesize_internal.h): the curve's points, the least size
 * for each target hit ratio, the working set per hour, the entry / DN / DB
 * cache sizes, and the comparison with cn=monitor.
 *
 * Hit ratios count cold misses (the first reference to each key): a log of a
 * few minutes cannot reach a hit ratio above 1 - distinct / references, and
 * a target above that is reported unreachable.
 *
 * Bytes: the entry size from --entry-size, else cn=monitor (currententry-
 * cachesize / currententrycachecount: 389's own in-memory size), else an LDIF
 * export's mean bytes per entry (text bytes: a lower bound of the in-memory
 * size). DN cache per entry: cn=monitor's currentdncachesize / currentdn-
 * cachecount, else the estimate 2 x mean DN length + SAT_CS_DN_OVERHEAD (389
 * keeps the DN as given and normalized, in a struct backdn with its hash and
 * LRU links; the overhead is an estimate, not a measurement). Suggested
 * sizes are rounded up to a MiB and at least 512000 bytes (389's smallest
 * entry cache).
 *
 * How much of the server's entry reads the log sees: with two cn=monitor
 * snapshots, the references against the entry cache lookups 389 counted
 * between them (entrycachetries); without, the references against the
 * entries the unseen searches returned (at least one read each). When the
 * log names fewer than half (`most_reads_unseen`), the curve describes a
 * stream the server did not see (search-then-bind: the bind finds the entry
 * its search just read, a hit the log shows as a first reference) and the
 * report says so beside the measured ratio.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cachesize_internal.h"

#define SAT_CS_DN_OVERHEAD 120.0
#define CS_MIN_CACHE 512000u

void cs_free_results(sat_cs *c)
{
    free(c->points);
    free(c->hv);
    c->points = NULL;
    c->hv = NULL;
    c->finished = 0;
}

double sat_cs_hits(const sat_cs *c, uint64_t entries)
{
    if (!c || !c->finished)
        return 0;
    return cs_mrc_hits(&c->mrc, entries);
}

double sat_cs_hit_ratio(const sat_cs *c, uint64_t entries)
{
    if (!c || !c->v.references)
        return NAN;
    return sat_cs_hits(c, entries) / (double)c->v.references;
}

/* ---- working set per hour ---------------------------------------------------------- */

typedef struct hk {
    int64_t hour;
    uint64_t key;
} hk;

static int cmp_hk(const void *a, const void *b)
{
    const hk *x = a, *y = b;
    if (x->hour != y->hour)
        return x->hour < y->hour ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_hour(const void *a, const void *b)
{
    const sat_cs_hour *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int working_set(sat_cs *c)
{
    const cs_mrc *m = &c->mrc;
    size_t nh = sat_keyed_n(&c->hours);
    c->hv = calloc(nh ? nh : 1, sizeof *c->hv);
    if (!c->hv)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < nh; i++) {
        int64_t h;
        memcpy(&h, sat_keyed_key(&c->hours, i), sizeof h);
        c->hv[i].start = h * (sat_ts_ns)3600 * 1000000000;
        c->hv[i].refs = ((const cs_count *)sat_keyed_rec(&c->hours, i))->n;
    }
    qsort(c->hv, nh, sizeof *c->hv, cmp_hour);
    /* distinct (hour, key) pairs of the kept stream, sorted */
    hk *p = malloc((m->nrefs ? m->nrefs : 1) * sizeof *p);
    if (!p)
        return SAT_E_NOMEM;
    size_t np = 0, r = 0;
    for (size_t i = 0; i < m->nrefs; i++) {
        while (r + 1 < m->nruns && m->runs[r + 1].at <= i)
            r++;
        if (m->runs[r].hour == INT64_MIN)
            continue;
        p[np].hour = m->runs[r].hour;
        p[np++].key = m->refs[i] >> 16;
    }
    qsort(p, np, sizeof *p, cmp_hk);
    double scale = 1.0 / c->v.keep_rate;
    size_t j = 0;
    for (size_t i = 0; i < np; i++) {
        if (i > 0 && p[i].hour == p[i - 1].hour && p[i].key == p[i - 1].key)
            continue;
        sat_ts_ns st = p[i].hour * (sat_ts_ns)3600 * 1000000000;
        while (j < nh && c->hv[j].start < st)
            j++;
        if (j < nh && c->hv[j].start == st)
            c->hv[j].distinct += scale;
    }
    free(p);
    c->v.hours = c->hv;
    c->v.nhours = nh;
    return SAT_OK;
}

/* ---- finish ---------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t round_mib(double bytes)
{
    if (!(bytes > 0))
        return 0;
    if (bytes < CS_MIN_CACHE)
        bytes = CS_MIN_CACHE;
    double mib = 1048576.0;
    return (uint64_t)(ceil(bytes / mib) * mib);
}

/* nsslapd-dbcachesize from the index reference rate: the index files the
 * workload reads stay in the DB cache, the others need not - entryrdn (every
 * DN is resolved through it), ancestorid when subtree searches ran, the
 * index of every attribute a logged filter tests - plus the part of
 * id2entry the working set reads (distinct entries / entries in the LDIF
 * export; all of it when their number is unknown). Index files of
 * attributes no filter tests (written by ADD/MOD only) are left out. */
static void db_cache(const sat_cs *c, sat_cs_view *v)
{
    size_t len = 0;
    v->db_indexes_used = 0;
    v->db_used_index_bytes = 0;
    v->db_used_names[0] = '\0';
    for (size_t i = 0; i < c->o.db_nlist; i++) {
        const char *name = c->o.db_list[i].name;
        size_t n = strlen(name);
        char low[64];
        if (n >= sizeof low)
            continue;
        for (size_t k = 0; k <= n; k++)
            low[k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] - 'A' + 'a' : name[k]);
        int used = !strcmp(low, "entryrdn") || (!strcmp(low, "ancestorid") && v->unseen_subtree) ||
                   sat_strtab_find(&c->attrs.tab, low, n) != NULL;
        if (!used)
            continue;
        v->db_indexes_used++;
        v->db_used_index_bytes += c->o.db_list[i].bytes;
        int w = snprintf(v->db_used_names + len, sizeof v->db_used_names - len, "%s%s",
                         len ? " " : "", name);
        if (w > 0 && (size_t)w < sizeof v->db_used_names - len)
            len += (size_t)w;
    }
    double part = 1.0;
    if (c->o.ldif_entries && v->unique > 0 && v->unique < (double)c->o.ldif_entries)
        part = v->unique / (double)c->o.ldif_entries;
    v->db_id2entry_part = (uint64_t)ceil(part * (double)c->o.db_id2entry_bytes);
    v->dbcachesize = round_mib((double)(v->db_used_index_bytes + v->db_id2entry_part));
}

static double measured(int64_t h0, int64_t t0, int64_t h1, int64_t t1, int two, int *interval)
{
    if (two && h0 >= 0 && t0 >= 0 && h1 >= h0 && t1 > t0) {
        *interval = 1;
        return (double)(h1 - h0) / (double)(t1 - t0);
    }
    if (h1 >= 0 && t1 > 0)
        return (double)h1 / (double)t1;
    return NAN;
}

int sat_cs_finish(sat_cs *c)
{
    if (!c)
        return SAT_E_USAGE;
    cs_free_results(c);
    sat_cs_view *v = &c->v;
    int rc = cs_mrc_finish(&c->mrc);
    if (rc < 0)
        return rc;
    c->finished = 1;
    v->kept = c->mrc.nrefs;
    v->keep_rate = cs_mrc_keep_rate(&c->mrc);
    v->shards_smax = c->o.shards_smax;
    v->shards_rate = c->mrc.shards_rate;
    v->method = c->mrc.method;
    v->unique = c->mrc.unique;
    v->dn_mean_len = c->mrc.dn_mean_len;
    double n = (double)v->references;
    double denom = (double)v->naming_ops + (double)v->unseen_ops;
    v->unseen_share = denom > 0 ? (double)v->unseen_ops / denom : NAN;
    v->fields_known = sat_fields_known(&v->fields);
    v->max_hit_ratio = n > 0 ? (n - v->unique) / n : NAN;
    if (v->max_hit_ratio < 0)
        v->max_hit_ratio = 0;
    /* entry size */
    const sat_cs_monitor *last = c->o.nmonitor ? &c->mon[c->o.nmonitor - 1] : NULL;
    v->entry_bytes = NAN;
    v->entry_bytes_from = NULL;
    if (c->o.entry_bytes > 0) {
        v->entry_bytes = c->o.entry_bytes;
        v->entry_bytes_from = "--entry-size";
    } else if (last && last->entry_cur_bytes > 0 && last->entry_cur_count > 0) {
        v->entry_bytes = (double)last->entry_cur_bytes / (double)last->entry_cur_count;
        v->entry_bytes_from = "cn=monitor";
    } else if (c->o.ldif_entries && c->o.ldif_bytes) {
        v->entry_bytes = (double)c->o.ldif_bytes / (double)c->o.ldif_entries;
        v->entry_bytes_from = "LDIF export";
    }
    if (last && last->dn_cur_bytes > 0 && last->dn_cur_count > 0) {
        v->dn_entry_bytes = (double)last->dn_cur_bytes / (double)last->dn_cur_count;
        v->dn_bytes_from = "cn=monitor";
    } else {
        v->dn_entry_bytes =
            isnan(v->dn_mean_len) ? NAN : 2.0 * v->dn_mean_len + SAT_CS_DN_OVERHEAD;
        v->dn_bytes_from = "estimate";
    }
    /* the curve's points: 20 linear steps and 30 geometric ones up to the top */
    uint64_t top = n > 0 ? cs_mrc_top(&c->mrc) : 0;
    if (top < 1 && n > 0)
        top = 1;
    uint64_t pts[64];
    size_t np = 0;
    pts[np++] = 0;
    if (top) {
        for (int k = 1; k <= 20; k++)
            pts[np++] = (uint64_t)llround((double)top * k / 20.0);
        for (int k = 0; k < 30; k++)
            pts[np++] = (uint64_t)llround(pow((double)top, k / 29.0));
    }
    qsort(pts, np, sizeof pts[0], cmp_u64);
    c->points = malloc(np * sizeof *c->points);
    if (!c->points)
        return SAT_E_NOMEM;
    v->nmrc = 0;
    for (size_t i = 0; i < np; i++) {
        if (i && pts[i] == pts[i - 1])
            continue;
        sat_cs_point *p = &c->points[v->nmrc++];
        p->entries = pts[i];
        p->hit_ratio = n > 0 ? sat_cs_hit_ratio(c, pts[i]) : NAN;
        p->bytes = (double)pts[i] * v->entry_bytes;
    }
    v->mrc = c->points;
    /* targets: the least size reaching each (binary search on the monotone curve) */
    uint64_t unique_all = (uint64_t)llround(v->unique);
    for (size_t i = 0; i < c->o.ntargets; i++) {
        sat_cs_target *t = &c->tg[i];
        t->target = c->o.targets[i];
        t->reachable = n > 0 && sat_cs_hit_ratio(c, top) >= t->target;
        if (t->reachable) {
            uint64_t lo = 1, hi = top;
            while (lo < hi) {
                uint64_t mid = lo + (hi - lo) / 2;
                if (sat_cs_hit_ratio(c, mid) >= t->target)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            t->entries = lo;
        } else {
            t->entries = unique_all;
        }
        t->bytes = (double)t->entries * v->entry_bytes;
    }
    v->targets = c->tg;
    v->ntargets = c->o.ntargets;
    rc = working_set(c);
    if (rc < 0)
        return rc;
    /* the suggestion */
    v->backend = last && last->backend[0] ? last->backend : "userRoot";
    uint64_t want = 0;
    for (size_t i = 0; i < v->ntargets; i++)
        if (c->tg[i].entries > want)
            want = c->tg[i].entries;
    v->cachememsize = n > 0 && !isnan(v->entry_bytes) ? round_mib((double)want * v->entry_bytes) : 0;
    v->dncachememsize =
        n > 0 && !isnan(v->dn_entry_bytes) ? round_mib(v->unique * v->dn_entry_bytes) : 0;
    v->db_kind = c->o.db_kind;
    v->db_index_bytes = c->o.db_index_bytes;
    v->db_id2entry_bytes = c->o.db_id2entry_bytes;
    v->db_files = c->o.db_files;
    v->dbcachesize = 0;
    if (c->o.db_kind == SAT_CS_DB_BDB)
        db_cache(c, v);
    /* cn=monitor */
    v->nmonitor = c->o.nmonitor;
    v->monitor = c->mon;
    v->measured_interval = 0;
    v->server_reads = NAN;
    v->measured_hit = v->measured_dn_hit = NAN;
    v->current_entries = v->predicted_hit = NAN;
    if (last) {
        const sat_cs_monitor *first = &c->mon[0];
        int two = c->o.nmonitor == 2, iv = 0, ivd = 0;
        v->measured_hit = measured(first->entry_hits, first->entry_tries, last->entry_hits,
                                   last->entry_tries, two, &iv);
        v->measured_dn_hit =
            measured(first->dn_hits, first->dn_tries, last->dn_hits, last->dn_tries, two, &ivd);
        v->measured_interval = iv;
        if (last->entry_max_bytes > 0 && v->entry_bytes > 0)
            v->current_entries = floor((double)last->entry_max_bytes / v->entry_bytes);
        if (last->entry_max_count > 0 &&
            (isnan(v->current_entries) || (double)last->entry_max_count < v->current_entries))
            v->current_entries = (double)last->entry_max_count;
        if (!isnan(v->current_entries) && n > 0)
            v->predicted_hit = sat_cs_hit_ratio(c, (uint64_t)v->current_entries);
        if (iv)
            v->server_reads = (double)(last->entry_tries - first->entry_tries);
    }
    /* how much of the server's entry reads the log names (see the top) */
    v->reads_from = v->server_reads > 0 ? "cn=monitor" : "estimate";
    if (!(v->server_reads > 0))
        v->server_reads = n + (double)(v->unseen_entries > v->unseen_ops ? v->unseen_entries
                                                                          : v->unseen_ops);
    v->seen_reads_share = v->server_reads > 0 ? (n < v->server_reads ? n / v->server_reads : 1.0)
                                              : NAN;
    v->most_reads_unseen = !isnan(v->seen_reads_share) && v->seen_reads_share < 0.5;
    v->memory_bytes = c->mrc.cap * sizeof *c->mrc.refs + c->mrc.runcap * sizeof *c->mrc.runs +
                      sat_strtab_bytes(&c->hours.tab);
    return SAT_OK;
}

const sat_cs_view *sat_cs_get_view(const sat_cs *c)
{
    return c && c->finished ? &c->v : NULL;
}
