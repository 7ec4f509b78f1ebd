/* run.c: the headless tick loop: every window's frame goes to the outputs (the session hands
 * it over); failures are said once each on standard error. */
#include "headless.h"

#include <stdio.h>
#include <stdlib.h>

#include "gputop/common.h"
#include "gputop/sig.h"

/* Ids of the workers whose failure was reported, so each is reported once. */
struct reported {
	unsigned *ids;
	size_t n, cap;
};

static bool was_reported(struct reported *r, unsigned id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ids[i] == id)
			return true;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->ids = xreallocarray(r->ids, r->cap, sizeof(*r->ids));
	}
	r->ids[r->n++] = id;
	return false;
}

/* Reports each worker failure once, on standard error. */
static void report_failures(const struct gd_frame *f, struct reported *r)
{
	for (int i = 0; i < f->nworkers; i++) {
		const struct gd_sample *w = &f->workers[i];
		if (w->state == GD_ST_FAILED && !was_reported(r, w->id))
			gd_say("worker %u (pid %d) failed: %s", w->id, (int)w->pid, w->error);
	}
}

int headless_run(const struct gd_session_config *c, struct gd_outputs *outs)
{
	char err[256];
	struct gd_session *s = session_start(c, outs, err, sizeof(err));
	if (!s && gd_quit_signal)
		return GD_EXIT_OK; /* stopped before the run began (a --calibrate), as asked */
	if (!s) {
		gd_say("%s", err);
		return GD_EXIT_FAIL;
	}
	struct reported reported = { 0 };
	int status = GD_EXIT_OK;
	while (!gd_quit_signal && !session_done(s)) {
		int64_t now = now_ns();
		const struct gd_frame *f = session_poll(s, now);
		if (!f) {
			sleep_ns(session_wait(s, now));
			continue;
		}
		report_failures(f, &reported);
		if (*session_error(s)) {
			gd_say("%s", session_error(s));
			status = GD_EXIT_FAIL;
			break;
		}
		/* Nothing starts workers after the first ones here: once every one failed, the
		 * run can measure nothing more, and must not end as if it had. */
		if (c->procs > 0 && reported.n >= (size_t)c->procs) {
			gd_say("every worker failed (%d of %d)", c->procs, c->procs);
			status = GD_EXIT_FAIL;
			break;
		}
		session_prune(s); /* ended workers were reported once */
	}
	free(reported.ids);
	session_stop(s);
	return status;
}
