/*
 * fuzz_http_format.c - libFuzzer target for the HTTP log format compiler
 * (parse/http/http_format*.c): arbitrary bytes as a --log-format definition (a
 * preset name, an nginx body, an Apache or Tomcat pattern, quoted or not).
 * A definition that compiles is matched against a few lines of every server
 * and the definition itself, each line in a heap copy of its exact size, and
 * the rows built from what matched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../parse/http/http_int.h"

static volatile size_t touched;

static void touch(sat_str s)
{
    for (uint32_t k = 0; s.ptr && k < s.len; k++)
        touched += (unsigned char)s.ptr[k];
}

static void try_line(const sat_http_format *f, const char *text, size_t n)
{
    char *line = malloc(n ? n : 1);
    if (!line)
        return;
    memcpy(line, text, n);
    sat_http_caps caps;
    const char *why;
    static sat_http_scratch scratch;
    if (sat_http_format_match(f, line, n, &caps, &why)) {
        sat_http_req r;
        if (sat_http_row_build(&caps, sat_http_format_facts(f), &scratch, &r, &why) == SAT_OK) {
            sat_str all[] = {r.client_ip, r.method, r.path, r.path_template, r.protocol,
                             r.tls_protocol, r.vhost, r.user, r.user_agent};
            for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
                touch(all[i]);
        }
    }
    free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *def = malloc(size + 1);
    if (!def)
        return 0;
    memcpy(def, data, size);
    def[size] = '\0';
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_http_format *f = sat_http_format_compile(def, &d);
    if (f) {
        static const char *const lines[] = {
            "127.0.0.1 - - [01/Dec/2026:16:45:44 +0000] \"GET /a?b HTTP/1.1\" 200 512 \"-\" \"c\"",
            "127.0.0.1 2 1 1796143544.592 2026-12-01T16:45:44+00:00 \"GET /x HTTP/1.1\" 200 512 "
            "0.000 - TLSv1.2 .",
            "127.0.0.1 127.0.0.1 - - [01/Dec/2026:16:46:59 +0000] \"GET /s HTTP/1.1\" 200 512 955 "
            "0 0 955 0 TLSv1.2 Initial",
            "127.0.0.1 [01/Dec/2026:16:47:06 +0000] \"-\" 400 0 null 1796143626609 1796143626609 - - -",
            "",
        };
        for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
            try_line(f, lines[i], strlen(lines[i]));
        try_line(f, def, size);
        sat_http_format_free(f);
    }
    free(def);
    return 0;
}
