// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout.h"
#include "payload.h"
#include "tap.h"
#include "util.h"

static void write_file(const char *path, size_t size)
{
	char buf[256];
	size_t i;
	FILE *f = fopen(path, "w");

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)i;
	while (f && size) {
		i = size < sizeof(buf) ? size : sizeof(buf);
		fwrite(buf, 1, i, f);
		size -= i;
	}
	if (f)
		fclose(f);
}

static void test_info(void)
{
	const struct payload_info *p;

	p = payload__info("io");
	ok(p && !strcmp(p->name, "io") && !p->irqchip && p->work_port,
	   "io: no irqchip, writes the work port");
	p = payload__info("halt");
	ok(p && p->irqchip, "halt needs the irqchip");
	p = payload__info("cpuid");
	ok(p && !p->irqchip && !p->work_port, "cpuid");
	ok(!payload__info("nope"), "unknown name");
	ok(!payload__info("halt.bin"), "NAME.bin is not a name");
	p = payload__info("../guest-payload/halt.bin");
	ok(p && !strcmp(p->name, "halt"), "path to halt.bin is halt");
	p = payload__info("/x/custom.bin");
	ok(p && !strcmp(p->name, "other") && p->irqchip && p->timer &&
	   p->busy, "other paths get an irqchip, a timer and a busy loop");
	p = payload__info("boost");
	ok(p && p->irqchip && p->timer && p->busy && p->work_port,
	   "boost: irqchip, timer, busy loop, one work port write each");
	p = payload__info("halt");
	ok(p && p->timer && !p->busy, "halt has a timer, no busy loop");
	p = payload__info("irq");
	ok(p && !strcmp(p->name, "irq") && p->irqchip && p->timer &&
	   p->irq_flags && !p->busy && !p->work_port &&
	   p->iterations == 1000 && p->progress_every == 250,
	   "irq: irqchip, timer, irq flags, 1000 ticks, PROGRESS every 250");
	p = payload__info("../guest-payload/irq.bin");
	ok(p && !strcmp(p->name, "irq"), "path to irq.bin is irq");
	p = payload__info("latency");
	ok(p && !strcmp(p->name, "latency") && p->irqchip && p->timer &&
	   p->irq_flags && p->latency && !p->busy && !p->work_port &&
	   p->iterations == 2000 && p->progress_every == 500 &&
	   p->period_us == 500,
	   "latency: irqchip, timer, irq flags, samples; 2000 samples, "
	   "PROGRESS every 500, period 500 us");
	p = payload__info("../guest-payload/latency.bin");
	ok(p && p->latency, "path to latency.bin is latency");
	ok(!payload__info("io")->latency && !payload__info("halt")->latency &&
	   !payload__info("cpuid")->latency &&
	   !payload__info("boost")->latency &&
	   !payload__info("irq")->latency &&
	   !payload__info("./other.bin")->latency,
	   "only latency gets samples, even a payload file of another name "
	   "does not");
	ok(payload__info("halt")->period_us == 1000 &&
	   payload__info("boost")->period_us == 1000 &&
	   payload__info("irq")->period_us == 1000 &&
	   payload__info("./other.bin")->period_us == 1000 &&
	   !payload__info("io")->period_us,
	   "the other timer payloads: period 1000 us by default");
	ok(!payload__info("io")->irq_flags &&
	   !payload__info("halt")->irq_flags &&
	   !payload__info("cpuid")->irq_flags &&
	   !payload__info("boost")->irq_flags,
	   "io, halt, cpuid and boost take no irq flags");
	ok(payload__info("./other.bin")->irq_flags,
	   "a payload file of another name gets the irq flags");
	ok(!strcmp(payload__names(), "io, halt, cpuid, boost, irq, latency, toggle"),
	   "payload names for the error message");
}

static void test_resolve(void)
{
	static struct payload_dirs dirs;
	char path[4200], want[4200];
	int i;

	payload__dirs("/opt/x/bin/minivmm", &dirs);
	ok(!strcmp(dirs.dir[0], "/opt/x/bin") &&
	   !strcmp(dirs.dir[1], "/opt/x/bin/../guest-payload") &&
	   !strcmp(dirs.dir[2], "/usr/share/minivmm"), "search directories");

	for (i = 0; i < PAYLOAD_NR_DIRS; i++) {
		snprintf(dirs.dir[i], sizeof(dirs.dir[i]), "%s/d%d", tap_tmpdir,
			 i);
		mkdir(dirs.dir[i], 0755);
	}
	snprintf(path, sizeof(path), "%s/io.bin", dirs.dir[1]);
	write_file(path, 10);
	snprintf(path, sizeof(path), "%s/io.bin", dirs.dir[2]);
	write_file(path, 10);
	snprintf(path, sizeof(path), "%s/halt.bin", dirs.dir[2]);
	write_file(path, 10);

	snprintf(want, sizeof(want), "%s/io.bin", dirs.dir[1]);
	ok(!payload__resolve("io", &dirs, path, sizeof(path)) &&
	   !strcmp(path, want), "first directory with the file wins");
	snprintf(want, sizeof(want), "%s/halt.bin", dirs.dir[2]);
	ok(!payload__resolve("halt", &dirs, path, sizeof(path)) &&
	   !strcmp(path, want), "found in the last directory");
	ok(payload__resolve("cpuid", &dirs, path, sizeof(path)) == -ENOENT,
	   "known name, no file: -ENOENT");
	ok(payload__resolve("nope", &dirs, path, sizeof(path)) == -EINVAL,
	   "unknown name: -EINVAL");
	ok(!payload__resolve("./nope", &dirs, path, sizeof(path)) &&
	   !strcmp(path, "./nope"), "a path is taken as is");
	ok(payload__resolve("./nope", &dirs, path, 4) == -ENAMETOOLONG,
	   "path too long for the buffer");
}

static void test_load(void)
{
	char path[4096], err[4200];
	static unsigned char buf[4096];
	size_t size = 0;
	int ret, i;
	bool same = true;

	snprintf(path, sizeof(path), "%s/p100", tap_tmpdir);
	write_file(path, 100);
	ret = payload__load(path, buf, sizeof(buf), &size, err, sizeof(err));
	for (i = 0; i < 100; i++)
		same = same && buf[i] == i;
	ok(!ret && size == 100 && same, "load a 100-byte file");

	ok(!payload__load(path, buf, 100, &size, err, sizeof(err)) &&
	   size == 100, "exactly as big as the room");
	ret = payload__load(path, buf, 99, &size, err, sizeof(err));
	ok(ret == -EFBIG && strstr(err, "too big"), "one byte too big: %s",
	   err);

	snprintf(path, sizeof(path), "%s/empty", tap_tmpdir);
	write_file(path, 0);
	ret = payload__load(path, buf, sizeof(buf), &size, err, sizeof(err));
	ok(ret == -ENODATA && strstr(err, "empty"), "empty file: %s", err);

	snprintf(path, sizeof(path), "%s/missing", tap_tmpdir);
	ret = payload__load(path, buf, sizeof(buf), &size, err, sizeof(err));
	ok(ret == -ENOENT && strstr(err, "No such file"), "missing file: %s",
	   err);

	ret = payload__load(tap_tmpdir, buf, sizeof(buf), &size, err,
			    sizeof(err));
	ok(ret == -EINVAL, "directory: %s", err);
}

static void test_max_size(void)
{
	ok(payload__max_size(1) ==
	   GUEST_STACK_TOP - GUEST_STACK_SIZE - MINIVMM_LOAD_GPA,
	   "room with 1 vCPU");
	ok(payload__max_size(64) == (2UL << 20), "room with 64 vCPUs");
}

/* The real payloads (make test builds them first) fit and start right. */
static void test_real_payloads(void)
{
	static const char *const names[] = {
		"io", "halt", "cpuid", "boost", "irq", "latency", "toggle",
	};
	/* sub $VCPU_AREA_SIZE (80), %rsp */
	static const unsigned char entry[] = { 0x48, 0x83, 0xec, 0x50 };
	static unsigned char buf[4 << 20];
	char path[256], err[512];
	size_t size;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "../guest-payload/%s.bin",
			 names[i]);
		ret = payload__load(path, buf, payload__max_size(64), &size,
				    err, sizeof(err));
		ok(!ret && !memcmp(buf, entry, sizeof(entry)),
		   "%s.bin loads with 64 vCPUs, entry reserves the per-vCPU area",
		   names[i]);
	}
}

void test_payload(void)
{
	diag("payload");
	test_info();
	test_resolve();
	test_load();
	test_max_size();
	test_real_payloads();
}
