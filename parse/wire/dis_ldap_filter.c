/*
 * dis_ldap_filter.c - the scratch buffer of the LDAP stream dissector
 * (dis_ldap.c), where one record's strings are rendered, and a SearchRequest's
 * Filter (RFC 4511 4.5.1) written as an RFC 4515 string, values escaped as
 * RFC 4515 section 3 says.
 */
#include "dis_ldap_int.h"

/* ---- scratch buffer (rendered strings of one record) ---------------------------- */
int sat_dl_sb_put(ldap_st *s, const void *p, size_t n)
{
    if (SAT_GROW(s->sb, s->scap, s->slen + n) != SAT_OK)
        return -1;
    if (n)
        memcpy(s->sb + s->slen, p, n);
    s->slen += n;
    return 0;
}

/* An assertion value as RFC 4515 3 writes it: '*', '(', ')', '\' and NUL
 * escaped as \XX; control bytes too, so the string stays one printable line. */
int sat_dl_sb_value(ldap_st *s, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t b = p[i];
        if (b == '*' || b == '(' || b == ')' || b == '\\' || b < 0x20 || b == 0x7f) {
            char e[3] = {'\\', hex[b >> 4], hex[b & 15]};
            if (sat_dl_sb_put(s, p + run, i - run) < 0 || sat_dl_sb_put(s, e, 3) < 0)
                return -1;
            run = i + 1;
        }
    }
    return sat_dl_sb_put(s, p + run, n - run);
}

/* ---- filters (RFC 4511 4.5.1 -> RFC 4515 string) ----------------------------------- */
/* Returns 0, -1 malformed, -2 out of memory. */
int sat_dl_render_filter(ldap_st *s, sat_cursor *c, int depth)
{
    uint8_t tag;
    sat_cursor v, x;
    sat_str a, b;
    if (depth > LDAP_FILTER_DEPTH || sat_dl_ber_tl(c, &tag, &v) < 0)
        return -1;
    if (sb_c(s, '(') < 0)
        return -2;
    int rc = 0;
    switch (tag) {
    case 0xa0: /* and */
    case 0xa1: /* or: an empty set is RFC 4526's absolute true / false */
        if (sb_c(s, tag == 0xa0 ? '&' : '|') < 0)
            return -2;
        while (rc == 0 && sat_cursor_left(&v))
            rc = sat_dl_render_filter(s, &v, depth + 1);
        break;
    case 0xa2: /* not */
        if (sb_c(s, '!') < 0)
            return -2;
        rc = sat_dl_render_filter(s, &v, depth + 1);
        if (rc == 0 && sat_cursor_left(&v))
            rc = -1;
        break;
    case 0xa3: case 0xa5: case 0xa6: case 0xa8: { /* attribute value assertions */
        static const char *const ops[] = {"=", "", ">=", "<=", "", "~="};
        if (sat_dl_ber_str(&v, 0x04, &a) < 0 || sat_dl_ber_str(&v, 0x04, &b) < 0 ||
            sat_cursor_left(&v))
            return -1;
        if (sat_dl_sb_value(s, (const uint8_t *)a.ptr, a.len) < 0 ||
            sb_lit(s, ops[tag - 0xa3]) < 0 ||
            sat_dl_sb_value(s, (const uint8_t *)b.ptr, b.len) < 0)
            return -2;
        break;
    }
    case 0xa4: { /* substrings: initial? any* final? ; at least one */
        if (sat_dl_ber_str(&v, 0x04, &a) < 0 || sat_dl_ber_get(&v, 0x30, &x) < 0 ||
            sat_cursor_left(&v) || !sat_cursor_left(&x))
            return -1;
        if (sat_dl_sb_value(s, (const uint8_t *)a.ptr, a.len) < 0 || sb_c(s, '=') < 0)
            return -2;
        int first = 1, ended = 0;
        while (sat_cursor_left(&x)) {
            uint8_t st;
            sat_cursor sv;
            if (ended || sat_dl_ber_tl(&x, &st, &sv) < 0 || st < 0x80 || st > 0x82 ||
                (st == 0x80 && !first))
                return -1;
            if (st != 0x80 && first && sb_c(s, '*') < 0)
                return -2;
            if (sat_dl_sb_value(s, sv.p, sv.len) < 0 || (st != 0x82 && sb_c(s, '*') < 0))
                return -2;
            ended = st == 0x82;
            first = 0;
        }
        break;
    }
    case 0x87: /* present: the contents are the attribute description */
        if (sat_dl_sb_value(s, v.p, v.len) < 0 || sb_lit(s, "=*") < 0)
            return -2;
        break;
    case 0xa9: { /* extensible: [1] rule? [2] type? [3] value [4] dnAttributes? */
        sat_str rule = SAT_STR_NONE, type = SAT_STR_NONE, val = SAT_STR_NONE;
        int dnattrs = 0;
        if (ber_peek(&v) == 0x81 && sat_dl_ber_str(&v, 0x81, &rule) < 0)
            return -1;
        if (ber_peek(&v) == 0x82 && sat_dl_ber_str(&v, 0x82, &type) < 0)
            return -1;
        if (sat_dl_ber_str(&v, 0x83, &val) < 0)
            return -1;
        if (ber_peek(&v) == 0x84) {
            if (sat_dl_ber_get(&v, 0x84, &x) < 0 || x.len != 1)
                return -1;
            dnattrs = x.p[0] != 0;
        }
        if (sat_cursor_left(&v) || (!rule.ptr && !type.ptr))
            return -1;
        if ((type.ptr && sat_dl_sb_value(s, (const uint8_t *)type.ptr, type.len) < 0) ||
            (dnattrs && sb_lit(s, ":dn") < 0) ||
            (rule.ptr && (sb_c(s, ':') < 0 ||
                          sat_dl_sb_value(s, (const uint8_t *)rule.ptr, rule.len) < 0)) ||
            sb_lit(s, ":=") < 0 || sat_dl_sb_value(s, (const uint8_t *)val.ptr, val.len) < 0)
            return -2;
        break;
    }
    default:
        return -1;
    }
    if (rc)
        return rc;
    return sb_c(s, ')') < 0 ? -2 : 0;
}
