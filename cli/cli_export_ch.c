/*
 * cli_export_ch.c - `satscope export INPUT... --clickhouse URL`: the inputs'
 * rows into ClickHouse over its HTTP interface (cli_clickhouse.c), each
 * table's rows in RowBinary, at most chunk_rows rows or 64 MB per request
 * (and 128 MB held over all tables), so that no table is ever whole in
 * memory.
 *
 * Once per source, whatever happens (docs/clickhouse.md): an export's
 * fingerprint is a hash of its inputs (each file's path, size, first and
 * last 64 KiB) and of what chooses their rows (--from, --to, --server), and
 * every row carries it (column export_fp). When a table's rows are all in
 * and counted back, a row of <db>.exports records it. Exporting again:
 *   - a table recorded is skipped ("already exported: N rows");
 *   - rows of the fingerprint without a record (an export that failed or
 *     was killed half-way) are deleted first (ALTER ... DELETE, waited for;
 *     on a Distributed table, on every shard's table) and inserted again;
 *   - inputs that an export of another fingerprint recorded (the same log
 *     in a different set) are refused: inserting them would count them twice.
 * ClickHouse 18.16 has no deduplication of inserts outside Replicated tables,
 * and a ReplacingMergeTree would need FINAL in every query: hence the record.
 * Every statement reads and writes the tables by their names, so a
 * Distributed table (inserted into synchronously, cli_clickhouse.c) is
 * checked and counted through as a MergeTree one.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream, strdup */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli_export.h"
#include "satscope/anonymize.h"

#define CHUNK_ROWS_DEFAULT 1000000u
#define CHUNK_BYTES (64u << 20)    /* a request's body at most (about) */
#define BUFFERED_MAX (128u << 20)  /* held over all tables at most (about) */
#define FP_EDGE 65536              /* bytes hashed at each end of a file */

/* ---- the fingerprint of the inputs ------------------------------------------------- */

typedef struct fp_list {
    uint64_t *v;
    size_t n, cap;
} fp_list;

static uint64_t hash_final(crypto_generichash_state *h)
{
    unsigned char out[8];
    crypto_generichash_final(h, out, sizeof out);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)out[i] << (8 * i);
    return v ? v : 1; /* 0 is the DEFAULT of rows inserted without one */
}

/* A file: its path as named, its size, its first and last FP_EDGE bytes (a
 * log that grew since is another source). -1 with errno. */
static int file_fp(const char *path, uint64_t *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    struct stat st;
    unsigned char *buf = (unsigned char *)malloc(FP_EDGE);
    if (!buf || fstat(fileno(f), &st) != 0) {
        free(buf);
        fclose(f);
        return -1;
    }
    crypto_generichash_state h;
    crypto_generichash_init(&h, NULL, 0, 8);
    crypto_generichash_update(&h, (const unsigned char *)path, strlen(path) + 1);
    uint64_t size = (uint64_t)st.st_size;
    crypto_generichash_update(&h, (const unsigned char *)&size, sizeof size);
    size_t n = fread(buf, 1, FP_EDGE, f);
    crypto_generichash_update(&h, buf, n);
    if (size > FP_EDGE && fseeko(f, (off_t)(size - FP_EDGE), SEEK_SET) == 0) {
        n = fread(buf, 1, FP_EDGE, f);
        crypto_generichash_update(&h, buf, n);
    }
    int bad = ferror(f);
    fclose(f);
    free(buf);
    *out = hash_final(&h);
    if (bad)
        errno = EIO;
    return bad ? -1 : 0;
}

static int fp_push(fp_list *l, const char *path)
{
    uint64_t v;
    if (file_fp(path, &v) < 0) {
        fprintf(stderr, "satscope export: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (SAT_GROW(l->v, l->cap, l->n + 1))
        return -1;
    l->v[l->n++] = v;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What the inputs name (collect_inputs.c): a file, a directory's files, a
 * pattern the shell left. Standard input has no fingerprint: refused. */
static int input_fps(char *const *paths, size_t npaths, fp_list *l)
{
    for (size_t i = 0; i < npaths; i++) {
        const char *p = paths[i];
        struct stat st;
        if (!strcmp(p, "-")) {
            fprintf(stderr, "satscope export: --clickhouse reads files, not standard input: "
                            "a stream cannot be recognised when exported again\n");
            return -1;
        }
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(p);
            if (!d) {
                fprintf(stderr, "satscope export: %s: %s\n", p, strerror(errno));
                return -1;
            }
            char **names = NULL;
            size_t n = 0, cap = 0;
            struct dirent *e;
            int rc = 0;
            while (!rc && (e = readdir(d)) != NULL) {
                if (e->d_name[0] == '.' || sat_collect_skip_name(e->d_name))
                    continue;
                size_t len = strlen(p) + strlen(e->d_name) + 2;
                char *full = (char *)malloc(len);
                if (!full || SAT_GROW(names, cap, n + 1)) {
                    free(full);
                    rc = -1;
                    break;
                }
                snprintf(full, len, "%s/%s", p, e->d_name);
                names[n++] = full;
            }
            closedir(d);
            qsort(names, n, sizeof *names, cmp_name);
            for (size_t k = 0; k < n; k++) {
                if (!rc && stat(names[k], &st) == 0 && S_ISREG(st.st_mode))
                    rc = fp_push(l, names[k]);
                free(names[k]);
            }
            free(names);
            if (rc)
                return rc;
        } else if (stat(p, &st) != 0 && strpbrk(p, "*?[")) {
            glob_t g;
            memset(&g, 0, sizeof g);
            if (glob(p, 0, NULL, &g) == 0)
                for (size_t k = 0; k < g.gl_pathc; k++)
                    if (stat(g.gl_pathv[k], &st) == 0 && S_ISREG(st.st_mode) &&
                        fp_push(l, g.gl_pathv[k])) {
                        globfree(&g);
                        return -1;
                    }
            globfree(&g);
        } else if (fp_push(l, p)) {
            return -1;
        }
    }
    return 0;
}

/* The export's fingerprint: its files' and what chooses their rows. */
static uint64_t export_fp(const fp_list *l, const sat_cli_collect *c)
{
    crypto_generichash_state h;
    crypto_generichash_init(&h, NULL, 0, 8);
    crypto_generichash_update(&h, (const unsigned char *)"satscope export 1", 18);
    crypto_generichash_update(&h, (const unsigned char *)l->v, l->n * sizeof *l->v);
    int64_t window[2] = {c->from_ns, c->to_ns};
    crypto_generichash_update(&h, (const unsigned char *)window, sizeof window);
    for (size_t i = 0; i < c->nserver_args; i++)
        crypto_generichash_update(&h, (const unsigned char *)c->server_args[i],
                                  strlen(c->server_args[i]) + 1);
    return hash_final(&h);
}

/* ---- the run ---------------------------------------------------------------------- */

typedef struct ch_table {
    const sat_table_def *d;
    int asked, wanted;      /* asked for; and not exported before */
    char *insert_sql;
    FILE *buf;              /* rows not sent yet (open_memstream) */
    char *mem;
    size_t memlen;
    uint64_t buffered, sent, requests;
} ch_table;

typedef struct ch_run {
    sat_ch *ch;
    const sat_export_ch *x;
    uint64_t fp;
    uint64_t chunk_rows;
    ch_table t[SAT_EXPORT_TABLES];
    int failed;
} ch_run;

static void say(const ch_run *r, const char *table, const char *fmt, ...) SAT_PRINTF(3, 4);
static void say(const ch_run *r, const char *table, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "satscope export: %s.%s: ", r->x->db, table);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ClickHouse's message, with what to do about a table older than export_fp. */
static void say_error(const ch_run *r, const sat_ch *ch, const char *table, const char *doing)
{
    const char *e = sat_ch_error(ch);
    fprintf(stderr, "satscope export: %s.%s: %s: %s\n", r->x->db, table, doing, e);
    if (strstr(e, SAT_EXPORT_FP_COLUMN))
        fprintf(stderr, "satscope export: (a table made before satscope's %s: ALTER TABLE "
                        "%s.%s ADD COLUMN %s UInt64 DEFAULT 0)\n",
                SAT_EXPORT_FP_COLUMN, r->x->db, table, SAT_EXPORT_FP_COLUMN);
}

/* A statement built with printf's rules, run on ch. */
static int run_sql(sat_ch *ch, const char **answer, const char *fmt, ...) SAT_PRINTF(3, 4);
static int run_sql(sat_ch *ch, const char **answer, const char *fmt, ...)
{
    char sql[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof sql)
        return -1;
    return sat_ch_query(ch, sql, NULL, 0, answer);
}

static int count_sql(sat_ch *ch, unsigned long long *v, const char *fmt, ...) SAT_PRINTF(3, 4);
static int count_sql(sat_ch *ch, unsigned long long *v, const char *fmt, ...)
{
    char sql[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof sql)
        return -1;
    return sat_ch_query_u64(ch, sql, v);
}

/* ---- deleting an unfinished export's rows --------------------------------------------- */

/* ALTER TABLE db.table DELETE of the fingerprint's rows, waited for: a
 * mutation runs in the background, system.mutations says when it is done. */
static int delete_on(ch_run *r, sat_ch *ch, const char *db, const char *table)
{
    if (run_sql(ch, NULL, "ALTER TABLE %s.%s DELETE WHERE %s = %llu", db, table,
                SAT_EXPORT_FP_COLUMN, (unsigned long long)r->fp) < 0)
        return -1;
    long waited_ms = 0, limit_ms = (r->x->http.timeout_s ? r->x->http.timeout_s : 300) * 1000;
    for (;;) {
        unsigned long long pending;
        if (count_sql(ch, &pending, "SELECT count() FROM system.mutations WHERE database = '%s' "
                                    "AND table = '%s' AND is_done = 0", db, table) < 0)
            return -1;
        if (!pending)
            return 0;
        if (waited_ms >= limit_ms) {
            fprintf(stderr, "satscope export: %s.%s: the deletion of the unfinished export's "
                            "rows is still running after %ld s\n", db, table, waited_ms / 1000);
            return -2;
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        waited_ms += 100;
    }
}

/* Distributed(cluster, database, table[, key]): its first three
 * arguments, unquoted (engine_full as system.tables writes it). */
static int distributed_args(const char *engine, char out[3][128])
{
    const char *p = strchr(engine, '(');
    if (!p)
        return -1;
    p++;
    for (int k = 0; k < 3; k++) {
        while (*p == ' ')
            p++;
        size_t n = 0;
        for (; *p && *p != ',' && *p != ')'; p++)
            if (*p != '\'' && *p != '`' && *p != '"' && *p != '\\' && *p != ' ' &&
                n < 127)
                out[k][n++] = *p;
        out[k][n] = '\0';
        if (k < 2 && *p++ != ',')
            return -1;
    }
    return 0;
}

/* The fingerprint's rows of db.table deleted: on the table itself, or for a
 * Distributed one on each shard's table (its first replica's server, at the
 * URL's port: ClickHouse's replication carries a mutation to the others). */
static int delete_rows(ch_run *r, const char *table)
{
    const char *eng;
    if (run_sql(r->ch, &eng, "SELECT engine_full FROM system.tables WHERE database = '%s' "
                             "AND name = '%s' FORMAT TabSeparatedRaw", r->x->db, table) < 0) {
        say_error(r, r->ch, table, "its engine");
        return -1;
    }
    if (strncmp(eng, "Distributed(", 12)) {
        if (delete_on(r, r->ch, r->x->db, table) == -1) {
            say_error(r, r->ch, table, "deleting the unfinished export's rows");
            return -1;
        }
    } else {
        char arg[3][128];
        if (distributed_args(eng, arg) < 0) {
            say(r, table, "a Distributed table satscope cannot read: %s", eng);
            return -1;
        }
        const char *ans;
        if (run_sql(r->ch, &ans, "SELECT host_address, default_database FROM system.clusters "
                                 "WHERE cluster = '%s' AND replica_num = 1 FORMAT "
                                 "TabSeparatedRaw", arg[0]) < 0) {
            say_error(r, r->ch, table, "the cluster's shards");
            return -1;
        }
        char *shards = strdup(ans), *save = NULL;
        if (!shards)
            return -1;
        int rc = 0;
        for (char *line = strtok_r(shards, "\n", &save); line && !rc;
             line = strtok_r(NULL, "\n", &save)) {
            char *tab = strchr(line, '\t');
            const char *dflt = tab ? tab + 1 : "";
            if (tab)
                *tab = '\0';
            const char *db = arg[1][0] ? arg[1] : dflt[0] ? dflt : "default";
            sat_ch *shard = sat_ch_for_host(r->ch, line);
            if (!shard)
                rc = -1;
            else if ((rc = delete_on(r, shard, db, arg[2])) == -1)
                fprintf(stderr, "satscope export: %s.%s on shard %s: deleting the unfinished "
                                "export's rows: %s\n", db, arg[2], line, sat_ch_error(shard));
            sat_ch_free(shard);
        }
        free(shards);
        if (rc)
            return -1;
    }
    unsigned long long left;
    if (count_sql(r->ch, &left, "SELECT count() FROM %s.%s WHERE %s = %llu", r->x->db, table,
                  SAT_EXPORT_FP_COLUMN, (unsigned long long)r->fp) < 0) {
        say_error(r, r->ch, table, "counting rows");
        return -1;
    }
    if (left) {
        say(r, table, "%llu rows of the unfinished export are still there after their "
                      "deletion", left);
        return -1;
    }
    return 0;
}

/* ---- before: tables, what was exported -------------------------------------------- */

static int create_tables(ch_run *r)
{
    if (run_sql(r->ch, NULL, "CREATE DATABASE IF NOT EXISTS %s", r->x->db) < 0) {
        fprintf(stderr, "satscope export: %s\n", sat_ch_error(r->ch));
        return -1;
    }
    for (int k = 0; k <= SAT_EXPORT_TABLES; k++) {
        if (k < SAT_EXPORT_TABLES && !r->t[k].asked)
            continue;
        char *sql = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&sql, &len);
        if (!f)
            return -1;
        if (k < SAT_EXPORT_TABLES)
            sat_export_print_ddl(f, r->t[k].d, r->x->db, NULL, NULL);
        else
            sat_export_print_ddl_exports(f, r->x->db, NULL, NULL);
        int bad = fclose(f) != 0;
        int rc = bad ? -1 : sat_ch_query(r->ch, sql, NULL, 0, NULL);
        free(sql);
        if (rc < 0) {
            say_error(r, r->ch, k < SAT_EXPORT_TABLES ? r->t[k].d->name : "exports",
                      "creating it");
            return -1;
        }
    }
    return 0;
}

/* The inputs in an export of another fingerprint: their rows are there. */
static int check_overlap(ch_run *r, const fp_list *files)
{
    char *sql = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&sql, &len);
    if (!f)
        return -1;
    fprintf(f, "SELECT fingerprint, inputs FROM %s.exports WHERE fingerprint != %llu AND "
               "hasAny(files, [",
            r->x->db, (unsigned long long)r->fp);
    for (size_t i = 0; i < files->n; i++)
        fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)files->v[i]);
    fprintf(f, "]) LIMIT 1 FORMAT TabSeparated");
    if (fclose(f) != 0) {
        free(sql);
        return -1;
    }
    const char *ans;
    int rc = sat_ch_query(r->ch, sql, NULL, 0, &ans);
    free(sql);
    if (rc < 0) {
        say_error(r, r->ch, "exports", "reading it");
        return -1;
    }
    if (*ans) {
        size_t fl = strcspn(ans, "\t\n");
        const char *in = ans[fl] == '\t' ? ans + fl + 1 : "";
        fprintf(stderr, "satscope export: some of these inputs were exported before in another "
                        "set (export %.*s, of %.*s): their rows are in %s already; export the "
                        "same set again, or delete that export's rows first "
                        "(docs/clickhouse.md)\n",
                (int)fl, ans, (int)strcspn(in, "\n"), in, r->x->db);
        return -1;
    }
    return 0;
}

/* Which asked tables are to be sent: not those recorded; the rows of an
 * unfinished export deleted first. */
static int settle_tables(ch_run *r, int *any)
{
    *any = 0;
    for (int k = 0; k < SAT_EXPORT_TABLES; k++) {
        ch_table *t = &r->t[k];
        if (!t->asked)
            continue;
        const char *name = t->d->name;
        const char *ans;
        if (run_sql(r->ch, &ans, "SELECT count(), sum(rows) FROM %s.exports WHERE fingerprint "
                                 "= %llu AND table = '%s' FORMAT TabSeparated",
                    r->x->db, (unsigned long long)r->fp, name) < 0) {
            say_error(r, r->ch, "exports", "reading it");
            return -1;
        }
        unsigned long long records = 0, rows = 0;
        if (sscanf(ans, "%llu\t%llu", &records, &rows) != 2) {
            say(r, "exports", "an answer satscope does not understand: %.60s", ans);
            return -1;
        }
        if (records) {
            if (rows || r->x->tables != UINT32_MAX) /* not every empty table */
                say(r, name, "already exported: %llu rows", rows);
            continue;
        }
        unsigned long long there;
        if (count_sql(r->ch, &there, "SELECT count() FROM %s.%s WHERE %s = %llu", r->x->db,
                      name, SAT_EXPORT_FP_COLUMN, (unsigned long long)r->fp) < 0) {
            say_error(r, r->ch, name, "counting rows");
            return -1;
        }
        if (there) {
            say(r, name, "%llu rows of an export of these inputs that did not finish: "
                         "deleted, and inserted again", there);
            if (delete_rows(r, name) < 0)
                return -1;
        }
        size_t n = strlen(r->x->db) + strlen(name) + 1024;
        t->insert_sql = (char *)malloc(n);
        FILE *f = t->insert_sql ? fmemopen(t->insert_sql, n, "w") : NULL;
        if (!f)
            return -1;
        fprintf(f, "INSERT INTO %s.%s (", r->x->db, name);
        sat_export_columns(f, t->d);
        fprintf(f, ", %s) FORMAT RowBinary", SAT_EXPORT_FP_COLUMN);
        fputc('\0', f);
        if (fclose(f) != 0)
            return -1;
        t->wanted = 1;
        *any = 1;
    }
    return 0;
}

/* ---- during: the rows ------------------------------------------------------------- */

static int flush_table(ch_run *r, ch_table *t)
{
    if (!t->buf)
        return SAT_OK;
    int bad = fclose(t->buf) != 0;
    t->buf = NULL;
    int rc = bad ? -1 : sat_ch_query(r->ch, t->insert_sql, t->mem, t->memlen, NULL);
    if (rc < 0) {
        fprintf(stderr, "satscope export: %s.%s: %llu rows sent (%llu accepted before): %s\n",
                r->x->db, t->d->name, (unsigned long long)t->buffered,
                (unsigned long long)t->sent, bad ? "out of memory" : sat_ch_error(r->ch));
        r->failed = 1;
    } else {
        t->sent += t->buffered;
        t->requests++;
    }
    free(t->mem);
    t->mem = NULL;
    t->memlen = 0;
    t->buffered = 0;
    return rc < 0 ? SAT_E_IO : SAT_OK;
}

/* Past BUFFERED_MAX held over all tables, the largest goes. */
static int bound_held(ch_run *r)
{
    size_t held = 0;
    ch_table *big = NULL;
    for (int k = 0; k < SAT_EXPORT_TABLES; k++) {
        ch_table *t = &r->t[k];
        if (!t->buf)
            continue;
        held += t->memlen;
        if (!big || t->memlen > big->memlen)
            big = t;
    }
    return held >= BUFFERED_MAX ? flush_table(r, big) : SAT_OK;
}

static int ch_row(void *vr, int table, const void *row)
{
    ch_run *r = (ch_run *)vr;
    if (r->failed)
        return SAT_E_IO;
    if (table < 0 || table >= SAT_EXPORT_TABLES || !r->t[table].wanted)
        return SAT_OK;
    ch_table *t = &r->t[table];
    if (!t->buf && !(t->buf = open_memstream(&t->mem, &t->memlen)))
        return SAT_E_NOMEM;
    sat_export_row_rowbinary(t->buf, t->d, (const unsigned char *)row);
    sat_export_put_le(t->buf, r->fp, 8);
    t->buffered++;
    if (t->buffered >= r->chunk_rows)
        return flush_table(r, t);
    if ((t->buffered & 255) == 0) { /* memlen is brought up to date by fflush */
        if (fflush(t->buf) != 0)
            return SAT_E_NOMEM;
        if (t->memlen >= CHUNK_BYTES)
            return flush_table(r, t);
        return bound_held(r);
    }
    return ferror(t->buf) ? SAT_E_NOMEM : SAT_OK;
}

/* ---- after: counted back, recorded ------------------------------------------------ */

static int record(ch_run *r, ch_table *t, const fp_list *files, const char *inputs)
{
    unsigned long long there;
    if (count_sql(r->ch, &there, "SELECT count() FROM %s.%s WHERE %s = %llu", r->x->db,
                  t->d->name, SAT_EXPORT_FP_COLUMN, (unsigned long long)r->fp) < 0) {
        say_error(r, r->ch, t->d->name, "counting the rows inserted");
        return -1;
    }
    if (there != t->sent) {
        say(r, t->d->name, "%llu rows there after the insert of %llu: not recorded as exported",
            there, (unsigned long long)t->sent);
        return -1;
    }
    char *body = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&body, &len);
    if (!f)
        return -1;
    sat_export_put_le(f, r->fp, 8);
    sat_export_put_len(f, strlen(t->d->name));
    fputs(t->d->name, f);
    sat_export_put_le(f, t->sent, 8);
    sat_export_put_len(f, files->n);
    for (size_t i = 0; i < files->n; i++)
        sat_export_put_le(f, files->v[i], 8);
    sat_export_put_len(f, strlen(inputs));
    fputs(inputs, f);
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO %s.exports (fingerprint, table, rows, files, inputs) "
                              "FORMAT RowBinary", r->x->db);
    int rc = fclose(f) != 0 ? -1 : sat_ch_query(r->ch, sql, body, len, NULL);
    free(body);
    if (rc < 0) {
        say_error(r, r->ch, "exports", "recording the export");
        return -1;
    }
    if (t->sent || r->x->tables != UINT32_MAX) /* not every empty table */
        say(r, t->d->name, "%llu rows inserted in %llu requests", (unsigned long long)t->sent,
            (unsigned long long)t->requests);
    return 0;
}

/* The inputs as named, for the record (a person reading the table). */
static char *joined(char *const *paths, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(paths[i]) + 1;
    if (len > 4096)
        len = 4096;
    char *s = (char *)malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (size_t i = 0; i < n; i++)
        snprintf(s + strlen(s), len - strlen(s), "%s%s", i ? " " : "", paths[i]);
    return s;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run_free(ch_run *r)
{
    for (int k = 0; k < SAT_EXPORT_TABLES; k++) {
        if (r->t[k].buf)
            fclose(r->t[k].buf);
        free(r->t[k].mem);
        free(r->t[k].insert_sql);
    }
    sat_ch_free(r->ch);
}

/* After a failure: the rows already in are taken out again (else the next
 * export of the same inputs does it). */
static void undo(ch_run *r)
{
    for (int k = 0; k < SAT_EXPORT_TABLES; k++)
        if (r->t[k].wanted && r->t[k].sent && delete_rows(r, r->t[k].d->name) < 0)
            fprintf(stderr, "satscope export: %s.%s: the rows inserted stay until the next "
                            "export of these inputs replaces them\n", r->x->db, r->t[k].d->name);
}

int sat_cli_export_clickhouse(sat_cli_collect *c, char *const *paths, size_t npaths,
                              const sat_export_ch *x)
{
    if (sodium_init() < 0)
        return sat_cli_fail("export", SAT_E_NOMEM, NULL);
    fp_list files = {NULL, 0, 0};
    if (input_fps(paths, npaths, &files) < 0) {
        free(files.v);
        return SAT_EXIT_UNREADABLE;
    }
    ch_run r;
    memset(&r, 0, sizeof r);
    r.x = x;
    r.fp = export_fp(&files, c);
    r.chunk_rows = x->chunk_rows ? x->chunk_rows : CHUNK_ROWS_DEFAULT;
    for (int k = 0; k < SAT_EXPORT_TABLES; k++) {
        r.t[k].d = sat_export_table(k);
        r.t[k].asked = r.t[k].d && (x->tables & SAT_TABLE_BIT(k));
    }
    const char *why;
    r.ch = sat_ch_new(&x->http, &why);
    if (!r.ch) {
        fprintf(stderr, "satscope export: --clickhouse %s: %s\n", x->http.url, why);
        free(files.v);
        return SAT_EXIT_USAGE;
    }
    int any = 0, code = SAT_EXIT_FAILED;
    char *inputs = joined(paths, npaths);
    if (!inputs || create_tables(&r) < 0 || check_overlap(&r, &files) < 0 ||
        settle_tables(&r, &any) < 0)
        goto out;
    if (!any) {
        code = SAT_EXIT_OK;
        goto out;
    }
    double t0 = now_s();
    sat_event_sink rows = {&r, UINT32_MAX, ch_row};
    sat_event_sink sink = x->anon ? sat_anon_sink(x->anon, &rows) : rows;
    int nothing;
    code = sat_export_source_run(c, paths, npaths, &sink, &nothing);
    for (int k = 0; k < SAT_EXPORT_TABLES && !r.failed; k++)
        if (r.t[k].wanted)
            flush_table(&r, &r.t[k]);
    if (r.failed || c->failed || (x->anon && sat_anon_failed(x->anon)) || nothing) {
        if (nothing)
            fprintf(stderr, "satscope export: nothing could be read\n");
        else if (!r.failed)
            sat_cli_fail("export", SAT_E_NOMEM, NULL);
        undo(&r);
        code = nothing ? SAT_EXIT_UNREADABLE : SAT_EXIT_FAILED;
        goto out;
    }
    double dt = now_s() - t0;
    uint64_t total = 0, requests = 0;
    for (int k = 0; k < SAT_EXPORT_TABLES; k++) {
        if (!r.t[k].wanted)
            continue;
        if (record(&r, &r.t[k], &files, inputs) < 0) {
            code = SAT_EXIT_FAILED;
            goto out;
        }
        total += r.t[k].sent;
        requests += r.t[k].requests;
    }
    fprintf(stderr, "satscope export: %llu rows in %llu requests in %.2f s (%.0f rows/s) to %s "
                    "(export %llu)\n",
            (unsigned long long)total, (unsigned long long)requests, dt,
            dt > 0 ? (double)total / dt : 0.0, sat_ch_url(r.ch), (unsigned long long)r.fp);
out:
    free(inputs);
    free(files.v);
    run_free(&r);
    return code;
}
