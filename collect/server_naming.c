/*
 * server_naming.c - the name of the server a source was read from
 * (sat_source.server_name): --server NAME or NAME=PATH, else the name the
 * log's own header gives (389's host line), else the caller's default (the
 * CLI names inputs that share a file name by their directory), else none
 * (the report then names the server by its input's path).
 */
#include <string.h>

#include "satscope/collect.h"

void sat_collect_name_source(const sat_collect_opts *opts, const char *path, sat_source *src)
{
    if (!opts || !src)
        return;
    const sat_server_naming *own = NULL, *every = NULL;
    for (size_t i = 0; i < opts->nserver_names; i++) {
        const sat_server_naming *n = &opts->server_names[i];
        if (n->path && path && !strcmp(n->path, path) && (!own || n->is_explicit))
            own = n; /* an explicit name before a default one */
        else if (!n->path && !every)
            every = n;
    }
    const sat_server_naming *n = own ? own : every;
    if (!n || !n->name)
        return;
    if (n->is_explicit || !sat_str_present(src->server_name))
        src->server_name = sat_str_cstr(n->name);
}
