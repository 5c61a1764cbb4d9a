/*
 * ldap_record.c - resetting a record and its embedded op/conn rows to
 * "nothing known", so formats fill only what a line says.
 */
#include "satscope/parse.h"

void sat_ldap_record_clear(sat_ldap_record *r)
{
    memset(r, 0, sizeof *r);
    r->op = SAT_ABSENT;
    r->internal_op = SAT_ABSENT;

    sat_ldap_op *o = &r->op_fields;
    o->op = SAT_ABSENT;
    o->internal_op = SAT_ABSENT;
    o->scope = SAT_SCOPE_NONE;
    o->err = SAT_ABSENT;
    o->tag = SAT_ABSENT;
    o->nentries = SAT_ABSENT;
    o->etime = o->wtime = o->optime = SAT_ABSENT;
    o->wbusy = o->wbusy_max = o->wqdepth = SAT_ABSENT;
    o->target_op = SAT_ABSENT;

    r->conn_fields.fd = SAT_ABSENT;
}
