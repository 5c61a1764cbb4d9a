/*
 * fuzz_partial.c - libFuzzer target for the .satp reader (include/satscope/
 * partial.h, analyze/partial.c, analyze/state_io.c and every analyzer's
 * *_state.c): arbitrary bytes opened as a partial, each day indexed, loaded
 * into the digest's analyzer set, and when it loads, finished and its
 * results built, as the centre's digest does. Any crash, sanitizer report
 * or unbounded allocation is a bug; a day refused with a message is the
 * expected outcome. Seed corpus: tests/fuzz/corpus/fuzz_partial/ (small
 * partials of real logs, cut and with bytes changed; how: its README).
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "satscope/analyze.h"
#include "satscope/partial.h"
#include "satscope/result.h"

static void quiet(void *ctx, const char *where, const char *msg)
{
    (void)ctx;
    (void)where;
    (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz_partial.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    int ok = write(fd, data, size) == (ssize_t)size;
    close(fd);
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_partial_file *p = ok ? sat_partial_open(path, quiet, NULL, &d) : NULL;
    sat_digest_plan plan;
    sat_digest_plan_init(&plan, NULL, NULL);
    for (size_t i = 0; i < sat_partial_ndays(p); i++) {
        sat_multi *m = sat_multi_create(&plan.set);
        if (!m)
            break;
        if (sat_partial_load(p, i, m, &d) == SAT_OK && sat_multi_finish(m) >= 0) {
            sat_result *res[SAT_DIGEST_ROLES_MAX] = {NULL};
            sat_multi_results(m, res);
            for (size_t k = 0; k < SAT_DIGEST_ROLES_MAX; k++)
                sat_result_free(res[k]);
        }
        sat_multi_free(m);
    }
    sat_partial_close(p);
    unlink(path);
    return 0;
}
