/*
 * cli_http.c - what --log-format, --log-format-file and --pattern say
 * together, settled once the options are all read (docs/http.md):
 *   --log-format DEF                      DEF as it is (checked here);
 *   --log-format-file FILE [--log-format NAME]
 *                                         the definition NAME stands for in the
 *                                         server's configuration file (by name,
 *                                         by the log file it writes; without
 *                                         NAME: the inputs' own file names, else
 *                                         the file's only definition);
 *   --pattern REGEX                       a PCRE2 pattern ("pcre2:" definitions).
 * The result is the one string collect/ hands every HTTP log parser
 * (sat_cli_collect.log_format).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "satscope/http_conf.h"
#include "satscope/parse.h"

/* A configuration file bigger than this is not one (the largest real
 * httpd.conf / server.xml are a few hundred KB). */
#define CONF_MAX (16u << 20)

/* The settled definition: one per process (the options are read once). */
static char http_def[65536];

static char *read_conf(const char *path, size_t *len, int *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *err = errno;
        return NULL;
    }
    size_t cap = 0, n = 0;
    char *buf = NULL;
    for (;;) {
        if (n == cap) {
            if (cap >= CONF_MAX) {
                *err = EFBIG;
                free(buf);
                buf = NULL;
                break;
            }
            /* room for 64 KiB more: 64 KiB first, then doubling */
            if (SAT_GROW(buf, cap, n + 65536) != SAT_OK) {
                free(buf);
                buf = NULL;
                *err = ENOMEM;
                break;
            }
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            if (ferror(f)) {
                *err = errno ? errno : EIO;
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    if (!buf && !*err)
        *err = ENOMEM;
    fclose(f);
    *len = n;
    return buf;
}

/* The definition of FILE that the inputs' names pick, when they agree. */
static const sat_http_conf_def *by_inputs(const sat_http_conf *conf, char *const *inputs,
                                          size_t n, const char **clash_a, const char **clash_b)
{
    const sat_http_conf_def *found = NULL;
    const char *first = NULL;
    for (size_t i = 0; i < n; i++) {
        sat_diag d;
        memset(&d, 0, sizeof d);
        const sat_http_conf_def *def = sat_http_conf_lookup(conf, inputs[i], &d);
        if (!def)
            continue;
        if (found && strcmp(found->definition, def->definition) != 0) {
            *clash_a = first;
            *clash_b = inputs[i];
            return NULL;
        }
        if (!found) {
            found = def;
            first = inputs[i];
        }
    }
    return found;
}

static int from_file(sat_cli_collect *c, const char *cmd, char *const *inputs, size_t n)
{
    const char *path = c->log_format_file;
    size_t len = 0;
    int err = 0;
    char *text = read_conf(path, &len, &err);
    if (!text) {
        fprintf(stderr, "satscope %s: --log-format-file %s: %s\n", cmd, path, strerror(err));
        return SAT_EXIT_UNREADABLE;
    }
    sat_http_conf *conf = NULL;
    sat_diag d;
    memset(&d, 0, sizeof d);
    int rc = sat_http_conf_parse(text, len, SAT_HTTP_CONF_AUTO, &conf, &d);
    free(text);
    if (rc == SAT_E_FORMAT && !c->quiet) /* what came before the fault is still used */
        fprintf(stderr, "satscope %s: %s: %s: %s\n", cmd, path, d.where, d.msg);
    if (!conf) {
        fprintf(stderr, "satscope %s: --log-format-file %s: %s\n", cmd, path, sat_strerror(rc));
        return SAT_EXIT_UNREADABLE;
    }
    /* "tomcat9:NAME": a Tomcat 9 server.xml (its %D is in ms) */
    const char *name = c->log_format;
    int tomcat9 = 0;
    if (name && strncmp(name, "tomcat9:", 8) == 0) {
        tomcat9 = 1;
        name += 8;
    }
    const sat_http_conf_def *def = NULL;
    memset(&d, 0, sizeof d);
    if (name && *name) {
        def = sat_http_conf_lookup(conf, name, &d);
    } else {
        const char *a = NULL, *b = NULL;
        def = by_inputs(conf, inputs, n, &a, &b);
        if (!def && a) {
            fprintf(stderr, "satscope %s: --log-format-file %s: %s and %s are written with "
                            "different formats: read them in separate runs, or name one with "
                            "--log-format NAME\n", cmd, path, a, b);
            sat_http_conf_free(conf);
            return SAT_EXIT_USAGE;
        }
        if (!def)
            def = sat_http_conf_lookup(conf, NULL, &d);
    }
    int code = 0;
    if (!def) {
        fprintf(stderr, "satscope %s: --log-format-file %s: %s%s\n", cmd, path, d.msg,
                name && *name ? "" : "; name one with --log-format NAME");
        code = SAT_EXIT_USAGE;
    } else if (def->note) {
        fprintf(stderr, "satscope %s: %s: line %u: %s%s%s: %s\n", cmd, path, def->line,
                def->name[0] ? "'" : "", def->name, def->name[0] ? "'" : "", def->note);
        code = SAT_EXIT_USAGE;
    } else if (def->server != SAT_HTTP_CONF_TOMCAT && tomcat9) {
        fprintf(stderr, "satscope %s: --log-format tomcat9:%s: %s is %s's configuration, not "
                        "Tomcat's\n", cmd, name, path,
                sat_http_conf_server_name(def->server));
        code = SAT_EXIT_USAGE;
    } else if (sat_http_conf_format_arg(def, tomcat9, http_def, sizeof http_def) >=
               sizeof http_def) {
        fprintf(stderr, "satscope %s: %s: line %u: the definition is too long\n", cmd, path,
                def->line);
        code = SAT_EXIT_USAGE;
    } else {
        memset(&d, 0, sizeof d);
        if (sat_http_log_format_check(http_def, &d) < 0) {
            fprintf(stderr, "satscope %s: %s: line %u: %s: %s\n", cmd, path, def->line,
                    def->name[0] ? def->name : "the format", d.msg);
            code = SAT_EXIT_USAGE;
        } else {
            c->log_format = http_def;
        }
    }
    sat_http_conf_free(conf);
    return code;
}

int sat_cli_http_settle(sat_cli_collect *c, const char *cmd, char *const *inputs, size_t n)
{
    if (c->http_settled)
        return 0;
    c->http_settled = 1;
    int http = c->log_format || c->log_format_file || c->log_pattern;
    if (http && c->format && strcmp(c->format, "http") != 0)
        return sat_cli_usage_error(cmd, "--%s reads HTTP logs: --format %s contradicts it",
                                   c->log_pattern ? "pattern"
                                   : c->log_format_file ? "log-format-file"
                                                        : "log-format",
                                   c->format);
    if (c->log_pattern) {
        if (c->log_format || c->log_format_file)
            return sat_cli_usage_error(cmd, "--pattern and --%s: give one of them",
                                       c->log_format_file ? "log-format-file" : "log-format");
        int w = snprintf(http_def, sizeof http_def, "pcre2:%s", c->log_pattern);
        if (w < 0 || (size_t)w >= sizeof http_def)
            return sat_cli_usage_error(cmd, "--pattern is too long");
        sat_diag d;
        memset(&d, 0, sizeof d);
        if (sat_http_log_format_check(http_def, &d) < 0)
            return sat_cli_usage_error(cmd, "bad --pattern: %s", d.msg);
        c->log_format = http_def;
        return 0;
    }
    if (c->log_format_file)
        return from_file(c, cmd, inputs, n);
    if (c->log_format) {
        sat_diag d;
        memset(&d, 0, sizeof d);
        if (sat_http_log_format_check(c->log_format, &d) < 0)
            return sat_cli_usage_error(cmd, "bad --log-format: %s", d.msg);
    }
    return 0;
}
