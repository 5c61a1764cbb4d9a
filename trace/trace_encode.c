/*
 * trace_encode.c - the .sat block encoder, run on the writer's worker thread
 * (trace/FORMAT.md "Block", "Encoded integer stream", "Encoded string
 * column"): transposes a block's rows into columns, picks an encoding per
 * column, compresses each column with zstd, checksums and appends the block.
 * Also the format's crc32, which the reader checks with.
 */
#include <errno.h>
#include <pthread.h>
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

static int bbuf_reserve(bbuf *b, size_t extra)
{
    if (b->p && b->len <= b->cap && b->cap - b->len >= extra)
        return 0;
    /* an empty buffer gets its memory too: callers use p even for 0 bytes */
    size_t need = b->len + (extra ? extra : 1);
    return SAT_GROW(b->p, b->cap, need) == SAT_OK ? 0 : SAT_E_NOMEM;
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
        sat_diag_set(&w->diag, code, w->partial ? w->partial : w->path, fmt, e ? strerror(e) : "");
    }
    pthread_mutex_unlock(&w->mu);
    return code;
}

/* Encodes, compresses and appends one block (runs on the worker thread). */
int sat_trace_write_block(sat_trace_writer *w, wblock *b)
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
    if (sat_trace_write_all(w->fd, w->dir.p, w->dir.len) ||
        sat_trace_write_all(w->fd, w->data.p, w->data.len))
        return worker_fail(w, SAT_E_IO, "write failed: %s", errno);
    if (SAT_GROW(w->foot, w->capfoot, w->nfoot + 1) != SAT_OK)
        return worker_fail(w, SAT_E_NOMEM, "out of memory%s", 0);
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
