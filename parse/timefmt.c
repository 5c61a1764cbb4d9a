/*
 * timefmt.c - calendar arithmetic and fractions shared by the log formats
 * (see timefmt.h).
 */
#include "timefmt.h"

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
