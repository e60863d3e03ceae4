/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MINIVMM_PVSCHED_H
#define MINIVMM_PVSCHED_H

#include <stddef.h>

#include "kvm-abi.h"

#define PVSCHED_AVAILABLE_PATH	"/proc/sys/kernel/pvsched_available_drivers"

struct kvm;

int pvsched__get(struct kvm *kvm, char name[PVSCHED_OPS_NAME_SIZE]);
int pvsched__replace(struct kvm *kvm, const char *name,
		     char prev[PVSCHED_OPS_NAME_SIZE]);
int pvsched__available(char *buf, size_t len);
const char *pvsched__display(const char *name);
void pvsched__error(const char *op, const char *name, int err);

#endif /* MINIVMM_PVSCHED_H */
