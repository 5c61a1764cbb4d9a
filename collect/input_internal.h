/*
 * input_internal.h - what the files of one sat_input share (include/satscope/
 * collect.h has the interface):
 *
 *   input.c         opening (the compression told by its magic bytes), the
 *                   first bytes decoded for sniffing, closing, the counters
 *   input_decode.c  reading the file (interrupts, pipes) and the decoders
 *   input_thread.c  the decoder thread of a compressed input, and fill()
 *   input_lines.c   lines out of the buffer: one by one, or in chunks
 *
 * Internal to collect/.
 */
#ifndef SAT_INPUT_INTERNAL_H
#define SAT_INPUT_INTERNAL_H

#include <pthread.h>
#include <sys/types.h>
#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "satscope/collect.h"

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
extern const char *const sat_input_comp_names[]; /* "none", "gzip", ... by enum comp */

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
    size_t cut_by_interrupt; /* bytes of the line it ended inside, dropped */
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

/* input_decode.c: read() of fd that retries on EINTR and ends at the
 * interrupt (see there); bytes read, 0 at the end, -1 on error. */
ssize_t sat_input_read_once(sat_input *in, int fd, void *p, size_t n);

/* input_decode.c: decode into o until it is full or the stream ends (d_eof,
 * d_err); the decoder's end state handed to the reader once every byte before
 * it was. */
void sat_input_decode(sat_input *in, outbuf *o);
void sat_input_take_end_state(sat_input *in);

/* input_thread.c: a compressed input decoded on a thread of its own (left
 * synchronous if it cannot start); append decoded bytes to buf[end, fill_cap)
 * from wherever they are decoded. */
void sat_input_start_decoder(sat_input *in);
void sat_input_stop_decoder(sat_input *in);
void sat_input_fill(sat_input *in);

#endif /* SAT_INPUT_INTERNAL_H */
