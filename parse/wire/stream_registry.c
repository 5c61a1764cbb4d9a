/*
 * stream_registry.c - the one list of stream dissectors (wire.h): the plug-ins
 * that read a TCP connection's ordered bytes. Adding one is one file exporting
 * a const sat_stream_dissector, one line here, a fuzz target and a fixture.
 *
 * The TLS (parse/wire/dis_tls.c) and LDAP (parse/wire/dis_ldap.c) dissectors are
 * referenced strongly, so that the static library always links them in. While
 * a branch does not have their files yet, parse/CMakeLists.txt does not define
 * SAT_HAVE_DIS_TLS / SAT_HAVE_DIS_LDAP and the entry is left out (no stubs, no
 * weak symbols: a weak reference would not pull the member out of the archive).
 */
#include "satscope/wire.h"

#ifdef SAT_HAVE_DIS_TLS
extern const sat_stream_dissector sat_dissect_tls;
#endif
#ifdef SAT_HAVE_DIS_LDAP
extern const sat_stream_dissector sat_dissect_ldap;
#endif

static const sat_stream_dissector *const registry[] = {
#ifdef SAT_HAVE_DIS_TLS
    &sat_dissect_tls,
#endif
#ifdef SAT_HAVE_DIS_LDAP
    &sat_dissect_ldap,
#endif
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
