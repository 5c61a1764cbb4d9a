/*
 * test_input_interrupt.c - the interrupt flag of collect.h: a read waiting on
 * a FIFO whose writer stays open ends when the flag is set (the lines read
 * before it are given, then an end of input, sat_input_interrupted), for a
 * plain and a gzip stream (decoded on the input's own thread: not reported as
 * cut short); the line the interrupt cut in the middle (its end never
 * read) is not given as a line, through either reader (next_line, read_lines:
 * it would be parsed and rejected); sat_collect_run with the flag already set
 * starts no input.
 */
#include "check.h"
#include "satscope/collect.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[64], fifo[128];
static volatile sig_atomic_t flag;
static const char lines[] = "line one\nline two\nline three\n";

typedef struct feeder {
    const unsigned char *p;
    size_t n;
} feeder;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Writes the bytes into the FIFO, sets the flag 300 ms later and keeps the
 * FIFO open 3 s more: only the flag can end the reader's wait. */
static void *feed(void *arg)
{
    feeder *f = arg;
    int fd = open(fifo, O_WRONLY);
    if (fd < 0)
        return NULL;
    if (write(fd, f->p, f->n) != (ssize_t)f->n)
        fprintf(stderr, "short write\n");
    usleep(300000);
    flag = 1;
    usleep(3000000);
    close(fd);
    return NULL;
}

/* want: the lines given before the end; chunked: read through
 * sat_input_read_lines (the parallel parser's reader) */
static void one_of(const unsigned char *bytes, size_t n, const char *what, int want, int chunked)
{
    unlink(fifo);
    CHECK_EQ_INT(mkfifo(fifo, 0600), 0);
    flag = 0;
    sat_input_set_interrupt(&flag);
    feeder f = {bytes, n};
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, feed, &f), 0);
    double t0 = now();
    sat_diag d = {0};
    sat_input *in = sat_input_open(fifo, &d);
    CHECK(in != NULL);
    int got = 0, rc = -1;
    const char *l;
    size_t len;
    if (!chunked) {
        while (in && (rc = sat_input_next_line(in, &l, &len, &d)) == 1)
            got++;
    } else {
        static char chunk[((size_t)1 << 20) + 64]; /* want + 1 MiB + 1 at least */
        while (in && (rc = sat_input_read_lines(in, chunk, sizeof chunk, 16, &len, &d)) == 1)
            for (size_t i = 0; i < len; i++)
                got += chunk[i] == '\n';
    }
    double el = now() - t0;
    fprintf(stderr, "%s: %d lines, ended after %.2f s\n", what, got, el);
    CHECK_EQ_INT(got, want);
    CHECK_EQ_INT(rc, 0); /* an end of input, not an error (a gzip stream left open) */
    CHECK_EQ_INT(sat_input_interrupted(in), 1);
    CHECK(el < 2.5); /* the flag ended the wait, not the writer's close */
    sat_input_close(in);
    sat_input_set_interrupt(NULL);
    pthread_join(t, NULL);
    unlink(fifo);
}

static void one(const unsigned char *bytes, size_t n, const char *what)
{
    one_of(bytes, n, what, 3, 0);
}

static void test_fifo(void)
{
    one((const unsigned char *)lines, sizeof lines - 1, "plain");
    /* the interrupt in the middle of the third line: two lines, never "line th" */
    static const char cut[] = "line one\nline two\nline th";
    one_of((const unsigned char *)cut, sizeof cut - 1, "cut line", 2, 0);
    one_of((const unsigned char *)cut, sizeof cut - 1, "cut line, chunks", 2, 1);
    /* gzip, flushed but not finished: the writer would go on */
    unsigned char gz[256];
    z_stream z;
    memset(&z, 0, sizeof z);
    CHECK_EQ_INT(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)lines;
    z.avail_in = sizeof lines - 1;
    z.next_out = gz;
    z.avail_out = sizeof gz;
    CHECK_EQ_INT(deflate(&z, Z_FULL_FLUSH), Z_OK);
    size_t n = sizeof gz - z.avail_out;
    deflateEnd(&z);
    one(gz, n, "gzip");
}

static void test_run_stopped(void)
{
    char a[160];
    snprintf(a, sizeof a, "%s/a.log", tmpdir);
    FILE *f = fopen(a, "w");
    fputs("[09/Jun/2025:14:00:00.000000001 +0000] conn=1 fd=64 slot=64 connection from 127.0.0.1 to 127.0.0.1\n", f);
    fclose(f);
    const char *paths[] = {a, a};
    volatile sig_atomic_t stop = 1;
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    o.stop = &stop;
    sat_event_sink none;
    memset(&none, 0, sizeof none);
    sat_collect_stats st;
    sat_diag d = {0};
    CHECK_EQ_INT(sat_collect_run(paths, 1, &o, &none, &st, &d), 0);
    CHECK_EQ_INT(st.interrupted, 1);
    CHECK_EQ_INT(st.not_started, 1);
    CHECK_EQ_INT(st.lines, 0);
    (void)paths;
    unlink(a);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sat_test_intr.XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    snprintf(fifo, sizeof fifo, "%s/fifo", tmpdir);
    test_fifo();
    test_run_stopped();
    rmdir(tmpdir);
    return CHECK_DONE();
}
