/*
 * analyze_etime.h - the etime analyzer (analyze/etime*.c, part of analyze.h).
 *
 * The etime analyzer ("where the server's time went"): per operation type, or
 * per --by key, count, rate, etime mean / p50 / p90 / p99 / p99.9 / max, total time and
 * share, wtime and optime means; plus everything logconv.pl's report gives
 * (connections by listener, peak concurrency, close codes, result codes,
 * notes, unindexed searches, binds, failed binds, top clients / bind DNs /
 * bases / filters, ...) and a per-minute series.
 *
 * On HTTP access logs (http_req rows) the same figures are the requests':
 * per method and per path template (or --by key), response time (etime:
 * fields.h) percentiles, upstream time where logged, errors = statuses >=
 * 400, every status by code, top clients and the series.
 *
 * Percentiles are nearest-rank (x[ceil(q n)] of the sorted etimes): exact for
 * groups of up to 2048 timed operations, within 0.5% above (analyze/sketch.h).
 *
 * Usage: create, feed rows through the sink, optionally merge other partial
 * results into it, finish, then write its result (sat_etime_result: the
 * sections every form renders, analyze/etime_result.c says which).
 * Ownership: sat_etime owns its state; the caller owns the sat_result it
 * writes into. No function prints, exits or aborts.
 */
#ifndef SATSCOPE_ANALYZE_ETIME_H
#define SATSCOPE_ANALYZE_ETIME_H

#include "satscope/event.h"
#include "satscope/fields.h"
#include "satscope/result.h"

enum sat_etime_by {
    SAT_ETIME_BY_NONE, /* default report: rows per operation type ("ops") */
    SAT_ETIME_BY_OP,
    SAT_ETIME_BY_BASE,   /* SRCH base, entry DN of ADD/MOD/DEL/MODRDN/CMP */
    SAT_ETIME_BY_FILTER, /* SRCH filter shape (values replaced) */
    SAT_ETIME_BY_CLIENT,
    SAT_ETIME_BY_BINDDN, /* ASCII case folded; "(anonymous)" for "" */
    SAT_ETIME_BY_CONN,
    SAT_ETIME_BY_MINUTE,
    SAT_ETIME_BY_INTERNAL, /* internal operations under the client operation
                              that ran them) */
    /* HTTP requests (http_req rows); their default is the path template, and
     * client and minute group them too. A key of the other kind of rows
     * leaves the groups of these empty. */
    SAT_ETIME_BY_PATH,   /* path template: query dropped, ids collapsed */
    SAT_ETIME_BY_STATUS, /* HTTP status */
    SAT_ETIME_BY_METHOD  /* HTTP method ("op" groups requests by method too) */
};
/* "op", "base", "filter", "client", "binddn", "conn", "minute", "internal", "path",
 * "status", "method" (also "none") -> enum; < 0 if unknown. */
int sat_etime_by_parse(const char *s);
const char *sat_etime_by_name(int by);

typedef struct sat_etime_opts {
    int by;              /* enum sat_etime_by */
    size_t top;          /* rows in top-N lists, 0 -> 20 */
    /* additions (zero = default): */
    size_t max_keys;     /* distinct keys per high-cardinality table, 0 -> 100000 */
    const char *root_dn; /* NULL -> "cn=directory manager" (compared ASCII
                            case-insensitively, blanks around ',' '=' ignored) */
    /* The shape of a search filter (parse.h sat_filter_shape), for rows that
     * carry none (a collection with shapes off: they cost the parser a pass
     * over every filter, here one per distinct filter); NULL: such a search's
     * shape is its filter as logged. */
    size_t (*filter_shape)(const char *filter, size_t len, char *out, size_t cap);
    /* Keep, per 10 s of each server, who used it (a summary of the work per
     * filter shape, client, bind DN and base: analyze/etime_during.c), so
     * that sat_etime_focus can ask for a span found later (a storm). */
    int during;
} sat_etime_opts;

typedef struct sat_etime sat_etime; /* opaque */

sat_etime *sat_etime_create(const sat_etime_opts *opts); /* NULL: out of memory */
/* The sink consumes source, reject, ldap_op and ldap_conn rows; its ctx is e. */
sat_event_sink sat_etime_sink(sat_etime *e);
/* After the last row (and after a merge): ready for sat_etime_result.
 * SAT_OK or SAT_E_NOMEM. */
int sat_etime_finish(sat_etime *e);
/* Adds `from`'s rows into `into` (several files / hosts). Both must have the
 * same `by`. As for every analyzer's merge: the two were fed rows of one
 * collection (source ids and server numbers are the collection's; results of
 * separate collections are numbered apart first, as cli/cli_parallel.c does),
 * and parts of it (cut anywhere) merged in order give the result of one pass
 * while no capped table (max_keys) overflowed (tests/unit/test_merge_property.c).
 * Quantiles keep their stated error (sketch merges equal the sketch of the
 * union). If `into` was finished, it is finished again. */
int sat_etime_merge(sat_etime *into, const sat_etime *from);
void sat_etime_free(sat_etime *e); /* NULL ok */
/* After finish, with opts.during: the result then has, for each span, who
 * used the server in it ("during": the work per key, at least and at most,
 * and its share of the span's work). n = 0 drops them. SAT_OK or
 * SAT_E_NOMEM. */
int sat_etime_focus(sat_etime *e, const sat_span *spans, size_t n);

/* Its state after its rows and merges, before finish, as a partial keeps
 * it (analyze/state_io.h, `satscope partial`), and back into an instance
 * just created with the same options (by, top, max_keys, during, root_dn:
 * a state of others is refused), which then merges and finishes as e would
 * (analyze/etime_state.c). SAT_OK, SAT_E_NOMEM, or (load) SAT_E_CORRUPT
 * with the reader's message. */
struct sat_sw;
struct sat_sr;
int sat_etime_save(const sat_etime *e, struct sat_sw *w);
int sat_etime_load(sat_etime *e, struct sat_sr *r);

/* The finished analyzer's result sections (analyze/etime_result.c) put into
 * r's root; SAT_OK, SAT_E_NOMEM, or SAT_E_USAGE before sat_etime_finish. */
int sat_etime_result(const sat_etime *e, sat_result *r);

#endif /* SATSCOPE_ANALYZE_ETIME_H */
