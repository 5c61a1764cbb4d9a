/*
 * cachesize.c - the cache-sizing analyzer (issue 6 "satscope cachesize"): the
 * entry reference stream of the logs, its LRU miss-ratio curve, the working
 * set per hour, and the entry / DN / DB cache sizes for target hit ratios.
 *
 * The reference stream (one reference per DN an operation names):
 *   BIND with a non-empty dn; ADD, MOD, DEL, CMP dn; MODRDN dn and the new DN
 *   (newrdn + newsuperior, or + the old parent when newsuperior is absent or
 *   "(null)"; OpenLDAP's stats log does not name the new RDN, so there only the
 *   old DN counts); SRCH base when scope=base. Internal operations count too (their
 *   reads go through the same cache). DNs are normalized: ASCII lower case,
 *   blanks after (and before) commas and at both ends removed; a DN longer
 *   than 4096 bytes is keyed on its first 4096 and its length.
 *   Not references: the root DSE (""), cn=config, cn=schema, cn=monitor and
 *   their subtrees, and the root DN "cn=directory manager" (no backend entry:
 *   counted as `outside`); BINDs without a dn (anonymous, SASL steps); an
 *   operation answered "no such entry" (err=32 noSuchObject, or a BIND
 *   answered err=49 with 389's text "No such entry": 389 answers a bind to a
 *   DN that does not exist as invalid credentials): it read no entry into
 *   the cache, and its DN is none (counted as `missing`; OpenLDAP's err=49
 *   says no more than "invalid credentials", so there such binds still count).
 *   What the curve cannot see: one-level and subtree searches (and searches
 *   whose scope was not logged) read entries the log does not name; they are
 *   counted, with the unindexed ones (notes A/U), the entries they returned
 *   and the 389 ENTRY lines (level 512; the parser keeps their count, not
 *   their DNs), and their share of the operations is reported.
 *   How much of the server's entry reads the log sees: with two cn=monitor
 *   snapshots, the references against the entry cache lookups 389 counted
 *   between them (entrycachetries); without, the references against the
 *   entries the unseen searches returned (at least one read each). When the
 *   log names fewer than half (`most_reads_unseen`), the curve describes a
 *   stream the server did not see (search-then-bind: the bind finds the entry
 *   its search just read, a hit the log shows as a first reference) and the
 *   report says so beside the measured ratio.
 *
 * Storage and merging: each reference is kept as 8 bytes (a 48-bit hash of
 * the DN and its length), in order, so that merge is concatenation and the
 * curve of several days or servers is that of the combined stream. Past
 * opts.max_refs kept references, the stream is spatially sampled (a reference
 * is kept when hash(key) <= keep_max; keep_max halves until it fits), which is
 * the first step of SHARDS and leaves a stream SHARDS can finish.
 *
 * The curve (at finish):
 *   exact   Mattson et al. 1970: an LRU stack distance per reference, the
 *           number of distinct keys referenced since the key's last reference
 *           plus one, counted with a Fenwick tree over reference times (one
 *           mark per key, at its last reference; times renumbered when the
 *           axis fills, so memory is O(distinct keys)). hits(c) = references
 *           with distance <= c: exact.
 *   SHARDS  Waldspurger et al., "Efficient MRC Construction with SHARDS",
 *           FAST'15, fixed-size variant: a key is sampled when its spatial
 *           hash T_i <= T; at most s_max sampled keys are tracked, and when
 *           one more arrives the key with the largest T_i is evicted and T is
 *           lowered below it (rate R = T / 2^64). A sampled reference's
 *           distance is scaled by 1/R and counted with weight 1/R (the same
 *           as rescaling the histogram when R drops); the SHARDS_adj
 *           correction adds (references - the weights' sum) to the first
 *           bucket. Scaled distances go to log buckets (exact to 4095, then
 *           256 per doubling) read with linear interpolation.
 *           Used when the stream was sampled to fit max_refs, or when asked.
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
 */
#include <math.h>
#include <stdlib.h>

#include "satscope/analyze.h"
#include "strtab.h"

#define SAT_CS_DN_OVERHEAD 120.0
#define CS_MIN_CACHE 512000u
#define CS_MAX_DN 4096
#define CS_FREE UINT32_MAX
#define CS_NB_EXACT 4096
#define CS_NBUCKETS (CS_NB_EXACT + 52 * 256)

typedef struct cs_run {
    uint64_t at;   /* index in refs where the hour begins */
    int64_t hour;  /* hours since the epoch; INT64_MIN: unknown */
} cs_run;

struct sat_cs {
    sat_cs_opts o;
    sat_cs_monitor mon[2];
    uint64_t *refs; /* (hash48 << 16) | min(len, 65535) */
    size_t nrefs, cap;
    uint64_t keep_max;
    cs_run *runs;
    size_t nruns, runcap;
    sat_strtab hours; /* int64 hour -> uint64 refs */
    sat_strtab attrs; /* lowercased attribute of a search filter -> uint64 uses */
    int nomem;
    sat_cs_view v;
    /* results */
    int finished;
    uint64_t *cum;    /* exact: cum[d] = hits with a cache of d entries, d <= maxd */
    size_t maxd;
    double *bcum;     /* SHARDS: cumulative weight per bucket */
    double *bw;       /* SHARDS: weight per bucket */
    double adj;
    sat_cs_point *mrc;
    sat_cs_target tg[SAT_CS_MAX_TARGETS];
    sat_cs_hour *hv;
};

/* ---- DN normalization ------------------------------------------------------------ */

static size_t normalize_dn(const char *s, size_t n, char *out)
{
    size_t o = 0, i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    for (; i < n && o < CS_MAX_DN; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == ',') {
            while (o > 0 && out[o - 1] == ' ')
                o--;
            out[o++] = ',';
            while (i + 1 < n && (s[i + 1] == ' ' || s[i + 1] == '\t'))
                i++;
            continue;
        }
        out[o++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    return o;
}

static int ends_with_rdn(const char *d, size_t n, const char *rdn)
{
    size_t k = strlen(rdn);
    if (n == k)
        return memcmp(d, rdn, k) == 0;
    return n > k && d[n - k - 1] == ',' && memcmp(d + n - k, rdn, k) == 0;
}

static int outside_backend(const char *d, size_t n)
{
    return n == 0 || ends_with_rdn(d, n, "cn=config") || ends_with_rdn(d, n, "cn=schema") ||
           ends_with_rdn(d, n, "cn=monitor") ||
           (n == 20 && memcmp(d, "cn=directory manager", 20) == 0);
}

/* ---- the stored stream ----------------------------------------------------------- */

static uint64_t spatial(uint64_t key) { return sat_hash_u64(key ^ 0x9e3779b97f4a7c15ULL); }

static int64_t hour_of(sat_ts_ns ts)
{
    if (ts <= 0)
        return INT64_MIN;
    return ts / ((sat_ts_ns)3600 * 1000000000);
}

/* keep only references whose spatial hash is <= keep, the hour runs aligned */
static void filter_to(sat_cs *c, uint64_t keep)
{
    c->keep_max = keep;
    size_t w = 0, r = 0;
    for (size_t i = 0; i < c->nrefs; i++) {
        while (r < c->nruns && c->runs[r].at == i)
            c->runs[r++].at = w;
        if (spatial(c->refs[i] >> 16) <= keep)
            c->refs[w++] = c->refs[i];
    }
    while (r < c->nruns)
        c->runs[r++].at = w;
    c->nrefs = w;
}

/* halve the rate until the kept stream fits max_refs */
static void thin(sat_cs *c)
{
    while (c->nrefs > c->o.max_refs && c->keep_max > 0)
        filter_to(c, c->keep_max >> 1);
}

static int push_ref(sat_cs *c, uint64_t ref, int64_t hour)
{
    if (c->nruns == 0 || c->runs[c->nruns - 1].hour != hour) {
        if (c->nruns == c->runcap) {
            size_t nc = c->runcap ? 2 * c->runcap : 64;
            cs_run *nr = realloc(c->runs, nc * sizeof *nr);
            if (!nr)
                return SAT_E_NOMEM;
            c->runs = nr;
            c->runcap = nc;
        }
        c->runs[c->nruns].at = c->nrefs;
        c->runs[c->nruns++].hour = hour;
    }
    if (c->nrefs == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 4096;
        uint64_t *nr = realloc(c->refs, nc * sizeof *nr);
        if (!nr)
            return SAT_E_NOMEM;
        c->refs = nr;
        c->cap = nc;
    }
    c->refs[c->nrefs++] = ref;
    if (c->nrefs > c->o.max_refs)
        thin(c);
    return SAT_OK;
}

static int count_hour(sat_cs *c, int64_t hour, uint64_t n)
{
    if (hour == INT64_MIN)
        return SAT_OK;
    int capped;
    uint64_t *p = sat_strtab_upsert(&c->hours, &hour, sizeof hour, NULL, &capped);
    if (!p)
        return SAT_E_NOMEM;
    *p += n;
    return SAT_OK;
}

static int add_norm(sat_cs *c, const char *d, size_t n, sat_ts_ns ts)
{
    uint64_t key = sat_strtab_hash(d, n) >> 16;
    if (n >= CS_MAX_DN)
        key ^= sat_hash_u64(n) >> 16; /* truncated: the length tells long DNs apart */
    uint64_t ref = key << 16 | (n > 65535 ? 65535 : n);
    int64_t hour = hour_of(ts);
    c->v.references++;
    if (c->v.first_ts == 0 || (ts > 0 && ts < c->v.first_ts))
        c->v.first_ts = ts;
    if (ts > c->v.last_ts)
        c->v.last_ts = ts;
    int rc = count_hour(c, hour, 1);
    if (rc == SAT_OK && spatial(key) <= c->keep_max)
        rc = push_ref(c, ref, hour);
    if (rc < 0)
        c->nomem = 1;
    return rc;
}

int sat_cs_add_ref(sat_cs *c, const char *dn, size_t len, sat_ts_ns ts)
{
    char buf[CS_MAX_DN];
    size_t n = normalize_dn(dn, len, buf);
    return add_norm(c, buf, n, ts);
}

/* 1 if a reference was added */
static int ref_str(sat_cs *c, sat_str dn, const sat_ldap_op *op)
{
    if (!dn.ptr)
        return 0;
    char buf[CS_MAX_DN];
    size_t n = normalize_dn(dn.ptr, dn.len, buf);
    if (outside_backend(buf, n)) {
        c->v.outside++;
        return 0;
    }
    add_norm(c, buf, n, op->ts_ns);
    c->v.refs_by_type[op->type < SAT_OP__COUNT ? op->type : 0]++;
    if (op->internal_depth)
        c->v.internal_refs++;
    return 1;
}

/* value of key= in s: "quoted" (389 logs), or bare (captures: dis_ldap.c writes
 * newrdn=RDN newsuperior=DN); 0 if absent */
static int extra_value(sat_str s, const char *key, sat_str *out)
{
    size_t k = strlen(key);
    for (size_t i = 0; i + k <= s.len; i++) {
        if ((i == 0 || s.ptr[i - 1] == ' ') && memcmp(s.ptr + i, key, k) == 0) {
            size_t j = i + k, e;
            if (j < s.len && s.ptr[j] == '"') {
                j++;
                for (e = j; e < s.len && s.ptr[e] != '"'; e++)
                    ;
            } else { /* the wire's form: up to " newsuperior=" (an RDN may hold blanks) */
                static const char sup[] = " newsuperior=";
                for (e = j; e < s.len; e++)
                    if (e + sizeof sup - 1 <= s.len && !memcmp(s.ptr + e, sup, sizeof sup - 1))
                        break;
            }
            *out = sat_str_make(s.ptr + j, e - j);
            return 1;
        }
    }
    return 0;
}

static int modrdn_new_dn(const sat_ldap_op *op, char *buf, size_t cap, size_t *len)
{
    sat_str rdn, sup;
    if (!op->extra.ptr || !op->dn.ptr || !extra_value(op->extra, "newrdn=", &rdn) || !rdn.len)
        return 0;
    if (!extra_value(op->extra, "newsuperior=", &sup) || !sup.len ||
        (sup.len == 6 && !memcmp(sup.ptr, "(null)", 6))) {
        /* the old parent: after the first comma not escaped by a backslash */
        sup = sat_str_make("", 0);
        for (size_t i = 0; i < op->dn.len; i++) {
            if (op->dn.ptr[i] == '\\') {
                i++;
                continue;
            }
            if (op->dn.ptr[i] == ',') {
                sup = sat_str_make(op->dn.ptr + i + 1, op->dn.len - i - 1);
                break;
            }
        }
    }
    size_t n = 0;
    for (size_t i = 0; i < rdn.len && n < cap; i++)
        buf[n++] = rdn.ptr[i];
    if (sup.len && n < cap)
        buf[n++] = ',';
    for (size_t i = 0; i < sup.len && n < cap; i++)
        buf[n++] = sup.ptr[i];
    *len = n;
    return 1;
}

/* The attributes an RFC 4515 filter string tests ("(&(uid=a)(cn=*b*))": uid,
 * cn), lowercased, options cut: the indexes a search reads. */
static void count_filter_attrs(sat_cs *c, sat_str f)
{
    const char *p = f.ptr, *end = p ? p + f.len : NULL;
    while (p && p < end) {
        if (*p++ != '(')
            continue;
        while (p < end && (*p == '&' || *p == '|' || *p == '!'))
            p++;
        char a[64];
        size_t n = 0;
        while (p < end && n < sizeof a &&
               ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || *p == '-' || *p == '.')) {
            a[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
            p++;
        }
        while (p < end && *p == ';') /* options: ;binary, ;lang-x */
            while (p < end && *p != '=' && *p != '~' && *p != '<' && *p != '>' && *p != ':')
                p++;
        if (!n || n == sizeof a || p >= end ||
            (*p != '=' && *p != '~' && *p != '<' && *p != '>' && *p != ':'))
            continue;
        int capped;
        uint64_t *k = (uint64_t *)sat_strtab_upsert(&c->attrs, a, n, NULL, &capped);
        if (k)
            (*k)++;
    }
}

/* The DNs of a search's 389 ENTRY lines (access-log level 512): the entries a
 * one-level or subtree search returned, which the log names no other way.
 * Returns how many were references. */
static int entry_refs(sat_cs *c, const sat_ldap_op *op)
{
    int n = 0;
    const char *p = op->entry_dns.ptr, *end = p + op->entry_dns.len;
    while (p && p < end) {
        const char *e = (const char *)memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        if (ref_str(c, sat_str_make(p, (size_t)(e - p)), op)) {
            c->v.refs_by_type[SAT_OP_SRCH]--; /* counted below as what it is */
            c->v.entry_refs++;
            n++;
        }
        p = e + 1;
    }
    return n;
}

/* The answer says the entry the operation names does not exist (see the top). */
static int names_missing_entry(const sat_ldap_op *op)
{
    if (op->err == 32)
        return 1;
    static const char nse[] = "no such entry";
    const size_t k = sizeof nse - 1;
    if (op->type != SAT_OP_BIND || op->err != 49 || !op->text.ptr || op->text.len < k)
        return 0;
    for (size_t i = 0; i + k <= op->text.len; i++) {
        size_t j = 0;
        for (; j < k; j++) {
            char ch = op->text.ptr[i + j];
            if ((ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch) != nse[j])
                break;
        }
        if (j == k)
            return 1;
    }
    return 0;
}

static int on_op(void *ctx, const sat_ldap_op *op)
{
    sat_cs *c = ctx;
    sat_cs_view *v = &c->v;
    v->ops++;
    v->entry_lines += op->entry_lines;
    int refs = 0;
    if (op->type != SAT_OP_UNKNOWN && op->type != SAT_OP_UNBIND && op->type != SAT_OP_ABANDON &&
        op->type != SAT_OP_EXT && op->type != SAT_OP_AUTOBIND && names_missing_entry(op)) {
        v->missing++;
        return SAT_OK;
    }
    switch (op->type) {
    case SAT_OP_BIND:
        if (op->dn.ptr && op->dn.len)
            refs += ref_str(c, op->dn, op);
        else
            v->no_dn++;
        break;
    case SAT_OP_ADD:
    case SAT_OP_MOD:
    case SAT_OP_DEL:
    case SAT_OP_CMP:
        refs += ref_str(c, op->dn, op);
        break;
    case SAT_OP_MODRDN: {
        refs += ref_str(c, op->dn, op);
        char buf[CS_MAX_DN];
        size_t n;
        if (modrdn_new_dn(op, buf, sizeof buf, &n) &&
            ref_str(c, sat_str_make(buf, n), op)) {
            v->modrdn_new++;
            refs++;
        }
        break;
    }
    case SAT_OP_SRCH:
        /* a base search reads its entry directly (its filter is tested on
         * it): only the others look their filter's attributes up in indexes */
        if (op->scope != SAT_SCOPE_BASE)
            count_filter_attrs(c, op->filter);
        if (op->scope == SAT_SCOPE_BASE) {
            refs += ref_str(c, op->dn, op); /* its ENTRY line would be the same entry */
        } else if (op->entry_dns.len) {
            refs += entry_refs(c, op); /* what it returned is named: not unseen */
        } else {
            v->unseen_ops++;
            if (op->scope == SAT_SCOPE_ONE)
                v->unseen_onelevel++;
            else
                v->unseen_subtree++; /* subtree, or scope not logged */
            if (op->notes & (SAT_NOTE_A | SAT_NOTE_U))
                v->unseen_unindexed++;
            if (op->nentries > 0)
                v->unseen_entries += (uint64_t)op->nentries;
        }
        break;
    default:
        break;
    }
    if (refs)
        v->naming_ops++;
    return c->nomem ? SAT_E_NOMEM : SAT_OK;
}

/* which figures the inputs can hold (fields.h): unindexed searches need notes= */
static int on_source(void *ctx, const sat_source *s)
{
    sat_cs *c = ctx;
    sat_fields_see(&c->v.fields, s);
    return SAT_OK;
}

static int on_row(void *ctx, int table, const void *row)
{
    switch (table) {
    case SAT_TABLE_SOURCE:
        return on_source(ctx, (const sat_source *)row);
    case SAT_TABLE_LDAP_OP:
        return on_op(ctx, (const sat_ldap_op *)row);
    default:
        return SAT_OK;
    }
}

sat_event_sink sat_cs_sink(sat_cs *c)
{
    sat_event_sink k = {c,
                        SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_LDAP_OP),
                        on_row};
    return k;
}

sat_cs *sat_cs_create(const sat_cs_opts *opts)
{
    sat_cs *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (opts)
        c->o = *opts;
    c->o.monitor = NULL;
    c->o.nmonitor = 0;
    if (opts && opts->monitor)
        for (size_t i = 0; i < opts->nmonitor && i < 2; i++)
            c->mon[c->o.nmonitor++] = opts->monitor[i];
    if (!c->o.max_refs)
        c->o.max_refs = (uint64_t)16 << 20;
    if (!c->o.shards_smax)
        c->o.shards_smax = 32768;
    size_t nt = 0;
    for (size_t i = 0; i < c->o.ntargets && i < SAT_CS_MAX_TARGETS; i++)
        if (c->o.targets[i] > 0 && c->o.targets[i] < 1)
            c->o.targets[nt++] = c->o.targets[i];
    if (!nt) {
        c->o.targets[nt++] = 0.95;
        c->o.targets[nt++] = 0.99;
    }
    c->o.ntargets = nt;
    c->keep_max = UINT64_MAX;
    sat_strtab_init(&c->hours, sizeof(uint64_t), 0);
    sat_strtab_init(&c->attrs, sizeof(uint64_t), 4096);
    return c;
}

static void free_results(sat_cs *c)
{
    free(c->cum);
    free(c->bcum);
    free(c->bw);
    free(c->mrc);
    free(c->hv);
    c->cum = NULL;
    c->bcum = c->bw = NULL;
    c->mrc = NULL;
    c->hv = NULL;
    c->finished = 0;
}

void sat_cs_free(sat_cs *c)
{
    if (!c)
        return;
    free_results(c);
    free(c->refs);
    free(c->runs);
    sat_strtab_free(&c->hours);
    sat_strtab_free(&c->attrs);
    free(c);
}

int sat_cs_merge(sat_cs *into, const sat_cs *from)
{
    if (!into || !from)
        return SAT_E_USAGE;
    int refinish = into->finished;
    sat_cs_view *a = &into->v;
    const sat_cs_view *b = &from->v;
    /* counts that add up */
    a->references += b->references;
    for (int t = 0; t < SAT_OP__COUNT; t++)
        a->refs_by_type[t] += b->refs_by_type[t];
    a->modrdn_new += b->modrdn_new;
    a->internal_refs += b->internal_refs;
    a->ops += b->ops;
    a->naming_ops += b->naming_ops;
    a->unseen_ops += b->unseen_ops;
    a->unseen_onelevel += b->unseen_onelevel;
    a->unseen_subtree += b->unseen_subtree;
    a->unseen_unindexed += b->unseen_unindexed;
    a->unseen_entries += b->unseen_entries;
    a->entry_lines += b->entry_lines;
    a->entry_refs += b->entry_refs;
    a->outside += b->outside;
    a->no_dn += b->no_dn;
    a->missing += b->missing;
    sat_fields_merge(&a->fields, &b->fields);
    if (b->first_ts && (!a->first_ts || b->first_ts < a->first_ts))
        a->first_ts = b->first_ts;
    if (b->last_ts > a->last_ts)
        a->last_ts = b->last_ts;
    for (size_t i = 0; i < from->hours.n; i++) {
        int64_t h;
        memcpy(&h, sat_strtab_key(&from->hours, i), sizeof h);
        if (count_hour(into, h, *(const uint64_t *)sat_strtab_val(&from->hours, i)) < 0)
            return SAT_E_NOMEM;
    }
    /* the stream: from's references after into's, at the lower rate */
    if (from->keep_max < into->keep_max)
        filter_to(into, from->keep_max);
    size_t r = 0;
    for (size_t i = 0; i < from->nrefs; i++) {
        while (r + 1 < from->nruns && from->runs[r + 1].at <= i)
            r++;
        uint64_t ref = from->refs[i];
        if (spatial(ref >> 16) <= into->keep_max &&
            push_ref(into, ref, from->nruns ? from->runs[r].hour : INT64_MIN) < 0)
            return SAT_E_NOMEM;
    }
    if (refinish)
        return sat_cs_finish(into);
    return SAT_OK;
}

/* ---- the LRU stack: keys, their last reference time, a Fenwick tree ---------------- */

typedef struct cs_stack {
    uint64_t *keys;  /* key + 1; 0 empty */
    uint32_t *tim;   /* slot -> time of its last reference */
    size_t cap, n;
    uint32_t *fen;   /* 1-based over times [0, F) */
    uint32_t *owner; /* time -> slot, CS_FREE */
    size_t F, now, marked;
} cs_stack;

static void stack_free(cs_stack *s)
{
    free(s->keys);
    free(s->tim);
    free(s->fen);
    free(s->owner);
    memset(s, 0, sizeof *s);
}

static int stack_init(cs_stack *s, size_t keys_hint)
{
    memset(s, 0, sizeof *s);
    s->cap = 1024;
    while (s->cap < 2 * keys_hint)
        s->cap <<= 1;
    s->F = 1024;
    s->keys = calloc(s->cap, sizeof *s->keys);
    s->tim = malloc(s->cap * sizeof *s->tim);
    s->fen = calloc(s->F + 1, sizeof *s->fen);
    s->owner = malloc(s->F * sizeof *s->owner);
    if (!s->keys || !s->tim || !s->fen || !s->owner) {
        stack_free(s);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < s->F; i++)
        s->owner[i] = CS_FREE;
    return SAT_OK;
}

static size_t slot_of(const cs_stack *s, uint64_t key)
{
    return (size_t)sat_hash_u64(key) & (s->cap - 1);
}

static void fen_add(cs_stack *s, size_t t, int32_t d)
{
    for (size_t i = t + 1; i <= s->F; i += i & (~i + 1))
        s->fen[i] += (uint32_t)d;
}

static size_t fen_prefix(const cs_stack *s, size_t t) /* marks at times 0..t */
{
    size_t sum = 0;
    for (size_t i = t + 1; i > 0; i -= i & (~i + 1))
        sum += s->fen[i];
    return sum;
}

static int stack_grow_table(cs_stack *s)
{
    size_t nc = s->cap * 2;
    uint64_t *nk = calloc(nc, sizeof *nk);
    uint32_t *nt = malloc(nc * sizeof *nt);
    if (!nk || !nt) {
        free(nk);
        free(nt);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->keys[i])
            continue;
        size_t j = (size_t)sat_hash_u64(s->keys[i] - 1) & (nc - 1);
        while (nk[j])
            j = (j + 1) & (nc - 1);
        nk[j] = s->keys[i];
        nt[j] = s->tim[i];
        s->owner[s->tim[i]] = (uint32_t)j;
    }
    free(s->keys);
    free(s->tim);
    s->keys = nk;
    s->tim = nt;
    s->cap = nc;
    return SAT_OK;
}

/* renumber the marked times 0..marked-1 in order; widen the axis if half full */
static int stack_compact(cs_stack *s)
{
    size_t k = 0;
    for (size_t t = 0; t < s->now; t++) {
        uint32_t sl = s->owner[t];
        if (sl == CS_FREE)
            continue;
        s->tim[sl] = (uint32_t)k;
        s->owner[k++] = sl;
    }
    if (2 * k >= s->F) {
        size_t nf = s->F * 2;
        uint32_t *no = realloc(s->owner, nf * sizeof *no);
        if (!no)
            return SAT_E_NOMEM;
        s->owner = no;
        uint32_t *nfen = realloc(s->fen, (nf + 1) * sizeof *nfen);
        if (!nfen)
            return SAT_E_NOMEM;
        s->fen = nfen;
        s->F = nf;
    }
    for (size_t t = k; t < s->F; t++)
        s->owner[t] = CS_FREE;
    memset(s->fen, 0, (s->F + 1) * sizeof *s->fen);
    for (size_t i = 1; i <= k; i++)
        s->fen[i] = 1;
    for (size_t i = 1; i <= s->F; i++) {
        size_t j = i + (i & (~i + 1));
        if (j <= s->F)
            s->fen[j] += s->fen[i];
    }
    s->now = k;
    return SAT_OK;
}

/* A reference to key: its stack distance (0: first reference), or < 0 on no memory.
 * *is_new says whether the key was inserted. */
static int64_t stack_access(cs_stack *s, uint64_t key, int *is_new)
{
    if (s->now == s->F && stack_compact(s) < 0)
        return SAT_E_NOMEM;
    if (2 * (s->n + 1) > s->cap && stack_grow_table(s) < 0)
        return SAT_E_NOMEM;
    size_t i = slot_of(s, key);
    while (s->keys[i] && s->keys[i] != key + 1)
        i = (i + 1) & (s->cap - 1);
    int64_t d = 0;
    if (s->keys[i]) {
        size_t p = s->tim[i];
        d = (int64_t)(s->marked - fen_prefix(s, p)) + 1;
        fen_add(s, p, -1);
        s->owner[p] = CS_FREE;
        s->marked--;
        *is_new = 0;
    } else {
        s->keys[i] = key + 1;
        s->n++;
        *is_new = 1;
    }
    s->tim[i] = (uint32_t)s->now;
    s->owner[s->now] = (uint32_t)i;
    fen_add(s, s->now, 1);
    s->marked++;
    s->now++;
    return d;
}

/* forget key (SHARDS eviction): unmark, then delete with backward shift */
static void stack_remove(cs_stack *s, uint64_t key)
{
    size_t i = slot_of(s, key);
    while (s->keys[i] && s->keys[i] != key + 1)
        i = (i + 1) & (s->cap - 1);
    if (!s->keys[i])
        return;
    size_t p = s->tim[i];
    fen_add(s, p, -1);
    s->owner[p] = CS_FREE;
    s->marked--;
    s->keys[i] = 0;
    s->n--;
    size_t j = i;
    for (;;) {
        j = (j + 1) & (s->cap - 1);
        if (!s->keys[j])
            break;
        size_t home = slot_of(s, s->keys[j] - 1);
        /* can the entry at j move to the hole at i? (home not in (i, j]) */
        int move = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (move) {
            s->keys[i] = s->keys[j];
            s->tim[i] = s->tim[j];
            s->owner[s->tim[i]] = (uint32_t)i;
            s->keys[j] = 0;
            i = j;
        }
    }
}

/* ---- exact curve ------------------------------------------------------------------ */

static int curve_exact(sat_cs *c)
{
    cs_stack s;
    if (stack_init(&s, 0) < 0)
        return SAT_E_NOMEM;
    size_t hcap = 1024;
    uint64_t *hist = calloc(hcap, sizeof *hist);
    double dnlen = 0;
    size_t maxd = 0;
    if (!hist)
        goto nomem;
    for (size_t i = 0; i < c->nrefs; i++) {
        int is_new;
        int64_t d = stack_access(&s, c->refs[i] >> 16, &is_new);
        if (d < 0)
            goto nomem;
        if (is_new) {
            dnlen += (double)(c->refs[i] & 0xffff);
            continue;
        }
        size_t du = (size_t)d;
        if (du >= hcap) {
            size_t nc = hcap;
            while (nc <= du)
                nc *= 2;
            uint64_t *nh = realloc(hist, nc * sizeof *nh);
            if (!nh)
                goto nomem;
            memset(nh + hcap, 0, (nc - hcap) * sizeof *nh);
            hist = nh;
            hcap = nc;
        }
        hist[du]++;
        if (du > maxd)
            maxd = du;
    }
    c->v.unique = (double)s.n;
    c->v.dn_mean_len = s.n ? dnlen / (double)s.n : NAN;
    c->cum = malloc((maxd + 1) * sizeof *c->cum);
    if (!c->cum)
        goto nomem;
    c->cum[0] = 0;
    for (size_t d = 1; d <= maxd; d++)
        c->cum[d] = c->cum[d - 1] + hist[d];
    c->maxd = maxd;
    free(hist);
    stack_free(&s);
    return SAT_OK;
nomem:
    free(hist);
    stack_free(&s);
    return SAT_E_NOMEM;
}

/* ---- SHARDS ------------------------------------------------------------------------ */

static size_t bucket_of(uint64_t x)
{
    if (x < CS_NB_EXACT)
        return (size_t)x;
    int e = 63 - __builtin_clzll(x);
    return CS_NB_EXACT + (size_t)(e - 12) * 256 + (size_t)((x >> (e - 8)) & 255);
}

static void bucket_range(size_t b, uint64_t *lo, uint64_t *hi)
{
    if (b < CS_NB_EXACT) {
        *lo = *hi = b;
        return;
    }
    size_t e = (b - CS_NB_EXACT) / 256 + 12, m = (b - CS_NB_EXACT) % 256;
    *lo = (uint64_t)(256 + m) << (e - 8);
    *hi = *lo + ((uint64_t)1 << (e - 8)) - 1;
}

typedef struct heap_item {
    uint64_t t, key;
} heap_item;

static void heap_push(heap_item *h, size_t *n, heap_item x)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h[p].t >= x.t)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

static heap_item heap_pop(heap_item *h, size_t *n)
{
    heap_item top = h[0], x = h[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        heap_item best = x;
        if (l < *n && h[l].t > best.t) {
            m = l;
            best = h[l];
        }
        if (r < *n && h[r].t > best.t)
            m = r;
        if (m == i)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
    return top;
}

static double rate_of(uint64_t tmax)
{
    return tmax == UINT64_MAX ? 1.0 : ldexp((double)tmax + 1.0, -64);
}

static int curve_shards(sat_cs *c)
{
    size_t smax = c->o.shards_smax;
    cs_stack s;
    if (stack_init(&s, smax) < 0)
        return SAT_E_NOMEM;
    heap_item *heap = malloc((smax + 1) * sizeof *heap);
    c->bw = calloc(CS_NBUCKETS, sizeof *c->bw);
    c->bcum = calloc(CS_NBUCKETS, sizeof *c->bcum);
    if (!heap || !c->bw || !c->bcum) {
        free(heap);
        stack_free(&s);
        return SAT_E_NOMEM;
    }
    size_t nheap = 0;
    uint64_t tmax = c->keep_max;
    double rate = rate_of(tmax), total_w = 0, cold_w = 0, dnlen = 0;
    uint64_t sampled_new = 0;
    for (size_t i = 0; i < c->nrefs; i++) {
        uint64_t key = c->refs[i] >> 16, t = spatial(key);
        if (t > tmax)
            continue;
        int is_new;
        int64_t d = stack_access(&s, key, &is_new);
        if (d < 0) {
            free(heap);
            stack_free(&s);
            return SAT_E_NOMEM;
        }
        double w = 1.0 / rate;
        total_w += w;
        if (is_new) {
            cold_w += w;
            dnlen += (double)(c->refs[i] & 0xffff);
            sampled_new++;
            heap_push(heap, &nheap, (heap_item){t, key});
        } else {
            double x = floor((double)d / rate);
            uint64_t xi = x >= 1.8e19 ? UINT64_MAX : (uint64_t)x;
            c->bw[bucket_of(xi < 1 ? 1 : xi)] += w;
        }
        while (nheap > smax) {
            heap_item ev = heap_pop(heap, &nheap);
            stack_remove(&s, ev.key);
            while (nheap && heap[0].t == ev.t)
                stack_remove(&s, heap_pop(heap, &nheap).key);
            tmax = ev.t - 1;
            rate = rate_of(tmax);
        }
    }
    free(heap);
    stack_free(&s);
    double run = 0;
    for (size_t b = 0; b < CS_NBUCKETS; b++) {
        run += c->bw[b];
        c->bcum[b] = run;
    }
    c->adj = (double)c->v.references - total_w; /* SHARDS_adj */
    c->v.unique = cold_w;
    c->v.dn_mean_len = sampled_new ? dnlen / (double)sampled_new : NAN;
    c->v.shards_rate = rate;
    return SAT_OK;
}

double sat_cs_hits(const sat_cs *c, uint64_t entries)
{
    if (!c || !c->finished || entries == 0)
        return 0;
    if (c->v.method == SAT_CS_EXACT) {
        if (!c->cum)
            return 0;
        return (double)c->cum[entries < c->maxd ? entries : c->maxd];
    }
    if (!c->bcum)
        return 0;
    size_t b = bucket_of(entries);
    uint64_t lo, hi;
    bucket_range(b, &lo, &hi);
    double h = (b ? c->bcum[b - 1] : 0) +
               c->bw[b] * (double)(entries - lo + 1) / (double)(hi - lo + 1);
    h += c->adj;
    double n = (double)c->v.references;
    return h < 0 ? 0 : h > n ? n : h;
}

double sat_cs_hit_ratio(const sat_cs *c, uint64_t entries)
{
    if (!c || !c->v.references)
        return NAN;
    return sat_cs_hits(c, entries) / (double)c->v.references;
}

/* the largest size at which the curve still rises */
static uint64_t curve_top(const sat_cs *c)
{
    if (c->v.method == SAT_CS_EXACT)
        return c->maxd;
    for (size_t b = CS_NBUCKETS; b-- > 0;)
        if (c->bw[b] > 0) {
            uint64_t lo, hi;
            bucket_range(b, &lo, &hi);
            return hi;
        }
    return 1;
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
    size_t nh = c->hours.n;
    c->hv = calloc(nh ? nh : 1, sizeof *c->hv);
    if (!c->hv)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < nh; i++) {
        int64_t h;
        memcpy(&h, sat_strtab_key(&c->hours, i), sizeof h);
        c->hv[i].start = h * (sat_ts_ns)3600 * 1000000000;
        c->hv[i].refs = *(const uint64_t *)sat_strtab_val(&c->hours, i);
    }
    qsort(c->hv, nh, sizeof *c->hv, cmp_hour);
    /* distinct (hour, key) pairs of the kept stream, sorted */
    hk *p = malloc((c->nrefs ? c->nrefs : 1) * sizeof *p);
    if (!p)
        return SAT_E_NOMEM;
    size_t np = 0, r = 0;
    for (size_t i = 0; i < c->nrefs; i++) {
        while (r + 1 < c->nruns && c->runs[r + 1].at <= i)
            r++;
        if (c->runs[r].hour == INT64_MIN)
            continue;
        p[np].hour = c->runs[r].hour;
        p[np++].key = c->refs[i] >> 16;
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
                   sat_strtab_find(&c->attrs, low, n) != NULL;
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
    free_results(c);
    sat_cs_view *v = &c->v;
    v->kept = c->nrefs;
    v->keep_rate = rate_of(c->keep_max);
    v->shards_smax = c->o.shards_smax;
    v->shards_rate = NAN;
    v->method = (c->keep_max != UINT64_MAX || c->o.force_shards) ? SAT_CS_SHARDS : SAT_CS_EXACT;
    int rc = v->method == SAT_CS_EXACT ? curve_exact(c) : curve_shards(c);
    if (rc < 0)
        return rc;
    c->finished = 1;
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
    uint64_t top = n > 0 ? curve_top(c) : 0;
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
    c->mrc = malloc(np * sizeof *c->mrc);
    if (!c->mrc)
        return SAT_E_NOMEM;
    v->nmrc = 0;
    for (size_t i = 0; i < np; i++) {
        if (i && pts[i] == pts[i - 1])
            continue;
        sat_cs_point *p = &c->mrc[v->nmrc++];
        p->entries = pts[i];
        p->hit_ratio = n > 0 ? sat_cs_hit_ratio(c, pts[i]) : NAN;
        p->bytes = (double)pts[i] * v->entry_bytes;
    }
    v->mrc = c->mrc;
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
    v->memory_bytes = c->cap * sizeof *c->refs + c->runcap * sizeof *c->runs +
                      sat_strtab_bytes(&c->hours);
    return SAT_OK;
}

const sat_cs_view *sat_cs_get_view(const sat_cs *c)
{
    return c && c->finished ? &c->v : NULL;
}

/* ---- cn=monitor LDIF --------------------------------------------------------------- */

static int attr_is(const char *a, size_t n, const char *name)
{
    size_t k = strlen(name);
    if (n != k)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = a[i];
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch + 32);
        if (ch != name[i])
            return 0;
    }
    return 1;
}

static int parse_i64(const char *s, size_t n, int64_t *out)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t'))
        n--;
    if (!n || n > 18)
        return 0;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

static void mon_reset(sat_cs_monitor *m)
{
    memset(m->backend, 0, sizeof m->backend);
    int64_t *f[] = {&m->entry_hits, &m->entry_tries, &m->entry_cur_bytes, &m->entry_max_bytes,
                    &m->entry_cur_count, &m->entry_max_count, &m->dn_hits, &m->dn_tries,
                    &m->dn_cur_bytes, &m->dn_max_bytes, &m->dn_cur_count, &m->dn_max_count};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        *f[i] = SAT_ABSENT;
}

/* "cn=monitor,cn=NAME,cn=ldbm database,..." -> NAME (blanks after commas allowed) */
static void mon_backend(sat_cs_monitor *m, const char *v, size_t n)
{
    char d[256];
    size_t k = normalize_dn(v, n < sizeof d ? n : sizeof d, d);
    if (k > sizeof d)
        k = sizeof d;
    static const char pre[] = "cn=monitor,cn=";
    if (k < sizeof pre - 1 || memcmp(d, pre, sizeof pre - 1) != 0)
        return;
    size_t s = sizeof pre - 1, e = s;
    while (e < k && d[e] != ',')
        e++;
    static const char ldbm[] = ",cn=ldbm database";
    if (e == s || e - s >= sizeof m->backend || k - e < sizeof ldbm - 1 ||
        memcmp(d + e, ldbm, sizeof ldbm - 1) != 0)
        return;
    /* the name as written (normalize_dn lowered it): take it from v */
    size_t off = 0;
    while (off < n && (v[off] == ' ' || v[off] == '\t'))
        off++;
    const char *p = v + off;
    size_t rest = n - off, i = 0, comma = 0;
    for (; i < rest && comma < 1; i++)
        if (p[i] == ',')
            comma++;
    while (i < rest && p[i] == ' ')
        i++;
    if (i + 3 <= rest && attr_is(p + i, 3, "cn=")) {
        i += 3;
        size_t j = i;
        while (j < rest && p[j] != ',' && j - i < sizeof m->backend - 1)
            j++;
        memcpy(m->backend, p + i, j - i);
        m->backend[j - i] = '\0';
    }
}

static int mon_line(sat_cs_monitor *m, const char *l, size_t n)
{
    if (!n || l[0] == '#')
        return 0;
    size_t c = 0;
    while (c < n && l[c] != ':')
        c++;
    if (c == n || c == 0)
        return 0;
    size_t vs = c + 1;
    if (vs < n && (l[vs] == ':' || l[vs] == '<'))
        return 0; /* base64 or URL value: never a counter */
    while (vs < n && l[vs] == ' ')
        vs++;
    const char *val = l + vs;
    size_t vn = n - vs;
    if (attr_is(l, c, "dn")) {
        mon_backend(m, val, vn);
        return 0;
    }
    static const struct {
        const char *name;
        size_t off;
    } fields[] = {
        {"entrycachehits", offsetof(sat_cs_monitor, entry_hits)},
        {"entrycachetries", offsetof(sat_cs_monitor, entry_tries)},
        {"currententrycachesize", offsetof(sat_cs_monitor, entry_cur_bytes)},
        {"maxentrycachesize", offsetof(sat_cs_monitor, entry_max_bytes)},
        {"currententrycachecount", offsetof(sat_cs_monitor, entry_cur_count)},
        {"maxentrycachecount", offsetof(sat_cs_monitor, entry_max_count)},
        {"dncachehits", offsetof(sat_cs_monitor, dn_hits)},
        {"dncachetries", offsetof(sat_cs_monitor, dn_tries)},
        {"currentdncachesize", offsetof(sat_cs_monitor, dn_cur_bytes)},
        {"maxdncachesize", offsetof(sat_cs_monitor, dn_max_bytes)},
        {"currentdncachecount", offsetof(sat_cs_monitor, dn_cur_count)},
        {"maxdncachecount", offsetof(sat_cs_monitor, dn_max_count)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (attr_is(l, c, fields[i].name)) {
            int64_t x;
            if (!parse_i64(val, vn, &x))
                return 0;
            memcpy((char *)m + fields[i].off, &x, sizeof x);
            return 1;
        }
    }
    return 0;
}

size_t sat_cs_monitor_parse(const char *buf, size_t len, sat_cs_monitor *out, size_t cap)
{
    if (!buf || !out)
        return 0;
    size_t found = 0;
    sat_cs_monitor cur;
    mon_reset(&cur);
    int any = 0;
    char line[512];
    size_t ln = 0;
    int have_line = 0;
    size_t i = 0;
    while (i <= len) {
        size_t e = i;
        while (e < len && buf[e] != '\n')
            e++;
        size_t n = e - i;
        const char *l = buf + i;
        if (n && l[n - 1] == '\r')
            n--;
        if (n && l[0] == ' ' && have_line) { /* folded: continues the previous line */
            for (size_t k = 1; k < n && ln < sizeof line; k++)
                line[ln++] = l[k];
        } else {
            if (have_line)
                any |= mon_line(&cur, line, ln);
            have_line = 0;
            ln = 0;
            if (n == 0) { /* end of an entry */
                if (any && found < cap)
                    out[found++] = cur;
                mon_reset(&cur);
                any = 0;
            } else {
                for (size_t k = 0; k < n && ln < sizeof line; k++)
                    line[ln++] = l[k];
                have_line = 1;
            }
        }
        if (e >= len)
            break;
        i = e + 1;
    }
    if (have_line)
        any |= mon_line(&cur, line, ln);
    if (any && found < cap)
        out[found++] = cur;
    return found;
}
