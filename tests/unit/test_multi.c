/*
 * test_multi.c - several analyzers in one pass (analyze/multi.c): every
 * analyzer of the registry in one set, fed the incident's logs, a TLS storm
 * capture and a core in one collection, gives for each member the JSON that
 * analyzer gives alone on the same inputs, byte for byte; the same when the
 * set is collected in parallel parts and merged (the CLI's --jobs), and a set
 * of other members refuses to merge.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdlib.h>

#include "check.h"
#include "cli.h"
#include "satscope/analyze.h"
#include "satscope/report.h"

static char src[4096];

static char *json_of(sat_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sat_diag d;
    memset(&d, 0, sizeof d);
    CHECK(r && sat_result_json(r, f, &d) >= 0);
    fclose(f);
    return buf;
}

static sat_cli_collect collect_opts(unsigned jobs)
{
    sat_cli_collect c;
    memset(&c, 0, sizeof c);
    c.quiet = 1;
    c.jobs = jobs;
    c.no_source_lines = 1;
    c.crash_time = (sat_ts_ns)1749479050 * 1000000000; /* 2025-06-09T14:24:10Z */
    return c;
}

/* The JSON of analyzer a alone on paths. */
static char *alone(const sat_analyzer *a, char **paths, size_t n)
{
    sat_cli_collect c = collect_opts(1);
    void *obj = a->create(NULL);
    CHECK(obj != NULL);
    if (!obj)
        return NULL;
    sat_cli_collect_into(&c, a, NULL, obj, paths, n);
    CHECK(a->finish(obj) >= 0);
    sat_result *r = sat_result_new(a->name);
    CHECK(r && a->result(obj, r) >= 0);
    char *j = json_of(r);
    sat_result_free(r);
    a->free(obj);
    return j;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *s = getenv("SAT_SRC");
    snprintf(src, sizeof src, "%s", s ? s : ".");
    char p1[4200], p2[4200], p3[4200], p4[4200];
    snprintf(p1, sizeof p1, "%s/fixtures/incident/access", src);
    snprintf(p2, sizeof p2, "%s/fixtures/incident/access.20250609-133000.gz", src);
    snprintf(p3, sizeof p3, "%s/fixtures/tls/tls-storm.pcap", src);
    snprintf(p4, sizeof p4, "%s/fixtures/cores/segv_chain/segv_chain-O0-kernel.core.gz", src);
    char *paths[] = {p1, p2, p3, p4};
    size_t npaths = sizeof paths / sizeof paths[0];

    size_t na = 0;
    const sat_analyzer *const *list = sat_analyzer_list(&na);
    sat_multi_member members[16];
    CHECK(na <= 16);
    for (size_t i = 0; i < na && i < 16; i++)
        members[i] = (sat_multi_member){list[i], NULL};
    sat_multi_opts mo = {members, na};

    for (unsigned jobs = 1; jobs <= 3; jobs += 2) {
        sat_cli_collect c = collect_opts(jobs);
        sat_multi *m = sat_multi_create(&mo);
        CHECK(m != NULL);
        if (!m)
            return 1;
        CHECK_EQ_INT(sat_multi_count(m), na);
        sat_cli_collect_into(&c, &sat_multi_analyzer, &mo, m, paths, npaths);
        if (jobs > 1)
            CHECK(c.parallel_inputs >= 2); /* the rotated set is one input: 3 */
        CHECK(sat_multi_finish(m) >= 0);
        sat_result *res[16] = {0};
        CHECK(sat_multi_results(m, res) >= 0);
        for (size_t i = 0; i < na; i++) {
            char *want = alone(list[i], paths, npaths);
            char *got = json_of(res[i]);
            CHECK(want && got);
            if (want && got && strcmp(want, got)) {
                printf("  %s (jobs %u): the set's JSON differs from the analyzer's alone\n",
                       list[i]->name, jobs);
                CHECK(0);
            }
            free(want);
            free(got);
            sat_result_free(res[i]);
        }
        sat_multi_free(m);
    }

    /* sets of different members do not merge */
    sat_multi_opts one = {members, 1}, two = {members, 2};
    sat_multi *a = sat_multi_create(&one), *b = sat_multi_create(&two);
    CHECK(a && b);
    CHECK_EQ_INT(sat_multi_merge(a, b), SAT_E_USAGE);
    sat_multi_free(a);
    sat_multi_free(b);
    sat_multi_free(NULL);
    CHECK(sat_multi_create(NULL) == NULL);
    return CHECK_DONE();
}
