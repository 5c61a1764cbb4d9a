/*
 * state_fields.h - (internal to analyze/) what a set of inputs can hold
 * (fields.h sat_fields_seen) as bytes and back, for the analyzers whose
 * state counts it (handshakes' HTTP logs, cachesize's stream): its counts,
 * and its reasons as their texts, read back as the pointers to fields.h's
 * own static texts (a reason is static there, and merges copy the pointer,
 * so a loaded one must outlive any instance). A reason this build does not
 * know is refused.
 */
#ifndef SAT_ANALYZE_STATE_FIELDS_H
#define SAT_ANALYZE_STATE_FIELDS_H

#include "satscope/fields.h"
#include "state_io.h"

void sat_sw_fields_seen(sat_sw *w, const sat_fields_seen *f);
/* Into f (its contents replaced); SAT_OK or the reader's failure. */
int sat_sr_fields_seen(sat_sr *r, sat_fields_seen *f);

#endif
