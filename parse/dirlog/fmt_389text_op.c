/*
 * fmt_389text_op.c - the operation lines of a 389 text access log
 * (fmt_389text.c): the fields of a RESULT (result.c: err, tag, nentries,
 * etime / wtime / optime, notes, ...) and of the request lines (SRCH, BIND,
 * MOD, EXT, ...), as logconv.pl reads them.
 */
#include "fmt_389text_int.h"

/* ---- RESULT ---------------------------------------------------------------------- */
static int set_notes(sat_ldap_op *o, const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *hit = v[i] ? strchr(SAT_NOTE_LETTERS, v[i]) : NULL;
        if (hit)
            o->notes |= (uint16_t)(1u << (hit - SAT_NOTE_LETTERS));
        else if (v[i] != ',')
            return -1;
    }
    return 0;
}

/* A numeric value followed by ", text" (old SASL "etime=0, SASL bind in
 * progress"): strip the comma, the rest of the line is the text. */
static size_t num_len(const kv *t, const char *end, sat_str *text, const char **pp)
{
    if (!t->quoted && t->vlen && t->v[t->vlen - 1] == ',') {
        const char *s = skip_sp(t->v + t->vlen, end);
        const char *e = end;
        while (e > s && e[-1] == ' ')
            e--;
        if (e > s)
            *text = sat_str_make(s, (size_t)(e - s));
        *pp = end;
        return t->vlen - 1;
    }
    return t->vlen;
}

/* A duration field: well formed (parse_dur) and within the plausible bound;
 * -1 with *bad naming it (and why, past the bound) otherwise. */
static int dur_field(const kv *t, size_t n, const char *name, int64_t *ns, int *coarse,
                     const char **bad, char *why, size_t nwhy)
{
    if (parse_dur(t->v, n, ns, coarse) || sat_parse_dur_check(*ns, name, why, nwhy)) {
        *bad = name;
        return -1;
    }
    return 0;
}

/* Fields of a RESULT (also the trailing numbers of newer ABANDON lines).
 * Returns 0, or -1 with *bad naming the field (and why, fmt_389text_int.h). */
int sat_t389_parse_result_fields(const char *p, const char *end, sat_ldap_op *o,
                                 const char **bad, char *why, size_t nwhy)
{
    kv t;
    int r;
    while ((r = sat_t389_kv_next(&p, end, &t, &o->text)) == 1) {
        if (!t.v)
            continue; /* a bare word we do not know: tolerated */
        int64_t x;
        int coarse;
        size_t n;
        *bad = NULL;
        if (KEY(&t, "err")) {
            n = num_len(&t, end, &o->text, &p);
            if (parse_i64(t.v, n, &x) || x < INT32_MIN || x > INT32_MAX) { *bad = "err"; return -1; }
            o->err = (int32_t)x;
        } else if (KEY(&t, "tag")) {
            n = num_len(&t, end, &o->text, &p);
            if (parse_i64(t.v, n, &x) || x < 0 || x > INT32_MAX) { *bad = "tag"; return -1; }
            o->tag = (int32_t)x;
        } else if (KEY(&t, "nentries")) {
            n = num_len(&t, end, &o->text, &p);
            if (parse_i64(t.v, n, &x) || x < 0) { *bad = "nentries"; return -1; }
            o->nentries = x;
        } else if (KEY(&t, "etime")) {
            n = num_len(&t, end, &o->text, &p);
            if (dur_field(&t, n, "etime", &x, &coarse, bad, why, nwhy)) return -1;
            o->etime = x;
            if (coarse)
                o->flags |= SAT_OPF_ETIME_COARSE;
        } else if (KEY(&t, "wtime")) {
            n = num_len(&t, end, &o->text, &p);
            if (dur_field(&t, n, "wtime", &x, &coarse, bad, why, nwhy)) return -1;
            o->wtime = x;
        } else if (KEY(&t, "optime")) {
            n = num_len(&t, end, &o->text, &p);
            if (dur_field(&t, n, "optime", &x, &coarse, bad, why, nwhy)) return -1;
            o->optime = x;
        } else if (KEY(&t, "wqtime") || KEY(&t, "writetime")) {
            /* logged by some builds; no column yet, but must be well formed */
            n = num_len(&t, end, &o->text, &p);
            if (dur_field(&t, n, KEY(&t, "wqtime") ? "wqtime" : "writetime", &x, &coarse, bad, why,
                          nwhy))
                return -1;
        } else if (KEY(&t, "wbusy")) {
            const char *slash = memchr(t.v, '/', t.vlen);
            int64_t a, b;
            if (!slash || parse_i64(t.v, (size_t)(slash - t.v), &a) ||
                parse_i64(slash + 1, (size_t)(t.v + t.vlen - slash - 1), &b) ||
                a < 0 || b < 0 || a > INT32_MAX || b > INT32_MAX) { *bad = "wbusy"; return -1; }
            o->wbusy = (int32_t)a;
            o->wbusy_max = (int32_t)b;
        } else if (KEY(&t, "wqdepth")) {
            n = num_len(&t, end, &o->text, &p);
            if (parse_i64(t.v, n, &x) || x < 0 || x > INT32_MAX) { *bad = "wqdepth"; return -1; }
            o->wqdepth = (int32_t)x;
        } else if (KEY(&t, "notes")) {
            if (set_notes(o, t.v, t.vlen)) { *bad = "notes"; return -1; }
        } else if (KEY(&t, "details")) {
            o->details = kv_str(&t);
        } else if (KEY(&t, "pr_idx") || KEY(&t, "pr_cookie")) {
            o->flags |= SAT_OPF_PAGED;
        } else if (KEY(&t, "sid")) {
            o->sid = kv_str(&t);
        } else if (KEY(&t, "authzid")) {
            /* logconv.pl counts " authzid=" on any line: also the RESULT's */
            o->flags |= SAT_OPF_PROXIED;
        } else if (KEY(&t, "dn")) {
            o->dn = kv_str(&t);
        } else if (KEY(&t, "targetop")) {
            if (!parse_i64(t.v, t.vlen, &x))
                o->target_op = x;
        } else if (KEY(&t, "msgid")) {
            if (o->target_op == SAT_ABSENT && !parse_i64(t.v, t.vlen, &x))
                o->target_op = x;
        }
        /* csn=, oid= and fields of later versions: accepted, not kept */
    }
    if (r < 0) {
        *bad = "quote";
        return -1;
    }
    return 0;
}

int sat_t389_parse_request(const char *p, const char *end, int type, sat_ldap_op *o,
                           char *why, size_t nwhy)
{
    kv t;
    int r;
    sat_str mech = SAT_STR_NONE, method = SAT_STR_NONE;
    const char *rdn_start = NULL, *rdn_stop = NULL;
    sat_str text = SAT_STR_NONE;
    while ((r = sat_t389_kv_next(&p, end, &t, &text)) == 1) {
        if (!t.v)
            continue;
        if (KEY(&t, "dn") || KEY(&t, "base")) {
            o->dn = kv_str(&t);
        } else if (KEY(&t, "scope")) {
            if (t.vlen == 1 && t.v[0] >= '0' && t.v[0] <= '2')
                o->scope = (uint8_t)(t.v[0] - '0');
            else
                return -1;
        } else if (KEY(&t, "filter")) {
            o->filter = kv_str(&t);
        } else if (KEY(&t, "attrs")) {
            o->attrs = kv_str(&t);
        } else if (KEY(&t, "options")) {
            if (t.vlen == 10 && memcmp(t.v, "persistent", 10) == 0)
                o->flags |= SAT_OPF_PERSISTENT;
        } else if (KEY(&t, "authzid")) {
            o->flags |= SAT_OPF_PROXIED;
            if (type != SAT_OP_CMP && type != SAT_OP_EXT && type != SAT_OP_MODRDN)
                o->extra = kv_str(&t);
        } else if (KEY(&t, "version")) {
            if (t.vlen == 1 && t.v[0] == '3')
                o->flags |= SAT_OPF_BIND_V3;
            else if (t.vlen == 1 && t.v[0] == '2')
                o->flags |= SAT_OPF_BIND_V2;
        } else if (KEY(&t, "method")) {
            method = kv_str(&t);
        } else if (KEY(&t, "mech")) {
            mech = kv_str(&t);
        } else if (KEY(&t, "oid")) {
            o->method = kv_str(&t);
        } else if (KEY(&t, "name")) {
            o->extra = kv_str(&t);
        } else if (KEY(&t, "attr")) {
            o->extra = kv_str(&t);
        } else if (KEY(&t, "newrdn") || KEY(&t, "newsuperior") || KEY(&t, "deleteoldrdn")) {
            if (!rdn_start)
                rdn_start = t.start;
            rdn_stop = t.stop;
        } else if (KEY(&t, "targetop")) {
            int64_t x;
            if (!parse_i64(t.v, t.vlen, &x))
                o->target_op = x;
        } else if (KEY(&t, "msgid")) {
            int64_t x;
            if (o->target_op == SAT_ABSENT && !parse_i64(t.v, t.vlen, &x))
                o->target_op = x;
        } else if (KEY(&t, "nentries") || KEY(&t, "etime") || KEY(&t, "wtime") ||
                   KEY(&t, "optime")) {
            /* newer ABANDON lines carry their own timing */
            const char *bad = NULL;
            if (sat_t389_parse_result_fields(t.start, t.stop, o, &bad, why, nwhy))
                return -1;
        }
    }
    if (r < 0)
        return -1;
    if (text.ptr)
        o->text = text;
    if (rdn_start)
        o->extra = sat_str_make(rdn_start, (size_t)(rdn_stop - rdn_start));
    if (type == SAT_OP_BIND) {
        if (method.len == 3 && memcmp(method.ptr, "128", 3) == 0)
            o->method = sat_str_make("SIMPLE", 6);
        else if (mech.ptr)
            o->method = mech;
        else if (method.len == 4 && memcmp(method.ptr, "sasl", 4) == 0)
            o->method = sat_str_make("SASL", 4);
        else
            o->method = method;
    }
    return 0;
}
