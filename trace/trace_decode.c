/*
 * trace_decode.c - decoding the columns of one .sat block into rows
 * (trace/FORMAT.md "Block", "Encoded integer stream", "Encoded string column").
 *
 * Columns are decoded as streams, row by row, so reading a block needs only
 * the decompressed bytes of the columns asked for (plus the time column when
 * a window is given and the column a REF-encoded column refers to). The
 * decoded bytes are untrusted like the file: read through sat_cursor, every
 * count checked against what is left before use.
 */
#include <zstd.h>

#include "trace_internal.h"

/* Checks the stored bytes of column k and decompresses them into colbuf[k]. */
static int load_column(sat_trace_reader *r, size_t bi, uint64_t off, size_t k,
                       const uint8_t **out, sat_diag *diag)
{
    dcol *d = &r->dir[k];
    const uint8_t *s = sat_trace_src_get(r, d->doff, d->slen, &r->stored);
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
int sat_trace_read_block(sat_trace_reader *r, size_t ix, const sat_trace_read_opts *o,
                         const unsigned char *proj, const sat_event_sink *sink,
                         uint32_t *done, int *by_sink, sat_diag *diag)
{
    const rblock *rb = &r->blocks[ix];
    size_t bi = (size_t)rb->no;
    uint64_t off = rb->off;
    const sat_table_def *def = sat_table_get(rb->table);
    bhdr h;
    SAT_FORWARD_IF_ERROR(sat_trace_load_block_dir(r, bi, off, &h, diag));
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
