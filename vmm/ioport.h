/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Port I/O of a Linux guest: a small bus of port ranges, each with a
 * device's handler, and the few legacy devices a PC kernel touches
 * besides the UART:
 *
 *   0x501       debug exit: a 1-byte OUT of S ends the run, and minivmm
 *               exits with status S (ioport__debug_exit_status())
 *   0x60, 0x64  the keyboard controller, just enough to reset: status
 *               reads I8042_STATUS, input buffer empty (the kernel's
 *               reboot writes its command at once) and output buffer
 *               full for ever (the i8042 driver's flush gives up after
 *               16 reads: "No controller found", at once, where a
 *               controller that never answers costs it a second of
 *               timeouts); data reads 0; OUT 0xfe to 0x64 (pulse the
 *               reset line, the kernel's reboot=k) ends the run as a
 *               reboot
 *   0x70, 0x71  CMOS: the index is kept, data reads 0 (so that the
 *               RTC's update-in-progress bit is clear), writes ignored
 *
 * Anything else (the PIC, PIT, IOAPIC and LAPIC are KVM's) reads as all
 * ones, a floating bus, as the 8250 probe of COM2-COM4 expects of absent
 * ports, and writes are dropped; both are counted.
 *
 * How the guest ended the run (struct guest_exit) is set once, by the
 * first vCPU that ends it: a debug exit, a reset, a triple fault.
 */
#ifndef MINIVMM_IOPORT_H
#define MINIVMM_IOPORT_H

#include <stdbool.h>
#include <linux/types.h>

#define IOPORT_MAX_DEVS		16

#define IOPORT_DEBUG_EXIT	0x501
#define IOPORT_I8042_DATA	0x60
#define IOPORT_I8042_CMD	0x64
#define I8042_CMD_RESET		0xfe	/* pulse output line 0: CPU reset */
#define I8042_STATUS		0x01	/* OBF set, IBF clear */
#define IOPORT_CMOS_INDEX	0x70
#define IOPORT_CMOS_DATA	0x71
#define IOPORT_FLOATING		0xff

/* What a handler, and the bus, return. */
#define IOPORT_CONTINUE		0
#define IOPORT_GUEST_EXIT	1	/* the guest ended the run */

enum guest_exit_reason {
	GUEST_EXIT_NONE,
	GUEST_EXIT_DEBUG,	/* OUT to IOPORT_DEBUG_EXIT */
	GUEST_EXIT_RESET,	/* keyboard controller reset */
	GUEST_EXIT_SHUTDOWN,	/* KVM_EXIT_SHUTDOWN: a triple fault */
	GUEST_EXIT_SYSTEM_EVENT,	/* KVM_EXIT_SYSTEM_EVENT */
};

struct guest_exit {
	int reason;		/* enum guest_exit_reason, set once */
	int status;		/* the exit status it gives minivmm */
	int vcpu;		/* which vCPU ended the run */
};

bool guest_exit__set(struct guest_exit *e, enum guest_exit_reason reason,
		     int status, unsigned int vcpu);
enum guest_exit_reason guest_exit__reason(const struct guest_exit *e);
const char *guest_exit__name(enum guest_exit_reason reason);

struct ioport_dev;
struct serial;

/* @data holds @size bytes: written by the guest (@out) or to fill. */
typedef int (*ioport_fn)(struct ioport_dev *dev, unsigned int vcpu,
			 __u16 port, __u8 *data, unsigned int size, bool out);

struct ioport_dev {
	__u16 base;
	__u16 len;
	const char *name;
	ioport_fn io;
	void *priv;
};

struct ioport_bus {
	struct ioport_dev devs[IOPORT_MAX_DEVS];
	unsigned int nr;
	unsigned long long unhandled;	/* accesses nobody took */
	__u8 cmos_index;
	struct guest_exit *exit;	/* where the legacy devices end the run */
	struct serial *serial;		/* COM1, or NULL */
};

void ioport__init(struct ioport_bus *bus, struct guest_exit *exit);
int ioport__register(struct ioport_bus *bus, __u16 base, __u16 len,
		     const char *name, ioport_fn io, void *priv);
int ioport__register_legacy(struct ioport_bus *bus, struct serial *serial);
int ioport__emulate(struct ioport_bus *bus, unsigned int vcpu, __u16 port,
		    __u8 *data, unsigned int size, unsigned int count,
		    bool out);
int ioport__debug_exit_status(__u8 val);

#endif /* MINIVMM_IOPORT_H */
