/*
 * state_fields.c - what a set of inputs can hold (sat_fields_seen) in an
 * analyzer's state (state_fields.h): counts as they are, reasons by text,
 * resolved back to fields.h's static texts.
 */
#include <string.h>

#include "state_fields.h"

void sat_sw_fields_seen(sat_sw *w, const sat_fields_seen *f)
{
    sat_sw_u32(w, f->any);
    sat_sw_u32(w, f->inputs);
    sat_sw_u32(w, SAT_FIELD__COUNT);
    for (int k = 0; k < SAT_FIELD__COUNT; k++) {
        sat_sw_u32(w, f->without[k]);
        sat_sw_str(w, f->why[k]);
    }
}

/* fields.h's text for field k equal to the n bytes at s (one of a format's
 * reasons or the HTTP one), NULL when none is. */
static const char *known_why(int k, const char *s, size_t n)
{
    const char *h = sat_http_field_why(k);
    if (h && strlen(h) == n && !memcmp(h, s, n))
        return h;
    const sat_format_fields *t;
    for (size_t i = 0; (t = sat_format_fields_nth(i)) != NULL; i++)
        if (t->why[k] && strlen(t->why[k]) == n && !memcmp(t->why[k], s, n))
            return t->why[k];
    return NULL;
}

int sat_sr_fields_seen(sat_sr *r, sat_fields_seen *f)
{
    memset(f, 0, sizeof *f);
    f->any = sat_sr_u32(r);
    f->inputs = sat_sr_u32(r);
    uint32_t nf = sat_sr_u32(r);
    if (sat_sr_ok(r) && nf != SAT_FIELD__COUNT)
        return sat_sr_fail(r, SAT_E_CORRUPT, "%s: %u input fields where %d are known",
                           r->what ? r->what : "state", nf, SAT_FIELD__COUNT);
    for (int k = 0; k < SAT_FIELD__COUNT && sat_sr_ok(r); k++) {
        f->without[k] = sat_sr_u32(r);
        size_t n;
        const char *s = sat_sr_blob(r, &n);
        if (!s || !sat_sr_ok(r))
            continue;
        if (!(f->why[k] = known_why(k, s, n)))
            return sat_sr_fail(r, SAT_E_CORRUPT,
                               "%s: why an input lacks a field, in words this satscope does "
                               "not know ('%.*s')",
                               r->what ? r->what : "state", (int)(n > 40 ? 40 : n), s);
    }
    return sat_sr_status(r);
}
