// SPDX-License-Identifier: GPL-2.0
/*
 * The 16550A model (registers, DLAB, FIFO, interrupt line), the console's
 * escape filter, the port I/O bus with its legacy devices, and the
 * debug-exit status mapping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ioport.h"
#include "serial.h"
#include "tap.h"

static char txbuf[256];
static size_t ntx;
static int irq_changes, irq_level = -1;

static void tx(void *opaque, __u8 byte)
{
	(void)opaque;
	if (ntx < sizeof(txbuf) - 1)
		txbuf[ntx++] = byte;
}

static void set_irq(void *opaque, bool level)
{
	(void)opaque;
	irq_changes++;
	irq_level = level;
}

static struct serial s;

static void reset(void)
{
	serial__init(&s, tx, set_irq, NULL);
	memset(txbuf, 0, sizeof(txbuf));
	ntx = 0;
	irq_changes = 0;
	irq_level = -1;
}

static __u8 rd(unsigned int reg)
{
	__u8 v = 0x5a;

	serial__io(&s, reg, &v, false);
	return v;
}

static void wr(unsigned int reg, __u8 v)
{
	serial__io(&s, reg, &v, true);
}

static void test_registers(void)
{
	reset();
	ok(rd(UART_LSR) == (UART_LSR_THRE | UART_LSR_TEMT) &&
	   rd(UART_IIR) == UART_IIR_NO_INT && rd(UART_IER) == 0,
	   "reset: THR empty, no interrupt, IER 0");
	wr(UART_IER, 0xff);
	ok(rd(UART_IER) == 0x0f, "IER keeps its low 4 bits (no UUE: no XScale)");
	wr(UART_IER, 0);
	wr(UART_SCR, 0xa5);
	ok(rd(UART_SCR) == 0xa5, "scratch register");
	wr(UART_LCR, 0x03 | UART_LCR_DLAB);
	wr(UART_DLL, 0x0c);
	wr(UART_DLM, 0x01);
	ok(rd(UART_DLL) == 0x0c && rd(UART_DLM) == 0x01 && ntx == 0,
	   "DLAB: offsets 0 and 1 are the divisor, nothing sent");
	wr(UART_LCR, 0x03);
	ok(rd(UART_LCR) == 0x03 && rd(UART_IER) == 0,
	   "DLAB off: IER again, LCR read back");
	wr(UART_TX, 'h');
	wr(UART_TX, 'i');
	ok(ntx == 2 && !strcmp(txbuf, "hi") &&
	   (rd(UART_LSR) & (UART_LSR_THRE | UART_LSR_TEMT)) ==
	   (UART_LSR_THRE | UART_LSR_TEMT),
	   "THR: sent at once, THR empty again");
	ok(rd(UART_IIR) == UART_IIR_NO_INT && irq_level != 1,
	   "no THRE interrupt while IER does not ask");
	wr(UART_FCR, UART_FCR_ENABLE_FIFO);
	ok(rd(UART_IIR) == (UART_IIR_FIFO_ENABLED | UART_IIR_NO_INT),
	   "FIFO on: IIR bits 7:6 set, as a 16550A");
	wr(UART_FCR, 0);
	ok(rd(UART_IIR) == UART_IIR_NO_INT, "FIFO off: bits 7:6 clear");
	wr(UART_MCR, 0xff);
	ok(rd(UART_MCR) == UART_MCR_MASK, "MCR keeps 5 bits");
	ok(rd(UART_MSR) == (UART_MSR_CTS | UART_MSR_DSR | UART_MSR_RI |
			     UART_MSR_DCD), "loopback: MSR from MCR's outputs");
	wr(UART_MCR, UART_MCR_DTR | UART_MCR_RTS);
	ok(rd(UART_MSR) == (UART_MSR_DCD | UART_MSR_DSR | UART_MSR_CTS),
	   "MSR: carrier, DSR and CTS present");
}

static void test_thre(void)
{
	reset();
	wr(UART_IER, UART_IER_THRI);
	ok(irq_level == 1 && irq_changes == 1 &&
	   rd(UART_IIR) == UART_IIR_THRI,
	   "IER THRI with THR empty: THRE interrupt, line up");
	ok(irq_level == 0 && rd(UART_IIR) == UART_IIR_NO_INT,
	   "reading IIR acknowledges THRE: line down");
	wr(UART_IER, 0);
	wr(UART_IER, UART_IER_THRI);
	ok(irq_level == 1 && rd(UART_IIR) == UART_IIR_THRI,
	   "THRI off and on again re-asserts THRE (the 8250 THRE test)");
	wr(UART_TX, 'a');
	ok(irq_level == 1 && rd(UART_IIR) == UART_IIR_THRI,
	   "a THR write: THRE again once the byte is out");
	wr(UART_IER, 0);
	ok(irq_level == 0, "IER 0: line down");
	irq_changes = 0;
	wr(UART_TX, 'b');
	ok(irq_changes == 0, "no line change with THRI off");
}

static void test_rx(void)
{
	const __u8 in[20] = "0123456789abcdefghij";

	reset();
	ok(serial__rx_room(&s) == 1 && serial__receive(&s, in, 3) == 1,
	   "no FIFO: one byte of room");
	ok(irq_level != 1 && (rd(UART_LSR) & UART_LSR_DR),
	   "data ready, no interrupt without IER RDI");
	wr(UART_IER, UART_IER_RDI);
	ok(irq_level == 1 && rd(UART_IIR) == UART_IIR_RDI,
	   "IER RDI with data ready: RDI interrupt");
	ok(rd(UART_RX) == '0' && !(rd(UART_LSR) & UART_LSR_DR) &&
	   irq_level == 0, "reading RBR empties it: line down");
	wr(UART_FCR, UART_FCR_ENABLE_FIFO);
	ok(serial__rx_room(&s) == SERIAL_FIFO_SIZE &&
	   serial__receive(&s, in, 20) == SERIAL_FIFO_SIZE &&
	   serial__rx_room(&s) == 0, "FIFO: 16 bytes, then full");
	ok(irq_level == 1 && rd(UART_IIR) == (0xc0 | UART_IIR_RDI),
	   "RDI with FIFO bits");
	ok(rd(UART_RX) == '0' && rd(UART_RX) == '1' &&
	   serial__rx_room(&s) == 2, "FIFO order");
	wr(UART_FCR, UART_FCR_ENABLE_FIFO | UART_FCR_CLEAR_RCVR);
	ok(!(rd(UART_LSR) & UART_LSR_DR) && irq_level == 0 &&
	   rd(UART_IIR) == (UART_IIR_FIFO_ENABLED | UART_IIR_NO_INT),
	   "FCR clear receiver: empty, line down, the clear bit not kept");
	wr(UART_IER, UART_IER_RDI | UART_IER_THRI);
	serial__receive(&s, in, 1);
	ok(rd(UART_IIR) == (0xc0 | UART_IIR_RDI) &&
	   rd(UART_IIR) == (0xc0 | UART_IIR_RDI),
	   "RDI comes before THRE, and IIR reads do not clear it");
	rd(UART_RX);
	ok(rd(UART_IIR) == (0xc0 | UART_IIR_THRI), "then THRE");
	wr(UART_IER, 0);
	wr(UART_MCR, UART_MCR_LOOP);
	wr(UART_TX, 'L');
	ok(ntx == 0 && rd(UART_RX) == 'L', "loopback: THR comes back in RBR");
	ok(s.rx_bytes == 19 && s.tx_bytes == 0, "byte counters");
}

static void test_console_filter(void)
{
	struct serial_console c = { .raw = true };
	__u8 buf[8];
	bool quit = false;
	size_t n;

	memcpy(buf, "a\x01\x01" "b\x01x", 6);
	n = serial__console_filter(&c, buf, 6, &quit);
	ok(n == 3 && !memcmp(buf, "a\x01" "b", 3) && quit,
	   "Ctrl-A Ctrl-A sends one Ctrl-A, Ctrl-A x quits");
	quit = false;
	memcpy(buf, "\x01", 1);
	n = serial__console_filter(&c, buf, 1, &quit);
	memcpy(buf, "x", 1);
	n += serial__console_filter(&c, buf, 1, &quit);
	ok(n == 0 && quit, "Ctrl-A and x in two reads");
	c.raw = false;
	quit = false;
	memcpy(buf, "\x01x", 2);
	ok(serial__console_filter(&c, buf, 2, &quit) == 2 && !quit,
	   "not a terminal: no escape");
}

/* The console's input from a pipe: as much as the FIFO takes, then EOF. */
static void test_console_poll(void)
{
	struct serial_console c;
	int fds[2];

	reset();
	if (pipe(fds)) {
		ok(0, "pipe");
		return;
	}
	serial__console_start(&c, fds[0], -1);
	ok(!c.raw, "a pipe is not put in raw mode");
	ok(write(fds[1], "abc", 3) == 3 &&
	   serial__console_poll(&c, &s, 1000000) == 0 && s.rx_count == 1 &&
	   rd(UART_RX) == 'a', "no FIFO: one byte taken, the rest waits");
	wr(UART_FCR, UART_FCR_ENABLE_FIFO);
	ok(serial__console_poll(&c, &s, 1000000) == 0 && s.rx_count == 2 &&
	   rd(UART_RX) == 'b' && rd(UART_RX) == 'c', "FIFO: the rest");
	close(fds[1]);
	ok(serial__console_poll(&c, &s, 1000000) == 0 && c.eof &&
	   !s.rx_count, "EOF: noted, nothing received");
	ok(serial__console_poll(&c, &s, 1000000) == 0,
	   "after EOF: just a wait");
	close(fds[0]);
	serial__console_stop(&c);
}

/*
 * Issue 37: a console whose output blocks (a pipe nobody reads, filled
 * first, as a stdout whose reader stopped) must not stop the UART: the
 * vCPUs' THR writes and the main thread's serial__rx_room() and
 * serial__receive() go on. Each side runs in a thread of its own, and
 * the test waits for them with a timeout, so that it fails rather than
 * hangs where they block; it then drains the pipe to let them finish.
 */
#define BLOCKED_BYTES	200

static struct serial bs;
static sem_t blocked_done;

static void *blocked_vcpu(void *arg)
{
	unsigned int i, n = (unsigned long)arg;
	__u8 v;

	for (i = 0; i < n; i++) {
		v = 'a' + i % 26;
		serial__io(&bs, UART_TX, &v, true);
		serial__io(&bs, UART_LSR, &v, false);
	}
	sem_post(&blocked_done);
	return NULL;
}

static void *blocked_main(void *arg)
{
	(void)arg;
	serial__rx_room(&bs);
	serial__receive(&bs, (const __u8 *)"x", 1);
	sem_post(&blocked_done);
	return NULL;
}

/* Fill the pipe's write end @fd: its next write blocks. */
static size_t fill_pipe(int fd)
{
	static char buf[4096];
	size_t filled = 0;
	ssize_t n;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while ((n = write(fd, buf, sizeof(buf))) > 0)
		filled += n;
	while (write(fd, buf, 1) == 1)
		filled++;
	fcntl(fd, F_SETFL, 0);
	return filled;
}

/* Wait for @n posts of blocked_done, 2 s at most in all: how many came. */
static int wait_blocked(int n)
{
	struct timespec ts;
	int got = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	while (got < n && !sem_timedwait(&blocked_done, &ts))
		got++;
	return got;
}

struct drain {
	int fd;
	char *buf;
	size_t len, size;
};

static void *drain_pipe(void *arg)
{
	struct drain *d = arg;
	ssize_t n;

	while ((n = read(d->fd, d->buf + d->len,
			 d->len < d->size ? d->size - d->len : 1)) > 0)
		if (d->len < d->size)
			d->len += n;
	return NULL;
}

/*
 * More output than the ring holds while the console blocks: the vCPU
 * goes on, the bytes that do not fit are dropped and counted; the ones
 * kept come out first, in order. Then a console that never drains:
 * serial__console_stop() gives up after drain_ms and counts the rest.
 */
static void test_console_overflow(int in_fd)
{
	const unsigned int n = SERIAL_OUT_RING + 3 * SERIAL_OUT_CHUNK;
	struct drain d = { 0 };
	struct serial_console c;
	pthread_t vcpu, drainer;
	size_t filled, i;
	bool in_order = true;
	int out[2], got;

	if (pipe(out)) {
		ok(0, "pipe");
		return;
	}
	filled = fill_pipe(out[1]);
	serial__console_start(&c, in_fd, out[1]);
	serial__init(&bs, serial__console_tx, NULL, &c);
	pthread_create(&vcpu, NULL, blocked_vcpu, (void *)(unsigned long)n);
	got = wait_blocked(1);
	ok(got == 1, "stdout blocked: %u THR writes, more than the ring's %d bytes, returned",
	   n, SERIAL_OUT_RING);
	d.fd = out[0];
	d.size = filled + n;
	d.buf = calloc(1, d.size);
	pthread_create(&drainer, NULL, drain_pipe, &d);
	if (!got)
		wait_blocked(1);
	pthread_join(vcpu, NULL);
	serial__console_stop(&c);
	close(out[1]);
	pthread_join(drainer, NULL);
	/*
	 * The ring's first fill comes out first, in order. The writer
	 * blocks on the pipe once it has taken a chunk, so at most that
	 * chunk makes room while the vCPU goes on: what follows is one
	 * run of consecutive bytes, after a gap of dropped ones if the
	 * writer took its chunk only once the ring was full.
	 */
	for (i = 0; filled + i < d.len; i++) {
		if (i < SERIAL_OUT_RING)
			in_order &= d.buf[filled + i] == 'a' + (char)(i % 26);
		else if (i > SERIAL_OUT_RING)
			in_order &= (d.buf[filled + i] - 'a') % 26 ==
				    (d.buf[filled + i - 1] - 'a' + 1) % 26;
	}
	ok(c.dropped && d.len - filled + c.dropped == n && in_order &&
	   d.len - filled >= SERIAL_OUT_RING,
	   "ring full: %llu bytes dropped and counted, %zu kept: the ring's first fill in order, then one run",
	   c.dropped, d.len - filled);
	free(d.buf);
	close(out[0]);
	serial__destroy(&bs);

	/* Nobody ever reads: stop gives up after drain_ms. */
	if (pipe(out)) {
		ok(0, "pipe");
		return;
	}
	fill_pipe(out[1]);
	serial__console_start(&c, in_fd, out[1]);
	serial__init(&bs, serial__console_tx, NULL, &c);
	blocked_vcpu((void *)100UL);
	wait_blocked(1);
	c.drain_ms = 100;
	serial__console_stop(&c);
	ok(c.dropped == 100 && !c.writer_running,
	   "a console that never drains: stop gives up, 100 bytes dropped (%llu)",
	   c.dropped);
	close(out[0]);
	close(out[1]);
	serial__destroy(&bs);
}

static void test_console_blocked(void)
{
	struct drain d = { 0 };
	struct serial_console c;
	pthread_t vcpu, mainth, drainer;
	struct timespec t0, t1;
	int out[2], in[2], got;
	long ms;
	size_t filled, i;
	bool in_order = true;

	if (pipe(out) || pipe(in)) {
		ok(0, "pipe");
		return;
	}
	filled = fill_pipe(out[1]);
	sem_init(&blocked_done, 0, 0);
	serial__console_start(&c, in[0], out[1]);
	serial__init(&bs, serial__console_tx, NULL, &c);
	pthread_create(&vcpu, NULL, blocked_vcpu,
		       (void *)(unsigned long)BLOCKED_BYTES);
	usleep(10000);		/* let the vCPU hit the blocked pipe first */
	pthread_create(&mainth, NULL, blocked_main, NULL);
	got = wait_blocked(2);
	ok(got == 2,
	   "stdout blocked (a full pipe): %d THR writes and the main thread's serial__rx_room() returned (%d of 2 within 2 s)",
	   BLOCKED_BYTES, got);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	serial__console_sync(&c, 200);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000000;
	ok(got < 2 || (ms >= 150 && ms < 1500),
	   "serial__console_sync() on a blocked stdout gives up after its 200 ms (%ld ms)",
	   ms);

	/* Read the pipe: whatever blocked goes on, the output comes out. */
	d.fd = out[0];
	d.size = filled + BLOCKED_BYTES;
	d.buf = calloc(1, d.size);
	pthread_create(&drainer, NULL, drain_pipe, &d);
	if (got < 2)
		wait_blocked(2 - got);
	pthread_join(vcpu, NULL);
	pthread_join(mainth, NULL);
	serial__console_sync(&c, 2000);
	ok(!c.out_count && !c.writing,
	   "read: serial__console_sync() returns once the output is written");
	serial__console_stop(&c);
	close(out[1]);
	pthread_join(drainer, NULL);
	for (i = 0; i < BLOCKED_BYTES && filled + i < d.len; i++)
		in_order &= d.buf[filled + i] == 'a' + (char)(i % 26);
	ok(d.len == filled + BLOCKED_BYTES && in_order,
	   "once read, the guest's output is all there, in order (%zu of %d bytes)",
	   d.len - filled, BLOCKED_BYTES);
	free(d.buf);
	close(out[0]);
	serial__destroy(&bs);
	test_console_overflow(in[0]);
	close(in[0]);
	close(in[1]);
	sem_destroy(&blocked_done);
}

static int fake_io(struct ioport_dev *dev, unsigned int vcpu, __u16 port,
		   __u8 *data, unsigned int size, bool out)
{
	(void)dev;
	(void)vcpu;
	if (!out)
		memset(data, port & 0xff, size);
	return IOPORT_CONTINUE;
}

static void test_ioport(void)
{
	struct ioport_bus bus;
	struct guest_exit e = { 0, 0, 0 };
	__u8 d[8];
	int i;

	reset();
	ioport__init(&bus, &e);
	ok(!ioport__register_legacy(&bus, &s), "legacy devices and COM1");
	ok(ioport__register(&bus, 0x3fc, 8, "x", fake_io, NULL) == -EBUSY &&
	   ioport__register(&bus, 0x3f0, 8, "x", fake_io, NULL) == 0,
	   "overlapping ranges refused, adjacent ones taken");
	for (i = bus.nr; i < IOPORT_MAX_DEVS; i++)
		ioport__register(&bus, 0x1000 + 8 * i, 8, "x", fake_io, NULL);
	ok(ioport__register(&bus, 0x2000, 1, "x", fake_io, NULL) == -ENOSPC,
	   "a full bus: -ENOSPC");
	d[0] = 'Z';
	ok(ioport__emulate(&bus, 0, 0x3f8, d, 1, 1, true) == IOPORT_CONTINUE &&
	   ntx == 1 && txbuf[0] == 'Z', "0x3f8 OUT: the UART sends it");
	memcpy(d, "ab", 2);
	ok(ioport__emulate(&bus, 0, 0x3f8, d, 1, 2, true) == IOPORT_CONTINUE &&
	   !strcmp(txbuf, "Zab"), "string OUT (count 2): both bytes");
	ok(ioport__emulate(&bus, 0, 0x2f8, d, 1, 1, false) == IOPORT_CONTINUE &&
	   d[0] == 0xff && bus.unhandled == 1,
	   "COM2 (absent): reads 0xff, counted");
	ok(ioport__emulate(&bus, 0, 0x80, d, 1, 1, true) == IOPORT_CONTINUE &&
	   bus.unhandled == 2, "port 0x80: dropped, counted");
	ok(ioport__emulate(&bus, 0, 0x64, d, 1, 1, false) == IOPORT_CONTINUE &&
	   d[0] == 0x01 &&
	   ioport__emulate(&bus, 0, 0x60, d, 1, 1, false) == IOPORT_CONTINUE &&
	   d[0] == 0, "keyboard controller: status 0x01, input buffer empty, "
	   "output buffer never empty; data 0");
	d[0] = 0x0b;
	ioport__emulate(&bus, 0, 0x70, d, 1, 1, true);
	ok(ioport__emulate(&bus, 0, 0x71, d, 1, 1, false) == IOPORT_CONTINUE &&
	   d[0] == 0, "CMOS: reads 0 (no update in progress)");
	d[0] = 0xfd;
	ok(ioport__emulate(&bus, 1, 0x64, d, 1, 1, true) == IOPORT_CONTINUE &&
	   guest_exit__reason(&e) == GUEST_EXIT_NONE,
	   "another keyboard controller command: nothing");
	d[0] = 42;
	ok(ioport__emulate(&bus, 1, 0x501, d, 1, 1, true) == IOPORT_GUEST_EXIT &&
	   guest_exit__reason(&e) == GUEST_EXIT_DEBUG && e.status == 42 &&
	   e.vcpu == 1, "debug exit: OUT 42 to 0x501 on vCPU 1, status 42");
	d[0] = 0xfe;
	ok(ioport__emulate(&bus, 0, 0x64, d, 1, 1, true) == IOPORT_GUEST_EXIT &&
	   guest_exit__reason(&e) == GUEST_EXIT_DEBUG && e.status == 42,
	   "a reset after it: the first end wins");
	ioport__init(&bus, &e);
	memset(&e, 0, sizeof(e));
	ioport__register_legacy(&bus, NULL);
	ok(ioport__emulate(&bus, 0, 0x64, d, 1, 1, true) == IOPORT_GUEST_EXIT &&
	   guest_exit__reason(&e) == GUEST_EXIT_RESET && e.status == 0,
	   "OUT 0xfe to 0x64: reboot, status 0");
	ok(ioport__emulate(&bus, 0, 0x3f8, d, 1, 1, false) == IOPORT_CONTINUE &&
	   d[0] == 0xff, "no UART registered: COM1 floats");
	ok(ioport__debug_exit_status(0) == 0 &&
	   ioport__debug_exit_status(3) == 3 &&
	   ioport__debug_exit_status(255) == 255,
	   "debug-exit mapping: the byte is the exit status");
	ok(!strcmp(guest_exit__name(GUEST_EXIT_DEBUG), "debug-exit") &&
	   !strcmp(guest_exit__name(GUEST_EXIT_RESET), "reboot") &&
	   !strcmp(guest_exit__name(GUEST_EXIT_SHUTDOWN), "triple-fault"),
	   "exit reason names");
}

void test_serial(void)
{
	test_registers();
	test_thre();
	test_rx();
	test_console_filter();
	test_console_poll();
	test_console_blocked();
	test_ioport();
}
