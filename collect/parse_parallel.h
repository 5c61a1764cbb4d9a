/*
 * parse_parallel.h - (internal to collect/) parsing one log on two threads.
 *
 * For formats whose lines parse on their own (sat_log_format.line_independent):
 * the file is read in chunks of whole lines, each chunk is parsed by whichever
 * thread is free into the records and rejects it yields, and the chunks are
 * then joined strictly in file order on the calling thread. The joiner and the
 * sink therefore see exactly the sequence a single-threaded parse gives; only
 * the parsing (most of the CPU time of `satscope etime` on a raw log) is
 * shared between the cores.
 */
#ifndef SAT_PARSE_PARALLEL_H
#define SAT_PARSE_PARALLEL_H

#include "satscope/collect.h"
#include "satscope/parse.h"

typedef struct sat_pp sat_pp;

/* One parallel parse of one file. ctx is the caller's (its join, sink, source,
 * reject_sample_max and default_year are used; it must outlive the sat_pp);
 * the records reach ctx->join and the rejects ctx->sink on the calling
 * thread. chunk_bytes 0 = the default (64 KiB). NULL on allocation failure. */
sat_pp *sat_pp_create(const sat_log_format *fmt, sat_parse_ctx *ctx, size_t chunk_bytes);

typedef struct sat_pp_result {
    uint64_t lines;     /* lines read */
    uint64_t cut_lines; /* lines over 1 MiB cut here (the input counts its own) */
    int input_rc;       /* SAT_OK, or the input's error (diag set) after which
                           everything before was still parsed and joined */
} sat_pp_result;

/* Reads `in` to its end. progress (may be NULL) is called on the calling
 * thread with the lines joined so far, every few chunks. Returns SAT_OK or the
 * first negative status of the joiner, the sink or an allocation; the
 * source's lines/rejects/first/last/offset/header facts are kept up to date
 * (header strings are owned by pp: free it after the source is emitted). */
int sat_pp_run(sat_pp *pp, sat_input *in, void (*progress)(void *u, uint64_t lines),
               void *progress_ctx, sat_pp_result *res, sat_diag *diag);

void sat_pp_free(sat_pp *pp); /* NULL is fine */

/* What keeps a chunk's rows valid until they are joined: every present string
 * of `row` (a row struct of `table`, its string fields as the trace schema
 * lists them) that does not lie within buf[0..len) (the chunk's own bytes,
 * which live as long as its rows) is copied into `arena` and pointed there.
 * SAT_OK, SAT_E_NOMEM (the strings before the failing one are copied), or
 * SAT_E_USAGE for a table the schema does not know. */
int sat_pp_keep_strings(int table, void *row, const char *buf, size_t len, sat_arena *arena);

#endif
