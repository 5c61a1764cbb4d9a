/*
 * etime.c - the etime analyzer: where a directory server's time went.
 *
 * Spec: issue 2, "The etime analyzer and the first reports"; the sections of
 * logconv.pl's default report (389-ds-base) that can be computed from event
 * rows, done right where logconv.pl is wrong:
 *   - peak concurrency counts the opens and closes of ldap_conn rows (the
 *     joiner's running counts, or a sweep of their times for a 1.0 trace),
 *     so 2.1+ "Disconnect" close lines count like "closed" ones;
 *   - every note letter counts (notes=P,A is one P and one A);
 *   - timestamps come as ns from the parser, with or without a fraction;
 *   - every result code is kept (also > 97);
 *   - the root DN is compared case-insensitively (and blanks around ',' '='
 *     are ignored): "CN=Directory Manager" is a root DN bind;
 *   - an AUTOBIND and the BIND it introduces are one bind; SASL steps
 *     answered err=14 are folded into their final bind;
 *   - a slice without any etime reports nulls, never divides by zero.
 *
 * Rows are borrowed (event.h): every kept string is copied into a strtab's
 * arena on first insertion only. Memory is bounded whatever the span of the
 * input and the number of connections: per-group state is a quantile sketch
 * (sketch.h); high-cardinality tables are capped at max_keys (the rest folded
 * into "(other)" with an approximate count of the folded keys); the time
 * series keeps at most ET_BUCKETS_MAX buckets, one minute wide while that
 * covers the span, then merged into coarser ones (5, 15, 60 minutes, ...);
 * the peak of concurrent connections comes from the running counts that the
 * joiner puts on each ldap_conn row (event.h, SAT_CONNF_COUNTED), a few
 * bytes per server; LDAPI connections' bind bookkeeping is dropped once their
 * row has arrived. Only rows of a 1.0 trace (without those counts) still keep
 * 24 bytes per connection for a sweep of open/close times.
 */
#include <math.h>

#include "satscope/analyze.h"
#include "internal_ops.h"
#include "sketch.h"
#include "strtab.h"

#define ET_DEFAULT_TOP 20
#define ET_DEFAULT_MAX_KEYS 100000
#define ET_UNINDEXED_MAX 10000
#define ET_REJECT_SAMPLES 10
#define ET_ERR_FAST 128
#define ET_FOLD_BITS (1u << 16) /* linear-counting bitmap for folded keys */
/* Time-series buckets kept at most: a day at one minute fits (1,440), and
 * with a sketch of a few KB (at most ~16 KB) each that is under 32 MB. */
#define ET_BUCKETS_MAX 2048
/* LDAPI entries of closed connections tolerated before the table is rebuilt
 * without them */
#define ET_LDAPI_DONE_MAX 4096

typedef struct et_group {
    uint64_t count, results, timed, errors;
    uint64_t esum, wsum, osum, wn, on; /* ns sums and counts */
    sat_qsketch q;
} et_group;

typedef struct et_kv {
    uint64_t count, timed, esum;
} et_kv;

typedef struct et_unidx {
    uint16_t notes;
    uint64_t count, timed, esum;
    int64_t emax, nentries_max;
    sat_ts_ns first_ts;
    int64_t conn, op;
    uint32_t klen[4]; /* lengths of base, filter, client, binddn in the key */
} et_unidx;

typedef struct et_ldapi {
    uint32_t autobinds, autobinds_root, binds, binds_root;
    uint32_t done; /* its ldap_conn row arrived: counted in ldapi_extra* */
} et_ldapi;

/* Peak of concurrent connections of one server from counted rows (event.h:
 * open at a row's opening = concurrent + no_open - preopen_closed). */
typedef struct et_peak {
    uint64_t no_open;  /* counted rows without an open line */
    int64_t best;      /* max of concurrent - preopen_closed over rows with one */
    sat_ts_ns best_at; /* the earliest open_ts reaching it */
    int has;           /* best is set */
} et_peak;

typedef struct et_connspan {
    uint32_t server;
    sat_ts_ns open_ts, close_ts; /* 0: not seen */
} et_connspan;

/* a capped string table with its "(other)" fold and a folded-key estimate */
typedef struct et_ktab {
    sat_strtab t;
    et_kv other;
    uint8_t *foldbits; /* NULL until the first fold */
} et_ktab;

typedef struct et_src {
    uint32_t id;
    char *path, *format, *compression;
    uint64_t bytes, lines, rejects;
    int truncated;
} et_src;

typedef struct et_abandon {
    sat_ts_ns ts;
    int64_t conn, op, target_op;
    char client[48];
} et_abandon;

typedef struct et_rej {
    uint32_t source;
    uint64_t line_no;
    char *reason, *excerpt;
} et_rej;

struct sat_etime {
    sat_etime_opts opts;
    char root_dn[256];
    int nomem;

    sat_ts_ns first_ts, last_ts;   /* external operations */
    sat_ts_ns cfirst_ts, clast_ts; /* connections and operations */

    et_group optype[SAT_OP__COUNT];
    et_group all;
    /* --by groups: strtab of et_group keyed by the group key (conn: packed) */
    sat_strtab groups;
    et_group gother;
    uint8_t *gfoldbits;
    sat_strtab minutes; /* key: int64 bucket number (minute / width); val et_group */
    int64_t bucket_min; /* bucket width in minutes: 1, 5, 15, 60, 360, 1440, x2... */
    int64_t last_minute; /* bucket number of last_minute_grp */
    et_group *last_minute_grp; /* payloads never move (strtab.h) */

    uint64_t ops, results, unfinished, internal_ops, no_request, persistent,
        paged, entries, ext_ops, abandons, unbinds, whole_base;
    uint64_t err_fast[ET_ERR_FAST];
    sat_strtab err_other; /* key int32, val uint64 */
    uint64_t notes[7];

    sat_strtab unidx; /* key base\x1f filter\x1f client\x1f binddn */
    uint64_t unidx_total, unidx_folded;

    uint64_t binds, binds_simple, binds_anon, binds_sasl, sasl_steps,
        autobinds, binds_root, binds_failed;
    sat_etime_counts more; /* counted from flags already on the rows */
    sat_strtab ldapi; /* key packed conn, val et_ldapi */
    uint64_t ldapi_done, ldapi_extra, ldapi_extra_root; /* of done entries */
    et_ktab sasl_mechs, failed_dn, failed_client, clients, bind_dns, bases,
        filters, ext_oids, tls_versions, attrs;
    /* SRCH attrs lists as logged: counted whole per search (one lookup) and
     * split into `attrs` only at finish - applications ask for the same few
     * lists, so this saves a lookup per attribute of every search. */
    et_ktab attr_lists;
    et_abandon *aband; /* the earliest `top` abandons, unsorted */
    size_t naband;

    /* connections */
    uint64_t conns, conns_no_open, conns_unclosed, fds_taken, fds_returned;
    int64_t highest_fd;
    uint64_t by_listener[SAT_LISTENER__COUNT], by_close[SAT_CLOSE__COUNT];
    uint64_t broken_pipe, reset_by_peer, resource_unavail, max_ber;
    et_connspan *spans; /* rows without counts only (1.0 traces) */
    size_t nspans, spancap;
    sat_strtab peaks;   /* key server u32, val et_peak (counted rows) */
    uint32_t last_peak_server;
    et_peak *last_peak; /* payloads never move */
    sat_strtab epochs; /* key server u32, val u32 max epoch */
    /* what was taken for each restart, from the rows it ended (their
     * close_reason, parse/ldap_join.c): key {server, epoch ended} u32 x2,
     * val uint8 RK_* */
    sat_strtab restart_kinds;

    /* which fields the inputs can carry (fields.h): OR over the inputs with
     * LDAP rows, and per field how many cannot and why (the first's format) */
    sat_fields_seen fields;

    /* inputs */
    et_src *srcs;
    size_t nsrcs, srccap;
    uint64_t rejects, rejects_sampled_seen;
    et_rej rej[ET_REJECT_SAMPLES];
    size_t nrej;

    char *scratch; /* for composed / case-folded keys */
    size_t scratch_cap;
    uint64_t mem_check_at;
    size_t mem_peak;

    sat_iops *iops; /* internal operations by the client operation that ran them */

    /* the finished view, allocated in view_arena */
    int finished;
    sat_etime_view view;
    sat_arena view_arena;
};

/* ---- small helpers ---------------------------------------------------------------- */

int sat_etime_by_parse(const char *s)
{
    static const char *const names[] = {"none", "op", "base", "filter", "client",
                                        "binddn", "conn", "minute", "internal"};
    if (!s)
        return -1;
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

const char *sat_etime_by_name(int by)
{
    static const char *const names[] = {"op", "op", "base", "filter", "client",
                                        "binddn", "conn", "minute", "internal"};
    return (by >= 0 && by <= SAT_ETIME_BY_INTERNAL) ? names[by] : "?";
}

static inline char lower_ascii(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
}

static int ensure_scratch(sat_etime *e, size_t n)
{
    if (n <= e->scratch_cap)
        return 1;
    size_t nc = e->scratch_cap ? e->scratch_cap : 1024;
    while (nc < n)
        nc *= 2;
    char *p = (char *)realloc(e->scratch, nc);
    if (!p) {
        e->nomem = 1;
        return 0;
    }
    e->scratch = p;
    e->scratch_cap = nc;
    return 1;
}

/* DN normalised for comparisons and keys: ASCII lower case, blanks next to
 * ',' and '=' dropped, leading/trailing blanks dropped. Returns length. */
static size_t norm_dn(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ' ') {
            /* drop if next to a separator, at the start or at the end */
            size_t j = i;
            while (j < n && s[j] == ' ')
                j++;
            if (o == 0 || j == n || s[j] == ',' || s[j] == '=' ||
                out[o - 1] == ',' || out[o - 1] == '=') {
                i = j - 1;
                continue;
            }
        }
        out[o++] = lower_ascii(c);
    }
    return o;
}

static int is_root_dn(sat_etime *e, sat_str dn)
{
    if (!dn.ptr || dn.len == 0 || dn.len > 1024)
        return 0;
    char buf[1024];
    size_t n = norm_dn(dn.ptr, dn.len, buf);
    size_t rn = strlen(e->root_dn);
    return n == rn && memcmp(buf, e->root_dn, n) == 0;
}

static int contains(sat_str h, const char *needle)
{
    size_t nl = strlen(needle);
    if (!h.ptr || h.len < nl)
        return 0;
    for (size_t i = 0; i + nl <= h.len; i++)
        if (h.ptr[i] == needle[0] && memcmp(h.ptr + i, needle, nl) == 0)
            return 1;
    return 0;
}

static int eq_nocase(sat_str s, const char *c)
{
    size_t n = strlen(c);
    if (!s.ptr || s.len != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower_ascii(s.ptr[i]) != lower_ascii(c[i]))
            return 0;
    return 1;
}

static void fold_mark(uint8_t **bits, const void *k, size_t n, int *nomem)
{
    if (!*bits) {
        *bits = (uint8_t *)calloc(ET_FOLD_BITS / 8, 1);
        if (!*bits) {
            *nomem = 1;
            return;
        }
    }
    uint64_t h = sat_strtab_hash(k, n) >> 17;
    uint32_t b = (uint32_t)(h & (ET_FOLD_BITS - 1));
    (*bits)[b >> 3] |= (uint8_t)(1u << (b & 7));
}

/* Linear counting (Whang et al. 1990): n ~ -m ln(zero bits / m). */
static uint64_t fold_estimate(const uint8_t *bits)
{
    if (!bits)
        return 0;
    uint64_t zeros = 0;
    for (uint32_t i = 0; i < ET_FOLD_BITS / 8; i++)
        zeros += (uint64_t)(8 - __builtin_popcount(bits[i]));
    if (zeros == 0)
        zeros = 1;
    double m = ET_FOLD_BITS;
    return (uint64_t)llround(-m * log((double)zeros / m));
}

static void fold_merge(uint8_t **into, const uint8_t *from, int *nomem)
{
    if (!from)
        return;
    if (!*into) {
        *into = (uint8_t *)calloc(ET_FOLD_BITS / 8, 1);
        if (!*into) {
            *nomem = 1;
            return;
        }
    }
    for (uint32_t i = 0; i < ET_FOLD_BITS / 8; i++)
        (*into)[i] |= from[i];
}

/* ---- groups ---------------------------------------------------------------------- */

/* A result that reports a failure. compareFalse (5) and compareTrue (6) are
 * a compare's answers and saslBindInProgress (14) a step of a bind that goes
 * on: none of them is an error to count against a group. */
static int result_is_error(int32_t err)
{
    return err != 0 && err != 5 && err != 6 && err != 14;
}

static void grp_add(sat_etime *e, et_group *g, const sat_ldap_op *op, int has_result)
{
    g->count++;
    if (has_result) {
        g->results++;
        if (result_is_error(op->err))
            g->errors++;
    }
    if (op->etime >= 0) {
        g->timed++;
        g->esum += (uint64_t)op->etime;
        if (sat_qsketch_add(&g->q, op->etime) < 0)
            e->nomem = 1;
    }
    if (op->wtime >= 0) {
        g->wn++;
        g->wsum += (uint64_t)op->wtime;
    }
    if (op->optime >= 0) {
        g->on++;
        g->osum += (uint64_t)op->optime;
    }
}

static int grp_merge(et_group *into, const et_group *from)
{
    into->count += from->count;
    into->results += from->results;
    into->timed += from->timed;
    into->errors += from->errors;
    into->esum += from->esum;
    into->wsum += from->wsum;
    into->osum += from->osum;
    into->wn += from->wn;
    into->on += from->on;
    return sat_qsketch_merge(&into->q, &from->q);
}

static void grp_free(et_group *g) { sat_qsketch_free(&g->q); }

static void tab_free_groups(sat_strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        grp_free((et_group *)sat_strtab_val(t, i));
    sat_strtab_free(t);
}

/* ---- capped key tables ---------------------------------------------------------- */

static void ktab_init(et_ktab *k, size_t max_keys)
{
    memset(k, 0, sizeof *k);
    sat_strtab_init(&k->t, sizeof(et_kv), max_keys);
}

static void ktab_free(et_ktab *k)
{
    sat_strtab_free(&k->t);
    free(k->foldbits);
    k->foldbits = NULL;
}

static void kv_bump(et_kv *v, const sat_ldap_op *op)
{
    v->count++;
    if (op && op->etime >= 0) {
        v->timed++;
        v->esum += (uint64_t)op->etime;
    }
}

static void ktab_add_h(sat_etime *e, et_ktab *k, const char *key, size_t len, uint64_t h,
                       const sat_ldap_op *op)
{
    int capped;
    et_kv *v = (et_kv *)sat_strtab_upsert_h(&k->t, key, len, h, NULL, &capped);
    if (v) {
        kv_bump(v, op);
    } else if (capped) {
        kv_bump(&k->other, op);
        fold_mark(&k->foldbits, key, len, &e->nomem);
    } else {
        e->nomem = 1;
    }
}

static void ktab_add(sat_etime *e, et_ktab *k, const char *key, size_t len,
                     const sat_ldap_op *op)
{
    int capped;
    et_kv *v = (et_kv *)sat_strtab_upsert(&k->t, key, len, NULL, &capped);
    if (v) {
        kv_bump(v, op);
    } else if (capped) {
        kv_bump(&k->other, op);
        fold_mark(&k->foldbits, key, len, &e->nomem);
    } else {
        e->nomem = 1;
    }
}

static void ktab_merge(sat_etime *e, et_ktab *into, const et_ktab *from)
{
    for (size_t i = 0; i < from->t.n; i++) {
        const et_kv *s = (const et_kv *)sat_strtab_val(&from->t, i);
        int capped;
        et_kv *v = (et_kv *)sat_strtab_upsert(&into->t, sat_strtab_key(&from->t, i),
                                              sat_strtab_len(&from->t, i), NULL, &capped);
        if (!v) {
            if (!capped) {
                e->nomem = 1;
                continue;
            }
            v = &into->other;
            fold_mark(&into->foldbits, sat_strtab_key(&from->t, i), sat_strtab_len(&from->t, i), &e->nomem);
        }
        v->count += s->count;
        v->timed += s->timed;
        v->esum += s->esum;
    }
    into->other.count += from->other.count;
    into->other.timed += from->other.timed;
    into->other.esum += from->other.esum;
    fold_merge(&into->foldbits, from->foldbits, &e->nomem);
}

/* ---- create / free ---------------------------------------------------------------- */

static et_ktab *ktabs(sat_etime *e, size_t i)
{
    et_ktab *all[] = {&e->sasl_mechs, &e->failed_dn, &e->failed_client,
                      &e->clients, &e->bind_dns, &e->bases, &e->filters,
                      &e->ext_oids, &e->tls_versions, &e->attrs, &e->attr_lists};
    return i < sizeof all / sizeof all[0] ? all[i] : NULL;
}

sat_etime *sat_etime_create(const sat_etime_opts *opts)
{
    sat_etime *e = (sat_etime *)calloc(1, sizeof *e);
    if (!e)
        return NULL;
    if (opts)
        e->opts = *opts;
    if (e->opts.by < 0 || e->opts.by > SAT_ETIME_BY_INTERNAL)
        e->opts.by = SAT_ETIME_BY_NONE;
    if (!e->opts.top)
        e->opts.top = ET_DEFAULT_TOP;
    if (!e->opts.max_keys)
        e->opts.max_keys = ET_DEFAULT_MAX_KEYS;
    const char *root = e->opts.root_dn ? e->opts.root_dn : "cn=directory manager";
    size_t rl = strlen(root);
    if (rl >= sizeof e->root_dn)
        rl = sizeof e->root_dn - 1;
    size_t n = norm_dn(root, rl, e->root_dn);
    e->root_dn[n] = '\0';
    e->opts.root_dn = NULL; /* not kept: the caller's string may go */

    for (int i = 0; i < SAT_OP__COUNT; i++)
        sat_qsketch_init(&e->optype[i].q, 0);
    sat_qsketch_init(&e->all.q, 0);
    sat_qsketch_init(&e->gother.q, 0);
    sat_strtab_init(&e->groups, sizeof(et_group), e->opts.max_keys);
    sat_strtab_init(&e->minutes, sizeof(et_group), 0);
    e->bucket_min = 1;
    e->last_minute = INT64_MIN;
    sat_strtab_init(&e->err_other, sizeof(uint64_t), 0);
    sat_strtab_init(&e->unidx, sizeof(et_unidx), ET_UNINDEXED_MAX);
    sat_strtab_init(&e->ldapi, sizeof(et_ldapi), 0);
    sat_strtab_init(&e->epochs, sizeof(uint32_t), 0);
    sat_strtab_init(&e->restart_kinds, 1, 0);
    sat_strtab_init(&e->peaks, sizeof(et_peak), 0);
    for (size_t i = 0; ktabs(e, i); i++)
        ktab_init(ktabs(e, i), e->opts.max_keys);
    e->highest_fd = SAT_ABSENT;
    e->view_arena.chunk_size = 64 * 1024;
    e->iops = sat_iops_create(e->opts.max_keys);
    if (!e->iops) {
        sat_etime_free(e);
        return NULL;
    }
    return e;
}

void sat_etime_free(sat_etime *e)
{
    if (!e)
        return;
    for (int i = 0; i < SAT_OP__COUNT; i++)
        grp_free(&e->optype[i]);
    grp_free(&e->all);
    grp_free(&e->gother);
    tab_free_groups(&e->groups);
    tab_free_groups(&e->minutes);
    free(e->gfoldbits);
    sat_strtab_free(&e->err_other);
    sat_strtab_free(&e->unidx);
    sat_strtab_free(&e->ldapi);
    sat_strtab_free(&e->epochs);
    sat_strtab_free(&e->restart_kinds);
    sat_strtab_free(&e->peaks);
    for (size_t i = 0; ktabs(e, i); i++)
        ktab_free(ktabs(e, i));
    free(e->spans);
    free(e->aband);
    for (size_t i = 0; i < e->nsrcs; i++) {
        free(e->srcs[i].path);
        free(e->srcs[i].format);
        free(e->srcs[i].compression);
    }
    free(e->srcs);
    for (size_t i = 0; i < e->nrej; i++) {
        free(e->rej[i].reason);
        free(e->rej[i].excerpt);
    }
    free(e->scratch);
    sat_iops_free(e->iops);
    sat_arena_free(&e->view_arena);
    free(e);
}

/* ---- sink callbacks ------------------------------------------------------------------ */

static char *dup_str(sat_str s, const char *dflt)
{
    if (!s.ptr)
        s = sat_str_cstr(dflt);
    char *p = (char *)malloc((size_t)s.len + 1);
    if (p) {
        if (s.len)
            memcpy(p, s.ptr, s.len);
        p[s.len] = '\0';
    }
    return p;
}

static int add_source(sat_etime *e, uint32_t id, sat_str path, sat_str format,
                      sat_str compression, uint64_t bytes, uint64_t lines,
                      uint64_t rejects, int truncated)
{
    if (e->nsrcs == e->srccap) {
        size_t nc = e->srccap ? e->srccap * 2 : 8;
        et_src *ns = (et_src *)realloc(e->srcs, nc * sizeof *ns);
        if (!ns)
            return SAT_E_NOMEM;
        e->srcs = ns;
        e->srccap = nc;
    }
    et_src *s = &e->srcs[e->nsrcs];
    memset(s, 0, sizeof *s);
    s->id = id;
    s->path = dup_str(path, "?");
    s->format = dup_str(format, "?");
    s->compression = dup_str(compression, "none");
    if (!s->path || !s->format || !s->compression) {
        free(s->path);
        free(s->format);
        free(s->compression);
        return SAT_E_NOMEM;
    }
    s->bytes = bytes;
    s->lines = lines;
    s->rejects = rejects;
    s->truncated = truncated;
    e->nsrcs++;
    e->rejects += rejects;
    return SAT_OK;
}

static int on_source(void *ctx, const sat_source *s)
{
    sat_etime *e = (sat_etime *)ctx;
    e->finished = 0;
    sat_fields_see(&e->fields, s); /* which figures the inputs can hold */
    return add_source(e, s->id, s->path, s->format, s->compression, s->bytes,
                      s->lines, s->rejects, s->truncated);
}

static int add_reject(sat_etime *e, uint32_t source, uint64_t line_no,
                      sat_str reason, sat_str excerpt)
{
    e->rejects_sampled_seen++;
    if (e->nrej >= ET_REJECT_SAMPLES)
        return SAT_OK;
    et_rej *r = &e->rej[e->nrej];
    r->source = source;
    r->line_no = line_no;
    r->reason = dup_str(reason, "");
    r->excerpt = dup_str(excerpt, "");
    if (!r->reason || !r->excerpt) {
        free(r->reason);
        free(r->excerpt);
        return SAT_E_NOMEM;
    }
    e->nrej++;
    return SAT_OK;
}

static int on_reject(void *ctx, const sat_reject *r)
{
    sat_etime *e = (sat_etime *)ctx;
    e->finished = 0;
    return add_reject(e, r->source, r->line_no, r->reason, r->excerpt);
}

static void note_epoch(sat_etime *e, uint32_t server, uint32_t epoch)
{
    if (!epoch)
        return;
    uint32_t *m = (uint32_t *)sat_strtab_upsert(&e->epochs, &server, sizeof server,
                                                NULL, NULL);
    if (!m) {
        e->nomem = 1;
        return;
    }
    if (epoch > *m)
        *m = epoch;
}

enum { RK_START_LINE = 1, RK_NUMBER = 2 };

static void note_restart_kind(sat_etime *e, uint32_t server, uint32_t epoch, uint8_t kind)
{
    uint32_t key[2] = {server, epoch};
    uint8_t *k = (uint8_t *)sat_strtab_upsert(&e->restart_kinds, key, sizeof key, NULL, NULL);
    if (!k) {
        e->nomem = 1;
        return;
    }
    *k = kind;
}

/* A row a restart ended says what was taken for it, and so does the row
 * whose open line was taken for one. */
static void note_restart_row(sat_etime *e, const sat_ldap_conn *c)
{
    static const char start[] = "server restart: the server's start line";
    static const char number[] = "server restart: conn=";
    if ((c->flags & SAT_CONNF_RESTART_OPEN) && c->conn_epoch > 0)
        note_restart_kind(e, c->server, c->conn_epoch - 1, RK_NUMBER);
    if (!(c->flags & SAT_CONNF_RESTART) || !c->close_reason.ptr)
        return;
    if (c->close_reason.len >= sizeof start - 1 &&
        memcmp(c->close_reason.ptr, start, sizeof start - 1) == 0)
        note_restart_kind(e, c->server, c->conn_epoch, RK_START_LINE);
    else if (c->close_reason.len >= sizeof number - 1 &&
             memcmp(c->close_reason.ptr, number, sizeof number - 1) == 0)
        note_restart_kind(e, c->server, c->conn_epoch, RK_NUMBER);
}

static void widen(sat_ts_ns *first, sat_ts_ns *last, sat_ts_ns ts)
{
    if (ts <= 0)
        return;
    if (!*first || ts < *first)
        *first = ts;
    if (ts > *last)
        *last = ts;
}

typedef struct et_connkey {
    uint32_t server, epoch;
    int64_t conn;
} et_connkey;

static et_connkey conn_key(const sat_ldap_op *op)
{
    et_connkey k;
    memset(&k, 0, sizeof k);
    k.server = op->server;
    k.epoch = op->conn_epoch;
    k.conn = op->conn;
    return k;
}

static uint64_t ldapi_contrib(const et_ldapi *l, int root)
{
    uint32_t a = root ? l->autobinds_root : l->autobinds, b = root ? l->binds_root : l->binds;
    return a > b ? a - b : 0;
}

/* Drops the LDAPI entries of connections whose row has arrived (their
 * contribution is in ldapi_extra*), so the table holds open connections. */
static void ldapi_compact(sat_etime *e)
{
    sat_strtab nt;
    sat_strtab_init(&nt, sizeof(et_ldapi), 0);
    for (size_t i = 0; i < e->ldapi.n; i++) {
        const et_ldapi *l = (const et_ldapi *)sat_strtab_val(&e->ldapi, i);
        if (l->done)
            continue;
        et_ldapi *d = (et_ldapi *)sat_strtab_upsert(&nt, sat_strtab_key(&e->ldapi, i),
                                                    sat_strtab_len(&e->ldapi, i), NULL, NULL);
        if (!d) {
            e->nomem = 1;
            sat_strtab_free(&nt);
            return;
        }
        *d = *l;
    }
    sat_strtab_free(&e->ldapi);
    e->ldapi = nt;
    e->ldapi_done = 0;
}

/* The connection is over: its AUTOBIND/BIND pairing is final (a RESULT
 * logged after the close still adjusts it while the entry is kept). */
static void ldapi_conn_done(sat_etime *e, const sat_ldap_conn *c)
{
    et_connkey k;
    memset(&k, 0, sizeof k);
    k.server = c->server;
    k.epoch = c->conn_epoch;
    k.conn = c->conn;
    et_ldapi *l = (et_ldapi *)sat_strtab_find(&e->ldapi, &k, sizeof k);
    if (!l || l->done)
        return;
    l->done = 1;
    e->ldapi_extra += ldapi_contrib(l, 0);
    e->ldapi_extra_root += ldapi_contrib(l, 1);
    if (++e->ldapi_done > ET_LDAPI_DONE_MAX && e->ldapi_done > e->ldapi.n / 2)
        ldapi_compact(e);
}

static void peak_note(et_peak *p, const sat_ldap_conn *c)
{
    if (c->open_ts <= 0) {
        p->no_open++;
        return;
    }
    int64_t d = (int64_t)c->concurrent - (int64_t)c->preopen_closed;
    if (!p->has || d > p->best || (d == p->best && c->open_ts < p->best_at)) {
        p->best = d;
        p->best_at = c->open_ts;
        p->has = 1;
    }
}

static int on_conn(void *ctx, const sat_ldap_conn *c)
{
    sat_etime *e = (sat_etime *)ctx;
    e->finished = 0;
    e->conns++;
    e->by_listener[c->listener < SAT_LISTENER__COUNT ? c->listener : 0]++;
    int closed = c->close_ts > 0 || (c->close_code != SAT_CLOSE_NONE &&
                                     !(c->flags & SAT_CONNF_UNCLOSED));
    if (c->close_code < SAT_CLOSE__COUNT && c->close_code != SAT_CLOSE_NONE)
        e->by_close[c->close_code]++;
    else if (closed)
        e->by_close[SAT_CLOSE_OTHER]++;
    if (!closed)
        e->conns_unclosed++;
    if (!c->open_ts)
        e->conns_no_open++;
    if (c->fd >= 0) {
        e->fds_taken++;
        if (closed)
            e->fds_returned++;
        if (c->fd > e->highest_fd)
            e->highest_fd = c->fd;
    }
    if (contains(c->close_reason, "error 32") || contains(c->close_reason, "Broken pipe"))
        e->broken_pipe++;
    if (contains(c->close_reason, "error 104") ||
        contains(c->close_reason, "reset by peer"))
        e->reset_by_peer++;
    if (contains(c->close_reason, "error 11 ") || contains(c->close_reason, "error 11)") ||
        contains(c->close_reason, "Resource temporarily unavailable"))
        e->resource_unavail++;
    if (c->close_code == SAT_CLOSE_B2)
        e->max_ber++;
    if (c->flags & SAT_CONNF_CERT_BOUND)
        e->more.cert_binds++;
    if (c->flags & SAT_CONNF_CERT_MAP_FAILED)
        e->more.cert_map_failed++;
    /* "TLS1.3 256-bit AES-GCM", as logconv.pl's Secure Protocol Versions;
     * it counts TLS lines, this counts connections (a connection logs its
     * TLS line once, so the two agree) */
    if (c->tls_version.ptr && c->tls_version.len) {
        size_t vl = c->tls_version.len, cl = c->tls_cipher.ptr ? c->tls_cipher.len : 0;
        if (cl && ensure_scratch(e, vl + 1 + cl)) {
            memcpy(e->scratch, c->tls_version.ptr, vl);
            e->scratch[vl] = ' ';
            memcpy(e->scratch + vl + 1, c->tls_cipher.ptr, cl);
            ktab_add(e, &e->tls_versions, e->scratch, vl + 1 + cl, NULL);
        } else {
            ktab_add(e, &e->tls_versions, c->tls_version.ptr, vl, NULL);
        }
    }
    note_epoch(e, c->server, c->conn_epoch);
    note_restart_row(e, c);
    widen(&e->cfirst_ts, &e->clast_ts, c->open_ts);
    widen(&e->cfirst_ts, &e->clast_ts, c->close_ts);
    if (e->ldapi.n)
        ldapi_conn_done(e, c);

    if (c->flags & SAT_CONNF_COUNTED) {
        /* the joiner counted it: a few bytes per server, not per connection */
        et_peak *p = e->last_peak;
        if (!p || c->server != e->last_peak_server) {
            p = (et_peak *)sat_strtab_upsert(&e->peaks, &c->server, sizeof c->server,
                                             NULL, NULL);
            if (!p)
                return SAT_E_NOMEM;
            e->last_peak = p;
            e->last_peak_server = c->server;
        }
        peak_note(p, c);
        return e->nomem ? SAT_E_NOMEM : SAT_OK;
    }
    /* a row of a 1.0 trace: kept for the sweep at finish */
    if (e->nspans == e->spancap) {
        size_t nc = e->spancap ? e->spancap * 2 : 1024;
        et_connspan *ns = (et_connspan *)realloc(e->spans, nc * sizeof *ns);
        if (!ns)
            return SAT_E_NOMEM;
        e->spans = ns;
        e->spancap = nc;
    }
    et_connspan *s = &e->spans[e->nspans++];
    s->server = c->server;
    s->open_ts = c->open_ts > 0 ? c->open_ts : 0;
    s->close_ts = closed && c->close_ts > 0 ? c->close_ts : 0;
    return e->nomem ? SAT_E_NOMEM : SAT_OK;
}

/* The --by key of an op; NULL key for BY_NONE/OP/MINUTE (handled apart). */
static sat_str group_key(sat_etime *e, const sat_ldap_op *op, char *tbuf)
{
    static const char *const bracketed[SAT_OP__COUNT] = {
        "[UNKNOWN]", "[BIND]", "[SRCH]", "[ADD]", "[MOD]", "[DEL]",
        "[MODRDN]", "[CMP]", "[EXT]", "[ABANDON]", "[UNBIND]", "[AUTOBIND]"};
    int t = op->type < SAT_OP__COUNT ? op->type : SAT_OP_UNKNOWN;
    switch (e->opts.by) {
    case SAT_ETIME_BY_BASE:
        if (t == SAT_OP_SRCH || t == SAT_OP_ADD || t == SAT_OP_MOD || t == SAT_OP_DEL ||
            t == SAT_OP_MODRDN || t == SAT_OP_CMP) {
            if (!op->dn.ptr)
                return sat_str_cstr("(none)");
            if (op->dn.len == 0)
                return sat_str_cstr("(root DSE)");
            return op->dn;
        }
        return sat_str_cstr(bracketed[t]);
    case SAT_ETIME_BY_FILTER:
        if (t == SAT_OP_SRCH) {
            if (op->filter_shape.ptr && op->filter_shape.len)
                return op->filter_shape;
            if (op->filter.ptr && op->filter.len)
                return op->filter;
            return sat_str_cstr("(none)");
        }
        return sat_str_cstr(bracketed[t]);
    case SAT_ETIME_BY_CLIENT:
        return op->client_ip.ptr && op->client_ip.len ? op->client_ip
                                                      : sat_str_cstr("(unknown)");
    case SAT_ETIME_BY_BINDDN:
        if (!op->bind_dn.ptr)
            return sat_str_cstr("(unknown)");
        if (op->bind_dn.len == 0)
            return sat_str_cstr("(anonymous)");
        if (!ensure_scratch(e, op->bind_dn.len + 1))
            return sat_str_cstr("(unknown)");
        return sat_str_make(e->scratch, norm_dn(op->bind_dn.ptr, op->bind_dn.len,
                                                e->scratch));
    case SAT_ETIME_BY_CONN: {
        et_connkey k = conn_key(op);
        memcpy(tbuf, &k, sizeof k);
        return sat_str_make(tbuf, sizeof k);
    }
    default:
        return SAT_STR_NONE;
    }
}

static sat_str dn_key(sat_etime *e, sat_str dn)
{
    if (!dn.ptr)
        return sat_str_cstr("(unknown)");
    if (dn.len == 0)
        return sat_str_cstr("(anonymous)");
    if (!ensure_scratch(e, dn.len + 1))
        return sat_str_cstr("(unknown)");
    return sat_str_make(e->scratch, norm_dn(dn.ptr, dn.len, e->scratch));
}

static void ldapi_note(sat_etime *e, const sat_ldap_op *op, int autobind, int root)
{
    et_connkey k = conn_key(op);
    int is_local = op->client_ip.ptr && op->client_ip.len == 5 &&
                   memcmp(op->client_ip.ptr, "local", 5) == 0;
    et_ldapi *l;
    if (autobind || is_local)
        l = (et_ldapi *)sat_strtab_upsert(&e->ldapi, &k, sizeof k, NULL, NULL);
    else
        l = (et_ldapi *)sat_strtab_find(&e->ldapi, &k, sizeof k);
    if (!l) {
        if (autobind || is_local)
            e->nomem = 1;
        return;
    }
    if (l->done) { /* a RESULT after the close: its contribution changes */
        e->ldapi_extra -= ldapi_contrib(l, 0);
        e->ldapi_extra_root -= ldapi_contrib(l, 1);
    }
    if (autobind) {
        l->autobinds++;
        l->autobinds_root += root ? 1u : 0u;
    } else {
        l->binds++;
        l->binds_root += root ? 1u : 0u;
    }
    if (l->done) {
        e->ldapi_extra += ldapi_contrib(l, 0);
        e->ldapi_extra_root += ldapi_contrib(l, 1);
    }
}

static void on_bind(sat_etime *e, const sat_ldap_op *op)
{
    if ((op->flags & SAT_OPF_SASL_INPROGRESS) || op->err == 14) {
        e->sasl_steps++; /* folded into the final step of the same bind */
        return;
    }
    e->binds++;
    /* logconv.pl counts version=3 lines and takes the SASL steps off, but
     * also counts an AUTOBIND's BIND: the same rule as e->binds here */
    if (op->flags & SAT_OPF_BIND_V3)
        e->more.binds_v3++;
    else if (op->flags & SAT_OPF_BIND_V2)
        e->more.binds_v2++;
    int root = is_root_dn(e, op->dn);
    if (!op->method.ptr || eq_nocase(op->method, "SIMPLE")) {
        if (op->dn.ptr && op->dn.len == 0)
            e->binds_anon++;
        else
            e->binds_simple++;
    } else {
        e->binds_sasl++;
        char mech[64];
        size_t n = op->method.len < sizeof mech ? op->method.len : sizeof mech;
        for (size_t i = 0; i < n; i++) {
            char c = op->method.ptr[i];
            mech[i] = (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
        }
        ktab_add(e, &e->sasl_mechs, mech, n, op);
    }
    if (root)
        e->binds_root++;
    sat_str dk = dn_key(e, op->dn);
    ktab_add(e, &e->bind_dns, dk.ptr, dk.len, op);
    if (op->err == 49) {
        e->binds_failed++;
        dk = dn_key(e, op->dn);
        ktab_add(e, &e->failed_dn, dk.ptr, dk.len, op);
        sat_str c = op->client_ip.ptr && op->client_ip.len ? op->client_ip
                                                           : sat_str_cstr("(unknown)");
        ktab_add(e, &e->failed_client, c.ptr, c.len, op);
    }
    ldapi_note(e, op, 0, root);
}

static void on_unindexed(sat_etime *e, const sat_ldap_op *op)
{
    e->unidx_total++;
    sat_str parts[4] = {op->dn, op->filter, op->client_ip, op->bind_dn};
    size_t total = 4;
    for (int i = 0; i < 4; i++)
        total += parts[i].ptr ? parts[i].len : 0;
    if (!ensure_scratch(e, total))
        return;
    size_t o = 0;
    uint32_t lens[4];
    for (int i = 0; i < 4; i++) {
        lens[i] = parts[i].ptr ? parts[i].len : 0;
        if (lens[i])
            memcpy(e->scratch + o, parts[i].ptr, lens[i]);
        o += lens[i];
        e->scratch[o++] = '\x1f';
    }
    int capped;
    et_unidx *u = (et_unidx *)sat_strtab_upsert(&e->unidx, e->scratch, o, NULL, &capped);
    if (!u) {
        if (capped)
            e->unidx_folded++;
        else
            e->nomem = 1;
        return;
    }
    if (u->count == 0) {
        memcpy(u->klen, lens, sizeof lens);
        u->emax = SAT_ABSENT;
        u->nentries_max = SAT_ABSENT;
        u->first_ts = op->ts_ns;
        u->conn = op->conn;
        u->op = op->op;
    } else if (op->ts_ns && (op->ts_ns < u->first_ts || !u->first_ts)) {
        u->first_ts = op->ts_ns;
        u->conn = op->conn;
        u->op = op->op;
    }
    u->count++;
    u->notes |= op->notes;
    if (op->etime >= 0) {
        u->timed++;
        u->esum += (uint64_t)op->etime;
        if (op->etime > u->emax)
            u->emax = op->etime;
    }
    if (op->nentries > u->nentries_max)
        u->nentries_max = op->nentries;
}

/* Keeps the `top` earliest abandons: replace the latest kept one when an
 * earlier one arrives (inputs are mostly in time order, so this is rare). */
static void keep_abandon(sat_etime *e, sat_ts_ns ts, int64_t conn, int64_t opn,
                         int64_t target, sat_str client)
{
    if (!e->aband) {
        e->aband = (et_abandon *)calloc(e->opts.top, sizeof *e->aband);
        if (!e->aband) {
            e->nomem = 1;
            return;
        }
    }
    et_abandon *slot = NULL;
    if (e->naband < e->opts.top) {
        slot = &e->aband[e->naband++];
    } else {
        size_t worst = 0;
        for (size_t i = 1; i < e->naband; i++)
            if (e->aband[i].ts > e->aband[worst].ts)
                worst = i;
        if (ts >= e->aband[worst].ts)
            return;
        slot = &e->aband[worst];
    }
    slot->ts = ts;
    slot->conn = conn;
    slot->op = opn;
    slot->target_op = target;
    size_t n = client.ptr ? client.len : 0;
    if (n >= sizeof slot->client)
        n = sizeof slot->client - 1;
    if (n)
        memcpy(slot->client, client.ptr, n);
    slot->client[n] = '\0';
}

/* Adds the figures `w` of one attrs list to each attribute it names. */
static void split_attrs(sat_etime *e, const char *list, size_t len, const et_kv *w)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && (list[i] == ' ' || list[i] == ','))
            i++;
        size_t j = i;
        while (j < len && list[j] != ' ' && list[j] != ',')
            j++;
        if (j > i) {
            char a[128];
            size_t n = j - i < sizeof a ? j - i : sizeof a;
            for (size_t k = 0; k < n; k++)
                a[k] = lower_ascii(list[i + k]);
            int capped;
            et_kv *v = (et_kv *)sat_strtab_upsert(&e->attrs.t, a, n, NULL, &capped);
            if (!v && capped) {
                v = &e->attrs.other;
                fold_mark(&e->attrs.foldbits, a, n, &e->nomem);
            }
            if (v) {
                v->count += w->count;
                v->timed += w->timed;
                v->esum += w->esum;
            } else {
                e->nomem = 1;
            }
        }
        i = j;
    }
}

/* The lists counted so far, split into attributes (at finish; the lists
 * are emptied so that a later finish or merge counts nothing twice). Lists
 * folded past the key cap are lost to the attribute table as such: their
 * figures go to its "other" row. */
static void flush_attr_lists(sat_etime *e)
{
    et_ktab *l = &e->attr_lists;
    for (size_t i = 0; i < l->t.n; i++)
        split_attrs(e, sat_strtab_key(&l->t, i), sat_strtab_len(&l->t, i),
                    (const et_kv *)sat_strtab_val(&l->t, i));
    e->attrs.other.count += l->other.count;
    e->attrs.other.timed += l->other.timed;
    e->attrs.other.esum += l->other.esum;
    ktab_free(l);
    ktab_init(l, e->opts.max_keys);
}

static void count_attrs(sat_etime *e, sat_str attrs, const sat_ldap_op *op)
{
    ktab_add(e, &e->attr_lists, attrs.ptr, attrs.len, op);
}

static size_t etime_bytes(const sat_etime *e);

/* logconv.pl's counters that the row's flags and small numbers answer. Where
 * logconv.pl counts differently, this is the count it means:
 * - Total Results: it adds ABANDON lines to the RESULT lines; its Overall
 *   Performance divides that by its Total Operations, which leaves out
 *   the SASL steps (err=14) whose RESULTs it counted, counts an AUTOBIND
 *   and its BIND twice and a VLV search twice, so it reads low (and is cut
 *   at 100%). Here both sides count the same operations: every one that
 *   expects an answer (all but UNBIND and AUTOBIND), and those answered.
 * - Proxied Auth: it counts lines with " authzid=", so twice if the RESULT
 *   repeats it; here once per operation.
 * - VLV Operations: it counts VLV lines (one per operation, as here). */
static void count_more(sat_etime_counts *m, const sat_ldap_op *op, int t, int has_result)
{
    if (t != SAT_OP_UNBIND && t != SAT_OP_AUTOBIND) {
        m->expect_result++;
        if (has_result || t == SAT_OP_ABANDON)
            m->answered++;
    }
    if (op->flags & SAT_OPF_PROXIED)
        m->proxied++;
    if (op->flags & SAT_OPF_VLV) {
        m->vlv++;
        if (op->notes & SAT_NOTE_A)
            m->vlv_unindexed++;
        if (op->notes & SAT_NOTE_U)
            m->vlv_unindexed_components++;
    }
    if (op->flags & SAT_OPF_SORT)
        m->sort++;
    m->entry_lines += op->entry_lines;
    m->referral_lines += op->referral_lines;
}

/* The next bucket width of the series: each divides the next, so buckets
 * merge whole, and all are aligned on the epoch (hours, UTC days). */
static int64_t next_width(int64_t w)
{
    static const int64_t ladder[] = {1, 5, 15, 60, 360, 1440};
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++)
        if (ladder[i] > w)
            return ladder[i];
    return w * 2;
}

/* Re-keys the series into buckets `w` minutes wide (a multiple of the
 * current width), merging their groups: counts and sums stay exact and the
 * sketches keep their stated error (the merge of sketches is the sketch of
 * the union). */
static void minutes_rebucket(sat_etime *e, int64_t w)
{
    if (w <= e->bucket_min)
        return;
    int64_t f = w / e->bucket_min;
    sat_strtab nt;
    sat_strtab_init(&nt, sizeof(et_group), 0);
    for (size_t i = 0; i < e->minutes.n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(&e->minutes, i), sizeof k);
        k = k >= 0 ? k / f : -((-k + f - 1) / f);
        int is_new;
        et_group *g = (et_group *)sat_strtab_upsert(&nt, &k, sizeof k, &is_new, NULL);
        if (!g) {
            e->nomem = 1;
            break;
        }
        if (is_new)
            sat_qsketch_init(&g->q, 0);
        if (grp_merge(g, (const et_group *)sat_strtab_val(&e->minutes, i)) < 0)
            e->nomem = 1;
    }
    tab_free_groups(&e->minutes);
    e->minutes = nt;
    e->bucket_min = w;
    e->last_minute = INT64_MIN;
    e->last_minute_grp = NULL;
}

/* Keeps the series under ET_BUCKETS_MAX buckets, however long the span. */
static void minutes_bound(sat_etime *e)
{
    while (e->minutes.n > ET_BUCKETS_MAX && !e->nomem)
        minutes_rebucket(e, next_width(e->bucket_min));
}

static int on_op(void *ctx, const sat_ldap_op *op)
{
    sat_etime *e = (sat_etime *)ctx;
    e->finished = 0;
    if (op->internal_depth > 0) {
        /* their time is inside their parent's etime: counting them again
         * would double the share of whatever triggered them; they are
         * attributed to it instead (internal_ops.c) */
        e->internal_ops++;
        if (sat_iops_internal(e->iops, op) < 0)
            e->nomem = 1;
        return SAT_OK;
    }
    if (sat_iops_external(e->iops, op) < 0)
        e->nomem = 1;
    int t = op->type < SAT_OP__COUNT ? op->type : SAT_OP_UNKNOWN;
    /* ABANDON, UNBIND and AUTOBIND are counted, never timed: 389 2.x writes
     * an etime on its ABANDON line, but that is the time to find the target,
     * not time the server spent on a client's request. */
    sat_ldap_op untimed;
    if ((t == SAT_OP_ABANDON || t == SAT_OP_UNBIND || t == SAT_OP_AUTOBIND) &&
        (op->etime >= 0 || op->wtime >= 0 || op->optime >= 0)) {
        untimed = *op;
        untimed.etime = untimed.wtime = untimed.optime = SAT_ABSENT;
        op = &untimed;
    }
    int has_result = op->err != SAT_ABSENT && !(op->flags & SAT_OPF_UNFINISHED);
    sat_ts_ns ts = op->ts_ns > 0 ? op->ts_ns : op->result_ts_ns;
    widen(&e->first_ts, &e->last_ts, ts);
    widen(&e->cfirst_ts, &e->clast_ts, ts);
    note_epoch(e, op->server, op->conn_epoch);

    /* The row's high-cardinality lookups (client, search base, filter, --by
     * key): hash them and prefetch their slots now, their entries after the
     * cheap work below, and use them last, so their cache misses overlap
     * instead of queueing (strtab.h). */
    sat_str kc = op->client_ip.ptr && op->client_ip.len ? op->client_ip
                                                        : sat_str_cstr("(unknown)");
    uint64_t hc = sat_strtab_hash(kc.ptr, kc.len);
    sat_strtab_prefetch(&e->clients.t, hc);
    sat_str kb = SAT_STR_NONE, kf = SAT_STR_NONE;
    uint64_t hb = 0, hf = 0;
    if (t == SAT_OP_SRCH) {
        if (op->dn.ptr)
            kb = op->dn.len ? op->dn : sat_str_cstr("(root DSE)");
        if (op->filter.ptr)
            kf = op->filter;
        if (kb.ptr) {
            hb = sat_strtab_hash(kb.ptr, kb.len);
            sat_strtab_prefetch(&e->bases.t, hb);
        }
        if (kf.ptr) {
            hf = sat_strtab_hash(kf.ptr, kf.len);
            sat_strtab_prefetch(&e->filters.t, hf);
        }
    }
    char kbuf[sizeof(et_connkey)];
    sat_str kg = SAT_STR_NONE;
    uint64_t hg = 0;
    if (e->opts.by != SAT_ETIME_BY_NONE && e->opts.by != SAT_ETIME_BY_OP &&
        e->opts.by != SAT_ETIME_BY_MINUTE && e->opts.by != SAT_ETIME_BY_INTERNAL) {
        kg = group_key(e, op, kbuf); /* may live in e->scratch: used before
                                        anything else writes there */
        hg = sat_strtab_hash(kg.ptr, kg.len);
        sat_strtab_prefetch(&e->groups, hg);
    }

    e->ops++;
    if (op->flags & SAT_OPF_UNFINISHED)
        e->unfinished++;
    if (op->flags & SAT_OPF_NO_REQUEST)
        e->no_request++;
    grp_add(e, &e->optype[t], op, has_result);
    if (has_result) {
        e->results++;
        grp_add(e, &e->all, op, 1);
        if (op->err >= 0 && op->err < ET_ERR_FAST) {
            e->err_fast[op->err]++;
        } else {
            int32_t code = op->err;
            uint64_t *c = (uint64_t *)sat_strtab_upsert(&e->err_other, &code,
                                                        sizeof code, NULL, NULL);
            if (c)
                (*c)++;
            else
                e->nomem = 1;
        }
    }

    /* per-minute series (always: the text report draws it) */
    if (ts > 0) {
        int64_t minute = ts / 60000000000LL / e->bucket_min; /* bucket number */
        et_group *mg;
        if (minute == e->last_minute) {
            mg = e->last_minute_grp;
        } else {
            int is_new;
            mg = (et_group *)sat_strtab_upsert(&e->minutes, &minute, sizeof minute,
                                               &is_new, NULL);
            if (mg) {
                if (is_new)
                    sat_qsketch_init(&mg->q, 0);
                e->last_minute = minute;
                e->last_minute_grp = mg;
            } else {
                e->nomem = 1;
            }
        }
        if (mg)
            grp_add(e, mg, op, has_result);
        if (e->minutes.n > ET_BUCKETS_MAX)
            minutes_bound(e);
    }

    sat_strtab_prefetch_entry(&e->clients.t, hc);
    if (kb.ptr)
        sat_strtab_prefetch_entry(&e->bases.t, hb);
    if (kf.ptr)
        sat_strtab_prefetch_entry(&e->filters.t, hf);
    if (kg.ptr)
        sat_strtab_prefetch_entry(&e->groups, hg);

    /* --by groups */
    if (kg.ptr) {
        int is_new, capped;
        et_group *g = (et_group *)sat_strtab_upsert_h(&e->groups, kg.ptr, kg.len, hg,
                                                      &is_new, &capped);
        if (g && is_new)
            sat_qsketch_init(&g->q, 0);
        if (!g) {
            if (!capped)
                e->nomem = 1;
            g = &e->gother;
            fold_mark(&e->gfoldbits, kg.ptr, kg.len, &e->nomem);
        }
        grp_add(e, g, op, has_result);
    }

    for (int b = 0; b < 7; b++)
        if (op->notes & (1u << b))
            e->notes[b]++;
    count_more(&e->more, op, t, has_result);
    if (op->flags & SAT_OPF_PERSISTENT)
        e->persistent++;
    if ((op->flags & SAT_OPF_PAGED) || (op->notes & SAT_NOTE_P))
        e->paged++;
    if (op->nentries > 0)
        e->entries += (uint64_t)op->nentries;

    ktab_add_h(e, &e->clients, kc.ptr, kc.len, hc, op);

    switch (t) {
    case SAT_OP_SRCH:
        if (kb.ptr)
            ktab_add_h(e, &e->bases, kb.ptr, kb.len, hb, op);
        if (kf.ptr)
            ktab_add_h(e, &e->filters, kf.ptr, kf.len, hf, op);
        /* logconv.pl's Entire Search Base Queries. It matches
         * "objectclass=*" or "objectclass=top" anywhere in a scope=2 line,
         * so it also counts (&(objectClass=top)(uid=x)), which selects one
         * entry; here only the match-everything filters count. */
        if (op->scope == SAT_SCOPE_SUB &&
            (eq_nocase(op->filter, "(objectclass=*)") ||
             eq_nocase(op->filter, "(objectclass=top)")))
            e->whole_base++;
        if (op->notes & (SAT_NOTE_A | SAT_NOTE_U))
            on_unindexed(e, op);
        if (op->attrs.ptr && op->attrs.len)
            count_attrs(e, op->attrs, op);
        break;
    case SAT_OP_BIND:
        on_bind(e, op);
        break;
    case SAT_OP_AUTOBIND:
        e->autobinds++;
        ldapi_note(e, op, 1, is_root_dn(e, op->dn));
        break;
    case SAT_OP_EXT: {
        e->ext_ops++;
        sat_str oid = op->method.ptr && op->method.len ? op->method : sat_str_cstr("(none)");
        if (op->extra.ptr && op->extra.len && ensure_scratch(e, oid.len + op->extra.len + 4)) {
            size_t o = 0;
            memcpy(e->scratch, oid.ptr, oid.len);
            o += oid.len;
            memcpy(e->scratch + o, " (", 2);
            o += 2;
            memcpy(e->scratch + o, op->extra.ptr, op->extra.len);
            o += op->extra.len;
            e->scratch[o++] = ')';
            ktab_add(e, &e->ext_oids, e->scratch, o, op);
        } else {
            ktab_add(e, &e->ext_oids, oid.ptr, oid.len, op);
        }
        break;
    }
    case SAT_OP_ABANDON:
        e->abandons++;
        keep_abandon(e, ts, op->conn, op->op, op->target_op, op->client_ip);
        break;
    case SAT_OP_UNBIND:
        e->unbinds++;
        break;
    default:
        break;
    }

    if (e->ops >= e->mem_check_at) {
        e->mem_check_at = e->ops + (1u << 20);
        size_t b = etime_bytes(e);
        if (b > e->mem_peak)
            e->mem_peak = b;
    }
    return e->nomem ? SAT_E_NOMEM : SAT_OK;
}

static int on_row(void *ctx, int table, const void *row)
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
        return SAT_OK;
    }
}

sat_event_sink sat_etime_sink(sat_etime *e)
{
    sat_event_sink s = {e,
                        SAT_TABLE_BIT(SAT_TABLE_SOURCE) | SAT_TABLE_BIT(SAT_TABLE_REJECT) |
                            SAT_TABLE_BIT(SAT_TABLE_LDAP_OP) |
                            SAT_TABLE_BIT(SAT_TABLE_LDAP_CONN),
                        on_row};
    return s;
}

static size_t tab_group_bytes(const sat_strtab *t)
{
    size_t b = sat_strtab_bytes(t);
    for (size_t i = 0; i < t->n; i++)
        b += sat_qsketch_bytes(&((const et_group *)sat_strtab_val(t, i))->q);
    return b;
}

static size_t etime_bytes(const sat_etime *e)
{
    size_t b = sizeof *e + tab_group_bytes(&e->groups) + tab_group_bytes(&e->minutes);
    for (int i = 0; i < SAT_OP__COUNT; i++)
        b += sat_qsketch_bytes(&e->optype[i].q);
    b += sat_qsketch_bytes(&e->all.q) + sat_qsketch_bytes(&e->gother.q);
    b += sat_strtab_bytes(&e->unidx) + sat_strtab_bytes(&e->ldapi) +
         sat_strtab_bytes(&e->err_other) + sat_strtab_bytes(&e->epochs) + sat_strtab_bytes(&e->restart_kinds) +
         sat_strtab_bytes(&e->peaks);
    for (size_t i = 0; ktabs((sat_etime *)e, i); i++)
        b += sat_strtab_bytes(&ktabs((sat_etime *)e, i)->t);
    b += e->spancap * sizeof(et_connspan) + e->scratch_cap + sat_iops_bytes(e->iops);
    return b;
}

/* ---- merge ------------------------------------------------------------------------------ */

static void merge_group_tab(sat_etime *e, sat_strtab *into, const sat_strtab *from,
                            et_group *other, uint8_t **foldbits)
{
    for (size_t i = 0; i < from->n; i++) {
        const et_group *s = (const et_group *)sat_strtab_val(from, i);
        int is_new, capped;
        et_group *g = (et_group *)sat_strtab_upsert(into, sat_strtab_key(from, i), sat_strtab_len(from, i),
                                                    &is_new, &capped);
        if (g && is_new)
            sat_qsketch_init(&g->q, 0);
        if (!g) {
            if (!capped || !other) {
                e->nomem = 1;
                continue;
            }
            g = other;
            fold_mark(foldbits, sat_strtab_key(from, i), sat_strtab_len(from, i), &e->nomem);
        }
        if (grp_merge(g, s) < 0)
            e->nomem = 1;
    }
}

int sat_etime_merge(sat_etime *into, const sat_etime *from)
{
    if (!into || !from || into == from)
        return SAT_E_USAGE;
    if (into->opts.by != from->opts.by)
        return SAT_E_USAGE;
    int was_finished = into->finished;
    into->finished = 0;
    sat_etime *e = into;

    widen(&e->first_ts, &e->last_ts, from->first_ts);
    widen(&e->first_ts, &e->last_ts, from->last_ts);
    widen(&e->cfirst_ts, &e->clast_ts, from->cfirst_ts);
    widen(&e->cfirst_ts, &e->clast_ts, from->clast_ts);
    for (int i = 0; i < SAT_OP__COUNT; i++)
        if (grp_merge(&e->optype[i], &from->optype[i]) < 0)
            e->nomem = 1;
    if (grp_merge(&e->all, &from->all) < 0 || grp_merge(&e->gother, &from->gother) < 0)
        e->nomem = 1;
    merge_group_tab(e, &e->groups, &from->groups, &e->gother, &e->gfoldbits);
    fold_merge(&e->gfoldbits, from->gfoldbits, &e->nomem);
    /* the series: both at the coarser width, then merged and bounded */
    minutes_rebucket(e, from->bucket_min);
    if (from->bucket_min == e->bucket_min) {
        merge_group_tab(e, &e->minutes, &from->minutes, NULL, NULL);
    } else {
        int64_t f = e->bucket_min / from->bucket_min;
        for (size_t i = 0; i < from->minutes.n; i++) {
            int64_t k;
            memcpy(&k, sat_strtab_key(&from->minutes, i), sizeof k);
            k = k >= 0 ? k / f : -((-k + f - 1) / f);
            int is_new;
            et_group *g = (et_group *)sat_strtab_upsert(&e->minutes, &k, sizeof k,
                                                        &is_new, NULL);
            if (!g) {
                e->nomem = 1;
                continue;
            }
            if (is_new)
                sat_qsketch_init(&g->q, 0);
            if (grp_merge(g, (const et_group *)sat_strtab_val(&from->minutes, i)) < 0)
                e->nomem = 1;
        }
    }
    e->last_minute = INT64_MIN;
    e->last_minute_grp = NULL;
    minutes_bound(e);

    e->ops += from->ops;
    e->results += from->results;
    e->unfinished += from->unfinished;
    e->internal_ops += from->internal_ops;
    if (sat_iops_merge(e->iops, from->iops) < 0)
        e->nomem = 1;
    e->no_request += from->no_request;
    e->persistent += from->persistent;
    e->paged += from->paged;
    e->entries += from->entries;
    e->ext_ops += from->ext_ops;
    e->abandons += from->abandons;
    e->unbinds += from->unbinds;
    e->whole_base += from->whole_base;
    for (int i = 0; i < ET_ERR_FAST; i++)
        e->err_fast[i] += from->err_fast[i];
    for (size_t i = 0; i < from->err_other.n; i++) {
        uint64_t *c = (uint64_t *)sat_strtab_upsert(&e->err_other, sat_strtab_key(&from->err_other, i),
                                                    sat_strtab_len(&from->err_other, i), NULL, NULL);
        if (c)
            *c += *(const uint64_t *)sat_strtab_val(&from->err_other, i);
        else
            e->nomem = 1;
    }
    for (int i = 0; i < 7; i++)
        e->notes[i] += from->notes[i];

    for (size_t i = 0; i < from->unidx.n; i++) {
        const et_unidx *s = (const et_unidx *)sat_strtab_val(&from->unidx, i);
        int capped;
        et_unidx *u = (et_unidx *)sat_strtab_upsert(&e->unidx, sat_strtab_key(&from->unidx, i),
                                                    sat_strtab_len(&from->unidx, i), NULL, &capped);
        if (!u) {
            if (capped)
                e->unidx_folded += s->count;
            else
                e->nomem = 1;
            continue;
        }
        if (u->count == 0) {
            *u = *s;
            continue;
        }
        if (s->first_ts && (!u->first_ts || s->first_ts < u->first_ts)) {
            u->first_ts = s->first_ts;
            u->conn = s->conn;
            u->op = s->op;
        }
        u->count += s->count;
        u->timed += s->timed;
        u->esum += s->esum;
        u->notes |= s->notes;
        if (s->emax > u->emax)
            u->emax = s->emax;
        if (s->nentries_max > u->nentries_max)
            u->nentries_max = s->nentries_max;
    }
    e->unidx_total += from->unidx_total;
    e->unidx_folded += from->unidx_folded;

    e->binds += from->binds;
    e->binds_simple += from->binds_simple;
    e->binds_anon += from->binds_anon;
    e->binds_sasl += from->binds_sasl;
    e->sasl_steps += from->sasl_steps;
    e->autobinds += from->autobinds;
    e->binds_root += from->binds_root;
    e->binds_failed += from->binds_failed;
    {
        uint64_t *a = (uint64_t *)&e->more;
        const uint64_t *b = (const uint64_t *)&from->more;
        for (size_t i = 0; i < sizeof e->more / sizeof(uint64_t); i++)
            a[i] += b[i];
    }
    for (size_t i = 0; i < from->ldapi.n; i++) {
        const et_ldapi *s = (const et_ldapi *)sat_strtab_val(&from->ldapi, i);
        et_ldapi *l = (et_ldapi *)sat_strtab_upsert(&e->ldapi, sat_strtab_key(&from->ldapi, i),
                                                    sat_strtab_len(&from->ldapi, i), NULL, NULL);
        if (!l) {
            e->nomem = 1;
            continue;
        }
        /* contributions of done parts leave the totals; the sum re-enters */
        if (l->done) {
            e->ldapi_extra -= ldapi_contrib(l, 0);
            e->ldapi_extra_root -= ldapi_contrib(l, 1);
        }
        if (s->done) {
            e->ldapi_extra -= ldapi_contrib(s, 0);
            e->ldapi_extra_root -= ldapi_contrib(s, 1);
        }
        l->autobinds += s->autobinds;
        l->autobinds_root += s->autobinds_root;
        l->binds += s->binds;
        l->binds_root += s->binds_root;
        if (s->done && !l->done) {
            l->done = 1;
            e->ldapi_done++;
        }
        if (l->done) {
            e->ldapi_extra += ldapi_contrib(l, 0);
            e->ldapi_extra_root += ldapi_contrib(l, 1);
        }
    }
    e->ldapi_extra += from->ldapi_extra;
    e->ldapi_extra_root += from->ldapi_extra_root;
    for (size_t i = 0; ktabs(e, i); i++)
        ktab_merge(e, ktabs(e, i), ktabs((sat_etime *)from, i));

    for (size_t i = 0; i < from->naband; i++) {
        const et_abandon *a = &from->aband[i];
        keep_abandon(e, a->ts, a->conn, a->op, a->target_op, sat_str_cstr(a->client));
    }
    e->conns += from->conns;
    e->conns_no_open += from->conns_no_open;
    e->conns_unclosed += from->conns_unclosed;
    e->fds_taken += from->fds_taken;
    e->fds_returned += from->fds_returned;
    if (from->highest_fd > e->highest_fd)
        e->highest_fd = from->highest_fd;
    for (int i = 0; i < SAT_LISTENER__COUNT; i++)
        e->by_listener[i] += from->by_listener[i];
    for (int i = 0; i < SAT_CLOSE__COUNT; i++)
        e->by_close[i] += from->by_close[i];
    sat_fields_merge(&e->fields, &from->fields);
    e->broken_pipe += from->broken_pipe;
    e->reset_by_peer += from->reset_by_peer;
    e->resource_unavail += from->resource_unavail;
    e->max_ber += from->max_ber;
    if (from->nspans) {
        if (e->nspans + from->nspans > e->spancap) {
            size_t nc = e->nspans + from->nspans;
            et_connspan *ns = (et_connspan *)realloc(e->spans, nc * sizeof *ns);
            if (!ns)
                return SAT_E_NOMEM;
            e->spans = ns;
            e->spancap = nc;
        }
        memcpy(e->spans + e->nspans, from->spans, from->nspans * sizeof(et_connspan));
        e->nspans += from->nspans;
    }
    /* counted peaks: exact when the two results are of different servers
     * (several hosts). Two parts of one server's log were joined apart, and
     * neither joiner saw the other's connections: the result is then an
     * estimate, at least the larger part's peak (each part's connections
     * without an open line count from the start). */
    for (size_t i = 0; i < from->peaks.n; i++) {
        const et_peak *s = (const et_peak *)sat_strtab_val(&from->peaks, i);
        et_peak *p = (et_peak *)sat_strtab_upsert(&e->peaks, sat_strtab_key(&from->peaks, i),
                                                  sat_strtab_len(&from->peaks, i), NULL, NULL);
        if (!p) {
            e->nomem = 1;
            continue;
        }
        p->no_open += s->no_open;
        if (s->has && (!p->has || s->best > p->best ||
                       (s->best == p->best && s->best_at < p->best_at))) {
            p->best = s->best;
            p->best_at = s->best_at;
            p->has = 1;
        }
    }
    e->last_peak = NULL;
    for (size_t i = 0; i < from->epochs.n; i++) {
        uint32_t server;
        memcpy(&server, sat_strtab_key(&from->epochs, i), sizeof server);
        note_epoch(e, server, *(const uint32_t *)sat_strtab_val(&from->epochs, i));
    }
    for (size_t i = 0; i < from->restart_kinds.n; i++) {
        uint32_t key[2];
        memcpy(key, sat_strtab_key(&from->restart_kinds, i), sizeof key);
        note_restart_kind(e, key[0], key[1],
                          *(const uint8_t *)sat_strtab_val(&from->restart_kinds, i));
    }

    /* sources: ids are the collection's (the same id in both is the same input:
     * a reject in one part names a source row the other holds), as analyze.h
     * says of every merge; results of separate collections are numbered apart
     * by their caller (cli/cli_parallel.c) */
    const uint32_t off = 0;
    for (size_t i = 0; i < from->nsrcs; i++) {
        const et_src *s = &from->srcs[i];
        if (add_source(e, s->id + off, sat_str_cstr(s->path), sat_str_cstr(s->format),
                       sat_str_cstr(s->compression), s->bytes, s->lines, s->rejects,
                       s->truncated) < 0)
            return SAT_E_NOMEM;
    }
    uint64_t seen = e->rejects_sampled_seen;
    for (size_t i = 0; i < from->nrej; i++)
        if (add_reject(e, from->rej[i].source + off, from->rej[i].line_no,
                       sat_str_cstr(from->rej[i].reason),
                       sat_str_cstr(from->rej[i].excerpt)) < 0)
            return SAT_E_NOMEM;
    e->rejects_sampled_seen = seen + from->rejects_sampled_seen;

    size_t b = etime_bytes(e);
    if (b > e->mem_peak)
        e->mem_peak = b;
    if (e->nomem)
        return SAT_E_NOMEM;
    return was_finished ? sat_etime_finish(e) : SAT_OK;
}

/* ---- finish: the view ----------------------------------------------------------------- */

static void row_fill(sat_etime_row *r, const char *key, et_group *g, double all_total_ns,
                     double span_s)
{
    memset(r, 0, sizeof *r);
    r->key = key;
    r->count = g->count;
    r->results = g->results;
    r->timed = g->timed;
    r->errors = g->errors;
    r->rate = span_s > 0 ? (double)g->count / span_s : NAN;
    if (g->timed) {
        r->mean_s = (double)g->esum / (double)g->timed / 1e9;
        r->p50_s = sat_qsketch_quantile(&g->q, 0.50) / 1e9;
        r->p90_s = sat_qsketch_quantile(&g->q, 0.90) / 1e9;
        r->p99_s = sat_qsketch_quantile(&g->q, 0.99) / 1e9;
        r->p999_s = sat_qsketch_quantile(&g->q, 0.999) / 1e9;
        r->max_s = g->q.n ? (double)g->q.max / 1e9 : NAN;
        r->total_s = (double)g->esum / 1e9;
        r->share = all_total_ns > 0 ? (double)g->esum / all_total_ns : NAN;
    } else {
        r->mean_s = r->p50_s = r->p90_s = r->p99_s = r->p999_s = r->max_s = NAN;
        r->total_s = r->share = NAN;
    }
    r->wtime_mean_s = g->wn ? (double)g->wsum / (double)g->wn / 1e9 : NAN;
    r->optime_mean_s = g->on ? (double)g->osum / (double)g->on / 1e9 : NAN;
}

static int cmp_row_share(const void *a, const void *b)
{
    const sat_etime_row *x = (const sat_etime_row *)a, *y = (const sat_etime_row *)b;
    double tx = isnan(x->total_s) ? -1 : x->total_s, ty = isnan(y->total_s) ? -1 : y->total_s;
    if (tx != ty)
        return tx > ty ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->key, y->key);
}

typedef struct et_sortkv {
    const char *key;
    uint64_t count;
    size_t idx;
} et_sortkv;

static int cmp_sortkv(const void *a, const void *b)
{
    const et_sortkv *x = (const et_sortkv *)a, *y = (const et_sortkv *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int build_kvlist(sat_etime *e, const et_ktab *k, size_t top, sat_etime_kvlist *out)
{
    memset(out, 0, sizeof *out);
    uint64_t folded = fold_estimate(k->foldbits);
    out->folded = folded;
    out->unique = k->t.n + folded;
    if (!k->t.n)
        return SAT_OK;
    et_sortkv *tmp = (et_sortkv *)malloc((top ? top : 1) * sizeof *tmp);
    if (!tmp)
        return SAT_E_NOMEM;
    /* Only the `top` first entries are shown: keep them in a bounded heap
     * whose root is the one that sorts last, then sort just those (a key
     * table can hold 100,000 entries; the report shows 20). */
    size_t n = 0, cap = k->t.n < top ? k->t.n : top;
    for (size_t i = 0; i < k->t.n && cap; i++) {
        et_sortkv x;
        x.key = sat_strtab_key(&k->t, i);
        x.count = ((const et_kv *)sat_strtab_val(&k->t, i))->count;
        x.idx = i;
        size_t at;
        if (n < cap) { /* sift up */
            at = n++;
            while (at > 0 && cmp_sortkv(&tmp[(at - 1) / 2], &x) < 0) {
                tmp[at] = tmp[(at - 1) / 2];
                at = (at - 1) / 2;
            }
            tmp[at] = x;
            continue;
        }
        if (cmp_sortkv(&x, &tmp[0]) >= 0)
            continue; /* sorts after everything kept */
        at = 0; /* replace the root, sift down */
        for (;;) {
            size_t c = 2 * at + 1;
            if (c >= n)
                break;
            if (c + 1 < n && cmp_sortkv(&tmp[c], &tmp[c + 1]) < 0)
                c++;
            if (cmp_sortkv(&tmp[c], &x) <= 0)
                break;
            tmp[at] = tmp[c];
            at = c;
        }
        tmp[at] = x;
    }
    qsort(tmp, n, sizeof *tmp, cmp_sortkv);
    out->rows = (sat_etime_kv *)sat_arena_alloc(&e->view_arena, n * sizeof *out->rows);
    if (!out->rows) {
        free(tmp);
        return SAT_E_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const et_kv *v = (const et_kv *)sat_strtab_val(&k->t, tmp[i].idx);
        out->rows[i].key = tmp[i].key;
        out->rows[i].count = v->count;
        out->rows[i].total_s = v->timed ? (double)v->esum / 1e9 : NAN;
    }
    out->n = n;
    free(tmp);
    return SAT_OK;
}

static int cmp_i64v(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_span_server(const void *a, const void *b)
{
    const et_connspan *x = (const et_connspan *)a, *y = (const et_connspan *)b;
    return (x->server > y->server) - (x->server < y->server);
}

/* Peak concurrent connections per server, the max over servers. A
 * connection whose open line is not in the input was open when the input
 * began; one not closed is open until its end. At equal times closes come
 * before opens, so a connection closing as another opens is not a peak. */
static int sweep_peak(sat_etime *e, uint64_t *peak, sat_ts_ns *peak_at)
{
    *peak = 0;
    *peak_at = 0;
    if (!e->nspans)
        return SAT_OK;
    qsort(e->spans, e->nspans, sizeof *e->spans, cmp_span_server);
    int64_t *ev = (int64_t *)malloc(e->nspans * 2 * sizeof *ev);
    if (!ev)
        return SAT_E_NOMEM;
    size_t i = 0;
    while (i < e->nspans) {
        size_t j = i, n = 0;
        while (j < e->nspans && e->spans[j].server == e->spans[i].server) {
            const et_connspan *s = &e->spans[j];
            int64_t o = s->open_ts > 0 ? s->open_ts * 2 + 1 : INT64_MIN + 1;
            int64_t c = s->close_ts > 0 ? s->close_ts * 2 : INT64_MAX - 1;
            if (c < o - 1 && s->open_ts > 0 && s->close_ts > 0)
                c = o - 1; /* closed before opened: bad clock, zero length */
            ev[n++] = o;
            ev[n++] = c;
            j++;
        }
        qsort(ev, n, sizeof *ev, cmp_i64v);
        uint64_t cur = 0;
        for (size_t k = 0; k < n; k++) {
            int open = ev[k] == INT64_MIN + 1 || (ev[k] != INT64_MAX - 1 && (ev[k] & 1));
            if (open) {
                cur++;
                if (cur > *peak) {
                    *peak = cur;
                    *peak_at = ev[k] == INT64_MIN + 1 ? e->cfirst_ts : ev[k] / 2;
                }
            } else if (cur) {
                cur--;
            }
        }
        i = j;
    }
    free(ev);
    return SAT_OK;
}

/* The peak from counted rows (event.h): per server, the connections
 * without an open line are open from the start, so the count at a row's
 * opening is its concurrent - preopen_closed plus all of them; the peak is
 * at the start when no opening rises above them. The same figure as the
 * sweep above gives over the same rows (closes and opens at one timestamp in
 * the order logged rather than closes first), without keeping the rows.
 * Servers as in the sweep: the max, ties to the lower server index. */
static void counted_peak(const sat_etime *e, uint64_t *peak, sat_ts_ns *peak_at)
{
    uint32_t best_server = UINT32_MAX;
    int from_sweep = *peak > 0;
    for (size_t i = 0; i < e->peaks.n; i++) {
        const et_peak *p = (const et_peak *)sat_strtab_val(&e->peaks, i);
        uint32_t server;
        memcpy(&server, sat_strtab_key(&e->peaks, i), sizeof server);
        int rises = p->has && p->best > 0;
        uint64_t pk = p->no_open + (rises ? (uint64_t)p->best : 0);
        if (pk > *peak || (pk == *peak && pk > 0 && !from_sweep && server < best_server)) {
            *peak = pk;
            *peak_at = rises ? p->best_at : e->cfirst_ts;
            best_server = server;
            from_sweep = 0;
        }
    }
}

static const char *view_strdup(sat_etime *e, const char *s, size_t n)
{
    char *p = sat_arena_strdup(&e->view_arena, s, n);
    if (!p)
        e->nomem = 1;
    return p ? p : "";
}

static int cmp_unidx(const void *a, const void *b)
{
    const sat_etime_unindexed *x = (const sat_etime_unindexed *)a,
                              *y = (const sat_etime_unindexed *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    double ex = isnan(x->etime_max_s) ? -1 : x->etime_max_s;
    double ey = isnan(y->etime_max_s) ? -1 : y->etime_max_s;
    if (ex != ey)
        return ex > ey ? -1 : 1;
    int c;
    if ((c = strcmp(x->base, y->base)) || (c = strcmp(x->filter, y->filter)) ||
        (c = strcmp(x->client, y->client)) || (c = strcmp(x->binddn, y->binddn)))
        return c;
    return 0;
}

static int cmp_code(const void *a, const void *b)
{
    const sat_etime_code_count *x = (const sat_etime_code_count *)a,
                               *y = (const sat_etime_code_count *)b;
    return (x->code > y->code) - (x->code < y->code);
}

/* ISO minute "2025-06-08T07:19:00Z" (civil-from-days, H. Hinnant). */
static void fmt_minute(int64_t minute, char *buf, size_t n)
{
    int64_t secs = minute * 60;
    int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
    int64_t rem = secs - days * 86400;
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2)
        y++;
    snprintf(buf, n, "%04lld-%02lld-%02lldT%02lld:%02lld:00Z", (long long)y, (long long)m,
             (long long)d, (long long)(rem / 3600), (long long)(rem % 3600 / 60));
}

static int cmp_abandon(const void *a, const void *b)
{
    const et_abandon *x = (const et_abandon *)a, *y = (const et_abandon *)b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->conn != y->conn)
        return x->conn < y->conn ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}

static int cmp_i64_idx(const void *a, const void *b)
{
    const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

int sat_etime_finish(sat_etime *e)
{
    if (!e)
        return SAT_E_USAGE;
    sat_arena_free(&e->view_arena);
    e->view_arena.chunk_size = 64 * 1024;
    sat_etime_view *v = &e->view;
    memset(v, 0, sizeof *v);
    e->finished = 0;
    v->by = e->opts.by;
    v->top = e->opts.top;
    v->root_dn = e->root_dn;
    v->minutes_width_min = (uint32_t)e->bucket_min;
    flush_attr_lists(e);

    /* inputs */
    sat_etime_source_info *si = (sat_etime_source_info *)sat_arena_alloc(
        &e->view_arena, (e->nsrcs ? e->nsrcs : 1) * sizeof *si);
    if (!si)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < e->nsrcs; i++) {
        si[i].path = e->srcs[i].path;
        si[i].format = e->srcs[i].format;
        si[i].compression = e->srcs[i].compression;
        si[i].bytes = e->srcs[i].bytes;
        si[i].lines = e->srcs[i].lines;
        si[i].rejects = e->srcs[i].rejects;
        si[i].truncated = e->srcs[i].truncated;
    }
    v->sources = si;
    v->nsources = e->nsrcs;
    v->rejects = e->rejects;
    sat_etime_reject_info *ri = (sat_etime_reject_info *)sat_arena_alloc(
        &e->view_arena, ET_REJECT_SAMPLES * sizeof *ri);
    if (!ri)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < e->nrej; i++) {
        ri[i].path = "?";
        for (size_t k = 0; k < e->nsrcs; k++)
            if (e->srcs[k].id == e->rej[i].source)
                ri[i].path = e->srcs[k].path;
        ri[i].line_no = e->rej[i].line_no;
        ri[i].reason = e->rej[i].reason;
        ri[i].excerpt = e->rej[i].excerpt;
    }
    v->reject_samples = ri;
    v->nreject_samples = e->nrej;
    v->reject_samples_seen = e->rejects_sampled_seen;

    /* span */
    v->first_ts = e->first_ts;
    v->last_ts = e->last_ts;
    v->span_s = e->first_ts ? (double)(e->last_ts - e->first_ts) / 1e9 : 0;
    double span = v->span_s;
    double all_ns = (double)e->all.esum;

    v->ops = e->ops;
    v->results = e->results;
    v->unfinished = e->unfinished;
    v->internal_ops = e->internal_ops;
    v->no_request = e->no_request;
    v->persistent = e->persistent;
    v->paged = e->paged;
    v->entries = e->entries;
    v->ext_ops = e->ext_ops;
    v->abandons = e->abandons;
    v->unbinds = e->unbinds;
    v->whole_base_searches = e->whole_base;
    for (size_t i = 0; i < e->epochs.n; i++)
        v->restarts += *(const uint32_t *)sat_strtab_val(&e->epochs, i);
    for (size_t i = 0; i < e->restart_kinds.n; i++) {
        uint8_t k = *(const uint8_t *)sat_strtab_val(&e->restart_kinds, i);
        if (k == RK_START_LINE)
            v->restarts_start_line++;
        else if (k == RK_NUMBER)
            v->restarts_number++;
    }

    sat_etime_row *oprows = (sat_etime_row *)sat_arena_alloc(
        &e->view_arena, SAT_OP__COUNT * sizeof *oprows);
    if (!oprows)
        return SAT_E_NOMEM;
    size_t nop = 0;
    for (int t = 1; t <= SAT_OP__COUNT; t++) {
        int tt = t % SAT_OP__COUNT; /* UNKNOWN last */
        if (e->optype[tt].count)
            row_fill(&oprows[nop++], sat_optype_name(tt), &e->optype[tt], all_ns, span);
    }
    v->ops_rows = oprows;
    v->nops_rows = nop;
    row_fill(&v->all, "all", &e->all, all_ns, span);

    /* the series: one row per bucket from the first to the last */
    if (e->minutes.n) {
        int64_t *mk = (int64_t *)malloc(e->minutes.n * 2 * sizeof *mk);
        if (!mk)
            return SAT_E_NOMEM;
        for (size_t i = 0; i < e->minutes.n; i++) {
            memcpy(&mk[2 * i], sat_strtab_key(&e->minutes, i), sizeof(int64_t));
            mk[2 * i + 1] = (int64_t)i;
        }
        qsort(mk, e->minutes.n, 2 * sizeof *mk, cmp_i64_idx);
        int64_t m0 = mk[0], m1 = mk[2 * (e->minutes.n - 1)];
        uint64_t want = (uint64_t)(m1 - m0) + 1;
        /* far apart (a stray timestamp): only the busy buckets, so that the
         * view stays as bounded as the series */
        int dense = want <= 16u * ET_BUCKETS_MAX;
        size_t nrows = dense ? (size_t)want : e->minutes.n;
        sat_etime_minute *mr = (sat_etime_minute *)sat_arena_alloc(
            &e->view_arena, nrows * sizeof *mr);
        sat_etime_row *grows = NULL;
        if (e->opts.by == SAT_ETIME_BY_MINUTE)
            grows = (sat_etime_row *)sat_arena_alloc(&e->view_arena, nrows * sizeof *grows);
        if (!mr || (e->opts.by == SAT_ETIME_BY_MINUTE && !grows)) {
            free(mk);
            return SAT_E_NOMEM;
        }
        size_t k = 0;
        et_group empty;
        memset(&empty, 0, sizeof empty);
        for (size_t r = 0; r < nrows; r++) {
            int64_t minute;
            et_group *g;
            if (dense) {
                minute = m0 + (int64_t)r;
                if (k < e->minutes.n && mk[2 * k] == minute)
                    g = (et_group *)sat_strtab_val(&e->minutes, (size_t)mk[2 * k++ + 1]);
                else
                    g = &empty;
            } else {
                minute = mk[2 * r];
                g = (et_group *)sat_strtab_val(&e->minutes, (size_t)mk[2 * r + 1]);
            }
            sat_etime_row tmp;
            char kb[96];
            fmt_minute(minute * e->bucket_min, kb, sizeof kb);
            row_fill(&tmp, NULL, g, all_ns, 60.0 * (double)e->bucket_min);
            mr[r].start = minute * e->bucket_min * 60000000000LL;
            mr[r].ops = g->count;
            mr[r].errors = g->errors;
            mr[r].timed = g->timed;
            mr[r].mean_s = tmp.mean_s;
            mr[r].p99_s = tmp.p99_s;
            mr[r].max_s = tmp.max_s;
            if (grows) {
                tmp.key = view_strdup(e, kb, strlen(kb));
                grows[r] = tmp;
            }
        }
        free(mk);
        v->minutes = mr;
        v->nminutes = nrows;
        v->minutes_width_min = (uint32_t)e->bucket_min;
        if (grows) {
            v->groups = grows;
            v->ngroups = nrows;
        }
    }

    /* --by groups */
    if (e->opts.by == SAT_ETIME_BY_OP) {
        sat_etime_row *g = (sat_etime_row *)sat_arena_alloc(&e->view_arena,
                                                           (nop ? nop : 1) * sizeof *g);
        if (!g)
            return SAT_E_NOMEM;
        memcpy(g, oprows, nop * sizeof *g);
        qsort(g, nop, sizeof *g, cmp_row_share);
        v->groups = g;
        v->ngroups = nop;
    } else if (e->opts.by != SAT_ETIME_BY_NONE && e->opts.by != SAT_ETIME_BY_MINUTE &&
               e->opts.by != SAT_ETIME_BY_INTERNAL) {
        size_t n = e->groups.n + (e->gother.count ? 1 : 0);
        sat_etime_row *g = (sat_etime_row *)sat_arena_alloc(&e->view_arena,
                                                           (n ? n : 1) * sizeof *g);
        if (!g)
            return SAT_E_NOMEM;
        for (size_t i = 0; i < e->groups.n; i++) {
            const char *key = sat_strtab_key(&e->groups, i);
            if (e->opts.by == SAT_ETIME_BY_CONN) {
                et_connkey ck;
                memcpy(&ck, sat_strtab_key(&e->groups, i), sizeof ck);
                char kb[96];
                if (ck.server == 0 && ck.epoch == 0)
                    snprintf(kb, sizeof kb, "conn=%lld", (long long)ck.conn);
                else
                    snprintf(kb, sizeof kb, "conn=%lld server=%u restart=%u",
                             (long long)ck.conn, ck.server, ck.epoch);
                key = view_strdup(e, kb, strlen(kb));
            }
            row_fill(&g[i], key, (et_group *)sat_strtab_val(&e->groups, i), all_ns, span);
        }
        qsort(g, e->groups.n, sizeof *g, cmp_row_share);
        if (e->gother.count)
            row_fill(&g[e->groups.n], "(other)", &e->gother, all_ns, span);
        v->groups = g;
        v->ngroups = n;
        v->groups_folded_keys = fold_estimate(e->gfoldbits);
    }

    /* connections */
    v->conns = e->conns;
    v->conns_no_open = e->conns_no_open;
    v->conns_unclosed = e->conns_unclosed;
    if (sweep_peak(e, &v->peak_concurrent, &v->peak_at) < 0)
        return SAT_E_NOMEM;
    counted_peak(e, &v->peak_concurrent, &v->peak_at);
    memcpy(v->by_listener, e->by_listener, sizeof v->by_listener);
    memcpy(v->by_close_code, e->by_close, sizeof v->by_close_code);
    v->fds_taken = e->fds_taken;
    v->fds_returned = e->fds_returned;
    v->highest_fd = e->highest_fd;
    v->broken_pipe = e->broken_pipe;
    v->reset_by_peer = e->reset_by_peer;
    v->resource_unavailable = e->resource_unavail;
    v->max_ber_exceeded = e->max_ber;
    v->lost = e->by_close[SAT_CLOSE_LOST];
    v->lost_on_write = e->by_close[SAT_CLOSE_LOST_WRITE];

    /* what the inputs can hold; rows fed without any source row (a caller
     * of the sink alone) are taken to hold everything, as before */
    v->fields_inputs = e->fields.inputs;
    v->fields_known = sat_fields_known(&e->fields);
    memcpy(v->fields_without, e->fields.without, sizeof v->fields_without);
    for (int k = 0; k < SAT_FIELD__COUNT; k++)
        v->fields_why[k] = e->fields.without[k] ? e->fields.why[k] : NULL;

    /* result codes, every one */
    size_t ncodes = e->err_other.n;
    for (int i = 0; i < ET_ERR_FAST; i++)
        ncodes += e->err_fast[i] ? 1 : 0;
    sat_etime_code_count *cc = (sat_etime_code_count *)sat_arena_alloc(
        &e->view_arena, (ncodes ? ncodes : 1) * sizeof *cc);
    if (!cc)
        return SAT_E_NOMEM;
    size_t nc = 0;
    for (int i = 0; i < ET_ERR_FAST; i++)
        if (e->err_fast[i]) {
            cc[nc].code = i;
            cc[nc++].count = e->err_fast[i];
        }
    for (size_t i = 0; i < e->err_other.n; i++) {
        memcpy(&cc[nc].code, sat_strtab_key(&e->err_other, i), sizeof(int32_t));
        cc[nc++].count = *(const uint64_t *)sat_strtab_val(&e->err_other, i);
    }
    qsort(cc, nc, sizeof *cc, cmp_code);
    v->errors = cc;
    v->nerrors = nc;
    memcpy(v->notes, e->notes, sizeof v->notes);

    /* unindexed searches */
    v->unindexed_total = e->unidx_total;
    v->unindexed_distinct = e->unidx.n;
    v->unindexed_folded = e->unidx_folded;
    if (e->unidx.n) {
        sat_etime_unindexed *u = (sat_etime_unindexed *)sat_arena_alloc(
            &e->view_arena, e->unidx.n * sizeof *u);
        if (!u)
            return SAT_E_NOMEM;
        for (size_t i = 0; i < e->unidx.n; i++) {
            const et_unidx *s = (const et_unidx *)sat_strtab_val(&e->unidx, i);
            const char *k = sat_strtab_key(&e->unidx, i);
            const char *f[4];
            for (int p = 0; p < 4; p++) {
                f[p] = view_strdup(e, k, s->klen[p]);
                k += s->klen[p] + 1;
            }
            u[i].base = f[0];
            u[i].filter = f[1];
            u[i].client = f[2];
            u[i].binddn = f[3];
            u[i].notes = s->notes;
            u[i].count = s->count;
            u[i].etime_max_s = s->timed ? (double)s->emax / 1e9 : NAN;
            u[i].etime_total_s = s->timed ? (double)s->esum / 1e9 : NAN;
            u[i].nentries_max = s->nentries_max;
            u[i].first_ts = s->first_ts;
            u[i].first_conn = s->conn;
            u[i].first_op = s->op;
        }
        qsort(u, e->unidx.n, sizeof *u, cmp_unidx);
        v->unindexed = u;
        v->nunindexed = e->unidx.n < e->opts.top ? e->unidx.n : e->opts.top;
    }

    /* binds: an AUTOBIND not followed by a BIND on its connection is a bind
     * of its own; with one, the pair is one bind */
    uint64_t extra = e->ldapi_extra, extra_root = e->ldapi_extra_root;
    for (size_t i = 0; i < e->ldapi.n; i++) {
        const et_ldapi *l = (const et_ldapi *)sat_strtab_val(&e->ldapi, i);
        if (!l->done) {
            extra += ldapi_contrib(l, 0);
            extra_root += ldapi_contrib(l, 1);
        }
    }
    v->binds = e->binds + extra;
    v->binds_simple = e->binds_simple;
    v->binds_anonymous = e->binds_anon;
    v->binds_sasl = e->binds_sasl;
    v->sasl_steps = e->sasl_steps;
    v->autobinds = e->autobinds;
    v->binds_root_dn = e->binds_root + extra_root;
    v->binds_failed = e->binds_failed;
    v->more = e->more;

    size_t top = e->opts.top;
    struct {
        et_ktab *k;
        sat_etime_kvlist *out;
        size_t top;
    } lists[] = {{&e->sasl_mechs, &v->sasl_mechs, 1000},
                 {&e->failed_dn, &v->failed_by_dn, top},
                 {&e->failed_client, &v->failed_by_client, top},
                 {&e->clients, &v->clients, top},
                 {&e->bind_dns, &v->bind_dns, top},
                 {&e->bases, &v->bases, top},
                 {&e->filters, &v->filters, top},
                 {&e->ext_oids, &v->ext_oids, top},
                 {&e->tls_versions, &v->tls_versions, 1000},
                 {&e->attrs, &v->attributes, top}};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (build_kvlist(e, lists[i].k, lists[i].top, lists[i].out) < 0)
            return SAT_E_NOMEM;

    if (e->naband) {
        sat_etime_abandon *ab = (sat_etime_abandon *)sat_arena_alloc(
            &e->view_arena, e->naband * sizeof *ab);
        if (!ab)
            return SAT_E_NOMEM;
        qsort(e->aband, e->naband, sizeof *e->aband, cmp_abandon);
        for (size_t i = 0; i < e->naband; i++) {
            ab[i].ts = e->aband[i].ts;
            ab[i].conn = e->aband[i].conn;
            ab[i].op = e->aband[i].op;
            ab[i].target_op = e->aband[i].target_op;
            ab[i].client = e->aband[i].client;
        }
        v->abandon_list = ab;
        v->nabandon_list = e->naband;
    }

    if (sat_iops_finish(e->iops, &e->view_arena, v) < 0)
        e->nomem = 1;
    size_t b = etime_bytes(e) + e->view_arena.total;
    if (b > e->mem_peak)
        e->mem_peak = b;
    v->memory_bytes = e->mem_peak;
    if (e->nomem)
        return SAT_E_NOMEM;
    e->finished = 1;
    return SAT_OK;
}

const sat_etime_view *sat_etime_get_view(const sat_etime *e)
{
    return e && e->finished ? &e->view : NULL;
}
