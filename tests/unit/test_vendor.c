/* test_vendor.c: the vendor source (src/vendor/) driven through the fake libnvidia-ml
 * (tests/fake/fake_nvml.c, named by GPUTOP_DECODE_NVML): a device matched by its UUID or PCI
 * address, each value read and checked, the process list and its samples, and every way the
 * library can fail (missing, lacking a function, failing to start, refusing a call, answering
 * nonsense) giving "absent" or NAN: no crash, nothing printed, nothing left allocated. */
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputop/common.h"
#include "measure/figures.h"
#include "tap.h"
#include "vendor/vendor.h"

static char fake_dir[PATH_MAX + 16];
static void *fake_lib;         /* the whole fake, held open so its counts outlive the source's */
static int (*fake_live)(void); /* inits and GPM samples not released */

/* The fakes sit in ../fake/ beside this binary's folder (the Makefile's FAKE_NVML). */
static void find_fakes(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(fake_dir, sizeof(fake_dir), "%s/../fake", exe);
}

static void use(const char *variant, const char *script)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/nvml-%s.so", fake_dir, variant);
	setenv("GPUTOP_DECODE_NVML", path, 1);
	setenv("GPUTOP_FAKE_NVML", script, 1);
}

static struct gd_device pci_device(const char *pci)
{
	struct gd_device d;
	memset(&d, 0, sizeof(d));
	str_copy(d.pci, sizeof(d.pci), pci);
	return d;
}

static bool all_nan(const struct gd_vendor_sample *s)
{
	return isnan(s->driver_util) && isnan(s->mem_used_bytes) && isnan(s->sm_active) &&
	       isnan(s->sm_occupancy);
}

static void test_pure(void)
{
	const unsigned char u[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
		                      0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	char text[48];
	vendor_uuid_text(text, sizeof(text), u);
	tap_ok(strcmp(text, "GPU-00112233-4455-6677-8899-aabbccddeeff") == 0, "a UUID's text is NVML's: %s",
	       text);
	tap_ok(vendor_share(52) == 0.52 && vendor_share(0) == 0 && vendor_share(100) == 1,
	       "a percentage becomes a share");
	tap_ok(isnan(vendor_share(-1)) && isnan(vendor_share(100.5)) && isnan(vendor_share(NAN)),
	       "a percentage outside 0..100 is not measured");
	struct gd_vendor_sample s;
	struct gd_vendor_proc p[2];
	vendor_sample(NULL, &s);
	tap_ok(all_nan(&s) && vendor_procs(NULL, p, 2) == -1,
	       "an absent source measures nothing and knows no processes");
	vendor_close(NULL);
}

/* Every way the library can be unusable: no source, nothing else. */
static void test_absent(void)
{
	struct gd_device d = pci_device("0000:17:00.0");
	setenv("GPUTOP_DECODE_NVML", "/nonexistent/libnvidia-ml.so.1", 1);
	tap_ok(vendor_open(&d) == NULL, "a missing library: absent");
	setenv("GPUTOP_DECODE_NVML", "", 1);
	setenv("GPUTOP_DECODE_NVML", "", 1);
	tap_ok(vendor_open(&d) == NULL, "GPUTOP_DECODE_NVML set but empty: off");
	use("nosym", "util=50");
	tap_ok(vendor_open(&d) == NULL, "a library lacking nvmlDeviceGetUtilizationRates: absent");
	use("full", "init=ERR util=50");
	tap_ok(vendor_open(&d) == NULL, "nvmlInit_v2 failing: absent");
	use("full", "count=0 util=50");
	tap_ok(vendor_open(&d) == NULL, "no NVIDIA device at all: absent");
	use("full", "pci=0000:17:00.0 util=50");
	struct gd_device other = pci_device("0000:18:00.0"), none = pci_device("");
	tap_ok(vendor_open(&other) == NULL, "a device at another PCI address: absent");
	tap_ok(vendor_open(&none) == NULL, "a device OpenCL gives no address or UUID for (PoCL): absent");
	tap_ok(fake_live() == 0, "each failed open leaves nothing initialised");
}

static void test_match(void)
{
	struct gd_device d = pci_device("0000:17:00.0");
	const unsigned char u[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
		                      0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	memcpy(d.uuid, u, sizeof(u));
	d.has_uuid = true;
	use("full", "uuid=GPU-00112233-4455-6677-8899-AABBCCDDEEFF pci=0000:99:00.0 util=1 mem=1/2");
	struct gd_vsource *s = vendor_open(&d);
	tap_ok(s != NULL, "matched by its UUID");
	vendor_close(s);
	use("full", "uuid=GPU-ffffffff-4455-6677-8899-aabbccddeeff pci=0000:17:00.0 util=1 mem=1/2");
	s = vendor_open(&d);
	tap_ok(s != NULL, "an unknown UUID, then its PCI address");
	vendor_close(s);
}

static void test_values(void)
{
	struct gd_device d = pci_device("0000:17:00.0");
	use("full", "util=52 mem=1000/8000 gpm=30:20 procs=100:4096,200:- putil=100:40,100:60");
	struct gd_vsource *s = vendor_open(&d);
	struct gd_vendor_sample v;
	vendor_sample(s, &v);
	tap_ok(v.driver_util == 0.52 && v.mem_used_bytes == 1000, "the driver's utilization and memory");
	tap_ok(isnan(v.sm_active) && isnan(v.sm_occupancy), "GPM: nothing in the first window");
	vendor_sample(s, &v);
	tap_ok(fabs(v.sm_active - 0.30) < 1e-12 && fabs(v.sm_occupancy - 0.20) < 1e-12,
	       "GPM: SM activity and occupancy between two windows");
	struct gd_vendor_proc p[4];
	int n = vendor_procs(s, p, 4);
	tap_ok(n == 2 && p[0].pid == 100 && p[0].mem_bytes == 4096 && p[1].pid == 200 &&
	           isnan(p[1].mem_bytes),
	       "the compute processes with their memory (NAN: not available)");
	tap_ok(n == 2 && p[0].sm_util == 0.5 && p[1].sm_util == 0,
	       "each one's SM share: the mean of its samples, 0 without any");
	setenv("GPUTOP_FAKE_NVML", "util=ERR mem=9000/8000 gpm=ERR procs=ERR putil=ERR", 1);
	vendor_sample(s, &v);
	tap_ok(all_nan(&v), "a call refused, or memory above the total: NAN");
	tap_ok(vendor_procs(s, p, 4) == -1, "a list refused: not known");
	setenv("GPUTOP_FAKE_NVML",
	       "util=150 mem=5/0 procs=1:1,2:2,3:3,4:4,5:5,6:6,7:7,8:8,9:9,10:10 putil=ERR", 1);
	vendor_sample(s, &v);
	tap_ok(isnan(v.driver_util) && isnan(v.mem_used_bytes), "a percentage above 100, a total of 0: NAN");
	n = vendor_procs(s, p, 4);
	tap_ok(n == 10 && p[3].pid == 4 && isnan(p[0].sm_util),
	       "a longer list: its length, the first that fit");
	setenv("GPUTOP_FAKE_NVML", "procs= putil=", 1);
	tap_ok(vendor_procs(s, p, 4) == 0, "no processes: an empty list");
	tap_ok(fake_live() == 3, "one init and two GPM samples while open");
	vendor_close(s);
	tap_ok(fake_live() == 0, "closed: shut down, every GPM sample freed");
}

static void test_partial(void)
{
	struct gd_device d = pci_device("0000:17:00.0");
	use("full", "util=10 mem=1/2 gpm=UNSUPPORTED");
	struct gd_vsource *a = vendor_open(&d), *b = vendor_open(&d);
	struct gd_vendor_sample v;
	vendor_sample(a, &v);
	vendor_sample(a, &v);
	tap_ok(a && b && v.driver_util == 0.1 && isnan(v.sm_active), "a GPU without GPM: the rest measured");
	tap_ok(fake_live() == 1, "two devices share one init");
	vendor_close(a);
	vendor_close(b);
	use("old", "util=10 mem=1/2 gpm=30:20 procs=7:70 putil=7:50");
	struct gd_vsource *s = vendor_open(&d);
	struct gd_vendor_proc p[2];
	vendor_sample(s, &v);
	vendor_sample(s, &v);
	int n = vendor_procs(s, p, 2);
	tap_ok(s && v.driver_util == 0.1 && isnan(v.sm_active), "an older driver without GPM");
	tap_ok(n == 1 && p[0].pid == 7 && p[0].mem_bytes == 70 && isnan(p[0].sm_util),
	       "an older driver: the _v2 list, no samples");
	vendor_close(s);
}

/* The frame's vendor figures: each device's from its source, the run's from the devices'. */
static void test_fill(void)
{
	struct gd_device d = pci_device("0000:17:00.0");
	use("full", "util=40 mem=100/800 gpm=UNSUPPORTED");
	struct gd_vsource *src[2] = { vendor_open(&d), NULL };
	struct gd_frame f;
	memset(&f, 0, sizeof(f));
	f.ndevs = 2;
	vendor_fill(src, &f);
	struct gd_fig_at run = { .f = &f, .s = &f.agg },
	                 dev0 = { .f = &f, .s = &f.devs[0].agg, .dev = &f.devs[0] };
	tap_ok(figure_value(GD_FIGURE(DRIVER_UTIL), &dev0) == 0.4 &&
	           figure_value(GD_FIGURE(MEM_USED_BYTES), &dev0) == 100 &&
	           isnan(figure_value(GD_FIGURE(SM_ACTIVE), &dev0)),
	       "a device's figures are its source's");
	tap_ok(isnan(f.devs[1].driver_util) && isnan(f.devs[1].mem_used_bytes) &&
	           isnan(figure_value(GD_FIGURE(DRIVER_UTIL), &run)),
	       "a device without a source has none, nor has the run");
	src[1] = vendor_open(&d);
	vendor_fill(src, &f);
	tap_ok(figure_value(GD_FIGURE(DRIVER_UTIL), &run) == 0.4 &&
	           figure_value(GD_FIGURE(MEM_USED_BYTES), &run) == 200,
	       "the run's: the shares' mean, the memory's sum");
	vendor_fill(NULL, &f);
	tap_ok(isnan(f.driver_util) && isnan(f.devs[0].driver_util) && isnan(f.devs[0].sm_occupancy),
	       "a frame with nothing measured: every one NAN");
	vendor_close(src[0]);
	vendor_close(src[1]);
	tap_ok(fake_live() == 0, "closed: nothing left");
}

/* The processes on a device: the rows' own matched by pid, the tool's children left out, every
 * other one an outside row with its command, never more than GD_OUTSIDE_MAX of them. */
static void test_procs(void)
{
	struct gd_device d = pci_device("0000:17:00.0");
	pid_t kid = fork();
	if (kid == 0) {
		pause();
		_exit(0);
	}
	char script[512];
	snprintf(script, sizeof(script),
	         "util=40 mem=100/800 gpm=UNSUPPORTED procs=4000001:64,%d:32,%d:16,1:8 "
	         "putil=4000001:30,1:20",
	         (int)getpid(), (int)kid);
	use("full", script);
	struct gd_vsource *src[1] = { vendor_open(&d) };
	struct gd_sample w[2];
	memset(w, 0, sizeof(w));
	w[0].pid = 4000001;
	w[1].pid = 4000002;
	struct gd_frame f;
	memset(&f, 0, sizeof(f));
	f.ndevs = 1;
	f.nworkers = 2;
	f.workers = w;
	vendor_fill(src, &f);
	struct gd_fig_at at0 = { .f = &f, .s = &w[0] }, at1 = { .f = &f, .s = &w[1] };
	tap_ok(f.devs[0].listed && figure_value(GD_FIGURE(MEM_USED_BYTES), &at0) == 64 &&
	           figure_value(GD_FIGURE(DRIVER_SM), &at0) == 0.3,
	       "a row the driver lists: its memory and SM share");
	tap_ok(isnan(figure_value(GD_FIGURE(MEM_USED_BYTES), &at1)) &&
	           isnan(figure_value(GD_FIGURE(DRIVER_SM), &at1)),
	       "a row the driver does not list: none");
	char comm[16] = "";
	FILE *c = fopen("/proc/1/comm", "r");
	if (c && fgets(comm, sizeof(comm), c))
		comm[strcspn(comm, "\n")] = '\0';
	if (c)
		fclose(c);
	tap_ok(f.noutside == 1 && f.outside[0].pid == 1 && f.outside[0].mem_bytes == 8 &&
	           f.outside[0].sm == 0.2 && f.outside[0].device == 0 && strcmp(f.outside[0].comm, comm) == 0,
	       "the tool and its child left out; another process an outside row, with its command");
	char many[2048] = "procs=";
	for (int i = 0; i < GD_OUTSIDE_MAX + 3; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%d:1", i ? "," : "",
		         4100000 + i);
	use("full", many);
	vendor_fill(src, &f);
	tap_ok(f.noutside == GD_OUTSIDE_MAX && f.noutside_more == 3 && !f.outside[0].comm[0],
	       "outside rows: at most GD_OUTSIDE_MAX, the rest counted; an ended one without command");
	vendor_fill(NULL, &f);
	tap_ok(!f.devs[0].listed && f.noutside == 0 && !w[0].drv.listed &&
	           isnan(figure_value(GD_FIGURE(MEM_USED_BYTES), &at0)),
	       "without a source: no list, no outside rows, no memory");
	vendor_close(src[0]);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
}

/* GPUTOP_DECODE_DEVICE_PCI: the bus id taken for a device whose driver gives none (PoCL). */
static void test_pci_hook(void)
{
	struct gd_device none = pci_device(""), own = pci_device("0000:18:00.0");
	use("full", "pci=0000:17:00.0 util=10 mem=1/2");
	struct gd_vsource *a = vendor_open(&none);
	setenv("GPUTOP_DECODE_DEVICE_PCI", "0000:17:00.0", 1);
	struct gd_vsource *b = vendor_open(&none), *c = vendor_open(&own);
	unsetenv("GPUTOP_DECODE_DEVICE_PCI");
	tap_ok(!a && b && !c, "the hook names a device without a bus id, never overrides one");
	vendor_close(b);
}

int main(void)
{
	find_fakes();
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/nvml-full.so", fake_dir);
	fake_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!fake_lib) {
		printf("Bail out! the fake libnvidia-ml is not built: %s\n", dlerror());
		return 1;
	}
	*(void **)&fake_live = dlsym(fake_lib, "fake_nvml_live");
	/* Nothing the source does may show on the terminal: its stderr goes to a file. */
	FILE *err = tmpfile();
	int saved = dup(STDERR_FILENO);
	dup2(fileno(err), STDERR_FILENO);
	test_pure();
	test_absent();
	test_match();
	test_values();
	test_partial();
	test_fill();
	test_procs();
	test_pci_hook();
	dup2(saved, STDERR_FILENO);
	close(saved);
	tap_ok(ftell(err) == 0 && lseek(fileno(err), 0, SEEK_END) == 0, "nothing printed on stderr");
	fclose(err);
	dlclose(fake_lib);
	return tap_done();
}
