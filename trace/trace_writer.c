/*
 * trace_writer.c - the streaming .sat writer (trace/FORMAT.md; the version it
 * writes is SAT_FMT_MAJOR.SAT_FMT_MINOR of trace_internal.h).
 *
 * append() copies each row's fields into the per-table block being filled:
 * one int64 array per column, strings interned in a per-block, per-column
 * dictionary (copies in the block's arena). A full block is handed to one
 * background thread that picks an encoding per column, compresses each column
 * with zstd and appends the block to a temporary file beside PATH, so parsing
 * and compression overlap. At most 2 finished blocks wait for that thread:
 * memory is bounded by (tables + 2) blocks whatever the input size. close()
 * writes the footer and trailer, fsyncs and renames the temporary file to PATH.
 *
 * Output safety (the trace holds DNs, client addresses and filter values):
 * the temporary file is created in PATH's directory under an unpredictable
 * name with O_CREAT|O_EXCL|O_NOFOLLOW (a planted file or symlink is never
 * opened, let alone followed), with the caller's mode, never looser than a
 * regular file it replaces; a PATH that exists and is not a regular file (a
 * device node, FIFO, symlink, directory) is refused, never replaced. A trace
 * can instead be streamed to a descriptor (standard output): the blocks and
 * the footer are written in order, nothing is renamed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "trace_internal.h"

uint32_t sat_trace_crc32(const void *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    const Bytef *b = (const Bytef *)p;
    while (n) {
        uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, b, chunk);
        b += chunk;
        n -= chunk;
    }
    return (uint32_t)c;
}

/* ---- per-block string dictionary ---------------------------------------- */
typedef struct strent {
    const char *p;
    uint32_t len;
    uint32_t hash;
} strent;

typedef struct strdict {
    uint32_t *slots; /* entry index + 1, 0 = empty */
    uint32_t cap;    /* power of two */
    strent *ents;
    uint32_t n, ecap;
    uint32_t last; /* code of the previous row's value (fast path), 0 none */
} strdict;

typedef struct wblock {
    int table;
    const sat_table_def *def;
    uint32_t nrows, cap_rows;
    uint8_t *rows; /* cap_rows row structs, copied as appended; each sat_str
                    * field holds its dictionary code (uint32) instead. Row-
                    * major staging keeps append() to one sequential copy; the
                    * worker transposes to columns in cache-sized tiles. */
    strdict *dicts;
    sat_arena arena;
    size_t str_bytes;
    int64_t min_ts, max_ts;
    struct wblock *next;
} wblock;

typedef struct footer_ent {
    uint16_t table;
    uint32_t nrows;
    uint64_t off, len;
    int64_t min_ts, max_ts;
} footer_ent;

/* Growable byte buffer used by the compression thread. */
typedef struct bbuf {
    uint8_t *p;
    size_t len, cap;
} bbuf;

static int bbuf_reserve(bbuf *b, size_t extra)
{
    if (b->p && b->len <= b->cap && b->cap - b->len >= extra)
        return 0;
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->len + extra)
        nc *= 2;
    uint8_t *np = (uint8_t *)realloc(b->p, nc);
    if (!np)
        return SAT_E_NOMEM;
    b->p = np;
    b->cap = nc;
    return 0;
}

/* Per table: which columns are strings (append() interns only those). */
typedef struct wtable {
    uint16_t str[SAT_MAX_COLS_TABLE];
    size_t nstr;
} wtable;

struct sat_trace_writer {
    wtable tab[SAT_TABLE__COUNT];
    char *path, *partial; /* partial NULL: streaming to a borrowed fd */
    int fd;
    unsigned mode;        /* permission bits the file was created with */
    uint32_t rows_per_block;
    int level;
    int ts_col[SAT_TABLE__COUNT];    /* index of the time column or -1 */
    int close_col;                   /* ldap_conn close_ts index */
    wblock *cur[SAT_TABLE__COUNT];
    wblock *free_[SAT_TABLE__COUNT];

    /* worker state, guarded by mu */
    pthread_t thr;
    int thr_started;
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_space;
    wblock *q_head, *q_tail;
    int q_len; /* queued + being processed */
    int stop;
    int err;
    sat_diag diag;

    /* worker-owned */
    uint64_t off;
    footer_ent *foot;
    size_t nfoot, capfoot;
    ZSTD_CCtx *cctx;
    bbuf enc, enc2, dir, data, cbuf, cbuf2, nums;
    int64_t *wide[SAT_MAX_COLS_TABLE]; /* worker: one int64 array per column */
    uint32_t wide_rows;
};

static uint32_t str_hash(const char *p, size_t n)
{
    uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ULL;
    while (n >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        h = (h ^ x) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t x = 0;
        for (size_t k = 0; k < n; k++)
            x |= (uint64_t)(unsigned char)p[k] << (8 * k);
        h = (h ^ x) * 0xff51afd7ed558ccdULL;
    }
    h ^= h >> 29;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 32;
    return (uint32_t)h;
}

static int dict_grow(strdict *d)
{
    uint32_t nc = d->cap ? d->cap * 2 : 256;
    uint32_t *ns = (uint32_t *)calloc(nc, sizeof *ns);
    if (!ns)
        return SAT_E_NOMEM;
    for (uint32_t i = 0; i < d->n; i++) {
        uint32_t s = d->ents[i].hash & (nc - 1);
        while (ns[s])
            s = (s + 1) & (nc - 1);
        ns[s] = i + 1;
    }
    free(d->slots);
    d->slots = ns;
    d->cap = nc;
    return 0;
}

/* Code of s in b's dictionary for column c (0 = absent), adding it if new. */
static int64_t intern(wblock *b, strdict *d, sat_str s)
{
    if (!s.ptr)
        return 0;
    if (s.len > SAT_MAX_STR) /* FORMAT.md: bounds what a reader must accept */
        s.len = SAT_MAX_STR;
    if (d->last) {
        const strent *e = &d->ents[d->last - 1];
        if (e->len == s.len && memcmp(e->p, s.ptr, s.len) == 0)
            return d->last;
    }
    uint32_t h = str_hash(s.ptr, s.len);
    if ((d->n + 1) * 2 > d->cap && dict_grow(d) != 0)
        return -1;
    uint32_t slot = h & (d->cap - 1);
    for (;;) {
        uint32_t k = d->slots[slot];
        if (!k)
            break;
        const strent *e = &d->ents[k - 1];
        if (e->hash == h && e->len == s.len && memcmp(e->p, s.ptr, s.len) == 0) {
            d->last = k;
            return k;
        }
        slot = (slot + 1) & (d->cap - 1);
    }
    if (d->n == d->ecap) {
        uint32_t nc = d->ecap ? d->ecap * 2 : 256;
        strent *ne = (strent *)realloc(d->ents, nc * sizeof *ne);
        if (!ne)
            return -1;
        d->ents = ne;
        d->ecap = nc;
    }
    char *copy = sat_arena_strdup(&b->arena, s.ptr, s.len);
    if (!copy)
        return -1;
    d->ents[d->n].p = copy;
    d->ents[d->n].len = s.len;
    d->ents[d->n].hash = h;
    d->n++;
    d->slots[slot] = d->n;
    d->last = d->n;
    b->str_bytes += s.len + 8;
    return d->n;
}

/* Worker: the columns of b as int64 arrays in w->wide (FORMAT.md: every
 * integer column widened; I32 sign-extended, STR codes zero-extended). Tiles
 * of 128 rows keep the rows being read in L1/L2. */
static void transpose(int64_t *const *wide, const wblock *b)
{
    const sat_table_def *def = b->def;
    const size_t rs = def->row_size;
    for (uint32_t t0 = 0; t0 < b->nrows; t0 += 128) {
        uint32_t t1 = t0 + 128 < b->nrows ? t0 + 128 : b->nrows;
        for (size_t c = 0; c < def->ncolumns; c++) {
            const uint8_t *f = b->rows + def->columns[c].offset;
            int64_t *out = wide[c];
            switch (def->columns[c].type) {
            case SAT_COL_TS:
            case SAT_COL_I64:
                for (uint32_t i = t0; i < t1; i++)
                    memcpy(&out[i], f + i * rs, 8);
                break;
            case SAT_COL_I32:
                for (uint32_t i = t0; i < t1; i++) {
                    int32_t x;
                    memcpy(&x, f + i * rs, 4);
                    out[i] = x;
                }
                break;
            case SAT_COL_U16:
                for (uint32_t i = t0; i < t1; i++) {
                    uint16_t x;
                    memcpy(&x, f + i * rs, 2);
                    out[i] = x;
                }
                break;
            case SAT_COL_U8:
                for (uint32_t i = t0; i < t1; i++)
                    out[i] = f[i * rs];
                break;
            default:
                for (uint32_t i = t0; i < t1; i++) {
                    uint32_t x;
                    memcpy(&x, f + i * rs, 4);
                    out[i] = x;
                }
                break;
            }
        }
    }
}

static void block_free(wblock *b)
{
    if (!b)
        return;
    for (size_t c = 0; c < b->def->ncolumns; c++) {
        if (b->dicts) {
            free(b->dicts[c].slots);
            free(b->dicts[c].ents);
        }
    }
    free(b->rows);
    free(b->dicts);
    sat_arena_free(&b->arena);
    free(b);
}

static void block_reset(wblock *b)
{
    b->nrows = 0;
    b->str_bytes = 0;
    b->min_ts = b->max_ts = 0;
    for (size_t c = 0; c < b->def->ncolumns; c++) {
        strdict *d = &b->dicts[c];
        if (d->n && d->slots)
            memset(d->slots, 0, d->cap * sizeof *d->slots);
        d->n = 0;
        d->last = 0;
    }
    sat_arena_reset(&b->arena);
}

static wblock *block_new(int table, uint32_t rows)
{
    wblock *b = (wblock *)calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->table = table;
    b->def = sat_table_get(table);
    b->cap_rows = rows;
    b->arena.chunk_size = 256 * 1024;
    b->rows = (uint8_t *)malloc((size_t)rows * b->def->row_size);
    b->dicts = (strdict *)calloc(b->def->ncolumns, sizeof *b->dicts);
    if (!b->rows || !b->dicts) {
        block_free(b);
        return NULL;
    }
    return b;
}

/* ---- column encoding (FORMAT.md "Encoded integer stream") --------------- */
static inline uint64_t zz(int64_t v) { return sat_zigzag_encode(v); }
static inline int64_t wsub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* The columns a REF encoding may subtract (FORMAT.md: REF). */
typedef struct refspec {
    int n;
    const int64_t *a, *b;
    unsigned ia, ib; /* their directory indexes */
} refspec;

static inline int64_t ref_at(const refspec *r, uint32_t i)
{
    return r->n == 1 ? r->a[i] : (int64_t)((uint64_t)r->a[i] + (uint64_t)r->b[i]);
}
/* REF number of v: 0 for an absent (0) value, else zigzag(v - ref) + 1;
 * UINT64_MAX when not representable (REF is then not used). */
static inline uint64_t ref_num(int64_t v, int64_t r)
{
    if (v == 0)
        return 0;
    uint64_t z = zz(wsub(v, r));
    return z == UINT64_MAX ? UINT64_MAX : z + 1;
}

/* Picks the smallest encoding of v (ties: lower tag). ref may be NULL.
 * CONST, RLE and BITPACK sizes are exact (one cheap pass); the varint sizes
 * of PLAIN/DELTA/DOD/REF are measured on up to 8 runs of 512 rows spread
 * over the block and scaled: the choice is a heuristic anyway (zstd runs
 * after it) and measuring every row was the writer's largest cost. */
static int choose_enc(const int64_t *v, uint32_t n, const refspec *ref,
                      unsigned *width_out)
{
    int64_t mn = v[0], mx = v[0];
    for (uint32_t i = 1; i < n; i++) { /* separate loop: vectorizes */
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    if (mn == mx)
        return SAT_ENC_CONST;
    /* RLE: give up as soon as runs are short (it cannot win then). */
    size_t rle = 0, breaks = 0;
    int64_t runv = v[0];
    uint64_t run = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i] == runv) {
            run++;
            continue;
        }
        rle += sat_uvarint_len(zz(runv)) + sat_uvarint_len(run);
        runv = v[i];
        run = 1;
        if (++breaks > n / 8 + 1) {
            rle = SIZE_MAX - 1;
            break;
        }
    }
    if (rle != SIZE_MAX - 1)
        rle += sat_uvarint_len(zz(runv)) + sat_uvarint_len(run);
    int ref_ok = ref != NULL;
    for (uint32_t i = 0; ref_ok && i < n; i++)
        if (ref_num(v[i], ref_at(ref, i)) == UINT64_MAX)
            ref_ok = 0;

    size_t plain = 0, delta = 0, dod = 0, refsz = 0, seen = 0;
    const uint32_t chunk = 512, nchunks = 8;
    uint32_t stride = n <= chunk * nchunks ? chunk : n / nchunks;
    for (uint32_t s0 = 0; s0 < n; s0 += stride) {
        uint32_t e = s0 + chunk < n ? s0 + chunk : n;
        int64_t prev = s0 ? v[s0 - 1] : 0;
        int64_t pd = s0 > 1 ? wsub(v[s0 - 1], v[s0 - 2]) : 0;
        for (uint32_t i = s0; i < e; i++) {
            int64_t x = v[i];
            int64_t d = wsub(x, prev);
            plain += sat_uvarint_len(zz(x));
            delta += sat_uvarint_len(zz(i ? d : x));
            dod += sat_uvarint_len(zz(i == 0 ? x : i == 1 ? d : wsub(d, pd)));
            if (ref_ok)
                refsz += sat_uvarint_len(ref_num(x, ref_at(ref, i)));
            pd = d;
            prev = x;
        }
        seen += e - s0;
    }
    if (seen < n) {
        plain = plain * n / seen;
        delta = delta * n / seen;
        dod = dod * n / seen;
        refsz = refsz * n / seen;
    }
    int best = SAT_ENC_PLAIN;
    size_t bsz = plain;
    if (delta < bsz)
        best = SAT_ENC_DELTA, bsz = delta;
    if (dod < bsz)
        best = SAT_ENC_DOD, bsz = dod;
    if (rle < bsz)
        best = SAT_ENC_RLE, bsz = rle;
    if (mn >= 0 && mx < 65536) {
        unsigned w = mx < 2 ? 1 : mx < 4 ? 2 : mx < 16 ? 4 : mx < 256 ? 8 : 16;
        size_t sz = 2 + ((size_t)n * w + 7) / 8;
        if (sz < bsz)
            best = SAT_ENC_BITPACK, bsz = sz, *width_out = w;
    }
    if (ref_ok && refsz + 3 < bsz)
        best = SAT_ENC_REF, bsz = refsz;
    return best;
}

/* Writes the n numbers of a PLAIN/DELTA/DOD/REF body: varints, or (split)
 * the first `lead` numbers as varints (a DELTA/DOD start value would widen
 * every plane), then u8 W and W byte planes of the other numbers
 * (FORMAT.md "SPLIT"). */
static uint8_t *put_numbers(uint8_t *p, const uint64_t *q, uint32_t n, int split,
                            uint32_t lead)
{
    if (!split) {
        for (uint32_t i = 0; i < n; i++)
            p = sat_put_uvarint(p, q[i]);
        return p;
    }
    if (lead > n)
        lead = n;
    for (uint32_t i = 0; i < lead; i++)
        p = sat_put_uvarint(p, q[i]);
    uint64_t all = 0;
    for (uint32_t i = lead; i < n; i++)
        all |= q[i];
    unsigned W = all ? (unsigned)(64 - __builtin_clzll(all) + 7) / 8 : 1;
    *p++ = (uint8_t)W;
    for (unsigned j = 0; j < W; j++)
        for (uint32_t i = lead; i < n; i++)
            *p++ = (uint8_t)(q[i] >> (8 * j));
    return p;
}

/* Appends the integer stream of v (caller reserved 32 + n * 10 bytes).
 * nums: scratch of n numbers. *enc_out gets the base encoding chosen. */
static uint8_t *encode_ints(uint8_t *p, const int64_t *v, uint32_t n,
                            const refspec *ref, int split, uint64_t *nums,
                            int *enc_out)
{
    unsigned width = 8;
    int enc = choose_enc(v, n, ref, &width);
    *enc_out = enc;
    if (enc != SAT_ENC_PLAIN && enc != SAT_ENC_DELTA && enc != SAT_ENC_DOD &&
        enc != SAT_ENC_REF)
        split = 0;
    *p++ = (uint8_t)(enc | (split ? SAT_ENC_SPLIT : 0));
    switch (enc) {
    case SAT_ENC_CONST:
        p = sat_put_uvarint(p, zz(v[0]));
        break;
    case SAT_ENC_PLAIN:
        for (uint32_t i = 0; i < n; i++)
            nums[i] = zz(v[i]);
        p = put_numbers(p, nums, n, split, 0);
        break;
    case SAT_ENC_DELTA:
        nums[0] = zz(v[0]);
        for (uint32_t i = 1; i < n; i++)
            nums[i] = zz(wsub(v[i], v[i - 1]));
        p = put_numbers(p, nums, n, split, 1);
        break;
    case SAT_ENC_DOD: {
        nums[0] = zz(v[0]);
        int64_t pd = 0;
        for (uint32_t i = 1; i < n; i++) {
            int64_t d = wsub(v[i], v[i - 1]);
            nums[i] = zz(i == 1 ? d : wsub(d, pd));
            pd = d;
        }
        p = put_numbers(p, nums, n, split, 2);
        break;
    }
    case SAT_ENC_RLE: {
        uint32_t i = 0;
        while (i < n) {
            uint32_t j = i + 1;
            while (j < n && v[j] == v[i])
                j++;
            p = sat_put_uvarint(p, zz(v[i]));
            p = sat_put_uvarint(p, j - i);
            i = j;
        }
        break;
    }
    case SAT_ENC_BITPACK: {
        *p++ = (uint8_t)width;
        size_t nbytes = ((size_t)n * width + 7) / 8;
        memset(p, 0, nbytes);
        if (width == 16) {
            for (uint32_t i = 0; i < n; i++)
                sat_put_le16(p + 2 * i, (uint16_t)v[i]);
        } else {
            for (uint32_t i = 0; i < n; i++) {
                size_t bit = (size_t)i * width;
                p[bit >> 3] |= (uint8_t)((uint64_t)v[i] << (bit & 7));
            }
        }
        p += nbytes;
        break;
    }
    case SAT_ENC_REF:
        p = sat_put_uvarint(p, (uint64_t)ref->n);
        p = sat_put_uvarint(p, ref->ia);
        if (ref->n == 2)
            p = sat_put_uvarint(p, ref->ib);
        for (uint32_t i = 0; i < n; i++)
            nums[i] = ref_num(v[i], ref_at(ref, i));
        p = put_numbers(p, nums, n, split, 0);
        break;
    }
    return p;
}

static int worker_fail(sat_trace_writer *w, int code, const char *fmt, int e)
{
    pthread_mutex_lock(&w->mu);
    if (!w->err) {
        w->err = code;
        sat_diag_set(&w->diag, code, w->partial ? w->partial : w->path, fmt, strerror(e));
    }
    pthread_mutex_unlock(&w->mu);
    return code;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Encodes, compresses and appends one block (runs on the worker thread). */
static int write_block(sat_trace_writer *w, wblock *b)
{
    const sat_table_def *def = b->def;
    uint32_t n = b->nrows;
    w->dir.len = SAT_BLOCK_HDR_LEN;
    w->data.len = 0;
    /* Directory order: columns that may be REF-encoded after the columns
     * they refer to (FORMAT.md: REF refers to earlier columns only). */
    unsigned order[SAT_MAX_COLS], pos[SAT_MAX_COLS];
    size_t no = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t c = 0; c < def->ncolumns; c++) {
            int rr[2];
            if ((sat_col_refs(b->table, c, rr) > 0) == pass) {
                pos[c] = (unsigned)no;
                order[no++] = (unsigned)c;
            }
        }
    if (bbuf_reserve(&w->nums, (size_t)n * 8))
        return worker_fail(w, SAT_E_NOMEM, "out of memory%s", 0);
    if (w->wide_rows < w->rows_per_block) {
        for (size_t c = 0; c < SAT_MAX_COLS_TABLE; c++) {
            free(w->wide[c]);
            w->wide[c] = (int64_t *)malloc((size_t)w->rows_per_block * 8);
            if (!w->wide[c])
                return worker_fail(w, SAT_E_NOMEM, "out of memory%s", 0);
        }
        w->wide_rows = w->rows_per_block;
    }
    transpose(w->wide, b);
    for (size_t oi = 0; oi < def->ncolumns; oi++) {
        size_t c = order[oi];
        const sat_column_def *cd = &def->columns[c];
        const strdict *d = &b->dicts[c];
        size_t need = 32 + (size_t)n * 10;
        if (cd->type == SAT_COL_STR)
            need += (size_t)d->n * 5 + b->str_bytes;
        w->enc.len = 0;
        if (bbuf_reserve(&w->enc, need) || bbuf_reserve(&w->enc2, need))
            return worker_fail(w, SAT_E_NOMEM, "out of memory%s", 0);
        uint8_t *p = w->enc.p;
        if (cd->type == SAT_COL_STR) {
            p = sat_put_uvarint(p, d->n);
            for (uint32_t i = 0; i < d->n; i++)
                p = sat_put_uvarint(p, d->ents[i].len);
            for (uint32_t i = 0; i < d->n; i++) {
                memcpy(p, d->ents[i].p, d->ents[i].len);
                p += d->ents[i].len;
            }
        }
        refspec rs, *ref = NULL;
        int rr[2];
        rs.n = sat_col_refs(b->table, c, rr);
        if (rs.n > 0) {
            rs.a = w->wide[rr[0]];
            rs.ia = pos[rr[0]];
            rs.b = rs.n == 2 ? w->wide[rr[1]] : NULL;
            rs.ib = rs.n == 2 ? pos[rr[1]] : 0;
            ref = &rs;
        }
        size_t prefix = (size_t)(p - w->enc.p);
        int enc = 0;
        const int64_t *vals = w->wide[c];
        p = encode_ints(p, vals, n, ref, 0, (uint64_t *)w->nums.p, &enc);
        size_t elen = (size_t)(p - w->enc.p);
        const uint8_t *stored = w->enc.p;
        size_t slen = elen;
        uint8_t storage = 0;
        if (elen >= 32) {
            size_t bound = ZSTD_compressBound(need);
            w->cbuf.len = 0;
            if (bbuf_reserve(&w->cbuf, bound) || bbuf_reserve(&w->cbuf2, bound))
                return worker_fail(w, SAT_E_NOMEM, "out of memory%s", 0);
            size_t z = ZSTD_compressCCtx(w->cctx, w->cbuf.p, bound, w->enc.p,
                                         elen, w->level);
            if (!ZSTD_isError(z) && z < elen) {
                stored = w->cbuf.p;
                slen = z;
                storage = 1;
            }
            /* High-entropy numbers (timestamps, durations): byte planes let
             * zstd's entropy coder model each byte position; keep whichever
             * form compresses smaller. */
            if (cd->type != SAT_COL_STR && elen - prefix >= 2 * (size_t)n &&
                (enc == SAT_ENC_PLAIN || enc == SAT_ENC_DELTA ||
                 enc == SAT_ENC_DOD || enc == SAT_ENC_REF)) {
                uint8_t *p2 = encode_ints(w->enc2.p, vals, n, ref, 1,
                                          (uint64_t *)w->nums.p, &enc);
                size_t elen2 = (size_t)(p2 - w->enc2.p);
                size_t z2 = ZSTD_compressCCtx(w->cctx, w->cbuf2.p, bound,
                                              w->enc2.p, elen2, w->level);
                if (!ZSTD_isError(z2) && z2 < slen && z2 < elen2) {
                    stored = w->cbuf2.p;
                    slen = z2;
                    storage = 1;
                    elen = elen2;
                }
            }
        }
        size_t nl = strlen(cd->name);
        if (bbuf_reserve(&w->dir, nl + 32) || bbuf_reserve(&w->data, slen))
            return worker_fail(w, SAT_E_NOMEM, "out of memory%s", 0);
        uint8_t *q = w->dir.p + w->dir.len;
        *q++ = (uint8_t)nl;
        memcpy(q, cd->name, nl);
        q += nl;
        *q++ = cd->type;
        *q++ = storage;
        q = sat_put_uvarint(q, elen);
        q = sat_put_uvarint(q, slen);
        sat_put_le32(q, sat_trace_crc32(stored, slen));
        q += 4;
        w->dir.len = (size_t)(q - w->dir.p);
        memcpy(w->data.p + w->data.len, stored, slen);
        w->data.len += slen;
    }
    if (bbuf_reserve(&w->dir, 4))
        return worker_fail(w, SAT_E_NOMEM, "out of memory%s", 0);
    uint8_t *h = w->dir.p;
    memcpy(h, "SATB", 4);
    sat_put_le16(h + 4, (uint16_t)b->table);
    sat_put_le16(h + 6, (uint16_t)def->ncolumns);
    sat_put_le32(h + 8, n);
    sat_put_le32(h + 12, (uint32_t)(w->dir.len - SAT_BLOCK_HDR_LEN));
    sat_put_le32(h + 16, (uint32_t)w->data.len);
    sat_put_le64(h + 20, (uint64_t)b->min_ts);
    sat_put_le64(h + 28, (uint64_t)b->max_ts);
    sat_put_le32(w->dir.p + w->dir.len, sat_trace_crc32(w->dir.p, w->dir.len));
    w->dir.len += 4;
    if (write_all(w->fd, w->dir.p, w->dir.len) ||
        write_all(w->fd, w->data.p, w->data.len))
        return worker_fail(w, SAT_E_IO, "write failed: %s", errno);
    if (w->nfoot == w->capfoot) {
        size_t nc = w->capfoot ? w->capfoot * 2 : 64;
        footer_ent *nf = (footer_ent *)realloc(w->foot, nc * sizeof *nf);
        if (!nf)
            return worker_fail(w, SAT_E_NOMEM, "out of memory%s", 0);
        w->foot = nf;
        w->capfoot = nc;
    }
    footer_ent *fe = &w->foot[w->nfoot++];
    fe->table = (uint16_t)b->table;
    fe->nrows = n;
    fe->off = w->off;
    fe->len = w->dir.len + w->data.len;
    fe->min_ts = b->min_ts;
    fe->max_ts = b->max_ts;
    w->off += fe->len;
    return 0;
}

static void *worker_main(void *arg)
{
    sat_trace_writer *w = (sat_trace_writer *)arg;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (!w->q_head && !w->stop)
            pthread_cond_wait(&w->cv_work, &w->mu);
        wblock *b = w->q_head;
        if (!b) {
            pthread_mutex_unlock(&w->mu);
            break;
        }
        w->q_head = b->next;
        if (!w->q_head)
            w->q_tail = NULL;
        int failed = w->err;
        pthread_mutex_unlock(&w->mu);
        if (!failed)
            write_block(w, b);
        block_reset(b);
        pthread_mutex_lock(&w->mu);
        b->next = w->free_[b->table];
        w->free_[b->table] = b;
        w->q_len--;
        pthread_cond_signal(&w->cv_space);
        pthread_mutex_unlock(&w->mu);
    }
    return NULL;
}

/* Hands the filled block of table t to the worker; waits while 2 are pending. */
static int submit(sat_trace_writer *w, int t)
{
    wblock *b = w->cur[t];
    w->cur[t] = NULL;
    if (!b || b->nrows == 0) {
        w->cur[t] = b;
        return SAT_OK;
    }
    pthread_mutex_lock(&w->mu);
    while (w->q_len >= 2 && !w->err)
        pthread_cond_wait(&w->cv_space, &w->mu);
    int err = w->err;
    if (!err) {
        b->next = NULL;
        if (w->q_tail)
            w->q_tail->next = b;
        else
            w->q_head = b;
        w->q_tail = b;
        w->q_len++;
        pthread_cond_signal(&w->cv_work);
    }
    pthread_mutex_unlock(&w->mu);
    if (err)
        block_free(b);
    return err;
}

static wblock *take_block(sat_trace_writer *w, int t)
{
    pthread_mutex_lock(&w->mu);
    wblock *b = w->free_[t];
    if (b)
        w->free_[t] = b->next;
    pthread_mutex_unlock(&w->mu);
    if (!b)
        b = block_new(t, w->rows_per_block);
    w->cur[t] = b;
    return b;
}

/* What lstat says path is, for "is a FIFO, not a regular file". */
static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISLNK(m)) return "a symbolic link";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

/* PATH must be absent or a regular file: anything else is refused, never
 * replaced (a rename would put a regular file in place of a device node or
 * FIFO, and a symlink at PATH is not followed). *old_mode gets the permission
 * bits of a regular file there (0 when absent). */
static int check_target(const char *path, unsigned *old_mode, sat_diag *diag)
{
    struct stat st;
    *old_mode = 0;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return SAT_OK;
        return sat_diag_set(diag, SAT_E_IO, path, "cannot look at it: %s", strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return sat_diag_set(diag, SAT_E_USAGE, path, "is %s, not a regular file: not "
                            "replaced (write the trace to a regular file, or to "
                            "standard output with -o -)", file_kind(st.st_mode));
    *old_mode = (unsigned)st.st_mode & 0777u;
    if (!*old_mode)
        *old_mode = 0600; /* a 0000 file: keep the trace readable by its owner */
    return SAT_OK;
}

/* Creates the temporary file beside path: "PATH.XXXXXX.partial" with six
 * random characters, opened O_CREAT|O_EXCL|O_NOFOLLOW (mkstemp's rule: an
 * existing name, a symlink included, is never opened) and given the mode:
 * the caller's, never looser than the regular file it will replace. */
static int create_temp(sat_trace_writer *w, const char *path, unsigned mode, sat_diag *diag)
{
    unsigned old_mode;
    SAT_FORWARD_IF_ERROR(check_target(path, &old_mode, diag));
    mode = (mode ? mode : 0600u) & 0777u;
    if (old_mode)
        mode &= old_mode;
    mode |= 0600u; /* the owner must be able to write it and read it back */
    size_t pl = strlen(path);
    w->path = strdup(path);
    w->partial = (char *)malloc(pl + 16);
    if (!w->path || !w->partial)
        return sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
    static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char rnd[6];
        if (getentropy(rnd, sizeof rnd) != 0) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t x = (uint64_t)ts.tv_nsec * 6364136223846793005ull ^
                         ((uint64_t)getpid() << 20) ^ (uint64_t)attempt;
            for (int i = 0; i < 6; i++)
                rnd[i] = (unsigned char)(x >> (8 * i));
        }
        char tag[7];
        for (int i = 0; i < 6; i++)
            tag[i] = set[rnd[i] % (sizeof set - 1)];
        tag[6] = '\0';
        snprintf(w->partial, pl + 16, "%s.%s.partial", path, tag);
        w->fd = open(w->partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (w->fd >= 0)
            break;
        if (errno != EEXIST)
            return sat_diag_set(diag, SAT_E_IO, w->partial, "cannot create: %s",
                                strerror(errno));
    }
    if (w->fd < 0)
        return sat_diag_set(diag, SAT_E_IO, w->partial, "cannot create a temporary file");
    /* fchmod on the descriptor: exact bits, whatever the umask, and no path
     * lookup that a swapped name could redirect */
    if (fchmod(w->fd, (mode_t)mode) != 0) {
        int e = errno;
        close(w->fd);
        w->fd = -1;
        unlink(w->partial);
        return sat_diag_set(diag, SAT_E_IO, w->partial, "cannot set its mode: %s",
                            strerror(e));
    }
    w->mode = mode;
    return SAT_OK;
}

static sat_trace_writer *writer_create(const char *path, int stream_fd,
                                       const sat_trace_write_opts *opts, sat_diag *diag);

sat_trace_writer *sat_trace_writer_create(const char *path,
                                          const sat_trace_write_opts *opts,
                                          sat_diag *diag)
{
    return writer_create(path, -1, opts, diag);
}

sat_trace_writer *sat_trace_writer_create_fd(int fd, const char *name,
                                             const sat_trace_write_opts *opts,
                                             sat_diag *diag)
{
    if (fd < 0) {
        sat_diag_set(diag, SAT_E_USAGE, name ? name : "", "no output descriptor");
        return NULL;
    }
    return writer_create(name ? name : "<stream>", fd, opts, diag);
}

const char *sat_trace_writer_partial_path(const sat_trace_writer *w)
{
    return w ? w->partial : NULL;
}

unsigned sat_trace_writer_mode(const sat_trace_writer *w)
{
    return w ? w->mode : 0;
}

static sat_trace_writer *writer_create(const char *path, int stream_fd,
                                       const sat_trace_write_opts *opts, sat_diag *diag)
{
    if (!path || !*path) {
        sat_diag_set(diag, SAT_E_USAGE, "", "no output path");
        return NULL;
    }
    sat_trace_writer *w = (sat_trace_writer *)calloc(1, sizeof *w);
    if (!w) {
        sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
        return NULL;
    }
    w->fd = -1;
    w->rows_per_block = opts && opts->rows_per_block ? opts->rows_per_block
                                                     : SAT_DEFAULT_ROWS;
    if (w->rows_per_block > SAT_MAX_ROWS)
        w->rows_per_block = SAT_MAX_ROWS;
    w->level = opts && opts->zstd_level ? opts->zstd_level : SAT_DEFAULT_LEVEL;
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        const sat_table_def *d = sat_table_get(t);
        w->ts_col[t] = d->ts_column ? sat_col_index(d, d->ts_column,
                                                    strlen(d->ts_column))
                                    : -1;
    }
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        const sat_table_def *d = sat_table_get(t);
        for (size_t c = 0; c < d->ncolumns && c < SAT_MAX_COLS_TABLE; c++)
            if (d->columns[c].type == SAT_COL_STR)
                w->tab[t].str[w->tab[t].nstr++] = (uint16_t)c;
    }
    w->close_col = sat_col_index(sat_table_get(SAT_TABLE_LDAP_CONN), "close_ts", 8);
    w->cctx = ZSTD_createCCtx();
    if (!w->cctx) {
        sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
        goto fail;
    }
    if (stream_fd >= 0) {
        w->fd = stream_fd;
        w->path = strdup(path);
        if (!w->path) {
            sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
            goto fail;
        }
    } else if (create_temp(w, path, opts ? opts->mode : 0, diag) != SAT_OK) {
        goto fail;
    }
    uint8_t hdr[SAT_FILE_HDR_LEN];
    memcpy(hdr, "SATSCOPE", 8);
    sat_put_le16(hdr + 8, SAT_FMT_MAJOR);
    sat_put_le16(hdr + 10, SAT_FMT_MINOR);
    sat_put_le32(hdr + 12, 0);
    sat_put_le32(hdr + 16, sat_trace_crc32(hdr, 16));
    if (write_all(w->fd, hdr, sizeof hdr)) {
        sat_diag_set(diag, SAT_E_IO, w->partial ? w->partial : w->path, "write failed: %s",
                     strerror(errno));
        goto fail;
    }
    w->off = SAT_FILE_HDR_LEN;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv_work, NULL);
    pthread_cond_init(&w->cv_space, NULL);
    if (pthread_create(&w->thr, NULL, worker_main, w) != 0) {
        sat_diag_set(diag, SAT_E_NOMEM, path, "cannot start compression thread");
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv_work);
        pthread_cond_destroy(&w->cv_space);
        goto fail;
    }
    w->thr_started = 1;
    return w;
fail:
    if (w->fd >= 0 && w->partial) {
        close(w->fd);
        unlink(w->partial);
    }
    ZSTD_freeCCtx(w->cctx);
    free(w->path);
    free(w->partial);
    free(w);
    return NULL;
}

int sat_trace_writer_append(sat_trace_writer *w, int table_id, const void *row)
{
    if (!w || !row || table_id < 0 || table_id >= SAT_TABLE__COUNT)
        return SAT_E_USAGE;
    wblock *b = w->cur[table_id];
    if (!b && !(b = take_block(w, table_id)))
        return SAT_E_NOMEM;
    const sat_table_def *def = b->def;
    const char *r = (const char *)row;
    uint32_t i = b->nrows;
    uint8_t *dst = b->rows + (size_t)i * def->row_size;
    memcpy(dst, r, def->row_size);
    const wtable *wt = &w->tab[table_id];
    for (size_t k = 0; k < wt->nstr; k++) {
        size_t c = wt->str[k];
        sat_str s;
        memcpy(&s, r + def->columns[c].offset, sizeof s);
        int64_t v = intern(b, &b->dicts[c], s);
        if (v < 0)
            return SAT_E_NOMEM;
        uint32_t code = (uint32_t)v;
        memcpy(dst + def->columns[c].offset, &code, 4);
    }
    int tsc = w->ts_col[table_id];
    if (tsc >= 0) {
        int64_t ts;
        memcpy(&ts, r + def->columns[tsc].offset, 8);
        if (ts == 0 && table_id == SAT_TABLE_LDAP_CONN)
            memcpy(&ts, r + def->columns[w->close_col].offset, 8);
        if (ts != 0) {
            if (b->min_ts == 0 && b->max_ts == 0)
                b->min_ts = b->max_ts = ts;
            else if (ts < b->min_ts)
                b->min_ts = ts;
            else if (ts > b->max_ts)
                b->max_ts = ts;
        }
    }
    b->nrows = i + 1;
    if (b->nrows >= b->cap_rows || b->str_bytes >= SAT_BLOCK_STR_BYTES)
        return submit(w, table_id);
    return SAT_OK;
}

static int sink_source(void *ctx, const sat_source *s)
{
    return sat_trace_writer_append((sat_trace_writer *)ctx, SAT_TABLE_SOURCE, s);
}
static int sink_reject(void *ctx, const sat_reject *r)
{
    return sat_trace_writer_append((sat_trace_writer *)ctx, SAT_TABLE_REJECT, r);
}
static int sink_op(void *ctx, const sat_ldap_op *o)
{
    return sat_trace_writer_append((sat_trace_writer *)ctx, SAT_TABLE_LDAP_OP, o);
}
static int sink_conn(void *ctx, const sat_ldap_conn *c)
{
    return sat_trace_writer_append((sat_trace_writer *)ctx, SAT_TABLE_LDAP_CONN, c);
}
static int sink_tcp(void *ctx, const sat_tcp_conn *c)
{
    return sat_trace_writer_append((sat_trace_writer *)ctx, SAT_TABLE_TCP_CONN, c);
}
static int sink_tls(void *ctx, const sat_tls_hs *h)
{
    return sat_trace_writer_append((sat_trace_writer *)ctx, SAT_TABLE_TLS_HS, h);
}
static int sink_crash(void *ctx, const sat_crash *c)
{
    return sat_trace_writer_append((sat_trace_writer *)ctx, SAT_TABLE_CRASH, c);
}
static int sink_frame(void *ctx, const sat_frame *f)
{
    return sat_trace_writer_append((sat_trace_writer *)ctx, SAT_TABLE_FRAME, f);
}

sat_event_sink sat_trace_writer_sink(sat_trace_writer *w)
{
    sat_event_sink s;
    memset(&s, 0, sizeof s); /* a callback added to event.h later starts NULL */
    s.ctx = w;
    s.on_source = sink_source;
    s.on_reject = sink_reject;
    s.on_ldap_op = sink_op;
    s.on_ldap_conn = sink_conn;
    s.on_tcp_conn = sink_tcp;
    s.on_tls_hs = sink_tls;
    s.on_crash = sink_crash;
    s.on_frame = sink_frame;
    return s;
}

/* Stops the worker and frees everything but the files. */
static void writer_teardown(sat_trace_writer *w)
{
    if (w->thr_started) {
        pthread_mutex_lock(&w->mu);
        w->stop = 1;
        pthread_cond_signal(&w->cv_work);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thr, NULL);
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv_work);
        pthread_cond_destroy(&w->cv_space);
        w->thr_started = 0;
    }
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        block_free(w->cur[t]);
        w->cur[t] = NULL;
        while (w->free_[t]) {
            wblock *n = w->free_[t]->next;
            block_free(w->free_[t]);
            w->free_[t] = n;
        }
    }
    ZSTD_freeCCtx(w->cctx);
    w->cctx = NULL;
    free(w->enc.p);
    free(w->dir.p);
    free(w->data.p);
    free(w->cbuf.p);
    free(w->enc2.p);
    free(w->cbuf2.p);
    free(w->nums.p);
    for (size_t c = 0; c < SAT_MAX_COLS_TABLE; c++)
        free(w->wide[c]);
    free(w->foot);
}

static void writer_free(sat_trace_writer *w)
{
    if (w->fd >= 0 && w->partial)
        close(w->fd);
    free(w->path);
    free(w->partial);
    free(w);
}

int sat_trace_writer_close(sat_trace_writer *w, sat_diag *diag)
{
    if (!w)
        return sat_diag_set(diag, SAT_E_USAGE, "", "no writer");
    int rc = SAT_OK;
    for (int t = 0; t < SAT_TABLE__COUNT && rc == SAT_OK; t++)
        rc = submit(w, t);
    /* Stop the worker: it drains the queue first. */
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv_work);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thr, NULL);
    w->thr_started = 0;
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv_work);
    pthread_cond_destroy(&w->cv_space);
    if (w->err) {
        if (diag)
            *diag = w->diag;
        rc = w->err;
    }
    if (rc == SAT_OK) {
        size_t flen = 8 + w->nfoot * SAT_FOOTER_ENTRY_LEN + 4;
        uint8_t *f = (uint8_t *)malloc(flen + SAT_TRAILER_LEN);
        if (!f) {
            rc = sat_diag_set(diag, SAT_E_NOMEM, w->path, "out of memory");
        } else {
            memcpy(f, "SATF", 4);
            sat_put_le32(f + 4, (uint32_t)w->nfoot);
            uint8_t *q = f + 8;
            for (size_t i = 0; i < w->nfoot; i++, q += SAT_FOOTER_ENTRY_LEN) {
                const footer_ent *e = &w->foot[i];
                sat_put_le16(q, e->table);
                sat_put_le16(q + 2, 0);
                sat_put_le32(q + 4, e->nrows);
                sat_put_le64(q + 8, e->off);
                sat_put_le64(q + 16, e->len);
                sat_put_le64(q + 24, (uint64_t)e->min_ts);
                sat_put_le64(q + 32, (uint64_t)e->max_ts);
            }
            sat_put_le32(q, sat_trace_crc32(f, flen - 4));
            q += 4;
            sat_put_le64(q, w->off);
            sat_put_le64(q + 8, flen);
            sat_put_le32(q + 16, sat_trace_crc32(q, 16));
            memcpy(q + 20, "SATE", 4);
            /* a stream (pipe, terminal) has nothing to fsync */
            if (write_all(w->fd, f, flen + SAT_TRAILER_LEN) ||
                (w->partial && fsync(w->fd) != 0))
                rc = sat_diag_set(diag, SAT_E_IO, w->partial ? w->partial : w->path,
                                  "write failed: %s", strerror(errno));
            free(f);
        }
    }
    if (!w->partial) { /* streamed: the descriptor is the caller's */
        w->fd = -1;
        writer_teardown(w);
        writer_free(w);
        return rc;
    }
    if (rc == SAT_OK) {
        if (close(w->fd) != 0)
            rc = sat_diag_set(diag, SAT_E_IO, w->partial, "close failed: %s",
                              strerror(errno));
        w->fd = -1;
    }
    unsigned old_mode;
    if (rc == SAT_OK && (rc = check_target(w->path, &old_mode, diag)) != SAT_OK && diag) {
        /* something not a regular file appeared at PATH meanwhile: the
         * complete trace stays in the temporary file, and the message says so */
        size_t l = strlen(diag->msg);
        snprintf(diag->msg + l, sizeof diag->msg - l, "; the trace is left in %s",
                 w->partial);
    }
    if (rc == SAT_OK && rename(w->partial, w->path) != 0)
        rc = sat_diag_set(diag, SAT_E_IO, w->path, "cannot rename %s: %s",
                          w->partial, strerror(errno));
    if (rc == SAT_OK) {
        /* Make the rename itself durable. */
        char *slash = strrchr(w->path, '/');
        char dir[4096];
        if (slash)
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - w->path + (slash == w->path)), w->path);
        else
            snprintf(dir, sizeof dir, ".");
        int dfd = open(dir, O_RDONLY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
    }
    writer_teardown(w);
    writer_free(w);
    return rc;
}

void sat_trace_writer_abort(sat_trace_writer *w)
{
    if (!w)
        return;
    writer_teardown(w);
    if (w->fd >= 0 && w->partial) {
        close(w->fd);
        unlink(w->partial);
    }
    w->fd = -1;
    writer_free(w);
}

int sat_trace_writer_flush(sat_trace_writer *w)
{
    int rc = SAT_OK;
    for (int t = 0; t < SAT_TABLE__COUNT && rc == SAT_OK; t++)
        rc = submit(w, t);
    if (!w)
        return SAT_E_USAGE;
    pthread_mutex_lock(&w->mu);
    while (w->q_len > 0)
        pthread_cond_wait(&w->cv_space, &w->mu);
    if (!rc)
        rc = w->err;
    pthread_mutex_unlock(&w->mu);
    return rc;
}
