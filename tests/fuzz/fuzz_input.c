/*
 * fuzz_input.c - collect/input.c on hostile files: the bytes become a file's
 * content, opened with sat_input_open (compression told by magic bytes) and
 * read line by line to the end. Corrupt, truncated and concatenated gzip,
 * bzip2, xz and zstd streams must end in lines and a status, never a crash,
 * a hang, or a line longer than the 1 MiB cap.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "satscope/collect.h"

static char path[64];

static void remove_temp(void)
{
    if (path[0])
        unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/sat_fuzz_input.XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0)
            return 0;
        close(fd);
        atexit(remove_temp);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    if (size)
        fwrite(data, 1, size, f);
    fclose(f);

    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_input *in = sat_input_open(path, &d);
    if (!in)
        return 0;
    size_t plen = 0;
    const char *peek = sat_input_peek(in, &plen);
    if (plen > 65536 || (plen && !peek))
        abort();
    const char *line;
    size_t len;
    uint64_t total = 0;
    int rc;
    while ((rc = sat_input_next_line(in, &line, &len, &d)) == 1) {
        if (len > ((size_t)1 << 20))
            abort();
        total += len;
        if (total > sat_input_bytes(in))
            abort();
    }
    if (rc != 0 && rc != SAT_E_TRUNCATED && rc != SAT_E_IO && rc != SAT_E_NOMEM)
        abort();
    sat_input_close(in);
    return 0;
}
