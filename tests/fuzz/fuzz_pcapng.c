/*
 * fuzz_pcapng.c - libFuzzer target for the pcapng block reader (parse/wire/pcapng.c,
 * sat_pcapng_next) driven as collect/capture.c drives it: the first byte picks how
 * many bytes arrive at a time (0: all at once), the rest is the file. The bytes the
 * reader sees are always a heap copy exactly as long as the window it was given, so
 * a read past them is caught by ASan; every packet goes on to sat_pkt_decode with its
 * interface's link type. Checked: a step consumes no more than it was given, MORE asks
 * for more than it has, the reading ends (END or STOP) in a bounded number of steps,
 * a REJECT or STOP says why, a packet lies inside its window.
 * Seeds (corpus/fuzz_pcapng): the byte strings test_pcapng builds (written with
 * SAT_WRITE_SEEDS=DIR), and the first blocks of fixtures/pcapng/two-sections.pcapng.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/wire.h"

static volatile size_t fuzz_touched;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t chunks[] = {0, 1, 3, 4, 7, 8, 12, 64, 4096};
    if (size < 1)
        return 0;
    size_t chunk = chunks[data[0] % (sizeof chunks / sizeof chunks[0])];
    const uint8_t *file = data + 1;
    size_t n = size - 1;
    sat_pcapng *r = sat_pcapng_create();
    if (!r)
        return 0;
    size_t start = 0, end = chunk && chunk < n ? chunk : n;
    uint8_t *win = NULL; /* the window [start, end) copied exactly */
    int fresh = 0;
    size_t max_steps = 4 * n + 64;
    for (size_t steps = 0;; steps++) {
        if (steps > max_steps)
            abort(); /* the reader must end */
        if (!fresh) {
            free(win);
            win = malloc(end - start ? end - start : 1);
            if (!win)
                break;
            if (end > start)
                memcpy(win, file + start, end - start);
            fresh = 1;
        }
        size_t avail = end - start, used = 0;
        sat_pcapng_step s;
        int w = sat_pcapng_next(r, win, avail, end == n, &used, &s);
        if (w < 0)
            break; /* no memory */
        if (used > avail)
            abort();
        if (w == SAT_PCAPNG_MORE) {
            if (s.need <= avail || end == n)
                abort();
            end = chunk ? end + chunk : start + s.need;
            if (end < start + s.need && !chunk)
                end = start + s.need;
            if (end > n)
                end = n;
        } else if (w == SAT_PCAPNG_PACKET) {
            if (s.caplen && (s.data < win || s.data + s.caplen > win + avail))
                abort();
            sat_packet p;
            memset(&p, 0, sizeof p);
            const char *why = NULL;
            if (sat_pkt_decode(s.linktype, s.data, s.caplen, &p, &why) == SAT_OK)
                for (size_t i = 0; i < p.payload_len; i++)
                    fuzz_touched += p.payload[i];
        } else if (w == SAT_PCAPNG_REJECT || w == SAT_PCAPNG_STOP) {
            if (!s.why || !s.kind)
                abort();
            for (size_t i = 0; i < s.head_len; i++)
                fuzz_touched += s.head[i];
        }
        if (w == SAT_PCAPNG_END || w == SAT_PCAPNG_STOP)
            break;
        if (used || w == SAT_PCAPNG_MORE) {
            start += used;
            fresh = 0; /* the window moved: a new exact copy */
        }
    }
    free(win);
    sat_pcapng_free(r);
    return 0;
}
