/*
 * winseries.h - (internal to analyze/) a time series in fixed windows kept in
 * a strtab (key: int64 window index = ts / width, floored; value: the
 * analyzer's payload), with bounded memory: past `max` windows the step
 * doubles and neighbouring windows merge, so a year of input costs what a
 * day does. The handshakes, storms and saturation analyzers share it.
 */
#ifndef SAT_ANALYZE_WINSERIES_H
#define SAT_ANALYZE_WINSERIES_H

#include "strtab.h"

typedef int64_t sat_win_ns; /* a width or timestamp in ns (event.h's types) */

/* Adds the payload `from` into `into` (both the analyzer's window type). */
typedef void (*sat_win_add_fn)(void *into, const void *from);

/* The window index of ts at this width (floored, also before the epoch). */
static inline int64_t sat_win_index(sat_win_ns ts, sat_win_ns width)
{
    return ts >= 0 ? ts / width : -((-ts + width - 1) / width);
}

/* Re-keys tab f times wider (*width *= f), merging payloads with add.
 * SAT_OK, or SAT_E_NOMEM with tab holding what memory allowed. */
int sat_win_widen(sat_strtab *tab, sat_win_ns *width, int64_t f, size_t val_size,
                  sat_win_add_fn add);

/* The payload of the window that holds ts, widening while tab holds more than
 * max windows. NULL when memory ran out. */
void *sat_win_at(sat_strtab *tab, sat_win_ns *width, sat_win_ns ts, size_t max,
                 size_t val_size, sat_win_add_fn add);

/* Adds the windows of `from` (at from_width, a power-of-two multiple or
 * divisor of *width) into tab, both at the wider step, then widens while tab
 * holds more than max. SAT_OK or SAT_E_NOMEM. */
int sat_win_merge(sat_strtab *tab, sat_win_ns *width, const sat_strtab *from,
                  sat_win_ns from_width, size_t max, size_t val_size, sat_win_add_fn add);

/* The windows of tab in time order, each once: fn(ctx, index, payload) for
 * every window from the first to the last (payload NULL for one without
 * rows: a gap reads as zeros) while there are at most dense_max of them,
 * else only the windows with rows (they are far apart: two days of a
 * capture ten years apart are two windows, not 315 million). A result is
 * then as bounded as the series itself. SAT_OK or SAT_E_NOMEM. */
int sat_win_walk(const sat_strtab *tab, uint64_t dense_max,
                 void (*fn)(void *ctx, int64_t w, const void *payload), void *ctx);

#endif
