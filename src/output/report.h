/* report.h: --report FILE.html, a self-contained page written when the run or sweep ends: the
 * run header, the scaling curve (measured, predicted, the calibrated ceiling, the ideal line)
 * or the rate over time, where each step's (or the run's) time went, device busy, the
 * diagnosis in words, and a timeline of the last batches as inline SVG; every chart's data is
 * embedded next to it as a CSV link. No script, no font, nothing fetched. */
#ifndef GPUTOP_REPORT_H
#define GPUTOP_REPORT_H

#include <stdbool.h>

#include "gputop/device.h"
#include "gputop/outputs.h"

struct gd_report;
/* A report about devs into fd (own: close it at the end), or, with fd -1, into a new file
 * renamed over path once the page is whole on disk; run_json is the run header's options
 * object (copied); unit the rate's unit. */
struct gd_report *report_open(int fd, bool own_fd, const char *path, const struct gd_device *devs, int ndev,
                              const char *run_json, const char *unit);
extern const struct gd_output_ops report_output;

#endif
