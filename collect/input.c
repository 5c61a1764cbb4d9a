/*
 * input.c - one input opened for reading lines: a file or "-" (stdin), plain
 * or compressed, the compression told by its magic bytes (never its name):
 *   gzip  1f 8b           (zlib; concatenated members as pigz/logrotate write)
 *   bzip2 "BZh1".."BZh9"  (libbz2; concatenated streams as pbzip2 writes)
 *   xz    fd 37 7a 58 5a 00 (liblzma, LZMA_CONCATENATED)
 *   zstd  28 b5 2f fd, or a skippable frame 5? 2a 4d 18 (libzstd, multi-frame)
 *
 * Lines are views into one big buffer (no per-line allocation). A line that
 * spans a refill is moved to the front of the buffer; lines longer than
 * SAT_INPUT_LINE_MAX are returned cut and the rest skipped, so a binary or
 * hostile file cannot make us grow without bound. A compressed stream that
 * ends early or is corrupt yields every complete line that could be decoded
 * first, then SAT_E_TRUNCATED with a sentence naming the file and how much
 * was decoded.
 */
#include "satscope/collect.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <lzma.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define SAT_INPUT_LINE_MAX ((size_t)1 << 20)
/* Four times the line cap: after moving a partial line (< LINE_MAX) to the
 * front there is always room for big reads, and plain files are read in
 * multi-MiB chunks, which is what keeps line splitting above 1 GB/s. */
#define SAT_INPUT_BUF_CAP (4 * SAT_INPUT_LINE_MAX)
#define SAT_INPUT_RAW_CAP ((size_t)1 << 20)
#define SAT_INPUT_PEEK_MAX ((size_t)64 << 10)
#define ZSTD_STEP ((size_t)256 << 10)
#define XZ_MEMLIMIT ((uint64_t)512 << 20)
#define Q_CHUNKS 4
#define Q_CHUNK_SIZE ((size_t)1 << 20)

enum comp { COMP_NONE = 0, COMP_GZIP, COMP_BZIP2, COMP_XZ, COMP_ZSTD };
static const char *const comp_names[] = {"none", "gzip", "bzip2", "xz", "zstd"};

struct sat_input {
    char *path;
    int fd;
    int own_fd;
    enum comp comp;

    char *buf;               /* decompressed bytes; lines point in here */
    size_t start, end;       /* unconsumed bytes are buf[start, end) */
    int skipping;            /* discarding the rest of a cut long line */
    int eof;                 /* no more bytes will be appended to buf */
    int err;                 /* pending error, reported once buf is drained */
    char errmsg[400];

    unsigned char *raw;      /* compressed bytes read from the file */
    size_t raw_len;          /* valid bytes in raw (the decoder tracks its position) */
    int raw_eof;

    z_stream gz;
    bz_stream bz;
    lzma_stream xz;
    ZSTD_DStream *zs;
    int dec_init;            /* the decoder (gz/bz) was initialised */
    int in_member;           /* inside a gzip member / bzip2 stream / zstd frame */
    ZSTD_inBuffer zin;

    char *peek;
    size_t peek_len;

    uint64_t bytes;          /* decompressed bytes produced */
    uint64_t raw_bytes;      /* bytes read from the file */
    uint64_t raw_size;       /* file size if a regular file, else 0 */
    uint64_t cut_lines;      /* lines longer than LINE_MAX that were cut */
    int regular;             /* a regular file (reads never wait) */
    int interrupted;         /* ended by the interrupt flag */
    size_t fill_cap;         /* fill stops at buf[fill_cap]: the peek only
                                decodes what it shows, not a whole buffer */

    /* decoder side (the decoder thread's when threaded) */
    int d_eof, d_err;
    char d_errmsg[400];
    uint64_t dec_bytes;      /* decompressed bytes produced by the decoder */
    uint64_t d_raw_bytes;    /* bytes read from the file by the decoder */

    /* decoder thread and its ring of chunks */
    int threaded, q_stop;
    pthread_t q_thread;
    pthread_mutex_t q_mu;
    pthread_cond_t q_not_full, q_not_empty;
    struct qchunk {
        char *p;
        size_t len;
        uint64_t raw_bytes;
        int final;
    } q[Q_CHUNKS];
    size_t q_head, q_full, q_pos;
};

typedef struct outbuf {
    char *p;
    size_t len, cap;
} outbuf;

static const volatile sig_atomic_t *interrupt_flag;

void sat_input_set_interrupt(const volatile sig_atomic_t *flag)
{
    interrupt_flag = flag;
}

int sat_input_interrupted(const sat_input *in)
{
    return in && in->interrupted;
}

/* read() that retries on EINTR; returns bytes read, 0 at EOF, -1 on error.
 * Once the interrupt flag is set the input ends at its next read: the bytes
 * already read (in the line buffer, in the decoder's queue) are still given,
 * nothing more is read. A pipe, FIFO or terminal is waited on with poll() in
 * steps of 200 ms, so that a read waiting for bytes that may never come ends
 * too, on whichever thread it runs (the decoder's for a compressed input). */
static ssize_t read_full_once(sat_input *in, int fd, void *p, size_t n)
{
    for (;;) {
        if (interrupt_flag && *interrupt_flag) {
            in->interrupted = 1;
            return 0;
        }
        if (interrupt_flag && !in->regular) {
            struct pollfd pfd = {fd, POLLIN, 0};
            int k = poll(&pfd, 1, 200);
            if (k == 0 || (k < 0 && errno == EINTR))
                continue;
        }
        ssize_t r = read(fd, p, n);
        if (r >= 0 || errno != EINTR)
            return r;
    }
}

static void set_err(sat_input *in, int code, const char *fmt, ...) SAT_PRINTF(3, 4);
static void set_err(sat_input *in, int code, const char *fmt, ...)
{
    if (in->d_err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->d_errmsg, sizeof in->d_errmsg, fmt, ap);
    va_end(ap);
    in->d_err = code;
    in->d_eof = 1;
}

static void stream_ends_early(sat_input *in)
{
    if (in->interrupted) { /* ended by the interrupt, not cut short */
        in->d_eof = 1;
        return;
    }
    set_err(in, SAT_E_TRUNCATED,
            "%s stream ends early after %llu bytes of output (truncated file?)",
            comp_names[in->comp], (unsigned long long)in->dec_bytes);
}

static void stream_corrupt(sat_input *in, const char *why)
{
    set_err(in, SAT_E_TRUNCATED,
            "%s data corrupt after %llu bytes of output (%s); the rest of the "
            "file is unreadable",
            comp_names[in->comp], (unsigned long long)in->dec_bytes,
            why ? why : "?");
}

/* Refill the raw buffer when the decoder has consumed it all. */
static int read_raw(sat_input *in)
{
    if (in->raw_eof)
        return 0;
    ssize_t n = read_full_once(in, in->fd, in->raw, SAT_INPUT_RAW_CAP);
    if (n < 0) {
        set_err(in, SAT_E_IO, "read error after %llu bytes: %s",
                (unsigned long long)in->d_raw_bytes, strerror(errno));
        in->raw_eof = 1;
        return -1;
    }
    if (n == 0) {
        in->raw_eof = 1;
        return 0;
    }
    in->raw_len = (size_t)n;
    in->d_raw_bytes += (uint64_t)n;
    return 1;
}

/* ---- decoders: each appends to buf[end, cap) until full, EOF or error ---------- */

static void fill_plain(sat_input *in, outbuf *o)
{
    ssize_t n = read_full_once(in, in->fd, o->p + o->len, o->cap - o->len);
    if (n < 0) {
        set_err(in, SAT_E_IO, "read error after %llu bytes: %s",
                (unsigned long long)in->d_raw_bytes, strerror(errno));
        return;
    }
    if (n == 0) {
        in->d_eof = 1;
        return;
    }
    o->len += (size_t)n;
    in->dec_bytes += (uint64_t)n;
    in->d_raw_bytes += (uint64_t)n;
}

static void fill_gzip(sat_input *in, outbuf *o)
{
    z_stream *z = &in->gz;
    while (o->len < o->cap && !in->d_eof) {
        if (z->avail_in == 0) {
            if (read_raw(in) < 0)
                return;
            if (!in->raw_eof) {
                z->next_in = in->raw;
                z->avail_in = (uInt)in->raw_len;
            }
        }
        if (!in->in_member) {
            /* Between members: more gzip data starts a new member; end of
             * file or trailing garbage (tape padding) ends the stream, as
             * gzip(1) does. */
            if (z->avail_in == 0) {
                in->d_eof = 1;
                return;
            }
            if (z->next_in[0] != 0x1f || (z->avail_in > 1 && z->next_in[1] != 0x8b)) {
                in->d_eof = 1;
                return;
            }
            if (inflateReset(z) != Z_OK) {
                stream_corrupt(in, "inflateReset failed");
                return;
            }
            in->in_member = 1;
        }
        size_t room = o->cap - o->len;
        z->next_out = (Bytef *)o->p + o->len;
        z->avail_out = (uInt)room;
        int rc = inflate(z, Z_NO_FLUSH);
        size_t produced = room - z->avail_out;
        o->len += produced;
        in->dec_bytes += produced;
        if (rc == Z_STREAM_END) {
            in->in_member = 0;
        } else if (rc == Z_BUF_ERROR || rc == Z_OK) {
            if (produced == 0 && z->avail_in == 0 && in->raw_eof) {
                stream_ends_early(in);
                return;
            }
        } else if (rc == Z_MEM_ERROR) {
            set_err(in, SAT_E_NOMEM, "out of memory while decompressing gzip");
            return;
        } else {
            stream_corrupt(in, z->msg ? z->msg : "inflate error");
            return;
        }
    }
}

static void fill_bzip2(sat_input *in, outbuf *o)
{
    bz_stream *b = &in->bz;
    while (o->len < o->cap && !in->d_eof) {
        if (b->avail_in == 0) {
            if (read_raw(in) < 0)
                return;
            if (!in->raw_eof) {
                b->next_in = (char *)in->raw;
                b->avail_in = (unsigned)in->raw_len;
            }
        }
        if (!in->in_member) {
            if (b->avail_in == 0 || b->next_in[0] != 'B') {
                in->d_eof = 1; /* end, or trailing garbage as bzip2(1) ignores */
                return;
            }
            if (in->dec_init)
                BZ2_bzDecompressEnd(b);
            in->dec_init = 0;
            char *ni = b->next_in;
            unsigned ai = b->avail_in;
            memset(b, 0, sizeof *b);
            if (BZ2_bzDecompressInit(b, 0, 0) != BZ_OK) {
                set_err(in, SAT_E_NOMEM, "cannot initialise the bzip2 decoder");
                return;
            }
            in->dec_init = 1;
            b->next_in = ni;
            b->avail_in = ai;
            in->in_member = 1;
        }
        size_t room = o->cap - o->len;
        b->next_out = o->p + o->len;
        b->avail_out = (unsigned)room;
        int rc = BZ2_bzDecompress(b);
        size_t produced = room - b->avail_out;
        o->len += produced;
        in->dec_bytes += produced;
        if (rc == BZ_STREAM_END) {
            in->in_member = 0;
        } else if (rc == BZ_OK) {
            if (produced == 0 && b->avail_in == 0 && in->raw_eof) {
                stream_ends_early(in);
                return;
            }
        } else if (rc == BZ_MEM_ERROR) {
            set_err(in, SAT_E_NOMEM, "out of memory while decompressing bzip2");
            return;
        } else {
            stream_corrupt(in, rc == BZ_DATA_ERROR_MAGIC ? "bad stream header"
                                                          : "bad block data");
            return;
        }
    }
}

static void fill_xz(sat_input *in, outbuf *o)
{
    lzma_stream *x = &in->xz;
    while (o->len < o->cap && !in->d_eof) {
        if (x->avail_in == 0 && !in->raw_eof) {
            if (read_raw(in) < 0)
                return;
            if (!in->raw_eof) {
                x->next_in = in->raw;
                x->avail_in = in->raw_len;
            }
        }
        size_t room = o->cap - o->len;
        x->next_out = (uint8_t *)o->p + o->len;
        x->avail_out = room;
        /* LZMA_FINISH once the file is exhausted: that is how liblzma learns
         * that a concatenated stream really ends here (or was cut). */
        lzma_ret rc = lzma_code(x, in->raw_eof ? LZMA_FINISH : LZMA_RUN);
        size_t produced = room - x->avail_out;
        o->len += produced;
        in->dec_bytes += produced;
        switch (rc) {
        case LZMA_OK:
            break;
        case LZMA_STREAM_END:
            in->d_eof = 1;
            return;
        case LZMA_BUF_ERROR:
            if (in->raw_eof) {
                stream_ends_early(in);
                return;
            }
            break;
        case LZMA_MEM_ERROR:
            set_err(in, SAT_E_NOMEM, "out of memory while decompressing xz");
            return;
        case LZMA_MEMLIMIT_ERROR:
            stream_corrupt(in, "the stream asks for more than 512 MiB of memory");
            return;
        case LZMA_FORMAT_ERROR:
            stream_corrupt(in, "not an xz stream");
            return;
        case LZMA_OPTIONS_ERROR:
            stream_corrupt(in, "unsupported xz options");
            return;
        case LZMA_DATA_ERROR:
            stream_corrupt(in, "compressed data is corrupt");
            return;
        default:
            stream_corrupt(in, "lzma_code failed");
            return;
        }
    }
}

static void fill_zstd(sat_input *in, outbuf *o)
{
    while (o->len < o->cap && !in->d_eof) {
        if (in->zin.pos == in->zin.size) {
            if (read_raw(in) < 0)
                return;
            if (!in->raw_eof) {
                in->zin.src = in->raw;
                in->zin.size = in->raw_len;
                in->zin.pos = 0;
            }
        }
        /* Modest output steps: given room for a whole frame, libzstd decodes
         * it in one shot and a corrupt block would then lose every line
         * before it. */
        size_t room = o->cap - o->len;
        if (room > ZSTD_STEP)
            room = ZSTD_STEP;
        ZSTD_outBuffer out = {o->p + o->len, room, 0};
        size_t in_before = in->zin.pos;
        size_t rc = ZSTD_decompressStream(in->zs, &out, &in->zin);
        o->len += out.pos;
        in->dec_bytes += out.pos;
        if (ZSTD_isError(rc)) {
            stream_corrupt(in, ZSTD_getErrorName(rc));
            return;
        }
        /* rc == 0: a frame is complete and flushed; another may follow. A call
         * that moved nothing says nothing new (between frames it returns
         * the size of the next header it wants). */
        if (rc == 0)
            in->in_member = 0;
        else if (out.pos > 0 || in->zin.pos != in_before)
            in->in_member = 1;
        if (in->zin.pos == in->zin.size && in->raw_eof && out.pos < room) {
            if (in->in_member)
                stream_ends_early(in);
            else
                in->d_eof = 1;
            return;
        }
    }
}

static void decode(sat_input *in, outbuf *o)
{
    switch (in->comp) {
    case COMP_NONE: fill_plain(in, o); break;
    case COMP_GZIP: fill_gzip(in, o); break;
    case COMP_BZIP2: fill_bzip2(in, o); break;
    case COMP_XZ: fill_xz(in, o); break;
    case COMP_ZSTD: fill_zstd(in, o); break;
    }
}

/* The decoder's end state becomes the reader's once every byte before it has
 * been handed over. */
static void take_end_state(sat_input *in)
{
    in->eof = 1;
    in->err = in->d_err;
    memcpy(in->errmsg, in->d_errmsg, sizeof in->errmsg);
}

/* ---- a decoder thread for compressed inputs -----------------------------------
 * Decompression (zlib ~300 MB/s on log text) costs about as much as parsing;
 * a second thread decodes into a small ring of chunks while the caller parses,
 * so a .gz log is read at the speed of the slower of the two, not their sum.
 * The decoder thread owns the decoder fields (d_*, raw, the streams); a chunk
 * belongs to the thread until it is published (q_full++) and to the reader
 * until released (q_full--), both under q_mu. */
static void *decoder_main(void *arg)
{
    sat_input *in = arg;
    for (;;) {
        pthread_mutex_lock(&in->q_mu);
        while (in->q_full == Q_CHUNKS && !in->q_stop)
            pthread_cond_wait(&in->q_not_full, &in->q_mu);
        if (in->q_stop) {
            pthread_mutex_unlock(&in->q_mu);
            return NULL;
        }
        struct qchunk *c = &in->q[(in->q_head + in->q_full) % Q_CHUNKS];
        pthread_mutex_unlock(&in->q_mu);

        outbuf o = {c->p, 0, Q_CHUNK_SIZE};
        while (o.len < o.cap && !in->d_eof)
            decode(in, &o);
        c->len = o.len;
        c->raw_bytes = in->d_raw_bytes;
        c->final = in->d_eof;

        pthread_mutex_lock(&in->q_mu);
        in->q_full++;
        pthread_cond_signal(&in->q_not_empty);
        pthread_mutex_unlock(&in->q_mu);
        if (c->final)
            return NULL;
    }
}

static void fill_from_queue(sat_input *in)
{
    pthread_mutex_lock(&in->q_mu);
    while (in->q_full == 0)
        pthread_cond_wait(&in->q_not_empty, &in->q_mu);
    struct qchunk *c = &in->q[in->q_head];
    pthread_mutex_unlock(&in->q_mu);

    size_t n = c->len - in->q_pos;
    if (n > in->fill_cap - in->end)
        n = in->fill_cap - in->end;
    memcpy(in->buf + in->end, c->p + in->q_pos, n);
    in->end += n;
    in->bytes += n;
    in->q_pos += n;
    in->raw_bytes = c->raw_bytes;
    if (in->q_pos == c->len) {
        int final = c->final;
        in->q_pos = 0;
        pthread_mutex_lock(&in->q_mu);
        in->q_head = (in->q_head + 1) % Q_CHUNKS;
        in->q_full--;
        pthread_cond_signal(&in->q_not_full);
        pthread_mutex_unlock(&in->q_mu);
        if (final)
            take_end_state(in);
    }
}

static void start_decoder_thread(sat_input *in)
{
    for (int i = 0; i < Q_CHUNKS; i++) {
        in->q[i].p = malloc(Q_CHUNK_SIZE);
        if (!in->q[i].p)
            return; /* stay synchronous; close frees what was allocated */
    }
    if (pthread_mutex_init(&in->q_mu, NULL) != 0)
        return;
    if (pthread_cond_init(&in->q_not_full, NULL) != 0) {
        pthread_mutex_destroy(&in->q_mu);
        return;
    }
    if (pthread_cond_init(&in->q_not_empty, NULL) != 0) {
        pthread_cond_destroy(&in->q_not_full);
        pthread_mutex_destroy(&in->q_mu);
        return;
    }
    if (pthread_create(&in->q_thread, NULL, decoder_main, in) != 0) {
        pthread_cond_destroy(&in->q_not_empty);
        pthread_cond_destroy(&in->q_not_full);
        pthread_mutex_destroy(&in->q_mu);
        return;
    }
    in->threaded = 1;
}

static void stop_decoder_thread(sat_input *in)
{
    if (!in->threaded)
        return;
    pthread_mutex_lock(&in->q_mu);
    in->q_stop = 1;
    pthread_cond_broadcast(&in->q_not_full);
    pthread_mutex_unlock(&in->q_mu);
    pthread_join(in->q_thread, NULL);
    pthread_cond_destroy(&in->q_not_empty);
    pthread_cond_destroy(&in->q_not_full);
    pthread_mutex_destroy(&in->q_mu);
    in->threaded = 0;
}

/* Append decoded bytes to buf[end, fill_cap). */
static void fill(sat_input *in)
{
    if (in->threaded) {
        fill_from_queue(in);
        return;
    }
    outbuf o = {in->buf, in->end, in->fill_cap};
    decode(in, &o);
    in->bytes += o.len - in->end;
    in->end = o.len;
    in->raw_bytes = in->d_raw_bytes;
    if (in->d_eof)
        take_end_state(in);
}

static enum comp detect(const unsigned char *b, size_t n)
{
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return COMP_GZIP;
    if (n >= 4 && b[0] == 'B' && b[1] == 'Z' && b[2] == 'h' && b[3] >= '1' && b[3] <= '9')
        return COMP_BZIP2;
    if (n >= 6 && memcmp(b, "\xfd" "7zXZ\0", 6) == 0)
        return COMP_XZ;
    if (n >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
        return COMP_ZSTD;
    /* pzstd and some seekable-format writers start with a skippable frame. */
    if (n >= 4 && (b[0] & 0xf0) == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18)
        return COMP_ZSTD;
    return COMP_NONE;
}

sat_input *sat_input_open(const char *path, sat_diag *diag)
{
    if (!path)
        path = "-";
    int is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        sat_diag_set(diag, SAT_E_IO, path, "%s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!is_stdin)
            close(fd);
        sat_diag_set(diag, SAT_E_IO, path, "%s", strerror(EISDIR));
        return NULL;
    }

    sat_input *in = calloc(1, sizeof *in);
    char *buf = malloc(SAT_INPUT_BUF_CAP);
    char *p = strdup(path);
    if (!in || !buf || !p) {
        free(in);
        free(buf);
        free(p);
        if (!is_stdin)
            close(fd);
        sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
        return NULL;
    }
    in->path = p;
    in->fd = fd;
    in->own_fd = !is_stdin;
    in->buf = buf;
    if (S_ISREG(st.st_mode))
        in->raw_size = (uint64_t)st.st_size;
    in->regular = S_ISREG(st.st_mode);
#ifdef POSIX_FADV_SEQUENTIAL
    if (S_ISREG(st.st_mode))
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif

    /* Read the first bytes straight into the line buffer: a plain file's
     * data is then already in place; a compressed file's are moved to raw. */
    size_t got = 0;
    while (got < 8) {
        ssize_t n = read_full_once(in, fd, buf + got, SAT_INPUT_RAW_CAP - got);
        if (n < 0) {
            sat_diag_set(diag, SAT_E_IO, path, "%s", strerror(errno));
            sat_input_close(in);
            return NULL;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    in->raw_bytes = in->d_raw_bytes = got;
    in->comp = detect((const unsigned char *)buf, got);
    if (in->comp == COMP_NONE) {
        in->end = got;
        in->bytes = in->dec_bytes = got;
        if (got == 0)
            in->eof = in->d_eof = 1;
    } else {
        in->raw = malloc(SAT_INPUT_RAW_CAP);
        if (!in->raw) {
            sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
            sat_input_close(in);
            return NULL;
        }
        memcpy(in->raw, buf, got);
        in->raw_len = got;
        in->in_member = 1;
        int ok = 1;
        switch (in->comp) {
        case COMP_GZIP:
            /* 31 = gzip wrapper only, max window. */
            ok = inflateInit2(&in->gz, 31) == Z_OK;
            in->gz.next_in = in->raw;
            in->gz.avail_in = (uInt)got;
            in->dec_init = ok;
            break;
        case COMP_BZIP2:
            in->in_member = 0; /* fill_bzip2 initialises at stream start */
            in->bz.next_in = (char *)in->raw;
            in->bz.avail_in = (unsigned)got;
            break;
        case COMP_XZ: {
            lzma_stream init = LZMA_STREAM_INIT;
            in->xz = init;
            /* A memory limit: a hostile header could ask for a 1.5 GiB
             * dictionary; xz -9 needs 65 MiB to decompress. */
            ok = lzma_stream_decoder(&in->xz, XZ_MEMLIMIT, LZMA_CONCATENATED) == LZMA_OK;
            in->xz.next_in = in->raw;
            in->xz.avail_in = got;
            in->dec_init = ok;
            break;
        }
        case COMP_ZSTD:
            in->zs = ZSTD_createDStream();
            ok = in->zs != NULL && !ZSTD_isError(ZSTD_initDStream(in->zs));
            in->zin.src = in->raw;
            in->zin.size = got;
            in->zin.pos = 0;
            break;
        default:
            break;
        }
        if (!ok) {
            sat_diag_set(diag, SAT_E_NOMEM, path, "cannot initialise the %s decoder",
                         comp_names[in->comp]);
            sat_input_close(in);
            return NULL;
        }
    }

    /* Decode the first bytes for sniffing; errors stay pending for
     * next_line so the lines before them are still delivered. */
    in->fill_cap = SAT_INPUT_PEEK_MAX;
    while (in->end < SAT_INPUT_PEEK_MAX && !in->eof)
        fill(in);
    in->fill_cap = SAT_INPUT_BUF_CAP;
    in->peek_len = in->end < SAT_INPUT_PEEK_MAX ? in->end : SAT_INPUT_PEEK_MAX;
    in->peek = malloc(in->peek_len ? in->peek_len : 1);
    if (!in->peek) {
        sat_diag_set(diag, SAT_E_NOMEM, path, "out of memory");
        sat_input_close(in);
        return NULL;
    }
    memcpy(in->peek, in->buf, in->peek_len);
#ifndef SAT_INPUT_SYNC /* build knob: -DSAT_INPUT_SYNC decodes in the caller */
    if (in->comp != COMP_NONE && !in->eof)
        start_decoder_thread(in);
#endif
    return in;
}

const char *sat_input_peek(sat_input *in, size_t *len)
{
    if (!in) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = in->peek_len;
    return in->peek;
}

int sat_input_next_line(sat_input *in, const char **line, size_t *len,
                        sat_diag *diag)
{
    for (;;) {
        size_t avail = in->end - in->start;
        if (avail) {
            char *s = in->buf + in->start;
            char *nl = memchr(s, '\n', avail);
            if (in->skipping) {
                if (!nl) {
                    in->start = in->end;
                } else {
                    in->start += (size_t)(nl - s) + 1;
                    in->skipping = 0;
                    continue;
                }
            } else if (nl) {
                size_t n = (size_t)(nl - s);
                *line = s;
                in->start += n + 1;
                if (n > SAT_INPUT_LINE_MAX) { /* whole long line in the buffer */
                    n = SAT_INPUT_LINE_MAX;
                    in->cut_lines++;
                }
                *len = n;
                return 1;
            } else if (avail >= SAT_INPUT_LINE_MAX) {
                *line = s;
                *len = SAT_INPUT_LINE_MAX;
                in->start += SAT_INPUT_LINE_MAX;
                in->skipping = 1;
                in->cut_lines++;
                return 1;
            }
        }
        if (in->eof) {
            if (in->err) {
                size_t partial = in->skipping ? 0 : in->end - in->start;
                in->start = in->end;
                if (partial)
                    sat_diag_set(diag, in->err, in->path,
                                 "%s; a partial last line of %zu bytes was dropped",
                                 in->errmsg, partial);
                else
                    sat_diag_set(diag, in->err, in->path, "%s", in->errmsg);
                return in->err;
            }
            if (in->start < in->end && !in->skipping) {
                *line = in->buf + in->start;
                *len = in->end - in->start;
                in->start = in->end;
                return 1;
            }
            in->start = in->end;
            return 0;
        }
        /* Need more bytes: move the unfinished line to the front. */
        if (in->start > 0) {
            size_t rest = in->end - in->start;
            if (rest)
                memmove(in->buf, in->buf + in->start, rest);
            in->start = 0;
            in->end = rest;
        }
        fill(in);
    }
}

/* Raw bytes (captures): what the buffer holds, else one fill. */
ssize_t sat_input_read(sat_input *in, void *dst, size_t n, sat_diag *diag)
{
    for (;;) {
        size_t avail = in->end - in->start;
        if (avail) {
            if (n > avail)
                n = avail;
            memcpy(dst, in->buf + in->start, n);
            in->start += n;
            return (ssize_t)n;
        }
        if (in->eof) {
            if (in->err) {
                sat_diag_set(diag, in->err, in->path, "%s", in->errmsg);
                return in->err;
            }
            return 0;
        }
        in->start = in->end = 0;
        fill(in);
    }
}

/* The last '\n' in s[0, n), or NULL. */
static char *last_newline(char *s, size_t n)
{
    while (n > 0)
        if (s[--n] == '\n')
            return s + n;
    return NULL;
}

/* A plain file read straight into the caller's chunk, saving a copy of every
 * byte: possible when what is left in buf is at most a partial line. The
 * chunk ends at its last line end; the partial line after it goes back to buf.
 * Returns 1 with *n set, or 0 to use the copying path. */
#define DIRECT_TAIL_MAX ((size_t)64 << 10)
static int read_direct(sat_input *in, char *dst, size_t want, size_t *n)
{
    size_t avail = in->end - in->start;
    if (in->comp != COMP_NONE || in->threaded || in->eof || in->skipping ||
        avail > DIRECT_TAIL_MAX || avail + want > SAT_INPUT_BUF_CAP || memchr(in->buf + in->start, '\n', avail))
        return 0;
    memcpy(dst, in->buf + in->start, avail);
    in->start = in->end = 0;
    outbuf o = {dst, avail, avail + want};
    decode(in, &o);
    in->bytes += o.len - avail;
    in->raw_bytes = in->d_raw_bytes;
    if (in->d_eof)
        take_end_state(in);
    char *nl = last_newline(dst, o.len);
    size_t k = nl ? (size_t)(nl - dst) + 1 : 0;
    /* What follows the last line end (all of it if there is none: a very
     * long line or the file's last line) is left for the copying path. */
    memcpy(in->buf, dst + k, o.len - k);
    in->end = o.len - k;
    *n = k;
    return k > 0;
}

int sat_input_read_lines(sat_input *in, char *dst, size_t cap, size_t want, size_t *len,
                         sat_diag *diag)
{
    size_t n = 0;
    *len = 0;
    if (want == 0 || cap < want + SAT_INPUT_LINE_MAX + 1)
        return SAT_E_USAGE;
    while (n < want) {
        if (n == 0 && read_direct(in, dst, want, &n))
            break;
        size_t avail = in->end - in->start;
        if (avail && !in->skipping) {
            /* The common case: every whole line up to the goal in one copy,
             * ending at the first line end at or past the goal. */
            char *s = in->buf + in->start;
            size_t lim = avail < cap - n ? avail : cap - n;
            size_t goal = want - n < lim ? want - n : lim;
            char *nl = memchr(s + goal - 1, '\n', lim - goal + 1);
            if (!nl)
                nl = last_newline(s, goal);
            if (nl) {
                size_t k = (size_t)(nl - s) + 1;
                memcpy(dst + n, s, k);
                n += k;
                in->start += k;
                continue;
            }
            if (n > 0 && in->comp == COMP_NONE && !in->threaded)
                break; /* a short chunk, so the next one is read in place */
        }
        /* Everything else - a line across a refill, a long line, the last
         * line without '\n', the end, an error - one line through next_line. */
        const char *line;
        size_t ll;
        int rc = sat_input_next_line(in, &line, &ll, diag);
        if (rc == 1) {
            memcpy(dst + n, line, ll); /* ll <= LINE_MAX: room by the cap check */
            n += ll;
            dst[n++] = '\n';
            continue;
        }
        if (rc < 0 && n == 0)
            return rc;
        break; /* the end, or an error that the next call reports */
    }
    *len = n;
    return n ? 1 : 0;
}

const char *sat_input_compression(const sat_input *in)
{
    return in ? comp_names[in->comp] : "none";
}
uint64_t sat_input_bytes(const sat_input *in) { return in ? in->bytes : 0; }
uint64_t sat_input_raw_bytes(const sat_input *in) { return in ? in->raw_bytes : 0; }
uint64_t sat_input_raw_size(const sat_input *in) { return in ? in->raw_size : 0; }
uint64_t sat_input_cut_lines(const sat_input *in) { return in ? in->cut_lines : 0; }

void sat_input_close(sat_input *in)
{
    if (!in)
        return;
    stop_decoder_thread(in);
    for (int i = 0; i < Q_CHUNKS; i++)
        free(in->q[i].p);
    if (in->comp == COMP_GZIP && in->dec_init)
        inflateEnd(&in->gz);
    if (in->comp == COMP_BZIP2 && in->dec_init)
        BZ2_bzDecompressEnd(&in->bz);
    if (in->comp == COMP_XZ && in->dec_init)
        lzma_end(&in->xz);
    if (in->zs)
        ZSTD_freeDStream(in->zs);
    if (in->own_fd && in->fd >= 0)
        close(in->fd);
    free(in->raw);
    free(in->buf);
    free(in->peek);
    free(in->path);
    free(in);
}
