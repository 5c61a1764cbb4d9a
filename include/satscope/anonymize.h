/*
 * anonymize.h - the pseudonymiser of `collect --anonymize-key`: a sink that
 * rewrites the identifying strings of every row (DN values, filter values,
 * addresses, names) into keyed pseudonyms before passing the row on, so that
 * a trace can be given to someone who must not read who used the server, yet
 * groups, equalities and subnets stay what they were. What is replaced and
 * what is kept: docs/privacy.md; the module: collect/anonymize.c.
 */
#ifndef SATSCOPE_ANONYMIZE_H
#define SATSCOPE_ANONYMIZE_H

#include "satscope/event.h"

/* The smallest key file accepted, in bytes. */
#define SAT_ANON_KEY_MIN 32
/* The largest key file read (a longer one is refused). */
#define SAT_ANON_KEY_FILE_MAX 4096

typedef struct sat_anon sat_anon;

/* Reads the key file at path: a regular file of SAT_ANON_KEY_MIN to
 * SAT_ANON_KEY_FILE_MAX bytes, not readable by others (no o+r). Its bytes,
 * as they are (a trailing newline included), are the key. Returns a
 * pseudonymiser, or NULL with SAT_E_USAGE (missing, short, long, not a
 * regular file, readable by others), SAT_E_IO or SAT_E_NOMEM in diag. */
sat_anon *sat_anon_open_keyfile(const char *path, sat_diag *diag);
/* The same from the key's bytes (keylen >= SAT_ANON_KEY_MIN). */
sat_anon *sat_anon_create(const void *key, size_t keylen, sat_diag *diag);
void sat_anon_free(sat_anon *a); /* NULL is fine */

/* A sink that pseudonymises each row and hands the copy to next (every
 * table: tables it has nothing to replace in pass unchanged). Its mask is
 * next's. a and next must outlive the sink. Calls may come from several
 * threads: they are serialised. */
sat_event_sink sat_anon_sink(sat_anon *a, const sat_event_sink *next);

/* Rows seen and strings replaced so far (for the summary line). */
uint64_t sat_anon_replaced(const sat_anon *a);

/* The rewrites one at a time (tests, and the sink's own parts). Each result
 * lives in a's scratch arena until sat_anon_reset; SAT_STR_NONE stays absent
 * and "" stays empty. Out of memory gives "" (never an original byte) and
 * sat_anon_failed says so; the sink then fails the row with SAT_E_NOMEM. */
sat_str sat_anon_token(sat_anon *a, sat_str s);  /* a whole value: 12 base32 chars */
sat_str sat_anon_dn(sat_anon *a, sat_str dn);    /* each RDN value; names kept */
sat_str sat_anon_filter(sat_anon *a, sat_str f); /* each assertion value; shape kept */
sat_str sat_anon_addr(sat_anon *a, sat_str ip);  /* IPv4/IPv6, prefix-preserving;
                                                    ":port" and "[v6]:port" kept;
                                                    "local" kept; other text: token */
sat_str sat_anon_host(sat_anon *a, sat_str h);   /* each dot-separated label */
sat_str sat_anon_http_path(sat_anon *a, sat_str path, sat_str tmpl);
void sat_anon_reset(sat_anon *a);                /* frees the scratch results */
int sat_anon_failed(const sat_anon *a);          /* memory ran out since the reset */

#endif /* SATSCOPE_ANONYMIZE_H */
