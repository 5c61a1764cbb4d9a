/*
 * internal_ops.h - (private to analyze/) internal operations attributed to the
 * client operation that caused them, for the etime analyzer (etime.c feeds
 * it, etime_result.c has it write its part of the result). The rules are
 * written in internal_ops.c.
 *
 * Ownership: sat_iops owns its tables; the rows it is fed are borrowed for
 * the call only (event.h).
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
/* Adds from (the rows that came after into's) into into: attributed rows
 * add up, and what the cut between them separated is joined - into's rows
 * waiting for one of from's first attributions go with it, from's waiting
 * rows are late rows of an operation either attributed lately or wait on
 * in into - so that parts merged in order count as one pass. */
int sat_iops_merge(sat_iops *into, const sat_iops *from);
/* Writes into io (etime's "internal_operations" object) the counts of
 * what was attributed (of_clients, of_server, of_operations_not_in_input,
 * unattributed), by_type, nested and the tables groups and ops; what still
 * waits for its client operation is "(not in the input)" there only (a
 * stays mergeable). SAT_OK or SAT_E_NOMEM. */
int sat_iops_result(const sat_iops *a, sat_rnode *io);
size_t sat_iops_bytes(const sat_iops *a);
/* Its state after rows and merges, before the etime analyzer's finish, as
 * a partial keeps it (state_io.h), and back into one just created with the
 * same max_keys. SAT_OK, SAT_E_NOMEM, or (load) the reader's status. */
struct sat_sw;
struct sat_sr;
int sat_iops_save(const sat_iops *a, struct sat_sw *w);
int sat_iops_load(sat_iops *a, struct sat_sr *r);

#endif
