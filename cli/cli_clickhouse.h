/*
 * cli_clickhouse.h - a client of ClickHouse's HTTP interface (libcurl): one
 * statement per request, a POST whose body is either the statement or, for
 * an INSERT, the rows (the statement then goes in the URL's `query`). Who
 * the client is goes in the X-ClickHouse-User / X-ClickHouse-Key headers,
 * never in the URL. Knows nothing of satscope's tables (cli_export_ch.c
 * does).
 */
#ifndef SAT_CLI_CLICKHOUSE_H
#define SAT_CLI_CLICKHOUSE_H

#include <stddef.h>

typedef struct sat_ch sat_ch;

typedef struct sat_ch_opts {
    const char *url;      /* http://host:8123/ (https too, as libcurl builds allow) */
    const char *user;     /* NULL: ClickHouse's default user */
    const char *password; /* NULL: none */
    long timeout_s;       /* a request's whole time; 0: none */
} sat_ch_opts;

/* NULL when out of memory or the URL is no http(s):// URL (*why says which). The
 * strings are copied. Free with sat_ch_free (NULL accepted). */
sat_ch *sat_ch_new(const sat_ch_opts *o, const char **why);
void sat_ch_free(sat_ch *ch);

/* The same client for another host of the cluster (the URL's scheme and
 * port, the host replaced): a shard's server, whose HTTP port is taken to be
 * the one of the URL. */
sat_ch *sat_ch_for_host(const sat_ch *ch, const char *host);

/* Runs sql. With body (len bytes) the statement goes in the URL and body is
 * its data (INSERT ... FORMAT RowBinary). 0, the answer in *answer (NUL
 * ended, valid until the next call on ch; may be NULL), or -1: what failed
 * in sat_ch_error (ClickHouse's own first line of its error, a refused
 * connection, a timeout). */
int sat_ch_query(sat_ch *ch, const char *sql, const void *body, size_t len, const char **answer);
/* One number the statement answers (a count): 0 or -1 as sat_ch_query, -1
 * also when the answer is no number. */
int sat_ch_query_u64(sat_ch *ch, const char *sql, unsigned long long *v);
const char *sat_ch_error(const sat_ch *ch);
const char *sat_ch_url(const sat_ch *ch);

#endif
