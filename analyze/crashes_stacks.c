/*
 * crashes_stacks.c - the threads of one crash grouped by identical stacks
 * (crashes_internal.h): the crashing thread's frames (the row's crashing
 * tid, else the first thread the producer listed), then the others, a group
 * per stack, the largest first: a pool of 63 idle workers is one line.
 */
#include <stdlib.h>

#include "crashes_internal.h"

static int cmp_frame(const void *a, const void *b)
{
    const sat_frame *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static int str_same(sat_str a, sat_str b)
{
    return a.len == b.len && (!a.len || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* Two threads' stacks are the same when every frame names the same place:
 * module and function, or module and offset when there is no name. */
static int same_stack(const sat_frame *a, size_t na, const sat_frame *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++) {
        if (!str_same(a[i].module, b[i].module) || !str_same(a[i].function, b[i].function))
            return 0;
        if (!a[i].function.len && a[i].offset != b[i].offset)
            return 0;
    }
    return 1;
}

typedef struct cr_thread {
    int32_t tid;
    size_t first, n; /* frames [first, first + n) of the sorted array */
} cr_thread;

/* The threads of one crash grouped by identical stacks, the crashing one's
 * group first, then by size. */
int cr_build_stacks(sat_crashes *c, cr_info *ci, cr_entry *e)
{
    if (!e->nframes)
        return SAT_OK;
    qsort(e->frames, e->nframes, sizeof *e->frames, cmp_frame);
    size_t nt = 0;
    for (size_t i = 0; i < e->nframes; i++)
        if (!i || e->frames[i].thread != e->frames[i - 1].thread)
            nt++;
    cr_thread *th = (cr_thread *)calloc(nt, sizeof *th);
    int *grp = (int *)calloc(nt, sizeof *grp);
    cr_stack *st = (cr_stack *)sat_arena_alloc(&c->arena, nt * sizeof *st);
    int32_t *tids = (int32_t *)sat_arena_alloc(&c->arena, nt * sizeof *tids);
    if (!th || !grp || !st || !tids) {
        free(th);
        free(grp);
        return SAT_E_NOMEM;
    }
    nt = 0;
    for (size_t i = 0; i < e->nframes; i++) {
        if (!i || e->frames[i].thread != e->frames[i - 1].thread) {
            th[nt].tid = e->frames[i].thread;
            th[nt].first = i;
            nt++;
        }
        th[nt - 1].n++;
    }
    /* the crashing thread: the row's, else the first the producer listed */
    size_t crashing = 0;
    for (size_t t = 0; t < nt; t++)
        if (e->row.crashing_tid != SAT_ABSENT && th[t].tid == e->row.crashing_tid)
            crashing = t;
    ci->frames = &e->frames[th[crashing].first];
    ci->nframes = th[crashing].n;
    /* group: the crashing thread alone first (its stack is the crash), then
     * the others by identical stacks */
    size_t ns = 0, ntid = 0;
    for (size_t t = 0; t < nt; t++)
        grp[t] = -1;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t t = 0; t < nt; t++) {
            if ((pass == 0) != (t == crashing) || grp[t] >= 0)
                continue;
            cr_stack *s = &st[ns];
            memset(s, 0, sizeof *s);
            s->frames = &e->frames[th[t].first];
            s->nframes = th[t].n;
            s->crashing = t == crashing;
            s->tids = &tids[ntid];
            tids[ntid++] = th[t].tid;
            s->ntids = 1;
            grp[t] = (int)ns;
            for (size_t u = t + 1; u < nt && pass == 1; u++) {
                if (grp[u] >= 0 || u == crashing ||
                    !same_stack(s->frames, s->nframes, &e->frames[th[u].first], th[u].n))
                    continue;
                grp[u] = (int)ns;
                tids[ntid++] = th[u].tid;
                s->ntids++;
            }
            ns++;
        }
    }
    /* the largest groups of the others first (stable: by first tid otherwise) */
    for (size_t i = 2; i < ns; i++) {
        cr_stack x = st[i];
        size_t j = i;
        while (j > 1 && st[j - 1].ntids < x.ntids) {
            st[j] = st[j - 1];
            j--;
        }
        st[j] = x;
    }
    ci->stacks = st;
    ci->nstacks = ns;
    free(th);
    free(grp);
    return SAT_OK;
}
