// SPDX-License-Identifier: GPL-2.0
/*
 * The pvsched VM ioctls:
 *
 *	struct kvm_pvsched_ops ops = { .ops_name = "pvsched_count" };
 *
 *	ioctl(vm_fd, KVM_REPLACE_PVSCHED_OPS, &ops);	// ops = previous name
 *	ioctl(vm_fd, KVM_GET_PVSCHED_OPS, &ops);	// ops = current name
 *
 * "" means no driver. A new VM starts with the administrator's default
 * (sysctl kernel.pvsched_default_driver), usually none. REPLACE loads the
 * module of a driver that is not loaded (pvsched-NAME) if the caller has
 * CAP_SYS_MODULE; it fails with EINVAL for a name it cannot find and
 * leaves the assignment alone; a kernel without pvsched gives ENOTTY. A
 * driver that changes scheduling (pvsched_boost) needs CAP_SYS_NICE in the
 * initial user namespace: EPERM without, and the VM keeps its driver.
 *
 * pvsched__get() and pvsched__replace() print nothing: they give -errno,
 * and the caller says what it means with pvsched__error(), or not at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "kvm.h"
#include "pvsched.h"
#include "util.h"

static void pvsched__copy_name(char dst[PVSCHED_OPS_NAME_SIZE],
			       const struct kvm_pvsched_ops *ops)
{
	/* Never trust the kernel to NUL-terminate. */
	memcpy(dst, ops->ops_name, PVSCHED_OPS_NAME_SIZE);
	dst[PVSCHED_OPS_NAME_SIZE - 1] = '\0';
}

/* The VM's driver, "" for none. 0 or -errno. */
int pvsched__get(struct kvm *kvm, char name[PVSCHED_OPS_NAME_SIZE])
{
	struct kvm_pvsched_ops ops;

	memset(&ops, 0, sizeof(ops));
	if (__kvm_vm_ioctl(kvm, KVM_GET_PVSCHED_OPS, &ops))
		return -errno;
	pvsched__copy_name(name, &ops);
	return 0;
}

/* Make @name the VM's driver, the previous one in @prev. 0 or -errno. */
int pvsched__replace(struct kvm *kvm, const char *name,
		     char prev[PVSCHED_OPS_NAME_SIZE])
{
	struct kvm_pvsched_ops ops;
	size_t len;

	memset(&ops, 0, sizeof(ops));
	len = strnlen(name, PVSCHED_OPS_NAME_SIZE - 1);
	memcpy(ops.ops_name, name, len);	/* the rest stays NUL */
	if (__kvm_vm_ioctl(kvm, KVM_REPLACE_PVSCHED_OPS, &ops))
		return -errno;
	pvsched__copy_name(prev, &ops);
	return 0;
}

/* The available drivers, as one line with the trailing newline removed. */
int pvsched__available(char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(PVSCHED_AVAILABLE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

const char *pvsched__display(const char *name)
{
	return *name ? name : "(none)";
}

/*
 * Report a failed pvsched ioctl, @err its -errno, in one line. @op names
 * it (the ioctl, or "--switch"); @name is the driver asked for, NULL for
 * KVM_GET_PVSCHED_OPS. -ENOTTY means a kernel without pvsched.
 */
void pvsched__error(const char *op, const char *name, int err)
{
	char avail[512];

	if (err == -ENOTTY) {
		pr_err("this kernel has no pvsched support (%s: %s)", op,
		       strerror(-err));
		return;
	}
	if (err == -EINVAL && name) {
		if (pvsched__available(avail, sizeof(avail)))
			snprintf(avail, sizeof(avail), "unknown: %s unreadable",
				 PVSCHED_AVAILABLE_PATH);
		pr_err("%s: unknown pvsched driver '%s' (available: %s; a driver's module loads on demand only with CAP_SYS_MODULE)",
		       op, name, *avail ? avail : "none");
		return;
	}
	if (err == -EPERM && name) {
		pr_err("%s: pvsched driver '%s': %s (%s): selecting a driver that changes scheduling needs CAP_SYS_NICE",
		       op, name, strerror(-err), errno_name(-err));
		return;
	}
	pr_err("%s: %s (%s)", op, strerror(-err), errno_name(-err));
}
