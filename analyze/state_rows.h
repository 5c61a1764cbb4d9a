/*
 * state_rows.h - (internal to analyze/) rows of the event tables (event.h)
 * in an analyzer's state (state_io.h), for an analyzer that keeps rows
 * themselves (the crashes analyzer's crash and frame rows): each column of
 * the table's trace schema (trace.h) in order, so that a field added to
 * event.h and the schema is kept here with no other edit; strings as
 * strings, an absent one apart from an empty one. A table's layout (its row
 * size and columns) is written once before its rows and checked.
 */
#ifndef SAT_ANALYZE_STATE_ROWS_H
#define SAT_ANALYZE_STATE_ROWS_H

#include "state_io.h"

void sat_sw_row_layout(sat_sw *w, int table);
/* SAT_OK, or a failure when the partial's layout of table is not this build's. */
int sat_sr_row_layout(sat_sr *r, int table);
void sat_sw_row(sat_sw *w, int table, const void *row);
/* Into row (zeroed first): its strings point into the reader's bytes, valid
 * as long as they are (copy what is kept). SAT_OK or the reader's failure. */
int sat_sr_row(sat_sr *r, int table, void *row);

#endif
