/*
 * internal_ops_int.h - (private to internal_ops*.c) what the files of the
 * internal-operation attribution share: the waiting rows, the rows and
 * groups accumulated, the keys' layout, and the functions one file calls in
 * another (sat_iop_*; the analyzer's interface is internal_ops.h).
 *   internal_ops.c        create/free, feeding rows, merging, orphans;
 *   internal_ops_wait.c   the waiting rows, by client operation;
 *   internal_ops_shape.c  the bases rows are grouped by (DN shapes);
 *   internal_ops_nest.c   the nesting rebuilt from depths, accumulated into
 *                         rows and groups;
 *   internal_ops_result.c its part of the result: groups and their rows, sorted, as trees;
 *   internal_ops_state.c  all of it as a partial's state (state_io.h) and back.
 * The rules are written in internal_ops.c's opening comment.
 */
#ifndef SAT_ANALYZE_INTERNAL_OPS_INT_H
#define SAT_ANALYZE_INTERNAL_OPS_INT_H

#include "acc.h"
#include "internal_ops.h"
#include "strtab.h"

#define IOPS_PENDING_MAX (1u << 20)
#define IOPS_RECENT 1024 /* operations attributed lately, for late rows */
#define IOPS_HEAD 1024   /* a part's first attributions, kept for a merge */
#define NIL (-1)
#define IOPS_ERR_BITS 128
#define SEP_SEG '\x1e' /* between the parent and each nesting level in a key */
#define SEP_FLD '\x1f' /* between base and filter in a segment */
/* A depth is kept in a key as depth + DEPTH_BIAS (at most 255), so that no
 * depth byte is a separator; types (< SAT_OP__COUNT + 2) and scopes (0, 1,
 * 2, 255) are not either. */
#define DEPTH_BIAS 0x20
static inline unsigned depth_byte(unsigned d) { return d > 255 - DEPTH_BIAS ? 255 : d + DEPTH_BIAS; }
/* parent "types" past the LDAP ones */
#define PT_SERVER (SAT_OP__COUNT + 0)
#define PT_ORPHAN (SAT_OP__COUNT + 1)

typedef struct ichild {
    char *seg; /* [type][scope][depth] base SEP_FLD filter, malloc'd */
    uint32_t seglen;
    uint8_t depth, is_error;
    int64_t etime; /* SAT_ABSENT if not logged */
    int32_t next;  /* in its list, or the free list */
    int32_t err;   /* its result code when an error */
} ichild;

typedef struct ipkey {
    uint32_t server, epoch;
    int64_t conn, op;
    int32_t x; /* server rows only; INT32_MIN otherwise */
} ipkey;

typedef struct ipend {
    ipkey k;
    int32_t head, tail, hnext;
    uint32_t n;
    uint8_t used; /* 1 waiting (in the hash), 2 detached for a head entry */
} ipend;

/* One of a part's first IOPS_HEAD attributions (a client operation, or the
 * outermost row of the server's own), kept with its rows until the part is
 * finished or merged into the part before it: rows that part still holds
 * for the same operation (the cut fell between them) join them first, so
 * that merged parts count as one pass would. */
typedef struct ihead {
    ipkey k;
    char *pkey; /* its group's key, malloc'd */
    size_t pklen;
    int32_t list;  /* its rows, detached (used 2); NIL: none came before it */
    int64_t etime; /* the client operation's */
    uint16_t flags;
    uint8_t server; /* the server's own */
} ihead;

typedef struct irow_acc {
    uint64_t count, timed, errors, parents_with, last_serial;
    int64_t esum, esum_tp; /* ns, saturating (acc.h); esum_tp: of parents with an etime */
    uint64_t emax;         /* ns */
    /* the error codes seen: bit c of codes 0..IOPS_ERR_BITS-1, err_other any other */
    uint64_t err_bits[2], err_other;
    int32_t first, last, next, idx; /* the tree, built at finish */
} irow_acc;

typedef struct ipar_acc {
    uint64_t parents, parents_timed, internal;
    int64_t pe_sum, d1_sum, d1_sum_tp; /* ns, saturating (acc.h) */
    int32_t first, last;
} ipar_acc;

/* An operation whose internal ones were attributed: rows of the same key that
 * come after it (a post-operation plugin runs after the RESULT was logged,
 * as 389 does for a task entry's ADD) belong to its group too. */
typedef struct irecent {
    ipkey k;
    char *pkey; /* its group's key, malloc'd */
    size_t pklen;
} irecent;

struct sat_iops {
    size_t max_keys;
    irecent recent[IOPS_RECENT];
    size_t recent_next;
    sat_strtab rows, pars;
    ihead *heads; /* IOPS_HEAD of them, allocated with the first */
    size_t nheads;
    int heads_closed; /* finished: no more heads */
    uint64_t serial;
    uint64_t of_clients, of_server, orphans, unattributed;

    ichild *cv;
    size_t ccap, npending_children;
    int32_t cfree;
    ipend *pv;
    size_t pcap, npend;
    int32_t pfree;
    int32_t *bucket;
    size_t nb;

    /* scratch for one resolution */
    int32_t *idx, *encl;
    uint32_t *koff, *klen;
    size_t scap;
    char *kbuf;
    size_t kcap;
    char *seg;
    size_t segcap;
    int nomem;
};

/* ---- internal_ops.c -------------------------------------------------------------- */
extern const sat_rec_desc sat_iop_par_desc, sat_iop_row_desc; /* ipar_acc, irow_acc */
int sat_iop_orphans_into(sat_iops *dst, const sat_iops *src);
int sat_iop_heads_resolve(sat_iops *a); /* its own heads, at finish */

/* ---- internal_ops_wait.c --------------------------------------------------------- */
int sat_iop_pk_eq(const ipkey *a, const ipkey *b);
int32_t sat_iop_pend_find(const sat_iops *a, const ipkey *k);
int32_t sat_iop_pend_get(sat_iops *a, const ipkey *k); /* NIL: no memory */
void sat_iop_pend_release(sat_iops *a, int32_t pi);
void sat_iop_pend_detach(sat_iops *a, int32_t pi); /* out of the hash, rows kept */
int32_t sat_iop_child_new(sat_iops *a); /* NIL: no memory */
int sat_iop_pend_rehash(sat_iops *a, size_t nb); /* nb a power of two; SAT_E_NOMEM */

/* ---- internal_ops_shape.c -------------------------------------------------------- */
int sat_iop_grow(char **p, size_t *cap, size_t need);
size_t sat_iop_put_clean(char *out, const char *s, size_t n);
int sat_iop_base_of(sat_iops *a, const sat_ldap_op *op, size_t at, size_t *len);

/* ---- internal_ops_nest.c --------------------------------------------------------- */
int sat_iop_resolve(sat_iops *dst, const sat_iops *src, int32_t pi, const char *pkey,
                    size_t pklen, const sat_ldap_op *parent, uint64_t *counter, int late);

/* Child c at the end of waiting list p's rows (its order is the rows'). */
static inline void ipend_append(sat_iops *a, ipend *p, int32_t c)
{
    if (p->tail != NIL)
        a->cv[p->tail].next = c;
    else
        p->head = c;
    p->tail = c;
    p->n++;
}

#endif
