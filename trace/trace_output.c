/*
 * trace_output.c - the .sat writer's writes to its descriptor: the file the
 * safe writer made (include/satscope/safe_out.h: a temporary file beside
 * PATH, renamed onto it when complete, so a trace exists under its final
 * name only when complete: trace/FORMAT.md) or a stream (standard output),
 * where the blocks and the footer are written in order and nothing is
 * renamed.
 */
#include <errno.h>
#include <unistd.h>

#include "trace_internal.h"

int sat_trace_write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}
