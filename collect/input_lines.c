/*
 * input_lines.c - lines out of an input's buffer: views into the one big
 * buffer (no per-line allocation), a line across a refill moved to the front,
 * one longer than SAT_INPUT_LINE_MAX returned cut and the rest skipped; or
 * many whole lines at once into the caller's chunk (the parallel parser's),
 * a plain file read straight into it when nothing is pending. The bytes after
 * the last line end when an interrupt ended the input are not a line.
 */
#include "input_internal.h"

size_t sat_input_cut_by_interrupt(const sat_input *in)
{
    return in ? in->cut_by_interrupt : 0;
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
            if (in->start < in->end && !in->skipping && in->interrupted) {
                /* the interrupt ended the input inside this line: the rest
                 * of it was never read, so it is no line of the input (parsed,
                 * it would be rejected); dropped, its length kept */
                in->cut_by_interrupt = in->end - in->start;
                in->start = in->end;
                return 0;
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
        sat_input_fill(in);
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
        sat_input_fill(in);
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
    sat_input_decode(in, &o);
    in->bytes += o.len - avail;
    in->raw_bytes = in->d_raw_bytes;
    if (in->d_eof)
        sat_input_take_end_state(in);
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
