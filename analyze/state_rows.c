/*
 * state_rows.c - rows of the event tables in an analyzer's state
 * (state_rows.h), column by column as the trace schema lists them.
 */
#include <string.h>

#include "satscope/trace.h"
#include "state_rows.h"

static uint32_t row_layout(const sat_table_def *t)
{
    uint32_t h = 2166136261u; /* FNV-1a over the row size and each column */
    uint64_t size = t->row_size;
    for (int b = 0; b < 8; b++)
        h = (h ^ (uint8_t)(size >> (8 * b))) * 16777619u;
    for (size_t i = 0; i < t->ncolumns; i++) {
        const sat_column_def *c = &t->columns[i];
        for (const char *p = c->name; *p; p++)
            h = (h ^ (uint8_t)*p) * 16777619u;
        h = (h ^ c->type) * 16777619u;
        h = (h ^ (uint8_t)c->offset) * 16777619u;
        h = (h ^ (uint8_t)(c->offset >> 8)) * 16777619u;
    }
    return h;
}

void sat_sw_row_layout(sat_sw *w, int table)
{
    const sat_table_def *t = sat_table_get(table);
    sat_sw_u32(w, (uint32_t)table);
    sat_sw_u32(w, t ? row_layout(t) : 0);
}

int sat_sr_row_layout(sat_sr *r, int table)
{
    const sat_table_def *t = sat_table_get(table);
    uint32_t id = sat_sr_u32(r), l = sat_sr_u32(r);
    if (sat_sr_ok(r) && (!t || id != (uint32_t)table || l != row_layout(t)))
        return sat_sr_fail(r, SAT_E_CORRUPT,
                           "%s: rows of the %s table written by a satscope whose layout "
                           "differs from this one's (make the partial again with this version)",
                           r->what ? r->what : "state", t ? t->name : "?");
    return sat_sr_status(r);
}

void sat_sw_row(sat_sw *w, int table, const void *row)
{
    const sat_table_def *t = sat_table_get(table);
    const unsigned char *p = row;
    for (size_t i = 0; t && i < t->ncolumns; i++) {
        const void *f = p + t->columns[i].offset;
        switch (t->columns[i].type) {
        case SAT_COL_TS:
        case SAT_COL_I64: {
            int64_t v;
            memcpy(&v, f, sizeof v);
            sat_sw_i64(w, v);
            break;
        }
        case SAT_COL_I32: {
            uint32_t v;
            memcpy(&v, f, sizeof v);
            sat_sw_u32(w, v);
            break;
        }
        case SAT_COL_U16: {
            uint16_t v;
            memcpy(&v, f, sizeof v);
            sat_sw_u32(w, v);
            break;
        }
        case SAT_COL_U8:
            sat_sw_u8(w, *(const uint8_t *)f);
            break;
        case SAT_COL_STR: {
            sat_str s;
            memcpy(&s, f, sizeof s);
            if (s.ptr)
                sat_sw_blob(w, s.ptr, s.len);
            else
                sat_sw_str(w, NULL);
            break;
        }
        default:
            w->nomem = 1; /* a column type this writer does not know: no partial */
        }
    }
}

int sat_sr_row(sat_sr *r, int table, void *row)
{
    const sat_table_def *t = sat_table_get(table);
    if (!t)
        return sat_sr_fail(r, SAT_E_CORRUPT, "rows of an unknown table");
    unsigned char *p = row;
    memset(row, 0, t->row_size);
    for (size_t i = 0; i < t->ncolumns && sat_sr_ok(r); i++) {
        void *f = p + t->columns[i].offset;
        switch (t->columns[i].type) {
        case SAT_COL_TS:
        case SAT_COL_I64: {
            int64_t v = sat_sr_i64(r);
            memcpy(f, &v, sizeof v);
            break;
        }
        case SAT_COL_I32: {
            uint32_t v = sat_sr_u32(r);
            memcpy(f, &v, sizeof v);
            break;
        }
        case SAT_COL_U16: {
            uint32_t v = sat_sr_u32(r);
            if (sat_sr_ok(r) && v > UINT16_MAX)
                return sat_sr_fail(r, SAT_E_CORRUPT, "%s: %s's %s of %u",
                                   r->what ? r->what : "state", t->name, t->columns[i].name, v);
            uint16_t s = (uint16_t)v;
            memcpy(f, &s, sizeof s);
            break;
        }
        case SAT_COL_U8:
            *(uint8_t *)f = sat_sr_u8(r);
            break;
        case SAT_COL_STR: {
            size_t n;
            const char *b = sat_sr_blob(r, &n);
            sat_str s = {b, (uint32_t)n};
            memcpy(f, &s, sizeof s);
            break;
        }
        default:
            return sat_sr_fail(r, SAT_E_CORRUPT, "%s: a column type this satscope does not "
                               "know", r->what ? r->what : "state");
        }
    }
    return sat_sr_status(r);
}
