/* device.c: which devices a run uses, as --device asks (pure: the probe's child, in
 * src/worker/probe.c, enumerates them and calls device_select there). */
#include "gputop/device.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gputop/near.h"

void device_ref_text(char *buf, size_t n, int platform, int index)
{
	snprintf(buf, n, "%d:%d", platform, index);
}

/* Case-insensitive strstr. */
static bool name_has(const char *name, const char *text)
{
	size_t lt = strlen(text);
	for (; *name; name++)
		if (strncasecmp(name, text, lt) == 0)
			return true;
	return lt == 0;
}

static bool wanted(const struct gd_device *d, const struct gd_devspec *spec, int first_plat)
{
	switch (spec->sel) {
	case GD_DEVSEL_NAME:
		return name_has(d->name, spec->name);
	case GD_DEVSEL_ALL:
		return d->platform == first_plat;
	case GD_DEVSEL_DEFAULT:
	case GD_DEVSEL_LIST:
		break;
	}
	return false;
}

#define NAME_WORDS 64

/* The word of the devices' names nearest to text (near.h), for a name that matched none: a
 * device's name is words ("NVIDIA H200", "pthread-skylake-avx512-AMD EPYC"), and a mistyped
 * one is mostly one of them. NULL where none is near. Writes the words into buf. */
static const char *near_word(const struct gd_device *all, int nall, const char *text, char *buf, size_t n)
{
	const char *words[NAME_WORDS];
	size_t nw = 0, used = 0;
	for (int j = 0; j < nall; j++) {
		for (const char *p = all[j].name; *p && nw < NAME_WORDS;) {
			while (*p && !isalnum((unsigned char)*p))
				p++;
			size_t len = 0;
			while (isalnum((unsigned char)p[len]))
				len++;
			if (len && used + len + 1 <= n) {
				words[nw++] = memcpy(buf + used, p, len);
				buf[used + len] = 0;
				used += len + 1;
			}
			p += len;
		}
	}
	return gd_near(text, strlen(text), words, nw);
}

int device_select(const struct gd_device *all, int nall, const struct gd_devspec *spec, struct gd_device *out,
                  int *nout, char *err, size_t errlen)
{
	*nout = 0;
	if (spec->sel == GD_DEVSEL_LIST) {
		for (int i = 0; i < spec->n; i++) {
			const struct gd_devref *r = &spec->list[i];
			int j = 0;
			while (j < nall && (all[j].platform != r->platform || all[j].index != r->index))
				j++;
			if (j == nall) {
				snprintf(err, errlen, "--device: no device %d:%d (see --list-devices)",
				         r->platform, r->index);
				return -1;
			}
			out[(*nout)++] = all[j];
		}
		return 0;
	}
	/* The default and all look for GPUs first: the first one, or the first platform's. */
	int gpu = 0;
	while (gpu < nall && !all[gpu].gpu)
		gpu++;
	if (spec->sel == GD_DEVSEL_DEFAULT) {
		if (nall > 0)
			out[(*nout)++] = all[gpu < nall ? gpu : 0];
		return 0;
	}
	int first_plat = gpu < nall ? all[gpu].platform : nall > 0 ? all[0].platform : -1;
	for (int j = 0; j < nall; j++) {
		if (!wanted(&all[j], spec, first_plat) ||
		    (spec->sel == GD_DEVSEL_ALL && gpu < nall && !all[j].gpu))
			continue;
		if (*nout == GD_DEVICES_MAX) {
			snprintf(err, errlen, "--device: more than %d devices match", GD_DEVICES_MAX);
			return -1;
		}
		out[(*nout)++] = all[j];
	}
	if (*nout == 0 && spec->sel == GD_DEVSEL_NAME) {
		char words[1024];
		const char *near = near_word(all, nall, spec->name, words, sizeof(words));
		if (near)
			snprintf(err, errlen,
			         "--device: no device's name contains '%.200s' (did you mean %.64s?)",
			         spec->name, near);
		else
			snprintf(err, errlen,
			         "--device: no device's name contains '%.200s' (see --list-devices)",
			         spec->name);
		return -1;
	}
	return 0;
}
