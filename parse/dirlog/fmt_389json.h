/*
 * fmt_389json.h - (internal to parse/) decoding one 389 JSON access-log object.
 * The 389 text format hands over lines that start with '{' (logs that switched
 * format mid-file, as in 389's own logconv test) so both share one decoder.
 */
#ifndef SAT_FMT_389JSON_H
#define SAT_FMT_389JSON_H

#include "satscope/parse.h"

/* Decodes one complete JSON object (obj[0..len)) and feeds the records it
 * describes to ctx->join; a malformed object is rejected via
 * sat_parse_reject with line_no. Returns SAT_OK or a sink's negative status. */
int sat_389json_object(sat_parse_ctx *ctx, const char *obj, size_t len,
                       uint64_t line_no);

#endif
