/*
 * trace_reader.c - the .sat reader's API: open, read, stat and verify
 * (trace/FORMAT.md: every minor version of major SAT_FMT_MAJOR).
 *
 * Every byte of the file is untrusted: it is read through sat_cursor, every
 * length is checked against the file size and the caps of FORMAT.md before
 * anything is allocated, and every failure names the block and its offset.
 * Finding and validating blocks, and recovery from damaged ones, are in
 * trace_scan.c; decoding a block's columns into rows in trace_decode.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "trace_internal.h"

static int cmp_damage(const void *a, const void *b)
{
    const sat_trace_damage *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* ---- opening --------------------------------------------------------------- */
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
    if (sat_trace_check_header(r, diag) != SAT_OK) {
        sat_trace_reader_close(r);
        return NULL;
    }
    sat_diag why = {0};
    uint64_t foff = 0;
    const char *where = r->path ? r->path : "<memory>";
    char hdr[128] = "";
    if (r->hdr_damaged)
        snprintf(hdr, sizeof hdr, "file header damaged (%s), read as format %d.%d; ",
                 r->hdr_why, SAT_FMT_MAJOR, SAT_FMT_MINOR);
    if (sat_trace_read_footer(r, &why, &foff) == SAT_OK) {
        r->complete = 1;
        if (r->hdr_damaged)
            sat_diag_set(diag, SAT_E_CORRUPT, where, "%s%zu block%s found by the footer's index",
                         hdr, r->nblocks, r->nblocks == 1 ? "" : "s");
        return r;
    }
    sat_diag stopd = {0};
    uint64_t stop = 0;
    if (sat_trace_scan_blocks(r, &stop, &stopd) != SAT_OK) {
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
    sat_diag_set(diag, r->hdr_damaged ? SAT_E_CORRUPT : SAT_E_TRUNCATED, where,
                 "%s%s (%.100s): %zu complete block%s used%s%s", hdr,
                 r->hdr_damaged ? "blocks found by scanning" : "partial trace", why.msg,
                 r->nblocks, r->nblocks == 1 ? "" : "s", dmg, tail);
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
    if (!buf || len < 8)
        return 0;
    if (memcmp(buf, "SATSCOPE", 8) == 0)
        return 1;
    /* a damaged file header: a plausible block header right after it (the
     * reader checks its checksum, FORMAT.md "File header") */
    if (len < SAT_FILE_HDR_LEN + SAT_BLOCK_HDR_LEN)
        return 0;
    sat_cursor c = sat_cursor_make((const uint8_t *)buf + SAT_FILE_HDR_LEN, SAT_BLOCK_HDR_LEN);
    const uint8_t *magic = sat_cursor_bytes(&c, 4);
    (void)sat_cursor_le16(&c);
    uint16_t ncols = sat_cursor_le16(&c);
    uint32_t nrows = sat_cursor_le32(&c), dir_len = sat_cursor_le32(&c);
    return !c.err && memcmp(magic, "SATB", 4) == 0 && ncols >= 1 && ncols <= SAT_MAX_COLS &&
           nrows >= 1 && nrows <= SAT_MAX_ROWS && dir_len <= SAT_MAX_DIR;
}

/* ---- reading rows ------------------------------------------------------------ */
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

/* The damage record of block b of the index, every row of it lost: what the
 * footer says the block held, and why it is lost. */
static void block_damage(sat_trace_damage *dm, const rblock *b, const char *reason)
{
    memset(dm, 0, sizeof *dm);
    dm->block = b->no;
    dm->table_id = b->table;
    dm->offset = b->off;
    dm->length = b->len;
    dm->rows = b->nrows;
    dm->min_ts = b->min_ts;
    dm->max_ts = b->max_ts;
    snprintf(dm->reason, sizeof dm->reason, "%.200s", reason);
}

/* Does damage d concern a read of these tables (mask `want`) and window? */
static int damage_wanted(const sat_trace_damage *d, const sat_trace_read_opts *o,
                         uint32_t want)
{
    if (d->table_id < 0)
        return 1; /* it may have held anything */
    const sat_table_def *def = sat_table_get(d->table_id);
    if (!def || !(want & SAT_TABLE_BIT(d->table_id)))
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
    /* The tables read: those asked for that the sink takes. A block of any
     * other table is not even decompressed, nor its damage reported. */
    uint32_t want = (o->tables ? o->tables : SAT_TABLES_ALL) & (sink->on_row ? sink->tables : 0);
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
        if (damage_wanted(&r->scan_dmg.v[i], o, want) &&
            dlist_add(&r->read_dmg, &r->scan_dmg.v[i]) != SAT_OK)
            return sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
    for (size_t bi = 0; bi < r->nblocks; bi++) {
        const rblock *b = &r->blocks[bi];
        const sat_table_def *def = sat_table_get(b->table);
        if (!def) /* a table of a newer minor version: skipped (FORMAT.md) */
            continue;
        if (!(want & SAT_TABLE_BIT(b->table)))
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
        int rc = sat_trace_read_block(r, bi, o, proj[b->table], sink, &done, &by_sink, &bd);
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
        block_damage(&dm, b, bd.msg);
        dm.rows = b->nrows - done;
        if (done) /* decoding failed part-way: the rows before were given */
            snprintf(dm.reason, sizeof dm.reason, "%.200s; its first %u rows were read",
                     bd.msg, done);
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
        if (sat_trace_load_block_dir(r, (size_t)b->no, b->off, &h, &bd) != SAT_OK ||
            sat_trace_check_block_data(r, (size_t)b->no, b->off, &h, &bd) != SAT_OK ||
            h.table != b->table || h.nrows != b->nrows || h.total != b->len) {
            if (bd.code == SAT_E_NOMEM) {
                rc = sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
                goto done;
            }
            sat_trace_damage dm;
            block_damage(&dm, b, bd.code ? bd.msg
                                         : "block header does not match the footer index");
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
                if (SAT_GROW(r->cstats[ti], ccap[ti], c + 1) != SAT_OK) {
                    rc = sat_diag_set(diag, SAT_E_NOMEM, "", "out of memory");
                    goto done;
                }
                cs = r->cstats[ti];
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
    out->flags = r->flags;
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
    if (sat_trace_check_header(r, &d) != SAT_OK) {
        REPORT(d);
        return d.code;
    }
    size_t recovered = 0; /* blocks that hold, for a damaged file header */
    uint64_t foff = 0;
    int complete = sat_trace_read_footer(r, &d, &foff) == SAT_OK;
    if (!complete) {
        char why[sizeof d.msg];
        snprintf(why, sizeof why, "%s", d.msg); /* d.msg is rewritten below */
        uint64_t stop = 0;
        sat_diag sd = {0};
        if (sat_trace_scan_blocks(r, &stop, &sd) != SAT_OK)
            return sat_diag_set(diag, SAT_E_NOMEM, where, "out of memory");
        recovered = r->nblocks;
        /* a writer that never finished (a killed collect): its complete
         * blocks are there, its footer is not, and the bytes after the last
         * valid block are the start of one it did not finish (not damage:
         * FORMAT.md "Damaged blocks") */
        char tail[300] = "";
        if (stop < r->size && sd.code)
            snprintf(tail, sizeof tail, "; the %" PRIu64 " bytes from offset %" PRIu64
                     " on are no complete block (%.200s)", r->size - stop, stop, sd.msg);
        sat_diag_set(&d, SAT_E_TRUNCATED, where, "partial trace (%s): %zu complete block%s, "
                     "no footer: the writer did not finish%s", why, r->nblocks,
                     r->nblocks == 1 ? "" : "s", tail);
        REPORT(d);
        for (size_t i = 0; i < r->scan_dmg.n; i++) {
            const sat_trace_damage *dm = &r->scan_dmg.v[i];
            char w[512], what[512];
            where_block(w, sizeof w, r, (size_t)dm->block, dm->offset);
            sat_trace_damage_describe(dm, what, sizeof what);
            memset(&d, 0, sizeof d);
            sat_diag_set(&d, SAT_E_CORRUPT, w, "%s", what);
            REPORT(d);
        }
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
            if (sat_trace_load_block_dir(r, bi, off, &h, &d) != SAT_OK ||
                sat_trace_check_block_data(r, bi, off, &h, &d) != SAT_OK) {
                sat_trace_damage dm;
                block_damage(&dm, b, d.msg);
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
            } else {
                recovered++;
            }
        }
        if (expect != foff) {
            sat_diag_set(&d, SAT_E_CORRUPT, where, "%" PRIu64 " bytes between the "
                         "last block and the footer", foff - expect);
            REPORT(d);
        }
    }
    if (r->hdr_damaged) {
        sat_diag_set(&d, SAT_E_CORRUPT, where, "file header damaged (%s): %zu block%s recovered "
                     "(found by %s)", r->hdr_why, recovered, recovered == 1 ? "" : "s",
                     complete ? "the footer's index" : "scanning");
        REPORT(d);
    }
    if (problems == 0)
        return SAT_OK;
    /* SAT_E_TRUNCATED: partial and nothing else wrong */
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
