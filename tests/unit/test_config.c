/* test_config.c: the dashboard's config file: written and read back the same, directories made,
 * no temporary file left; no file is not a fault; every faulty file is refused as a whole with
 * its line and the fault named, the defaults kept; what is not a regular file (a directory, a
 * FIFO, which must not block) is refused; a line longer than the parser's buffer, or one holding
 * a NUL byte, is refused at its real line; a file that cannot be written leaves the old one. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dashboard/ui.h"
#include "tap.h"

static char dir[64];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool same(const struct gd_dash_settings *a, const struct gd_dash_settings *b)
{
	return a->interval == b->interval && a->sort == b->sort && a->sort_desc == b->sort_desc &&
	       a->colour == b->colour && a->mouse == b->mouse && a->ncols == b->ncols &&
	       memcmp(a->cols, b->cols, (size_t)a->ncols * sizeof(a->cols[0])) == 0;
}

static int read_text(const char *text, struct gd_dash_settings *s, char *err, size_t n)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/t.ini", dir);
	put(path, text);
	return dashboard_settings_read(path, 0.05, 60, s, err, n);
}

static void round_trip(void)
{
	char path[128], err[512];
	snprintf(path, sizeof(path), "%s/a/b/config", dir);
	struct gd_dash_settings w, r, def;
	dashboard_settings_default(&def);
	TAP_EQ_U(dashboard_settings_read(path, 0.05, 60, &r, err, sizeof(err)), 0, "no file: 0, not a fault");
	tap_ok(same(&r, &def) && err[0] == '\0', "  the defaults, no message");
	w = def;
	w.interval = 0.2;
	w.sort = ui_col_find("kbusy%");
	w.sort_desc = true;
	w.ncols = 0;
	w.cols[w.ncols++] = ui_col_find("rate");
	w.cols[w.ncols++] = GD_DASH_BAR;
	w.cols[w.ncols++] = ui_col_find("id");
	w.colour = GD_COLOUR_NEVER;
	w.mouse = false;
	tap_ok(dashboard_settings_write(path, &w, err, sizeof(err)) == 0,
	       "written, its directories made (%s)", err);
	TAP_EQ_U(dashboard_settings_read(path, 0.05, 60, &r, err, sizeof(err)), 1, "read back: 1");
	tap_ok(same(&r, &w), "  the same settings, the columns in their order");
	char again[128];
	snprintf(again, sizeof(again), "%s/a/b", dir);
	int files = 0;
	FILE *ls = NULL;
	char cmd[192];
	snprintf(cmd, sizeof(cmd), "ls -A %s", again);
	if ((ls = popen(cmd, "r"))) {
		char name[128];
		while (fgets(name, sizeof(name), ls))
			files++;
		pclose(ls);
	}
	TAP_EQ_U(files, 1, "the directory holds the file alone: no temporary file left");
	struct stat st;
	snprintf(again, sizeof(again), "%s/a", dir);
	tap_ok(stat(again, &st) == 0 && (st.st_mode & 0777) == 0700, "a directory made is 0700");
}

static void faults(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "[dashboard]\nsort = nosuch\n", ":2: sort: unknown column 'nosuch'" },
		{ "[dashboard]\ninterval = 0.01\n", ":2: interval 0.01 is out of range" },
		{ "[dashboard]\ninterval = 1s\n", ":2: interval '1s' is not a number" },
		{ "[dashboard]\ninterval = nan\n", ":2: interval 'nan' is not a number" },
		{ "[dashboard]\ninterval = -1\n", ":2: interval -1 is out of range" },
		{ "[dashboard]\nsort_order = up\n",
		  ":2: sort_order 'up' is not one of ascending, descending" },
		{ "[dashboard]\ncolour = pink\n", ":2: colour 'pink' is not one of auto, never, always" },
		{ "[dashboard]\nmouse = yes\n", ":2: mouse 'yes' is not one of off, on" },
		{ "[dashboard]\ncolumns = id id\n", ":2: column 'id' listed twice" },
		{ "[dashboard]\ncolumns = id, nosuch\n", ":2: unknown column 'nosuch'" },
		{ "[dashboard]\nspeed = 3\n", ":2: unknown key 'speed'" },
		{ "sort = id\n", ":1: 'sort' outside the [dashboard] section" },
		{ "[other]\nsort = id\n", ":2: 'sort' outside the [dashboard] section" },
		{ "[dashboard]\nsort id\n", ":2: not KEY = VALUE or [SECTION]" },
		{ "[dashboard\n", ":1: not KEY = VALUE or [SECTION]" },
		{ "[dashboard]\nsort = pid\ncolumns = id\x01\n", ":3: unknown column 'id?'" },
		{ "[dashboard]\nsort = pid\nsort = nosuch\nspeed = 1\n", ":3: sort: unknown column" },
	};
	struct gd_dash_settings s, def;
	dashboard_settings_default(&def);
	for (size_t i = 0; i < GD_ARRAY_LEN(bad); i++) {
		char err[512];
		int rc = read_text(bad[i].text, &s, err, sizeof(err));
		if (!tap_ok(rc == -1 && strstr(err, bad[i].want) && same(&s, &def) && !strchr(err, '\n'),
		            "faulty (%s): refused, the defaults kept, one line", bad[i].want))
			printf("#   rc %d: %s\n", rc, err);
	}
	char err[512];
	tap_ok(read_text("# a comment\n\n[dashboard]\nsort = Mbit/s ; the rate\n", &s, err, sizeof(err)) ==
	               1 &&
	           s.sort == ui_col_find("rate") && s.ncols == def.ncols,
	       "comments, blank lines, the rate by its heading; a key not given keeps its default");
	tap_ok(read_text("", &s, err, sizeof(err)) == 1 && same(&s, &def), "an empty file: the defaults");
	char longline[600] = "[dashboard]\ncolumns = id";
	for (int i = 0; i < 60; i++)
		strcat(longline, " pid");
	strcat(longline, "\n");
	int rc = read_text(longline, &s, err, sizeof(err));
	tap_ok(rc == -1 && same(&s, &def) && strstr(err, ":2: longer than 197 bytes"),
	       "a line longer than the reader takes: refused at its own line (%s)", err);
}

/* A line of n bytes: a comment that ends in "mouse = off", as the parser would read the rest
 * of a cut line; or, with key, "mouse" padded with spaces before " = off". */
static void line_of(char *buf, size_t n, bool key)
{
	static const char tail[] = "mouse = off";
	memset(buf, key ? ' ' : 'x', n);
	if (key)
		memcpy(buf, "mouse", 5);
	else
		buf[0] = '#';
	memcpy(buf + n - strlen(tail) + (key ? 5 : 0), tail + (key ? 5 : 0), strlen(tail) - (key ? 5 : 0));
	buf[n] = '\0';
}

/* Lines longer than the parser's buffer are refused naming their real line, whatever their
 * length past it; lines at the limit (197 bytes, a CR aside) are read whole. */
static void long_lines(void)
{
	struct gd_dash_settings s, def;
	dashboard_settings_default(&def);
	char line[400], text[512], err[512];
	for (size_t n = 198; n <= 212; n++) {
		line_of(line, n, false);
		snprintf(text, sizeof(text), "%s\n[dashboard]\n", line);
		int rc1 = read_text(text, &s, err, sizeof(err));
		bool first = rc1 == -1 && strstr(err, ":1: longer than 197 bytes") && same(&s, &def);
		snprintf(text, sizeof(text), "[dashboard]\nsort = pid\n%s", line);
		int rc3 = read_text(text, &s, err, sizeof(err));
		if (!tap_ok(first && rc3 == -1 && strstr(err, ":3: longer than 197 bytes") &&
		                same(&s, &def) && !strchr(err, '\n'),
		            "a %zu-byte comment ending in 'mouse = off': refused at line 1 and at line 3", n))
			printf("#   rc %d, %d: %s\n", rc1, rc3, err);
	}
	line_of(line, 197, false);
	snprintf(text, sizeof(text), "%s\n[dashboard]\n%s\r\n", line, line);
	tap_ok(read_text(text, &s, err, sizeof(err)) == 1 && s.mouse,
	       "197-byte comments (one before a CR LF): read whole, the mouse stays on (%s)", err);
	line_of(line, 197, true);
	snprintf(text, sizeof(text), "[dashboard]\n%s\n", line);
	tap_ok(read_text(text, &s, err, sizeof(err)) == 1 && !s.mouse,
	       "a 197-byte 'mouse = off': read whole, the mouse off (%s)", err);
	char path[128];
	snprintf(path, sizeof(path), "%s/nul.ini", dir);
	static const char nul[] = "[dashboard]\nsort = pid\0\nmouse = off\n";
	FILE *f = fopen(path, "w");
	if (f) {
		fwrite(nul, 1, sizeof(nul) - 1, f);
		fclose(f);
	}
	tap_ok(dashboard_settings_read(path, 0.05, 60, &s, err, sizeof(err)) == -1 &&
	           strstr(err, ":2: holds a NUL byte") && same(&s, &def),
	       "a NUL byte: refused at its line, never read past (%s)", err);
}

static void not_files(void)
{
	char path[128], err[512];
	struct gd_dash_settings s;
	snprintf(path, sizeof(path), "%s/d", dir);
	mkdir(path, 0700);
	tap_ok(dashboard_settings_read(path, 0.05, 60, &s, err, sizeof(err)) == -1 &&
	           strstr(err, "not a regular file"),
	       "a directory: refused (%s)", err);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	mkfifo(path, 0600);
	tap_ok(dashboard_settings_read(path, 0.05, 60, &s, err, sizeof(err)) == -1 &&
	           strstr(err, "not a regular file"),
	       "a FIFO: refused at once, never waited on (%s)", err);
	snprintf(path, sizeof(path), "%s/big", dir);
	FILE *f = fopen(path, "w");
	for (int i = 0; f && i < 10000; i++)
		fputs("# a long comment line\n", f);
	if (f)
		fclose(f);
	tap_ok(dashboard_settings_read(path, 0.05, 60, &s, err, sizeof(err)) == -1 &&
	           strstr(err, "too large"),
	       "a file of 220 KB: too large for a settings file");
	/* A directory in the way of the file: the write fails, nothing is left behind. */
	snprintf(path, sizeof(path), "%s/d", dir);
	dashboard_settings_default(&s);
	tap_ok(dashboard_settings_write(path, &s, err, sizeof(err)) == -1 && strstr(err, "cannot save"),
	       "a write that cannot take the name fails with a message (%s)", err);
	snprintf(path, sizeof(path), "ls %s/d.* >/dev/null 2>&1", dir);
	tap_ok(system(path) != 0, "  and leaves no temporary file");
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_config.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	round_trip();
	faults();
	long_lines();
	not_files();
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		tap_ok(0, "clean up %s", dir);
	return tap_done();
}
