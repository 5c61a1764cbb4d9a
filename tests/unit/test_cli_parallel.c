/*
 * test_cli_parallel.c - several inputs analysed at once (cli/cli_parallel.c):
 * for every analyzer of the registry and several lists of real inputs (logs,
 * a rotated set, captures, cores, .sat traces made here), sat_cli_collect_into
 * with jobs = 3 analyses them apart (the inputs it says it ran apart are the
 * ones expected: a rotated set is one, even named in two places) and its JSON
 * equals the one pass's (jobs = 1) byte for byte, with the same exit code and
 * the same counts. Lists that must stay one pass (standard input, a
 * directory, a file named twice, one input) are run in one pass.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream, mkdtemp */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/report.h"
#include "satscope/trace.h"

static char src[4096];
static char *made[64]; /* fx's strings, freed at the end */
static size_t nmade;

static char *fx(const char *rel)
{
    char *p = malloc(strlen(src) + strlen(rel) + 2);
    if (!p || nmade == sizeof made / sizeof made[0])
        abort();
    sprintf(p, "%s/%s", src, rel);
    made[nmade++] = p;
    return p;
}


/* The analyzer's JSON after collecting paths into it; *code the exit code. */
static char *analyse(const sat_analyzer *a, unsigned jobs, char **paths, size_t n, int *code,
                     size_t *parallel, uint64_t *events)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    c.quiet = 1;
    c.jobs = jobs;
    c.no_source_lines = 1;
    void *obj = a->create(NULL);
    if (!obj)
        abort();
    *code = sat_cli_collect_into(&c, a, NULL, obj, paths, n);
    *parallel = c.parallel_inputs;
    *events = c.events;
    CHECK(a->finish(obj) >= 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(sat_analyzer_json(a, obj, f, &d) >= 0);
    fclose(f);
    a->free(obj);
    return buf;
}

/* A .sat trace of paths, as `satscope collect` writes it. */
static void make_trace(const char *out, char **paths, size_t n)
{
    sat_diag d;
    memset(&d, 0, sizeof d);
    sat_trace_writer *w = sat_trace_writer_create(out, NULL, &d);
    CHECK(w != NULL);
    if (!w)
        return;
    sat_event_sink k = sat_trace_writer_sink(w);
    sat_collect_opts o;
    memset(&o, 0, sizeof o);
    CHECK(sat_collect_run((const char *const *)paths, n, &o, &k, NULL, &d) >= 0);
    CHECK(sat_trace_writer_close(w, &d) >= 0);
}

static void first_diff(const char *a, const char *b)
{
    size_t line = 1;
    while (*a && *a == *b) {
        line += *a == '\n';
        a++;
        b++;
    }
    printf("    first difference on line %zu\n", line);
}

static void case_of(const char *name, char **paths, size_t n, size_t want_parallel)
{
    size_t nan;
    const sat_analyzer *const *list = sat_analyzer_list(&nan);
    for (size_t i = 0; i < nan; i++) {
        int c1, c3;
        size_t p1, p3;
        uint64_t e1, e3;
        char *one = analyse(list[i], 1, paths, n, &c1, &p1, &e1);
        char *par = analyse(list[i], 3, paths, n, &c3, &p3, &e3);
        int same = !strcmp(one, par);
        printf("%-22s %-10s %zu inputs apart, %s\n", name, list[i]->name, p3,
               same ? "same JSON" : "DIFFERENT JSON");
        if (!same)
            first_diff(one, par);
        CHECK(same);
        CHECK_EQ_INT(c1, c3);
        CHECK_EQ_INT(e1, e3);
        CHECK_EQ_INT(p1, 0);
        CHECK_EQ_INT(p3, want_parallel);
        free(one);
        free(par);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *s = getenv("SAT_SRC");
    snprintf(src, sizeof src, "%s", s ? s : ".");

    /* traces of two inputs, made here */
    char tmpl[] = "/tmp/sat_par_XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL);
    if (!dir)
        return 1;
    char t1[4200], t2[4200];
    snprintf(t1, sizeof t1, "%s/incident.sat", dir);
    snprintf(t2, sizeof t2, "%s/storm.sat", dir);
    char *in1[] = {fx("fixtures/incident/access"), fx("fixtures/incident/access.20250609-133000.gz")};
    char *in2[] = {fx("fixtures/storm/storm-ldap-slapd.log"), fx("fixtures/storm/storm-tls.pcap")};
    make_trace(t1, in1, 2);
    make_trace(t2, in2, 2);

    char *logs[] = {fx("fixtures/incident/access"), fx("fixtures/incident/access.20250609-133000.gz"),
                    fx("fixtures/storm/storm-ldap-slapd.log"), fx("fixtures/389ds-load/access.zst"),
                    fx("fixtures/slapd-load/slapd-stats.log.zst")};
    case_of("logs", logs, 5, 4); /* the incident's rotated set is one input */

    /* a rotated set named in two places takes what lies between into its run */
    char *split[] = {fx("fixtures/incident/access"), fx("fixtures/storm/storm-ldap-slapd.log"),
                     fx("fixtures/incident/access.20250609-133000.gz"),
                     fx("fixtures/389ds-load/access.zst")};
    case_of("set named twice", split, 4, 2);

    char *wire[] = {fx("fixtures/tls/tls12-full.pcap"), fx("fixtures/tls/tls-abort.pcap"),
                    fx("fixtures/tls/tls-storm.pcap"), fx("fixtures/storm/storm-tls.pcap"),
                    fx("fixtures/storm/storm-ldap.pcap"), fx("fixtures/storm/storm-ldap-slapd.log")};
    case_of("captures and a log", wire, 6, 6);

    char *crashes[] = {fx("fixtures/crashtext/incident-gdb.log"),
                       fx("fixtures/cores/segv_chain/segv_chain-O0-kernel.core.gz"),
                       fx("fixtures/incident/access"),
                       fx("fixtures/incident/access.20250609-133000.gz"),
                       fx("fixtures/crashtext/errors-glibc.log")};
    case_of("cores and logs", crashes, 5, 4);

    char *traces[] = {t1, t2, fx("fixtures/389ds-load/access.zst")};
    case_of("traces", traces, 3, 3);

    /* one pass: a directory, standard input, a file twice, one input */
    char *withdir[] = {fx("fixtures/storm"), fx("fixtures/389ds-load/access.zst")};
    case_of("a directory", withdir, 2, 0);
    char *twice[] = {fx("fixtures/389ds-load/access.zst"), fx("fixtures/389ds-load/access.zst")};
    case_of("a file twice", twice, 2, 0);
    char *set[] = {fx("fixtures/incident/access"), fx("fixtures/incident/access.20250609-133000.gz")};
    case_of("one rotated set", set, 2, 0);

    unlink(t1);
    unlink(t2);
    rmdir(dir);
    for (size_t i = 0; i < nmade; i++)
        free(made[i]);
    return CHECK_DONE();
}
