/*
 * cmd_cachesize.c - `satscope cachesize INPUT... [--target 0.95,0.99] [--json]`
 * (issue 6): the LRU miss-ratio curve of the entries the logs name, and the
 * entry, DN and DB cache sizes for target hit ratios, with the entry size
 * from --entry-size, cn=monitor snapshots (--monitor) or an LDIF export
 * (--ldif), and the DB files from --db-dir. The files given to those options
 * are read here; the analysis is analyze/cachesize.c.
 */
#include <strings.h> /* strncasecmp */
#include <dirent.h>
#include <errno.h>
#include <getopt.h> /* optarg */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

extern const sat_command sat_cmd_cachesize;

#define MONITOR_MAX_BYTES (16u << 20)

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

enum { OPT_ENTRY_SIZE = 0x300, OPT_MONITOR, OPT_LDIF, OPT_DB_DIR, OPT_MAX_REFS, OPT_SHARDS,
       OPT_SMAX };

static const sat_cli_opt cs_opts[] = {
    {"target", 't', 0, "LIST", "target hit ratios, comma-separated (default 0.95,0.99)", NULL},
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
    {"json", SAT_OPT_JSON, 0, NULL,
     "JSON (targets, recommend, references, unique, mrc,\n"
     "unseen_share, method)", NULL},
    {"csv", SAT_OPT_CSV, 0, NULL,
     "CSV: the recommendation, one row per target (hit_ratio,\n"
     "reachable, entries, bytes)", NULL},
    {"csv-dir", SAT_OPT_CSV_DIR, 0, "DIR",
     "every CSV table as DIR/NAME.csv; --csv NAME prints\n"
     "one (tables: targets, working_set, mrc)", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

static int run_cachesize(int argc, char **argv)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    c.no_filter_shapes = 1;
    sat_cs_opts o;
    memset(&o, 0, sizeof o);
    sat_cs_monitor mon[2];
    size_t nmon = 0;
    int partial = 0;
    sat_cli_args a;
    sat_cli_args_init(&a, &sat_cmd_cachesize, &c);
    int opt;
    while ((opt = sat_cli_args_next(&a, argc, argv)) != -1) {
        switch (opt) {
        case 't':
            if (parse_targets(optarg, &o))
                return sat_cli_usage_error("cachesize", "bad --target '%s' (ratios in (0, 1), "
                                           "comma-separated, at most 8)", optarg);
            break;
        case OPT_ENTRY_SIZE:
            if (sat_cli_parse_number(optarg, 1, 1e9, &o.entry_bytes))
                return sat_cli_usage_error("cachesize", "bad --entry-size '%s'", optarg);
            break;
        case OPT_MONITOR: {
            int r = read_monitor(optarg, mon, &nmon);
            if (r < 0)
                return sat_cli_usage_error("cachesize", "--monitor %s: %s", optarg,
                                           strerror(errno));
            if (r > 0) {
                fprintf(stderr, "satscope cachesize: %s: no cn=monitor cache counters found%s\n",
                        optarg, nmon >= 2 ? " (two snapshots already read)" : "");
                partial = 1;
            }
            break;
        }
        case OPT_LDIF:
            if (read_ldif(optarg, &o.ldif_entries, &o.ldif_bytes) < 0)
                return sat_cli_usage_error("cachesize", "--ldif %s: %s", optarg,
                                           strerror(errno));
            if (!o.ldif_entries) {
                fprintf(stderr, "satscope cachesize: %s: no LDIF entry (dn: line) found\n",
                        optarg);
                partial = 1;
            }
            break;
        case OPT_DB_DIR: {
            int r = read_db_dir(optarg, &o);
            if (r < 0)
                return sat_cli_usage_error("cachesize", "--db-dir %s: %s", optarg,
                                           strerror(errno));
            if (r > 0) {
                fprintf(stderr, "satscope cachesize: %s: neither .db files (BerkeleyDB) nor "
                                "data.mdb (LMDB)\n", optarg);
                partial = 1;
            }
            break;
        }
        case OPT_MAX_REFS:
            if (parse_count(optarg, 1000, 1e12, &o.max_refs))
                return sat_cli_usage_error("cachesize", "bad --max-refs '%s'", optarg);
            break;
        case OPT_SHARDS:
            o.force_shards = 1;
            break;
        case OPT_SMAX: {
            uint64_t v;
            if (parse_count(optarg, 64, 1 << 24, &v))
                return sat_cli_usage_error("cachesize", "bad --shards-smax '%s'", optarg);
            o.shards_smax = (size_t)v;
            break;
        }
        }
    }
    if (a.exit >= 0)
        return a.exit;
    o.monitor = mon;
    o.nmonitor = nmon;
    int code = sat_cli_analyze_args(&c, "cachesize", &o, a.fmt, argc, argv);
    for (size_t i = 0; i < o.db_nlist; i++)
        free((void *)o.db_list[i].name);
    free((void *)o.db_list);
    return code == SAT_EXIT_OK && partial ? SAT_EXIT_REJECTS : code;
}

const sat_command sat_cmd_cachesize = {
    "cachesize", "entry, DN and DB cache sizes for target hit ratios, from the access pattern",
    run_cachesize,
    "INPUT... [--target 0.95,0.99] [--entry-size BYTES]\n"
    "                          [--monitor FILE]... [--ldif FILE] [--db-dir DIR] [--json|--csv]",
    "How big the 389 entry cache, DN cache and DB cache must be for a target hit\n"
    "ratio, from the entries the access logs (389, OpenLDAP), captures or .sat\n"
    "traces name. The reference stream: the DN of every BIND with a DN, ADD, MOD,\n"
    "DEL, CMP, MODRDN (the old DN and the new one), and the base of every\n"
    "scope=base search, internal operations included; DNs compared in lower\n"
    "case without blanks after commas. Not references: the root DSE, cn=config,\n"
    "cn=schema, cn=monitor and the root DN (no backend entry). One-level and\n"
    "subtree searches read entries the log does not name: they are counted and\n"
    "their share reported as the part of the load the curve cannot see (also\n"
    "389 ENTRY lines, whose DNs are not kept).\n"
    "The curve is LRU's hit ratio for every cache size: exact (Mattson stack\n"
    "distances) while the references fit --max-refs, else SHARDS sampling\n"
    "(Waldspurger et al., FAST'15); the report says which. Cold misses count:\n"
    "a short log cannot show a hit ratio above 1 - distinct / references.",
    cs_opts, SAT_CLI_INPUT_OPTS | SAT_CLI_REPORT_OPTS | SAT_CLI_ANALYSIS_OPTS, SAT_CLI_EXIT_NOTE};
