/* fake_nvml.c: a stand-in for NVIDIA's libnvidia-ml.so.1, which the tests name through
 * GPUTOP_DECODE_NVML, so that the vendor source runs on a machine without an NVIDIA GPU. It has
 * the real library's symbols and ABI (declared here from nvml.h, independently of
 * src/vendor/nvml.c, so a mistake in either shows), and answers what the environment variable
 * GPUTOP_FAKE_NVML says, read again at every call; where GPUTOP_FAKE_NVML_FILE names a file,
 * what the file says instead, read again at every call too, so that a test can list processes
 * it learns of once the run started (its workers' pids). Its words, separated by spaces or
 * lines:
 *
 *   count=N              devices (1)
 *   pci=ID uuid=ID       the one device's bus id and UUID; a lookup of anything else is
 *                        NVML_ERROR_NOT_FOUND (not given: every lookup finds it)
 *   init=ERR             nvmlInit_v2 fails
 *   util=P               utilization.gpu, percent
 *   mem=USED/TOTAL       bytes
 *   procs=PID:MEM,...    the compute processes (MEM "-": not available); "procs=" none
 *   putil=PID:SM,...     each process's SM samples, percent; "putil=" none
 *   gpm=SM:OCC           GPM's SM activity and occupancy, percent
 *   gpm=UNSUPPORTED      the device does not take GPM samples
 *
 * Any value ERR makes that call NVML_ERROR_NOT_SUPPORTED; a word not given, too.
 * Built three ways: whole; -DFAKE_OLD, an older driver's (no _v3 list, no GPM, no process
 * samples, no _v2 count); -DFAKE_LACKS_UTIL, lacking a function every sample needs.
 * fake_nvml_live() says how many inits and GPM samples are not released yet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NVML_SUCCESS                 0
#define NVML_ERROR_UNINITIALIZED     1
#define NVML_ERROR_INVALID_ARGUMENT  2
#define NVML_ERROR_NOT_SUPPORTED     3
#define NVML_ERROR_NOT_FOUND         6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define FAKE_MAX                     64

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;
typedef struct {
	unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;
typedef struct {
	unsigned int pid;
	unsigned long long timeStamp;
	unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;
typedef struct {
	unsigned int version, isSupportedDevice;
} nvmlGpmSupport_t;
typedef struct {
	unsigned int metricId;
	nvmlReturn_t nvmlReturn;
	double value;
	struct {
		char *shortName, *longName, *unit;
	} metricInfo;
} nvmlGpmMetric_t;
typedef struct {
	unsigned int version, numMetrics;
	nvmlGpmSample_t sample1, sample2;
	nvmlGpmMetric_t metrics[98]; /* NVML_GPM_METRIC_MAX of the 12.0 header */
} nvmlGpmMetricsGet_t;

#define EXPORT __attribute__((visibility("default")))

/* The library's functions, as nvml.h declares them. */
EXPORT nvmlReturn_t nvmlInit_v2(void);
EXPORT nvmlReturn_t nvmlShutdown(void);
EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *n);
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n);
EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *id, nvmlDevice_t *h);
EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *id, nvmlDevice_t *h);
EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t *u);
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t *m);
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t h, unsigned int *n,
                                                            nvmlProcessInfo_t *p);
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t h, unsigned int *n,
                                                            nvmlProcessInfo_t *p);
EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t h, nvmlProcessUtilizationSample_t *s,
                                                    unsigned int *n, unsigned long long last_seen);
EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t h, nvmlGpmSupport_t *s);
EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *s);
EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t s);
EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t h, nvmlGpmSample_t s);
EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *m);
EXPORT int fake_nvml_live(void);

static int inits, gpm_live;
static struct nvmlDevice_st {
	int unused;
} the_device;
#ifndef FAKE_OLD
static unsigned long long clock_us = 1000; /* the process samples' timestamps */
static struct nvmlGpmSample_st {
	int used;
} samples[16];
#endif

/* The script: GPUTOP_FAKE_NVML_FILE's file where it names one (a file that cannot be read: an
 * empty script), else GPUTOP_FAKE_NVML. */
static const char *script(void)
{
	static char text[8192];
	const char *path = getenv("GPUTOP_FAKE_NVML_FILE");
	if (!path || !*path)
		return getenv("GPUTOP_FAKE_NVML");
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	return text;
}

/* The value of word key in the script, copied into buf; NULL when not given. */
static const char *word(const char *key, char *buf, size_t n)
{
	const char *s = script();
	size_t k = strlen(key);
	while (s && *s) {
		s += strspn(s, " \n");
		size_t len = strcspn(s, " \n");
		if (len > k && strncmp(s, key, k) == 0 && s[k] == '=') {
			snprintf(buf, n, "%.*s", (int)(len - k - 1), s + k + 1);
			return buf;
		}
		s += len;
	}
	return NULL;
}

/* Word key as a number (*v), or the error it makes. */
static nvmlReturn_t number(const char *key, unsigned long long *v)
{
	char buf[64];
	if (!word(key, buf, sizeof(buf)) || strcmp(buf, "ERR") == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*v = strtoull(buf, NULL, 0);
	return NVML_SUCCESS;
}

/* A list "A:B,A:B" into a[], b[] (B "-": all bits set); how many, or -1 for ERR or not given. */
static int pairs(const char *key, unsigned long long *a, unsigned long long *b)
{
	char buf[2048];
	if (!word(key, buf, sizeof(buf)) || strcmp(buf, "ERR") == 0)
		return -1;
	int n = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && n < FAKE_MAX;
	     t = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(t, ':');
		a[n] = strtoull(t, NULL, 0);
		b[n] = colon && strcmp(colon + 1, "-") != 0 ? strtoull(colon + 1, NULL, 0) : ~0ULL;
		n++;
	}
	return n;
}

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
	char buf[16];
	if (word("init", buf, sizeof(buf)))
		return NVML_ERROR_UNINITIALIZED;
	inits++;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlShutdown(void)
{
	inits--;
	return NVML_SUCCESS;
}

#ifdef FAKE_OLD
#define COUNT_NAME nvmlDeviceGetCount
#else
#define COUNT_NAME nvmlDeviceGetCount_v2
#endif
EXPORT nvmlReturn_t COUNT_NAME(unsigned int *n)
{
	unsigned long long v = 1;
	if (number("count", &v) != NVML_SUCCESS)
		v = 1;
	*n = (unsigned int)v;
	return inits > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

static nvmlReturn_t lookup(const char *key, const char *id, nvmlDevice_t *h)
{
	char want[96];
	if (inits <= 0)
		return NVML_ERROR_UNINITIALIZED;
	if (!id || !h)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (word(key, want, sizeof(want)) && strcasecmp(want, id) != 0)
		return NVML_ERROR_NOT_FOUND;
	*h = &the_device;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *id, nvmlDevice_t *h)
{
	return lookup("pci", id, h);
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *id, nvmlDevice_t *h)
{
	return lookup("uuid", id, h);
}

#ifndef FAKE_LACKS_UTIL
EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t *u)
{
	unsigned long long v;
	nvmlReturn_t rc = h == &the_device ? number("util", &v) : NVML_ERROR_INVALID_ARGUMENT;
	if (rc == NVML_SUCCESS)
		*u = (nvmlUtilization_t){ (unsigned int)v, 0 };
	return rc;
}
#endif

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t *m)
{
	char buf[64];
	if (h != &the_device)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!word("mem", buf, sizeof(buf)) || strcmp(buf, "ERR") == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	char *slash = strchr(buf, '/');
	m->used = strtoull(buf, NULL, 0);
	m->total = slash ? strtoull(slash + 1, NULL, 0) : 0;
	m->free = m->total > m->used ? m->total - m->used : 0;
	return NVML_SUCCESS;
}

/* The list as NVML gives it: the count always, the entries only where they fit. */
static nvmlReturn_t procs(nvmlDevice_t h, unsigned int *n, nvmlProcessInfo_t *p)
{
	unsigned long long pid[FAKE_MAX], mem[FAKE_MAX];
	if (h != &the_device || !n)
		return NVML_ERROR_INVALID_ARGUMENT;
	int k = pairs("procs", pid, mem);
	if (k < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	unsigned int room = *n;
	*n = (unsigned int)k;
	if ((unsigned int)k > room || (k && !p))
		return NVML_ERROR_INSUFFICIENT_SIZE;
	for (int i = 0; i < k; i++)
		p[i] = (nvmlProcessInfo_t){ (unsigned int)pid[i], mem[i], 0, 0 };
	return NVML_SUCCESS;
}

#ifdef FAKE_OLD
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t h, unsigned int *n,
                                                            nvmlProcessInfo_t *p)
{
	return procs(h, n, p);
}
#else
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t h, unsigned int *n,
                                                            nvmlProcessInfo_t *p)
{
	return procs(h, n, p);
}
#endif

#ifndef FAKE_OLD
/* Every call makes the samples anew, each newer than any before. */
EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t h, nvmlProcessUtilizationSample_t *s,
                                                    unsigned int *n, unsigned long long last_seen)
{
	unsigned long long pid[FAKE_MAX], sm[FAKE_MAX];
	if (h != &the_device || !n)
		return NVML_ERROR_INVALID_ARGUMENT;
	int k = pairs("putil", pid, sm);
	if (k < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if (k == 0)
		return NVML_ERROR_NOT_FOUND;
	unsigned int room = *n;
	*n = (unsigned int)k;
	if (!s || (unsigned int)k > room)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	clock_us = (clock_us > last_seen ? clock_us : last_seen) + 1;
	for (int i = 0; i < k; i++)
		s[i] = (nvmlProcessUtilizationSample_t){
			(unsigned int)pid[i], clock_us, (unsigned int)sm[i], 0, 0, 0
		};
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t h, nvmlGpmSupport_t *s)
{
	char buf[32];
	if (h != &the_device || !s || s->version != 1)
		return NVML_ERROR_INVALID_ARGUMENT;
	s->isSupportedDevice = !(word("gpm", buf, sizeof(buf)) && strcmp(buf, "UNSUPPORTED") == 0);
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *s)
{
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		if (!samples[i].used) {
			samples[i].used = 1;
			*s = &samples[i];
			gpm_live++;
			return NVML_SUCCESS;
		}
	return NVML_ERROR_INSUFFICIENT_SIZE;
}

EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t s)
{
	if (!s || !s->used)
		return NVML_ERROR_INVALID_ARGUMENT;
	s->used = 0;
	gpm_live--;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t h, nvmlGpmSample_t s)
{
	return h == &the_device && s && s->used ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *m)
{
	char buf[64];
	if (!m || m->version != 1 || m->numMetrics > 98 || !m->sample1 || !m->sample2 ||
	    m->sample1 == m->sample2)
		return NVML_ERROR_INVALID_ARGUMENT;
	const char *g = word("gpm", buf, sizeof(buf));
	char *colon = g ? strchr(buf, ':') : NULL;
	for (unsigned int i = 0; i < m->numMetrics; i++) {
		nvmlGpmMetric_t *x = &m->metrics[i];
		x->nvmlReturn =
		    colon && (x->metricId == 2 || x->metricId == 3) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
		x->value = !colon ? 0 : x->metricId == 2 ? strtod(buf, NULL) : strtod(colon + 1, NULL);
	}
	return NVML_SUCCESS;
}
#endif

/* The tests' own: inits not shut down plus GPM samples not freed. */
EXPORT int fake_nvml_live(void)
{
	return inits + gpm_live;
}
