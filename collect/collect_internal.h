/*
 * collect_internal.h - what the files of collect/ share and nobody else needs:
 * the rotated-set naming rules (rotation.c) used to group inputs into servers.
 */
#ifndef SAT_COLLECT_INTERNAL_H
#define SAT_COLLECT_INTERNAL_H

#include "satscope/collect.h"

/* Directory + base name with rotation, date and compression suffixes removed:
 * "d/access.2.gz", "d/access-20250608.gz", "d/access.log.1" -> "d/access".
 * Malloc'd (caller frees), NULL on allocation failure. "-" stays "-". */
char *sat_collect_group_key(const char *path);

/* Names that a directory or pattern expansion leaves out because they are
 * bookkeeping, not logs (389's access.rotationinfo). */
int sat_collect_skip_name(const char *base);

#endif
