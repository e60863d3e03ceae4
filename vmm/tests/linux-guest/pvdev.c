// SPDX-License-Identifier: GPL-2.0
/*
 * pvdev: the pvsched device from the guest's user space, for the tests of
 * ci/tests/minivmm_linux_test.sh. It maps BAR0 through sysfs (resource0 of
 * the function with the pvsched IDs) and runs on the CPU it is told, so
 * that it reaches that vCPU's banked registers (Documentation/virt/
 * pvsched.rst in the kernel series, docs/pvsched-device.md here).
 *
 *   pvdev show                   for each online CPU: "cpuN gpa=0x... status=S"
 *   pvdev cmd CPU GPA VERSION    on CPU: GPA, then COMMAND=VERSION; prints
 *                                "status=S" and exits 0
 *   pvdev regs                   the read-only registers, one line
 *
 * Exit status 1 with one line on stderr when something is missing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PCI_DEVICES	"/sys/bus/pci/devices"
#define VENDOR_ID	0x1234
#define DEVICE_ID	0x5056
#define BAR_SIZE	0x1000

#define REG_MAGIC		0x00
#define REG_VERSION		0x04
#define REG_AREA_VERSIONS	0x08
#define REG_AREA_SIZE		0x0c
#define REG_GPA_LO		0x10
#define REG_GPA_HI		0x14
#define REG_COMMAND		0x18
#define REG_STATUS		0x1c

static volatile uint32_t *regs;

static unsigned long read_hex(const char *dir, const char *name)
{
	char path[512], buf[32];
	unsigned long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", PCI_DEVICES, dir, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		v = strtoul(buf, NULL, 16);
	fclose(f);
	return v;
}

static void map_device(void)
{
	char path[512];
	struct dirent *d;
	DIR *dir;
	void *p;
	int fd;

	dir = opendir(PCI_DEVICES);
	if (!dir) {
		fprintf(stderr, "pvdev: %s: %s\n", PCI_DEVICES, strerror(errno));
		exit(1);
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (read_hex(d->d_name, "vendor") == VENDOR_ID &&
		    read_hex(d->d_name, "device") == DEVICE_ID)
			break;
	}
	if (!d) {
		fprintf(stderr, "pvdev: no PCI function %04x:%04x\n",
			VENDOR_ID, DEVICE_ID);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/resource0", PCI_DEVICES,
		 d->d_name);
	closedir(dir);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0) {
		fprintf(stderr, "pvdev: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	p = mmap(NULL, BAR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "pvdev: mmap %s: %s\n", path, strerror(errno));
		exit(1);
	}
	regs = p;
}

static uint32_t rd(unsigned int off)
{
	return regs[off / 4];
}

static void wr(unsigned int off, uint32_t v)
{
	regs[off / 4] = v;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "pvdev: CPU %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	unsigned long long gpa;
	long ncpus;
	int cpu;

	if (argc < 2) {
		fprintf(stderr, "usage: pvdev show | regs | cmd CPU GPA VERSION\n");
		return 1;
	}
	map_device();
	if (!strcmp(argv[1], "regs")) {
		printf("magic=%#x version=%u area_versions=%#x area_size=%u\n",
		       rd(REG_MAGIC), rd(REG_VERSION), rd(REG_AREA_VERSIONS),
		       rd(REG_AREA_SIZE));
		return 0;
	}
	if (!strcmp(argv[1], "show")) {
		ncpus = sysconf(_SC_NPROCESSORS_CONF);
		for (cpu = 0; cpu < ncpus; cpu++) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				continue;	/* offline */
			gpa = (unsigned long long)rd(REG_GPA_HI) << 32 |
			      rd(REG_GPA_LO);
			printf("cpu%d gpa=%#llx status=%u\n", cpu, gpa,
			       rd(REG_STATUS));
		}
		return 0;
	}
	if (!strcmp(argv[1], "cmd") && argc == 5) {
		pin(atoi(argv[2]));
		gpa = strtoull(argv[3], NULL, 0);
		wr(REG_GPA_LO, (uint32_t)gpa);
		wr(REG_GPA_HI, (uint32_t)(gpa >> 32));
		wr(REG_COMMAND, strtoul(argv[4], NULL, 0));
		printf("status=%u\n", rd(REG_STATUS));
		return 0;
	}
	fprintf(stderr, "usage: pvdev show | regs | cmd CPU GPA VERSION\n");
	return 1;
}
