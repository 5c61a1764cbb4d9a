/*
 * analyzer_registry.c - the table of analyzers (plug-ins are tables), and the
 * JSON document of one (sat_analyzer_json).
 * Adding an analyzer is one new file and one line in `sat_analyzers`.
 */
#include "satscope/analyze.h"
#include "satscope/result_out.h"

static void *etime_create(const void *opts)
{
    return sat_etime_create((const sat_etime_opts *)opts);
}
static sat_event_sink etime_sink(void *a) { return sat_etime_sink((sat_etime *)a); }
static int etime_finish(void *a) { return sat_etime_finish((sat_etime *)a); }
static int etime_merge(void *into, const void *from)
{
    return sat_etime_merge((sat_etime *)into, (const sat_etime *)from);
}
static void etime_free(void *a) { sat_etime_free((sat_etime *)a); }
static int etime_result(const void *a, sat_result *r)
{
    return sat_etime_result((const sat_etime *)a, r);
}

static int etime_focus(void *a, const sat_span *spans, size_t n)
{
    return sat_etime_focus((sat_etime *)a, spans, n);
}

static int etime_save(const void *a, struct sat_sw *w)
{
    return sat_etime_save((const sat_etime *)a, w);
}
static int etime_load(void *a, struct sat_sr *r) { return sat_etime_load((sat_etime *)a, r); }

static const sat_analyzer sat_analyzer_etime = {
    "etime", "where the server's time went (etime = wtime + optime)",
    etime_create, etime_sink, etime_finish, etime_merge, etime_free, etime_result, etime_focus,
    NULL, NULL, etime_save, etime_load};

static void *hs_create(const void *opts) { return sat_hs_create((const sat_hs_opts *)opts); }
static sat_event_sink hs_sink(void *a) { return sat_hs_sink((sat_hs *)a); }
static int hs_finish(void *a) { return sat_hs_finish((sat_hs *)a); }
static int hs_merge(void *into, const void *from)
{
    return sat_hs_merge((sat_hs *)into, (const sat_hs *)from);
}
static void hs_free(void *a) { sat_hs_free((sat_hs *)a); }
static int hs_result(const void *a, sat_result *r) { return sat_hs_result((const sat_hs *)a, r); }

static int hs_save(const void *a, struct sat_sw *w) { return sat_hs_save((const sat_hs *)a, w); }
static int hs_load(void *a, struct sat_sr *r) { return sat_hs_load((sat_hs *)a, r); }

static const sat_analyzer sat_analyzer_handshakes = {
    "handshakes", "TLS handshakes on the wire: full, resumed, failed, incomplete",
    hs_create, hs_sink, hs_finish, hs_merge, hs_free, hs_result, NULL, NULL, NULL, hs_save,
    hs_load};

static void *satu_create(const void *o)
{
    return sat_saturation_create((const sat_saturation_opts *)o);
}
static sat_event_sink satu_sink(void *a) { return sat_saturation_sink((sat_saturation *)a); }
static int satu_finish(void *a) { return sat_saturation_finish((sat_saturation *)a); }
static int satu_merge(void *into, const void *from)
{
    return sat_saturation_merge((sat_saturation *)into, (const sat_saturation *)from);
}
static void satu_free(void *a) { sat_saturation_free((sat_saturation *)a); }
static int satu_result(const void *a, sat_result *r)
{
    return sat_saturation_result((const sat_saturation *)a, r);
}

static const sat_analyzer sat_analyzer_saturation = {
    "saturation", "throughput vs concurrency per window and the USL fit: where the knee is",
    satu_create, satu_sink, satu_finish, satu_merge, satu_free, satu_result};
static void *st_create(const void *opts)
{
    return sat_storms_create((const sat_storms_opts *)opts);
}
static sat_event_sink st_sink(void *a) { return sat_storms_sink((sat_storms *)a); }
static int st_finish(void *a) { return sat_storms_finish((sat_storms *)a); }
static int st_merge(void *into, const void *from)
{
    return sat_storms_merge((sat_storms *)into, (const sat_storms *)from);
}
static void st_free(void *a) { sat_storms_free((sat_storms *)a); }
static int st_result(const void *a, sat_result *r)
{
    return sat_storms_result((const sat_storms *)a, r);
}

static int st_save(const void *a, struct sat_sw *w)
{
    return sat_storms_save((const sat_storms *)a, w);
}
static int st_load(void *a, struct sat_sr *r) { return sat_storms_load((sat_storms *)a, r); }

static const sat_analyzer sat_analyzer_storms = {
    "storms", "timeout storms: client failures above their baseline, and what caused them",
    st_create, st_sink, st_finish, st_merge, st_free, st_result, NULL, NULL, NULL,
    st_save, st_load};

static void *cr_create(const void *opts)
{
    return sat_crashes_create((const sat_crashes_opts *)opts);
}
static sat_event_sink cr_sink(void *a) { return sat_crashes_sink((sat_crashes *)a); }
static int cr_finish(void *a) { return sat_crashes_finish((sat_crashes *)a); }
static int cr_merge(void *into, const void *from)
{
    return sat_crashes_merge((sat_crashes *)into, (const sat_crashes *)from);
}
static void cr_free(void *a) { sat_crashes_free((sat_crashes *)a); }
static void cr_borrow(void *a, void *storms)
{
    sat_crashes_borrow_storms((sat_crashes *)a, (sat_storms *)storms);
}
static int cr_result(const void *a, sat_result *r)
{
    return sat_crashes_result((const sat_crashes *)a, r);
}

static int cr_save(const void *a, struct sat_sw *w)
{
    return sat_crashes_save((const sat_crashes *)a, w);
}
static int cr_load(void *a, struct sat_sr *r) { return sat_crashes_load((sat_crashes *)a, r); }

static const sat_analyzer sat_analyzer_crashes = {
    "crashes", "crashes from core files and logged backtraces: where, grouped, and the load before",
    cr_create, cr_sink, cr_finish, cr_merge, cr_free, cr_result, NULL, "storms", cr_borrow,
    cr_save, cr_load};

static void *cs_create(const void *opts) { return sat_cs_create((const sat_cs_opts *)opts); }
static sat_event_sink cs_sink(void *a) { return sat_cs_sink((sat_cs *)a); }
static int cs_finish(void *a) { return sat_cs_finish((sat_cs *)a); }
static int cs_merge(void *into, const void *from)
{
    return sat_cs_merge((sat_cs *)into, (const sat_cs *)from);
}
static void cs_free(void *a) { sat_cs_free((sat_cs *)a); }
static int cs_result(const void *a, sat_result *r) { return sat_cs_result((const sat_cs *)a, r); }

static int cs_save(const void *a, struct sat_sw *w) { return sat_cs_save((const sat_cs *)a, w); }
static int cs_load(void *a, struct sat_sr *r) { return sat_cs_load((sat_cs *)a, r); }

static const sat_analyzer sat_analyzer_cachesize = {
    "cachesize", "entry, DN and DB cache sizes for target hit ratios (LRU miss-ratio curve)",
    cs_create, cs_sink, cs_finish, cs_merge, cs_free, cs_result, NULL, NULL, NULL, cs_save,
    cs_load};

static void *tl_create(const void *opts)
{
    return sat_timeline_create((const sat_timeline_opts *)opts);
}
static sat_event_sink tl_sink(void *a) { return sat_timeline_sink((sat_timeline *)a); }
static int tl_finish(void *a) { return sat_timeline_finish((sat_timeline *)a); }
static int tl_merge(void *into, const void *from)
{
    return sat_timeline_merge((sat_timeline *)into, (const sat_timeline *)from);
}
static void tl_free(void *a) { sat_timeline_free((sat_timeline *)a); }
static int tl_result(const void *a, sat_result *r)
{
    return sat_timeline_result((const sat_timeline *)a, r);
}

static int tl_save(const void *a, struct sat_sw *w)
{
    return sat_timeline_save((const sat_timeline *)a, w);
}
static int tl_load(void *a, struct sat_sr *r) { return sat_timeline_load((sat_timeline *)a, r); }

static const sat_analyzer sat_analyzer_timeline = {
    "timeline", "operations, errors, latency, connections per window and per hour, on one axis",
    tl_create, tl_sink, tl_finish, tl_merge, tl_free, tl_result, NULL, NULL, NULL, tl_save,
    tl_load};

static const sat_analyzer *const sat_analyzers[] = {
    &sat_analyzer_etime,
    &sat_analyzer_handshakes,
    &sat_analyzer_saturation,
    &sat_analyzer_storms,
    &sat_analyzer_crashes,
    &sat_analyzer_cachesize,
    &sat_analyzer_timeline,
};

const sat_analyzer *const *sat_analyzer_list(size_t *n)
{
    if (n)
        *n = sizeof sat_analyzers / sizeof sat_analyzers[0];
    return sat_analyzers;
}

const sat_analyzer *sat_analyzer_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof sat_analyzers / sizeof sat_analyzers[0]; i++)
        if (strcmp(sat_analyzers[i]->name, name) == 0)
            return sat_analyzers[i];
    return NULL;
}

int sat_analyzer_json(const sat_analyzer *a, const void *obj, FILE *out, sat_diag *diag)
{
    sat_result *res = sat_result_new(a->name);
    int rc = res ? a->result(obj, res) : SAT_E_NOMEM;
    if (rc >= 0)
        rc = sat_result_json(res, out, diag);
    else
        sat_diag_set(diag, rc, NULL, "building the %s result: %s", a->name, sat_strerror(rc));
    sat_result_free(res);
    return rc;
}
