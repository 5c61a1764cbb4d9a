/*
 * input_thread.c - a compressed input decoded on a second thread into a small
 * ring of chunks while the caller parses, and fill(), which appends decoded
 * bytes to the line buffer from the ring or, for a plain input (or when the
 * thread could not start), by decoding in the caller.
 */
#include "input_internal.h"

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
            sat_input_decode(in, &o);
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
            sat_input_take_end_state(in);
    }
}

void sat_input_start_decoder(sat_input *in)
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

void sat_input_stop_decoder(sat_input *in)
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
void sat_input_fill(sat_input *in)
{
    if (in->threaded) {
        fill_from_queue(in);
        return;
    }
    outbuf o = {in->buf, in->end, in->fill_cap};
    sat_input_decode(in, &o);
    in->bytes += o.len - in->end;
    in->end = o.len;
    in->raw_bytes = in->d_raw_bytes;
    if (in->d_eof)
        sat_input_take_end_state(in);
}
