/*
 * fuzz_pkt_decode.c - libFuzzer target for sat_pkt_decode: the first byte
 * picks the link type, the rest is the frame (exactly as long as given, so a
 * read past caplen is caught by ASan); the payload view is touched whole.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/wire.h"

static volatile size_t fuzz_touched;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int lts[] = {1, 113, 276, 101, 12, 14, 0, 108, 228, 229, 147};
    if (size < 1)
        return 0;
    int lt = lts[data[0] % (sizeof lts / sizeof lts[0])];
    size_t n = size - 1;
    uint8_t *frame = malloc(n ? n : 1);
    if (!frame)
        return 0;
    memcpy(frame, data + 1, n);
    sat_packet p;
    memset(&p, 0, sizeof p);
    const char *why = NULL;
    int rc = sat_pkt_decode(lt, frame, n, &p, &why);
    if (rc == SAT_OK) {
        if (p.payload_len > p.payload_wire_len)
            abort();
        for (size_t i = 0; i < p.payload_len; i++)
            fuzz_touched += p.payload[i];
    } else if (rc < 0 && !why) {
        abort(); /* every failure says why */
    }
    free(frame);
    return 0;
}
