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

static int cmp_key_idx(const void *a, const void *b)
{
    const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

int sat_win_walk(const sat_strtab *tab, uint64_t dense_max,
                 void (*fn)(void *ctx, int64_t w, const void *payload), void *ctx)
{
    size_t n = tab->n;
    if (!n)
        return SAT_OK;
    int64_t *wk = (int64_t *)malloc(n * 2 * sizeof *wk); /* (window, entry index) */
    if (!wk)
        return SAT_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        memcpy(&wk[2 * i], sat_strtab_key(tab, i), sizeof(int64_t));
        wk[2 * i + 1] = (int64_t)i;
    }
    qsort(wk, n, 2 * sizeof *wk, cmp_key_idx);
    uint64_t span = (uint64_t)wk[2 * (n - 1)] - (uint64_t)wk[0] + 1;
    int dense = span <= dense_max;
    uint64_t rows = dense ? span : n;
    for (uint64_t r = 0, k = 0; r < rows; r++) {
        int64_t w = dense ? wk[0] + (int64_t)r : wk[2 * r];
        const void *payload = NULL;
        if (!dense)
            payload = sat_strtab_val(tab, (size_t)wk[2 * r + 1]);
        else if (k < n && wk[2 * k] == w)
            payload = sat_strtab_val(tab, (size_t)wk[2 * k++ + 1]);
        fn(ctx, w, payload);
    }
    free(wk);
    return SAT_OK;
}
