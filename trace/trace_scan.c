/*
 * trace_scan.c - finding and validating the blocks of a .sat trace, and
 * recovering from damaged ones (trace/FORMAT.md "File header", "Block",
 * "Footer and trailer", "Damaged blocks").
 *
 * Checks the file header, the trailer and footer index, and each block's
 * header, directory and column checksums. Without a valid footer the blocks
 * are found by walking them from the file header: a block whose header holds
 * but whose data does not is stepped over by its length, bytes that are not a
 * valid block by scanning forward for the next valid block header, and what
 * was lost is recorded as damage. Every byte is untrusted: read through
 * sat_cursor, every length checked against the file size and the caps of
 * FORMAT.md before anything is allocated.
 */
#include <errno.h>
#include <unistd.h>

#include "trace_internal.h"

/* ---- byte source ---------------------------------------------------------- */
/* Bytes [off, off+len) of the file, or NULL if they are not all there. */
const uint8_t *sat_trace_src_get(sat_trace_reader *r, uint64_t off, uint64_t len,
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

/* Reads and checks the header and directory of the block at off; fills
 * r->dir[0..ncols). Column data is not read. */
int sat_trace_load_block_dir(sat_trace_reader *r, size_t bi, uint64_t off,
                             bhdr *h, sat_diag *diag)
{
    const uint8_t *p = sat_trace_src_get(r, off, SAT_BLOCK_HDR_LEN, &r->hdr);
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
    p = sat_trace_src_get(r, off, (uint64_t)SAT_BLOCK_HDR_LEN + h->dir_len + 4, &r->hdr);
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

/* ---- indexing ---------------------------------------------------------------- */
static int add_block(sat_trace_reader *r, size_t *cap, const rblock *b)
{
    if (SAT_GROW(r->blocks, *cap, r->nblocks + 1) != SAT_OK)
        return SAT_E_NOMEM;
    r->blocks[r->nblocks++] = *b;
    return SAT_OK;
}

/* Whether a file whose header is damaged is a trace all the same: a block
 * whose header checksum holds right after the file header, or a trailer
 * whose checksum holds at the end. */
static int trace_despite_header(sat_trace_reader *r)
{
    bhdr h;
    sat_diag d = {0};
    if (sat_trace_load_block_dir(r, 0, SAT_FILE_HDR_LEN, &h, &d) == SAT_OK)
        return 1;
    if (r->size < SAT_FILE_HDR_LEN + SAT_TRAILER_LEN)
        return 0;
    const uint8_t *p = sat_trace_src_get(r, r->size - SAT_TRAILER_LEN, SAT_TRAILER_LEN, &r->hdr);
    if (!p)
        return 0;
    sat_cursor c = sat_cursor_make(p, SAT_TRAILER_LEN);
    sat_cursor_skip(&c, 16);
    uint32_t crc = sat_cursor_le32(&c);
    const uint8_t *magic = sat_cursor_bytes(&c, 4);
    return !c.err && memcmp(magic, "SATE", 4) == 0 && sat_trace_crc32(p, 16) == crc;
}

int sat_trace_check_header(sat_trace_reader *r, sat_diag *diag)
{
    const char *where = r->path ? r->path : "<memory>";
    const uint8_t *p = sat_trace_src_get(r, 0, SAT_FILE_HDR_LEN, &r->hdr);
    if (!p)
        return sat_diag_set(diag, r->size < SAT_FILE_HDR_LEN ? SAT_E_FORMAT : SAT_E_IO,
                            where, "not a satscope trace (file shorter than its header)");
    sat_cursor c = sat_cursor_make(p, SAT_FILE_HDR_LEN);
    const uint8_t *magic = sat_cursor_bytes(&c, 8);
    r->major = sat_cursor_le16(&c);
    r->minor = sat_cursor_le16(&c);
    r->flags = sat_cursor_le32(&c);
    uint32_t crc = sat_cursor_le32(&c);
    int magic_ok = memcmp(magic, "SATSCOPE", 8) == 0;
    r->hdr_damaged = 0;
    if (!magic_ok || sat_trace_crc32(p, 16) != crc) {
        /* one flipped byte of 20 must not cost every block that checksums
         * on its own: the header is taken as this version's and the blocks
         * are found as in a partial trace (FORMAT.md "File header") */
        if (!trace_despite_header(r))
            return magic_ok ? sat_diag_set(diag, SAT_E_CORRUPT, where,
                                           "file header checksum mismatch")
                            : sat_diag_set(diag, SAT_E_FORMAT, where,
                                           "not a satscope trace (no SATSCOPE magic)");
        r->hdr_damaged = 1;
        snprintf(r->hdr_why, sizeof r->hdr_why, "%s",
                 magic_ok ? "checksum mismatch" : "no SATSCOPE magic");
        r->major = SAT_FMT_MAJOR;
        r->minor = SAT_FMT_MINOR;
        return SAT_OK;
    }
    if (r->major > SAT_FMT_MAJOR || r->major == 0)
        return sat_diag_set(diag, SAT_E_UNSUPPORTED, where,
                            "trace format %u.%u is newer than this satscope reads "
                            "(%d.x): upgrade satscope", r->major, r->minor,
                            SAT_FMT_MAJOR);
    return SAT_OK;
}

/* Reads trailer + footer. Returns SAT_OK and fills r->blocks, or an error
 * (with a reason in diag) when they are missing or invalid. */
int sat_trace_read_footer(sat_trace_reader *r, sat_diag *diag, uint64_t *footer_off)
{
    const char *where = r->path ? r->path : "<memory>";
    if (r->size < SAT_FILE_HDR_LEN + SAT_TRAILER_LEN + 12)
        return sat_diag_set(diag, SAT_E_TRUNCATED, where, "no trailer");
    const uint8_t *p = sat_trace_src_get(r, r->size - SAT_TRAILER_LEN, SAT_TRAILER_LEN, &r->hdr);
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
    p = sat_trace_src_get(r, foff, flen, &r->hdr);
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
int sat_trace_check_block_data(sat_trace_reader *r, size_t bi, uint64_t off,
                               const bhdr *h, sat_diag *diag)
{
    for (uint16_t k = 0; k < h->ncols; k++) {
        dcol *d = &r->dir[k];
        const uint8_t *s = sat_trace_src_get(r, d->doff, d->slen, &r->stored);
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
        const uint8_t *p = sat_trace_src_get(r, pos, n, &buf);
        if (!p)
            break;
        for (uint64_t i = 0; i + 4 <= n && !found; i++) {
            if (p[i] != 'S' || memcmp(p + i, "SATB", 4) != 0)
                continue;
            bhdr h;
            sat_diag d = {0};
            /* sat_trace_load_block_dir reads through r->hdr: p (in buf) stays valid */
            if (sat_trace_load_block_dir(r, (size_t)no, pos + i, &h, &d) == SAT_OK)
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
int sat_trace_scan_blocks(sat_trace_reader *r, uint64_t *stop, sat_diag *stopdiag)
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
        if (sat_trace_load_block_dir(r, (size_t)no, off, &h, &bd) == SAT_OK) {
            if (sat_trace_check_block_data(r, (size_t)no, off, &h, &bd) == SAT_OK) {
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
