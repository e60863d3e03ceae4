/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy of pvsched_boost (samples/pvsched/pvsched_boost.c) for the BPF
 * drivers: boost while the guest flags a latency-critical section or runs
 * a real-time task. Included after vmlinux.h by the BPF programs that use
 * it; uapi/linux/pvsched.h's macros are not in vmlinux.h.
 */
#ifndef PVSCHED_BOOST_POLICY_H
#define PVSCHED_BOOST_POLICY_H

#define PVSCHED_AREA_VERSION	1
#define PVSCHED_GUEST_BOOST	(1U << 0)
#define PVSCHED_HOST_BOOSTED	(1U << 0)
#define PVSCHED_OPS_BOOST	0x1

int bpf_pvsched_vcpu_boost(struct pid *pid) __ksym;
int bpf_pvsched_vcpu_unboost(struct pid *pid) __ksym;

/* What the guest asks for; each field read once, any value possible. */
static __always_inline bool boost_wanted(struct pvsched_vcpu_area *area)
{
	__u32 prio;

	if (area->version != PVSCHED_AREA_VERSION)
		return false;
	if (area->guest_flags & PVSCHED_GUEST_BOOST)
		return true;
	prio = area->guest_prio;
	return prio >= 1 && prio <= 99;
}

#endif /* PVSCHED_BOOST_POLICY_H */
