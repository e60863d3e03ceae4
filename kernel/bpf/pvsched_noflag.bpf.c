// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_pvsched_noflag: a negative control for the tests, bpf_pvsched_boost
 * without PVSCHED_OPS_BOOST in its struct_ops map. It asks for boosts the
 * way bpf_pvsched_boost does, but the pvsched core refuses a driver
 * without the flag with -EPERM, so it never boosts; in exchange, any
 * /dev/kvm user may assign it. It counts what its kfunc calls returned in
 * the map "results" (pvsched_bpf_noflag.h), which the loader pins.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "pvsched_bpf_noflag.h"
#include "pvsched_boost_policy.h"

/* errno.h: macros are not in vmlinux.h. */
#define EPERM			1

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pvsched_bpf_noflag_results);
} results SEC(".maps");

SEC("struct_ops/pvsched_noflag_notify_event")
void BPF_PROG(pvsched_noflag_notify_event, const struct pvsched_vcpu_snapshot *snap,
	      struct pid *pid, __u32 event)
{
	struct pvsched_bpf_noflag_results *r;
	__u32 zero = 0;
	int ret;

	if (!snap)
		return;
	if (boost_wanted(snap, event) == BOOST_YES)
		ret = bpf_pvsched_vcpu_boost(pid);
	else
		ret = bpf_pvsched_vcpu_unboost(pid);

	r = bpf_map_lookup_elem(&results, &zero);
	if (!r)
		return;
	__sync_fetch_and_add(&r->calls, 1);
	if (ret == -EPERM) {
		__sync_fetch_and_add(&r->eperm, 1);
	} else {
		__sync_fetch_and_add(&r->other, 1);
		r->last_other = ret;
	}
}

SEC(".struct_ops")
struct pvsched_vcpu_ops pvsched_noflag_ops = {
	.pvsched_vcpu_notify_event	= (void *)pvsched_noflag_notify_event,
	.events				= PVSCHED_VCPU_VMEXIT |
					  PVSCHED_VCPU_HALT |
					  PVSCHED_VCPU_INTR_INJ,
	/* No .flags = PVSCHED_OPS_BOOST: that is the point. */
	.name				= "bpf_pvsched_noflag",
};
