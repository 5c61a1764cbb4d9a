/*
 * fmt_openldap_op.c - the operation lines of OpenLDAP's stats log
 * (fmt_openldap.c; servers/slapd/{bind,search,result,...}.c): each request
 * (BIND, SRCH, ADD, MOD, DEL, MODRDN, CMP, EXT, ABANDON, UNBIND) and its
 * detail lines, and the RESULT's key=value fields (qtime, etime: optime is
 * their difference).
 */
#include "fmt_openldap_int.h"

/* ---- message bodies --------------------------------------------------------------- */

/* Value of key="..." where the closing quote is the one followed by `next`
 * (" scope=", " method=", ...) or, with next == NULL, the line's last quote. */
static int quoted(const char *p, const char *end, const char *next, sat_str *out,
                  const char **after)
{
    if (p >= end || *p != '"')
        return -1;
    p++;
    const char *q;
    if (next) {
        char pat[32];
        size_t n = strlen(next);
        if (n + 1 >= sizeof pat)
            return -1;
        pat[0] = '"';
        memcpy(pat + 1, next, n + 1);
        q = find(p, end, pat);
    } else {
        q = end;
        while (q > p && q[-1] != '"')
            q--;
        q = q > p ? q - 1 : NULL;
    }
    if (!q)
        return -1;
    *out = sat_str_make(p, (size_t)(q - p));
    if (after)
        *after = q + 1;
    return 0;
}

/* key=value tokens of a RESULT line; text= takes the rest of the line. A
 * time past the plausible bound rejects the line (why: fmt_openldap_int.h). */
static int result_fields(const char *p, const char *end, sat_ldap_op *o, char *why,
                         size_t nwhy)
{
    int64_t qtime = SAT_ABSENT;
    while (p < end) {
        while (p < end && *p == ' ')
            p++;
        if (p >= end)
            break;
        if (starts(p, end, "text=")) {
            o->text = sat_str_make(p + 5, (size_t)(end - p - 5));
            break;
        }
        const char *eq = p;
        while (eq < end && *eq != '=' && *eq != ' ')
            eq++;
        if (eq >= end || *eq != '=')
            return -1;
        size_t kl = (size_t)(eq - p);
        const char *v = eq + 1, *ve = v;
        while (ve < end && *ve != ' ')
            ve++;
        int64_t n;
        const char *r;
#define KEY(lit) (kl == sizeof(lit) - 1 && memcmp(p, lit, kl) == 0)
        if (KEY("tag")) {
            if (!(r = parse_i64(v, ve, &n)) || r != ve) return -1;
            o->tag = (int32_t)n;
        } else if (KEY("err")) {
            if (!(r = parse_i64(v, ve, &n)) || r != ve) return -1;
            o->err = (int32_t)n;
        } else if (KEY("nentries")) {
            if (!(r = parse_i64(v, ve, &n)) || r != ve) return -1;
            o->nentries = n;
        } else if (KEY("qtime")) {
            if (!(r = parse_secs(v, ve, &n)) || r != ve) return -1;
            if (sat_parse_dur_check(n, "qtime", why, nwhy)) return -1;
            qtime = n;
        } else if (KEY("etime")) {
            if (!(r = parse_secs(v, ve, &n)) || r != ve) return -1;
            if (sat_parse_dur_check(n, "etime", why, nwhy)) return -1;
            o->etime = n;
        } else if (KEY("oid")) {
            if (ve > v)
                o->method = sat_str_make(v, (size_t)(ve - v));
        }
#undef KEY
        p = ve;
    }
    if (o->err == SAT_ABSENT)
        return -1;
    if (qtime != SAT_ABSENT) {
        o->wtime = qtime;
        if (o->etime != SAT_ABSENT && o->etime >= qtime)
            o->optime = o->etime - qtime;
    }
    return 0;
}

int sat_ol_op_line(const char *p, const char *end, sat_ldap_record *rec, char *why, size_t nwhy)
{
    sat_ldap_op *o = &rec->op_fields;
    const char *r;
    rec->kind = SAT_REC_REQUEST;
    if (starts(p, end, "BIND ")) {
        p += 5;
        o->type = SAT_OP_BIND;
        if (starts(p, end, "dn=")) {
            if (find(p, end, "\" method=")) {
                if (quoted(p + 3, end, " method=", &o->dn, &r) < 0)
                    return -1;
                int64_t m;
                const char *q = parse_i64(r + 8, end, &m);
                if (!q)
                    return -1;
                /* LDAP_AUTH_SIMPLE 0x80, LDAP_AUTH_SASL 0xa3 (RFC 4511) */
                o->method = sat_str_cstr(m == 128 ? "SIMPLE" : m == 163 ? "SASL" : "other");
                return 0;
            }
            if (find(p, end, "\" mech=")) {
                rec->kind = SAT_REC_DETAIL;
                if (quoted(p + 3, end, " mech=", &o->dn, &r) < 0)
                    return -1;
                const char *m = r + 6, *me = m;
                while (me < end && *me != ' ')
                    me++;
                o->method = sat_str_make(m, (size_t)(me - m));
                return 0;
            }
            return -1;
        }
        if (starts(p, end, "anonymous") || starts(p, end, "authcid=")) {
            rec->kind = SAT_REC_DETAIL; /* adds nothing the request lacks */
            return 0;
        }
        return -1;
    }
    if (starts(p, end, "SRCH ")) {
        p += 5;
        o->type = SAT_OP_SRCH;
        if (starts(p, end, "attr=")) {
            rec->kind = SAT_REC_DETAIL;
            o->attrs = sat_str_make(p + 5, (size_t)(end - p - 5));
            return 0;
        }
        if (!starts(p, end, "base=") || quoted(p + 5, end, " scope=", &o->dn, &r) < 0)
            return -1;
        int64_t n;
        p = r + 7;
        if (!(p = parse_i64(p, end, &n)))
            return -1;
        o->scope = n >= 0 && n <= 2 ? (uint8_t)n : SAT_SCOPE_NONE;
        const char *f = find(p, end, "filter=");
        if (f && quoted(f + 7, end, NULL, &o->filter, NULL) < 0)
            return -1;
        return 0;
    }
    if (starts(p, end, "SEARCH RESULT ")) {
        rec->kind = SAT_REC_RESULT;
        o->type = SAT_OP_UNKNOWN;
        return result_fields(p + 14, end, o, why, nwhy);
    }
    if (starts(p, end, "RESULT ")) {
        rec->kind = SAT_REC_RESULT;
        return result_fields(p + 7, end, o, why, nwhy);
    }
    static const struct { const char *verb; int type; } dnops[] = {
        {"ADD dn=", SAT_OP_ADD}, {"MOD dn=", SAT_OP_MOD}, {"DEL dn=", SAT_OP_DEL},
        {"MODRDN dn=", SAT_OP_MODRDN}, {"CMP dn=", SAT_OP_CMP}};
    for (size_t i = 0; i < sizeof dnops / sizeof dnops[0]; i++) {
        if (!starts(p, end, dnops[i].verb))
            continue;
        o->type = (uint8_t)dnops[i].type;
        p += strlen(dnops[i].verb);
        if (dnops[i].type == SAT_OP_CMP) {
            if (quoted(p, end, " attr=", &o->dn, &r) < 0)
                return -1;
            r += 6;
            if (r < end && *r == '"')
                quoted(r, end, NULL, &o->extra, NULL);
            else
                o->extra = sat_str_make(r, (size_t)(end - r));
            return 0;
        }
        return quoted(p, end, NULL, &o->dn, NULL);
    }
    if (starts(p, end, "MOD attr=")) {
        rec->kind = SAT_REC_DETAIL;
        o->attrs = sat_str_make(p + 9, (size_t)(end - p - 9));
        return 0;
    }
    if (starts(p, end, "EXT oid=")) {
        o->type = SAT_OP_EXT;
        const char *v = p + 8, *ve = v;
        while (ve < end && *ve != ' ')
            ve++;
        o->method = sat_str_make(v, (size_t)(ve - v));
        return 0;
    }
    if (starts(p, end, "ABANDON msg=")) {
        o->type = SAT_OP_ABANDON;
        int64_t n;
        if (!(r = parse_i64(p + 12, end, &n)))
            return -1;
        o->target_op = n;
        return 0;
    }
    if (starts(p, end, "UNBIND")) {
        o->type = SAT_OP_UNBIND;
        return 0;
    }
    if (starts(p, end, "ENTRY ")) {
        rec->kind = SAT_REC_DETAIL;
        o->nentries = 1;
        return 0;
    }
    /* the name line after EXT oid=: STARTTLS, WHOAMI, PASSMOD ..., CANCEL, ... */
    const char *w = p;
    while (w < end && ((*w >= 'A' && *w <= 'Z') || *w == '_'))
        w++;
    if (w > p && (w == end || *w == ' ')) {
        if ((w - p == 3 && memcmp(p, "REF", 3) == 0) ||
            (w - p == 6 && memcmp(p, "INTERM", 6) == 0)) {
            rec->kind = 0;
            return 0;
        }
        rec->kind = SAT_REC_DETAIL;
        o->extra = sat_str_make(p, (size_t)(w - p));
        return 0;
    }
    rec->kind = 0; /* other op chatter ("do_search: invalid dn", ...) */
    return 0;
}
