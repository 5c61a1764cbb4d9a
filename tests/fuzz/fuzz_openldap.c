/*
 * fuzz_openldap.c - libFuzzer target for the OpenLDAP stats format (all three
 * prefixes) with a real joiner; the first byte picks the default year, so the
 * year-less syslog dates and their rollover are exercised too.
 */
#include "fuzz_format.h"

extern const sat_log_format sat_fmt_openldap;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_format(&sat_fmt_openldap, data, size, 1000, size ? 1990 + data[0] % 60 : 0, NULL);
    return 0;
}
