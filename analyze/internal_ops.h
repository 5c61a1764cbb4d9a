/*
 * internal_ops.h - (private to analyze/) internal operations attributed to the
 * client operation that caused them, for the etime analyzer (etime.c feeds
 * it, etime_result.c puts its part of the view in the result). The rules are
 * written in internal_ops.c.
 *
 * Ownership: sat_iops owns its tables; the rows it is fed are borrowed for
 * the call only (event.h). The view parts it builds live in the arena the
 * caller passes to sat_iops_finish (etime's view arena).
 */
#ifndef SAT_ANALYZE_INTERNAL_OPS_H
#define SAT_ANALYZE_INTERNAL_OPS_H

#include "satscope/analyze.h"

typedef struct sat_iops sat_iops;

/* max_keys caps the distinct (parent group, internal kind) rows; NULL on
 * allocation failure. */
sat_iops *sat_iops_create(size_t max_keys);
void sat_iops_free(sat_iops *a); /* NULL ok */

/* An internal operation's row (internal_depth > 0). SAT_OK or SAT_E_NOMEM. */
int sat_iops_internal(sat_iops *a, const sat_ldap_op *op);
/* Every client (external) operation's row: attributes the internal ones
 * waiting for it. Cheap when none is waiting. */
int sat_iops_external(sat_iops *a, const sat_ldap_op *op);
/* Adds from's attributed rows into into; internal operations still waiting
 * in from for their client operation count as orphans (not in the input). */
int sat_iops_merge(sat_iops *into, const sat_iops *from);
/* Fills the view's iparents and internal_* counts; what still waits for its
 * client operation becomes "(not in the input)". SAT_OK or SAT_E_NOMEM. */
int sat_iops_finish(sat_iops *a, sat_arena *arena, sat_etime_view *v);
size_t sat_iops_bytes(const sat_iops *a);

#endif
