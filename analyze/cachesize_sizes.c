/*
 * cachesize_sizes.c - what the cachesize analyzer's result says beyond its
 * counters, from its accumulators once the curve is built
 * (cachesize_internal.h cs_sizes; written by cachesize_result.c): the
 * curve's points, the least size for each target hit ratio, the working set
 * per hour, the entry / DN / DB cache sizes, and the comparison with
 * cn=monitor.
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
    const cs_hour *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

int cs_working_set(const sat_cs *c, cs_hour **hours, size_t *nhours)
{
    const cs_mrc *m = &c->mrc;
    size_t nh = sat_keyed_n(&c->hours);
    cs_hour *hv = calloc(nh ? nh : 1, sizeof *hv);
    if (!hv)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < nh; i++) {
        int64_t h;
        memcpy(&h, sat_keyed_key(&c->hours, i), sizeof h);
        hv[i].start = h * (sat_ts_ns)3600 * 1000000000;
        hv[i].refs = ((const cs_count *)sat_keyed_rec(&c->hours, i))->n;
    }
    qsort(hv, nh, sizeof *hv, cmp_hour);
    /* distinct (hour, key) pairs of the kept stream, sorted */
    hk *p = malloc((m->nrefs ? m->nrefs : 1) * sizeof *p);
    if (!p) {
        free(hv);
        return SAT_E_NOMEM;
    }
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
    double scale = 1.0 / cs_mrc_keep_rate(m);
    size_t j = 0;
    for (size_t i = 0; i < np; i++) {
        if (i > 0 && p[i].hour == p[i - 1].hour && p[i].key == p[i - 1].key)
            continue;
        sat_ts_ns st = p[i].hour * (sat_ts_ns)3600 * 1000000000;
        while (j < nh && hv[j].start < st)
            j++;
        if (j < nh && hv[j].start == st)
            hv[j].distinct += scale;
    }
    free(p);
    *hours = hv;
    *nhours = nh;
    return SAT_OK;
}

/* ---- sizes ---------------------------------------------------------------------- */

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
static void db_cache(const sat_cs *c, cs_sizes *z)
{
    size_t len = 0;
    z->db_indexes_used = 0;
    z->db_used_index_bytes = 0;
    z->db_used_names[0] = '\0';
    for (size_t i = 0; i < c->o.db_nlist; i++) {
        const char *name = c->o.db_list[i].name;
        size_t n = strlen(name);
        char low[64];
        if (n >= sizeof low)
            continue;
        for (size_t k = 0; k <= n; k++)
            low[k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] - 'A' + 'a' : name[k]);
        int used = !strcmp(low, "entryrdn") ||
                   (!strcmp(low, "ancestorid") && c->s.n.unseen_subtree) ||
                   sat_strtab_find(&c->attrs.tab, low, n) != NULL;
        if (!used)
            continue;
        z->db_indexes_used++;
        z->db_used_index_bytes += c->o.db_list[i].bytes;
        int w = snprintf(z->db_used_names + len, sizeof z->db_used_names - len, "%s%s",
                         len ? " " : "", name);
        if (w > 0 && (size_t)w < sizeof z->db_used_names - len)
            len += (size_t)w;
    }
    double part = 1.0;
    if (c->o.ldif_entries && z->unique > 0 && z->unique < (double)c->o.ldif_entries)
        part = z->unique / (double)c->o.ldif_entries;
    z->db_id2entry_part = (uint64_t)ceil(part * (double)c->o.db_id2entry_bytes);
    z->dbcachesize = round_mib((double)(z->db_used_index_bytes + z->db_id2entry_part));
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

/* Bytes an entry takes in the entry cache and in the DN cache (see the top). */
static void entry_sizes(const sat_cs *c, const sat_cs_monitor *last, cs_sizes *z)
{
    z->entry_bytes = NAN;
    z->entry_bytes_from = NULL;
    if (c->o.entry_bytes > 0) {
        z->entry_bytes = c->o.entry_bytes;
        z->entry_bytes_from = "--entry-size";
    } else if (last && last->entry_cur_bytes > 0 && last->entry_cur_count > 0) {
        z->entry_bytes = (double)last->entry_cur_bytes / (double)last->entry_cur_count;
        z->entry_bytes_from = "cn=monitor";
    } else if (c->o.ldif_entries && c->o.ldif_bytes) {
        z->entry_bytes = (double)c->o.ldif_bytes / (double)c->o.ldif_entries;
        z->entry_bytes_from = "LDIF export";
    }
    if (last && last->dn_cur_bytes > 0 && last->dn_cur_count > 0) {
        z->dn_entry_bytes = (double)last->dn_cur_bytes / (double)last->dn_cur_count;
        z->dn_bytes_from = "cn=monitor";
    } else {
        z->dn_entry_bytes =
            isnan(c->mrc.dn_mean_len) ? NAN : 2.0 * c->mrc.dn_mean_len + SAT_CS_DN_OVERHEAD;
        z->dn_bytes_from = "estimate";
    }
}

/* The curve's points (20 linear steps and 30 geometric ones up to the top)
 * and the least size reaching each target (a binary search on the monotone
 * curve). */
static void curve_points(const sat_cs *c, cs_sizes *z)
{
    double n = (double)c->s.n.references;
    uint64_t top = n > 0 ? cs_mrc_top(&c->mrc) : 0;
    if (top < 1 && n > 0)
        top = 1;
    uint64_t pts[CS_MAX_POINTS];
    size_t np = 0;
    pts[np++] = 0;
    if (top) {
        for (int k = 1; k <= 20; k++)
            pts[np++] = (uint64_t)llround((double)top * k / 20.0);
        for (int k = 0; k < 30; k++)
            pts[np++] = (uint64_t)llround(pow((double)top, k / 29.0));
    }
    qsort(pts, np, sizeof pts[0], cmp_u64);
    z->nmrc = 0;
    for (size_t i = 0; i < np; i++) {
        if (i && pts[i] == pts[i - 1])
            continue;
        cs_point *p = &z->mrc[z->nmrc++];
        p->entries = pts[i];
        p->hit_ratio = n > 0 ? sat_cs_hit_ratio(c, pts[i]) : NAN;
        p->bytes = (double)pts[i] * z->entry_bytes;
    }
    uint64_t unique_all = (uint64_t)llround(z->unique);
    z->ntargets = c->o.ntargets;
    for (size_t i = 0; i < c->o.ntargets; i++) {
        cs_target *t = &z->targets[i];
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
        t->bytes = (double)t->entries * z->entry_bytes;
    }
}

/* The comparison with cn=monitor, and how much of the server's entry reads
 * the log names (see the top). */
static void monitor_reads(const sat_cs *c, const sat_cs_monitor *last, cs_sizes *z)
{
    const cs_counts *k = &c->s.n;
    double n = (double)k->references;
    z->measured_interval = 0;
    z->server_reads = NAN;
    z->measured_hit = z->measured_dn_hit = NAN;
    z->current_entries = z->predicted_hit = NAN;
    if (last) {
        const sat_cs_monitor *first = &c->mon[0];
        int two = c->o.nmonitor == 2, iv = 0, ivd = 0;
        z->measured_hit = measured(first->entry_hits, first->entry_tries, last->entry_hits,
                                   last->entry_tries, two, &iv);
        z->measured_dn_hit =
            measured(first->dn_hits, first->dn_tries, last->dn_hits, last->dn_tries, two, &ivd);
        z->measured_interval = iv;
        if (last->entry_max_bytes > 0 && z->entry_bytes > 0)
            z->current_entries = floor((double)last->entry_max_bytes / z->entry_bytes);
        if (last->entry_max_count > 0 &&
            (isnan(z->current_entries) || (double)last->entry_max_count < z->current_entries))
            z->current_entries = (double)last->entry_max_count;
        if (!isnan(z->current_entries) && n > 0)
            z->predicted_hit = sat_cs_hit_ratio(c, (uint64_t)z->current_entries);
        if (iv)
            z->server_reads = (double)(last->entry_tries - first->entry_tries);
    }
    z->reads_from = z->server_reads > 0 ? "cn=monitor" : "estimate";
    if (!(z->server_reads > 0))
        z->server_reads = n + (double)(k->unseen_entries > k->unseen_ops ? k->unseen_entries
                                                                         : k->unseen_ops);
    z->seen_reads_share = z->server_reads > 0 ? (n < z->server_reads ? n / z->server_reads : 1.0)
                                              : NAN;
    z->most_reads_unseen = !isnan(z->seen_reads_share) && z->seen_reads_share < 0.5;
}

void cs_sizes_of(const sat_cs *c, cs_sizes *z)
{
    memset(z, 0, sizeof *z);
    const cs_counts *k = &c->s.n;
    double n = (double)k->references;
    double denom = (double)k->naming_ops + (double)k->unseen_ops;
    z->unique = c->mrc.unique;
    z->unseen_share = denom > 0 ? (double)k->unseen_ops / denom : NAN;
    z->max_hit_ratio = n > 0 ? (n - z->unique) / n : NAN;
    if (z->max_hit_ratio < 0)
        z->max_hit_ratio = 0;
    const sat_cs_monitor *last = c->o.nmonitor ? &c->mon[c->o.nmonitor - 1] : NULL;
    entry_sizes(c, last, z);
    curve_points(c, z);
    /* the suggestion */
    z->backend = last && last->backend[0] ? last->backend : "userRoot";
    uint64_t want = 0;
    for (size_t i = 0; i < z->ntargets; i++)
        if (z->targets[i].entries > want)
            want = z->targets[i].entries;
    z->cachememsize = n > 0 && !isnan(z->entry_bytes) ? round_mib((double)want * z->entry_bytes)
                                                      : 0;
    z->dncachememsize =
        n > 0 && !isnan(z->dn_entry_bytes) ? round_mib(z->unique * z->dn_entry_bytes) : 0;
    if (c->o.db_kind == SAT_CS_DB_BDB)
        db_cache(c, z);
    monitor_reads(c, last, z);
}
