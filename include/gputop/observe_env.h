/* observe_env.h: what the supervisor puts in the environment of an observed program (-- COMMAND)
 * and libgputop-observe.so reads there: the run the process belongs to and how it profiles.
 * Besides these, the supervisor names the library in OPENCL_LAYERS and LD_PRELOAD, as
 * --observe-via asks (doc/observe.md). */
#ifndef GPUTOP_OBSERVE_ENV_H
#define GPUTOP_OBSERVE_ENV_H

/* The run: "<supervisor pid>:<token>", the pid in decimal and the token as 16 hex digits. The
 * token is the run's 64 random bits, never 0 (the library takes 0 for no token); it is in the
 * name of every segment of the run (seg_name_observed, wire.h) and is their generation. Without
 * this variable the library only passes calls on. The sentinel finds the run's processes by
 * this whole entry. */
#define GD_OBS_ENV_RUN     "GPUTOP_DECODE_OBSERVE"
#define GD_OBS_ENV_RUN_FMT "%d:%016llx" /* (int)pid, (unsigned long long)token */

/* The profiling policy: a name of enum gd_profile (gd_profile_name: full, sampled, off); the
 * library takes anything else, or none, for sampled. */
#define GD_OBS_ENV_PROFILE "GPUTOP_DECODE_OBSERVE_PROFILE"

/* --sample-every, in decimal (1 to GD_SAMPLE_MAX): one batch in this many per queue is profiled
 * under sampled. Absent (the option not given), or out of range: the library's own period. */
#define GD_OBS_ENV_EVERY "GPUTOP_DECODE_OBSERVE_EVERY"

#endif
