/*
 * stream_registry.c - the one list of stream dissectors (wire.h): the plug-ins
 * that read a TCP connection's ordered bytes. Adding one is one file exporting
 * a const sat_stream_dissector, one line in dissectors.h and here, a fuzz
 * target and a fixture.
 *
 * The dissectors are referenced strongly, so that the static library always
 * links them in (a weak reference would not pull the member out of the
 * archive).
 */
#include "dissectors.h"

#include <string.h>

static const sat_stream_dissector *const registry[] = {
    &sat_dissect_tls,
    &sat_dissect_ldap,
    NULL,
};

const sat_stream_dissector *const *sat_stream_dissectors(void) { return registry; }

const sat_stream_dissector *sat_stream_dissector_by_name(const char *name)
{
    for (const sat_stream_dissector *const *d = registry; *d; d++)
        if (name && strcmp((*d)->name, name) == 0)
            return *d;
    return NULL;
}
