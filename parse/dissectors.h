/*
 * dissectors.h - the stream dissectors of parse/ (const plug-in tables of
 * include/satscope/wire.h), listed by parse/stream_registry.c.
 */
#ifndef SAT_PARSE_DISSECTORS_H
#define SAT_PARSE_DISSECTORS_H

#include "satscope/wire.h"

extern const sat_stream_dissector sat_dissect_ldap; /* dis_ldap.c, RFC 4511 */

#endif /* SAT_PARSE_DISSECTORS_H */
