/*
 * internal_ops_shape.c - the base an operation is grouped by: a search's
 * base, or the shape of an entry's DN (its first RDN's value replaced by
 * '*'), with bytes below 0x20 shown as '?' so that no key separator gets
 * in. The rules are in internal_ops.c.
 */
#include "internal_ops_int.h"

/* ---- shapes --------------------------------------------------------------------- */
int sat_iop_grow(char **p, size_t *cap, size_t need)
{
    return SAT_GROW(*p, *cap, need);
}

/* Bytes below 0x20 (the key separators among them) are shown as '?'. */
size_t sat_iop_put_clean(char *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
    return n;
}

/* A DN with its first RDN's value(s) replaced by '*' ("uid=*,ou=people,...",
 * "cn=*+sn=*,..."); a DN of one RDN (cn=config) is kept whole. It grows by
 * at most one byte per '=' (an empty value): out holds 2n + 8 bytes. */
static size_t dn_shape(const char *dn, size_t n, char *out)
{
    size_t comma = n;
    for (size_t i = 0; i < n; i++) {
        if (dn[i] == '\\') {
            i++;
            continue;
        }
        if (dn[i] == ',') {
            comma = i;
            break;
        }
    }
    if (comma == n)
        return sat_iop_put_clean(out, dn, n);
    size_t o = 0;
    int in_value = 0;
    for (size_t i = 0; i < comma; i++) {
        char c = dn[i];
        if (in_value) {
            if (c == '\\') {
                i++;
                continue;
            }
            if (c == '+') {
                in_value = 0;
                out[o++] = '+';
            }
            continue;
        }
        if (c == '=') {
            in_value = 1;
            out[o++] = '=';
            out[o++] = '*';
            continue;
        }
        out[o++] = (unsigned char)c < 0x20 ? '?' : c;
    }
    return o + sat_iop_put_clean(out + o, dn + comma, n - comma);
}

/* The base an operation is grouped by (the rule in the opening comment). */
int sat_iop_base_of(sat_iops *a, const sat_ldap_op *op, size_t at, size_t *len)
{
    *len = 0;
    if (!op->dn.ptr)
        return sat_iop_grow(&a->seg, &a->segcap, at + 1) < 0 ? SAT_E_NOMEM
                                                    : (a->seg[at] = '-', *len = 1, 0);
    if (op->dn.len == 0) {
        static const char root[] = "(root DSE)";
        if (sat_iop_grow(&a->seg, &a->segcap, at + sizeof root) < 0)
            return SAT_E_NOMEM;
        memcpy(a->seg + at, root, sizeof root - 1);
        *len = sizeof root - 1;
        return 0;
    }
    if (sat_iop_grow(&a->seg, &a->segcap, at + 2 * (size_t)op->dn.len + 8) < 0)
        return SAT_E_NOMEM;
    if (op->type == SAT_OP_SRCH && op->scope != SAT_SCOPE_BASE)
        *len = sat_iop_put_clean(a->seg + at, op->dn.ptr, op->dn.len);
    else
        *len = dn_shape(op->dn.ptr, op->dn.len, a->seg + at);
    return 0;
}
