/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A 16550A UART (COM1: ports 0x3f8-0x3ff, ISA IRQ 4) for a Linux guest's
 * console=ttyS0: its registers, its 16-byte receive FIFO and its
 * interrupt line. Transmission is instant: a byte written to THR goes to
 * the host at once, and THR is empty again (THRE, TEMT), which raises
 * the THRE interrupt when IER asks for it. Reading IIR while THRE is the
 * interrupt it shows, or writing THR, clears it; enabling ETBEI with THR
 * empty raises it again, as the 8250 driver's THRE test expects of a
 * real 16550.
 *
 * The model calls back: @tx for each byte the guest sends, @set_irq when
 * the interrupt line changes (the VMM raises ISA IRQ 4 with KVM_IRQ_LINE:
 * a rising edge is an interrupt on the edge-triggered IOAPIC pin).
 * Receive with serial__receive(). Every entry point takes the lock: vCPU
 * threads and the main thread (input) use the same UART.
 */
#ifndef MINIVMM_SERIAL_H
#define MINIVMM_SERIAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <termios.h>
#include <linux/types.h>

#define SERIAL_COM1_BASE	0x3f8
#define SERIAL_COM1_IRQ		4
#define SERIAL_NR_REGS		8
#define SERIAL_FIFO_SIZE	16

/* Register offsets. */
#define UART_RX			0	/* RBR (in), THR (out); DLL with DLAB */
#define UART_TX			0
#define UART_DLL		0
#define UART_IER		1	/* DLM with DLAB */
#define UART_DLM		1
#define UART_IIR		2	/* in */
#define UART_FCR		2	/* out */
#define UART_LCR		3
#define UART_MCR		4
#define UART_LSR		5
#define UART_MSR		6
#define UART_SCR		7

#define UART_IER_RDI		0x01	/* received data available */
#define UART_IER_THRI		0x02	/* THR empty */
#define UART_IER_RLSI		0x04	/* receiver line status */
#define UART_IER_MSI		0x08	/* modem status */
#define UART_IER_MASK		0x0f

#define UART_IIR_NO_INT		0x01
#define UART_IIR_MSI		0x00
#define UART_IIR_THRI		0x02
#define UART_IIR_RDI		0x04
#define UART_IIR_RLSI		0x06
#define UART_IIR_FIFO_ENABLED	0xc0	/* 16550A with FCR bit 0 set */

#define UART_FCR_ENABLE_FIFO	0x01
#define UART_FCR_CLEAR_RCVR	0x02
#define UART_FCR_CLEAR_XMIT	0x04

#define UART_LCR_DLAB		0x80

#define UART_MCR_DTR		0x01
#define UART_MCR_RTS		0x02
#define UART_MCR_OUT1		0x04
#define UART_MCR_OUT2		0x08
#define UART_MCR_LOOP		0x10
#define UART_MCR_MASK		0x1f

#define UART_LSR_DR		0x01	/* data ready */
#define UART_LSR_OE		0x02	/* overrun */
#define UART_LSR_THRE		0x20
#define UART_LSR_TEMT		0x40
#define UART_LSR_ERRORS		0x1e	/* OE, PE, FE, BI */

#define UART_MSR_DCTS		0x01
#define UART_MSR_DDSR		0x02
#define UART_MSR_TERI		0x04
#define UART_MSR_DDCD		0x08
#define UART_MSR_DELTAS		0x0f
#define UART_MSR_CTS		0x10
#define UART_MSR_DSR		0x20
#define UART_MSR_RI		0x40
#define UART_MSR_DCD		0x80

struct serial {
	pthread_mutex_t lock;
	__u8 rx[SERIAL_FIFO_SIZE];	/* receive FIFO (1 byte deep without FCR) */
	unsigned int rx_head, rx_count;
	__u8 ier, lcr, mcr, lsr, msr, scr, fcr, dll, dlm;
	bool thr_ipending;		/* THRE interrupt pending */
	bool irq;			/* the line as last set */
	unsigned long long tx_bytes, rx_bytes;

	void (*tx)(void *opaque, __u8 byte);
	void (*set_irq)(void *opaque, bool level);
	void *opaque;
};

void serial__init(struct serial *s, void (*tx)(void *, __u8),
		  void (*set_irq)(void *, bool), void *opaque);
void serial__destroy(struct serial *s);
void serial__io(struct serial *s, unsigned int offset, __u8 *data, bool out);
unsigned int serial__rx_room(struct serial *s);
size_t serial__receive(struct serial *s, const __u8 *buf, size_t len);

/* Without the lock, for the tests and serial__io(). */
__u8 serial__iir(const struct serial *s);
bool serial__irq_line(const struct serial *s);

/*
 * The host side of the console: the guest's bytes go to @out_fd; with
 * stdin a terminal, it is put in raw mode (restored by
 * serial__console_stop()) so that the guest sees each key, Ctrl-C
 * included, and Ctrl-A x asks minivmm to stop (SERIAL_CONSOLE_QUIT).
 *
 * Output: serial__console_tx(), the UART's tx callback, runs on a vCPU's
 * thread with the UART's lock held, so it never writes: it puts the
 * byte in a ring of SERIAL_OUT_RING bytes, under a lock of its own held
 * only to copy, and a writer thread writes the ring to @out_fd, in
 * order, holding no lock while it writes. An @out_fd that blocks (a
 * stdout nobody reads) stops the writer alone: the UART, the vCPUs and
 * the main thread go on. When the ring is full, the bytes that do not
 * fit are dropped and counted (@dropped), never waited for.
 * serial__console_sync() waits, at most the time it is given, for what
 * the ring holds to be written: before minivmm's own messages, so that
 * they come after the guest's output so far on a shared terminal.
 * serial__console_stop() waits up to @drain_ms (SERIAL_OUT_DRAIN_MS) for
 * the ring to be written, then counts what is left as dropped, and says
 * so in one line on stderr if anything was.
 */
#define SERIAL_OUT_RING		65536
#define SERIAL_OUT_CHUNK	4096	/* the most one write() takes */
#define SERIAL_OUT_DRAIN_MS	5000
#define SERIAL_OUT_SYNC_MS	1000	/* before a message of minivmm's */
#define SERIAL_CONSOLE_THREAD	"minivmm-console"	/* its name */

struct serial_console {
	int in_fd, out_fd;
	bool eof;			/* in_fd said EOF or failed */
	bool raw;			/* a terminal in raw mode */
	bool escape;			/* the last key was Ctrl-A */
	struct termios saved;		/* to restore, when raw */

	/* The guest's output, see above. */
	pthread_mutex_t out_lock;
	pthread_cond_t out_cond;	/* bytes came, or the writer is idle */
	pthread_t writer;
	bool writer_running;
	bool stopping;			/* serial__console_stop() waits */
	bool writing;			/* a chunk is out of the ring */
	unsigned int out_head, out_count;
	unsigned int inflight;		/* bytes of that chunk not written */
	unsigned long long dropped;	/* bytes lost: ring full, write error */
	unsigned int drain_ms;		/* serial__console_stop()'s wait */
	__u8 out[SERIAL_OUT_RING];
};

#define SERIAL_ESCAPE_KEY	0x01	/* Ctrl-A */
#define SERIAL_QUIT_KEY		'x'
#define SERIAL_CONSOLE_QUIT	1

void serial__console_start(struct serial_console *c, int in_fd, int out_fd);
void serial__console_stop(struct serial_console *c);
void serial__console_tx(void *console, __u8 byte);
void serial__console_sync(struct serial_console *c, unsigned int ms);
int serial__console_poll(struct serial_console *c, struct serial *s,
			 long timeout_ns);
size_t serial__console_filter(struct serial_console *c, __u8 *buf,
			      size_t len, bool *quit);

#endif /* MINIVMM_SERIAL_H */
