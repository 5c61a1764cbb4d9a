/*
 * retry_rule.h - which connection retried which failed one: the rule the
 * storms and handshakes analyzers share (retry_rule.c), so that a capture's
 * retries are one figure wherever a report quotes them.
 *
 * The rule: from one client address to one server (a "peer": the caller's
 * hash), a connection retries the failed one the client gave up on last
 * before it started, when that was at most `window` before and no earlier
 * connection retried it. A client gives up on a connection (its FIN or RST,
 * else the connection's end; an LDAP connection: its close) before it opens
 * its retry: a connection opened while the failed one was still open
 * (another client behind the same address, or the same client's parallel
 * connection) is not its retry, and of failures given up one after the other
 * with no connection between them only the last is taken as retried. Clients
 * behind one address still look like one: the next connection of any of
 * them after a give-up counts.
 *
 * Ownership: the caller's array, sorted in place; nothing kept.
 */
#ifndef SAT_ANALYZE_RETRY_RULE_H
#define SAT_ANALYZE_RETRY_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "satscope/base.h"
#include "satscope/event.h"

/* One connection; the first member of each caller's record (the array is
 * walked with the caller's stride). */
typedef struct sat_try {
    uint64_t peer;         /* client -> server, hashed by the caller */
    sat_ts_ns syn_ts;      /* opened */
    sat_ts_ns gave_up_ts;  /* the client gave up on it (FIN/RST, else its end; a close) */
    int64_t conn;          /* ties after flow (an LDAP connection number) */
    uint32_t flow;         /* ties after syn_ts */
    uint8_t failed;        /* set by the caller: a failure a retry may follow */
} sat_try;

/* Per peer, once its retries are matched: its records [first, first + n)
 * (in SYN order) and its failures' give-up times, ascending. */
typedef void (*sat_try_peer_fn)(void *ctx, size_t first, size_t n, const sat_ts_ns *gave_up,
                                size_t nfailed);
/* A retry: record `retry` retried record `failed` (indices after the sort). */
typedef void (*sat_try_retry_fn)(void *ctx, size_t retry, size_t failed);

/* A TCP connection of a capture as the rule's record (t->failed left 0):
 * its peer by address (client, server address and port, capture: ids
 * differ between analyzers that merge), SYN, flow, and when the client gave
 * up on it: when it left (its FIN or RST), else at the connection's end; a
 * SYN never answered, a second after its last try (as the storms analyzer
 * dates that failure). */
void sat_try_of_tcp(sat_try *t, const sat_tcp_conn *c);

/* Sorts the n records of `stride` bytes at base (each starting with a
 * sat_try) by peer, SYN, flow and conn, and calls on_retry for each retry,
 * in SYN order within a peer, then on_peer (may be NULL) for the peer. The
 * rule does not depend on the order the records came in. SAT_OK or
 * SAT_E_NOMEM (then nothing was called). */
int sat_try_match(void *base, size_t n, size_t stride, sat_dur_ns window,
                  sat_try_retry_fn on_retry, sat_try_peer_fn on_peer, void *ctx);

#endif
