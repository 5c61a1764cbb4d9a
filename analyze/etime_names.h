/*
 * etime_names.h - (private to analyze/) the names and meanings the etime
 * result puts beside its codes (etime_names.c). Static strings, "" when
 * unknown.
 */
#ifndef SAT_ANALYZE_ETIME_NAMES_H
#define SAT_ANALYZE_ETIME_NAMES_H

#include "satscope/event.h"

/* An LDAP result code's name (RFC 4511 and registered extensions). */
const char *sat_ldap_result_name(int32_t code);
/* A close code's meaning (enum sat_close_code, event.h). */
const char *sat_close_code_meaning(int code);
/* A notes= letter's meaning, by its bit (SAT_NOTE_LETTERS). */
const char *sat_note_meaning(int bit);
/* An HTTP status's reason phrase (RFC 9110 section 15, and the servers' own:
 * nginx 499), "" when unknown. */
const char *sat_http_status_name(int32_t code);

#endif
