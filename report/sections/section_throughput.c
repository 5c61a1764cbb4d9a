/*
 * section_throughput.c - the throughput around a period (a storm), from the
 * timeline's windows (section_throughput.h): how many operations clients
 * asked for and how many the server answered per window, before, during
 * and after it. A server that answers fewer while clients ask for as many
 * got less done (a collapse of throughput, not of the load).
 */
#include <math.h>
#include <string.h>

#include "section_throughput.h"

double sec_tput_periods(const sat_rnode *timeline, int64_t start, int64_t end, int64_t before_end,
                        sec_tput out[SEC_TPUT_N])
{
    memset(out, 0, SEC_TPUT_N * sizeof *out);
    for (int i = 0; i < SEC_TPUT_N; i++)
        out[i].requested = out[i].answered = out[i].errors = out[i].opened = NAN;
    const sat_rnode *win = sat_get_table(timeline, "windows");
    int64_t step = sat_table_window(win);
    const sat_rnode *first = sat_rnode_first(win);
    if (step <= 0 || !first || !sat_get_has(first, "answered") || end <= start)
        return 0;
    if (!before_end || before_end > start)
        before_end = start;
    int64_t span = (int64_t)SEC_TPUT_WINDOWS * step;
    out[SEC_TPUT_BEFORE].from = before_end - span;
    out[SEC_TPUT_BEFORE].to = before_end;
    out[SEC_TPUT_DURING].from = start;
    out[SEC_TPUT_DURING].to = end;
    out[SEC_TPUT_AFTER].from = end;
    out[SEC_TPUT_AFTER].to = end + span;
    double sum[SEC_TPUT_N][4] = {{0}};
    int64_t lo[SEC_TPUT_N] = {0}, hi[SEC_TPUT_N] = {0};
    for (const sat_rnode *r = first; r; r = sat_rnode_next(r)) {
        int64_t ts = sat_get_time(r, "start_ts", 0);
        for (int i = 0; i < SEC_TPUT_N; i++) {
            if (ts < out[i].from || ts >= out[i].to)
                continue;
            if (!out[i].windows++)
                lo[i] = ts;
            hi[i] = ts + step;
            sum[i][0] += sat_get_num(r, "count", 0);
            sum[i][1] += sat_get_num(r, "answered", 0);
            sum[i][2] += sat_get_num(r, "errors", 0);
            sum[i][3] += sat_get_num(r, "conns.opened", 0);
        }
    }
    for (int i = 0; i < SEC_TPUT_N; i++) {
        if (!out[i].windows)
            continue;
        double n = (double)out[i].windows;
        out[i].requested = sum[i][0] / n;
        out[i].answered = sum[i][1] / n;
        out[i].errors = sum[i][2] / n;
        out[i].opened = sum[i][3] / n;
        /* the part as the windows found cover it (the series may begin
         * or end inside it) */
        out[i].from = lo[i];
        out[i].to = hi[i];
    }
    return (double)step / 1e9;
}

void sec_throughput(const sec_ctx *c, sat_rnode *parent, const char *id, const char *what,
                    const char *noun, const sat_rnode *timeline, int64_t start, int64_t end,
                    int64_t before_end)
{
    sec_tput t[SEC_TPUT_N];
    double w = sec_tput_periods(timeline, start, end, before_end, t);
    sat_rnode *s = sec_section(c, parent, id, "Throughput before, during and after %s", what);
    if (!s)
        return;
    if (!(w > 0)) {
        sat_doc_para(s, "No series of answers in the timeline.");
        return;
    }
    char ws[64];
    sat_fmt_duration(ws, sizeof ws, w);
    sat_doc_para(s,
                 "Per %s window, the mean of the %s asked for (logged as requested) and "
                 "answered (counted in the window of the answer): before (at most %d windows, "
                 "up to the trigger's onset or the start), during and after (at most %d "
                 "windows).",
                 ws, noun, SEC_TPUT_WINDOWS, SEC_TPUT_WINDOWS);
    static const sat_col cols[] = {{"part", SAT_UNIT_TEXT, 0, NULL},
                                   {"from_ts", SAT_UNIT_TIME, 0, "from"},
                                   {"to_ts", SAT_UNIT_TIME, 0, "to"},
                                   {"window_count", SAT_UNIT_COUNT, 0, "windows"},
                                   {"requested", SAT_UNIT_NUMBER, 1, NULL},
                                   {"answered", SAT_UNIT_NUMBER, 1, NULL},
                                   {"answered_of_before", SAT_UNIT_RATIO, 3, "of before"},
                                   {"errors", SAT_UNIT_NUMBER, 1, NULL},
                                   {"conns_opened", SAT_UNIT_NUMBER, 1, "conns opened"}};
    sat_rnode *tab = sat_doc_new_table(s, NULL, NULL, cols, sizeof cols / sizeof cols[0]);
    static const char *const names[SEC_TPUT_N] = {"before", "during", "after"};
    double base = t[SEC_TPUT_BEFORE].answered;
    for (int i = 0; i < SEC_TPUT_N; i++) {
        sat_rnode *r = sat_table_row(tab);
        sat_put_text(r, "part", names[i]);
        if (!t[i].windows) {
            sat_put_count(r, "window_count", 0);
            continue;
        }
        sat_put_time(r, "from_ts", t[i].from);
        sat_put_time(r, "to_ts", t[i].to);
        sat_put_count(r, "window_count", t[i].windows);
        sat_put_num(r, "requested", t[i].requested, 1);
        sat_put_num(r, "answered", t[i].answered, 1);
        if (i != SEC_TPUT_BEFORE && base > 0)
            sat_put_ratio(r, "answered_of_before", t[i].answered / base, 3);
        else
            sat_put_absent(r, "answered_of_before", SAT_UNIT_RATIO);
        sat_put_num(r, "errors", t[i].errors, 1);
        /* connections are the directory's (an access log of HTTP requests has none) */
        if (sat_get_count(timeline, "connections", 0))
            sat_put_num(r, "conns_opened", t[i].opened, 1);
        else
            sat_put_absent(r, "conns_opened", SAT_UNIT_NUMBER);
    }
    if (!t[SEC_TPUT_BEFORE].windows)
        sat_doc_footnote(s, "(no window before it: the inputs start in it)");
}
