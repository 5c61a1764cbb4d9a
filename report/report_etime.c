/*
 * report_etime.c - renders the etime analyzer's view (analyze.h) as text,
 * JSON or CSV (issue 2, "The etime analyzer and the first reports").
 *
 * Text: a header line (inputs, span, ops, rejects) then aligned tables in
 * the order an operator reads them during an incident: where the time went,
 * connections, codes, unindexed searches, binds, tops, the minute series.
 * JSON: the keys ("rejects", "span", "ops" or "groups", "all",
 * "connections", "errors", "notes") plus the other sections under their own
 * keys; seconds in keys ending _s, null where there is no value. CSV: the
 * grouped rows only (RFC 4180 quoting), a header line then one line per row.
 * Everything is sorted with tie-breaks and formatted with fixed decimals so
 * outputs are byte-for-byte reproducible (golden tests).
 */
#include <math.h>

#include "report_internal.h"
#include "satscope/report.h"
#include "text_table.h"

#define DUR_DECIMALS 9  /* JSON seconds: nanosecond resolution */
#define TXT_DECIMALS 6  /* text seconds: microseconds */
#define TXT_MINUTES_FULL 120

/* ---- names ------------------------------------------------------------------------- */

/* LDAP result codes (RFC 4511 section 4.1.9 and appendix A, plus the
 * registered extensions seen in the wild: RFC 3909 cancel, RFC 4528
 * assertion, RFC 4370/4533). */
static const char *ldap_result_name(int32_t code)
{
    switch (code) {
    case 0: return "success";
    case 1: return "operationsError";
    case 2: return "protocolError";
    case 3: return "timeLimitExceeded";
    case 4: return "sizeLimitExceeded";
    case 5: return "compareFalse";
    case 6: return "compareTrue";
    case 7: return "authMethodNotSupported";
    case 8: return "strongerAuthRequired";
    case 10: return "referral";
    case 11: return "adminLimitExceeded";
    case 12: return "unavailableCriticalExtension";
    case 13: return "confidentialityRequired";
    case 14: return "saslBindInProgress";
    case 16: return "noSuchAttribute";
    case 17: return "undefinedAttributeType";
    case 18: return "inappropriateMatching";
    case 19: return "constraintViolation";
    case 20: return "attributeOrValueExists";
    case 21: return "invalidAttributeSyntax";
    case 32: return "noSuchObject";
    case 33: return "aliasProblem";
    case 34: return "invalidDNSyntax";
    case 36: return "aliasDereferencingProblem";
    case 48: return "inappropriateAuthentication";
    case 49: return "invalidCredentials";
    case 50: return "insufficientAccessRights";
    case 51: return "busy";
    case 52: return "unavailable";
    case 53: return "unwillingToPerform";
    case 54: return "loopDetect";
    case 60: return "sortControlMissing (VLV)";
    case 61: return "offsetRangeError (VLV)";
    case 64: return "namingViolation";
    case 65: return "objectClassViolation";
    case 66: return "notAllowedOnNonLeaf";
    case 67: return "notAllowedOnRDN";
    case 68: return "entryAlreadyExists";
    case 69: return "objectClassModsProhibited";
    case 71: return "affectsMultipleDSAs";
    case 76: return "virtualListViewError";
    case 80: return "other";
    case 81: return "serverDown (client side)";
    case 85: return "timeout (client side)";
    case 118: return "canceled";
    case 119: return "noSuchOperation";
    case 120: return "tooLate";
    case 121: return "cannotCancel";
    case 122: return "assertionFailed";
    case 123: return "authorizationDenied";
    case 4096: return "e-syncRefreshRequired";
    default: return "";
    }
}

/* 389-ds ldap/servers/slapd/disconnect_error_strings.h */
static const char *close_code_meaning(int c)
{
    switch (c) {
    case SAT_CLOSE_A1: return "client aborted the connection";
    case SAT_CLOSE_B1: return "bad BER tag (often a client closing uncleanly)";
    case SAT_CLOSE_B2: return "BER element too big (nsslapd-maxbersize)";
    case SAT_CLOSE_B3: return "BER peek failed";
    case SAT_CLOSE_B4: return "server failed to flush a response to the client";
    case SAT_CLOSE_P1: return "closed by a plugin";
    case SAT_CLOSE_P2: return "poll error";
    case SAT_CLOSE_P3: return "invalid proxy protocol header";
    case SAT_CLOSE_P4: return "unknown proxy protocol";
    case SAT_CLOSE_R1: return "revents error";
    case SAT_CLOSE_S1: return "SASL failure";
    case SAT_CLOSE_T1: return "idle timeout (nsslapd-idletimeout)";
    case SAT_CLOSE_T2: return "I/O block timeout (nsslapd-ioblocktimeout)";
    case SAT_CLOSE_T3: return "paged search time limit";
    case SAT_CLOSE_U1: return "cleanly closed (unbind / client close)";
    case SAT_CLOSE_OTHER: return "closed, no or unknown code";
    case SAT_CLOSE_LOST: return "OpenLDAP: connection lost (gone without an UNBIND, or a read failed)";
    case SAT_CLOSE_LOST_WRITE: return "OpenLDAP: connection lost on write (an answer could not be sent)";
    default: return "";
    }
}

static const char *note_meaning(int bit)
{
    static const char *const m[7] = {
        "unindexed search (all IDs / over the ID list scan limit)",
        "unindexed component in the filter",
        "invalid attribute filter (attribute not in the schema)",
        "paged search",
        "multi-factor authentication",
        "virtual attribute in the filter",
        "partially unindexed (bad) component"};
    return bit >= 0 && bit < 7 ? m[bit] : "";
}

static void notes_str(uint16_t notes, char *buf)
{
    size_t o = 0;
    for (int b = 0; b < 7; b++)
        if (notes & (1u << b)) {
            if (o)
                buf[o++] = ',';
            buf[o++] = SAT_NOTE_LETTERS[b];
        }
    buf[o] = '\0';
}

static void fmt_duration(char *buf, size_t n, double s)
{
    if (!(s >= 0)) {
        snprintf(buf, n, "0s");
        return;
    }
    uint64_t whole = (uint64_t)s;
    double frac = s - (double)whole;
    uint64_t d = whole / 86400, h = whole % 86400 / 3600, m = whole % 3600 / 60,
             sec = whole % 60;
    char fs[32];
    sat_report_fmt_num(fs, sizeof fs, (double)sec + frac, 3);
    if (d)
        snprintf(buf, n, "%llud %lluh %llum %ss", (unsigned long long)d,
                 (unsigned long long)h, (unsigned long long)m, fs);
    else if (h)
        snprintf(buf, n, "%lluh %llum %ss", (unsigned long long)h, (unsigned long long)m, fs);
    else if (m)
        snprintf(buf, n, "%llum %ss", (unsigned long long)m, fs);
    else
        snprintf(buf, n, "%ss", fs);
}


/* small formatting helpers with their own rotating buffers */
#define NBUF 64
typedef struct fbufs {
    char b[NBUF][96];
    int i;
    char n[24][512]; /* notes: why a figure is not logged */
    int j;
} fbufs;

static const char *fu(fbufs *f, uint64_t v)
{
    char *b = f->b[f->i++ % NBUF];
    snprintf(b, 96, "%llu", (unsigned long long)v);
    return b;
}

static const char *fs_(fbufs *f, double v, int dec)
{
    char *b = f->b[f->i++ % NBUF];
    if (!isfinite(v))
        snprintf(b, 96, "-");
    else
        snprintf(b, 96, "%.*f", dec, v);
    return b;
}

static const char *fpct(fbufs *f, double share)
{
    char *b = f->b[f->i++ % NBUF];
    if (!isfinite(share))
        snprintf(b, 96, "-");
    else
        snprintf(b, 96, "%.1f%%", share * 100.0);
    return b;
}

static const char *frate(fbufs *f, uint64_t n, double span)
{
    char *b = f->b[f->i++ % NBUF];
    if (span > 0)
        snprintf(b, 96, "(%.2f/s, %.2f/min)", (double)n / span, (double)n / span * 60.0);
    else
        snprintf(b, 96, "(span 0: no rate)");
    return b;
}

/* ---- figures the inputs cannot hold (include/satscope/fields.h) -----------------------
 * A figure counted from a field that no input can carry is "not logged", with
 * the reason in its note; when only some inputs can, the number stands and
 * the note says it is partial. One rule for every such figure: fcnt() for the
 * value, fnote() for the note, json_cnt() for JSON (null). */
static int fknown(const sat_etime_view *v, int field)
{
    return (v->fields_known & SAT_FIELD_BIT(field)) != 0;
}

static const char *fcnt(fbufs *f, const sat_etime_view *v, int field, uint64_t n)
{
    return fknown(v, field) ? fu(f, n) : "not logged";
}

static const char *fnote(fbufs *f, const sat_etime_view *v, int field, const char *usual)
{
    const char *why = v->fields_why[field] ? v->fields_why[field] : "the inputs do not log it";
    if (!v->fields_without[field])
        return usual;
    char *b = f->n[f->j++ % 24];
    if (!fknown(v, field))
        snprintf(b, 512, "(%s)", why);
    else
        snprintf(b, 512, "%s%s(partial: %u of %u inputs cannot log it: %s)", usual,
                 *usual ? " " : "", v->fields_without[field], v->fields_inputs, why);
    return b;
}

/* the first of two fields that is not known, else the first partial one */
static int fworst(const sat_etime_view *v, int a, int b)
{
    if (!fknown(v, a))
        return a;
    if (!fknown(v, b))
        return b;
    return v->fields_without[a] ? a : b;
}

static void row_cells(fbufs *f, const sat_etime_row *r, const char **v)
{
    v[0] = r->key;
    v[1] = fu(f, r->count);
    v[2] = fs_(f, r->rate, 2);
    v[3] = fs_(f, r->mean_s, TXT_DECIMALS);
    v[4] = fs_(f, r->p50_s, TXT_DECIMALS);
    v[5] = fs_(f, r->p90_s, TXT_DECIMALS);
    v[6] = fs_(f, r->p99_s, TXT_DECIMALS);
    v[7] = fs_(f, r->p999_s, TXT_DECIMALS);
    v[8] = fs_(f, r->max_s, TXT_DECIMALS);
    v[9] = fs_(f, r->total_s, 3);
    v[10] = fpct(f, r->share);
    v[11] = fs_(f, r->wtime_mean_s, TXT_DECIMALS);
    v[12] = fs_(f, r->optime_mean_s, TXT_DECIMALS);
    v[13] = fu(f, r->errors);
}

static const char *const row_header[14] = {
    "", "count", "rate/s", "mean", "p50", "p90", "p99", "p99.9",
    "max", "total", "share", "wtime", "optime", "errors"};

static void print_kv(FILE *out, fbufs *f, const char *title, const sat_etime_kvlist *l,
                     const char *keyname)
{
    fprintf(out, "\n%s", title);
    if (l->unique > l->n)
        fprintf(out, " (top %zu of %llu)", l->n, (unsigned long long)l->unique);
    fputc('\n', out);
    if (!l->n) {
        fputs("  none\n", out);
        return;
    }
    tbl t;
    sat_tbl_init(&t, "rrl");
    const char *h[3] = {"count", "etime total", keyname};
    sat_tbl_row(&t, h);
    for (size_t i = 0; i < l->n; i++) {
        const char *v[3] = {fu(f, l->rows[i].count), fs_(f, l->rows[i].total_s, 3),
                            l->rows[i].key};
        sat_tbl_row(&t, v);
    }
    sat_tbl_print(&t, out, "  ");
    if (l->folded)
        fprintf(out, "  (about %llu more distinct keys past the table cap were counted as \"(other)\")\n",
                (unsigned long long)l->folded);
}

static int render_text(const sat_etime_view *v, FILE *out)
{
    fbufs f;
    memset(&f, 0, sizeof f);
    char a[48], b[48], dur[64];
    uint64_t lines = 0;
    for (size_t i = 0; i < v->nsources; i++)
        lines += v->sources[i].lines;
    fmt_duration(dur, sizeof dur, v->span_s);
    fprintf(out, "satscope etime: %zu input%s, %llu lines, ", v->nsources,
            v->nsources == 1 ? "" : "s", (unsigned long long)lines);
    if (v->first_ts) {
        sat_report_fmt_ts(a, sizeof a, v->first_ts);
        sat_report_fmt_ts(b, sizeof b, v->last_ts);
        fprintf(out, "span %s .. %s (%s), ", a, b, dur);
    } else {
        fputs("no timestamps, ", out);
    }
    fprintf(out, "%llu operations, %llu rejected lines\n", (unsigned long long)v->ops,
            (unsigned long long)v->rejects);

    if (v->nsources) {
        fputs("\nInputs\n", out);
        tbl t;
        sat_tbl_init(&t, "llrrl");
        const char *h[5] = {"format", "compression", "lines", "rejected", "path"};
        sat_tbl_row(&t, h);
        for (size_t i = 0; i < v->nsources; i++) {
            const sat_etime_source_info *s = &v->sources[i];
            const char *r[5] = {s->format, s->compression, fu(&f, s->lines),
                                fu(&f, s->rejects),
                                s->path};
            sat_tbl_row(&t, r);
            if (s->truncated)
                fprintf(out, "  warning: %s ended early (truncated or unreadable)\n", s->path);
        }
        sat_tbl_print(&t, out, "  ");
    }
    if (v->rejects) {
        fprintf(out, "\nRejected lines: %llu", (unsigned long long)v->rejects);
        if (v->nreject_samples)
            fprintf(out, " (the first %zu shown)", v->nreject_samples);
        fputc('\n', out);
        for (size_t i = 0; i < v->nreject_samples; i++) {
            const sat_etime_reject_info *r = &v->reject_samples[i];
            fprintf(out, "  %s:%llu: %s", r->path, (unsigned long long)r->line_no, r->reason);
            if (r->excerpt && *r->excerpt) {
                fputs(": ", out);
                for (const char *p = r->excerpt; *p; p++)
                    fputc(((unsigned char)*p < 0x20 || *p == 0x7f) ? '?' : *p, out);
            }
            fputc('\n', out);
        }
    }

    /* where the time went */
    fputs("\nWhere the time went, by operation type (etime, wtime, optime in seconds)\n", out);
    {
        tbl t;
        sat_tbl_init(&t, "lrrrrrrrrrrrrr");
        const char *h[14];
        memcpy(h, row_header, sizeof h);
        h[0] = "op";
        sat_tbl_row(&t, h);
        for (size_t i = 0; i < v->nops_rows; i++) {
            const char *c[14];
            row_cells(&f, &v->ops_rows[i], c);
            sat_tbl_row(&t, c);
        }
        const char *c[14];
        row_cells(&f, &v->all, c);
        sat_tbl_row(&t, c);
        sat_tbl_print(&t, out, "  ");
        fputs("  (\"all\": every operation with a RESULT. UNBIND, AUTOBIND and unfinished\n"
              "   operations have no RESULT: counted, no timings. share = the group's total\n"
              "   etime / all's total etime)\n",
              out);
    }
    if (v->by != SAT_ETIME_BY_NONE && v->by != SAT_ETIME_BY_INTERNAL) {
        size_t show = v->ngroups;
        if (v->by != SAT_ETIME_BY_MINUTE && show > v->top)
            show = v->top;
        fprintf(out, "\nWhere the time went, by %s", sat_etime_by_name(v->by));
        if (v->by == SAT_ETIME_BY_MINUTE && v->minutes_width_min > 1)
            fprintf(out, " (buckets of %u minutes: a long span)", v->minutes_width_min);
        if (show < v->ngroups)
            fprintf(out, " (top %zu of %zu groups by total etime; --json or --csv for all)",
                    show, v->ngroups);
        fputc('\n', out);
        tbl t;
        sat_tbl_init(&t, "rrrrrrrrrrrrrl");
        const char *h[14];
        memcpy(h, row_header + 1, 13 * sizeof *h);
        h[13] = sat_etime_by_name(v->by);
        sat_tbl_row(&t, h);
        for (size_t i = 0; i < show; i++) {
            const char *c[14];
            row_cells(&f, &v->groups[i], c);
            const char *r[14];
            memcpy(r, c + 1, 13 * sizeof *r);
            r[13] = c[0];
            sat_tbl_row(&t, r);
        }
        sat_tbl_print(&t, out, "  ");
        if (v->groups_folded_keys)
            fprintf(out, "  (about %llu keys past the key cap are folded into \"(other)\")\n",
                    (unsigned long long)v->groups_folded_keys);
    }

    sat_report_internal_text(v, out);

    /* operations */
    fputs("\nOperations\n", out);
    {
        tbl t;
        sat_tbl_init(&t, "lrl");
        struct {
            const char *k;
            uint64_t n;
            int field1; /* the fields.h field it is counted from plus 1; 0: none */
        } rows[] = {{"Total operations:", v->ops},
                    {"Total results (RESULTs and abandons):", v->more.answered},
                    {"With a RESULT:", v->results},
                    {"Unfinished (no RESULT by the end):", v->unfinished},
                    {"RESULT without its request:", v->no_request},
                    {"Internal operations (not in the tables):", v->internal_ops},
                    {"Persistent searches:", v->persistent},
                    {"Paged searches:", v->paged, SAT_FIELD_CONTROLS + 1},
                    {"Entire search base queries:", v->whole_base_searches},
                    {"Proxied authorization operations:", v->more.proxied},
                    {"VLV operations:", v->more.vlv, SAT_FIELD_CONTROLS + 1},
                    {" - VLV unindexed searches (notes=A):", v->more.vlv_unindexed,
                     fworst(v, SAT_FIELD_CONTROLS, SAT_FIELD_NOTES) + 1},
                    {" - VLV unindexed components (notes=U):", v->more.vlv_unindexed_components,
                     fworst(v, SAT_FIELD_CONTROLS, SAT_FIELD_NOTES) + 1},
                    {"SORT operations:", v->more.sort, SAT_FIELD_CONTROLS + 1},
                    {"Entries returned:", v->entries},
                    {"Entry operations (ENTRY lines):", v->more.entry_lines},
                    {"Smart referrals (REFERRAL lines):", v->more.referral_lines},
                    {"Extended operations:", v->ext_ops},
                    {"Abandon requests:", v->abandons},
                    {"Unbinds:", v->unbinds},
                    {"Server restarts:", v->restarts}};
        const char *notes_col[sizeof rows / sizeof rows[0]] = {0};
        notes_col[1] = "(an ABANDON is never answered)";
        notes_col[8] = "(subtree, filter (objectclass=*) or (objectclass=top))";
        if (v->internal_ops)
            notes_col[5] = "(see Internal operations above)";
        /* what was taken for a restart (parse/ldap_join.c): disorder of
         * connection numbers never is */
        char why[160];
        if (v->restarts) {
            uint64_t rest = v->restarts - v->restarts_start_line - v->restarts_number;
            snprintf(why, sizeof why,
                     "(taken for one: the server's start line %llu, connection numbers "
                     "starting again %llu%s",
                     (unsigned long long)v->restarts_start_line,
                     (unsigned long long)v->restarts_number, rest ? ", " : ")");
            if (rest)
                snprintf(why + strlen(why), sizeof why - strlen(why),
                         "not said %llu)", (unsigned long long)rest);
            notes_col[sizeof rows / sizeof rows[0] - 1] = why;
        }
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            int fl = rows[i].field1 - 1;
            const char *usual = notes_col[i] ? notes_col[i] : "";
            const char *r[3] = {rows[i].k, fl >= 0 ? fcnt(&f, v, fl, rows[i].n) : fu(&f, rows[i].n),
                                fl >= 0 ? fnote(&f, v, fl, usual) : usual};
            sat_tbl_row(&t, r);
            if (i == 1) {
                /* answered / expecting an answer: every operation but
                 * UNBIND and AUTOBIND (analyze/etime.c count_more) */
                char pc[32];
                if (v->more.expect_result)
                    snprintf(pc, sizeof pc, "%.1f%%",
                             100.0 * (double)v->more.answered / (double)v->more.expect_result);
                else
                    snprintf(pc, sizeof pc, "-");
                const char *rp[3] = {"Overall performance:", pc,
                                     "(answered / operations expecting an answer)"};
                sat_tbl_row(&t, rp);
            }
        }
        /* logconv.pl's per-type lines; Binds as in the Binds section */
        static const struct {
            const char *k;
            int type;
        } bytype[] = {{"Searches:", SAT_OP_SRCH},       {"Modifications:", SAT_OP_MOD},
                      {"Adds:", SAT_OP_ADD},            {"Deletes:", SAT_OP_DEL},
                      {"Mod RDNs:", SAT_OP_MODRDN},     {"Compares:", SAT_OP_CMP},
                      {"Binds:", SAT_OP_BIND}};
        for (size_t i = 0; i < sizeof bytype / sizeof bytype[0]; i++) {
            uint64_t n = 0;
            if (bytype[i].type == SAT_OP_BIND) {
                n = v->binds;
            } else {
                const char *name = sat_optype_name(bytype[i].type);
                for (size_t k = 0; k < v->nops_rows; k++)
                    if (strcmp(v->ops_rows[k].key, name) == 0)
                        n = v->ops_rows[k].count;
            }
            const char *r[3] = {bytype[i].k, fu(&f, n), frate(&f, n, v->span_s)};
            sat_tbl_row(&t, r);
        }
        const char *r1[3] = {"Average etime:",
                             fknown(v, SAT_FIELD_ETIME) ? fs_(&f, v->all.mean_s, DUR_DECIMALS) : "not logged",
                             fnote(&f, v, SAT_FIELD_ETIME, "s")};
        const char *r2[3] = {"Average wtime (queue wait):",
                             fknown(v, SAT_FIELD_WTIME) ? fs_(&f, v->all.wtime_mean_s, DUR_DECIMALS) : "not logged",
                             fnote(&f, v, SAT_FIELD_WTIME, "s")};
        const char *r3[3] = {"Average optime (service):",
                             fknown(v, SAT_FIELD_WTIME) ? fs_(&f, v->all.optime_mean_s, DUR_DECIMALS) : "not logged",
                             fnote(&f, v, SAT_FIELD_WTIME, "s")};
        sat_tbl_row(&t, r1);
        sat_tbl_row(&t, r2);
        sat_tbl_row(&t, r3);
        sat_tbl_print(&t, out, "  ");
    }

    /* connections */
    fputs("\nConnections\n", out);
    {
        tbl t;
        sat_tbl_init(&t, "lrl");
        const char *r[3] = {"Total connections:", fu(&f, v->conns), frate(&f, v->conns, v->span_s)};
        sat_tbl_row(&t, r);
        const char *ro[3] = {" - opened in the input:", fu(&f, v->conns - v->conns_no_open), ""};
        const char *rn[3] = {" - already open at its start:", fu(&f, v->conns_no_open),
                             "(no open line: open from the start for the peak)"};
        sat_tbl_row(&t, ro);
        sat_tbl_row(&t, rn);
        for (int l = SAT_LISTENER_LDAP; l < SAT_LISTENER__COUNT; l++) {
            char k[48];
            snprintf(k, sizeof k, " - on %s:", sat_listener_name(l));
            const char *rr[3] = {k, fu(&f, v->by_listener[l]), frate(&f, v->by_listener[l], v->span_s)};
            sat_tbl_row(&t, rr);
        }
        if (v->by_listener[SAT_LISTENER_UNKNOWN]) {
            const char *rr[3] = {" - listener unknown:", fu(&f, v->by_listener[0]), ""};
            sat_tbl_row(&t, rr);
        }
        char at[64] = "";
        if (v->peak_concurrent) {
            char ts[48];
            sat_report_fmt_ts(ts, sizeof ts, v->peak_at);
            snprintf(at, sizeof at, "at %s", ts);
        }
        const char *p[3] = {"Peak concurrent connections:", fu(&f, v->peak_concurrent), at};
        sat_tbl_row(&t, p);
        const char *p3[3] = {"Still open at the end:", fu(&f, v->conns_unclosed),
                             "(never closed: open to the end for the peak)"};
        sat_tbl_row(&t, p3);
        const char *q1[3] = {"FDs taken:", fcnt(&f, v, SAT_FIELD_FD, v->fds_taken),
                             fnote(&f, v, SAT_FIELD_FD, "")};
        const char *q2[3] = {"FDs returned:", fcnt(&f, v, SAT_FIELD_FD, v->fds_returned),
                             fnote(&f, v, SAT_FIELD_FD, "")};
        char hf[32];
        if (!fknown(v, SAT_FIELD_FD))
            snprintf(hf, sizeof hf, "not logged");
        else if (v->highest_fd >= 0)
            snprintf(hf, sizeof hf, "%lld", (long long)v->highest_fd);
        else
            snprintf(hf, sizeof hf, "-");
        const char *q3[3] = {"Highest FD taken:", hf, fnote(&f, v, SAT_FIELD_FD, "")};
        const char *q4[3] = {"Broken pipes:", fcnt(&f, v, SAT_FIELD_CLOSE_ERRNO, v->broken_pipe),
                             fnote(&f, v, SAT_FIELD_CLOSE_ERRNO, "")};
        const char *q5[3] = {"Connections reset by peer:",
                             fcnt(&f, v, SAT_FIELD_CLOSE_ERRNO, v->reset_by_peer),
                             fnote(&f, v, SAT_FIELD_CLOSE_ERRNO, "")};
        const char *q6[3] = {"Resource unavailable:",
                             fcnt(&f, v, SAT_FIELD_CLOSE_ERRNO, v->resource_unavailable),
                             fnote(&f, v, SAT_FIELD_CLOSE_ERRNO, "")};
        const char *q7[3] = {"Max BER size exceeded (B2):",
                             fcnt(&f, v, SAT_FIELD_CLOSE_CODE, v->max_ber_exceeded),
                             fnote(&f, v, SAT_FIELD_CLOSE_CODE, "")};
        sat_tbl_row(&t, q1);
        sat_tbl_row(&t, q2);
        sat_tbl_row(&t, q3);
        sat_tbl_row(&t, q4);
        sat_tbl_row(&t, q5);
        sat_tbl_row(&t, q6);
        sat_tbl_row(&t, q7);
        /* OpenLDAP's own close kinds: shown where an input can log them */
        if (fknown(v, SAT_FIELD_CLOSE_LOST)) {
            const char *q8[3] = {"Connections lost:", fu(&f, v->lost),
                                 fnote(&f, v, SAT_FIELD_CLOSE_LOST,
                                       "(closed (connection lost): gone without an UNBIND, or a read failed)")};
            const char *q9[3] = {"Connections lost on write:", fu(&f, v->lost_on_write),
                                 fnote(&f, v, SAT_FIELD_CLOSE_LOST,
                                       "(closed (connection lost on write): an answer could not be sent)")};
            sat_tbl_row(&t, q8);
            sat_tbl_row(&t, q9);
        }
        sat_tbl_print(&t, out, "  ");
        if (v->tls_versions.n) {
            fputs("  Secure protocol versions:\n", out);
            tbl t2;
            sat_tbl_init(&t2, "rl");
            for (size_t i = 0; i < v->tls_versions.n; i++) {
                const char *rr[2] = {fu(&f, v->tls_versions.rows[i].count),
                                     v->tls_versions.rows[i].key};
                sat_tbl_row(&t2, rr);
            }
            sat_tbl_print(&t2, out, "    ");
        }
    }
    fputs("\nClose codes\n", out);
    {
        tbl t;
        sat_tbl_init(&t, "lrl");
        int any = 0;
        for (int c = 1; c < SAT_CLOSE__COUNT; c++) {
            if (!v->by_close_code[c])
                continue;
            const char *r[3] = {sat_close_code_name(c), fu(&f, v->by_close_code[c]),
                                close_code_meaning(c)};
            sat_tbl_row(&t, r);
            any = 1;
        }
        if (any)
            sat_tbl_print(&t, out, "  ");
        else
            fputs("  none\n", out);
    }

    fputs("\nResult codes\n", out);
    if (!v->nerrors) {
        fputs("  none\n", out);
    } else {
        tbl t;
        sat_tbl_init(&t, "rrl");
        for (size_t i = 0; i < v->nerrors; i++) {
            char k[32];
            snprintf(k, sizeof k, "err=%d", (int)v->errors[i].code);
            const char *r[3] = {k, fu(&f, v->errors[i].count), ldap_result_name(v->errors[i].code)};
            sat_tbl_row(&t, r);
        }
        sat_tbl_print(&t, out, "  ");
    }

    fputs("\nNotes (each letter of notes=A,P counts)\n", out);
    if (!fknown(v, SAT_FIELD_NOTES)) {
        fprintf(out, "  not logged %s\n", fnote(&f, v, SAT_FIELD_NOTES, ""));
    } else {
        tbl t;
        sat_tbl_init(&t, "lrl");
        for (int bit = 0; bit < 7; bit++) {
            char k[16];
            snprintf(k, sizeof k, "notes=%c", SAT_NOTE_LETTERS[bit]);
            const char *r[3] = {k, fu(&f, v->notes[bit]), note_meaning(bit)};
            sat_tbl_row(&t, r);
        }
        sat_tbl_print(&t, out, "  ");
        if (v->fields_without[SAT_FIELD_NOTES])
            fprintf(out, "  %s\n", fnote(&f, v, SAT_FIELD_NOTES, ""));
    }

    if (!fknown(v, SAT_FIELD_NOTES)) {
        fprintf(out, "\nUnindexed searches (notes=A or U): not logged %s\n",
                fnote(&f, v, SAT_FIELD_NOTES, ""));
    } else {
        fprintf(out, "\nUnindexed searches (notes=A or U): %llu, %llu distinct",
                (unsigned long long)v->unindexed_total, (unsigned long long)v->unindexed_distinct);
        if (v->nunindexed < v->unindexed_distinct)
            fprintf(out, " (the %zu most frequent shown)", v->nunindexed);
        fputc('\n', out);
        if (v->fields_without[SAT_FIELD_NOTES])
            fprintf(out, "  %s\n", fnote(&f, v, SAT_FIELD_NOTES, ""));
    }
    if (v->unindexed_folded)
        fprintf(out, "  (%llu more past the table cap not itemised)\n",
                (unsigned long long)v->unindexed_folded);
    for (size_t i = 0; i < v->nunindexed; i++) {
        const sat_etime_unindexed *u = &v->unindexed[i];
        char nb[16], ts[48], ne[32];
        notes_str(u->notes, nb);
        if (u->first_ts)
            sat_report_fmt_ts(ts, sizeof ts, u->first_ts);
        else
            snprintf(ts, sizeof ts, "-");
        if (u->nentries_max >= 0)
            snprintf(ne, sizeof ne, "%lld", (long long)u->nentries_max);
        else
            snprintf(ne, sizeof ne, "-");
        fprintf(out, "  %zu. %llu x notes=%s  etime max %s s, total %s s, nentries max %s\n",
                i + 1, (unsigned long long)u->count, nb, fs_(&f, u->etime_max_s, TXT_DECIMALS),
                fs_(&f, u->etime_total_s, 3), ne);
        tbl t;
        sat_tbl_init(&t, "ll");
        const char *r1[2] = {"base:", u->base};
        const char *r2[2] = {"filter:", u->filter};
        const char *r3[2] = {"client:", u->client};
        const char *r4[2] = {"bind DN:", *u->binddn ? u->binddn : "(anonymous or unknown)"};
        char first[96];
        snprintf(first, sizeof first, "%s conn=%lld op=%lld", ts, (long long)u->first_conn,
                 (long long)u->first_op);
        const char *r5[2] = {"first:", first};
        sat_tbl_row(&t, r1);
        sat_tbl_row(&t, r2);
        sat_tbl_row(&t, r3);
        sat_tbl_row(&t, r4);
        sat_tbl_row(&t, r5);
        sat_tbl_print(&t, out, "       ");
    }

    fputs("\nBinds (SASL steps answered err=14 folded into their bind; AUTOBIND + BIND = one)\n", out);
    {
        tbl t;
        sat_tbl_init(&t, "lrl");
        const char *r0[3] = {"Binds:", fu(&f, v->binds), frate(&f, v->binds, v->span_s)};
        const char *r1[3] = {" - simple:", fu(&f, v->binds_simple), ""};
        const char *r2[3] = {" - anonymous:", fu(&f, v->binds_anonymous), ""};
        const char *r3[3] = {" - SASL:", fu(&f, v->binds_sasl), ""};
        const char *rv2[3] = {" - LDAP v2:", fcnt(&f, v, SAT_FIELD_BIND_VERSION, v->more.binds_v2),
                              fnote(&f, v, SAT_FIELD_BIND_VERSION, "(BIND version=2)")};
        const char *rv3[3] = {" - LDAP v3:", fcnt(&f, v, SAT_FIELD_BIND_VERSION, v->more.binds_v3),
                              fnote(&f, v, SAT_FIELD_BIND_VERSION, "(BIND version=3)")};
        sat_tbl_row(&t, r0);
        sat_tbl_row(&t, rv2);
        sat_tbl_row(&t, rv3);
        sat_tbl_row(&t, r1);
        sat_tbl_row(&t, r2);
        sat_tbl_row(&t, r3);
        for (size_t i = 0; i < v->sasl_mechs.n; i++) {
            char k[96];
            snprintf(k, sizeof k, "    - %s:", v->sasl_mechs.rows[i].key);
            const char *r[3] = {k, fu(&f, v->sasl_mechs.rows[i].count), ""};
            sat_tbl_row(&t, r);
        }
        const char *r4[3] = {" - AUTOBIND (LDAPI):", fu(&f, v->autobinds), ""};
        const char *r5[3] = {"SASL in-progress steps (err=14):", fu(&f, v->sasl_steps), "(folded)"};
        char rd[300];
        snprintf(rd, sizeof rd, "(\"%s\", any case)", v->root_dn ? v->root_dn : "");
        const char *r6[3] = {"Root DN (Directory Manager) binds:", fu(&f, v->binds_root_dn), rd};
        const char *r7[3] = {"Failed binds (err=49):", fu(&f, v->binds_failed), ""};
        const char *r8[3] = {"SSL client (certificate) binds:", fu(&f, v->more.cert_binds),
                             "(connections: \"client bound as\")"};
        const char *r9[3] = {"Failed SSL client binds:", fu(&f, v->more.cert_map_failed),
                             "(connections: certificate not mapped to a DN)"};
        sat_tbl_row(&t, r4);
        sat_tbl_row(&t, r5);
        sat_tbl_row(&t, r6);
        sat_tbl_row(&t, r7);
        sat_tbl_row(&t, r8);
        sat_tbl_row(&t, r9);
        sat_tbl_print(&t, out, "  ");
    }
    if (v->binds_failed) {
        print_kv(out, &f, "Failed binds by DN", &v->failed_by_dn, "bind DN");
        print_kv(out, &f, "Failed binds by client", &v->failed_by_client, "client");
    }
    print_kv(out, &f, "Top clients", &v->clients, "client");
    print_kv(out, &f, "Top bind DNs", &v->bind_dns, "bind DN");
    print_kv(out, &f, "Top search bases", &v->bases, "base");
    print_kv(out, &f, "Top search filters", &v->filters, "filter");
    if (v->ext_oids.n)
        print_kv(out, &f, "Extended operations", &v->ext_oids, "oid (name)");
    print_kv(out, &f, "Most requested attributes", &v->attributes, "attribute");
    if (v->abandons) {
        fprintf(out, "\nAbandon requests: %llu", (unsigned long long)v->abandons);
        if (v->nabandon_list < v->abandons)
            fprintf(out, " (the first %zu)", v->nabandon_list);
        fputc('\n', out);
        tbl t;
        sat_tbl_init(&t, "lrrrl");
        const char *h[5] = {"time", "conn", "op", "targetop", "client"};
        sat_tbl_row(&t, h);
        for (size_t i = 0; i < v->nabandon_list; i++) {
            const sat_etime_abandon *ab = &v->abandon_list[i];
            char ts[48], c[24], o[24], tg[24];
            sat_report_fmt_ts(ts, sizeof ts, ab->ts);
            snprintf(c, sizeof c, "%lld", (long long)ab->conn);
            snprintf(o, sizeof o, "%lld", (long long)ab->op);
            if (ab->target_op >= 0)
                snprintf(tg, sizeof tg, "%lld", (long long)ab->target_op);
            else
                snprintf(tg, sizeof tg, "-");
            const char *r[5] = {ts, c, o, tg, ab->client};
            sat_tbl_row(&t, r);
        }
        sat_tbl_print(&t, out, "  ");
    }

    /* minutes */
    if (v->nminutes) {
        tbl t;
        sat_tbl_init(&t, "lrrrrr");
        const char *h[6] = {"minute (UTC)", "ops", "errors", "mean", "p99", "max"};
        /* one minute per row while the span allows, coarser buckets past
         * that (analyze.h): the title says which */
        char per[48] = "minute";
        if (v->minutes_width_min > 1)
            snprintf(per, sizeof per, "%u minutes", v->minutes_width_min);
        if (v->minutes_width_min > 1)
            h[0] = "from (UTC)";
        if (v->nminutes <= TXT_MINUTES_FULL) {
            fprintf(out, "\nPer %s (etime in seconds)\n", per);
            sat_tbl_row(&t, h);
            for (size_t i = 0; i < v->nminutes; i++) {
                const sat_etime_minute *m = &v->minutes[i];
                char ts[48];
                sat_report_fmt_ts(ts, sizeof ts, m->start);
                const char *r[6] = {ts, fu(&f, m->ops), fu(&f, m->errors),
                                    fs_(&f, m->mean_s, TXT_DECIMALS),
                                    fs_(&f, m->p99_s, TXT_DECIMALS),
                                    fs_(&f, m->max_s, TXT_DECIMALS)};
                sat_tbl_row(&t, r);
            }
            sat_tbl_print(&t, out, "  ");
        } else {
            /* too long to read: the slowest minutes by p99 (ties: earlier first) */
            size_t n = v->nminutes, show = v->top < n ? v->top : n;
            size_t *idx = (size_t *)malloc(n * sizeof *idx);
            if (!idx)
                return SAT_E_NOMEM;
            for (size_t i = 0; i < n; i++)
                idx[i] = i;
            /* partial selection sort: show is small */
            for (size_t s = 0; s < show; s++) {
                size_t best = s;
                for (size_t k = s + 1; k < n; k++) {
                    double pk = isfinite(v->minutes[idx[k]].p99_s) ? v->minutes[idx[k]].p99_s : -1;
                    double pb = isfinite(v->minutes[idx[best]].p99_s) ? v->minutes[idx[best]].p99_s : -1;
                    if (pk > pb || (pk == pb && idx[k] < idx[best]))
                        best = k;
                }
                size_t tmp = idx[s];
                idx[s] = idx[best];
                idx[best] = tmp;
            }
            if (v->minutes_width_min > 1)
                fprintf(out, "\nSlowest buckets of %s by p99 (%zu of %zu; --json for the series)\n",
                        per, show, n);
            else
                fprintf(out, "\nSlowest minutes by p99 (%zu of %zu minutes; --json for the series)\n",
                        show, n);
            sat_tbl_row(&t, h);
            for (size_t s = 0; s < show; s++) {
                const sat_etime_minute *m = &v->minutes[idx[s]];
                char ts[48];
                sat_report_fmt_ts(ts, sizeof ts, m->start);
                const char *r[6] = {ts, fu(&f, m->ops), fu(&f, m->errors),
                                    fs_(&f, m->mean_s, TXT_DECIMALS),
                                    fs_(&f, m->p99_s, TXT_DECIMALS),
                                    fs_(&f, m->max_s, TXT_DECIMALS)};
                sat_tbl_row(&t, r);
            }
            free(idx);
            sat_tbl_print(&t, out, "  ");
        }
    }
    fputs("\nPercentiles are nearest-rank: exact for groups of up to 2048 timed operations,\n"
          "within 0.5% of the exact value for larger groups.\n", out);
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

/* ---- JSON ------------------------------------------------------------------------------- */

static void json_row(sat_json *j, const char *objkey, const char *keyname,
                     const sat_etime_row *r)
{
    sat_json_object(j, objkey);
    if (keyname)
        sat_json_str(j, keyname, r->key);
    sat_json_u64(j, "count", r->count);
    sat_json_u64(j, "results", r->results);
    sat_json_u64(j, "errors", r->errors);
    sat_json_num(j, "rate", r->rate, 6);
    sat_json_num(j, "mean_s", r->mean_s, DUR_DECIMALS);
    sat_json_num(j, "p50_s", r->p50_s, DUR_DECIMALS);
    sat_json_num(j, "p90_s", r->p90_s, DUR_DECIMALS);
    sat_json_num(j, "p99_s", r->p99_s, DUR_DECIMALS);
    sat_json_num(j, "p999_s", r->p999_s, DUR_DECIMALS);
    sat_json_num(j, "max_s", r->max_s, DUR_DECIMALS);
    sat_json_num(j, "total_s", r->total_s, DUR_DECIMALS);
    sat_json_num(j, "share", r->share, 6);
    sat_json_num(j, "wtime_mean_s", r->wtime_mean_s, DUR_DECIMALS);
    sat_json_num(j, "optime_mean_s", r->optime_mean_s, DUR_DECIMALS);
    sat_json_end(j);
}

static void json_kv(sat_json *j, const char *key, const sat_etime_kvlist *l)
{
    sat_json_object(j, key);
    sat_json_u64(j, "unique", l->unique);
    sat_json_u64(j, "folded", l->folded);
    sat_json_array(j, "rows");
    for (size_t i = 0; i < l->n; i++) {
        sat_json_object(j, NULL);
        sat_json_str(j, "key", l->rows[i].key);
        sat_json_u64(j, "count", l->rows[i].count);
        sat_json_num(j, "etime_total_s", l->rows[i].total_s, DUR_DECIMALS);
        sat_json_end(j);
    }
    sat_json_end(j);
    sat_json_end(j);
}

/* a count from field f, null when no input can carry f (fields.h) */
static void json_cnt(sat_json *j, const char *key, const sat_etime_view *v, int f, uint64_t n)
{
    if (fknown(v, f))
        sat_json_u64(j, key, n);
    else
        sat_json_null(j, key);
}

static int render_json(const sat_etime_view *v, FILE *out)
{
    sat_json j;
    sat_json_init(&j, out);
    sat_json_set_compact_depth(&j, 3); /* each row of an array on one line */
    sat_json_document(&j);
    sat_json_u64(&j, "rejects", v->rejects);
    sat_json_object(&j, "span");
    sat_json_ts(&j, "first", v->first_ts);
    sat_json_ts(&j, "last", v->last_ts);
    sat_json_num(&j, "seconds", v->span_s, DUR_DECIMALS);
    sat_json_end(&j);
    if (v->by == SAT_ETIME_BY_NONE) {
        sat_json_array(&j, "ops");
        for (size_t i = 0; i < v->nops_rows; i++)
            json_row(&j, NULL, "op", &v->ops_rows[i]);
        sat_json_end(&j);
    } else if (v->by != SAT_ETIME_BY_INTERNAL) {
        sat_json_str(&j, "by", sat_etime_by_name(v->by));
        sat_json_array(&j, "groups");
        for (size_t i = 0; i < v->ngroups; i++)
            json_row(&j, NULL, "key", &v->groups[i]);
        sat_json_end(&j);
        sat_json_u64(&j, "groups_folded_keys", v->groups_folded_keys);
    } else {
        sat_json_str(&j, "by", sat_etime_by_name(v->by)); /* internal_operations below */
    }
    json_row(&j, "all", NULL, &v->all);

    sat_json_object(&j, "connections");
    sat_json_u64(&j, "total", v->conns);
    sat_json_u64(&j, "peak_concurrent", v->peak_concurrent);
    sat_json_ts(&j, "peak_at", v->peak_concurrent ? v->peak_at : 0);
    sat_json_str(&j, "peak_method",
                 "connections open at once per server, counted in log order as they "
                 "open and close; a connection without an open line counts from the "
                 "start of the input, one never closed to its end (rows of a 1.0 "
                 "trace: a sweep of their open and close times)");
    sat_json_u64(&j, "no_open_line", v->conns_no_open);
    sat_json_u64(&j, "unclosed", v->conns_unclosed);
    sat_json_object(&j, "by_listener");
    for (int l = SAT_LISTENER_LDAP; l < SAT_LISTENER__COUNT; l++)
        sat_json_u64(&j, sat_listener_name(l), v->by_listener[l]);
    if (v->by_listener[SAT_LISTENER_UNKNOWN])
        sat_json_u64(&j, "unknown", v->by_listener[SAT_LISTENER_UNKNOWN]);
    sat_json_end(&j);
    sat_json_object(&j, "by_close_code");
    for (int c = 1; c < SAT_CLOSE__COUNT; c++)
        if (v->by_close_code[c])
            sat_json_u64(&j, sat_close_code_name(c), v->by_close_code[c]);
    sat_json_end(&j);
    json_cnt(&j, "fds_taken", v, SAT_FIELD_FD, v->fds_taken);
    json_cnt(&j, "fds_returned", v, SAT_FIELD_FD, v->fds_returned);
    if (v->highest_fd >= 0 && fknown(v, SAT_FIELD_FD))
        sat_json_i64(&j, "highest_fd", v->highest_fd);
    else
        sat_json_null(&j, "highest_fd");
    json_cnt(&j, "broken_pipe", v, SAT_FIELD_CLOSE_ERRNO, v->broken_pipe);
    json_cnt(&j, "reset_by_peer", v, SAT_FIELD_CLOSE_ERRNO, v->reset_by_peer);
    json_cnt(&j, "resource_unavailable", v, SAT_FIELD_CLOSE_ERRNO, v->resource_unavailable);
    json_cnt(&j, "max_ber_exceeded", v, SAT_FIELD_CLOSE_CODE, v->max_ber_exceeded);
    json_cnt(&j, "lost", v, SAT_FIELD_CLOSE_LOST, v->lost);
    json_cnt(&j, "lost_on_write", v, SAT_FIELD_CLOSE_LOST, v->lost_on_write);
    sat_json_object(&j, "tls_versions");
    for (size_t i = 0; i < v->tls_versions.n; i++)
        sat_json_u64(&j, v->tls_versions.rows[i].key, v->tls_versions.rows[i].count);
    sat_json_end(&j);
    sat_json_end(&j);

    sat_json_object(&j, "errors");
    for (size_t i = 0; i < v->nerrors; i++) {
        char k[16];
        snprintf(k, sizeof k, "%d", (int)v->errors[i].code);
        sat_json_u64(&j, k, v->errors[i].count);
    }
    sat_json_end(&j);
    sat_json_object(&j, "notes");
    for (int b = 0; b < 7; b++) {
        char k[2] = {SAT_NOTE_LETTERS[b], 0};
        json_cnt(&j, k, v, SAT_FIELD_NOTES, v->notes[b]);
    }
    sat_json_end(&j);

    sat_json_object(&j, "operations");
    sat_json_u64(&j, "total", v->ops);
    sat_json_u64(&j, "results", v->results);
    sat_json_u64(&j, "unfinished", v->unfinished);
    sat_json_u64(&j, "no_request", v->no_request);
    sat_json_u64(&j, "internal", v->internal_ops);
    sat_json_u64(&j, "persistent_searches", v->persistent);
    json_cnt(&j, "paged_searches", v, SAT_FIELD_CONTROLS, v->paged);
    sat_json_u64(&j, "whole_subtree_searches", v->whole_base_searches);
    sat_json_u64(&j, "expecting_result", v->more.expect_result);
    sat_json_u64(&j, "answered", v->more.answered);
    if (v->more.expect_result)
        sat_json_num(&j, "overall_performance",
                     (double)v->more.answered / (double)v->more.expect_result, 6);
    else
        sat_json_null(&j, "overall_performance");
    sat_json_u64(&j, "proxied_auth", v->more.proxied);
    json_cnt(&j, "vlv", v, SAT_FIELD_CONTROLS, v->more.vlv);
    json_cnt(&j, "vlv_unindexed", v, fworst(v, SAT_FIELD_CONTROLS, SAT_FIELD_NOTES),
             v->more.vlv_unindexed);
    json_cnt(&j, "vlv_unindexed_components", v, fworst(v, SAT_FIELD_CONTROLS, SAT_FIELD_NOTES),
             v->more.vlv_unindexed_components);
    json_cnt(&j, "sort", v, SAT_FIELD_CONTROLS, v->more.sort);
    sat_json_u64(&j, "entry_lines", v->more.entry_lines);
    sat_json_u64(&j, "referral_lines", v->more.referral_lines);
    sat_json_u64(&j, "entries_returned", v->entries);
    sat_json_u64(&j, "extended", v->ext_ops);
    sat_json_u64(&j, "abandons", v->abandons);
    sat_json_u64(&j, "unbinds", v->unbinds);
    sat_json_u64(&j, "restarts", v->restarts);
    if (v->restarts) {
        sat_json_u64(&j, "restarts_start_line", v->restarts_start_line);
        sat_json_u64(&j, "restarts_connection_number", v->restarts_number);
    }
    sat_json_end(&j);

    sat_json_object(&j, "unindexed");
    json_cnt(&j, "total", v, SAT_FIELD_NOTES, v->unindexed_total);
    json_cnt(&j, "distinct", v, SAT_FIELD_NOTES, v->unindexed_distinct);
    json_cnt(&j, "folded", v, SAT_FIELD_NOTES, v->unindexed_folded);
    sat_json_set_compact_depth(&j, 4);
    sat_json_array(&j, "searches");
    for (size_t i = 0; i < v->nunindexed; i++) {
        const sat_etime_unindexed *u = &v->unindexed[i];
        char nb[16];
        notes_str(u->notes, nb);
        sat_json_object(&j, NULL);
        sat_json_u64(&j, "count", u->count);
        sat_json_str(&j, "notes", nb);
        sat_json_str(&j, "base", u->base);
        sat_json_str(&j, "filter", u->filter);
        sat_json_str(&j, "client", u->client);
        sat_json_str(&j, "binddn", u->binddn);
        sat_json_num(&j, "etime_max_s", u->etime_max_s, DUR_DECIMALS);
        sat_json_num(&j, "etime_total_s", u->etime_total_s, DUR_DECIMALS);
        if (u->nentries_max >= 0)
            sat_json_i64(&j, "nentries_max", u->nentries_max);
        else
            sat_json_null(&j, "nentries_max");
        sat_json_ts(&j, "first", u->first_ts);
        sat_json_i64(&j, "conn", u->first_conn);
        sat_json_i64(&j, "op", u->first_op);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_end(&j);
    sat_json_set_compact_depth(&j, 3);

    sat_json_object(&j, "binds");
    sat_json_u64(&j, "total", v->binds);
    sat_json_u64(&j, "simple", v->binds_simple);
    sat_json_u64(&j, "anonymous", v->binds_anonymous);
    json_cnt(&j, "ldap_v2", v, SAT_FIELD_BIND_VERSION, v->more.binds_v2);
    json_cnt(&j, "ldap_v3", v, SAT_FIELD_BIND_VERSION, v->more.binds_v3);
    sat_json_u64(&j, "sasl", v->binds_sasl);
    sat_json_object(&j, "sasl_mechs");
    for (size_t i = 0; i < v->sasl_mechs.n; i++)
        sat_json_u64(&j, v->sasl_mechs.rows[i].key, v->sasl_mechs.rows[i].count);
    sat_json_end(&j);
    sat_json_u64(&j, "sasl_steps_folded", v->sasl_steps);
    sat_json_u64(&j, "autobind", v->autobinds);
    sat_json_u64(&j, "root_dn", v->binds_root_dn);
    sat_json_str(&j, "root_dn_name", v->root_dn);
    sat_json_u64(&j, "failed", v->binds_failed);
    sat_json_u64(&j, "ssl_client", v->more.cert_binds);
    sat_json_u64(&j, "ssl_client_failed", v->more.cert_map_failed);
    sat_json_set_compact_depth(&j, 5);
    json_kv(&j, "failed_by_dn", &v->failed_by_dn);
    json_kv(&j, "failed_by_client", &v->failed_by_client);
    sat_json_end(&j);

    sat_json_object(&j, "top");
    sat_json_set_compact_depth(&j, 5);
    json_kv(&j, "clients", &v->clients);
    json_kv(&j, "bind_dns", &v->bind_dns);
    json_kv(&j, "bases", &v->bases);
    json_kv(&j, "filters", &v->filters);
    json_kv(&j, "extended_ops", &v->ext_oids);
    json_kv(&j, "attributes", &v->attributes);
    sat_json_end(&j);
    sat_json_set_compact_depth(&j, 3);

    sat_json_array(&j, "abandons");
    for (size_t i = 0; i < v->nabandon_list; i++) {
        const sat_etime_abandon *a = &v->abandon_list[i];
        sat_json_object(&j, NULL);
        sat_json_ts(&j, "ts", a->ts);
        sat_json_i64(&j, "conn", a->conn);
        sat_json_i64(&j, "op", a->op);
        if (a->target_op >= 0)
            sat_json_i64(&j, "targetop", a->target_op);
        else
            sat_json_null(&j, "targetop");
        sat_json_str(&j, "client", a->client);
        sat_json_end(&j);
    }
    sat_json_end(&j);

    sat_json_u64(&j, "minutes_width_min", v->minutes_width_min);
    sat_json_array(&j, "minutes");
    for (size_t i = 0; i < v->nminutes; i++) {
        const sat_etime_minute *m = &v->minutes[i];
        sat_json_object(&j, NULL);
        sat_json_ts(&j, "start", m->start);
        sat_json_u64(&j, "ops", m->ops);
        sat_json_u64(&j, "errors", m->errors);
        sat_json_num(&j, "mean_s", m->mean_s, DUR_DECIMALS);
        sat_json_num(&j, "p99_s", m->p99_s, DUR_DECIMALS);
        sat_json_num(&j, "max_s", m->max_s, DUR_DECIMALS);
        sat_json_end(&j);
    }
    sat_json_end(&j);

    /* the fields some input cannot carry: the figures from them are null
     * (none can) or partial (some can) */
    sat_json_array(&j, "not_logged");
    for (int k = 0; k < SAT_FIELD__COUNT; k++) {
        if (!v->fields_without[k])
            continue;
        sat_json_object(&j, NULL);
        sat_json_str(&j, "field", sat_field_name(k));
        sat_json_bool(&j, "partial", fknown(v, k));
        sat_json_u64(&j, "inputs", v->fields_inputs);
        sat_json_u64(&j, "inputs_without", v->fields_without[k]);
        if (v->fields_why[k])
            sat_json_str(&j, "why", v->fields_why[k]);
        else
            sat_json_null(&j, "why");
        sat_json_end(&j);
    }
    sat_json_end(&j);

    sat_json_array(&j, "inputs");
    for (size_t i = 0; i < v->nsources; i++) {
        const sat_etime_source_info *s = &v->sources[i];
        sat_json_object(&j, NULL);
        sat_json_str(&j, "path", s->path);
        sat_json_str(&j, "format", s->format);
        sat_json_str(&j, "compression", s->compression);
        sat_json_u64(&j, "bytes", s->bytes);
        sat_json_u64(&j, "lines", s->lines);
        sat_json_u64(&j, "rejects", s->rejects);
        sat_json_bool(&j, "truncated", s->truncated);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_json_array(&j, "reject_samples");
    for (size_t i = 0; i < v->nreject_samples; i++) {
        const sat_etime_reject_info *r = &v->reject_samples[i];
        sat_json_object(&j, NULL);
        sat_json_str(&j, "path", r->path);
        sat_json_u64(&j, "line", r->line_no);
        sat_json_str(&j, "reason", r->reason);
        sat_json_str(&j, "excerpt", r->excerpt);
        sat_json_end(&j);
    }
    sat_json_end(&j);
    sat_report_internal_json(&j, v);
    sat_json_end(&j);
    return sat_json_finish(&j);
}

/* ---- CSV (RFC 4180) ------------------------------------------------------------------------ */

static void csv_num(FILE *out, double v, int dec)
{
    char b[64];
    putc(',', out);
    if (!isfinite(v))
        return; /* empty field = no value */
    sat_report_fmt_num(b, sizeof b, v, dec);
    fputs(b, out);
}

static void csv_row(FILE *out, const sat_etime_row *r)
{
    sat_csv_field(out, r->key);
    fprintf(out, ",%llu,%llu,%llu", (unsigned long long)r->count,
            (unsigned long long)r->results, (unsigned long long)r->errors);
    csv_num(out, r->rate, 6);
    csv_num(out, r->mean_s, DUR_DECIMALS);
    csv_num(out, r->p50_s, DUR_DECIMALS);
    csv_num(out, r->p90_s, DUR_DECIMALS);
    csv_num(out, r->p99_s, DUR_DECIMALS);
    csv_num(out, r->p999_s, DUR_DECIMALS);
    csv_num(out, r->max_s, DUR_DECIMALS);
    csv_num(out, r->total_s, DUR_DECIMALS);
    csv_num(out, r->share, 6);
    csv_num(out, r->wtime_mean_s, DUR_DECIMALS);
    csv_num(out, r->optime_mean_s, DUR_DECIMALS);
    putc('\n', out);
}

static int render_csv(const sat_etime_view *v, FILE *out)
{
    if (v->by == SAT_ETIME_BY_INTERNAL)
        return sat_report_internal_csv(v, out);
    fprintf(out, "%s,count,results,errors,rate,mean_s,p50_s,p90_s,p99_s,p999_s,max_s,"
                 "total_s,share,wtime_mean_s,optime_mean_s\n",
            v->by == SAT_ETIME_BY_NONE ? "op" : sat_etime_by_name(v->by));
    if (v->by == SAT_ETIME_BY_NONE) {
        for (size_t i = 0; i < v->nops_rows; i++)
            csv_row(out, &v->ops_rows[i]);
        csv_row(out, &v->all);
    } else {
        for (size_t i = 0; i < v->ngroups; i++)
            csv_row(out, &v->groups[i]);
    }
    return ferror(out) ? SAT_E_IO : SAT_OK;
}

/* ---- entry points -------------------------------------------------------------------------- */

int sat_report_fmt_parse(const char *s)
{
    if (!s)
        return -1;
    if (strcmp(s, "text") == 0)
        return SAT_REPORT_TEXT;
    if (strcmp(s, "json") == 0)
        return SAT_REPORT_JSON;
    if (strcmp(s, "csv") == 0)
        return SAT_REPORT_CSV;
    return -1;
}

int sat_report_etime(const sat_etime *e, int fmt, FILE *out, sat_diag *diag)
{
    const sat_etime_view *v = sat_etime_get_view(e);
    SAT_RETURN_ERROR_IF(!v, SAT_E_USAGE, diag, "etime",
                        "the etime analyzer was not finished (sat_etime_finish)");
    SAT_RETURN_ERROR_IF(!out, SAT_E_USAGE, diag, "etime", "no output stream");
    int rc;
    switch (fmt) {
    case SAT_REPORT_TEXT: rc = render_text(v, out); break;
    case SAT_REPORT_JSON: rc = render_json(v, out); break;
    case SAT_REPORT_CSV: rc = render_csv(v, out); break;
    default:
        return sat_diag_set(diag, SAT_E_USAGE, "etime", "unknown report format %d", fmt);
    }
    SAT_RETURN_ERROR_IF(rc == SAT_E_IO, rc, diag, "output", "writing the report failed");
    SAT_RETURN_ERROR_IF(rc < 0, rc, diag, "etime", "rendering failed: %s", sat_strerror(rc));
    return SAT_OK;
}
