/*
 * ldap_ber.h - LDAP messages (RFC 4511) encoded for the LDAP dissector tests
 * (test_dis_ldap_*.c) by a tiny BER writer (minimal definite lengths, long
 * form past 127 bytes): binds (simple, SASL), searches with a simple or a
 * many-shaped filter and controls, entries, results, extended operations,
 * abandon, unbind, delete; and the canonical exchange built from them.
 */
#ifndef SAT_TEST_LDAP_BER_H
#define SAT_TEST_LDAP_BER_H

#include <stdint.h>
#include <string.h>

/* ---- tiny BER writer ------------------------------------------------------------ */
typedef struct bw {
    uint8_t b[1 << 16];
    size_t n;
    size_t stack[64];
    int depth;
} bw;

static inline void bw_byte(bw *w, uint8_t c) { w->b[w->n++] = c; }
static inline void bw_raw(bw *w, const void *p, size_t n)
{
    memcpy(w->b + w->n, p, n);
    w->n += n;
}
static inline void bw_begin(bw *w, uint8_t tag)
{
    bw_byte(w, tag);
    w->stack[w->depth++] = w->n;
    bw_byte(w, 0); /* length patched by bw_end */
}
/* Minimal definite length: short form, else 0x81..0x83 (moves the contents). */
static inline void bw_end(bw *w)
{
    size_t at = w->stack[--w->depth];
    size_t len = w->n - at - 1;
    if (len < 0x80) {
        w->b[at] = (uint8_t)len;
        return;
    }
    int k = len < 0x100 ? 1 : len < 0x10000 ? 2 : 3;
    memmove(w->b + at + 1 + k, w->b + at + 1, len);
    w->b[at] = (uint8_t)(0x80 | k);
    for (int i = 0; i < k; i++)
        w->b[at + 1 + i] = (uint8_t)(len >> (8 * (k - 1 - i)));
    w->n += (size_t)k;
}
static inline void bw_str(bw *w, uint8_t tag, const char *s)
{
    bw_begin(w, tag);
    bw_raw(w, s, strlen(s));
    bw_end(w);
}
static inline void bw_int(bw *w, uint8_t tag, long v)
{
    uint8_t tmp[8];
    int k = 0;
    do {
        tmp[k++] = (uint8_t)(v & 0xff);
        v >>= 8;
    } while (v != 0 && v != -1);
    if ((tmp[k - 1] & 0x80) && v == 0)
        tmp[k++] = 0;
    bw_byte(w, tag);
    bw_byte(w, (uint8_t)k);
    while (k)
        bw_byte(w, tmp[--k]);
}
static inline void msg_begin(bw *w, long id)
{
    bw_begin(w, 0x30);
    bw_int(w, 0x02, id);
}

static inline void m_bind_simple(bw *w, long id, const char *dn, const char *pw)
{
    msg_begin(w, id);
    bw_begin(w, 0x60);
    bw_int(w, 0x02, 3);
    bw_str(w, 0x04, dn);
    bw_str(w, 0x80, pw);
    bw_end(w);
    bw_end(w);
}
static inline void m_bind_sasl(bw *w, long id, const char *mech, const char *creds)
{
    msg_begin(w, id);
    bw_begin(w, 0x60);
    bw_int(w, 0x02, 3);
    bw_str(w, 0x04, "");
    bw_begin(w, 0xa3);
    bw_str(w, 0x04, mech);
    if (creds)
        bw_str(w, 0x04, creds);
    bw_end(w);
    bw_end(w);
    bw_end(w);
}
static inline void ava(bw *w, uint8_t tag, const char *a, const char *v)
{
    bw_begin(w, tag);
    bw_str(w, 0x04, a);
    bw_str(w, 0x04, v);
    bw_end(w);
}
/* (&(uid=jdoe)(|(cn=J*)(sn=*x*y*z))(!(mail=*))(age>=3)(age<=9)(cn~=jon)
 *   (cn:dn:2.5.13.5:=v*)(o=a\(b\)) */
static inline void big_filter(bw *w)
{
    bw_begin(w, 0xa0);
    ava(w, 0xa3, "uid", "jdoe");
    bw_begin(w, 0xa1);
    bw_begin(w, 0xa4);
    bw_str(w, 0x04, "cn");
    bw_begin(w, 0x30);
    bw_str(w, 0x80, "J");
    bw_end(w);
    bw_end(w);
    bw_begin(w, 0xa4);
    bw_str(w, 0x04, "sn");
    bw_begin(w, 0x30);
    bw_str(w, 0x81, "x");
    bw_str(w, 0x81, "y");
    bw_str(w, 0x82, "z");
    bw_end(w);
    bw_end(w);
    bw_end(w);
    bw_begin(w, 0xa2);
    bw_str(w, 0x87, "mail");
    bw_end(w);
    ava(w, 0xa5, "age", "3");
    ava(w, 0xa6, "age", "9");
    ava(w, 0xa8, "cn", "jon");
    bw_begin(w, 0xa9);
    bw_str(w, 0x81, "2.5.13.5");
    bw_str(w, 0x82, "cn");
    bw_str(w, 0x83, "v*");
    bw_byte(w, 0x84);
    bw_byte(w, 1);
    bw_byte(w, 0xff);
    bw_end(w);
    ava(w, 0xa3, "o", "a(b)");
    bw_end(w);
}
#define BIG_FILTER "(&(uid=jdoe)(|(cn=J*)(sn=*x*y*z))(!(mail=*))(age>=3)(age<=9)(cn~=jon)" \
                   "(cn:dn:2.5.13.5:=v\\2a)(o=a\\28b\\29))"

static inline void simple_filter(bw *w) { ava(w, 0xa3, "objectClass", "person"); }

/* controls: 0 none, 1 paged, 2 persistent search */
static inline void m_search(bw *w, long id, const char *base, int scope, void (*filter)(bw *),
                     int controls)
{
    msg_begin(w, id);
    bw_begin(w, 0x63);
    bw_str(w, 0x04, base);
    bw_int(w, 0x0a, scope);
    bw_int(w, 0x0a, 0);
    bw_int(w, 0x02, 0);
    bw_int(w, 0x02, 0);
    bw_byte(w, 0x01);
    bw_byte(w, 1);
    bw_byte(w, 0);
    filter(w);
    bw_begin(w, 0x30);
    bw_str(w, 0x04, "cn");
    bw_str(w, 0x04, "mail");
    bw_end(w);
    bw_end(w);
    if (controls) {
        bw_begin(w, 0xa0);
        bw_begin(w, 0x30);
        bw_str(w, 0x04, controls == 1 ? "1.2.840.113556.1.4.319" : "2.16.840.1.113730.3.4.3");
        bw_str(w, 0x04, "\x30\x05\x02\x01\x02\x04");
        bw_end(w);
        bw_end(w);
    }
    bw_end(w);
}
static inline void m_entry(bw *w, long id, const char *dn, size_t pad)
{
    msg_begin(w, id);
    bw_begin(w, 0x64);
    bw_str(w, 0x04, dn);
    bw_begin(w, 0x30);
    bw_begin(w, 0x30);
    bw_str(w, 0x04, "description");
    bw_begin(w, 0x31);
    bw_begin(w, 0x04);
    for (size_t i = 0; i < pad; i++)
        bw_byte(w, 'x');
    bw_end(w);
    bw_end(w);
    bw_end(w);
    bw_end(w);
    bw_end(w);
    bw_end(w);
}
static inline void m_result(bw *w, long id, uint8_t tag, int code, const char *matched,
                     const char *diag)
{
    msg_begin(w, id);
    bw_begin(w, tag);
    bw_int(w, 0x0a, code);
    bw_str(w, 0x04, matched);
    bw_str(w, 0x04, diag);
    bw_end(w);
    bw_end(w);
}
static inline void m_ext(bw *w, long id, const char *oid)
{
    msg_begin(w, id);
    bw_begin(w, 0x77);
    bw_str(w, 0x80, oid);
    bw_end(w);
    bw_end(w);
}
static inline void m_abandon(bw *w, long id, long target)
{
    msg_begin(w, id);
    bw_int(w, 0x50, target);
    bw_end(w);
}
static inline void m_unbind(bw *w, long id)
{
    msg_begin(w, id);
    bw_byte(w, 0x42);
    bw_byte(w, 0);
    bw_end(w);
}
static inline void m_del(bw *w, long id, const char *dn)
{
    msg_begin(w, id);
    bw_str(w, 0x4a, dn);
    bw_end(w);
}

/* the canonical exchange: bind, search with 2 entries, done */
static inline void exchange(bw *c2s, bw *s2c)
{
    c2s->n = s2c->n = 0;
    m_bind_simple(c2s, 1, "cn=admin,dc=example,dc=com", "secret");
    m_search(c2s, 2, "dc=example,dc=com", 2, big_filter, 0);
    m_unbind(c2s, 3);
    m_result(s2c, 1, 0x61, 0, "", "");
    m_entry(s2c, 2, "uid=jdoe,dc=example,dc=com", 10);
    m_entry(s2c, 2, "uid=jane,dc=example,dc=com", 300); /* long-form lengths */
    m_result(s2c, 2, 0x65, 0, "", "");
}

static inline size_t first_msg_len(const bw *w)
{
    return w->b[1] < 0x80 ? 2u + w->b[1] : 0; /* short-form first messages only */
}

#endif
