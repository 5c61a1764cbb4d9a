/*
 * rotation.c - which inputs are one server's rotated set. logrotate, 389's own
 * rotation and cron jobs name the files of one log in many ways:
 *   access  access.1  access.2.gz            (logrotate, numbered)
 *   access.20250608-071914                   (389-ds nsslapd-accesslog rotation)
 *   access-20250608.gz  access.log-20250608  (logrotate dateext)
 *   access.log.1  access.log.2025-06-08.xz
 * They all reduce to "<dir>/access": compression suffixes, then numeric or
 * date suffixes after '.', '-' or '_', then a ".log" extension are stripped
 * until nothing changes. The order within a set is decided by content time
 * (collect_sets.c), never by these names.
 */
#include "collect_internal.h"

static const char *const comp_suffixes[] = {".gz", ".bz2", ".xz", ".zst", ".zstd",
                                            ".lzma", ".bz", ".Z", NULL};

static int ends_with(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n > k && memcmp(s + n - k, suf, k) == 0;
}

/* Length of base after stripping one trailing [.-_]<digits, '-', '_', ':'>
 * run that holds at least one digit; n when there is none. */
static size_t strip_numeric(const char *b, size_t n)
{
    size_t i = n, digits = 0;
    while (i > 0) {
        char c = b[i - 1];
        if (c >= '0' && c <= '9') {
            digits++;
            i--;
        } else if (c == '.' || c == '-' || c == '_') {
            /* a separator: strip up to here if what follows is numeric and
             * something remains before it */
            if (digits && i > 1) {
                size_t j = i - 1;
                /* keep going across a date/time made of several numeric
                 * runs ("20250608-071914", "2025-06-08") */
                if (j > 0 && b[j - 1] >= '0' && b[j - 1] <= '9') {
                    i--;
                    continue;
                }
                return j;
            }
            return n;
        } else {
            return n;
        }
    }
    return n;
}

char *sat_collect_group_key(const char *path)
{
    if (strcmp(path, "-") == 0)
        return strdup("-");
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dlen = (size_t)(base - path);
    size_t n = strlen(base);
    for (int changed = 1; changed;) {
        changed = 0;
        for (const char *const *s = comp_suffixes; *s; s++) {
            if (ends_with(base, n, *s)) {
                n -= strlen(*s);
                changed = 1;
            }
        }
        size_t m = strip_numeric(base, n);
        if (m < n) {
            n = m;
            changed = 1;
        }
        if (ends_with(base, n, ".log")) {
            n -= 4;
            changed = 1;
        }
    }
    char *key = malloc(dlen + n + 1);
    if (!key)
        return NULL;
    memcpy(key, path, dlen);
    memcpy(key + dlen, base, n);
    key[dlen + n] = '\0';
    return key;
}

int sat_collect_skip_name(const char *base)
{
    size_t n = strlen(base);
    return ends_with(base, n, ".rotationinfo");
}

/* The files 389 DS writes beside its access log (in /var/log/dirsrv/slapd-X/)
 * that are no access log, by the name of their rotated set. */
static const struct {
    const char *set; /* the set's name; NULL: any name with the suffix below */
    const char *why;
} companions[] = {
    {"errors", "389's error log, not an access log"},
    {"audit", "389's audit log of changes, not an access log"},
    {"auditfail", "389's audit log of failed changes, not an access log"},
    {"security", "389's security log, not an access log"},
};

const char *sat_collect_companion(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (sat_collect_skip_name(base))
        return "389's rotation bookkeeping, not a log";
    char *key = sat_collect_group_key(path);
    if (!key)
        return NULL;
    const char *ks = strrchr(key, '/');
    ks = ks ? ks + 1 : key;
    const char *why = NULL;
    for (size_t i = 0; i < sizeof companions / sizeof companions[0] && !why; i++)
        if (!strcmp(ks, companions[i].set))
            why = companions[i].why;
    free(key);
    return why;
}

int sat_collect_rotation_index(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(base);
    for (int changed = 1; changed;) {
        changed = 0;
        for (const char *const *s = comp_suffixes; *s; s++) {
            if (ends_with(base, n, *s)) {
                n -= strlen(*s);
                changed = 1;
            }
        }
    }
    size_t i = n;
    while (i > 0 && base[i - 1] >= '0' && base[i - 1] <= '9')
        i--;
    /* ".N" with a short N: a date ("-20250608") or a time is not an index */
    if (i == n || n - i > 4 || i < 2 || base[i - 1] != '.')
        return 0;
    int v = 0;
    for (size_t k = i; k < n; k++)
        v = v * 10 + (base[k] - '0');
    return v;
}
