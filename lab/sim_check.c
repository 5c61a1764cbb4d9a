/*
 * sim_check.c - `satlab --check DIR`: the self-checks of a lab incident. The
 * logs the run wrote (access, slapd-stats.log) are re-read and their lines
 * counted - connections, TLS lines, requests per type, RESULTs (err=0 and
 * err=51), ABANDONs, UNBINDs, closes per code - against truth.json's counts;
 * the mean etime of the access log's err=0 RESULTs against the run's; and
 * Little's law on the run: the time-averaged number of jobs in the server
 * against arrival rate x mean time in it, within 3 %; and the same on the
 * access log alone (request and RESULT lines paired by conn and op: the
 * lines' own timestamps against their etimes); the capture's ClientHellos
 * against the LDAPS connections and its ServerHellos against the TLS lines.
 */
#define _GNU_SOURCE /* memmem */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (size_t r; b && (r = fread(b + n, 1, cap - n - 1, f)) > 0;) {
        n += r;
        if (cap - n < 2) {
            char *nb = realloc(b, cap * 2);
            if (!nb) { free(b); b = NULL; break; }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (b)
        b[n] = 0;
    return b;
}

static double jnum(const char *js, const char *key)
{
    char pat[80];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(js, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

/* The end of the line at p: its newline, or the end of the text. */
static const char *line_end(const char *p)
{
    const char *e = strchr(p, '\n');
    return e ? e : p + strlen(p);
}

/* needle within the line [p, e), NULL if not there: searched in the line
 * only (a search of the whole rest of a 20 MB log per line is quadratic, and
 * a sanitizer's strstr measures the rest of the text at every call) */
static const char *in_line(const char *p, const char *e, const char *needle)
{
    return memmem(p, (size_t)(e - p), needle, strlen(needle));
}

/* lines of text holding needle */
static int count_lines(const char *text, const char *needle, const char *unused)
{
    (void)unused;
    int n = 0;
    for (const char *p = text; *p;) {
        const char *e = line_end(p);
        n += in_line(p, e, needle) != NULL;
        if (!*e)
            break;
        p = e + 1;
    }
    return n;
}

/* seconds of "[DD/Mon/YYYY:HH:MM:SS.nnnnnnnnn" (one month at most) */
static double line_ts(const char *p)
{
    if (*p != '[')
        return NAN;
    for (int i = 1; i < 31; i++)
        if (!p[i] || p[i] == '\n')
            return NAN;
    int d = atoi(p + 1), h = atoi(p + 13), m = atoi(p + 16);
    double s = strtod(p + 19, NULL);
    return d * 86400.0 + h * 3600.0 + m * 60.0 + s;
}

/* Little's law on the access log alone: every request line (BIND SRCH MOD
 * ADD) paired with its RESULT by (conn, op); the time-averaged number of
 * operations in the server, from the lines' timestamps, against the rate of
 * results times their mean etime. */
static int littles_log(const char *a, double *L, double *lam, double *W)
{
    size_t cap = 1 << 16, n = (size_t)count_lines(a, " RESULT ", NULL);
    while (cap < 4 * n + 16)
        cap <<= 1;
    uint64_t *key = calloc(cap, sizeof *key);
    double *tq = malloc(cap * sizeof *tq);
    if (!key || !tq) {
        free(key);
        free(tq);
        return -1;
    }
    double first = NAN, last = NAN, area = 0, esum = 0;
    long pairs = 0;
    for (const char *p = a; *p;) {
        const char *e = line_end(p);
        double t = line_ts(p);
        const char *c = in_line(p, e, "] conn=");
        if (!isnan(t) && c) {
            if (isnan(first))
                first = t;
            last = t;
            char *r;
            unsigned long cn = strtoul(c + 7, &r, 10);
            if (strncmp(r, " op=", 4) == 0) {
                long op = strtol(r + 4, &r, 10);
                uint64_t k = ((uint64_t)cn << 20 | (uint64_t)(op & 0xfffff)) + 1;
                size_t h = (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 40) & (cap - 1);
                int req = !strncmp(r, " BIND ", 6) || !strncmp(r, " SRCH ", 6) ||
                          !strncmp(r, " MOD ", 5) || !strncmp(r, " ADD ", 5);
                while (key[h] && key[h] != k)
                    h = (h + 1) & (cap - 1);
                if (req) {
                    key[h] = k;
                    tq[h] = t;
                } else if (!strncmp(r, " RESULT ", 8) && key[h] == k) {
                    const char *et = in_line(r, e, " etime=");
                    if (et) {
                        area += t - tq[h];
                        esum += strtod(et + 7, NULL);
                        pairs++;
                    }
                }
            }
        }
        if (!*e)
            break;
        p = e + 1;
    }
    free(key);
    free(tq);
    double span = last - first;
    if (!(span > 0) || !pairs)
        return -1;
    *L = area / span;
    *lam = (double)pairs / span;
    *W = esum / (double)pairs;
    return 0;
}

/* ClientHellos and ServerHellos in the capture (each segment carries whole
 * records: the first record of a segment is looked at); -1: no readable capture */
static int count_hellos(const char *path, long *ch, long *sh)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t gh[24], ph[16], pkt[2048];
    *ch = *sh = 0;
    if (fread(gh, 1, 24, f) != 24 || gh[0] != 0xd4 || gh[1] != 0xc3) {
        fclose(f);
        return -1;
    }
    while (fread(ph, 1, 16, f) == 16) {
        uint32_t cl = (uint32_t)ph[8] | (uint32_t)ph[9] << 8 | (uint32_t)ph[10] << 16 |
                      (uint32_t)ph[11] << 24;
        if (cl > sizeof pkt || fread(pkt, 1, cl, f) != cl)
            break;
        if (cl > 54 + 5 && pkt[54] == 22 && pkt[55] == 3) {
            if (pkt[59] == 1)
                (*ch)++;
            else if (pkt[59] == 2)
                (*sh)++;
        }
    }
    fclose(f);
    return 0;
}

static int compare(const char *form, const char *what, long got, double want)
{
    int ok = (double)got == want;
    printf("  %-8s %-22s log %8ld  truth %8.0f  %s\n", form, what, got, want, ok ? "ok" : "MISMATCH");
    return ok ? 0 : 1;
}

int truth_check(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/truth.json", dir);
    char *js = slurp(path);
    snprintf(path, sizeof path, "%s/access", dir);
    char *a = slurp(path);
    snprintf(path, sizeof path, "%s/slapd-stats.log", dir);
    char *o = slurp(path);
    if (!js || !a || !o) {
        fprintf(stderr, "satlab: --check: %s needs truth.json, access and slapd-stats.log\n", dir);
        free(js); free(a); free(o);
        return 2;
    }
    int bad = 0;
    printf("self-check of %s\n", dir);
    bad += compare("389", "connections", count_lines(a, "connection from", NULL), jnum(js, "connections"));
    bad += compare("389", "ldaps", count_lines(a, "SSL connection from", NULL), jnum(js, "ldaps"));
    bad += compare("389", "tls lines", count_lines(a, " TLS1.2 ", NULL), jnum(js, "tls_lines"));
    bad += compare("389", "BIND", count_lines(a, " BIND dn=", NULL), jnum(js, "bind"));
    bad += compare("389", "SRCH", count_lines(a, " SRCH base=", NULL), jnum(js, "srch"));
    bad += compare("389", "notes=A results", count_lines(a, " notes=A ", NULL),
                   jnum(js, "results_unindexed"));
    bad += compare("389", "MOD", count_lines(a, " MOD dn=", NULL), jnum(js, "mod"));
    bad += compare("389", "ADD", count_lines(a, " ADD dn=", NULL), jnum(js, "add"));
    bad += compare("389", "UNBIND", count_lines(a, " UNBIND", NULL), jnum(js, "unbind"));
    bad += compare("389", "ABANDON", count_lines(a, " ABANDON ", NULL), jnum(js, "abandon"));
    bad += compare("389", "RESULT", count_lines(a, " RESULT ", NULL), jnum(js, "results"));
    bad += compare("389", "RESULT err=0", count_lines(a, " RESULT err=0 ", NULL), jnum(js, "results_err0"));
    bad += compare("389", "RESULT err=51", count_lines(a, " RESULT err=51 ", NULL), jnum(js, "results_err51"));
    bad += compare("389", "close U1", count_lines(a, " - U1", NULL), jnum(js, "close_U1"));
    bad += compare("389", "close B1", count_lines(a, " - B1", NULL), jnum(js, "close_B1"));
    bad += compare("389", "close A1", count_lines(a, " - A1", NULL), jnum(js, "close_A1"));
    bad += compare("openldap", "connections", count_lines(o, " ACCEPT from ", NULL), jnum(js, "connections"));
    bad += compare("openldap", "tls lines", count_lines(o, " TLS established ", NULL), jnum(js, "tls_lines"));
    bad += compare("openldap", "BIND", count_lines(o, " method=128", NULL), jnum(js, "bind"));
    bad += compare("openldap", "SRCH", count_lines(o, " SRCH base=", NULL), jnum(js, "srch"));
    bad += compare("openldap", "MOD", count_lines(o, " MOD dn=", NULL), jnum(js, "mod"));
    bad += compare("openldap", "ADD", count_lines(o, " ADD dn=", NULL), jnum(js, "add"));
    bad += compare("openldap", "UNBIND", count_lines(o, " UNBIND", NULL), jnum(js, "unbind"));
    bad += compare("openldap", "ABANDON", count_lines(o, " ABANDON msg=", NULL), jnum(js, "abandon"));
    bad += compare("openldap", "RESULT", count_lines(o, "RESULT tag=", NULL), jnum(js, "results"));
    bad += compare("openldap", "closed", count_lines(o, " closed", NULL),
                   jnum(js, "close_U1") + jnum(js, "close_B1") + jnum(js, "close_A1"));
    long ch, sh;
    snprintf(path, sizeof path, "%s/handshakes.pcap", dir);
    if (count_hellos(path, &ch, &sh) == 0) {
        bad += compare("pcap", "ClientHello", ch, jnum(js, "ldaps"));
        bad += compare("pcap", "ServerHello", sh, jnum(js, "tls_lines"));
    }
    /* the mean etime of the access log's successful operations */
    double sum = 0;
    long n = 0;
    for (const char *p = a; *p;) {
        const char *e = line_end(p), *r = in_line(p, e, " RESULT err=0 ");
        const char *et = r ? in_line(r, e, " etime=") : NULL;
        if (et) {
            sum += strtod(et + 7, NULL);
            n++;
        }
        if (!*e)
            break;
        p = e + 1;
    }
    double want = jnum(js, "mean_etime_err0_s"), got = n ? sum / (double)n : 0;
    int ok = fabs(got - want) <= 1e-6 + 1e-6 * want;
    printf("  %-8s %-22s log %.9f  truth %.9f  %s\n", "389", "mean etime (err=0)", got, want,
           ok ? "ok" : "MISMATCH");
    bad += !ok;
    double L = jnum(js, "littles_L"), lam = jnum(js, "littles_lambda"), W = jnum(js, "littles_W");
    ok = L > 0 && fabs(L - lam * W) <= 0.03 * L;
    printf("  %-8s %-22s L %.4f  lambda x W %.4f x %.6f = %.4f  %s\n", "sim", "Little's law", L,
           lam, W, lam * W, ok ? "ok" : "MISMATCH");
    bad += !ok;
    ok = littles_log(a, &L, &lam, &W) == 0 && fabs(L - lam * W) <= 0.03 * L;
    printf("  %-8s %-22s L %.4f  lambda x W %.4f x %.6f = %.4f  %s\n", "389", "Little's law (log)", L,
           lam, W, lam * W, ok ? "ok" : "MISMATCH");
    bad += !ok;
    free(js);
    free(a);
    free(o);
    printf("%s\n", bad ? "self-check FAILED" : "self-check passed");
    return bad ? 1 : 0;
}
