/*
 * fuzz_http_pattern.c - libFuzzer target for --pattern (parse/http/http_pattern.c):
 * the input's first line is a PCRE2 pattern, the others are log lines, each
 * in its own heap copy with no NUL after it; a pattern that compiles is
 * matched against every line and the captures go through the row builder,
 * whose row strings are walked.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../parse/http/http_pattern.h"

static volatile size_t fuzz_touched;

static void touch(sat_str s)
{
    for (uint32_t k = 0; s.ptr && k < s.len; k++)
        fuzz_touched += (unsigned char)s.ptr[k];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    const char *nl = memchr(p, '\n', size);
    size_t relen = nl ? (size_t)(nl - p) : size;
    if (relen > 4096) /* compile time grows with the pattern: keep runs short */
        return 0;
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_http_pattern *pat = sat_http_pattern_compile(p, relen, &d);
    if (!pat)
        return 0;
    sat_http_matcher m;
    if (sat_http_pattern_matcher(pat, &m) != SAT_OK) {
        sat_http_pattern_free(pat);
        return 0;
    }
    sat_http_scratch scratch;
    for (const char *q = nl ? nl + 1 : end; q < end;) {
        const char *e = memchr(q, '\n', (size_t)(end - q));
        size_t n = e ? (size_t)(e - q) : (size_t)(end - q);
        char *line = malloc(n ? n : 1);
        if (!line)
            break;
        memcpy(line, q, n);
        sat_http_caps caps;
        const char *why = NULL;
        if (m.match(m.self, line, n, &caps, &why) == 1) {
            sat_http_req row;
            if (sat_http_row_build(&caps, &m.facts, &scratch, &row, &why) == SAT_OK) {
                touch(row.client_ip);
                touch(row.method);
                touch(row.path);
                touch(row.path_template);
                touch(row.protocol);
                touch(row.tls_protocol);
                touch(row.vhost);
                touch(row.user);
                touch(row.user_agent);
            }
        } else if (!why) {
            abort(); /* a line not matched always says why */
        }
        free(line);
        q = e ? e + 1 : end;
    }
    m.free(m.self);
    sat_http_pattern_free(pat);
    return 0;
}
