// SPDX-License-Identifier: GPL-2.0
/*
 * Guest payloads: what each one needs, where its file is, and loading it
 * into guest memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout.h"
#include "options.h"
#include "payload.h"
#include "util.h"

static const struct payload_info payloads[] = {
	{ .name = "io", .work_port = true,
	  .iterations = 100000, .progress_every = 10000 },
	{ .name = "halt", .irqchip = true, .timer = true,
	  .period_us = MINIVMM_DEFAULT_PERIOD_US,
	  .iterations = 1000, .progress_every = 250 },
	{ .name = "cpuid",
	  .iterations = 1000000, .progress_every = 100000 },
	{ .name = "boost", .irqchip = true, .work_port = true, .timer = true,
	  .busy = true, .period_us = MINIVMM_DEFAULT_PERIOD_US,
	  .iterations = 100, .progress_every = 25 },
	{ .name = "irq", .irqchip = true, .timer = true, .irq_flags = true,
	  .period_us = MINIVMM_DEFAULT_PERIOD_US,
	  .iterations = 1000, .progress_every = 250 },
	{ .name = "latency", .irqchip = true, .timer = true, .irq_flags = true,
	  .latency = true, .period_us = MINIVMM_LAT_PERIOD_US,
	  .iterations = 2000, .progress_every = 500 },
	{ .name = "toggle", .busy = true, .toggle = true,
	  .iterations = 1000, .progress_every = 250 },
};

/*
 * Any other file: give it an irqchip and a timer count, in case it uses the
 * LAPIC, a busy loop length and the irq payload's flags. Not the latency
 * payload's samples: minivmm would report whatever is in their memory.
 */
static const struct payload_info payload_other = {
	.name = "other", .irqchip = true, .timer = true, .busy = true,
	.irq_flags = true, .period_us = MINIVMM_DEFAULT_PERIOD_US,
	.iterations = 100000, .progress_every = 10000,
};

/*
 * The info for a payload name, or for a path whose file name is a known
 * name plus ".bin" (so ../guest-payload/halt.bin still gets an irqchip).
 * NULL for an unknown name that is not a path.
 */
const struct payload_info *payload__info(const char *name_or_path)
{
	const char *base = strrchr(name_or_path, '/');
	size_t len, i;

	base = base ? base + 1 : name_or_path;
	len = strlen(base);
	if (base != name_or_path && len > 4 && !strcmp(base + len - 4, ".bin"))
		len -= 4;
	for (i = 0; i < ARRAY_SIZE(payloads); i++) {
		if (strlen(payloads[i].name) == len &&
		    !strncmp(payloads[i].name, base, len))
			return &payloads[i];
	}
	return base == name_or_path ? NULL : &payload_other;
}

const char *payload__names(void)
{
	return "io, halt, cpuid, boost, irq, latency, toggle";
}

/* Search order: next to the binary, ../guest-payload/, the system dir. */
void payload__dirs(const char *exe_path, struct payload_dirs *dirs)
{
	char tmp[PAYLOAD_PATH_MAX];
	char *dir;

	snprintf(tmp, sizeof(tmp), "%s", exe_path);
	dir = dirname(tmp);
	snprintf(dirs->dir[0], PAYLOAD_PATH_MAX, "%s", dir);
	snprintf(dirs->dir[1], PAYLOAD_PATH_MAX, "%.4000s/../guest-payload",
		 dir);
	snprintf(dirs->dir[2], PAYLOAD_PATH_MAX, "%s", PAYLOAD_SYSTEM_DIR);
}

/*
 * Turn --payload into a file path: a name with a '/' is a path already,
 * a known name is looked up as NAME.bin in @dirs. -EINVAL for an unknown
 * name, -ENOENT if no directory has the file.
 */
int payload__resolve(const char *name, const struct payload_dirs *dirs,
		     char *path, size_t len)
{
	int i;

	if (strchr(name, '/')) {
		if ((size_t)snprintf(path, len, "%s", name) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	if (!payload__info(name))
		return -EINVAL;
	for (i = 0; i < PAYLOAD_NR_DIRS; i++) {
		if ((size_t)snprintf(path, len, "%s/%s.bin", dirs->dir[i],
				     name) >= len)
			continue;
		if (!access(path, R_OK))
			return 0;
	}
	return -ENOENT;
}

/* Room between the load address and the lowest vCPU stack. */
size_t payload__max_size(unsigned int nr_vcpus)
{
	return GUEST_STACK_TOP - nr_vcpus * GUEST_STACK_SIZE - MINIVMM_LOAD_GPA;
}

static int payload__read_all(int fd, void *dst, size_t size)
{
	size_t done = 0;
	ssize_t n;

	while (done < size) {
		n = read(fd, (char *)dst + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += n;
	}
	return 0;
}

/*
 * Copy the file at @path to @dst, which has room for @max bytes. On error
 * returns a negative errno and puts a message into @err.
 */
int payload__load(const char *path, void *dst, size_t max, size_t *size,
		  char *err, size_t errlen)
{
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = fstat(fd, &st) ? -errno : 0;
	if (!ret && !S_ISREG(st.st_mode))
		ret = -EINVAL;
	else if (!ret && st.st_size == 0)
		ret = -ENODATA;
	else if (!ret && (size_t)st.st_size > max)
		ret = -EFBIG;
	if (!ret)
		ret = payload__read_all(fd, dst, st.st_size);
	close(fd);

	if (ret == -EINVAL)
		snprintf(err, errlen, "%s: not a regular file", path);
	else if (ret == -ENODATA)
		snprintf(err, errlen, "%s: empty file", path);
	else if (ret == -EFBIG)
		snprintf(err, errlen,
			 "%s: too big: %lld bytes, guest memory has room for %zu",
			 path, (long long)st.st_size, max);
	else if (ret)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	else
		*size = st.st_size;
	return ret;
}
