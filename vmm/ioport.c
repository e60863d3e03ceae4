// SPDX-License-Identifier: GPL-2.0
/*
 * The port I/O bus of a Linux guest and its legacy devices, see ioport.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "ioport.h"
#include "serial.h"
#include "util.h"

static const char *const guest_exit_names[] = {
	[GUEST_EXIT_NONE] = "none",
	[GUEST_EXIT_DEBUG] = "debug-exit",
	[GUEST_EXIT_RESET] = "reboot",
	[GUEST_EXIT_SHUTDOWN] = "triple-fault",
	[GUEST_EXIT_SYSTEM_EVENT] = "system-event",
};

/* The first vCPU to end the run wins; true if it was this one. */
bool guest_exit__set(struct guest_exit *e, enum guest_exit_reason reason,
		     int status, unsigned int vcpu)
{
	int none = GUEST_EXIT_NONE;

	/* Status and vCPU first: a reader that sees the reason sees them. */
	if (__atomic_load_n(&e->reason, __ATOMIC_ACQUIRE) != GUEST_EXIT_NONE)
		return false;
	if (!__atomic_compare_exchange_n(&e->reason, &none, -1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return false;
	e->status = status;
	e->vcpu = vcpu;
	__atomic_store_n(&e->reason, reason, __ATOMIC_RELEASE);
	return true;
}

/* GUEST_EXIT_NONE until a setter has finished. */
enum guest_exit_reason guest_exit__reason(const struct guest_exit *e)
{
	int r = __atomic_load_n(&e->reason, __ATOMIC_ACQUIRE);

	return r < 0 ? GUEST_EXIT_NONE : r;
}

const char *guest_exit__name(enum guest_exit_reason reason)
{
	if ((unsigned int)reason >= ARRAY_SIZE(guest_exit_names))
		return "?";
	return guest_exit_names[reason];
}

/*
 * The debug-exit port's mapping: the byte written is minivmm's exit
 * status, as is (0..255; --json tells a guest's 3 from minivmm's own).
 */
int ioport__debug_exit_status(__u8 val)
{
	return val;
}

void ioport__init(struct ioport_bus *bus, struct guest_exit *exit)
{
	memset(bus, 0, sizeof(*bus));
	bus->exit = exit;
}

/* 0, -EBUSY if the range overlaps a device's, -ENOSPC if the bus is full. */
int ioport__register(struct ioport_bus *bus, __u16 base, __u16 len,
		     const char *name, ioport_fn io, void *priv)
{
	struct ioport_dev *d;
	unsigned int i;

	if (!len || base + len > 0x10000)
		return -EINVAL;
	for (i = 0; i < bus->nr; i++) {
		d = &bus->devs[i];
		if (base < d->base + d->len && d->base < base + len)
			return -EBUSY;
	}
	if (bus->nr == IOPORT_MAX_DEVS)
		return -ENOSPC;
	d = &bus->devs[bus->nr++];
	d->base = base;
	d->len = len;
	d->name = name;
	d->io = io;
	d->priv = priv;
	return 0;
}

static int ioport__debug_exit(struct ioport_dev *dev, unsigned int vcpu,
			      __u16 port, __u8 *data, unsigned int size,
			      bool out)
{
	struct ioport_bus *bus = dev->priv;

	(void)port;
	if (!out) {
		memset(data, IOPORT_FLOATING, size);
		return IOPORT_CONTINUE;
	}
	guest_exit__set(bus->exit, GUEST_EXIT_DEBUG,
			ioport__debug_exit_status(data[0]), vcpu);
	return IOPORT_GUEST_EXIT;
}

static int ioport__i8042(struct ioport_dev *dev, unsigned int vcpu,
			 __u16 port, __u8 *data, unsigned int size, bool out)
{
	struct ioport_bus *bus = dev->priv;

	if (!out) {
		memset(data, port == IOPORT_I8042_CMD ? I8042_STATUS : 0, size);
		return IOPORT_CONTINUE;
	}
	if (port == IOPORT_I8042_CMD && data[0] == I8042_CMD_RESET) {
		guest_exit__set(bus->exit, GUEST_EXIT_RESET, 0, vcpu);
		return IOPORT_GUEST_EXIT;
	}
	return IOPORT_CONTINUE;
}

static int ioport__cmos(struct ioport_dev *dev, unsigned int vcpu,
			__u16 port, __u8 *data, unsigned int size, bool out)
{
	struct ioport_bus *bus = dev->priv;

	(void)vcpu;
	if (port == IOPORT_CMOS_INDEX) {
		if (out)
			bus->cmos_index = data[0];
		else
			data[0] = bus->cmos_index;
	} else if (!out) {
		memset(data, 0, size);
	}
	return IOPORT_CONTINUE;
}

static int ioport__serial(struct ioport_dev *dev, unsigned int vcpu,
			  __u16 port, __u8 *data, unsigned int size, bool out)
{
	unsigned int i;

	(void)vcpu;
	/* Byte registers: a wider access is one per byte, as on ISA. */
	for (i = 0; i < size && port + i < dev->base + dev->len; i++)
		serial__io(dev->priv, port + i - dev->base, data + i, out);
	if (!out && i < size)
		memset(data + i, IOPORT_FLOATING, size - i);
	return IOPORT_CONTINUE;
}

/* The debug exit, the keyboard controller, CMOS and COM1 (if @serial). */
int ioport__register_legacy(struct ioport_bus *bus, struct serial *serial)
{
	int ret;

	ret = ioport__register(bus, IOPORT_DEBUG_EXIT, 1, "debug-exit",
			       ioport__debug_exit, bus);
	if (!ret)
		ret = ioport__register(bus, IOPORT_I8042_DATA, 1, "i8042",
				       ioport__i8042, bus);
	if (!ret)
		ret = ioport__register(bus, IOPORT_I8042_CMD, 1, "i8042",
				       ioport__i8042, bus);
	if (!ret)
		ret = ioport__register(bus, IOPORT_CMOS_INDEX, 2, "cmos",
				       ioport__cmos, bus);
	if (!ret && serial)
		ret = ioport__register(bus, SERIAL_COM1_BASE, SERIAL_NR_REGS,
				       "serial", ioport__serial, serial);
	bus->serial = serial;
	return ret;
}

static struct ioport_dev *ioport__find(struct ioport_bus *bus, __u16 port)
{
	unsigned int i;

	for (i = 0; i < bus->nr; i++) {
		if (port >= bus->devs[i].base &&
		    port < bus->devs[i].base + bus->devs[i].len)
			return &bus->devs[i];
	}
	return NULL;
}

/*
 * A KVM_EXIT_IO: @count accesses of @size bytes at @port (string I/O:
 * one after the other in @data). IOPORT_GUEST_EXIT if a device ended
 * the run (the rest of a string is dropped), else IOPORT_CONTINUE.
 */
int ioport__emulate(struct ioport_bus *bus, unsigned int vcpu, __u16 port,
		    __u8 *data, unsigned int size, unsigned int count,
		    bool out)
{
	struct ioport_dev *dev = ioport__find(bus, port);
	unsigned int i;

	for (i = 0; i < count; i++, data += size) {
		if (!dev) {
			__atomic_add_fetch(&bus->unhandled, 1,
					   __ATOMIC_RELAXED);
			if (!out)
				memset(data, IOPORT_FLOATING, size);
			continue;
		}
		if (dev->io(dev, vcpu, port, data, size, out) ==
		    IOPORT_GUEST_EXIT)
			return IOPORT_GUEST_EXIT;
	}
	return IOPORT_CONTINUE;
}
