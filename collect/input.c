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
 *
 * This file opens and closes; the reading, decoding and line splitting are
 * in the files input_internal.h lists.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_internal.h"

const char *const sat_input_comp_names[] = {"none", "gzip", "bzip2", "xz", "zstd"};

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
        ssize_t n = sat_input_read_once(in, fd, buf + got, SAT_INPUT_RAW_CAP - got);
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
                         sat_input_comp_names[in->comp]);
            sat_input_close(in);
            return NULL;
        }
    }

    /* Decode the first bytes for sniffing; errors stay pending for
     * next_line so the lines before them are still delivered. */
    in->fill_cap = SAT_INPUT_PEEK_MAX;
    while (in->end < SAT_INPUT_PEEK_MAX && !in->eof)
        sat_input_fill(in);
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
        sat_input_start_decoder(in);
#endif
    return in;
}

const char *sat_input_compression(const sat_input *in)
{
    return in ? sat_input_comp_names[in->comp] : "none";
}
uint64_t sat_input_bytes(const sat_input *in) { return in ? in->bytes : 0; }
uint64_t sat_input_raw_bytes(const sat_input *in) { return in ? in->raw_bytes : 0; }
uint64_t sat_input_raw_size(const sat_input *in) { return in ? in->raw_size : 0; }
uint64_t sat_input_cut_lines(const sat_input *in) { return in ? in->cut_lines : 0; }

void sat_input_close(sat_input *in)
{
    if (!in)
        return;
    sat_input_stop_decoder(in);
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
