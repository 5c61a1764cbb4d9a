/*
 * input_decode.c - the bytes of one input: read from its file descriptor
 * (an interrupt ends the input at its next read; a pipe is polled so that a
 * read waiting for bytes that never come ends too), then decoded into the
 * buffer given: plain, gzip (zlib, concatenated members), bzip2 (libbz2,
 * concatenated streams), xz (liblzma, LZMA_CONCATENATED), zstd (libzstd,
 * multi-frame). A stream that ends early or is corrupt sets the pending error
 * with a sentence saying how much was decoded.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <unistd.h>

#include "input_internal.h"

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
ssize_t sat_input_read_once(sat_input *in, int fd, void *p, size_t n)
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
            sat_input_comp_names[in->comp], (unsigned long long)in->dec_bytes);
}

static void stream_corrupt(sat_input *in, const char *why)
{
    set_err(in, SAT_E_TRUNCATED,
            "%s data corrupt after %llu bytes of output (%s); the rest of the "
            "file is unreadable",
            sat_input_comp_names[in->comp], (unsigned long long)in->dec_bytes,
            why ? why : "?");
}

/* Refill the raw buffer when the decoder has consumed it all. */
static int read_raw(sat_input *in)
{
    if (in->raw_eof)
        return 0;
    ssize_t n = sat_input_read_once(in, in->fd, in->raw, SAT_INPUT_RAW_CAP);
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
    ssize_t n = sat_input_read_once(in, in->fd, o->p + o->len, o->cap - o->len);
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

void sat_input_decode(sat_input *in, outbuf *o)
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
void sat_input_take_end_state(sat_input *in)
{
    in->eof = 1;
    in->err = in->d_err;
    memcpy(in->errmsg, in->d_errmsg, sizeof in->errmsg);
}
