/*
 * fuzz_http_config.c - libFuzzer target for the format definitions found in
 * server configuration text (parse/http/http_config.c): the first byte picks the
 * server (auto, nginx, Apache, Tomcat), the rest is the text, in a heap copy
 * with no NUL after it; every definition and log is walked, and each is
 * looked up by its name and its log's file name, and once with no name.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "satscope/http_conf.h"

static volatile size_t fuzz_touched;

static void touch(const char *s)
{
    for (; s && *s; s++)
        fuzz_touched += (unsigned char)*s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int server = data[0] % 4;
    size_t len = size - 1;
    char *text = malloc(len ? len : 1);
    if (!text)
        return 0;
    memcpy(text, data + 1, len);
    sat_http_conf *c = NULL;
    sat_diag d;
    memset(&d, 0, sizeof d);
    int rc = sat_http_conf_parse(text, len, server, &c, &d);
    if (rc < 0 && rc != SAT_E_FORMAT && c)
        abort(); /* only a syntax error leaves a result */
    if (c) {
        const sat_http_conf_def *defs;
        const sat_http_conf_log *logs;
        const char *const *inc;
        size_t nd = sat_http_conf_defs(c, &defs), nl = sat_http_conf_logs(c, &logs);
        size_t ni = sat_http_conf_includes(c, &inc);
        for (size_t i = 0; i < nd; i++) {
            touch(defs[i].name);
            touch(defs[i].definition);
            touch(defs[i].escape);
            touch(defs[i].note);
            if (!sat_http_conf_lookup(c, defs[i].name, &d) && defs[i].name[0] &&
                sat_http_conf_server_of(c) != SAT_HTTP_CONF_TOMCAT)
                abort(); /* a defined name is always found */
        }
        for (size_t i = 0; i < nl; i++) {
            touch(logs[i].path);
            touch(logs[i].format);
            if (logs[i].def >= (int)nd)
                abort();
            const sat_http_conf_def *f = sat_http_conf_lookup(c, logs[i].path, &d);
            if (f)
                touch(f->definition);
        }
        for (size_t i = 0; i < ni; i++)
            touch(inc[i]);
        const sat_http_conf_def *only = sat_http_conf_lookup(c, NULL, &d);
        if (only)
            touch(only->definition);
        touch(d.msg);
        sat_http_conf_free(c);
    }
    free(text);
    return 0;
}
