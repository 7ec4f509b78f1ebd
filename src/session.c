/* session.c: the interval clock around the supervisor and the collector. */
#include "gputop/session.h"

#include <stdio.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/trace.h"

int session_start(struct gd_session *s, const struct gd_opts *o, const struct clx_device *dev,
                  struct gd_trace *trace, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->dev = *dev;
	s->trace = trace;
	if (sup_init(&s->sup, o, err, errlen))
		return -1;
	s->sup.trace = trace;
	s->t0 = now_ns();
	s->interval = (int64_t)(o->interval * 1e9);
	s->settle = s->interval / 2 < GD_NS_PER_S / 4 ? s->interval / 2 : GD_NS_PER_S / 4;
	s->poll = s->interval < GD_NS_PER_S / 20 ? s->interval : GD_NS_PER_S / 20;
	s->end = o->duration > 0 ? s->t0 + (int64_t)(o->duration * 1e9) : INT64_MAX;
	s->a = s->t0;
	s->b = s->t0 + s->interval;
	if (trace)
		trace_set_origin(trace, s->t0);
	for (int i = 0; i < o->procs; i++)
		if (sup_spawn(&s->sup, err, errlen) < 0) {
			session_stop(s);
			return -1;
		}
	return 0;
}

bool session_poll(struct gd_session *s, int64_t now)
{
	sup_service(&s->sup, now, s->a);
	int64_t b = s->b < s->end ? s->b : s->end;
	if (now < b + s->settle || s->a >= s->end)
		return false;
	collect_window(&s->sup, s->t0, s->a, b, &s->frame);
	if (s->trace)
		trace_flush(s->trace);
	s->a = b;
	s->b = b + s->interval;
	return true;
}

int64_t session_wait(const struct gd_session *s, int64_t now)
{
	int64_t b = s->b < s->end ? s->b : s->end;
	int64_t due = b + s->settle - now;
	return due < s->poll ? (due > 0 ? due : 0) : s->poll;
}

bool session_done(const struct gd_session *s)
{
	return s->a >= s->end;
}

void session_restart_clock(struct gd_session *s, int64_t now)
{
	sup_service(&s->sup, now, s->a); /* read what completed so far, then forget it */
	sup_reset(&s->sup);
	s->a = now;
	s->b = now + s->interval;
}

int session_stop(struct gd_session *s)
{
	sup_shutdown(&s->sup);
	collect_frame_free(&s->frame);
	int rc = trace_close(s->trace);
	s->trace = NULL;
	return rc;
}
