/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy of pvsched_boost (samples/pvsched/pvsched_boost.c) for the BPF
 * drivers: boost while the guest flags a latency-critical section or runs
 * a real-time task, or has one that another vCPU woke waiting to run
 * (wake_prio), or to take an interrupt it asked to be boosted for.
 * Included after vmlinux.h by the BPF programs that use it;
 * uapi/linux/pvsched.h's macros are not in vmlinux.h.
 */
#ifndef PVSCHED_BOOST_POLICY_H
#define PVSCHED_BOOST_POLICY_H

#define PVSCHED_AREA_VERSION	1
#define PVSCHED_GUEST_BOOST	(1U << 0)
#define PVSCHED_GUEST_BOOST_IRQ	(1U << 1)
#define PVSCHED_HOST_BOOSTED	(1U << 0)
#define PVSCHED_OPS_BOOST	0x1
#define PVSCHED_OPS_EXIT_CHANGES 0x2

int bpf_pvsched_vcpu_boost(struct pid *pid) __ksym;
int bpf_pvsched_vcpu_unboost(struct pid *pid) __ksym;

enum boost_want {
	BOOST_NO,
	BOOST_YES,
	BOOST_KEEP,	/* leave it as it is */
};

/*
 * What the guest asks for at @event; each field read once, any value
 * possible. PVSCHED_GUEST_BOOST_IRQ: boosted when an interrupt wakes the
 * vCPU or finds its thread preempted (WAKEUP), kept through the injection,
 * ended by the next exit or halt without a request. A WAKEUP, which runs
 * off the vCPU thread, ends no boost.
 */
static __always_inline enum boost_want
boost_wanted(const struct pvsched_vcpu_snapshot *snap, __u32 event)
{
	__u32 flags, prio, wake_prio;

	if (snap->version != PVSCHED_AREA_VERSION)
		return BOOST_NO;
	flags = snap->guest_flags;
	prio = snap->guest_prio;
	wake_prio = snap->wake_prio;
	if ((flags & PVSCHED_GUEST_BOOST) || (prio >= 1 && prio <= 99) ||
	    (wake_prio >= 1 && wake_prio <= 99))
		return BOOST_YES;
	if (event == PVSCHED_VCPU_WAKEUP)
		return flags & PVSCHED_GUEST_BOOST_IRQ ? BOOST_YES : BOOST_KEEP;
	if (event == PVSCHED_VCPU_INTR_INJ && (flags & PVSCHED_GUEST_BOOST_IRQ))
		return BOOST_KEEP;
	return BOOST_NO;
}

/*
 * Ask the pvsched core for what boost_wanted() says, when it is not what
 * the vCPU has (snap->boosted): most exits ask for no change.
 */
static __always_inline void boost_apply(const struct pvsched_vcpu_snapshot *snap,
					struct pid *pid, __u32 event)
{
	switch (boost_wanted(snap, event)) {
	case BOOST_YES:
		if (!snap->boosted)
			bpf_pvsched_vcpu_boost(pid);
		break;
	case BOOST_NO:
		if (snap->boosted)
			bpf_pvsched_vcpu_unboost(pid);
		break;
	default:
		break;
	}
}

#endif /* PVSCHED_BOOST_POLICY_H */
