/*
 * winseries.c - windows of a time series that widen past a bound (winseries.h).
 */
#include "winseries.h"

int sat_win_widen(sat_strtab *tab, sat_win_ns *width, int64_t f, size_t val_size,
                  sat_win_add_fn add)
{
    int rc = SAT_OK;
    sat_strtab nt;
    sat_strtab_init(&nt, val_size, 0);
    for (size_t i = 0; i < tab->n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(tab, i), sizeof k);
        k = sat_win_index(k, f);
        void *w = sat_strtab_upsert(&nt, &k, sizeof k, NULL, NULL);
        if (!w) {
            rc = SAT_E_NOMEM;
            break;
        }
        add(w, sat_strtab_val(tab, i));
    }
    sat_strtab_free(tab);
    *tab = nt;
    *width *= f;
    return rc;
}

void *sat_win_at(sat_strtab *tab, sat_win_ns *width, sat_win_ns ts, size_t max,
                 size_t val_size, sat_win_add_fn add)
{
    for (;;) {
        int64_t k = sat_win_index(ts, *width);
        void *w = sat_strtab_upsert(tab, &k, sizeof k, NULL, NULL);
        if (!w)
            return NULL;
        if (tab->n <= max)
            return w;
        /* then look the window up again at the new step */
        if (sat_win_widen(tab, width, 2, val_size, add) < 0)
            return NULL;
    }
}

int sat_win_merge(sat_strtab *tab, sat_win_ns *width, const sat_strtab *from,
                  sat_win_ns from_width, size_t max, size_t val_size, sat_win_add_fn add)
{
    while (*width < from_width)
        if (sat_win_widen(tab, width, 2, val_size, add) < 0)
            return SAT_E_NOMEM;
    int64_t f = *width / from_width;
    for (size_t i = 0; i < from->n; i++) {
        int64_t k;
        memcpy(&k, sat_strtab_key(from, i), sizeof k);
        k = sat_win_index(k, f);
        void *w = sat_strtab_upsert(tab, &k, sizeof k, NULL, NULL);
        if (!w)
            return SAT_E_NOMEM;
        add(w, sat_strtab_val(from, i));
    }
    while (tab->n > max)
        if (sat_win_widen(tab, width, 2, val_size, add) < 0)
            return SAT_E_NOMEM;
    return SAT_OK;
}
