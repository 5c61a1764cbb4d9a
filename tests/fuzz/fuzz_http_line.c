/*
 * fuzz_http_line.c - libFuzzer target for the HTTP access-log line parser
 * (parse/http/fmt_http.c and everything below it) through the "http" format's own
 * entry points: the first byte picks the format - the standard ones detected
 * line by line, one of the presets, or a fuzzer-chosen definition written as
 * the input's first line - and the rest are lines, each in a heap copy of
 * its exact size (as collect/ hands lines over: a read past a line's end is
 * caught by ASan), every string of every row and reject touched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../parse/http/http_int.h"

extern const sat_log_format sat_fmt_http;

static volatile size_t http_touched;

static int on_row(void *ctx, int table, const void *row)
{
    (void)ctx;
    if (table == SAT_TABLE_HTTP_REQ) {
        const sat_http_req *r = row;
        sat_str all[] = {r->client_ip, r->method, r->path, r->path_template, r->protocol,
                         r->tls_protocol, r->vhost, r->user, r->user_agent};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            for (uint32_t k = 0; all[i].ptr && k < all[i].len; k++)
                http_touched += (unsigned char)all[i].ptr[k];
        return 0;
    }
    if (table == SAT_TABLE_REJECT) {
        const sat_reject *x = row;
        for (uint32_t k = 0; x->excerpt.ptr && k < x->excerpt.len; k++)
            http_touched += (unsigned char)x->excerpt.ptr[k];
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    unsigned pick = data[0];
    data++;
    size--;
    char def[512];
    const char *log_format = NULL;
    size_t npresets = 0;
    while (sat_http_preset_name(npresets))
        npresets++;
    if (pick % 4 == 1) {
        log_format = sat_http_preset_name((pick / 4) % npresets);
    } else if (pick % 4 == 2) {
        /* the first line is the definition */
        const uint8_t *nl = memchr(data, '\n', size);
        size_t n = nl ? (size_t)(nl - data) : size;
        if (n >= sizeof def)
            n = sizeof def - 1;
        memcpy(def, data, n);
        def[n] = '\0';
        sat_diag d;
        memset(&d, 0, sizeof d);
        if (sat_http_log_format_check(def, &d) == SAT_OK)
            log_format = def;
    }
    sat_event_sink sink = {NULL, SAT_TABLES_ALL, on_row};
    sat_source src;
    memset(&src, 0, sizeof src);
    sat_parse_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.sink = &sink;
    ctx.source = &src;
    ctx.reject_sample_max = 4;
    ctx.log_format = log_format;
    sat_ts_ns ts;
    (void)sat_fmt_http.sniff((const char *)data, size);
    (void)sat_fmt_http.first_ts((const char *)data, size, &ts);
    void *st = sat_fmt_http.create(&ctx);
    if (!st)
        return 0;
    const char *p = (const char *)data, *end = p + size;
    uint64_t line_no = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        char *line = malloc(n ? n : 1);
        if (!line)
            break;
        memcpy(line, p, n);
        sat_fmt_http.line(st, line, n, ++line_no);
        free(line);
        p = nl ? nl + 1 : end;
    }
    sat_fmt_http.finish(st);
    sat_fmt_http.destroy(st);
    return 0;
}
