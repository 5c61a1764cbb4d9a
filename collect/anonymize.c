/*
 * anonymize.c - the pseudonymiser of `collect --anonymize-key`: a sink placed
 * in front of the trace writer that rewrites, in every row, the strings that
 * say who used the server, so that a trace can be handed to a vendor's
 * support without the people, hosts and data in it:
 *   - DNs (entry, base, bind, target, certificate subjects, MODRDN's new RDN
 *     and superior): each RDN value becomes a pseudonym, attribute names and
 *     separators stay ("uid=<p>,ou=<p>,dc=<p>"), so a DN keeps its shape;
 *   - search filters: each assertion value, between '*' wildcards; attribute
 *     names, operators, nesting and the wildcards' places stay;
 *   - IPv4 and IPv6 addresses (clients, servers, TCP and TLS endpoints):
 *     prefix-preserving, bit by bit (the idea of Crypto-PAn, built on the keyed
 *     hash): output bit i is input bit i flipped by a keyed function of input
 *     bits 0..i-1, so two addresses share exactly as many leading bits after as
 *     before: a /24 stays one /24, and servers stay apart;
 *   - names: TLS SNI, HTTP virtual host and server host names label by label;
 *     HTTP users, user agents, LDAP result texts, crash command arguments and
 *     the directories of source paths whole; HTTP path segments that the path
 *     template replaced ({n}, {id}, ...) and query values;
 *   - rejected lines: the excerpt of raw text is dropped, the reason is kept
 *     (a line a parser could not read cannot be pseudonymised reliably).
 * Kept: attribute names, filter shapes, result codes, times and durations,
 * counts, flags, ports, TLS versions and ciphers, path templates.
 *
 * A pseudonym is the keyed BLAKE2b (libsodium crypto_generichash) of the
 * value, 60 bits as 12 base32 characters [a-z2-7]: the same value gives the
 * same pseudonym for one key (so grouping and equality survive), another key
 * gives unrelated ones, and no one without the key can tell a value from its
 * pseudonym other than by guessing and hashing with the key. DN and filter
 * values are hashed lower-cased and trimmed (LDAP compares them without case),
 * so that a DN written in two cases stays one group.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sodium.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "satscope/anonymize.h"
#include "satscope/trace.h"

#define TOKEN_CHARS 12
#define ADDR_CACHE 4096 /* direct-mapped: an address hashes 32 or 128 times */

typedef struct addr_slot {
    uint8_t used, family;
    uint8_t in[16], out[16];
} addr_slot;

struct sat_anon {
    uint8_t key[crypto_generichash_KEYBYTES];
    crypto_generichash_state keyed; /* the key absorbed once, copied per hash */
    sat_arena arena;
    int oom;
    pthread_mutex_t mu;
    sat_event_sink next;
    uint64_t replaced;
    addr_slot *cache;
};

/* ---- building strings ------------------------------------------------------------- */
typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->oom || !n)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void sb_putc(sbuf *b, char c) { sb_put(b, &c, 1); }

/* The arena copy of b (b freed); "" and a->oom set if memory ran out. */
static sat_str sb_done(sat_anon *a, sbuf *b)
{
    sat_str r = sat_str_cstr("");
    if (!b->oom) {
        char *p = sat_arena_strdup(&a->arena, b->p ? b->p : "", b->n);
        if (p)
            r = sat_str_make(p, b->n);
        else
            a->oom = 1;
    } else {
        a->oom = 1;
    }
    free(b->p);
    return r;
}

/* ---- the keyed hash ------------------------------------------------------------------ */
static void keyed_hash(const sat_anon *a, uint8_t dom, const void *msg, size_t n,
                       uint8_t out[16])
{
    crypto_generichash_state st = a->keyed;
    crypto_generichash_update(&st, &dom, 1);
    crypto_generichash_update(&st, (const unsigned char *)msg, n);
    crypto_generichash_final(&st, out, 16);
}

static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";

/* The pseudonym of s[0..n) into out (TOKEN_CHARS chars), lower-cased first
 * when fold. */
static void token_into(const sat_anon *a, const char *s, size_t n, int fold, char *out)
{
    crypto_generichash_state st = a->keyed;
    uint8_t dom = 'T';
    crypto_generichash_update(&st, &dom, 1);
    if (fold) {
        char lc[256];
        for (size_t i = 0; i < n;) {
            size_t k = 0;
            for (; k < sizeof lc && i < n; k++, i++) {
                char c = s[i];
                lc[k] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
            }
            crypto_generichash_update(&st, (const unsigned char *)lc, k);
        }
    } else {
        crypto_generichash_update(&st, (const unsigned char *)s, n);
    }
    uint8_t h[16];
    crypto_generichash_final(&st, h, sizeof h);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | h[i];
    for (int i = 0; i < TOKEN_CHARS; i++)
        out[i] = b32[(v >> (59 - 5 * i)) & 31];
}

static void sb_token(const sat_anon *a, sbuf *b, const char *s, size_t n, int fold)
{
    char t[TOKEN_CHARS];
    token_into(a, s, n, fold, t);
    sb_put(b, t, sizeof t);
}

sat_str sat_anon_token(sat_anon *a, sat_str s)
{
    if (!s.ptr || !s.len)
        return s;
    sbuf b = {0};
    sb_token(a, &b, s.ptr, s.len, 0);
    return sb_done(a, &b);
}

/* ---- DNs ---------------------------------------------------------------------------- */
static int is_sp(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* A value: its surrounding blanks kept, its trimmed core replaced. */
static void sb_value(const sat_anon *a, sbuf *b, const char *s, size_t n, int fold)
{
    size_t lo = 0, hi = n;
    while (lo < hi && is_sp(s[lo]))
        lo++;
    while (hi > lo && is_sp(s[hi - 1]))
        hi--;
    sb_put(b, s, lo);
    if (hi > lo)
        sb_token(a, b, s + lo, hi - lo, fold);
    sb_put(b, s + hi, n - hi);
}

static void sb_dn(const sat_anon *a, sbuf *b, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        /* one attribute-value assertion: up to an unescaped ',', ';' or '+'
         * outside quotes */
        size_t e = i, eq = (size_t)-1;
        int quoted = 0;
        while (e < n) {
            char c = s[e];
            if (c == '\\' && e + 1 < n) {
                e += 2;
                continue;
            }
            if (c == '"')
                quoted = !quoted;
            else if (!quoted && (c == ',' || c == ';' || c == '+'))
                break;
            else if (c == '=' && eq == (size_t)-1)
                eq = e;
            e++;
        }
        if (eq == (size_t)-1) {
            sb_value(a, b, s + i, e - i, 1); /* no name: the whole piece */
        } else {
            sb_put(b, s + i, eq + 1 - i);
            sb_value(a, b, s + eq + 1, e - eq - 1, 1);
        }
        if (e < n)
            sb_putc(b, s[e]);
        i = e + 1;
    }
}

sat_str sat_anon_dn(sat_anon *a, sat_str dn)
{
    if (!dn.ptr || !dn.len)
        return dn;
    sbuf b = {0};
    sb_dn(a, &b, dn.ptr, dn.len);
    return sb_done(a, &b);
}

/* '\n'-separated DNs (ldap_op.entry_dns). */
static sat_str anon_dn_lines(sat_anon *a, sat_str s)
{
    if (!s.ptr || !s.len)
        return s;
    sbuf b = {0};
    size_t i = 0;
    while (i <= s.len) {
        size_t e = i;
        while (e < s.len && s.ptr[e] != '\n')
            e++;
        sb_dn(a, &b, s.ptr + i, e - i);
        if (e < s.len)
            sb_putc(&b, '\n');
        i = e + 1;
    }
    return sb_done(a, &b);
}

/* MODRDN's extra: "newrdn=RDN newsuperior=DN deleteoldrdn=N" (389 writes
 * the keywords it has, in this order): the DN parts replaced. */
static sat_str anon_modrdn(sat_anon *a, sat_str s)
{
    if (!s.ptr || !s.len)
        return s;
    static const char *const keys[] = {"newrdn=", "newsuperior=", NULL};
    sbuf b = {0};
    size_t i = 0;
    while (i < s.len) {
        size_t klen = 0;
        for (int k = 0; keys[k]; k++) {
            size_t l = strlen(keys[k]);
            if (s.len - i >= l && !strncasecmp(s.ptr + i, keys[k], l) &&
                (i == 0 || s.ptr[i - 1] == ' '))
                klen = l;
        }
        if (!klen) {
            sb_putc(&b, s.ptr[i++]);
            continue;
        }
        sb_put(&b, s.ptr + i, klen);
        i += klen;
        /* the DN runs to the next " keyword=" or the end */
        size_t e = i;
        while (e < s.len) {
            if (s.ptr[e] == ' ') {
                size_t w = e + 1;
                while (w < s.len && s.ptr[w] != '=' && s.ptr[w] != ' ' && s.ptr[w] != ',')
                    w++;
                if (w < s.len && s.ptr[w] == '=' &&
                    (!strncasecmp(s.ptr + e + 1, "newsuperior", w - e - 1) ||
                     !strncasecmp(s.ptr + e + 1, "deleteoldrdn", w - e - 1)) &&
                    w - e - 1 >= 6)
                    break;
            }
            e++;
        }
        sb_dn(a, &b, s.ptr + i, e - i);
        i = e;
    }
    return sb_done(a, &b);
}

/* ---- filters (RFC 4515 string form; the walk of parse/join/filter_shape.c) ---- */
sat_str sat_anon_filter(sat_anon *a, sat_str f)
{
    if (!f.ptr || !f.len)
        return f;
    const char *s = f.ptr;
    size_t n = f.len, i = 0;
    sbuf b = {0};
    while (i < n) {
        char c = s[i];
        if (is_sp(c) || c == '(' || c == ')' || c == '&' || c == '|' || c == '!') {
            sb_putc(&b, c);
            i++;
            continue;
        }
        /* an item: the attribute description and operator up to '=' */
        size_t eq = i;
        while (eq < n && s[eq] != '=' && s[eq] != '(' && s[eq] != ')')
            eq++;
        sb_put(&b, s + i, eq - i);
        i = eq;
        if (i >= n || s[i] != '=')
            continue;
        sb_putc(&b, '=');
        i++;
        /* the value up to the first unescaped ')': pieces between '*' */
        size_t piece = i;
        for (;;) {
            int end = i >= n || s[i] == ')';
            if (end || s[i] == '*') {
                if (i > piece)
                    sb_token(a, &b, s + piece, i - piece, 1);
                if (end)
                    break;
                sb_putc(&b, '*');
                piece = ++i;
                continue;
            }
            i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
        }
    }
    return sb_done(a, &b);
}

/* ---- addresses ------------------------------------------------------------------- */
static void prefix_preserve(sat_anon *a, int family, const uint8_t *in, uint8_t *out)
{
    size_t nbytes = family == AF_INET ? 4 : 16;
    unsigned slot = 0;
    for (size_t i = 0; i < nbytes; i++)
        slot = slot * 31u + in[i];
    slot %= ADDR_CACHE;
    addr_slot *cs = a->cache ? &a->cache[slot] : NULL;
    if (cs && cs->used && cs->family == family && !memcmp(cs->in, in, nbytes)) {
        memcpy(out, cs->out, nbytes);
        return;
    }
    memset(out, 0, nbytes);
    /* message: family, bit index, the input's bits before it (the rest zero) */
    uint8_t msg[2 + 16];
    for (size_t bit = 0; bit < nbytes * 8; bit++) {
        memset(msg, 0, sizeof msg);
        msg[0] = (uint8_t)family;
        msg[1] = (uint8_t)bit;
        for (size_t k = 0; k < bit / 8; k++)
            msg[2 + k] = in[k];
        if (bit % 8)
            msg[2 + bit / 8] = (uint8_t)(in[bit / 8] & (0xff00u >> (bit % 8)));
        uint8_t h[16];
        keyed_hash(a, 'A', msg, 2 + nbytes, h);
        unsigned inbit = (in[bit / 8] >> (7 - bit % 8)) & 1u;
        unsigned ob = inbit ^ (h[0] & 1u);
        out[bit / 8] |= (uint8_t)(ob << (7 - bit % 8));
    }
    if (cs) {
        cs->used = 1;
        cs->family = (uint8_t)family;
        memcpy(cs->in, in, nbytes);
        memcpy(cs->out, out, nbytes);
    }
}

/* s[0..n) as an address of family into b; 0 if it is not one. */
static int sb_ip(sat_anon *a, sbuf *b, const char *s, size_t n, int family)
{
    char tmp[INET6_ADDRSTRLEN + 1];
    if (n == 0 || n >= sizeof tmp)
        return 0;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    uint8_t in[16], out[16];
    if (inet_pton(family, tmp, in) != 1)
        return 0;
    prefix_preserve(a, family, in, out);
    char txt[INET6_ADDRSTRLEN];
    if (!inet_ntop(family, out, txt, sizeof txt))
        return 0;
    sb_put(b, txt, strlen(txt));
    return 1;
}

static int all_digits(const char *s, size_t n)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

sat_str sat_anon_addr(sat_anon *a, sat_str ip)
{
    if (!ip.ptr || !ip.len || (ip.len == 5 && !memcmp(ip.ptr, "local", 5)))
        return ip;
    const char *s = ip.ptr;
    size_t n = ip.len;
    sbuf b = {0};
    if (sb_ip(a, &b, s, n, AF_INET) || sb_ip(a, &b, s, n, AF_INET6))
        return sb_done(a, &b);
    /* "[v6]:port" or "[v6]" */
    if (s[0] == '[') {
        const char *rb = memchr(s, ']', n);
        if (rb && (size_t)(rb - s) > 1) {
            size_t in_len = (size_t)(rb - s) - 1;
            sb_putc(&b, '[');
            if (sb_ip(a, &b, s + 1, in_len, AF_INET6)) {
                sb_put(&b, rb, n - (size_t)(rb - s));
                return sb_done(a, &b);
            }
            b.n = 0;
        }
    }
    /* "v4:port" */
    const char *colon = memchr(s, ':', n);
    if (colon && all_digits(colon + 1, n - (size_t)(colon - s) - 1) &&
        sb_ip(a, &b, s, (size_t)(colon - s), AF_INET)) {
        sb_put(&b, colon, n - (size_t)(colon - s));
        return sb_done(a, &b);
    }
    b.n = 0;
    sb_token(a, &b, s, n, 0); /* a socket path, a name: whole */
    return sb_done(a, &b);
}

/* ---- names ----------------------------------------------------------------------- */
static void sb_host(const sat_anon *a, sbuf *b, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t e = i;
        while (e < n && s[e] != '.')
            e++;
        if (e > i)
            sb_token(a, b, s + i, e - i, 1);
        if (e < n)
            sb_putc(b, '.');
        i = e + 1;
    }
}

sat_str sat_anon_host(sat_anon *a, sat_str h)
{
    if (!h.ptr || !h.len)
        return h;
    sbuf b = {0};
    /* a host that is an address is one */
    if (sb_ip(a, &b, h.ptr, h.len, AF_INET) || sb_ip(a, &b, h.ptr, h.len, AF_INET6))
        return sb_done(a, &b);
    /* "host:port" keeps its port */
    const char *colon = memchr(h.ptr, ':', h.len);
    size_t hn = colon && all_digits(colon + 1, h.len - (size_t)(colon - h.ptr) - 1)
                    ? (size_t)(colon - h.ptr) : h.len;
    sb_host(a, &b, h.ptr, hn);
    sb_put(&b, h.ptr + hn, h.len - hn);
    return sb_done(a, &b);
}

/* A path's directories replaced, its last segment (the file's name) kept. */
static sat_str anon_file_path(sat_anon *a, sat_str p)
{
    if (!p.ptr || !p.len || (p.len == 1 && p.ptr[0] == '-'))
        return p;
    const char *slash = NULL;
    for (size_t i = p.len; i-- > 0;)
        if (p.ptr[i] == '/') {
            slash = p.ptr + i;
            break;
        }
    if (!slash)
        return p;
    sbuf b = {0};
    size_t i = 0, dn = (size_t)(slash - p.ptr);
    while (i < dn) {
        size_t e = i;
        while (e < dn && p.ptr[e] != '/')
            e++;
        if ((e - i == 1 && p.ptr[i] == '.') || (e - i == 2 && !memcmp(p.ptr + i, "..", 2)))
            sb_put(&b, p.ptr + i, e - i); /* "." and ".." say nothing */
        else if (e > i)
            sb_token(a, &b, p.ptr + i, e - i, 0);
        sb_putc(&b, '/');
        i = e + 1;
    }
    if (dn == 0)
        b.n = 0, sb_putc(&b, '/');
    sb_put(&b, slash + 1, p.len - dn - 1);
    return sb_done(a, &b);
}

/* The command line of a crash: the program kept, its arguments whole. */
static sat_str anon_command(sat_anon *a, sat_str c)
{
    if (!c.ptr || !c.len)
        return c;
    const char *sp = memchr(c.ptr, ' ', c.len);
    if (!sp)
        return c;
    size_t k = (size_t)(sp - c.ptr);
    sbuf b = {0};
    sb_put(&b, c.ptr, k + 1);
    if (c.len > k + 1)
        sb_token(a, &b, sp + 1, c.len - k - 1, 0);
    return sb_done(a, &b);
}

/* ---- HTTP paths -------------------------------------------------------------------- */
/* Segment idx (0 = before the first '/') of t[0..n), cut at '?' or '#'. */
static int tmpl_segment(const char *t, size_t n, size_t idx, const char **seg, size_t *len)
{
    size_t i = 0, k = 0;
    for (;;) {
        size_t e = i;
        while (e < n && t[e] != '/' && t[e] != '?' && t[e] != '#')
            e++;
        if (k == idx) {
            *seg = t + i;
            *len = e - i;
            return 1;
        }
        if (e >= n || t[e] != '/')
            return 0;
        i = e + 1;
        k++;
    }
}

sat_str sat_anon_http_path(sat_anon *a, sat_str path, sat_str tmpl)
{
    if (!path.ptr || !path.len)
        return path;
    const char *s = path.ptr;
    size_t n = path.len, i = 0;
    sbuf b = {0};
    /* an absolute-form target: scheme kept, host replaced */
    const char *ss = n > 3 ? strstr(s, "://") : NULL;
    if (ss && (size_t)(ss - s) < n && (size_t)(ss - s) < 8) {
        size_t h = (size_t)(ss - s) + 3, he = h;
        while (he < n && s[he] != '/' && s[he] != '?' && s[he] != '#')
            he++;
        sb_put(&b, s, h);
        sb_host(a, &b, s + h, he - h);
        i = he;
    }
    /* segments: kept when the template kept them as words */
    size_t idx = 0;
    while (i < n && s[i] != '?' && s[i] != '#') {
        size_t e = i;
        while (e < n && s[e] != '/' && s[e] != '?' && s[e] != '#')
            e++;
        const char *ts;
        size_t tl;
        if (e > i) {
            if (tmpl.ptr && tmpl_segment(tmpl.ptr, tmpl.len, idx, &ts, &tl) && tl == e - i &&
                !memcmp(ts, s + i, tl) && !memchr(ts, '{', tl))
                sb_put(&b, s + i, e - i);
            else {
                /* an extension the template kept ("{n}.jpg") stays */
                const char *dot = memchr(s + i, '.', e - i);
                size_t stem = dot ? (size_t)(dot - (s + i)) : e - i;
                if (stem)
                    sb_token(a, &b, s + i, stem, 0);
                sb_put(&b, s + i + stem, e - i - stem);
            }
        }
        if (e < n && s[e] == '/')
            sb_putc(&b, '/'), e++;
        i = e;
        idx++;
    }
    /* query: names kept, values replaced; a fragment replaced */
    if (i < n && s[i] == '?') {
        sb_putc(&b, '?');
        i++;
        while (i < n && s[i] != '#') {
            size_t e = i;
            while (e < n && s[e] != '&' && s[e] != '#')
                e++;
            const char *eq = memchr(s + i, '=', e - i);
            if (eq) {
                size_t kl = (size_t)(eq - (s + i)) + 1;
                sb_put(&b, s + i, kl);
                if (e - i > kl)
                    sb_token(a, &b, s + i + kl, e - i - kl, 0);
            } else if (e > i) {
                sb_token(a, &b, s + i, e - i, 0);
            }
            if (e < n && s[e] == '&')
                sb_putc(&b, '&'), e++;
            i = e;
        }
    }
    if (i < n && s[i] == '#') {
        sb_putc(&b, '#');
        if (n - i > 1)
            sb_token(a, &b, s + i + 1, n - i - 1, 0);
    }
    return sb_done(a, &b);
}

/* ---- the sink ---------------------------------------------------------------------- */
typedef union any_row {
    sat_source source;
    sat_reject reject;
    sat_ldap_op op;
    sat_ldap_conn conn;
    sat_tcp_conn tcp;
    sat_tls_hs tls;
    sat_crash crash;
    sat_frame frame;
    sat_http_req http;
} any_row;

/* What becomes of each string a row carries, one line per field: the
 * replacement by its kind. Strings not listed (attribute names, filter
 * shapes, TLS versions, close reasons, ...) are kept: docs/privacy.md. */
typedef sat_str (*anon_fn)(sat_anon *a, sat_str s);
static sat_str anon_drop(sat_anon *a, sat_str s)
{
    (void)a;
    (void)s;
    return sat_str_cstr(""); /* a rejected line's raw text: see docs/privacy.md */
}

typedef struct anon_rule {
    int table;
    uint16_t off;   /* the sat_str field's offset in the row */
    anon_fn fn;     /* NULL: the HTTP path, rewritten beside its template */
    uint8_t modrdn; /* only in a MODRDN operation's row (ldap_op.extra) */
} anon_rule;

#define RULE(t, type, field, fn) {t, (uint16_t)offsetof(type, field), fn, 0}
static const anon_rule anon_rules[] = {
    RULE(SAT_TABLE_SOURCE, sat_source, path, anon_file_path),
    RULE(SAT_TABLE_SOURCE, sat_source, server_name, sat_anon_host),
    RULE(SAT_TABLE_REJECT, sat_reject, excerpt, anon_drop),
    RULE(SAT_TABLE_LDAP_OP, sat_ldap_op, dn, sat_anon_dn),
    RULE(SAT_TABLE_LDAP_OP, sat_ldap_op, filter, sat_anon_filter),
    RULE(SAT_TABLE_LDAP_OP, sat_ldap_op, bind_dn, sat_anon_dn),
    RULE(SAT_TABLE_LDAP_OP, sat_ldap_op, client_ip, sat_anon_addr),
    RULE(SAT_TABLE_LDAP_OP, sat_ldap_op, text, sat_anon_token),
    RULE(SAT_TABLE_LDAP_OP, sat_ldap_op, entry_dns, anon_dn_lines),
    {SAT_TABLE_LDAP_OP, (uint16_t)offsetof(sat_ldap_op, extra), anon_modrdn, 1},
    RULE(SAT_TABLE_LDAP_CONN, sat_ldap_conn, client_ip, sat_anon_addr),
    RULE(SAT_TABLE_LDAP_CONN, sat_ldap_conn, server_addr, sat_anon_addr),
    RULE(SAT_TABLE_LDAP_CONN, sat_ldap_conn, client_cert, sat_anon_dn),
    RULE(SAT_TABLE_LDAP_CONN, sat_ldap_conn, bind_dn, sat_anon_dn),
    RULE(SAT_TABLE_TCP_CONN, sat_tcp_conn, client_ip, sat_anon_addr),
    RULE(SAT_TABLE_TCP_CONN, sat_tcp_conn, server_ip, sat_anon_addr),
    RULE(SAT_TABLE_TLS_HS, sat_tls_hs, client_ip, sat_anon_addr),
    RULE(SAT_TABLE_TLS_HS, sat_tls_hs, server_ip, sat_anon_addr),
    RULE(SAT_TABLE_TLS_HS, sat_tls_hs, sni, sat_anon_host),
    RULE(SAT_TABLE_CRASH, sat_crash, host, sat_anon_host),
    RULE(SAT_TABLE_CRASH, sat_crash, command, anon_command),
    RULE(SAT_TABLE_HTTP_REQ, sat_http_req, client_ip, sat_anon_addr),
    RULE(SAT_TABLE_HTTP_REQ, sat_http_req, path, NULL),
    RULE(SAT_TABLE_HTTP_REQ, sat_http_req, vhost, sat_anon_host),
    RULE(SAT_TABLE_HTTP_REQ, sat_http_req, user, sat_anon_token),
    RULE(SAT_TABLE_HTTP_REQ, sat_http_req, user_agent, sat_anon_token),
};
#undef RULE

static int anon_row(void *ctx, int table, const void *row)
{
    sat_anon *a = ctx;
    const sat_table_def *d = sat_table_get(table);
    any_row u;
    if (!d || d->row_size > sizeof u)
        return sat_sink_emit(&a->next, table, row);
    pthread_mutex_lock(&a->mu);
    sat_anon_reset(a);
    memcpy(&u, row, d->row_size);
    unsigned char *base = (unsigned char *)&u;
    for (size_t i = 0; i < sizeof anon_rules / sizeof anon_rules[0]; i++) {
        const anon_rule *r = &anon_rules[i];
        if (r->table != table || (r->modrdn && u.op.type != SAT_OP_MODRDN))
            continue;
        sat_str v;
        memcpy(&v, base + r->off, sizeof v);
        if (!v.ptr || !v.len)
            continue;
        v = r->fn ? r->fn(a, v) : sat_anon_http_path(a, v, u.http.path_template);
        memcpy(base + r->off, &v, sizeof v);
        a->replaced++;
    }
    int rc = a->oom ? SAT_E_NOMEM : sat_sink_emit(&a->next, table, &u);
    pthread_mutex_unlock(&a->mu);
    return rc;
}

sat_event_sink sat_anon_sink(sat_anon *a, const sat_event_sink *next)
{
    sat_event_sink s = {a, 0, anon_row};
    if (next) {
        a->next = *next;
        s.tables = next->tables;
    }
    return s;
}

/* ---- life --------------------------------------------------------------------------- */
sat_anon *sat_anon_create(const void *key, size_t keylen, sat_diag *diag)
{
    if (!key || keylen < SAT_ANON_KEY_MIN) {
        sat_diag_set(diag, SAT_E_USAGE, "key", "a key of at least %d bytes is needed",
                     SAT_ANON_KEY_MIN);
        return NULL;
    }
    if (sodium_init() < 0) {
        sat_diag_set(diag, SAT_E_IO, "libsodium", "could not be initialised");
        return NULL;
    }
    sat_anon *a = calloc(1, sizeof *a);
    if (!a || !(a->cache = calloc(ADDR_CACHE, sizeof *a->cache))) {
        free(a);
        sat_diag_set(diag, SAT_E_NOMEM, "key", "out of memory");
        return NULL;
    }
    /* the key file's bytes, of any length, give the 32-byte BLAKE2b key */
    crypto_generichash(a->key, sizeof a->key, key, keylen, NULL, 0);
    crypto_generichash_init(&a->keyed, a->key, sizeof a->key, 16);
    pthread_mutex_init(&a->mu, NULL);
    return a;
}

sat_anon *sat_anon_open_keyfile(const char *path, sat_diag *diag)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        sat_diag_set(diag, errno == ENOENT ? SAT_E_USAGE : SAT_E_IO, path,
                     "key file: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    sat_anon *a = NULL;
    unsigned char buf[SAT_ANON_KEY_FILE_MAX + 1];
    if (fstat(fd, &st) != 0) {
        sat_diag_set(diag, SAT_E_IO, path, "key file: %s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        sat_diag_set(diag, SAT_E_USAGE, path, "key file: not a regular file");
    } else if (st.st_mode & S_IROTH) {
        sat_diag_set(diag, SAT_E_USAGE, path,
                     "key file is readable by others (mode %03o): chmod o-r it, or make "
                     "a new key",
                     (unsigned)st.st_mode & 0777u);
    } else {
        size_t n = 0;
        ssize_t r;
        while (n < sizeof buf && (r = read(fd, buf + n, sizeof buf - n)) != 0) {
            if (r < 0) {
                if (errno == EINTR)
                    continue;
                sat_diag_set(diag, SAT_E_IO, path, "key file: %s", strerror(errno));
                n = (size_t)-1;
                break;
            }
            n += (size_t)r;
        }
        if (n == (size_t)-1)
            ;
        else if (n < SAT_ANON_KEY_MIN)
            sat_diag_set(diag, SAT_E_USAGE, path,
                         "key file holds %zu bytes: at least %d are needed (e.g. head -c 32 "
                         "/dev/urandom > KEYFILE)",
                         n, SAT_ANON_KEY_MIN);
        else if (n > SAT_ANON_KEY_FILE_MAX)
            sat_diag_set(diag, SAT_E_USAGE, path, "key file is longer than %d bytes",
                         SAT_ANON_KEY_FILE_MAX);
        else
            a = sat_anon_create(buf, n, diag);
        sodium_memzero(buf, sizeof buf);
    }
    close(fd);
    return a;
}

void sat_anon_free(sat_anon *a)
{
    if (!a)
        return;
    sat_arena_free(&a->arena);
    free(a->cache);
    pthread_mutex_destroy(&a->mu);
    sodium_memzero(a, sizeof *a);
    free(a);
}

void sat_anon_reset(sat_anon *a)
{
    sat_arena_reset(&a->arena);
    a->oom = 0;
}

int sat_anon_failed(const sat_anon *a) { return a->oom; }
uint64_t sat_anon_replaced(const sat_anon *a) { return a->replaced; }
