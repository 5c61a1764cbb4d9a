/*
 * cli_cache.c - the cache options (cli.h SAT_CLI_CACHE_OPTS): what the
 * server's caches are and how big its entries are (--entry-size, cn=monitor
 * snapshots, an LDIF export, the database directory) and how the miss-ratio
 * curve is computed (--target, --max-refs, --shards, --shards-smax). One
 * table and one parser for every command that runs the cachesize analyzer
 * (cachesize, report, chart): the files the options name are read here,
 * into the sat_cs_opts the command hands to that analyzer.
 */
#include <strings.h> /* strncasecmp */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define MONITOR_MAX_BYTES (16u << 20)

enum { OPT_TARGET = 't', OPT_ENTRY_SIZE = 0x300, OPT_MONITOR, OPT_LDIF, OPT_DB_DIR,
       OPT_MAX_REFS, OPT_SHARDS, OPT_SMAX };

const sat_cli_opt sat_cli_cache_opts[] = {
    {"target", OPT_TARGET, 0, "LIST", "target hit ratios, comma-separated (default 0.95,0.99)",
     NULL},
    {"entry-size", OPT_ENTRY_SIZE, 0, "BYTES", "mean in-memory size of an entry", NULL},
    {"monitor", OPT_MONITOR, 0, "FILE",
     "ldapsearch LDIF of cn=monitor,cn=BACKEND,cn=ldbm\n"
     "database,cn=plugins,cn=config: entry size\n"
     "(currententrycachesize / currententrycachecount), the\n"
     "current sizes and measured hit ratios; give two\n"
     "snapshots (two files, or two entries) for the hit ratio\n"
     "between them", NULL},
    {"ldif", OPT_LDIF, 0, "FILE",
     "an LDIF export (db2ldif, ldapsearch): mean bytes per\n"
     "entry (text bytes: less than the in-memory size)", NULL},
    {"db-dir", OPT_DB_DIR, 0, "DIR",
     "the backend's database directory: nsslapd-dbcachesize\n"
     "is the BerkeleyDB index files the workload reads\n"
     "(entryrdn, ancestorid for subtree searches, the\n"
     "attributes the logged filters test) and the part of\n"
     "id2entry.db its distinct entries make (with --ldif);\n"
     "LMDB (data.mdb) has no DB cache", NULL},
    {"max-refs", OPT_MAX_REFS, 0, "N", "references kept before sampling (default 16777216)", NULL},
    {"shards", OPT_SHARDS, 0, NULL, "SHARDS even when every reference fits", NULL},
    {"shards-smax", OPT_SMAX, 0, "N", "SHARDS sample set size (default 32768)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

static int parse_targets(const char *arg, sat_cs_opts *o)
{
    char buf[256];
    if (strlen(arg) >= sizeof buf)
        return -1;
    strcpy(buf, arg);
    o->ntargets = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        double v;
        if (o->ntargets == SAT_CS_MAX_TARGETS || sat_cli_parse_number(tok, 0, 1, &v) ||
            !(v > 0 && v < 1))
            return -1;
        o->targets[o->ntargets++] = v;
    }
    return o->ntargets ? 0 : -1;
}

static int parse_count(const char *arg, double lo, double hi, uint64_t *out)
{
    double v;
    if (sat_cli_parse_number(arg, lo, hi, &v) || v != (double)(uint64_t)v)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* 0 ok, -1 unreadable (errno), 1 read but no counters */
static int read_monitor(const char *path, sat_cs_monitor *mon, size_t *nmon)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char *buf = malloc(MONITOR_MAX_BYTES);
    if (!buf) {
        fclose(f);
        errno = ENOMEM;
        return -1;
    }
    size_t n = fread(buf, 1, MONITOR_MAX_BYTES, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return -1;
    }
    size_t got = *nmon < 2 ? sat_cs_monitor_parse(buf, n, mon + *nmon, 2 - *nmon) : 0;
    free(buf);
    *nmon += got;
    return got ? 0 : 1;
}

/* entries (blocks with a dn: line) and their bytes, comments and version: left out */
static int read_ldif(const char *path, uint64_t *entries, uint64_t *bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    uint64_t block = 0;
    int in_entry = 0;
    *entries = *bytes = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        size_t len = (size_t)n;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        if (len == 0) {
            if (in_entry) {
                (*entries)++;
                *bytes += block;
            }
            in_entry = 0;
            block = 0;
            continue;
        }
        if (line[0] == '#' || (!in_entry && !strncmp(line, "version:", 8)))
            continue;
        if (!in_entry && !strncasecmp(line, "dn:", 3))
            in_entry = 1;
        if (in_entry)
            block += (uint64_t)len + 1;
    }
    if (in_entry) {
        (*entries)++;
        *bytes += block;
    }
    free(line);
    int bad = ferror(f);
    fclose(f);
    return bad ? -1 : 0;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* 0 ok, -1 unreadable, 1 neither BerkeleyDB nor LMDB files found */
static int read_db_dir(const char *dir, sat_cs_opts *o)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    int lmdb = 0;
    while ((e = readdir(d))) {
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (!strcmp(e->d_name, "data.mdb")) {
            lmdb = 1;
        } else if (ends_with(e->d_name, ".db") || ends_with(e->d_name, ".db4")) {
            o->db_files++;
            if (!strncmp(e->d_name, "id2entry.", 9)) {
                o->db_id2entry_bytes += (uint64_t)st.st_size;
            } else {
                o->db_index_bytes += (uint64_t)st.st_size;
                struct sat_cs_dbfile *nl = (struct sat_cs_dbfile *)realloc(
                    (void *)o->db_list, (o->db_nlist + 1) * sizeof *nl);
                char *name = strdup(e->d_name);
                if (!nl || !name) {
                    free(name);
                    if (nl)
                        o->db_list = nl;
                    continue;
                }
                *strrchr(name, '.') = '\0'; /* "cn.db" -> "cn" */
                nl[o->db_nlist].name = name;
                nl[o->db_nlist].bytes = (uint64_t)st.st_size;
                o->db_list = nl;
                o->db_nlist++;
            }
        }
    }
    closedir(d);
    if (lmdb)
        o->db_kind = SAT_CS_DB_LMDB;
    else if (o->db_files)
        o->db_kind = SAT_CS_DB_BDB;
    return o->db_kind ? 0 : 1;
}

void sat_cli_cache_init(sat_cli_cache *cc)
{
    memset(cc, 0, sizeof *cc);
}

int sat_cli_cache_option(sat_cli_cache *cc, const char *cmd, int opt, const char *arg)
{
    sat_cs_opts *o = &cc->opts;
    switch (opt) {
    case OPT_TARGET:
        if (parse_targets(arg, o))
            return sat_cli_usage_error(cmd, "bad --target '%s' (ratios in (0, 1), "
                                       "comma-separated, at most 8)", arg);
        break;
    case OPT_ENTRY_SIZE:
        if (sat_cli_parse_number(arg, 1, 1e9, &o->entry_bytes))
            return sat_cli_usage_error(cmd, "bad --entry-size '%s'", arg);
        break;
    case OPT_MONITOR: {
        int r = read_monitor(arg, cc->monitor, &cc->nmonitor);
        if (r < 0)
            return sat_cli_usage_error(cmd, "--monitor %s: %s", arg, strerror(errno));
        if (r > 0) {
            fprintf(stderr, "satscope %s: %s: no cn=monitor cache counters found%s\n", cmd, arg,
                    cc->nmonitor >= 2 ? " (two snapshots already read)" : "");
            cc->partial = 1;
        }
        break;
    }
    case OPT_LDIF:
        if (read_ldif(arg, &o->ldif_entries, &o->ldif_bytes) < 0)
            return sat_cli_usage_error(cmd, "--ldif %s: %s", arg, strerror(errno));
        if (!o->ldif_entries) {
            fprintf(stderr, "satscope %s: %s: no LDIF entry (dn: line) found\n", cmd, arg);
            cc->partial = 1;
        }
        break;
    case OPT_DB_DIR: {
        int r = read_db_dir(arg, o);
        if (r < 0)
            return sat_cli_usage_error(cmd, "--db-dir %s: %s", arg, strerror(errno));
        if (r > 0) {
            fprintf(stderr, "satscope %s: %s: neither .db files (BerkeleyDB) nor "
                            "data.mdb (LMDB)\n", cmd, arg);
            cc->partial = 1;
        }
        break;
    }
    case OPT_MAX_REFS:
        if (parse_count(arg, 1000, 1e12, &o->max_refs))
            return sat_cli_usage_error(cmd, "bad --max-refs '%s'", arg);
        break;
    case OPT_SHARDS:
        o->force_shards = 1;
        break;
    case OPT_SMAX: {
        uint64_t v;
        if (parse_count(arg, 64, 1 << 24, &v))
            return sat_cli_usage_error(cmd, "bad --shards-smax '%s'", arg);
        o->shards_smax = (size_t)v;
        break;
    }
    default:
        return 0;
    }
    cc->given = 1;
    return 1;
}

const sat_cs_opts *sat_cli_cache_get(sat_cli_cache *cc)
{
    cc->opts.monitor = cc->monitor;
    cc->opts.nmonitor = cc->nmonitor;
    return &cc->opts;
}

const void *sat_cli_member_opts(sat_cli_cache *cc, const char *name, const void *dflt)
{
    if (cc && cc->given && name && !strcmp(name, "cachesize"))
        return sat_cli_cache_get(cc);
    return dflt;
}

void sat_cli_cache_clear(sat_cli_cache *cc)
{
    for (size_t i = 0; i < cc->opts.db_nlist; i++)
        free((void *)cc->opts.db_list[i].name);
    free((void *)cc->opts.db_list);
    cc->opts.db_list = NULL;
    cc->opts.db_nlist = 0;
}
