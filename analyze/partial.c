/*
 * partial.c - the .satp file (include/satscope/partial.h gives its layout):
 * server-days of the digest's analyzer state, each a checksummed block,
 * indexed by their meta and loaded one at a time.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include "satscope/analyze.h"
#include "satscope/partial.h"
#include "state_io.h"

#define HEADER_LEN SAT_PARTIAL_HEADER_LEN
#define BLOCK_HDR_LEN 32
#define TRAILER_LEN SAT_PARTIAL_TRAILER_LEN
#define META_MAX 65536                     /* a name, a date and a few numbers */
#define STATE_MAX ((uint64_t)16 << 30)     /* one server-day's analyzers: far below this */
#define ZSTD_LEVEL 3

static uint32_t crc(const void *p, size_t n, uint32_t init)
{
    return (uint32_t)crc32(init, (const Bytef *)p, (uInt)n);
}

static void le(unsigned char *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t rd(const unsigned char *b, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static int put(FILE *f, const void *p, size_t n, sat_diag *d)
{
    if (n && fwrite(p, 1, n, f) != n)
        return sat_diag_set(d, SAT_E_IO, "", "write failed");
    return SAT_OK;
}

/* ---- writing ------------------------------------------------------------------- */

int sat_partial_write_header(FILE *f, sat_diag *d)
{
    unsigned char h[HEADER_LEN] = "SATPARTL";
    le(h + 8, SAT_PARTIAL_MAJOR, 2);
    le(h + 10, SAT_PARTIAL_MINOR, 2);
    le(h + 12, 0, 4);
    le(h + 16, crc(h, 16, 0), 4);
    return put(f, h, sizeof h, d);
}

static void put_meta(sat_sw *w, const sat_partial_day *m)
{
    sat_sw_tag(w, "day");
    sat_sw_str(w, m->server);
    sat_sw_u8(w, (uint8_t)(m->named != 0));
    sat_sw_str(w, m->date);
    sat_sw_i64(w, m->day);
    sat_sw_i64(w, m->start_ts);
    sat_sw_u32(w, (uint32_t)m->utc_offset_s);
    sat_sw_u64(w, m->rows);
}

int sat_partial_write_day(FILE *f, const sat_partial_day *meta, const sat_multi *set,
                          uint64_t *bytes, sat_diag *d)
{
    sat_sw mw, sw;
    memset(&mw, 0, sizeof mw);
    memset(&sw, 0, sizeof sw);
    void *z = NULL;
    put_meta(&mw, meta);
    int rc = sat_multi_save(set, &sw);
    if (rc == SAT_E_UNSUPPORTED) {
        rc = sat_diag_set(d, rc, "", "an analyzer of the digest cannot be kept in a partial");
        goto out;
    }
    if (rc < 0 || mw.nomem || sw.nomem) {
        rc = sat_diag_set(d, SAT_E_NOMEM, "", "out of memory");
        goto out;
    }
    size_t bound = ZSTD_compressBound(sw.n);
    if (!(z = malloc(bound ? bound : 1))) {
        rc = sat_diag_set(d, SAT_E_NOMEM, "", "out of memory");
        goto out;
    }
    size_t zn = ZSTD_compress(z, bound, sw.p, sw.n, ZSTD_LEVEL);
    if (ZSTD_isError(zn)) {
        rc = sat_diag_set(d, SAT_E_NOMEM, "", "zstd: %s", ZSTD_getErrorName(zn));
        goto out;
    }
    unsigned char h[BLOCK_HDR_LEN] = "SATD";
    le(h + 4, mw.n, 4);
    le(h + 8, sw.n, 8);
    le(h + 16, zn, 8);
    le(h + 24, crc(z, zn, crc(mw.p, mw.n, 0)), 4);
    le(h + 28, crc(h, 28, 0), 4);
    if ((rc = put(f, h, sizeof h, d)) == SAT_OK && (rc = put(f, mw.p, mw.n, d)) == SAT_OK)
        rc = put(f, z, zn, d);
    if (bytes)
        *bytes = sizeof h + mw.n + zn;
out:
    sat_sw_free(&mw);
    sat_sw_free(&sw);
    free(z);
    return rc;
}

int sat_partial_write_end(FILE *f, uint64_t ndays, sat_diag *d)
{
    unsigned char t[TRAILER_LEN] = "SATE";
    le(t + 4, ndays, 8);
    le(t + 12, crc(t, 12, 0), 4);
    return put(f, t, sizeof t, d);
}

/* ---- reading ------------------------------------------------------------------- */

typedef struct day_ent {
    sat_partial_day m;
    char *server;       /* m.server points here */
    uint64_t off;       /* of the block's meta */
    uint32_t meta_len;
    uint64_t state_len, stored_len;
    uint32_t sum;       /* CRC-32 of meta and stored */
} day_ent;

struct sat_partial_file {
    FILE *f;
    uint64_t size; /* of the file, when opened */
    char *path;
    day_ent *days;
    size_t n, cap;
};

int sat_partial_sniff(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char m[8];
    int is = fread(m, 1, 8, f) == 8 && !memcmp(m, "SATPARTL", 8);
    fclose(f);
    return is;
}

static int get_meta(sat_sr *r, day_ent *e)
{
    if (sat_sr_tag(r, "day") != SAT_OK)
        return r->err;
    e->server = sat_sr_str(r);
    e->m.named = sat_sr_u8(r) != 0;
    char *date = sat_sr_str(r);
    e->m.day = sat_sr_i64(r);
    e->m.start_ts = sat_sr_i64(r);
    e->m.utc_offset_s = (int32_t)sat_sr_u32(r);
    e->m.rows = sat_sr_u64(r);
    if (sat_sr_ok(r) && (!e->server || !date || strlen(date) >= sizeof e->m.date))
        sat_sr_fail(r, SAT_E_CORRUPT, "a day without a server name or date");
    if (sat_sr_ok(r) && sat_cursor_left(&r->c))
        sat_sr_fail(r, SAT_E_CORRUPT, "%zu bytes after the day's meta", sat_cursor_left(&r->c));
    if (date && strlen(date) < sizeof e->m.date)
        memcpy(e->m.date, date, strlen(date) + 1);
    free(date);
    e->m.server = e->server;
    return sat_sr_status(r);
}

/* Index the blocks; damage said through warn. */
static void index_blocks(sat_partial_file *p,
                         void (*warn)(void *ctx, const char *where, const char *msg), void *ctx)
{
    char where[600], msg[300];
    uint64_t off = HEADER_LEN;
    unsigned char h[BLOCK_HDR_LEN];
    int ended = 0;
    for (;;) {
        size_t got = fread(h, 1, 4, p->f);
        if (got == 4 && !memcmp(h, "SATE", 4)) {
            unsigned char t[TRAILER_LEN];
            memcpy(t, h, 4);
            if (fread(t + 4, 1, TRAILER_LEN - 4, p->f) == TRAILER_LEN - 4 &&
                rd(t + 12, 4) == crc(t, 12, 0)) {
                ended = 1;
                if (rd(t + 4, 8) != p->n && warn) {
                    snprintf(where, sizeof where, "%s", p->path);
                    snprintf(msg, sizeof msg, "the trailer counts %llu days, %zu were read",
                             (unsigned long long)rd(t + 4, 8), p->n);
                    warn(ctx, where, msg);
                }
            }
            break;
        }
        if (got != 4 || fread(h + 4, 1, BLOCK_HDR_LEN - 4, p->f) != BLOCK_HDR_LEN - 4)
            break;
        snprintf(where, sizeof where, "%s: the day at byte %llu", p->path,
                 (unsigned long long)off);
        if (memcmp(h, "SATD", 4) || rd(h + 28, 4) != crc(h, 28, 0)) {
            if (warn)
                warn(ctx, where, "damaged (no block header there): the days after it are lost");
            ended = 1; /* said: not again as a file cut short */
            break;
        }
        uint32_t meta_len = (uint32_t)rd(h + 4, 4);
        uint64_t state_len = rd(h + 8, 8), stored_len = rd(h + 16, 8);
        if (meta_len > META_MAX || state_len > STATE_MAX || stored_len > STATE_MAX) {
            if (warn)
                warn(ctx, where, "damaged (sizes out of range): the days after it are lost");
            ended = 1;
            break;
        }
        if (p->size < off + BLOCK_HDR_LEN + meta_len + stored_len) {
            if (warn)
                warn(ctx, where, "cut short (the file ends inside it): left out");
            ended = 1;
            break;
        }
        unsigned char *meta = malloc(meta_len ? meta_len : 1);
        if (!meta || fread(meta, 1, meta_len, p->f) != meta_len) {
            free(meta);
            break;
        }
        day_ent e;
        memset(&e, 0, sizeof e);
        e.off = off + BLOCK_HDR_LEN;
        e.meta_len = meta_len;
        e.state_len = state_len;
        e.stored_len = stored_len;
        e.sum = (uint32_t)rd(h + 24, 4);
        sat_sr r;
        sat_sr_init(&r, meta, meta_len);
        if (get_meta(&r, &e) != SAT_OK) {
            snprintf(msg, sizeof msg, "damaged meta (%s): skipped", r.msg);
            if (warn)
                warn(ctx, where, msg);
            free(e.server);
        } else if (SAT_GROW(p->days, p->cap, p->n + 1) != SAT_OK) {
            free(e.server);
        } else {
            p->days[p->n++] = e;
        }
        free(meta);
        off += BLOCK_HDR_LEN + meta_len + stored_len;
        if (fseeko(p->f, (off_t)off, SEEK_SET) != 0)
            break;
    }
    if (!ended && warn) {
        snprintf(where, sizeof where, "%s", p->path);
        snprintf(msg, sizeof msg, "ends early (no trailer): %zu %s before the cut read", p->n,
                 p->n == 1 ? "day" : "days");
        warn(ctx, where, msg);
    }
}

sat_partial_file *sat_partial_open(const char *path,
                                   void (*warn)(void *ctx, const char *where, const char *msg),
                                   void *ctx, sat_diag *d)
{
    sat_partial_file *p = calloc(1, sizeof *p);
    if (!p || !(p->path = strdup(path))) {
        free(p);
        sat_diag_set(d, SAT_E_NOMEM, path, "out of memory");
        return NULL;
    }
    if (!(p->f = fopen(path, "rb"))) {
        sat_diag_set(d, SAT_E_IO, path, "cannot open: %s", strerror(errno));
        sat_partial_close(p);
        return NULL;
    }
    struct stat st;
    p->size = fstat(fileno(p->f), &st) == 0 ? (uint64_t)st.st_size : UINT64_MAX;
    unsigned char h[HEADER_LEN];
    if (fread(h, 1, sizeof h, p->f) != sizeof h || memcmp(h, "SATPARTL", 8)) {
        sat_diag_set(d, SAT_E_CORRUPT, path, "not a satscope partial (.satp)");
        sat_partial_close(p);
        return NULL;
    }
    if (rd(h + 16, 4) != crc(h, 16, 0)) {
        sat_diag_set(d, SAT_E_CORRUPT, path, "the partial's header is damaged (checksum)");
        sat_partial_close(p);
        return NULL;
    }
    if (rd(h + 8, 2) != SAT_PARTIAL_MAJOR) {
        sat_diag_set(d, SAT_E_UNSUPPORTED, path,
                     "a partial of format %u.%u: this satscope reads %u.x",
                     (unsigned)rd(h + 8, 2), (unsigned)rd(h + 10, 2), SAT_PARTIAL_MAJOR);
        sat_partial_close(p);
        return NULL;
    }
    index_blocks(p, warn, ctx);
    return p;
}

void sat_partial_close(sat_partial_file *p)
{
    if (!p)
        return;
    if (p->f)
        fclose(p->f);
    for (size_t i = 0; i < p->n; i++)
        free(p->days[i].server);
    free(p->days);
    free(p->path);
    free(p);
}

size_t sat_partial_ndays(const sat_partial_file *p) { return p ? p->n : 0; }

const sat_partial_day *sat_partial_day_at(const sat_partial_file *p, size_t i)
{
    return p && i < p->n ? &p->days[i].m : NULL;
}

int sat_partial_load(sat_partial_file *p, size_t i, sat_multi *set, sat_diag *d)
{
    if (!p || i >= p->n)
        return SAT_E_USAGE;
    const day_ent *e = &p->days[i];
    char where[600];
    snprintf(where, sizeof where, "%s: %s, %s", p->path, e->m.server, e->m.date);
    unsigned char *buf = malloc(e->meta_len + e->stored_len + 1);
    void *raw = malloc(e->state_len ? e->state_len : 1);
    int rc = SAT_OK;
    if (!buf || !raw) {
        rc = sat_diag_set(d, SAT_E_NOMEM, where, "out of memory (%llu bytes of state)",
                          (unsigned long long)e->state_len);
        goto out;
    }
    if (fseeko(p->f, (off_t)e->off, SEEK_SET) != 0 ||
        fread(buf, 1, e->meta_len + e->stored_len, p->f) != e->meta_len + e->stored_len) {
        rc = sat_diag_set(d, SAT_E_IO, where, "cannot read its state: the file ends early");
        goto out;
    }
    if (crc(buf + e->meta_len, e->stored_len, crc(buf, e->meta_len, 0)) != e->sum) {
        rc = sat_diag_set(d, SAT_E_CORRUPT, where, "damaged (checksum mismatch): left out");
        goto out;
    }
    size_t n = ZSTD_decompress(raw, e->state_len, buf + e->meta_len, e->stored_len);
    if (ZSTD_isError(n) || n != e->state_len) {
        rc = sat_diag_set(d, SAT_E_CORRUPT, where, "damaged (%s): left out",
                          ZSTD_isError(n) ? ZSTD_getErrorName(n) : "its size differs");
        goto out;
    }
    sat_sr r;
    sat_sr_init(&r, raw, n);
    rc = sat_multi_load(set, &r);
    if (rc == SAT_OK && sat_cursor_left(&r.c))
        rc = sat_sr_fail(&r, SAT_E_CORRUPT, "%zu bytes left after the state",
                         sat_cursor_left(&r.c));
    if (rc != SAT_OK)
        sat_diag_set(d, rc, where, "%s", r.msg[0] ? r.msg : sat_strerror(rc));
out:
    free(buf);
    free(raw);
    return rc;
}
