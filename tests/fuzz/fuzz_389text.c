/*
 * fuzz_389text.c - libFuzzer target for the 389 text access-log format and
 * the joiner behind it. A tiny max_pending makes the eviction path reachable;
 * the filter shaper sees the whole input as a filter.
 */
#include "fuzz_format.h"

extern const sat_log_format sat_fmt_389text;

static void shape_whole(sat_parse_ctx *ctx, const uint8_t *data, size_t size)
{
    char shape[64];
    (void)ctx;
    sat_filter_shape((const char *)data, size, shape, sizeof shape);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_format(&sat_fmt_389text, data, size, 8, 0, shape_whole);
    return 0;
}
