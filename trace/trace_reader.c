/*
 * trace_reader.c - the .sat reader, stat and verify (trace/FORMAT.md: every
 * minor version of major SAT_FMT_MAJOR).
 *
 * Every byte of the file is untrusted: it is read through sat_cursor, every
 * length is checked against the file size and the caps of FORMAT.md before
 * anything is allocated, and every failure names the block and its offset.
 * Columns are decoded as streams, row by row, so reading a block needs only
 * the decompressed bytes of the columns asked for (plus the time column when
 * a window is given and the column a REF-encoded column refers to).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "trace_internal.h"

typedef struct rblock {
    uint16_t table;
    uint32_t nrows;
    uint64_t off, len;
    int64_t min_ts, max_ts;
    uint64_t no; /* number in file order, damaged blocks included ("block N") */
} rblock;

/* Damaged blocks (FORMAT.md "Damaged blocks"). */
typedef struct dlist {
    sat_trace_damage *v;
    size_t n, cap;
} dlist;

static int dlist_add(dlist *l, const sat_trace_damage *d)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 8;
        sat_trace_damage *nv = (sat_trace_damage *)realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return SAT_E_NOMEM;
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = *d;
    return SAT_OK;
}

static int cmp_damage(const void *a, const void *b)
{
    const sat_trace_damage *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

typedef struct rbuf {
    uint8_t *p;
    size_t cap;
} rbuf;

static int rbuf_need(rbuf *b, size_t n)
{
    if (b->cap >= n && b->p)
        return 0;
    size_t nc = n < 4096 ? 4096 : n;
    uint8_t *np = (uint8_t *)realloc(b->p, nc);
    if (!np)
        return SAT_E_NOMEM;
    b->p = np;
    b->cap = nc;
    return 0;
}

/* One column of the directory of the block being read. */
typedef struct dcol {
    const uint8_t *name;
    uint8_t namelen, type, storage;
    uint64_t elen, slen, doff;
    uint32_t crc;
    int sidx; /* schema column index or -1 */
} dcol;

/* Integer stream decoder (FORMAT.md "Encoded integer stream"). */
typedef struct idec {
    sat_cursor c;
    uint8_t enc, width, split, nref;
    int64_t cur, d;
    uint64_t run;
    uint32_t i, n, lead;
    unsigned ref[2];
    const uint8_t *bits; /* BITPACK bytes, or SPLIT planes */
    uint64_t leadv[2];   /* SPLIT: the numbers stored before the planes */
} idec;

typedef struct coldec {
    int loaded;
    idec ints;
    sat_str *dict; /* STR: entries */
    uint64_t ndict;
} coldec;

struct sat_trace_reader {
    char *path;
    int fd;
    const uint8_t *mem;
    uint64_t size;
    uint16_t major, minor;
    int complete;
    rblock *blocks;
    size_t nblocks;
    ZSTD_DCtx *dctx;
    rbuf hdr, stored;
    rbuf *colbuf;  /* SAT_MAX_COLS, lazily */
    coldec *dec;   /* SAT_MAX_COLS */
    dcol *dir;     /* SAT_MAX_COLS */
    int64_t *vals; /* SAT_MAX_COLS */
    sat_str **dicts;
    uint64_t *dictcap;
    /* stat storage */
    sat_table_stat *tstats;
    size_t ntstats;
    sat_column_stat **cstats;
    char **names;
    size_t nnames;
    uint64_t blocks_decoded; /* for tests: blocks actually read */
    dlist scan_dmg;  /* damage found while indexing by scanning */
    dlist read_dmg;  /* damage the last sat_trace_read skipped */
    dlist stat_dmg;  /* every damaged block, found by stat */
};

/* ---- byte source ---------------------------------------------------------- */
/* Bytes [off, off+len) of the file, or NULL if they are not all there. */
static const uint8_t *src_get(sat_trace_reader *r, uint64_t off, uint64_t len,
                              rbuf *scratch)
{
    if (off > r->size || len > r->size - off)
        return NULL;
    if (r->mem)
        return r->mem + off;
    if (rbuf_need(scratch, (size_t)len ? (size_t)len : 1))
        return NULL;
    size_t got = 0;
    while (got < len) {
        ssize_t k = pread(r->fd, scratch->p + got, (size_t)len - got,
                          (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return NULL;
        got += (size_t)k;
    }
    return scratch->p;
}

static int where_block(char *buf, size_t n, const sat_trace_reader *r,
                       size_t bi, uint64_t off)
{
    return snprintf(buf, n, "%s: block %zu (offset %" PRIu64 ")",
                    r->path ? r->path : "<memory>", bi, off);
}

#define BLOCK_ERR(code, ...)                                                 \
    do {                                                                     \
        char where_[512];                                                    \
        where_block(where_, sizeof where_, r, bi, off);                      \
        return sat_diag_set(diag, (code), where_, __VA_ARGS__);              \
    } while (0)

typedef struct bhdr {
    uint16_t table, ncols;
    uint32_t nrows, dir_len, data_len;
    int64_t min_ts, max_ts;
    uint64_t data_off; /* absolute offset of column data */
    uint64_t total;
} bhdr;

/* Reads and checks the header and directory of the block at off; fills
 * r->dir[0..ncols). Column data is not read. */
static int load_block_dir(sat_trace_reader *r, size_t bi, uint64_t off,
                          bhdr *h, sat_diag *diag)
{
    const uint8_t *p = src_get(r, off, SAT_BLOCK_HDR_LEN, &r->hdr);
    if (!p)
        BLOCK_ERR(SAT_E_TRUNCATED, "block header runs past the end of the file");
    sat_cursor c = sat_cursor_make(p, SAT_BLOCK_HDR_LEN);
    const uint8_t *magic = sat_cursor_bytes(&c, 4);
    if (memcmp(magic, "SATB", 4) != 0)
        BLOCK_ERR(SAT_E_CORRUPT, "no block magic");
    h->table = sat_cursor_le16(&c);
    h->ncols = sat_cursor_le16(&c);
    h->nrows = sat_cursor_le32(&c);
    h->dir_len = sat_cursor_le32(&c);
    h->data_len = sat_cursor_le32(&c);
    h->min_ts = (int64_t)sat_cursor_le64(&c);
    h->max_ts = (int64_t)sat_cursor_le64(&c);
    if (h->ncols == 0 || h->ncols > SAT_MAX_COLS || h->nrows == 0 ||
        h->nrows > SAT_MAX_ROWS || h->dir_len > SAT_MAX_DIR)
        BLOCK_ERR(SAT_E_CORRUPT, "impossible block header (%u columns, %u rows, "
                  "directory of %u bytes)", h->ncols, h->nrows, h->dir_len);
    h->total = (uint64_t)SAT_BLOCK_HDR_LEN + h->dir_len + 4 + h->data_len;
    if (h->total > r->size - off)
        BLOCK_ERR(SAT_E_TRUNCATED, "block of %" PRIu64 " bytes runs past the "
                  "end of the file", h->total);
    p = src_get(r, off, (uint64_t)SAT_BLOCK_HDR_LEN + h->dir_len + 4, &r->hdr);
    if (!p)
        BLOCK_ERR(SAT_E_IO, "read failed");
    c = sat_cursor_make(p, (size_t)SAT_BLOCK_HDR_LEN + h->dir_len + 4);
    sat_cursor_skip(&c, SAT_BLOCK_HDR_LEN + h->dir_len);
    uint32_t want = sat_cursor_le32(&c);
    if (!SAT_CRC_MATCH(sat_trace_crc32(p, SAT_BLOCK_HDR_LEN + h->dir_len), want))
        BLOCK_ERR(SAT_E_CORRUPT, "header checksum mismatch");
    h->data_off = off + SAT_BLOCK_HDR_LEN + h->dir_len + 4;
    if (!r->dir) {
        r->dir = (dcol *)calloc(SAT_MAX_COLS, sizeof *r->dir);
        if (!r->dir)
            BLOCK_ERR(SAT_E_NOMEM, "out of memory");
    }
    c = sat_cursor_make(p + SAT_BLOCK_HDR_LEN, h->dir_len);
    uint64_t doff = 0;
    const sat_table_def *def = sat_table_get(h->table);
    for (uint16_t k = 0; k < h->ncols; k++) {
        dcol *d = &r->dir[k];
        d->namelen = sat_cursor_u8(&c);
        d->name = sat_cursor_bytes(&c, d->namelen);
        d->type = sat_cursor_u8(&c);
        d->storage = sat_cursor_u8(&c);
        d->elen = sat_cursor_uvarint(&c);
        d->slen = sat_cursor_uvarint(&c);
        d->crc = sat_cursor_le32(&c);
        if (c.err)
            BLOCK_ERR(SAT_E_CORRUPT, "column directory entry %u is cut short", k);
        if (d->namelen == 0 || d->namelen > SAT_MAX_NAME || d->type < SAT_COL_TS ||
            d->type > SAT_COL_STR || d->storage > 1)
            BLOCK_ERR(SAT_E_CORRUPT, "column directory entry %u is invalid", k);
        if (d->elen > SAT_MAX_COL_BYTES ||
            (d->type != SAT_COL_STR && d->elen > 64 + (uint64_t)h->nrows * 11) ||
            (d->type == SAT_COL_STR &&
             d->elen > 64 + (uint64_t)h->nrows * 16 + SAT_MAX_STR_COL) ||
            (d->storage == 0 && d->slen != d->elen) ||
            d->slen > h->data_len - doff)
            BLOCK_ERR(SAT_E_CORRUPT, "column %.*s: impossible sizes (%" PRIu64
                      " encoded, %" PRIu64 " stored)", (int)d->namelen,
                      (const char *)d->name, d->elen, d->slen);
        d->doff = h->data_off + doff;
        doff += d->slen;
        d->sidx = def ? sat_col_index(def, (const char *)d->name, d->namelen) : -1;
        /* FORMAT.md compatibility: a minor version may widen an unsigned
         * column (ldap_op.flags was U8 in 1.0, U16 since 1.1); values are
         * decoded as int64 and stored with the schema's width. */
        if (d->sidx >= 0 && def->columns[d->sidx].type != d->type &&
            !(d->type == SAT_COL_U8 && def->columns[d->sidx].type == SAT_COL_U16))
            BLOCK_ERR(SAT_E_CORRUPT, "column %.*s has type %u, schema says %u",
                      (int)d->namelen, (const char *)d->name, d->type,
                      def->columns[d->sidx].type);
    }
    if (sat_cursor_left(&c) != 0 || doff != h->data_len)
        BLOCK_ERR(SAT_E_CORRUPT, "column directory does not match the block length");
    return SAT_OK;
}

/* Checks the stored bytes of column k and decompresses them into colbuf[k]. */
static int load_column(sat_trace_reader *r, size_t bi, uint64_t off, size_t k,
                       const uint8_t **out, sat_diag *diag)
{
    dcol *d = &r->dir[k];
    const uint8_t *s = src_get(r, d->doff, d->slen, &r->stored);
    if (!s)
        BLOCK_ERR(SAT_E_IO, "column %.*s: read failed", (int)d->namelen,
                  (const char *)d->name);
    if (!SAT_CRC_MATCH(sat_trace_crc32(s, (size_t)d->slen), d->crc))
        BLOCK_ERR(SAT_E_CORRUPT, "column %.*s: checksum mismatch",
                  (int)d->namelen, (const char *)d->name);
    if (!r->colbuf) {
        r->colbuf = (rbuf *)calloc(SAT_MAX_COLS, sizeof *r->colbuf);
        if (!r->colbuf)
            BLOCK_ERR(SAT_E_NOMEM, "out of memory");
    }
    rbuf *b = &r->colbuf[k];
    if (rbuf_need(b, (size_t)d->elen + 1))
        BLOCK_ERR(SAT_E_NOMEM, "out of memory");
    if (d->storage == 0) {
        if (d->slen)
            memcpy(b->p, s, (size_t)d->slen);
    } else {
        unsigned long long fcs = ZSTD_getFrameContentSize(s, (size_t)d->slen);
        if (fcs != d->elen)
            BLOCK_ERR(SAT_E_CORRUPT, "column %.*s: zstd frame size does not match",
                      (int)d->namelen, (const char *)d->name);
        size_t z = ZSTD_decompressDCtx(r->dctx, b->p, (size_t)d->elen, s,
                                       (size_t)d->slen);
        if (ZSTD_isError(z) || z != d->elen)
            BLOCK_ERR(SAT_E_CORRUPT, "column %.*s: zstd: %s", (int)d->namelen,
                      (const char *)d->name,
                      ZSTD_isError(z) ? ZSTD_getErrorName(z) : "short frame");
    }
    *out = b->p;
    return SAT_OK;
}

static int idec_init(idec *d, sat_cursor c, uint32_t n, size_t self)
{
    memset(d, 0, sizeof *d);
    d->c = c;
    d->n = n;
    uint8_t tag = sat_cursor_u8(&d->c);
    d->enc = tag & 0x7f;
    d->split = (tag & SAT_ENC_SPLIT) != 0;
    if (d->split && d->enc != SAT_ENC_PLAIN && d->enc != SAT_ENC_DELTA &&
        d->enc != SAT_ENC_DOD && d->enc != SAT_ENC_REF)
        return SAT_E_CORRUPT;
    switch (d->enc) {
    case SAT_ENC_CONST:
        d->cur = sat_cursor_svarint(&d->c);
        break;
    case SAT_ENC_PLAIN:
    case SAT_ENC_DELTA:
    case SAT_ENC_DOD:
    case SAT_ENC_RLE:
        break;
    case SAT_ENC_BITPACK:
        d->width = sat_cursor_u8(&d->c);
        if (d->width != 1 && d->width != 2 && d->width != 4 && d->width != 8 &&
            d->width != 16)
            return SAT_E_CORRUPT;
        d->bits = sat_cursor_bytes(&d->c, ((size_t)n * d->width + 7) / 8);
        break;
    case SAT_ENC_REF: {
        uint64_t nr = sat_cursor_uvarint(&d->c);
        if (nr < 1 || nr > 2)
            return SAT_E_CORRUPT;
        d->nref = (uint8_t)nr;
        for (unsigned j = 0; j < nr; j++) {
            uint64_t k = sat_cursor_uvarint(&d->c);
            if (k >= self)
                return SAT_E_CORRUPT;
            d->ref[j] = (unsigned)k;
        }
        break;
    }
    default:
        return SAT_E_CORRUPT;
    }
    if (d->split) {
        d->lead = d->enc == SAT_ENC_DELTA ? 1 : d->enc == SAT_ENC_DOD ? 2 : 0;
        if (d->lead > n)
            d->lead = n;
        for (uint32_t i = 0; i < d->lead; i++)
            d->leadv[i] = sat_cursor_uvarint(&d->c);
        d->width = sat_cursor_u8(&d->c);
        if (d->width < 1 || d->width > 8)
            return SAT_E_CORRUPT;
        d->bits = sat_cursor_bytes(&d->c, (size_t)(n - d->lead) * d->width);
    }
    return d->c.err ? SAT_E_CORRUPT : SAT_OK;
}

static inline int64_t wadd(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Number i of a PLAIN/DELTA/DOD/REF body. */
static inline uint64_t idec_num(idec *d, uint32_t i)
{
    if (!d->split)
        return sat_cursor_uvarint(&d->c);
    if (i < d->lead)
        return d->leadv[i];
    size_t m = d->n - d->lead, k = i - d->lead;
    uint64_t v = 0;
    for (unsigned j = 0; j < d->width; j++)
        v |= (uint64_t)d->bits[(size_t)j * m + k] << (8 * j);
    return v;
}

static inline int64_t idec_next(idec *d, const int64_t *vals)
{
    uint32_t i = d->i++;
    if (i >= d->n) { /* more rows than the block says: impossible, be safe */
        d->c.err = SAT_E_CORRUPT;
        return 0;
    }
    switch (d->enc) {
    case SAT_ENC_CONST:
        return d->cur;
    case SAT_ENC_PLAIN:
        return sat_zigzag_decode(idec_num(d, i));
    case SAT_ENC_DELTA: {
        int64_t x = sat_zigzag_decode(idec_num(d, i));
        d->cur = i ? wadd(d->cur, x) : x;
        return d->cur;
    }
    case SAT_ENC_DOD: {
        int64_t x = sat_zigzag_decode(idec_num(d, i));
        if (i == 0) {
            d->cur = x;
        } else if (i == 1) {
            d->d = x;
            d->cur = wadd(d->cur, d->d);
        } else {
            d->d = wadd(d->d, x);
            d->cur = wadd(d->cur, d->d);
        }
        return d->cur;
    }
    case SAT_ENC_RLE:
        if (d->run == 0) {
            d->cur = sat_cursor_svarint(&d->c);
            d->run = sat_cursor_uvarint(&d->c);
            if (d->run == 0 && !d->c.err)
                d->c.err = SAT_E_CORRUPT;
        }
        if (d->run)
            d->run--;
        return d->cur;
    case SAT_ENC_BITPACK:
        if (d->width == 16)
            return (int64_t)(d->bits[2 * (size_t)i] |
                             (d->bits[2 * (size_t)i + 1] << 8));
        else {
            size_t bit = (size_t)i * d->width;
            return (d->bits[bit >> 3] >> (bit & 7)) & ((1u << d->width) - 1);
        }
    case SAT_ENC_REF: {
        uint64_t q = idec_num(d, i);
        if (q == 0)
            return 0;
        int64_t base = vals[d->ref[0]];
        if (d->nref == 2)
            base = wadd(base, vals[d->ref[1]]);
        return wadd(base, sat_zigzag_decode(q - 1));
    }
    }
    return 0;
}

/* Sets up the decoder of directory column k (and of the column it refers to). */
static int setup_column(sat_trace_reader *r, size_t bi, uint64_t off,
                        const bhdr *h, size_t k, int depth, sat_diag *diag)
{
    coldec *cd = &r->dec[k];
    if (cd->loaded)
        return SAT_OK;
    const uint8_t *buf = NULL;
    SAT_FORWARD_IF_ERROR(load_column(r, bi, off, k, &buf, diag));
    dcol *d = &r->dir[k];
    sat_cursor c = sat_cursor_make(buf, (size_t)d->elen);
    if (d->type == SAT_COL_STR) {
        uint64_t nd = sat_cursor_uvarint(&c);
        if (c.err || nd > sat_cursor_left(&c))
            BLOCK_ERR(SAT_E_CORRUPT, "column %.*s: bad dictionary size",
                      (int)d->namelen, (const char *)d->name);
        if (r->dictcap[k] < nd) {
            sat_str *nds = (sat_str *)realloc(r->dicts[k], (size_t)nd * sizeof *nds);
            if (!nds)
                BLOCK_ERR(SAT_E_NOMEM, "out of memory");
            r->dicts[k] = nds;
            r->dictcap[k] = nd;
        }
        uint64_t total = 0;
        for (uint64_t i = 0; i < nd; i++) {
            uint64_t l = sat_cursor_uvarint(&c);
            if (l > UINT32_MAX)
                c.err = SAT_E_CORRUPT;
            r->dicts[k][i].len = (uint32_t)l;
            total += l;
        }
        if (c.err || total > sat_cursor_left(&c))
            BLOCK_ERR(SAT_E_CORRUPT, "column %.*s: dictionary runs past the column",
                      (int)d->namelen, (const char *)d->name);
        for (uint64_t i = 0; i < nd; i++) {
            /* sat_cursor_bytes of 0 bytes gives a non-NULL pointer: "" stays present */
            r->dicts[k][i].ptr = (const char *)sat_cursor_bytes(&c, r->dicts[k][i].len);
        }
        cd->dict = r->dicts[k];
        cd->ndict = nd;
    }
    if (idec_init(&cd->ints, c, h->nrows, k) != SAT_OK)
        BLOCK_ERR(SAT_E_CORRUPT, "column %.*s: bad encoding", (int)d->namelen,
                  (const char *)d->name);
    cd->loaded = 1;
    for (unsigned j = 0; cd->ints.enc == SAT_ENC_REF && j < cd->ints.nref; j++) {
        size_t t = cd->ints.ref[j];
        if (depth > 0 || r->dir[t].type == SAT_COL_STR)
            BLOCK_ERR(SAT_E_CORRUPT, "column %.*s refers to an unusable column",
                      (int)d->namelen, (const char *)d->name);
        SAT_FORWARD_IF_ERROR(setup_column(r, bi, off, h, t, depth + 1, diag));
        if (r->dec[t].ints.enc == SAT_ENC_REF)
            BLOCK_ERR(SAT_E_CORRUPT, "column %.*s refers to a REF column",
                      (int)d->namelen, (const char *)d->name);
    }
    return SAT_OK;
}

static int reader_alloc_scratch(sat_trace_reader *r)
{
    r->dec = (coldec *)calloc(SAT_MAX_COLS, sizeof *r->dec);
    r->vals = (int64_t *)calloc(SAT_MAX_COLS, sizeof *r->vals);
    r->dicts = (sat_str **)calloc(SAT_MAX_COLS, sizeof *r->dicts);
    r->dictcap = (uint64_t *)calloc(SAT_MAX_COLS, sizeof *r->dictcap);
    r->dctx = ZSTD_createDCtx();
    return (r->dec && r->vals && r->dicts && r->dictcap && r->dctx) ? 0
                                                                    : SAT_E_NOMEM;
}

/* ---- opening and indexing --------------------------------------------------- */
static int add_block(sat_trace_reader *r, size_t *cap, const rblock *b)
{
    if (r->nblocks == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        rblock *nb = (rblock *)realloc(r->blocks, nc * sizeof *nb);
        if (!nb)
            return SAT_E_NOMEM;
        r->blocks = nb;
        *cap = nc;
    }
    r->blocks[r->nblocks++] = *b;
    return SAT_OK;
}

static int check_header(sat_trace_reader *r, sat_diag *diag)
{
    const char *where = r->path ? r->path : "<memory>";
    const uint8_t *p = src_get(r, 0, SAT_FILE_HDR_LEN, &r->hdr);
    if (!p)
        return sat_diag_set(diag, r->size < SAT_FILE_HDR_LEN ? SAT_E_FORMAT : SAT_E_IO,
                            where, "not a satscope trace (file shorter than its header)");
    sat_cursor c = sat_cursor_make(p, SAT_FILE_HDR_LEN);
    const uint8_t *magic = sat_cursor_bytes(&c, 8);
    r->major = sat_cursor_le16(&c);
    r->minor = sat_cursor_le16(&c);
    (void)sat_cursor_le32(&c);
    uint32_t crc = sat_cursor_le32(&c);
    if (memcmp(magic, "SATSCOPE", 8) != 0)
        return sat_diag_set(diag, SAT_E_FORMAT, where,
                            "not a satscope trace (no SATSCOPE magic)");
    if (sat_trace_crc32(p, 16) != crc)
        return sat_diag_set(diag, SAT_E_CORRUPT, where,
                            "file header checksum mismatch");
    if (r->major > SAT_FMT_MAJOR || r->major == 0)
        return sat_diag_set(diag, SAT_E_UNSUPPORTED, where,
                            "trace format %u.%u is newer than this satscope reads "
                            "(%d.x): upgrade satscope", r->major, r->minor,
                            SAT_FMT_MAJOR);
    return SAT_OK;
}

/* Reads trailer + footer. Returns SAT_OK and fills r->blocks, or an error
 * (with a reason in diag) when they are missing or invalid. */
static int read_footer(sat_trace_reader *r, sat_diag *diag, uint64_t *footer_off)
{
    const char *where = r->path ? r->path : "<memory>";
    if (r->size < SAT_FILE_HDR_LEN + SAT_TRAILER_LEN + 12)
        return sat_diag_set(diag, SAT_E_TRUNCATED, where, "no trailer");
    const uint8_t *p = src_get(r, r->size - SAT_TRAILER_LEN, SAT_TRAILER_LEN, &r->hdr);
    if (!p)
        return sat_diag_set(diag, SAT_E_IO, where, "cannot read the trailer");
    sat_cursor c = sat_cursor_make(p, SAT_TRAILER_LEN);
    uint64_t foff = sat_cursor_le64(&c), flen = sat_cursor_le64(&c);
    uint32_t crc = sat_cursor_le32(&c);
    const uint8_t *magic = sat_cursor_bytes(&c, 4);
    if (memcmp(magic, "SATE", 4) != 0)
        return sat_diag_set(diag, SAT_E_TRUNCATED, where, "no trailer");
    if (sat_trace_crc32(p, 16) != crc)
        return sat_diag_set(diag, SAT_E_CORRUPT, where, "trailer checksum mismatch");
    uint64_t end = r->size - SAT_TRAILER_LEN;
    if (foff < SAT_FILE_HDR_LEN || flen < 12 || foff > end || flen != end - foff ||
        (flen - 12) % SAT_FOOTER_ENTRY_LEN != 0)
        return sat_diag_set(diag, SAT_E_CORRUPT, where,
                            "trailer points outside the file");
    p = src_get(r, foff, flen, &r->hdr);
    if (!p)
        return sat_diag_set(diag, SAT_E_IO, where, "cannot read the footer");
    c = sat_cursor_make(p, (size_t)flen);
    magic = sat_cursor_bytes(&c, 4);
    uint32_t n = sat_cursor_le32(&c);
    if (memcmp(magic, "SATF", 4) != 0 ||
        (uint64_t)n * SAT_FOOTER_ENTRY_LEN != flen - 12)
        return sat_diag_set(diag, SAT_E_CORRUPT, where, "footer is malformed");
    sat_cursor fc = sat_cursor_make(p + flen - 4, 4);
    if (sat_trace_crc32(p, (size_t)flen - 4) != sat_cursor_le32(&fc))
        return sat_diag_set(diag, SAT_E_CORRUPT, where, "footer checksum mismatch");
    size_t cap = 0;
    uint64_t prev_end = SAT_FILE_HDR_LEN;
    r->nblocks = 0;
    for (uint32_t i = 0; i < n; i++) {
        rblock b;
        b.table = sat_cursor_le16(&c);
        (void)sat_cursor_le16(&c);
        b.nrows = sat_cursor_le32(&c);
        b.off = sat_cursor_le64(&c);
        b.len = sat_cursor_le64(&c);
        b.min_ts = (int64_t)sat_cursor_le64(&c);
        b.max_ts = (int64_t)sat_cursor_le64(&c);
        b.no = i;
        if (c.err || b.off < prev_end || b.off > foff || b.len > foff - b.off ||
            b.len < SAT_BLOCK_HDR_LEN + 4 || b.nrows == 0 || b.nrows > SAT_MAX_ROWS) {
            r->nblocks = 0;
            return sat_diag_set(diag, SAT_E_CORRUPT, where,
                                "footer entry %u is invalid", i);
        }
        prev_end = b.off + b.len;
        if (add_block(r, &cap, &b)) {
            r->nblocks = 0;
            return sat_diag_set(diag, SAT_E_NOMEM, where, "out of memory");
        }
    }
    *footer_off = foff;
    return SAT_OK;
}

/* Checks every column checksum of the block at off (header already loaded). */
static int check_block_data(sat_trace_reader *r, size_t bi, uint64_t off,
                            const bhdr *h, sat_diag *diag)
{
    for (uint16_t k = 0; k < h->ncols; k++) {
        dcol *d = &r->dir[k];
        const uint8_t *s = src_get(r, d->doff, d->slen, &r->stored);
        if (!s)
            BLOCK_ERR(SAT_E_IO, "column %.*s: read failed", (int)d->namelen,
                      (const char *)d->name);
        if (!SAT_CRC_MATCH(sat_trace_crc32(s, (size_t)d->slen), d->crc))
            BLOCK_ERR(SAT_E_CORRUPT, "column %.*s: checksum mismatch",
                      (int)d->namelen, (const char *)d->name);
        if (d->storage == 1 &&
            ZSTD_getFrameContentSize(s, (size_t)d->slen) != d->elen)
            BLOCK_ERR(SAT_E_CORRUPT, "column %.*s: zstd frame size does not match",
                      (int)d->namelen, (const char *)d->name);
    }
    return SAT_OK;
}

/* Offset of the first block at or after `from` whose magic, header and
 * directory are valid (its header checksum matches), or 0 if there is none. */
static uint64_t next_valid_block(sat_trace_reader *r, uint64_t from, uint64_t no)
{
    const uint64_t window = 1u << 20;
    rbuf buf = {NULL, 0};
    uint64_t found = 0;
    for (uint64_t pos = from; !found && pos + 4 <= r->size;) {
        uint64_t n = r->size - pos < window ? r->size - pos : window;
        const uint8_t *p = src_get(r, pos, n, &buf);
        if (!p)
            break;
        for (uint64_t i = 0; i + 4 <= n && !found; i++) {
            if (p[i] != 'S' || memcmp(p + i, "SATB", 4) != 0)
                continue;
            bhdr h;
            sat_diag d = {0};
            /* load_block_dir reads through r->hdr: p (in buf) stays valid */
            if (load_block_dir(r, (size_t)no, pos + i, &h, &d) == SAT_OK)
                found = pos + i;
        }
        if (n < window)
            break;
        pos += n - 3; /* a magic across the window's end is seen in the next */
    }
    free(buf.p);
    return found;
}

/* Indexes by walking the blocks from the header (FORMAT.md "Damaged
 * blocks"). A block whose header is valid but whose data fails a checksum is
 * recorded as damaged and stepped over by its length; bytes that are not a
 * valid block are damaged when a valid block follows them (the walk resumes
 * there) and the cut-off tail of a partial trace when none does: the walk
 * stops, *stop gets where and stopdiag why. */
static int scan_blocks(sat_trace_reader *r, uint64_t *stop, sat_diag *stopdiag)
{
    size_t cap = 0;
    uint64_t off = SAT_FILE_HDR_LEN, no = 0;
    r->nblocks = 0;
    r->scan_dmg.n = 0;
    while (off < r->size) {
        bhdr h;
        sat_diag bd = {0};
        sat_trace_damage dm;
        memset(&dm, 0, sizeof dm);
        dm.block = no;
        dm.offset = off;
        if (load_block_dir(r, (size_t)no, off, &h, &bd) == SAT_OK) {
            if (check_block_data(r, (size_t)no, off, &h, &bd) == SAT_OK) {
                rblock b = {h.table, h.nrows, off, h.total, h.min_ts, h.max_ts, no};
                SAT_FORWARD_IF_ERROR(add_block(r, &cap, &b));
            } else {
                /* the header's checksum held: what was lost is known */
                dm.table_id = h.table;
                dm.length = h.total;
                dm.rows = h.nrows;
                dm.min_ts = h.min_ts;
                dm.max_ts = h.max_ts;
                snprintf(dm.reason, sizeof dm.reason, "%.200s", bd.msg);
                SAT_FORWARD_IF_ERROR(dlist_add(&r->scan_dmg, &dm));
            }
            off += h.total;
            no++;
            continue;
        }
        uint64_t next = bd.code == SAT_E_NOMEM ? 0 : next_valid_block(r, off + 1, no + 1);
        if (!next) {
            *stopdiag = bd;
            break;
        }
        dm.table_id = -1;
        dm.length = next - off;
        snprintf(dm.reason, sizeof dm.reason, "%.200s", bd.msg);
        SAT_FORWARD_IF_ERROR(dlist_add(&r->scan_dmg, &dm));
        off = next;
        no++;
    }
    *stop = off;
    return SAT_OK;
}

static sat_trace_reader *reader_new(const char *path, int fd, const void *mem,
                                    uint64_t size)
{
    sat_trace_reader *r = (sat_trace_reader *)calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->fd = fd;
    r->mem = (const uint8_t *)mem;
    r->size = size;
    if (path && !(r->path = strdup(path))) {
        free(r);
        return NULL;
    }
    if (reader_alloc_scratch(r)) {
        sat_trace_reader_close(r);
        return NULL;
    }
    return r;
}

static sat_trace_reader *reader_index(sat_trace_reader *r, sat_diag *diag)
{
    if (check_header(r, diag) != SAT_OK) {
        sat_trace_reader_close(r);
        return NULL;
    }
    sat_diag why = {0};
    uint64_t foff = 0;
    if (read_footer(r, &why, &foff) == SAT_OK) {
        r->complete = 1;
        return r;
    }
    sat_diag stopd = {0};
    uint64_t stop = 0;
    if (scan_blocks(r, &stop, &stopd) != SAT_OK) {
        sat_diag_set(diag, SAT_E_NOMEM, r->path, "out of memory");
        sat_trace_reader_close(r);
        return NULL;
    }
    char tail[300] = "";
    if (stop < r->size)
        snprintf(tail, sizeof tail, "; bytes from offset %" PRIu64
                 " ignored (block %zu: %.200s)", stop, r->nblocks + r->scan_dmg.n, stopd.msg);
    char dmg[96] = "";
    if (r->scan_dmg.n)
        snprintf(dmg, sizeof dmg, "; %zu damaged block%s skipped", r->scan_dmg.n,
                 r->scan_dmg.n == 1 ? "" : "s");
    sat_diag_set(diag, SAT_E_TRUNCATED, r->path ? r->path : "<memory>",
                 "partial trace (%.100s): %zu complete blocks used%s%s", why.msg,
                 r->nblocks, dmg, tail);
    return r;
}

sat_trace_reader *sat_trace_reader_open(const char *path, sat_diag *diag)
{
    if (!path)
        return sat_diag_set(diag, SAT_E_USAGE, "", "no path"), NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        sat_diag_set(diag, SAT_E_IO, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        sat_diag_set(diag, SAT_E_IO, path, "not a regular file");
        close(fd);
        return NULL;
    }
    sat_trace_reader *r = reader_new(path, fd, NULL, (uint64_t)st.st_size);
    if (!r) {
        close(fd);
        sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
        return NULL;
    }
    return reader_index(r, diag);
}

sat_trace_reader *sat_trace_reader_open_mem(const void *buf, size_t len,
                                            sat_diag *diag)
{
    sat_trace_reader *r = reader_new(NULL, -1, buf ? buf : "", len);
    if (!r) {
        sat_diag_set(diag, SAT_E_NOMEM, "<memory>", "out of memory");
        return NULL;
    }
    return reader_index(r, diag);
}

void sat_trace_reader_close(sat_trace_reader *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    free(r->path);
    free(r->blocks);
    ZSTD_freeDCtx(r->dctx);
    free(r->hdr.p);
    free(r->stored.p);
    if (r->colbuf)
        for (size_t i = 0; i < SAT_MAX_COLS; i++)
            free(r->colbuf[i].p);
    free(r->colbuf);
    if (r->dicts)
        for (size_t i = 0; i < SAT_MAX_COLS; i++)
            free(r->dicts[i]);
    free(r->dicts);
    free(r->dictcap);
    free(r->dec);
    free(r->dir);
    free(r->vals);
    for (size_t i = 0; i < r->ntstats; i++)
        free(r->cstats[i]);
    free(r->cstats);
    free(r->tstats);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->names);
    free(r->scan_dmg.v);
    free(r->read_dmg.v);
    free(r->stat_dmg.v);
    free(r);
}

int sat_trace_sniff(const void *buf, size_t len)
{
    return buf && len >= 8 && memcmp(buf, "SATSCOPE", 8) == 0;
}

/* ---- reading rows ------------------------------------------------------------ */
static void store_field(char *row, const sat_column_def *cd, int64_t v)
{
    char *f = row + cd->offset;
    switch (cd->type) {
    case SAT_COL_TS:
    case SAT_COL_I64: memcpy(f, &v, 8); break;
    case SAT_COL_I32: {
        int32_t x = (int32_t)(uint32_t)(uint64_t)v;
        memcpy(f, &x, 4);
        break;
    }
    case SAT_COL_U16: {
        uint16_t x = (uint16_t)v;
        memcpy(f, &x, 2);
        break;
    }
    case SAT_COL_U8: *(uint8_t *)f = (uint8_t)v; break;
    default: break;
    }
}

typedef union anyrow {
    sat_source s;
    sat_reject j;
    sat_ldap_op o;
    sat_ldap_conn c;
    sat_tcp_conn t;
    sat_tls_hs h;
    sat_crash k;
    sat_frame f;
} anyrow;

/* Emits the rows of block ix. *done gets the rows decoded before a failure,
 * *by_sink whether the failure is the sink's status. */
static int read_block(sat_trace_reader *r, size_t ix, const sat_trace_read_opts *o,
                      const unsigned char *proj, const sat_event_sink *sink,
                      uint32_t *done, int *by_sink, sat_diag *diag)
{
    const rblock *rb = &r->blocks[ix];
    size_t bi = (size_t)rb->no;
    uint64_t off = rb->off;
    const sat_table_def *def = sat_table_get(rb->table);
    bhdr h;
    SAT_FORWARD_IF_ERROR(load_block_dir(r, bi, off, &h, diag));
    if (h.table != rb->table || h.nrows != rb->nrows || h.total != rb->len)
        BLOCK_ERR(SAT_E_CORRUPT, "block header does not match the footer index");
    if (def->row_size > sizeof(anyrow)) /* a table added to schema.c but not here */
        BLOCK_ERR(SAT_E_UNSUPPORTED, "table %s: rows larger than the reader's row buffer",
                  def->name);
    r->blocks_decoded++;
    int window = def->ts_column && (o->from_ns || o->to_ns);
    int tsidx = def->ts_column ? sat_col_index(def, def->ts_column, strlen(def->ts_column)) : -1;
    int closeidx = rb->table == SAT_TABLE_LDAP_CONN ? sat_col_index(def, "close_ts", 8) : -1;
    int dir_ts = -1, dir_close = -1;
    for (uint16_t k = 0; k < h.ncols; k++)
        r->dec[k].loaded = 0;
    for (uint16_t k = 0; k < h.ncols; k++) {
        int s = r->dir[k].sidx;
        if (s < 0)
            continue;
        int want = proj[s];
        if (s == tsidx) {
            dir_ts = k;
            want |= window;
        }
        if (s == closeidx) {
            dir_close = k;
            want |= window;
        }
        if (want)
            SAT_FORWARD_IF_ERROR(setup_column(r, bi, off, &h, k, 0, diag));
    }
    uint16_t active[SAT_MAX_COLS];
    size_t nact = 0;
    for (uint16_t k = 0; k < h.ncols; k++)
        if (r->dec[k].loaded)
            active[nact++] = k;
    anyrow base, row;
    memset(&base, 0, sizeof base);
    for (size_t c = 0; c < def->ncolumns; c++)
        if (def->columns[c].type != SAT_COL_STR)
            store_field((char *)&base, &def->columns[c], sat_col_absent(rb->table, c));
    for (uint32_t i = 0; i < h.nrows; i++) {
        *done = i;
        memcpy(&row, &base, def->row_size);
        for (size_t a = 0; a < nact; a++) {
            uint16_t k = active[a];
            coldec *cd = &r->dec[k];
            int64_t v = idec_next(&cd->ints, r->vals);
            r->vals[k] = v;
            int s = r->dir[k].sidx;
            if (cd->ints.c.err)
                BLOCK_ERR(SAT_E_CORRUPT, "column %.*s: row %u: truncated or bad value",
                          (int)r->dir[k].namelen, (const char *)r->dir[k].name, i);
            if (r->dir[k].type == SAT_COL_STR) {
                if (v < 0 || (uint64_t)v > cd->ndict)
                    BLOCK_ERR(SAT_E_CORRUPT, "column %.*s: row %u: code %" PRId64
                              " outside the dictionary", (int)r->dir[k].namelen,
                              (const char *)r->dir[k].name, i, v);
                if (s >= 0 && proj[s]) {
                    sat_str str = v ? cd->dict[v - 1] : SAT_STR_NONE;
                    memcpy((char *)&row + def->columns[s].offset, &str, sizeof str);
                }
            } else if (s >= 0 && proj[s]) {
                store_field((char *)&row, &def->columns[s], v);
            }
        }
        if (window) {
            int64_t ts = dir_ts >= 0 ? r->vals[dir_ts] : 0;
            if (ts == 0 && dir_close >= 0)
                ts = r->vals[dir_close];
            if (ts == 0 || (o->from_ns && ts < o->from_ns) || (o->to_ns && ts >= o->to_ns))
                continue;
        }
        int rc = sat_sink_emit(sink, rb->table, &row);
        if (rc != SAT_OK) {
            *by_sink = 1;
            return rc;
        }
    }
    *done = h.nrows;
    return SAT_OK;
}

static void fmt_ts(char *b, size_t n, int64_t ts)
{
    int64_t sec = ts / 1000000000, ns = ts % 1000000000;
    if (ns < 0) {
        ns += 1000000000;
        sec--;
    }
    time_t t = (time_t)sec;
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(b, n, "%" PRId64 "ns", ts);
        return;
    }
    char frac[16] = "";
    if (ns) {
        snprintf(frac, sizeof frac, ".%09" PRId64, ns);
        for (size_t l = strlen(frac); l > 1 && frac[l - 1] == '0'; l--)
            frac[l - 1] = '\0';
    }
    snprintf(b, n, "%04d-%02d-%02dT%02d:%02d:%02d%sZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}

int sat_trace_damage_describe(const sat_trace_damage *d, char *buf, size_t n)
{
    const sat_table_def *def = d->table_id >= 0 ? sat_table_get(d->table_id) : NULL;
    char tname[32], rows[48], when[112] = "", a[48], b[48];
    if (def)
        snprintf(tname, sizeof tname, "%s", def->name);
    else if (d->table_id >= 0)
        snprintf(tname, sizeof tname, "table#%d", d->table_id);
    else
        snprintf(tname, sizeof tname, "unknown table");
    if (d->rows)
        snprintf(rows, sizeof rows, "%" PRIu64 " row%s", d->rows, d->rows == 1 ? "" : "s");
    else
        snprintf(rows, sizeof rows, "%" PRIu64 " bytes (rows unknown)", d->length);
    if (d->min_ts || d->max_ts) {
        fmt_ts(a, sizeof a, d->min_ts);
        fmt_ts(b, sizeof b, d->max_ts);
        snprintf(when, sizeof when, " from %s to %s", a, b);
    }
    return snprintf(buf, n, "%s, %s%s lost (%s)", tname, rows, when, d->reason);
}

size_t sat_trace_reader_damage(const sat_trace_reader *r, const sat_trace_damage **out)
{
    if (out)
        *out = r ? r->read_dmg.v : NULL;
    return r ? r->read_dmg.n : 0;
}

/* Does damage d concern a read of these tables and window? */
static int damage_wanted(const sat_trace_damage *d, const sat_trace_read_opts *o)
{
    if (d->table_id < 0)
        return 1; /* it may have held anything */
    const sat_table_def *def = sat_table_get(d->table_id);
    if (!def || (o->tables && !(o->tables & (1u << d->table_id))))
        return 0;
    if (def->ts_column && (o->from_ns || o->to_ns) && (d->min_ts || d->max_ts) &&
        ((o->from_ns && d->max_ts < o->from_ns) || (o->to_ns && d->min_ts >= o->to_ns)))
        return 0;
    return 1;
}

int sat_trace_read(sat_trace_reader *r, const sat_trace_read_opts *opts,
                   const sat_event_sink *sink, sat_diag *diag)
{
    if (!r || !sink)
        return sat_diag_set(diag, SAT_E_USAGE, "", "no reader or sink");
    sat_trace_read_opts none;
    memset(&none, 0, sizeof none);
    const sat_trace_read_opts *o = opts ? opts : &none;
    unsigned char proj[SAT_TABLE__COUNT][SAT_MAX_COLS / 8 * 8];
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        const sat_table_def *def = sat_table_get(t);
        const char *const *cols = o->columns[t];
        memset(proj[t], cols ? 0 : 1, def->ncolumns);
        for (size_t i = 0; cols && cols[i]; i++) {
            int c = sat_col_index(def, cols[i], strlen(cols[i]));
            if (c < 0)
                return sat_diag_set(diag, SAT_E_USAGE, def->name,
                                    "no column \"%s\" in table %s", cols[i], def->name);
            proj[t][c] = 1;
        }
    }
    r->read_dmg.n = 0;
    for (size_t i = 0; i < r->scan_dmg.n; i++)
        if (damage_wanted(&r->scan_dmg.v[i], o) &&
            dlist_add(&r->read_dmg, &r->scan_dmg.v[i]) != SAT_OK)
            return sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
    for (size_t bi = 0; bi < r->nblocks; bi++) {
        const rblock *b = &r->blocks[bi];
        const sat_table_def *def = sat_table_get(b->table);
        if (!def) /* a table of a newer minor version: skipped (FORMAT.md) */
            continue;
        if (o->tables && !(o->tables & (1u << b->table)))
            continue;
        if (def->ts_column && (o->from_ns || o->to_ns) &&
            (b->min_ts || b->max_ts)) {
            if ((o->from_ns && b->max_ts < o->from_ns) ||
                (o->to_ns && b->min_ts >= o->to_ns))
                continue;
        }
        uint32_t done = 0;
        int by_sink = 0;
        sat_diag bd = {0};
        int rc = read_block(r, bi, o, proj[b->table], sink, &done, &by_sink, &bd);
        if (rc == SAT_OK)
            continue;
        if (by_sink) /* the sink's own status: passed back as it is */
            return rc;
        if (rc == SAT_E_NOMEM) {
            if (diag)
                *diag = bd;
            return rc;
        }
        /* A damaged block: its rows are lost, the others are still read. */
        sat_trace_damage dm;
        memset(&dm, 0, sizeof dm);
        dm.block = b->no;
        dm.table_id = b->table;
        dm.offset = b->off;
        dm.length = b->len;
        dm.rows = b->nrows - done;
        dm.min_ts = b->min_ts;
        dm.max_ts = b->max_ts;
        if (done) /* decoding failed part-way: the rows before were given */
            snprintf(dm.reason, sizeof dm.reason, "%.200s; its first %u rows were read",
                     bd.msg, done);
        else
            snprintf(dm.reason, sizeof dm.reason, "%.200s", bd.msg);
        if (dlist_add(&r->read_dmg, &dm) != SAT_OK)
            return sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
    }
    if (r->read_dmg.n == 0)
        return SAT_OK;
    qsort(r->read_dmg.v, r->read_dmg.n, sizeof *r->read_dmg.v, cmp_damage);
    const sat_trace_damage *first = &r->read_dmg.v[0];
    char where[512], what[400];
    where_block(where, sizeof where, r, (size_t)first->block, first->offset);
    sat_trace_damage_describe(first, what, sizeof what);
    return sat_diag_set(diag, SAT_E_CORRUPT, where, "%s%s", what,
                        r->read_dmg.n > 1 ? " (and more damaged blocks)" : "");
}

uint64_t sat_trace_reader_blocks_decoded(const sat_trace_reader *r)
{
    return r ? r->blocks_decoded : 0;
}

/* ---- stat ---------------------------------------------------------------------- */
static char *own_name(sat_trace_reader *r, const char *s, size_t n)
{
    char **nn = (char **)realloc(r->names, (r->nnames + 1) * sizeof *nn);
    if (!nn)
        return NULL;
    r->names = nn;
    char *c = (char *)malloc(n + 1);
    if (!c)
        return NULL;
    memcpy(c, s, n);
    c[n] = 0;
    r->names[r->nnames++] = c;
    return c;
}

int sat_trace_reader_stat(sat_trace_reader *r, sat_trace_stat *out, sat_diag *diag)
{
    if (!r || !out)
        return sat_diag_set(diag, SAT_E_USAGE, "", "no reader");
    for (size_t i = 0; i < r->ntstats; i++)
        free(r->cstats[i]);
    free(r->cstats);
    free(r->tstats);
    r->cstats = NULL;
    r->tstats = NULL;
    r->ntstats = 0;
    /* One entry per known table (even when empty), then unknown tables. */
    size_t cap = SAT_TABLE__COUNT + 8;
    r->tstats = (sat_table_stat *)calloc(cap, sizeof *r->tstats);
    r->cstats = (sat_column_stat **)calloc(cap, sizeof *r->cstats);
    size_t *ccap = (size_t *)calloc(cap, sizeof *ccap);
    if (!r->tstats || !r->cstats || !ccap) {
        free(ccap);
        return sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
    }
    int rc = SAT_OK;
    r->stat_dmg.n = 0;
    for (size_t i = 0; i < r->scan_dmg.n; i++)
        if (dlist_add(&r->stat_dmg, &r->scan_dmg.v[i]) != SAT_OK) {
            free(ccap);
            return sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
        }
    for (int t = 0; t < SAT_TABLE__COUNT; t++) {
        const sat_table_def *def = sat_table_get(t);
        sat_table_stat *ts = &r->tstats[r->ntstats];
        ts->name = def->name;
        ts->table_id = t;
        r->cstats[r->ntstats] = (sat_column_stat *)calloc(def->ncolumns + 8,
                                                          sizeof(sat_column_stat));
        if (!r->cstats[r->ntstats]) {
            rc = sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
            goto done;
        }
        ccap[r->ntstats] = def->ncolumns + 8;
        for (size_t c = 0; c < def->ncolumns; c++) {
            r->cstats[r->ntstats][c].name = def->columns[c].name;
            r->cstats[r->ntstats][c].type = def->columns[c].type;
        }
        ts->ncolumns = def->ncolumns;
        r->ntstats++;
    }
    for (size_t bi = 0; bi < r->nblocks; bi++) {
        const rblock *b = &r->blocks[bi];
        size_t ti;
        for (ti = 0; ti < r->ntstats; ti++)
            if (r->tstats[ti].table_id == b->table)
                break;
        if (ti == r->ntstats) {
            if (ti == cap) {
                rc = sat_diag_set(diag, SAT_E_LIMIT, "", "too many unknown tables");
                goto done;
            }
            char nm[32];
            int nl = snprintf(nm, sizeof nm, "table#%u", b->table);
            r->tstats[ti].name = own_name(r, nm, (size_t)nl);
            r->tstats[ti].table_id = b->table;
            r->cstats[ti] = (sat_column_stat *)calloc(8, sizeof(sat_column_stat));
            ccap[ti] = 8;
            if (!r->tstats[ti].name || !r->cstats[ti]) {
                rc = sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
                goto done;
            }
            r->ntstats++;
        }
        sat_table_stat *ts = &r->tstats[ti];
        bhdr h;
        sat_diag bd = {0};
        if (load_block_dir(r, (size_t)b->no, b->off, &h, &bd) != SAT_OK ||
            check_block_data(r, (size_t)b->no, b->off, &h, &bd) != SAT_OK ||
            h.table != b->table || h.nrows != b->nrows || h.total != b->len) {
            if (bd.code == SAT_E_NOMEM) {
                rc = sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
                goto done;
            }
            sat_trace_damage dm;
            memset(&dm, 0, sizeof dm);
            dm.block = b->no;
            dm.table_id = b->table;
            dm.offset = b->off;
            dm.length = b->len;
            dm.rows = b->nrows;
            dm.min_ts = b->min_ts;
            dm.max_ts = b->max_ts;
            snprintf(dm.reason, sizeof dm.reason, "%.200s",
                     bd.code ? bd.msg : "block header does not match the footer index");
            if (dlist_add(&r->stat_dmg, &dm) != SAT_OK) {
                rc = sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
                goto done;
            }
            continue;
        }
        ts->rows += b->nrows;
        ts->blocks++;
        ts->compressed_bytes += b->len;
        if (b->min_ts || b->max_ts) {
            if ((ts->min_ts == 0 && ts->max_ts == 0) || b->min_ts < ts->min_ts)
                ts->min_ts = b->min_ts;
            if (b->max_ts > ts->max_ts)
                ts->max_ts = b->max_ts;
        }
        sat_column_stat *cs = r->cstats[ti];
        for (uint16_t k = 0; k < h.ncols; k++) {
            const dcol *d = &r->dir[k];
            size_t c;
            for (c = 0; c < ts->ncolumns; c++)
                if (strlen(cs[c].name) == d->namelen &&
                    memcmp(cs[c].name, d->name, d->namelen) == 0)
                    break;
            if (c == ts->ncolumns) {
                if (c == ccap[ti]) {
                    sat_column_stat *ncs = (sat_column_stat *)realloc(
                        cs, 2 * ccap[ti] * sizeof *ncs);
                    if (!ncs) {
                        rc = sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
                        goto done;
                    }
                    cs = r->cstats[ti] = ncs;
                    ccap[ti] *= 2;
                }
                memset(&cs[c], 0, sizeof cs[c]);
                cs[c].name = own_name(r, (const char *)d->name, d->namelen);
                if (!cs[c].name) {
                    rc = sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
                    goto done;
                }
                cs[c].type = d->type;
                ts->ncolumns++;
            }
            cs[c].encoded_bytes += d->elen;
            cs[c].compressed_bytes += d->slen;
        }
    }
done:
    for (size_t i = 0; i < r->ntstats; i++)
        r->tstats[i].columns = r->cstats[i];
    free(ccap);
    out->format_version = ((uint32_t)r->major << 16) | r->minor;
    out->file_bytes = r->size;
    out->complete = r->complete;
    out->ntables = r->ntstats;
    out->tables = r->tstats;
    if (r->stat_dmg.n > 1)
        qsort(r->stat_dmg.v, r->stat_dmg.n, sizeof *r->stat_dmg.v, cmp_damage);
    out->ndamaged = r->stat_dmg.n;
    out->damaged = r->stat_dmg.v;
    return rc;
}

/* ---- verify -------------------------------------------------------------------- */
typedef void (*sat_report_fn)(void *ctx, const char *where, const char *msg);

static int verify_reader(sat_trace_reader *r, sat_report_fn report, void *ctx,
                         sat_diag *diag)
{
    int problems = 0;
    sat_diag d = {0};
    const char *where = r->path ? r->path : "<memory>";
#define REPORT(dd)                                                           \
    do {                                                                     \
        problems++;                                                          \
        if (report)                                                          \
            report(ctx, (dd).where, (dd).msg);                               \
        if (diag && !diag->code)                                             \
            *diag = (dd);                                                    \
    } while (0)
    if (check_header(r, &d) != SAT_OK) {
        REPORT(d);
        return d.code;
    }
    uint64_t foff = 0;
    int complete = read_footer(r, &d, &foff) == SAT_OK;
    if (!complete) {
        char why[sizeof d.msg];
        snprintf(why, sizeof why, "%s", d.msg); /* d.msg is rewritten below */
        sat_diag_set(&d, d.code, where, "%s: the trace is not complete "
                     "(footer missing or invalid)", why);
        REPORT(d);
        uint64_t stop = 0;
        sat_diag sd = {0};
        if (scan_blocks(r, &stop, &sd) != SAT_OK)
            return sat_diag_set(diag, SAT_E_NOMEM, where, "out of memory");
        for (size_t i = 0; i < r->scan_dmg.n; i++) {
            const sat_trace_damage *dm = &r->scan_dmg.v[i];
            char w[512], what[512];
            where_block(w, sizeof w, r, (size_t)dm->block, dm->offset);
            sat_trace_damage_describe(dm, what, sizeof what);
            memset(&d, 0, sizeof d);
            sat_diag_set(&d, SAT_E_CORRUPT, w, "%s", what);
            REPORT(d);
        }
        if (stop < r->size && sd.code)
            REPORT(sd);
    } else {
        uint64_t expect = SAT_FILE_HDR_LEN;
        for (size_t bi = 0; bi < r->nblocks; bi++) {
            const rblock *b = &r->blocks[bi];
            uint64_t off = b->off;
            bhdr h;
            memset(&d, 0, sizeof d);
            if (off != expect) {
                char w[512];
                where_block(w, sizeof w, r, bi, off);
                sat_diag_set(&d, SAT_E_CORRUPT, w, "gap or overlap before the block "
                             "(previous block ends at %" PRIu64 ")", expect);
                REPORT(d);
            }
            expect = off + b->len;
            if (load_block_dir(r, bi, off, &h, &d) != SAT_OK ||
                check_block_data(r, bi, off, &h, &d) != SAT_OK) {
                sat_trace_damage dm;
                memset(&dm, 0, sizeof dm);
                dm.table_id = b->table;
                dm.length = b->len;
                dm.rows = b->nrows;
                dm.min_ts = b->min_ts;
                dm.max_ts = b->max_ts;
                snprintf(dm.reason, sizeof dm.reason, "%.200s", d.msg);
                char what[512];
                sat_trace_damage_describe(&dm, what, sizeof what);
                snprintf(d.msg, sizeof d.msg, "%s", what);
                REPORT(d);
                continue;
            }
            if (h.table != b->table || h.nrows != b->nrows || h.total != b->len ||
                h.min_ts != b->min_ts || h.max_ts != b->max_ts) {
                char w[512];
                where_block(w, sizeof w, r, bi, off);
                sat_diag_set(&d, SAT_E_CORRUPT, w,
                             "block header does not match the footer index");
                REPORT(d);
            }
        }
        if (expect != foff) {
            sat_diag_set(&d, SAT_E_CORRUPT, where, "%" PRIu64 " bytes between the "
                         "last block and the footer", foff - expect);
            REPORT(d);
        }
    }
    if (problems == 0)
        return SAT_OK;
    return complete || problems > 1 ? SAT_E_CORRUPT : SAT_E_TRUNCATED;
#undef REPORT
}

int sat_trace_verify(const char *path,
                     void (*report)(void *ctx, const char *where, const char *msg),
                     void *ctx, sat_diag *diag)
{
    if (!path)
        return sat_diag_set(diag, SAT_E_USAGE, "", "no path");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sat_diag_set(diag, SAT_E_IO, path, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return sat_diag_set(diag, SAT_E_IO, path, "not a regular file");
    }
    sat_trace_reader *r = reader_new(path, fd, NULL, (uint64_t)st.st_size);
    if (!r) {
        close(fd);
        return sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
    }
    int rc = verify_reader(r, report, ctx, diag);
    sat_trace_reader_close(r);
    return rc;
}

int sat_trace_verify_mem(const void *buf, size_t len,
                         void (*report)(void *ctx, const char *where, const char *msg),
                         void *ctx, sat_diag *diag)
{
    sat_trace_reader *r = reader_new(NULL, -1, buf ? buf : "", len);
    if (!r)
        return sat_diag_set(diag, SAT_E_NOMEM, "<memory>", "out of memory");
    int rc = verify_reader(r, report, ctx, diag);
    sat_trace_reader_close(r);
    return rc;
}
