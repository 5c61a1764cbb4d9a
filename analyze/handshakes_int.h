/*
 * handshakes_int.h - (private to analyze/handshakes*.c) what the handshakes
 * analyzer's files share: the counts' record, the cost model, and the part
 * that reads handshakes from HTTP access logs (handshakes_http.c).
 */
#ifndef SAT_ANALYZE_HANDSHAKES_INT_H
#define SAT_ANALYZE_HANDSHAKES_INT_H

#include "satscope/analyze.h"

#include "acc.h"
#include "winseries.h"

#define HS_WINDOWS_MAX 4096

extern const sat_rec_desc hs_counts_desc; /* sat_hs_counts: counters only */
/* The server CPU of a set of handshakes, from its counts (handshakes.c). */
double hs_cpu_s(const sat_hs_opts *o, const sat_hs_counts *c);

/* Handshakes from HTTP access logs: create (window: the series' step) / free
 * (NULL ok), one source or http_req row, merge a later part, the view in
 * the arena. */
typedef struct hs_log hs_log;
hs_log *hs_log_create(sat_dur_ns window);
void hs_log_free(hs_log *l);
void hs_log_source(hs_log *l, const sat_source *s);
int hs_log_row(hs_log *l, const sat_http_req *r); /* SAT_OK or SAT_E_NOMEM */
int hs_log_merge(hs_log *into, const hs_log *from);
int hs_log_view(const hs_log *l, const sat_hs_opts *o, sat_arena *a, sat_hs_log_view *v);

#endif
