/*
 * timefmt.c - calendar arithmetic and fractions shared by the log formats
 * (see timefmt.h).
 */
#include "timefmt.h"

#include "satscope/parse.h"

#include <time.h>

int64_t sat_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

int sat_month_of(const char *p)
{
    static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    for (int i = 0; i < 12; i++)
        if (p[0] == names[3 * i] && p[1] == names[3 * i + 1] && p[2] == names[3 * i + 2])
            return i + 1;
    return 0;
}

int sat_year_for(int month, int day, int secs, sat_ts_ns ref)
{
    if (ref <= 0)
        ref = (sat_ts_ns)time(NULL) * 1000000000LL;
    int64_t ref_s = ref / 1000000000LL;
    int64_t days = ref_s / 86400 - (ref_s % 86400 < 0);
    /* civil year of ref (H. Hinnant's civil_from_days) */
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t y = yoe + era * 400 + (mp >= 10);
    if (month < 1 || month > 12)
        return (int)y;
    int64_t limit = ref_s + 86400;
    while (y > 1970 &&
           sat_days_from_civil(y, (unsigned)month, (unsigned)day) * 86400 + secs > limit)
        y--;
    return (int)y;
}
