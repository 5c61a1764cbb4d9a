/*
 * cachesize.c - the cache-sizing analyzer (issue 6 "satscope cachesize"): the
 * entry reference stream of the logs, its LRU miss-ratio curve, the working
 * set per hour, and the entry / DN / DB cache sizes for target hit ratios.
 * This file turns operations into references and keeps the accumulators.
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
 *   How much of the server's entry reads that is: cachesize_sizes.c.
 *
 * State and merging (cachesize_internal.h): the counters of the stream are
 * one record described once (cs_stream_desc), the references per hour
 * and the attributes the filters test are keyed tables, and the stored
 * reference stream is the miss-ratio curve accumulator (cachesize_mrc.c);
 * sat_cs_merge merges each, nothing field by field. sat_cs_finish builds the
 * curve; the result is made from the state (cachesize_result.c, with the
 * sizes of cachesize_sizes.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cachesize_internal.h"

/* The counters of the reference stream: one run of counts (their lists are
 * cachesize_internal.h's), the span and what the inputs can hold. */
static int merge_fields(void *into, const void *from)
{
    sat_fields_merge(&((cs_stream *)into)->fields, &((const cs_stream *)from)->fields);
    return SAT_OK;
}

static const sat_acc_field cs_stream_fields[] = {
    SAT_ACC_RUN(SAT_ACC_COUNT, cs_stream, n),
    SAT_ACC(SAT_ACC_FIRST, cs_stream, first_ts),
    SAT_ACC(SAT_ACC_LAST, cs_stream, last_ts),
    SAT_ACC(SAT_ACC_BITS, cs_stream, servers),
};
/* Read back from a partial: its inputs' reasons are pointers (fields.h's
 * texts), read apart from the record's bytes (cachesize_state.c). */
static void loaded_stream(void *rec)
{
    memset(((cs_stream *)rec)->fields.why, 0, sizeof ((cs_stream *)rec)->fields.why);
}

const sat_rec_desc cs_stream_desc = {sizeof(cs_stream), cs_stream_fields,
                                     sizeof cs_stream_fields / sizeof cs_stream_fields[0],
                                     merge_fields, loaded_stream};

static const sat_acc_field cs_count_fields[] = {SAT_ACC(SAT_ACC_COUNT, cs_count, n)};
const sat_rec_desc cs_count_desc = {sizeof(cs_count), cs_count_fields, 1, NULL};

/* ---- DN normalization ------------------------------------------------------------ */

size_t cs_normalize_dn(const char *s, size_t n, char *out)
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

/* ---- references ----------------------------------------------------------------- */

static int64_t hour_of(sat_ts_ns ts)
{
    if (ts <= 0)
        return INT64_MIN;
    return ts / ((sat_ts_ns)3600 * 1000000000);
}

static int add_norm(sat_cs *c, const char *d, size_t n, sat_ts_ns ts)
{
    uint64_t key = sat_strtab_hash(d, n) >> 16;
    if (n >= CS_MAX_DN)
        key ^= sat_hash_u64(n) >> 16; /* truncated: the length tells long DNs apart */
    int64_t hour = hour_of(ts);
    c->s.n.references++;
    sat_acc_first(&c->s.first_ts, ts, NULL, 0);
    sat_acc_last(&c->s.last_ts, ts, NULL, 0);
    int rc = SAT_OK;
    if (hour != INT64_MIN) {
        cs_count *h = (cs_count *)sat_keyed_at(&c->hours, &hour, sizeof hour, NULL);
        if (h)
            h->n++;
        else
            rc = SAT_E_NOMEM;
    }
    if (rc == SAT_OK)
        rc = cs_mrc_add(&c->mrc, key, n, hour);
    if (rc < 0)
        c->nomem = 1;
    return rc;
}

int sat_cs_add_ref(sat_cs *c, const char *dn, size_t len, sat_ts_ns ts)
{
    char buf[CS_MAX_DN];
    size_t n = cs_normalize_dn(dn, len, buf);
    return add_norm(c, buf, n, ts);
}

/* 1 if a reference was added */
static int ref_str(sat_cs *c, sat_str dn, const sat_ldap_op *op)
{
    if (!dn.ptr)
        return 0;
    char buf[CS_MAX_DN];
    size_t n = cs_normalize_dn(dn.ptr, dn.len, buf);
    if (outside_backend(buf, n)) {
        c->s.n.outside++;
        return 0;
    }
    add_norm(c, buf, n, op->ts_ns);
    c->s.n.refs_by_type[op->type < SAT_OP__COUNT ? op->type : 0]++;
    if (op->internal_depth)
        c->s.n.internal_refs++;
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
        cs_count *k = (cs_count *)sat_keyed_at(&c->attrs, a, n, NULL);
        if (k)
            k->n++;
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
            c->s.n.refs_by_type[SAT_OP_SRCH]--; /* counted below as what it is */
            c->s.n.entry_refs++;
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
    cs_counts *cnt = &c->s.n;
    cnt->ops++;
    cnt->entry_lines += op->entry_lines;
    int refs = 0;
    if (op->type != SAT_OP_UNKNOWN && op->type != SAT_OP_UNBIND && op->type != SAT_OP_ABANDON &&
        op->type != SAT_OP_EXT && op->type != SAT_OP_AUTOBIND && names_missing_entry(op)) {
        cnt->missing++;
        return SAT_OK;
    }
    switch (op->type) {
    case SAT_OP_BIND:
        if (op->dn.ptr && op->dn.len)
            refs += ref_str(c, op->dn, op);
        else
            cnt->no_dn++;
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
            cnt->modrdn_new++;
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
            cnt->unseen_ops++;
            if (op->scope == SAT_SCOPE_ONE)
                cnt->unseen_onelevel++;
            else
                cnt->unseen_subtree++; /* subtree, or scope not logged */
            if (op->notes & (SAT_NOTE_A | SAT_NOTE_U))
                cnt->unseen_unindexed++;
            if (op->nentries > 0)
                cnt->unseen_entries += (uint64_t)op->nentries;
        }
        break;
    default:
        break;
    }
    if (refs)
        cnt->naming_ops++;
    return c->nomem ? SAT_E_NOMEM : SAT_OK;
}

/* which figures the inputs can hold (fields.h): unindexed searches need
 * notes=; and which server wrote them */
static int on_source(void *ctx, const sat_source *s)
{
    sat_cs *c = ctx;
    sat_fields_see(&c->s.fields, s);
    /* whose log: its server's caches are the ones to size */
    if (s->format.ptr && s->format.len >= 3 && !memcmp(s->format.ptr, "389", 3))
        c->s.servers |= CS_SERVER_389;
    else if (s->format.ptr && s->format.len >= 8 && !memcmp(s->format.ptr, "openldap", 8))
        c->s.servers |= CS_SERVER_OPENLDAP;
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
    cs_mrc_init(&c->mrc, c->o.max_refs, c->o.shards_smax, c->o.force_shards);
    if (sat_keyed_init(&c->hours, &cs_count_desc, 0) < 0 ||
        sat_keyed_init(&c->attrs, &cs_count_desc, 4096) < 0) {
        sat_cs_free(c);
        return NULL;
    }
    return c;
}

void sat_cs_free(sat_cs *c)
{
    if (!c)
        return;
    cs_mrc_free(&c->mrc);
    sat_keyed_free(&c->hours);
    sat_keyed_free(&c->attrs);
    free(c);
}

/* A walk over the accumulators (the stream's counters, the keyed tables,
 * the curve's stream); a finished one is finished again. */
int sat_cs_merge(sat_cs *into, const sat_cs *from)
{
    if (!into || !from)
        return SAT_E_USAGE;
    int refinish = into->finished;
    if (sat_rec_merge(&cs_stream_desc, &into->s, &from->s) < 0 ||
        sat_keyed_merge(&into->hours, &from->hours) < 0 ||
        sat_keyed_merge(&into->attrs, &from->attrs) < 0 ||
        cs_mrc_merge(&into->mrc, &from->mrc) < 0)
        return SAT_E_NOMEM;
    if (refinish)
        return sat_cs_finish(into);
    return SAT_OK;
}

/* The curve of the stream; the figures that follow from it are made when
 * the result is written (cachesize_result.c). */
int sat_cs_finish(sat_cs *c)
{
    if (!c)
        return SAT_E_USAGE;
    c->finished = 0;
    int rc = cs_mrc_finish(&c->mrc);
    if (rc < 0)
        return rc;
    c->finished = 1;
    return SAT_OK;
}

double sat_cs_hits(const sat_cs *c, uint64_t entries)
{
    if (!c || !c->finished)
        return 0;
    return cs_mrc_hits(&c->mrc, entries);
}

double sat_cs_hit_ratio(const sat_cs *c, uint64_t entries)
{
    if (!c || !c->s.n.references)
        return NAN;
    return sat_cs_hits(c, entries) / (double)c->s.n.references;
}
