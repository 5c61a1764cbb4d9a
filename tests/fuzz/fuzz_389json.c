/*
 * fuzz_389json.c - libFuzzer target for the 389 JSON access-log format and
 * its JSON reader: the input line by line through sat_fmt_389json (one object
 * a line or pretty-printed), and whole through sat_389json_object, the
 * stateless entry point the 389 text parser uses.
 */
#include "fuzz_format.h"
#include "../../parse/dirlog/fmt_389json.h" /* internal to parse/ */

extern const sat_log_format sat_fmt_389json;

static void whole_object(sat_parse_ctx *ctx, const uint8_t *data, size_t size)
{
    sat_389json_object(ctx, (const char *)data, size, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_format(&sat_fmt_389json, data, size, 1000, 0, whole_object);
    return 0;
}
