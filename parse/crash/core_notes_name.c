/*
 * core_notes_name.c - the time in a core's file name (core.h): the epoch
 * seconds or microseconds that core_pattern's %t (and systemd-coredump's
 * names) put there, told apart from the pid.
 */
#include "satscope/core.h"

sat_ts_ns sat_core_name_time(const char *name, int32_t pid)
{
    if (!name)
        return 0;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    /* 2001-01-01 .. 2100-01-01 */
    const uint64_t lo = 978307200ULL, hi = 4102444800ULL;
    for (const char *p = base; *p;) {
        size_t n = 0;
        while (p[n] >= '0' && p[n] <= '9')
            n++;
        int whole = n && (p == base || strchr("._-", p[-1])) && (!p[n] || strchr("._-", p[n]));
        if (whole && n <= 16) {
            uint64_t v = 0;
            for (size_t i = 0; i < n; i++)
                v = v * 10 + (uint64_t)(p[i] - '0');
            if (pid == SAT_ABSENT || v != (uint64_t)(uint32_t)pid) {
                if ((n == 9 || n == 10) && v >= lo && v < hi)
                    return (sat_ts_ns)v * 1000000000LL;
                if ((n == 15 || n == 16) && v / 1000000 >= lo && v / 1000000 < hi)
                    return (sat_ts_ns)v * 1000LL;
            }
        }
        p += n ? n : 1;
    }
    return 0;
}
