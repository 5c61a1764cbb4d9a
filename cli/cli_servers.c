/*
 * cli_servers.c - which server each input was read from, named: `--server
 * NAME` (every input) and `--server NAME=PATH` (that input, repeatable) name
 * them whatever their logs say; without them a log's own header names its
 * server (389's host line), and inputs of the same file name in different
 * directories (web1/access.log, web2/access.log: HTTP logs name no host) are
 * named by their directory, so that they are two servers; else the report
 * names a server by its input's path. The names go into the sources' rows
 * (collect.h sat_collect_opts.server_names), so a trace keeps them.
 */
#define _POSIX_C_SOURCE 200809L /* strndup, strdup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

int sat_cli_server_option(sat_cli_collect *c, const char *cmd, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
    if (!nlen)
        return sat_cli_usage_error(cmd, "--server '%s': no name (NAME or NAME=PATH)", arg);
    for (size_t i = 0; i < nlen; i++)
        if ((unsigned char)arg[i] < 0x20 || arg[i] == 0x7f)
            return sat_cli_usage_error(cmd, "--server: the name holds a control character");
    if (eq) {
        struct stat st;
        if (stat(eq + 1, &st) != 0)
            return sat_cli_usage_error(cmd, "--server %s: no such input '%s'", arg, eq + 1);
    }
    for (size_t i = 0; i < c->nserver_args; i++)
        if (!strchr(c->server_args[i], '=') && !eq)
            return sat_cli_usage_error(cmd, "--server given twice without a PATH: %s and %s "
                                            "(NAME=PATH names one input)",
                                       c->server_args[i], arg);
    if (c->nserver_args == sizeof c->server_args / sizeof c->server_args[0])
        return sat_cli_usage_error(cmd, "--server: at most %zu of them",
                                   sizeof c->server_args / sizeof c->server_args[0]);
    c->server_args[c->nserver_args++] = arg;
    return 1;
}

/* The file name of a path, without its rotation and compression suffixes
 * (the rotated set's name: access.20250609-133000.gz is access). */
static char *set_base(const char *path)
{
    char *key = sat_collect_group_key(path);
    if (!key)
        return NULL;
    const char *slash = strrchr(key, '/');
    if (slash)
        memmove(key, slash + 1, strlen(slash + 1) + 1);
    return key;
}

/* The directory an input is in, as given ("web1" of web1/access.log;
 * "." when none is given). */
static void dir_of(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(out, n, ".");
        return;
    }
    size_t len = (size_t)(slash - path);
    const char *start = path;
    for (const char *p = path; p < slash; p++) /* its last component */
        if (*p == '/' && p + 1 < slash)
            start = p + 1;
    len = (size_t)(slash - start);
    snprintf(out, n, "%.*s", (int)len, start);
}

int sat_cli_server_names(sat_cli_collect *c, char *const *paths, size_t npaths,
                         sat_server_naming **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    sat_server_naming *names = calloc(c->nserver_args + npaths + 1, sizeof *names);
    char **bases = calloc(npaths + 1, sizeof *bases);
    char (*dirs)[256] = calloc(npaths + 1, sizeof *dirs);
    int rc = names && bases && dirs ? SAT_OK : SAT_E_NOMEM;
    size_t n = 0;
    for (size_t i = 0; rc == SAT_OK && i < c->nserver_args; i++) {
        const char *a = c->server_args[i], *eq = strchr(a, '=');
        names[n].path = eq ? eq + 1 : NULL;
        names[n].name = eq ? strndup(a, (size_t)(eq - a)) : strdup(a);
        names[n].is_explicit = 1;
        if (!names[n++].name)
            rc = SAT_E_NOMEM;
    }
    /* inputs of one file name in several directories: each named by its
     * directory (when no --server names it) */
    for (size_t i = 0; rc == SAT_OK && i < npaths; i++) {
        bases[i] = set_base(paths[i]);
        if (!bases[i])
            rc = SAT_E_NOMEM;
        else
            dir_of(paths[i], dirs[i], sizeof dirs[i]);
    }
    for (size_t i = 0; rc == SAT_OK && i < npaths; i++) {
        int shared = 0;
        for (size_t k = 0; k < npaths && !shared; k++)
            shared = k != i && !strcmp(bases[i], bases[k]) && strcmp(dirs[i], dirs[k]);
        if (!shared)
            continue;
        names[n].path = paths[i];
        names[n].name = strdup(dirs[i]);
        names[n].is_explicit = 0;
        if (!names[n].name)
            rc = SAT_E_NOMEM;
        n++;
    }
    for (size_t i = 0; bases && i < npaths; i++)
        free(bases[i]);
    free(bases);
    free(dirs);
    if (rc != SAT_OK) {
        sat_cli_server_names_free(names, n);
        return rc;
    }
    *out = names;
    *nout = n;
    return SAT_OK;
}

void sat_cli_server_names_free(sat_server_naming *names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free((char *)names[i].name);
    free(names);
}
