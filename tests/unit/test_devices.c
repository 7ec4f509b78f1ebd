/* test_devices.c: several devices as pure functions: selecting devices from a list, placing
 * workers round robin, and per-device aggregates (device_busy from each device's workers
 * alone), with fake devices and synthetic records. */
#include <math.h>
#include <string.h>

#include "measure/collect.h"
#include "gputop/common.h"
#include "gputop/device.h"
#include "session/supervisor.h"
#include "tap.h"

static struct gd_device fake(int p, int d, const char *name, bool gpu)
{
	struct gd_device dev;
	memset(&dev, 0, sizeof(dev));
	dev.platform = p;
	dev.index = d;
	dev.gpu = gpu;
	device_ref_text(dev.ref, sizeof(dev.ref), p, d);
	str_copy(dev.name, sizeof(dev.name), name);
	return dev;
}

/* Platform 0: a CPU; platform 1: two GPUs and a CPU. */
static const char *selected(const struct gd_devspec *spec, char *err, size_t errlen)
{
	static char buf[128];
	struct gd_device all[4] = { fake(0, 0, "pthread-cpu", false), fake(1, 0, "NVIDIA H200", true),
		                    fake(1, 1, "NVIDIA H200", true), fake(1, 2, "host cpu", false) };
	struct gd_device out[GD_DEVICES_MAX];
	int n = -1;
	err[0] = '\0';
	if (device_select(all, 4, spec, out, &n, err, errlen))
		return NULL;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		size_t l = strlen(buf);
		char ref[24];
		device_ref_text(ref, sizeof(ref), out[i].platform, out[i].index);
		/* Each selected device keeps its label, and it is its P:D. */
		snprintf(buf + l, sizeof(buf) - l, "%s%s", i ? "," : "", strcmp(ref, out[i].ref) ? "?" : ref);
	}
	return buf;
}

static bool is(const char *got, const char *want)
{
	return got && strcmp(got, want) == 0;
}

static void test_select(void)
{
	char err[256];
	struct gd_devspec s = { .sel = GD_DEVSEL_DEFAULT };
	tap_ok(is(selected(&s, err, sizeof(err)), "1:0"), "default: the first GPU");
	s.sel = GD_DEVSEL_ALL;
	tap_ok(is(selected(&s, err, sizeof(err)), "1:0,1:1"),
	       "all: the GPUs of the first platform with GPUs");
	s = (struct gd_devspec){ .sel = GD_DEVSEL_NAME, .name = "h200" };
	tap_ok(is(selected(&s, err, sizeof(err)), "1:0,1:1"), "a name substring, any case: every match");
	s.name = "cpu";
	tap_ok(is(selected(&s, err, sizeof(err)), "0:0,1:2"), "a substring across platforms, in P:D order");
	s.name = "nope";
	tap_ok(!selected(&s, err, sizeof(err)) && strstr(err, "'nope'") && strstr(err, "see --list-devices"),
	       "a substring that matches nothing, near no word: %s", err);
	s.name = "h2000";
	tap_ok(!selected(&s, err, sizeof(err)) && strstr(err, "(did you mean H200?)"),
	       "a mistyped name gets the nearest word of the devices' names: %s", err);
	s = (struct gd_devspec){ .sel = GD_DEVSEL_LIST, .n = 2, .list = { { 1, 1 }, { 0, 0 } } };
	tap_ok(is(selected(&s, err, sizeof(err)), "1:1,0:0"), "a list: exactly these, in its order");
	s.list[1] = (struct gd_devref){ 1, 5 };
	tap_ok(!selected(&s, err, sizeof(err)) && strstr(err, "no device 1:5"),
	       "a list naming a missing device: %s", err);

	/* No GPU anywhere: all is every device of the first platform. */
	struct gd_device cpus[3] = { fake(0, 0, "a", false), fake(0, 1, "b", false), fake(1, 0, "c", false) };
	struct gd_device out[GD_DEVICES_MAX];
	int n = 0;
	s = (struct gd_devspec){ .sel = GD_DEVSEL_ALL };
	tap_ok(device_select(cpus, 3, &s, out, &n, err, sizeof(err)) == 0 && n == 2 && out[1].index == 1 &&
	           out[1].platform == 0,
	       "all without a GPU: every device of the first platform");
}

static void test_place(void)
{
	int active[3] = { 0, 0, 0 };
	char order[16] = "";
	for (int i = 0; i < 7; i++) {
		int d = sup_place(active, 3);
		active[d]++;
		order[i] = (char)('0' + d);
	}
	tap_ok(strcmp(order, "0120120") == 0, "workers started one by one go round robin: %s", order);
	int uneven[3] = { 2, 1, 1 };
	tap_ok(sup_place(uneven, 3) == 1, "the device with the fewest, ties to the lowest index");
	int one[1] = { 5 };
	tap_ok(sup_place(one, 1) == 0, "one device takes every worker");
}

/* A profiled batch of worker w with one kernel [ks, ke), completed at ke + 1000. */
static struct gd_rec batch(uint64_t b, int64_t ks, int64_t ke)
{
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	int64_t kv[1][2] = { { ks, ke } };
	r.batch = b;
	r.items = 1000000;
	r.kernels = 1;
	r.flags = GD_REC_DEVTIME;
	r.t_begin = ks - 2000;
	r.t_gen = ks - 1000;
	gd_rec_set_kernels(&r, (const int64_t(*)[2])kv, 1);
	r.t_end = ke + 1000;
	return r;
}

static struct gd_row_info worker(unsigned id, int device)
{
	struct gd_row_info w;
	memset(&w, 0, sizeof(w));
	w.id = id;
	w.pid = (pid_t)(1000 + id);
	w.device = device;
	w.alive = w.active = true;
	w.state = GD_ST_RUNNING;
	w.timebase = GD_TB_OFFSET;
	return w;
}

static void test_aggregate(void)
{
	const int64_t s = GD_NS_PER_S, t0 = 100 * s;
	struct gd_device devs[3] = { fake(1, 0, "gpu a", true), fake(1, 1, "gpu b", true),
		                     fake(0, 0, "cpu", false) };
	struct gd_collector *c = collect_new(t0, true, devs, 3);
	/* Workers 1 and 3 on 1:0, [0, 0.6) and [0.2, 0.6) s: on a GPU contexts take turns, so
	 * what looks like overlap (estimates can) was not: 0.6 + 0.4 s, the whole second. Worker 2
	 * on 1:1, [0.2, 0.6): 0.4 s. Nothing on 0:0. A union over all three would give 0.6 s for
	 * one device: each device counts only its own. */
	struct gd_row_info w[3] = { worker(1, 0), worker(2, 1), worker(3, 0) };
	struct gd_rec r1 = batch(0, t0, t0 + 6 * s / 10), r2 = batch(0, t0 + 2 * s / 10, t0 + 6 * s / 10),
	              r3 = batch(0, t0 + 2 * s / 10, t0 + 6 * s / 10);
	collect_push(c, &w[0], &r1);
	collect_push(c, &w[1], &r2);
	collect_push(c, &w[2], &r3);
	struct gd_frame f;
	memset(&f, 0, sizeof(f));
	collect_window(c, w, 3, t0, t0 + s, &f);
	tap_ok(f.ndevs == 3 && f.nworkers == 3, "one aggregate per device");
	tap_ok(f.workers[0].id == 1 && f.workers[1].id == 2 && f.workers[2].id == 3,
	       "worker samples keep the supervisor's order");
	tap_ok(f.workers[1].device == 1 && strcmp(frame_device_ref(&f, f.workers[1].device), "1:1") == 0 &&
	           f.workers[2].device == 0 && strcmp(frame_device_ref(&f, f.workers[2].device), "1:0") == 0,
	       "each sample names its device: %s", frame_device_ref(&f, f.workers[1].device));
	tap_ok(fabs(f.devs[0].device_busy - 1.0) < 1e-6 && f.devs[0].busy_per_context && f.busy_per_context,
	       "1:0, a GPU, busy: the sum of its two workers' own busy time, at most 1 (%.4f)",
	       f.devs[0].device_busy);
	tap_ok(fabs(f.devs[1].device_busy - 0.4) < 1e-6, "1:1 busy: its one worker (%.4f)",
	       f.devs[1].device_busy);
	tap_ok(f.devs[2].device_busy == 0 && f.devs[2].procs == 0 && isnan(f.devs[2].headroom),
	       "a device without workers: idle");
	tap_ok(f.devs[0].procs == 2 && f.devs[1].procs == 1 && f.procs == 3, "live workers per device");
	tap_ok(fabs(f.devs[0].agg.rate - 2.0) < 1e-9 && fabs(f.devs[1].agg.rate - 1.0) < 1e-9 &&
	           fabs(f.agg.rate - 3.0) < 1e-9,
	       "Mbit/s per device and overall");
	tap_ok(fabs(f.device_busy - (1.0 + 0.4 + 0) / 3) < 1e-6,
	       "overall busy: the mean of the devices' (%.4f)", f.device_busy);
	tap_ok(f.agg.device == -1 && strcmp(frame_device_ref(&f, f.agg.device), "all") == 0 &&
	           f.devs[2].agg.device == 2 && strcmp(f.devs[2].ref, "0:0") == 0 &&
	           strcmp(frame_device_ref(&f, f.devs[2].agg.device), "0:0") == 0,
	       "the aggregate is \"all\", a device's aggregate its P:D");
	TAP_EQ_U(f.devs[0].agg.batches + f.devs[1].agg.batches, f.agg.batches, "batches add up");

	/* One device, a CPU: processes run side by side, busy is the union over every worker. */
	struct gd_collector *one = collect_new(t0, true, &devs[2], 1);
	struct gd_row_info w1[2] = { worker(1, 0), worker(2, 0) };
	collect_push(one, &w1[0], &r1);
	collect_push(one, &w1[1], &r2);
	collect_window(one, w1, 2, t0, t0 + s, &f);
	tap_ok(f.ndevs == 1 && fabs(f.device_busy - 0.6) < 1e-6 && fabs(f.devs[0].device_busy - 0.6) < 1e-6 &&
	           !f.busy_per_context,
	       "one CPU device: the overall busy is that device's union");

	/* One worker whose records overlap in [0.4, 0.6) s: its kernel busy is its union, 0.8 s. */
	struct gd_collector *lap = collect_new(t0, true, devs, 1);
	struct gd_rec a1 = batch(0, t0, t0 + 6 * s / 10), a2 = batch(1, t0 + 4 * s / 10, t0 + 8 * s / 10);
	collect_push(lap, &w1[0], &a1);
	collect_push(lap, &w1[0], &a2);
	collect_window(lap, w1, 1, t0, t0 + s, &f);
	tap_ok(fabs(f.workers[0].kernel_busy - 0.8) < 1e-6 && fabs(f.device_busy - 0.8) < 1e-6,
	       "overlapping records of one worker: its kernel busy is their union (%.4f), not 1.0",
	       f.workers[0].kernel_busy);
	collect_frame_free(&f);
	collect_free(lap);
	collect_free(one);
	collect_free(c);
}

int main(void)
{
	test_select();
	test_place();
	test_aggregate();
	return tap_done();
}
