/*
 * cli_parallel.c - several inputs of an analysis command analysed at once, then
 * merged (cli.h sat_cli_collect_into, --jobs).
 *
 * The rule: the output is the one pass's, byte for byte.
 *  - An input is what one collection reads in one go: a file, or a rotated
 *    set (every argument of one set, by sat_collect_group_key: its files are
 *    joined in order by one joiner, so the set stays one sequential run). The
 *    inputs are contiguous runs of the arguments: a set named in two places
 *    takes what lies between into its run, so that everything is read in the
 *    order a single collection reads it.
 *  - Each input is collected on a thread of its own (at most --jobs, the
 *    online CPUs by default) into its own analyzer instance, numbered as the
 *    one collection would number it (sat_collect_opts source_base /
 *    server_base): the sources and servers of the inputs before it are
 *    foreseen from their kinds (a log file is a source, a rotated set a
 *    server; a capture or a core both; a trace what its source table says)
 *    and checked afterwards against what each run used; when a guess was wrong
 *    the parallel results are dropped and the inputs analysed in one pass.
 *    Merges are exact across inputs (tests/unit/test_merge_property.c), so the
 *    instances merged in input order equal the one pass.
 *  - No state crosses inputs in the collection itself: LDAP operations are
 *    joined with their results and connections within one server's log (a
 *    rotated set); two logs of one server that are not one rotated set are
 *    two servers in one pass as well. What the analyzers relate across inputs
 *    (a crash and the load of the logs before it, a TLS retry seen in another
 *    capture, a storm's periods) the merges relate.
 *  - Only regular files: standard input, a directory, a pattern, a FIFO, the
 *    same file named twice, or one input, and the run is the one pass.
 *  - Diagnostics: each input's warnings are kept and written after the runs,
 *    in input order; then the first rejected lines of all of them and one
 *    summary, as the one pass writes them. No progress line (runs at once
 *    would overwrite it).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/trace.h"

#define JOBS_MAX 1024

const sat_cli_opt sat_cli_analysis_opts[] = {
    {"jobs", SAT_OPT_JOBS, 'j', "N",
     "inputs analysed at once, each on a thread (default:\n"
     "the online CPUs; 1: one pass over them all); the\n"
     "results are merged in input order: the same output", NULL},
    {NULL, 0, 0, NULL, NULL, NULL}};

int sat_cli_parse_jobs(const char *cmd, const char *arg, sat_cli_collect *c)
{
    char *end;
    long n = strtol(arg, &end, 10);
    if (!*arg || *end || n < 1 || n > JOBS_MAX)
        return sat_cli_usage_error(cmd, "bad --jobs '%s' (1 to %d)", arg, JOBS_MAX);
    c->jobs = (unsigned)n;
    return 0;
}

typedef struct range {
    size_t first, end;      /* arguments [first, end) */
    uint32_t sources, servers; /* foreseen */
    uint32_t source_base, server_base;
} range;

/* What kind of input a file is, as collect.c tells them apart by content. */
enum { K_LOG, K_TRACE, K_OTHER /* a capture or a core: a source and a server each */ };

static int kind_of(const char *path)
{
    unsigned char raw[64];
    FILE *f = fopen(path, "rb");
    if (!f)
        return K_LOG;
    size_t n = fread(raw, 1, sizeof raw, f);
    fclose(f);
    if (sat_trace_sniff(raw, n))
        return K_TRACE;
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_input *in = sat_input_open(path, &d);
    if (!in)
        return K_LOG;
    size_t len = 0;
    const unsigned char *p = (const unsigned char *)sat_input_peek(in, &len);
    int k = K_LOG;
    if (p && len >= 4) {
        uint32_t be = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        if (!memcmp(p, "\x7f" "ELF", 4) || be == 0xa1b2c3d4 || be == 0xd4c3b2a1 ||
            be == 0xa1b23c4d || be == 0x4d3cb2a1 || be == 0x0a0d0d0a)
            k = K_OTHER;
    }
    sat_input_close(in);
    return k;
}

/* A trace's sources and servers: one past the highest its source rows name. */
typedef struct trace_ids {
    uint32_t sources, servers;
} trace_ids;

static int ids_source(void *ctx, int table, const void *row)
{
    trace_ids *t = ctx;
    const sat_source *s = row;
    if (table != SAT_TABLE_SOURCE)
        return SAT_OK;
    if (s->id + 1 > t->sources)
        t->sources = s->id + 1;
    if (s->server + 1 > t->servers)
        t->servers = s->server + 1;
    return SAT_OK;
}

static void trace_count(const char *path, uint32_t *sources, uint32_t *servers)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_trace_reader *r = sat_trace_reader_open(path, &d);
    if (!r)
        return; /* unreadable: the check afterwards tells */
    trace_ids t = {0, 0};
    sat_event_sink k;
    memset(&k, 0, sizeof k);
    k.ctx = &t;
    k.tables = SAT_TABLE_BIT(SAT_TABLE_SOURCE);
    k.on_row = ids_source;
    sat_trace_read_opts o;
    memset(&o, 0, sizeof o);
    o.tables = 1u << SAT_TABLE_SOURCE;
    memset(&d, 0, sizeof d);
    sat_trace_read(r, &o, &k, &d);
    sat_trace_reader_close(r);
    *sources += t.sources;
    *servers += t.servers;
}

/* The inputs of paths, with their foreseen numbering; 0 when the run must be
 * the one pass (see the rule above). *out is malloc'd. */
static size_t plan(char *const *paths, size_t n, range **out)
{
    *out = NULL;
    if (n < 2)
        return 0;
    struct stat *st = calloc(n, sizeof *st);
    char **keys = calloc(n, sizeof *keys);
    size_t *last = calloc(n, sizeof *last);
    int *kinds = calloc(n, sizeof *kinds);
    range *r = calloc(n, sizeof *r);
    size_t nr = 0;
    int ok = st && keys && last && kinds && r;
    for (size_t i = 0; ok && i < n; i++) {
        if (!strcmp(paths[i], "-") || stat(paths[i], &st[i]) != 0 || !S_ISREG(st[i].st_mode)) {
            ok = 0;
            break;
        }
        for (size_t j = 0; j < i; j++)
            if (st[j].st_dev == st[i].st_dev && st[j].st_ino == st[i].st_ino)
                ok = 0; /* read once by the one pass: left to it */
        keys[i] = sat_collect_group_key(paths[i]);
        ok &= keys[i] != NULL;
        kinds[i] = kind_of(paths[i]);
    }
    for (size_t i = 0; ok && i < n; i++) {
        last[i] = i;
        for (size_t j = i + 1; j < n; j++)
            if (!strcmp(keys[i], keys[j]))
                last[i] = j;
    }
    for (size_t i = 0; ok && i < n;) {
        size_t end = last[i] + 1;
        for (size_t k = i; k < end; k++)
            if (last[k] + 1 > end)
                end = last[k] + 1;
        range *g = &r[nr++];
        g->first = i;
        g->end = end;
        for (size_t k = i; k < end; k++) {
            int kind = kinds[k];
            if (kind == K_TRACE) {
                trace_count(paths[k], &g->sources, &g->servers);
                continue;
            }
            g->sources++;
            int seen = 0; /* a log's server is its rotated set's */
            for (size_t j = i; j < k && kind == K_LOG; j++)
                seen |= !strcmp(keys[j], keys[k]) && kinds[j] == K_LOG;
            g->servers += !seen;
        }
        i = end;
    }
    uint32_t src = 0, srv = 0;
    for (size_t i = 0; i < nr; i++) {
        r[i].source_base = src;
        r[i].server_base = srv;
        src += r[i].sources;
        srv += r[i].servers;
    }
    for (size_t i = 0; keys && i < n; i++)
        free(keys[i]);
    free(keys);
    free(st);
    free(last);
    free(kinds);
    if (!ok || nr < 2) {
        free(r);
        return 0;
    }
    *out = r;
    return nr;
}

typedef struct job {
    const sat_cli_collect *c;
    const sat_analyzer *a;
    void *obj;
    char *const *paths;
    range r;
    sat_cli_part part;
    char *buf; /* its warnings */
    size_t len;
} job;

typedef struct pool {
    job *jobs;
    size_t njobs, next;
    pthread_mutex_t lock;
} pool;

static void run_job(job *j)
{
    j->part.warn_out = open_memstream(&j->buf, &j->len);
    j->part.one_thread = 1;
    j->part.source_base = j->r.source_base;
    j->part.server_base = j->r.server_base;
    sat_event_sink sink = j->a->sink(j->obj);
    sat_cli_collect_part(j->c, j->paths + j->r.first, j->r.end - j->r.first, &sink, &j->part);
    if (j->part.warn_out)
        fclose(j->part.warn_out);
    j->part.warn_out = NULL;
}

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->njobs)
            return NULL;
        run_job(&p->jobs[i]);
    }
}

static int collect_into(sat_cli_collect *c, const sat_analyzer *a, const void *opts,
                        void *obj, char *const *paths, size_t npaths)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t jobs = c->jobs ? c->jobs : (size_t)(cpus > 0 ? cpus : 1);
    c->parallel_inputs = 0;
    range *r = NULL;
    size_t nr = jobs > 1 && !c->live_iface ? plan(paths, npaths, &r) : 0;
    job *js = nr ? calloc(nr, sizeof *js) : NULL;
    size_t made = 0;
    for (; js && made < nr; made++) {
        js[made].obj = a->create(opts);
        if (!js[made].obj)
            break;
        js[made].c = c;
        js[made].a = a;
        js[made].paths = paths;
        js[made].r = r[made];
    }
    if (!js || made < nr) {
        for (size_t i = 0; js && i < made; i++)
            a->free(js[i].obj);
        free(js);
        free(r);
        sat_event_sink sink = a->sink(obj);
        return sat_cli_collect_run(c, paths, npaths, &sink);
    }

    pool p = {js, nr, 0, PTHREAD_MUTEX_INITIALIZER};
    size_t nthreads = jobs < nr ? jobs : nr;
    pthread_t *th = calloc(nthreads, sizeof *th);
    size_t started = 0;
    for (; th && started + 1 < nthreads; started++) /* and this thread */
        if (pthread_create(&th[started], NULL, worker, &p) != 0)
            break;
    worker(&p);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);

    /* the numbering foreseen is the one used, unless an interrupt left inputs
     * unread (then what was read is reported, as the one pass does) */
    int interrupted = 0, numbered = 1;
    for (size_t i = 0; i < nr; i++) {
        interrupted |= js[i].part.stats.interrupted != 0;
        numbered &= js[i].part.stats.next_source == r[i].source_base + r[i].sources &&
                    js[i].part.stats.next_server == r[i].server_base + r[i].servers;
    }
    int code;
    if (!numbered && !interrupted) {
        for (size_t i = 0; i < nr; i++) {
            a->free(js[i].obj);
            sat_cli_part_clear(&js[i].part);
            free(js[i].buf);
        }
        free(js);
        free(r);
        sat_event_sink sink = a->sink(obj);
        return sat_cli_collect_run(c, paths, npaths, &sink);
    }
    sat_cli_part **parts = calloc(nr, sizeof *parts);
    int merged = parts != NULL;
    c->parallel_inputs = nr;
    for (size_t i = 0; i < nr; i++) {
        if (js[i].len)
            fwrite(js[i].buf, 1, js[i].len, stderr);
        if (merged && a->merge(obj, js[i].obj) < 0)
            merged = 0;
        if (parts)
            parts[i] = &js[i].part;
    }
    if (!merged)
        c->failed = SAT_E_NOMEM; /* merging the inputs' results */
    code = parts ? sat_cli_collect_report(c, parts, nr) : SAT_EXIT_FAILED;
    if (!merged)
        code = SAT_EXIT_FAILED;
    for (size_t i = 0; i < nr; i++) {
        a->free(js[i].obj);
        sat_cli_part_clear(&js[i].part);
        free(js[i].buf);
    }
    free(parts);
    free(js);
    free(r);
    return code;
}

int sat_cli_collect_into(sat_cli_collect *c, const sat_analyzer *a, const void *opts,
                         void *obj, char *const *paths, size_t npaths)
{
    /* the sources' names over every input of the collection, whichever
     * part reads each (cli_servers.c) */
    sat_server_naming *names = NULL;
    size_t nnames = 0;
    if (sat_cli_server_names(c, paths, npaths, &names, &nnames) != SAT_OK)
        return sat_cli_fail(c->name ? c->name : "report", SAT_E_NOMEM, "nothing written");
    c->naming = names;
    c->nnaming = nnames;
    int code = collect_into(c, a, opts, obj, paths, npaths);
    sat_cli_server_names_free(names, nnames);
    c->naming = NULL;
    c->nnaming = 0;
    return code;
}
