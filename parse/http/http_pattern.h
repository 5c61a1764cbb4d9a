/*
 * http_pattern.h - (internal to parse/) a user's PCRE2 regular expression for
 * access log lines no format definition describes (`--pattern`): its named
 * groups say which field of the line each holds, and the row builder of
 * http_int.h makes the row, as for a compiled format (http_pattern.c).
 *
 * Group names (docs/http.md): every field name of sat_http_field_name but
 * "ignore" and "time_strf" ("client", "status", "rt_ms", ...); "time", whose
 * kind is told by the text it captured (CLF, ISO 8601, or epoch seconds /
 * milliseconds / microseconds by its digits); and "end", "end_clf", ...:
 * the same times when the line's time is the response's end (ts = end -
 * response time). Unnamed groups are not used. Duplicate names ((?J), (?|))
 * take the first group that matched.
 */
#ifndef SAT_PARSE_HTTP_PATTERN_H
#define SAT_PARSE_HTTP_PATTERN_H

#include "http_int.h"

/* A log format string (sat_parse_ctx.log_format, --log-format) that starts
 * with this is a pattern: "pcre2:^(?<client>\\S+) ...". */
#define SAT_HTTP_PATTERN_PREFIX "pcre2:"

typedef struct sat_http_pattern sat_http_pattern;

/* Compiles the expression re (len bytes, not NUL-terminated necessarily), with
 * PCRE2's JIT when it is available. NULL with d set: PCRE2's message and
 * offset, or a group name that maps to no field (the message lists the
 * names that do), or a pattern with no group giving a time. Immutable: one
 * may be shared by threads, each with its own matcher. */
sat_http_pattern *sat_http_pattern_compile(const char *re, size_t len, sat_diag *d);
void sat_http_pattern_free(sat_http_pattern *p); /* NULL is fine */
const sat_http_facts *sat_http_pattern_facts(const sat_http_pattern *p);

/* A matcher of p for one parser state: its own match data and limits (a line
 * that needs more than the match limit is rejected, not matched forever).
 * p must outlive it; m->free(m->self) frees it. SAT_E_NOMEM or SAT_OK. */
int sat_http_pattern_matcher(const sat_http_pattern *p, sat_http_matcher *m);

/* A matcher that compiles re and owns it (m->free(m->self) frees both): for
 * a parser state of its own. SAT_OK, or the compile's status with d set. */
int sat_http_pattern_matcher_own(const char *re, size_t len, sat_http_matcher *m,
                                 sat_diag *d);

/* The group names a pattern may use, ", "-separated, into out (snprintf's
 * rules: the full length is returned). */
size_t sat_http_pattern_names(char *out, size_t cap);

#endif /* SAT_PARSE_HTTP_PATTERN_H */
