/*
 * dissectors.h - the stream dissectors that parse/ provides (the plug-in table
 * of include/satscope/wire.h), one extern line each. The registry
 * (parse/wire/stream_registry.c) lists them; tests drive them directly.
 * Internal to the tree: not part of the public include/ contract.
 */
#ifndef SAT_PARSE_DISSECTORS_H
#define SAT_PARSE_DISSECTORS_H

#include "satscope/wire.h"

/* TLS (SSLv2-format ClientHello, SSLv3 .. TLS 1.3 and its drafts) over TCP:
 * one sat_tls_hs row per connection, its first handshake (parse/wire/dis_tls.c). */
extern const sat_stream_dissector sat_dissect_tls;

/* LDAPv3 (RFC 4511) over TCP: requests and responses into the joiner, with
 * the wire latency as etime (parse/wire/dis_ldap.c). */
extern const sat_stream_dissector sat_dissect_ldap;

#endif /* SAT_PARSE_DISSECTORS_H */
