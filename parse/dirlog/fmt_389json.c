/*
 * fmt_389json.c - the 389 Directory Server JSON access log (389-ds-base 3.1+,
 * nsslapd-accesslog-log-format: json or json-pretty). Field names follow
 * ldap/servers/slapd/accesslog.c (build_base_obj and slapd_log_access_*):
 * local_time, operation, key, conn_id, op_id, internal_op, op_internal_id,
 * op_internal_nested_count, then per event CONNECTION, BIND, AUTOBIND,
 * SEARCH, ADD, MODIFY, DELETE, MODRDN, COMPARE, EXTENDED_OP, ABANDON, UNBIND,
 * RESULT, DISCONNECT, TLS_INFO, TLS_CLIENT_INFO, STAT, SORT, VLV, ENTRY...
 *
 * One object per line, or pretty-printed over many lines: line() gathers
 * lines until the braces balance (outside strings), capped at 1 MiB, then
 * decodes the object. sat_389json_object() is stateless per object so the
 * 389 text parser can hand over the '{' lines of a log that switched format.
 */
#include "fmt_389json.h"
#include "json_lite.h"

#define OBJ_MAX (1u << 20)

/* ---- time ------------------------------------------------------------------------ */

/* "2025-02-10T13:41:53.166697090 -0500" (the default %FT%T time format plus
 * the nanoseconds and offset 389 appends); also a ' ' separator, 'Z' and
 * "+05:30" offsets. */
static int parse_local_time(const char *s, size_t n, sat_ts_ns *ts, int32_t *off_s)
{
    return sat_parse_rfc3339(s, n,
                             SAT_TIME_ZONE_OPTIONAL | SAT_TIME_ZONE_BLANKS |
                                 SAT_TIME_DECIMAL_COMMA | SAT_TIME_EMPTY_FRACTION,
                             ts, off_s, NULL) == SAT_OK
               ? 0
               : -1;
}

/* memmem is a GNU extension; this portable one is enough for short needles. */
static const char *find_bytes(const char *h, size_t hn, const char *n, size_t nn)
{
    if (nn == 0 || hn < nn)
        return NULL;
    const char *end = h + hn - nn + 1;
    for (const char *p = h; p < end; p++) {
        p = (const char *)memchr(p, n[0], (size_t)(end - p));
        if (!p)
            return NULL;
        if (memcmp(p, n, nn) == 0)
            return p;
    }
    return NULL;
}

/* ---- per-object scratch for decoded strings ------------------------------------ */

typedef struct scratch {
    char *buf;
    size_t cap, used;
} scratch;

/* A STRING value as a sat_str: in place when it has no escapes. */
static sat_str jstr(scratch *s, const sat_json_value *v)
{
    if (v->type != SAT_JSON_STRING)
        return SAT_STR_NONE;
    if (!v->has_escape)
        return sat_str_make(v->ptr, v->len);
    char *out = s->buf + s->used;
    long n = sat_json_unescape(v, out, s->cap - s->used);
    if (n < 0)
        return SAT_STR_NONE;
    s->used += (size_t)n;
    return sat_str_make(out, (size_t)n);
}

/* Appends to a growing string at the top of the scratch (the joined attrs,
 * notes details, ...); start with j->ptr == NULL. */
static void sappend(scratch *s, sat_str *j, const char *p, size_t n)
{
    if (!j->ptr) {
        j->ptr = s->buf + s->used;
        j->len = 0;
    }
    if ((size_t)(j->ptr - s->buf) + j->len != s->used || s->cap - s->used < n)
        return; /* not at the top or full: keep what fits (never overflow) */
    memcpy(s->buf + s->used, p, n);
    s->used += n;
    j->len += (uint32_t)n;
}

/* ---- decoding one object ---------------------------------------------------------- */

static int note_bit(sat_str n)
{
    if (n.len != 1)
        return 0;
    const char *l = strchr(SAT_NOTE_LETTERS, n.ptr[0]);
    return l && *l ? 1 << (l - SAT_NOTE_LETTERS) : 0;
}

static uint8_t close_code_of(const char *p, size_t n)
{
    if (n != 2)
        return SAT_CLOSE_OTHER;
    for (int c = SAT_CLOSE_A1; c <= SAT_CLOSE_U1; c++) {
        const char *name = sat_close_code_name(c);
        if (name[0] == p[0] && name[1] == p[1])
            return (uint8_t)c;
    }
    return SAT_CLOSE_OTHER;
}

/* A duration (etime, wtime, optime): kept when it reads as seconds (one that
 * does not is left absent, as ever); the first past the plausible bound is
 * remembered, and the object is rejected for it (sat_parse_dur_check). */
typedef struct dur_past {
    const char *field;
    sat_dur_ns ns;
} dur_past;

static void dur_field(const sat_json_value *v, const char *name, sat_dur_ns *out, dur_past *past)
{
    int64_t ns;
    if (sat_json_seconds_to_ns(v, &ns))
        return;
    if (ns > SAT_DUR_PLAUSIBLE_MAX_NS) {
        if (!past->field)
            *past = (dur_past){name, ns};
        return;
    }
    *out = ns;
}

static void update_source_ts(sat_parse_ctx *ctx, sat_ts_ns ts, int32_t off)
{
    sat_source *src = ctx->source;
    if (!src)
        return;
    if (src->first_ts == 0 || ts < src->first_ts)
        src->first_ts = ts;
    if (ts > src->last_ts)
        src->last_ts = ts;
    src->utc_offset_s = off;
}

static int decode(sat_parse_ctx *ctx, const char *obj, size_t len, uint64_t line_no,
                  scratch *sc)
{
    sat_json_iter it;
    sat_json_value k, v;
    sat_ldap_record rec;
    sat_ldap_record_clear(&rec);
    sat_ldap_op *o = &rec.op_fields;
    sat_ldap_conn *c = &rec.conn_fields;

    if (sat_json_object_begin(&it, obj, len) < 0)
        return sat_parse_reject(ctx, line_no, "not a JSON object", obj, len);

    /* One pass: fields are kept as raw values, then interpreted once the
     * operation is known (389 writes "operation" second, but do not rely on it). */
    sat_json_value op_name = {0}, ltime = {0};
    sat_json_value f_dn = {0}, f_base = {0}, f_bind = {0}, f_filter = {0}, f_attrs = {0};
    sat_json_value f_method = {0}, f_mech = {0}, f_oid = {0}, f_oidname = {0}, f_name = {0};
    sat_json_value f_newrdn = {0}, f_newsup = {0}, f_cmp = {0}, f_msg = {0}, f_notes = {0};
    sat_json_value f_sid = {0}, f_cip = {0}, f_sip = {0}, f_cerr = {0}, f_creason = {0};
    sat_json_value f_tlsver = {0}, f_cipher = {0}, f_subject = {0}, f_clientdn = {0};
    sat_json_value f_target = {0}, f_msgid = {0}, f_reqctl = {0};
    int64_t keysize = -1, scope = -1, fd = -1, deloldrdn = -1, pr = 0, version = -1;
    int tls = 0, psearch = 0, internal = 0;
    dur_past past = {NULL, 0};
    int r;
    while ((r = sat_json_object_next(&it, &k, &v)) == 1) {
        int64_t n = 0;
        /* only numbers are worth converting (most values are strings) */
        int isnum = v.type == SAT_JSON_NUMBER ? sat_json_to_i64(&v, &n) == 0 : 0;
        switch (k.len ? k.ptr[0] : 0) {
        case 'a':
            if (sat_json_key_is(&k, "attrs")) f_attrs = v;
            else if (sat_json_key_is(&k, "authzid")) o->flags |= SAT_OPF_PROXIED;
            break;
        case 'b':
            if (sat_json_key_is(&k, "base_dn")) f_base = v;
            else if (sat_json_key_is(&k, "bind_dn")) f_bind = v;
            break;
        case 'c':
            if (sat_json_key_is(&k, "conn_id") && isnum) rec.conn = n;
            else if (sat_json_key_is(&k, "client_ip")) f_cip = v;
            else if (sat_json_key_is(&k, "cmp_attr")) f_cmp = v;
            else if (sat_json_key_is(&k, "close_error")) f_cerr = v;
            else if (sat_json_key_is(&k, "close_reason")) f_creason = v;
            else if (sat_json_key_is(&k, "cipher")) f_cipher = v;
            else if (sat_json_key_is(&k, "client_dn")) f_clientdn = v;
            break;
        case 'd':
            /* the design doc spells it "deletoldrdn" once */
            if ((sat_json_key_is(&k, "deleteoldrdn") || sat_json_key_is(&k, "deletoldrdn")))
                deloldrdn = v.type == SAT_JSON_TRUE ? 1 : (isnum ? n : 0);
            break;
        case 'e':
            if (sat_json_key_is(&k, "err") && isnum) o->err = (int32_t)n;
            else if (sat_json_key_is(&k, "etime")) dur_field(&v, "etime", &o->etime, &past);
            break;
        case 'f':
            if (sat_json_key_is(&k, "filter")) f_filter = v;
            else if (sat_json_key_is(&k, "fd") && isnum) fd = n;
            break;
        case 'i':
            if (sat_json_key_is(&k, "internal_op")) internal = v.type == SAT_JSON_TRUE;
            break;
        case 'k':
            if (sat_json_key_is(&k, "keysize") && isnum) keysize = n;
            break;
        case 'l':
            if (sat_json_key_is(&k, "local_time")) ltime = v;
            break;
        case 'm':
            if (sat_json_key_is(&k, "method")) f_method = v;
            else if (sat_json_key_is(&k, "mech")) f_mech = v;
            else if (sat_json_key_is(&k, "msg")) f_msg = v;
            else if (sat_json_key_is(&k, "msgid")) f_msgid = v;
            break;
        case 'n':
            if (sat_json_key_is(&k, "nentries") && isnum) o->nentries = n;
            else if (sat_json_key_is(&k, "notes")) f_notes = v;
            else if (sat_json_key_is(&k, "newrdn")) f_newrdn = v;
            else if (sat_json_key_is(&k, "newsup") || sat_json_key_is(&k, "newsuperior")) f_newsup = v;
            else if (sat_json_key_is(&k, "name")) f_name = v;
            break;
        case 'o':
            if (sat_json_key_is(&k, "operation")) op_name = v;
            else if (sat_json_key_is(&k, "op_id") && isnum) rec.op = n;
            else if (sat_json_key_is(&k, "op_internal_id") && isnum) { rec.internal_op = (int32_t)n; internal = 1; }
            else if (sat_json_key_is(&k, "op_internal_nested_count") && isnum)
                rec.internal_depth = (uint8_t)(n < 0 ? 0 : n > 255 ? 255 : n);
            else if (sat_json_key_is(&k, "oid")) f_oid = v;
            else if (sat_json_key_is(&k, "oid_name")) f_oidname = v;
            else if (sat_json_key_is(&k, "optime")) dur_field(&v, "optime", &o->optime, &past);
            break;
        case 'p':
            if (sat_json_key_is(&k, "psearch")) psearch = v.type == SAT_JSON_TRUE;
            else if (sat_json_key_is(&k, "pr_idx") || sat_json_key_is(&k, "pr_cookie")) pr = 1;
            break;
        case 'r':
            if (sat_json_key_is(&k, "request_controls")) f_reqctl = v;
            break;
        case 's':
            if (sat_json_key_is(&k, "scope") && isnum) scope = n;
            else if (sat_json_key_is(&k, "sid")) f_sid = v;
            else if (sat_json_key_is(&k, "server_ip")) f_sip = v;
            else if (sat_json_key_is(&k, "subject")) f_subject = v;
            break;
        case 't':
            if (sat_json_key_is(&k, "tag") && isnum) o->tag = (int32_t)n;
            else if (sat_json_key_is(&k, "target_dn")) f_dn = v;
            else if (sat_json_key_is(&k, "target_op")) f_target = v;
            else if (sat_json_key_is(&k, "tls")) tls = v.type == SAT_JSON_TRUE;
            else if (sat_json_key_is(&k, "tls_version")) f_tlsver = v;
            else if (sat_json_key_is(&k, "time") && !ltime.ptr) ltime = v;
            break;
        case 'v':
            if (sat_json_key_is(&k, "version") && isnum)
                version = n;
            break;
        case 'w':
            if (sat_json_key_is(&k, "wtime")) dur_field(&v, "wtime", &o->wtime, &past);
            break;
        default:
            break;
        }
    }
    if (r < 0)
        return sat_parse_reject(ctx, line_no, "malformed JSON object", obj, len);
    if (past.field) {
        char why[96];
        sat_parse_dur_check(past.ns, past.field, why, sizeof why);
        return sat_parse_reject(ctx, line_no, why, obj, len);
    }
    if (op_name.type != SAT_JSON_STRING)
        return sat_parse_reject(ctx, line_no, "JSON object without \"operation\"", obj, len);
    if (ltime.type != SAT_JSON_STRING)
        return sat_parse_reject(ctx, line_no, "no timestamp", obj, len);
    int32_t off = 0;
    sat_str lt = jstr(sc, &ltime);
    if (!lt.ptr || parse_local_time(lt.ptr, lt.len, &rec.ts, &off) < 0)
        return sat_parse_reject(ctx, line_no, "bad timestamp", obj, len);
    update_source_ts(ctx, rec.ts, off);

    rec.internal = (uint8_t)internal;
    if (internal && rec.internal_depth == 0)
        rec.internal_depth = 1;
    o->conn = rec.conn;
    o->op = rec.op;
    o->internal_op = rec.internal_op;
    o->internal_depth = rec.internal_depth;
    c->conn = rec.conn;

    sat_str name = jstr(sc, &op_name);
#define IS(lit) (name.len == sizeof(lit) - 1 && memcmp(name.ptr, lit, sizeof(lit) - 1) == 0)
    if (IS("RESULT")) {
        rec.kind = SAT_REC_RESULT;
        o->text = jstr(sc, &f_msg);
        o->sid = jstr(sc, &f_sid);
        o->client_ip = jstr(sc, &f_cip);
        o->dn = jstr(sc, &f_bind); /* a BIND's RESULT names the bound DN */
        if (pr)
            o->flags |= SAT_OPF_PAGED;
        if (f_notes.type == SAT_JSON_ARRAY) {
            sat_json_iter ni;
            sat_json_value nv;
            sat_str details = SAT_STR_NONE;
            sat_json_array_begin(&ni, f_notes.ptr, f_notes.len);
            while (sat_json_array_next(&ni, &nv) == 1) {
                sat_json_iter fi;
                sat_json_value fk, fv;
                sat_json_value letter = {0}, desc = {0};
                if (nv.type == SAT_JSON_STRING) { /* tolerate "notes":["U","P"] */
                    o->notes |= (uint16_t)note_bit(jstr(sc, &nv));
                    continue;
                }
                if (nv.type != SAT_JSON_OBJECT || sat_json_object_begin(&fi, nv.ptr, nv.len) < 0)
                    continue;
                while (sat_json_object_next(&fi, &fk, &fv) == 1) {
                    if (sat_json_key_is(&fk, "note")) letter = fv;
                    else if (sat_json_key_is(&fk, "description")) desc = fv;
                }
                sat_str l = jstr(sc, &letter);
                if (l.ptr)
                    o->notes |= (uint16_t)note_bit(l);
                if (desc.type == SAT_JSON_STRING && !desc.has_escape) {
                    if (details.ptr && details.len)
                        sappend(sc, &details, ",", 1);
                    sappend(sc, &details, desc.ptr, desc.len);
                }
            }
            o->details = details;
        }
        if (o->notes & SAT_NOTE_P)
            o->flags |= SAT_OPF_PAGED;
    } else if (IS("CONNECTION")) {
        rec.kind = SAT_REC_CONNECT;
        c->fd = fd >= 0 && fd <= INT32_MAX ? (int32_t)fd : SAT_ABSENT;
        c->client_ip = jstr(sc, &f_cip);
        c->server_addr = jstr(sc, &f_sip);
        if ((c->client_ip.ptr && c->client_ip.len == 5 && memcmp(c->client_ip.ptr, "local", 5) == 0) ||
            (c->server_addr.ptr && c->server_addr.len && c->server_addr.ptr[0] == '/'))
            c->listener = SAT_LISTENER_LDAPI;
        else
            c->listener = tls ? SAT_LISTENER_LDAPS : SAT_LISTENER_LDAP;
        if (tls)
            c->flags |= SAT_CONNF_TLS;
    } else if (IS("DISCONNECT")) {
        rec.kind = SAT_REC_CLOSE;
        c->fd = fd >= 0 && fd <= INT32_MAX ? (int32_t)fd : SAT_ABSENT;
        sat_str reason = jstr(sc, &f_creason);
        c->close_code = SAT_CLOSE_OTHER;
        /* "Connection aborted - A1": the code is the last " - XX" */
        if (reason.ptr && reason.len >= 5 && memcmp(reason.ptr + reason.len - 5, " - ", 3) == 0) {
            c->close_code = close_code_of(reason.ptr + reason.len - 2, 2);
            reason.len -= 5;
        } else if (reason.ptr && reason.len == 2) {
            c->close_code = close_code_of(reason.ptr, 2);
        }
        if (!reason.ptr || reason.len == 0)
            reason = jstr(sc, &f_cerr);
        c->close_reason = reason;
    } else if (IS("TLS_INFO")) {
        rec.kind = SAT_REC_TLS;
        c->tls_version = jstr(sc, &f_tlsver);
        sat_str ci = jstr(sc, &f_cipher);
        if (keysize > 0 && ci.ptr) {
            char kb[32];
            int kn = snprintf(kb, sizeof kb, "%lld-bit ", (long long)keysize);
            sat_str j = SAT_STR_NONE;
            sappend(sc, &j, kb, (size_t)kn);
            sappend(sc, &j, ci.ptr, ci.len);
            ci = j;
        }
        c->tls_cipher = ci;
        c->flags |= SAT_CONNF_TLS;
        if (!c->tls_version.ptr && !c->tls_cipher.ptr)
            return SAT_OK; /* a TLS error report, nothing established */
    } else if (IS("TLS_CLIENT_INFO")) {
        rec.kind = SAT_REC_CLIENT_CERT;
        c->client_cert = jstr(sc, f_subject.ptr ? &f_subject : &f_clientdn);
        /* the text format's "client bound as DN" / "failed to map client
         * certificate to LDAP DN": the mapped DN, or the failure in msg */
        sat_str m = jstr(sc, &f_msg);
        if (f_clientdn.ptr)
            c->flags |= SAT_CONNF_CERT_BOUND;
        else if (m.ptr && find_bytes(m.ptr, m.len, "failed to map", 13))
            c->flags |= SAT_CONNF_CERT_MAP_FAILED;
        if (!c->client_cert.ptr && !c->flags)
            return SAT_OK;
    } else if (IS("AUTOBIND")) {
        rec.kind = SAT_REC_AUTOBIND;
        o->type = SAT_OP_AUTOBIND;
        o->dn = jstr(sc, &f_bind);
    } else {
        rec.kind = SAT_REC_REQUEST;
        if (IS("BIND")) {
            o->type = SAT_OP_BIND;
            if (version == 3)
                o->flags |= SAT_OPF_BIND_V3;
            else if (version == 2)
                o->flags |= SAT_OPF_BIND_V2;
            o->dn = jstr(sc, &f_bind);
            sat_str m = jstr(sc, &f_method), mech = jstr(sc, &f_mech);
            if (mech.ptr && mech.len)
                o->method = mech;
            else if (m.ptr && m.len == 3 && memcmp(m.ptr, "128", 3) == 0)
                o->method = sat_str_cstr("SIMPLE");
            else if (m.ptr && m.len == 6 && memcmp(m.ptr, "simple", 6) == 0)
                o->method = sat_str_cstr("SIMPLE");
            else
                o->method = m;
        } else if (IS("SEARCH")) {
            o->type = SAT_OP_SRCH;
            o->dn = jstr(sc, &f_base);
            o->scope = scope >= 0 && scope <= 2 ? (uint8_t)scope : SAT_SCOPE_NONE;
            o->filter = jstr(sc, &f_filter);
            if (psearch)
                o->flags |= SAT_OPF_PERSISTENT;
            if (f_attrs.type == SAT_JSON_ARRAY) {
                sat_json_iter ai;
                sat_json_value av;
                sat_str attrs = SAT_STR_NONE;
                sat_json_array_begin(&ai, f_attrs.ptr, f_attrs.len);
                while (sat_json_array_next(&ai, &av) == 1) {
                    if (av.type != SAT_JSON_STRING || av.has_escape)
                        continue;
                    if (attrs.ptr)
                        sappend(sc, &attrs, " ", 1);
                    sappend(sc, &attrs, av.ptr, av.len);
                }
                o->attrs = attrs;
            } else if (f_attrs.type == SAT_JSON_STRING) {
                o->attrs = jstr(sc, &f_attrs);
            }
            /* the paged-results control (RFC 2696) marks a paged search */
            if (f_reqctl.type == SAT_JSON_ARRAY && f_reqctl.len < len &&
                find_bytes(f_reqctl.ptr, f_reqctl.len, "1.2.840.113556.1.4.319", 22))
                o->flags |= SAT_OPF_PAGED;
        } else if (IS("ADD")) {
            o->type = SAT_OP_ADD;
            o->dn = jstr(sc, &f_dn);
        } else if (IS("MODIFY")) {
            o->type = SAT_OP_MOD;
            o->dn = jstr(sc, &f_dn);
        } else if (IS("DELETE")) {
            o->type = SAT_OP_DEL;
            o->dn = jstr(sc, &f_dn);
        } else if (IS("MODRDN")) {
            o->type = SAT_OP_MODRDN;
            o->dn = jstr(sc, &f_dn);
            sat_str nr = jstr(sc, &f_newrdn), ns = jstr(sc, &f_newsup);
            sat_str ex = SAT_STR_NONE;
            if (nr.ptr) {
                sappend(sc, &ex, "newrdn=\"", 8);
                sappend(sc, &ex, nr.ptr, nr.len);
                sappend(sc, &ex, "\"", 1);
            }
            if (ns.ptr) {
                if (ex.ptr)
                    sappend(sc, &ex, " ", 1);
                sappend(sc, &ex, "newsuperior=\"", 13);
                sappend(sc, &ex, ns.ptr, ns.len);
                sappend(sc, &ex, "\"", 1);
            }
            (void)deloldrdn;
            o->extra = ex;
        } else if (IS("COMPARE")) {
            o->type = SAT_OP_CMP;
            o->dn = jstr(sc, &f_dn);
            o->extra = jstr(sc, &f_cmp);
        } else if (IS("EXTENDED_OP")) {
            o->type = SAT_OP_EXT;
            o->method = jstr(sc, &f_oid);
            o->extra = jstr(sc, f_name.ptr ? &f_name : &f_oidname);
        } else if (IS("ABANDON")) {
            o->type = SAT_OP_ABANDON;
            int64_t t;
            if (sat_json_to_i64(&f_target, &t) == 0)
                o->target_op = t;
            else if (sat_json_to_i64(&f_msgid, &t) == 0)
                o->target_op = t;
        } else if (IS("UNBIND")) {
            o->type = SAT_OP_UNBIND;
        } else if (IS("SORT") || IS("VLV") || IS("ENTRY") || IS("REFERRAL")) {
            /* what the text format's detail lines say (fmt_389text.c) */
            rec.kind = SAT_REC_DETAIL;
            if (IS("SORT"))
                o->flags |= SAT_OPF_SORT;
            else if (IS("VLV"))
                o->flags |= SAT_OPF_VLV;
            else if (IS("ENTRY"))
                o->entry_lines = 1;
            else
                o->referral_lines = 1;
        } else {
            /* STAT, HAPROXY, ERROR, EXTENDED_OP_INFO: diagnostics around an
             * operation whose request and RESULT carry what the tables need. */
            return SAT_OK;
        }
    }
#undef IS
    return sat_parse_emit(ctx, &rec);
}

int sat_389json_object(sat_parse_ctx *ctx, const char *obj, size_t len, uint64_t line_no)
{
    /* Decoded strings never outgrow the object; the joined extras (attrs,
     * details, modrdn, cipher) add at most another object's worth. */
    char stackbuf[16384];
    scratch sc = {stackbuf, sizeof stackbuf, 0};
    size_t need = len * 2 + 256;
    char *heap = NULL;
    if (need > sizeof stackbuf) {
        heap = (char *)malloc(need);
        if (!heap)
            return SAT_E_NOMEM;
        sc.buf = heap;
        sc.cap = need;
    }
    int rc = decode(ctx, obj, len, line_no, &sc);
    free(heap);
    return rc;
}

/* ---- the line-oriented format ------------------------------------------------------ */

typedef struct json_state {
    sat_parse_ctx *ctx;
    char *buf;
    size_t len, cap;
    int active;       /* inside an object */
    int resync;       /* dropped an oversized object: skip to the next '{' line */
    int depth, in_str, esc;
    uint64_t start_line;
} json_state;

static void *j_create(sat_parse_ctx *ctx)
{
    json_state *s = (json_state *)calloc(1, sizeof *s);
    if (s)
        s->ctx = ctx;
    return s;
}

static void j_destroy(void *state)
{
    json_state *s = (json_state *)state;
    if (!s)
        return;
    free(s->buf);
    free(s);
}

static int append(json_state *s, const char *p, size_t n)
{
    if (SAT_GROW(s->buf, s->cap, s->len + n + 1) != SAT_OK)
        return SAT_E_NOMEM;
    memcpy(s->buf + s->len, p, n);
    s->len += n;
    return SAT_OK;
}

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static int j_line(void *state, const char *line, size_t len, uint64_t line_no)
{
    json_state *s = (json_state *)state;
    sat_parse_ctx *ctx = s->ctx;
    if (ctx->source)
        ctx->source->lines++;
    int nrc;
    if (sat_parse_nul_rejected(ctx, line_no, line, len, &nrc))
        return nrc;

    size_t i = 0;
    for (;;) {
        int begun_here = 0; /* the object opened on this line: decode in place */
        if (!s->active) {
            while (i < len && is_ws(line[i]))
                i++;
            if (i >= len)
                return SAT_OK; /* blank, or the rest of a line after an object */
            if (line[i] != '{') {
                if (s->resync)
                    return SAT_OK; /* still inside the dropped object */
                if (line[i] == ',' ) { /* "}," between objects of an array dump */
                    i++;
                    continue;
                }
                return sat_parse_reject(ctx, line_no, "not a JSON object", line + i, len - i);
            }
            s->resync = 0;
            s->active = 1;
            s->depth = s->in_str = s->esc = 0;
            s->len = 0;
            s->start_line = line_no;
            begun_here = 1;
        } else if (i == 0 && len > 0 && line[0] == '{' && !s->in_str) {
            /* a '{' in column 0 opens a new top-level object in both the
             * one-line and the pretty layout: the previous one was cut short */
            int rc = sat_parse_reject(ctx, s->start_line, "incomplete JSON object", s->buf, s->len);
            if (rc < 0)
                return rc;
            s->depth = s->in_str = s->esc = 0;
            s->len = 0;
            s->start_line = line_no;
        }
        size_t start = i;
        int done = 0;
        for (; i < len; i++) {
            char c = line[i];
            if (s->in_str) {
                /* jump to the closing quote (one not preceded by an odd run
                 * of backslashes); a string never continues on the next line */
                const char *q = line + i;
                for (;;) {
                    q = (const char *)memchr(q, '"', (size_t)(line + len - q));
                    if (!q)
                        break;
                    const char *b = q;
                    while (b > line + i && b[-1] == '\\')
                        b--;
                    if (((q - b) & 1) == 0)
                        break;
                    q++;
                }
                if (!q) {
                    i = len;
                    break;
                }
                i = (size_t)(q - line);
                s->in_str = 0;
            } else if (c == '"') {
                s->in_str = 1;
            } else if (c == '{' || c == '[') {
                s->depth++;
            } else if (c == '}' || c == ']') {
                if (--s->depth == 0) {
                    i++;
                    done = 1;
                    break;
                }
            }
        }
        if (s->len + (i - start) + 1 > OBJ_MAX) {
            int rc = sat_parse_reject(ctx, s->start_line, "JSON object over 1 MiB", s->buf, s->len);
            s->active = 0;
            s->len = 0;
            s->resync = !done;
            return rc;
        }
        int rc;
        if (done && begun_here) { /* one object per line: no copy */
            s->active = 0;
            rc = sat_389json_object(ctx, line + start, i - start, line_no);
            if (rc < 0)
                return rc;
            continue;
        }
        rc = append(s, line + start, i - start);
        if (rc < 0)
            return rc;
        if (!done) {
            if (s->in_str) { /* JSON strings never span lines */
                s->active = 0;
                rc = sat_parse_reject(ctx, s->start_line, "unterminated JSON string", s->buf, s->len);
                s->len = 0;
                return rc;
            }
            return append(s, "\n", 1);
        }
        s->active = 0;
        rc = sat_389json_object(ctx, s->buf, s->len, s->start_line);
        s->len = 0;
        if (rc < 0)
            return rc;
        /* the rest of the line: more objects, a separator, or garbage */
    }
}

static int j_finish(void *state)
{
    json_state *s = (json_state *)state;
    if (!s->active)
        return SAT_OK;
    s->active = 0;
    int rc = sat_parse_reject(s->ctx, s->start_line, "incomplete JSON object at end of input",
                              s->buf, s->len);
    s->len = 0;
    return rc;
}

static const char *skip_ws_p(const char *p, const char *end)
{
    while (p < end && is_ws(*p))
        p++;
    return p;
}

static int j_sniff(const char *buf, size_t len)
{
    const char *end = buf + len, *p = skip_ws_p(buf, end);
    if (p >= end || *p != '{')
        return 0;
    size_t n = (size_t)(end - p);
    if (n > 4096)
        n = 4096;
    int score = 20;
    if (find_bytes(p, n, "\"local_time\"", 12))
        score += 30;
    if (find_bytes(p, n, "\"operation\"", 11))
        score += 25;
    if (find_bytes(p, n, "\"conn_id\"", 9))
        score += 20;
    return score > 95 ? 95 : score;
}

static int j_first_ts(const char *buf, size_t len, sat_ts_ns *ts)
{
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *k = find_bytes(p, (size_t)(end - p), "\"local_time\"", 12);
        if (!k)
            break;
        const char *q = skip_ws_p(k + 12, end);
        if (q < end && *q == ':') {
            q = skip_ws_p(q + 1, end);
            if (q < end && *q == '"') {
                const char *e = (const char *)memchr(q + 1, '"', (size_t)(end - q - 1));
                int32_t off;
                if (e && parse_local_time(q + 1, (size_t)(e - q - 1), ts, &off) == 0)
                    return SAT_OK;
            }
        }
        p = k + 12;
    }
    return SAT_E_FORMAT;
}

const sat_log_format sat_fmt_389json = {
    "389-json",
    "389 Directory Server JSON access log (3.1+, json and json-pretty)",
    j_sniff,
    j_first_ts,
    j_create,
    j_line,
    j_finish,
    j_destroy,
};
