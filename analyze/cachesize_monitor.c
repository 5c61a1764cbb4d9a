/*
 * cachesize_monitor.c - cn=monitor snapshots of a 389 ldbm backend for the
 * cachesize analyzer: the entry and DN cache counters of an LDIF export of
 * "ldapsearch -b cn=monitor,cn=NAME,cn=ldbm database,cn=plugins,cn=config"
 * (RFC 2849: folded lines, comments; base64 and URL values are never
 * counters). Any bytes are safe; nothing is allocated.
 */
#include <string.h>

#include "cachesize_internal.h"

/* ---- cn=monitor LDIF --------------------------------------------------------------- */

static int attr_is(const char *a, size_t n, const char *name)
{
    size_t k = strlen(name);
    if (n != k)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = a[i];
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch + 32);
        if (ch != name[i])
            return 0;
    }
    return 1;
}

static int parse_i64(const char *s, size_t n, int64_t *out)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t'))
        n--;
    if (!n || n > 18)
        return 0;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

static void mon_reset(sat_cs_monitor *m)
{
    memset(m->backend, 0, sizeof m->backend);
    int64_t *f[] = {&m->entry_hits, &m->entry_tries, &m->entry_cur_bytes, &m->entry_max_bytes,
                    &m->entry_cur_count, &m->entry_max_count, &m->dn_hits, &m->dn_tries,
                    &m->dn_cur_bytes, &m->dn_max_bytes, &m->dn_cur_count, &m->dn_max_count};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        *f[i] = SAT_ABSENT;
}

/* "cn=monitor,cn=NAME,cn=ldbm database,..." -> NAME (blanks after commas allowed) */
static void mon_backend(sat_cs_monitor *m, const char *v, size_t n)
{
    char d[256];
    size_t k = cs_normalize_dn(v, n < sizeof d ? n : sizeof d, d);
    if (k > sizeof d)
        k = sizeof d;
    static const char pre[] = "cn=monitor,cn=";
    if (k < sizeof pre - 1 || memcmp(d, pre, sizeof pre - 1) != 0)
        return;
    size_t s = sizeof pre - 1, e = s;
    while (e < k && d[e] != ',')
        e++;
    static const char ldbm[] = ",cn=ldbm database";
    if (e == s || e - s >= sizeof m->backend || k - e < sizeof ldbm - 1 ||
        memcmp(d + e, ldbm, sizeof ldbm - 1) != 0)
        return;
    /* the name as written (cs_normalize_dn lowered it): take it from v */
    size_t off = 0;
    while (off < n && (v[off] == ' ' || v[off] == '\t'))
        off++;
    const char *p = v + off;
    size_t rest = n - off, i = 0, comma = 0;
    for (; i < rest && comma < 1; i++)
        if (p[i] == ',')
            comma++;
    while (i < rest && p[i] == ' ')
        i++;
    if (i + 3 <= rest && attr_is(p + i, 3, "cn=")) {
        i += 3;
        size_t j = i;
        while (j < rest && p[j] != ',' && j - i < sizeof m->backend - 1)
            j++;
        memcpy(m->backend, p + i, j - i);
        m->backend[j - i] = '\0';
    }
}

static int mon_line(sat_cs_monitor *m, const char *l, size_t n)
{
    if (!n || l[0] == '#')
        return 0;
    size_t c = 0;
    while (c < n && l[c] != ':')
        c++;
    if (c == n || c == 0)
        return 0;
    size_t vs = c + 1;
    if (vs < n && (l[vs] == ':' || l[vs] == '<'))
        return 0; /* base64 or URL value: never a counter */
    while (vs < n && l[vs] == ' ')
        vs++;
    const char *val = l + vs;
    size_t vn = n - vs;
    if (attr_is(l, c, "dn")) {
        mon_backend(m, val, vn);
        return 0;
    }
    static const struct {
        const char *name;
        size_t off;
    } fields[] = {
        {"entrycachehits", offsetof(sat_cs_monitor, entry_hits)},
        {"entrycachetries", offsetof(sat_cs_monitor, entry_tries)},
        {"currententrycachesize", offsetof(sat_cs_monitor, entry_cur_bytes)},
        {"maxentrycachesize", offsetof(sat_cs_monitor, entry_max_bytes)},
        {"currententrycachecount", offsetof(sat_cs_monitor, entry_cur_count)},
        {"maxentrycachecount", offsetof(sat_cs_monitor, entry_max_count)},
        {"dncachehits", offsetof(sat_cs_monitor, dn_hits)},
        {"dncachetries", offsetof(sat_cs_monitor, dn_tries)},
        {"currentdncachesize", offsetof(sat_cs_monitor, dn_cur_bytes)},
        {"maxdncachesize", offsetof(sat_cs_monitor, dn_max_bytes)},
        {"currentdncachecount", offsetof(sat_cs_monitor, dn_cur_count)},
        {"maxdncachecount", offsetof(sat_cs_monitor, dn_max_count)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (attr_is(l, c, fields[i].name)) {
            int64_t x;
            if (!parse_i64(val, vn, &x))
                return 0;
            memcpy((char *)m + fields[i].off, &x, sizeof x);
            return 1;
        }
    }
    return 0;
}

size_t sat_cs_monitor_parse(const char *buf, size_t len, sat_cs_monitor *out, size_t cap)
{
    if (!buf || !out)
        return 0;
    size_t found = 0;
    sat_cs_monitor cur;
    mon_reset(&cur);
    int any = 0;
    char line[512];
    size_t ln = 0;
    int have_line = 0;
    size_t i = 0;
    while (i <= len) {
        size_t e = i;
        while (e < len && buf[e] != '\n')
            e++;
        size_t n = e - i;
        const char *l = buf + i;
        if (n && l[n - 1] == '\r')
            n--;
        if (n && l[0] == ' ' && have_line) { /* folded: continues the previous line */
            for (size_t k = 1; k < n && ln < sizeof line; k++)
                line[ln++] = l[k];
        } else {
            if (have_line)
                any |= mon_line(&cur, line, ln);
            have_line = 0;
            ln = 0;
            if (n == 0) { /* end of an entry */
                if (any && found < cap)
                    out[found++] = cur;
                mon_reset(&cur);
                any = 0;
            } else {
                for (size_t k = 0; k < n && ln < sizeof line; k++)
                    line[ln++] = l[k];
                have_line = 1;
            }
        }
        if (e >= len)
            break;
        i = e + 1;
    }
    if (have_line)
        any |= mon_line(&cur, line, ln);
    if (any && found < cap)
        out[found++] = cur;
    return found;
}
