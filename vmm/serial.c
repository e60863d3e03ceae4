// SPDX-License-Identifier: GPL-2.0
/*
 * A 16550A UART and the host side of the console, see serial.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "serial.h"

void serial__init(struct serial *s, void (*tx)(void *, __u8),
		  void (*set_irq)(void *, bool), void *opaque)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->lsr = UART_LSR_THRE | UART_LSR_TEMT;
	s->msr = UART_MSR_DCD | UART_MSR_DSR | UART_MSR_CTS;
	s->tx = tx;
	s->set_irq = set_irq;
	s->opaque = opaque;
}

void serial__destroy(struct serial *s)
{
	pthread_mutex_destroy(&s->lock);
}

static bool serial__fifo(const struct serial *s)
{
	return s->fcr & UART_FCR_ENABLE_FIFO;
}

static unsigned int serial__rx_depth(const struct serial *s)
{
	return serial__fifo(s) ? SERIAL_FIFO_SIZE : 1;
}

/* The interrupt IIR shows: the highest priority one pending. */
__u8 serial__iir(const struct serial *s)
{
	__u8 fifo = serial__fifo(s) ? UART_IIR_FIFO_ENABLED : 0;

	if ((s->ier & UART_IER_RLSI) && (s->lsr & UART_LSR_ERRORS))
		return fifo | UART_IIR_RLSI;
	if ((s->ier & UART_IER_RDI) && (s->lsr & UART_LSR_DR))
		return fifo | UART_IIR_RDI;
	if ((s->ier & UART_IER_THRI) && s->thr_ipending)
		return fifo | UART_IIR_THRI;
	if ((s->ier & UART_IER_MSI) && (s->msr & UART_MSR_DELTAS))
		return fifo | UART_IIR_MSI;
	return fifo | UART_IIR_NO_INT;
}

bool serial__irq_line(const struct serial *s)
{
	return !(serial__iir(s) & UART_IIR_NO_INT);
}

/* After any change: tell the VMM if the line moved. */
static void serial__update_irq(struct serial *s)
{
	bool level = serial__irq_line(s);

	if (level == s->irq)
		return;
	s->irq = level;
	if (s->set_irq)
		s->set_irq(s->opaque, level);
}

static void serial__rx_push(struct serial *s, __u8 byte)
{
	if (s->rx_count == serial__rx_depth(s)) {
		s->lsr |= UART_LSR_OE;	/* lost: only loopback gets here */
		return;
	}
	s->rx[(s->rx_head + s->rx_count) % SERIAL_FIFO_SIZE] = byte;
	s->rx_count++;
	s->rx_bytes++;
	s->lsr |= UART_LSR_DR;
}

static __u8 serial__rx_pop(struct serial *s)
{
	__u8 byte;

	if (!s->rx_count)
		return 0;
	byte = s->rx[s->rx_head];
	s->rx_head = (s->rx_head + 1) % SERIAL_FIFO_SIZE;
	if (!--s->rx_count)
		s->lsr &= ~UART_LSR_DR;
	return byte;
}

static void serial__rx_clear(struct serial *s)
{
	s->rx_head = 0;
	s->rx_count = 0;
	s->lsr &= ~UART_LSR_DR;
}

/* MSR in loopback: the modem outputs looped back to its inputs. */
static __u8 serial__loop_msr(const struct serial *s)
{
	return (s->mcr & UART_MCR_RTS ? UART_MSR_CTS : 0) |
	       (s->mcr & UART_MCR_DTR ? UART_MSR_DSR : 0) |
	       (s->mcr & UART_MCR_OUT1 ? UART_MSR_RI : 0) |
	       (s->mcr & UART_MCR_OUT2 ? UART_MSR_DCD : 0);
}

static void serial__transmit(struct serial *s, __u8 byte)
{
	if (s->mcr & UART_MCR_LOOP) {
		serial__rx_push(s, byte);
	} else {
		s->tx_bytes++;
		if (s->tx)
			s->tx(s->opaque, byte);
	}
	/* Sent at once: THR and the shift register are empty again. */
	s->lsr |= UART_LSR_THRE | UART_LSR_TEMT;
	s->thr_ipending = true;
}

static void serial__write(struct serial *s, unsigned int offset, __u8 val)
{
	bool dlab = s->lcr & UART_LCR_DLAB;
	__u8 old;

	switch (offset) {
	case UART_TX:
		if (dlab) {
			s->dll = val;
			break;
		}
		s->thr_ipending = false;
		serial__transmit(s, val);
		break;
	case UART_IER:
		if (dlab) {
			s->dlm = val;
			break;
		}
		old = s->ier;
		s->ier = val & UART_IER_MASK;
		/* ETBEI raised with THR empty: a THRE interrupt at once. */
		if ((s->ier ^ old) & UART_IER_THRI)
			s->thr_ipending = (s->ier & UART_IER_THRI) &&
					  (s->lsr & UART_LSR_THRE);
		break;
	case UART_FCR:
		if ((val ^ s->fcr) & UART_FCR_ENABLE_FIFO)
			serial__rx_clear(s);
		if (val & UART_FCR_CLEAR_RCVR)
			serial__rx_clear(s);
		/* The clear bits are self-clearing; XMIT is always empty. */
		s->fcr = val & ~(UART_FCR_CLEAR_RCVR | UART_FCR_CLEAR_XMIT);
		break;
	case UART_LCR:
		s->lcr = val;
		break;
	case UART_MCR:
		old = s->mcr;
		s->mcr = val & UART_MCR_MASK;
		if ((old ^ s->mcr) & UART_MCR_LOOP)
			s->msr &= ~UART_MSR_DELTAS;
		break;
	case UART_LSR:
	case UART_MSR:
		break;		/* read-only (factory test on real parts) */
	case UART_SCR:
		s->scr = val;
		break;
	}
}

static __u8 serial__read(struct serial *s, unsigned int offset)
{
	bool dlab = s->lcr & UART_LCR_DLAB;
	__u8 val;

	switch (offset) {
	case UART_RX:
		return dlab ? s->dll : serial__rx_pop(s);
	case UART_IER:
		return dlab ? s->dlm : s->ier;
	case UART_IIR:
		val = serial__iir(s);
		/* Reading IIR acknowledges a THRE interrupt it shows. */
		if ((val & 0x0f) == UART_IIR_THRI)
			s->thr_ipending = false;
		return val;
	case UART_LCR:
		return s->lcr;
	case UART_MCR:
		return s->mcr;
	case UART_LSR:
		val = s->lsr;
		s->lsr &= ~UART_LSR_ERRORS;	/* cleared by reading */
		return val;
	case UART_MSR:
		if (s->mcr & UART_MCR_LOOP)
			return serial__loop_msr(s);
		val = s->msr;
		s->msr &= ~UART_MSR_DELTAS;
		return val;
	case UART_SCR:
		return s->scr;
	}
	return 0xff;
}

/* A guest IN or OUT of one byte at register @offset (0..7). */
void serial__io(struct serial *s, unsigned int offset, __u8 *data, bool out)
{
	pthread_mutex_lock(&s->lock);
	if (out)
		serial__write(s, offset, *data);
	else
		*data = serial__read(s, offset);
	serial__update_irq(s);
	pthread_mutex_unlock(&s->lock);
}

unsigned int serial__rx_room(struct serial *s)
{
	unsigned int room;

	pthread_mutex_lock(&s->lock);
	room = serial__rx_depth(s) - s->rx_count;
	pthread_mutex_unlock(&s->lock);
	return room;
}

/* Bytes from the host: as many as the FIFO takes; how many it took. */
size_t serial__receive(struct serial *s, const __u8 *buf, size_t len)
{
	size_t n = 0;

	pthread_mutex_lock(&s->lock);
	while (n < len && s->rx_count < serial__rx_depth(s))
		serial__rx_push(s, buf[n++]);
	serial__update_irq(s);
	pthread_mutex_unlock(&s->lock);
	return n;
}

/*
 * The console's writer thread: the ring to out_fd, a chunk at a time,
 * in order. It holds the ring's lock only to take a chunk; it can be
 * cancelled only inside write(), by serial__console_stop() giving up.
 */
static void *serial__console_writer(void *arg)
{
	struct serial_console *c = arg;
	__u8 chunk[SERIAL_OUT_CHUNK];
	unsigned int n, done;
	ssize_t w;

	pthread_setname_np(pthread_self(), SERIAL_CONSOLE_THREAD);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_mutex_lock(&c->out_lock);
	for (;;) {
		while (!c->out_count && !c->stopping)
			pthread_cond_wait(&c->out_cond, &c->out_lock);
		if (!c->out_count)
			break;
		n = c->out_count < sizeof(chunk) ? c->out_count : sizeof(chunk);
		if (n > SERIAL_OUT_RING - c->out_head)
			n = SERIAL_OUT_RING - c->out_head;
		memcpy(chunk, c->out + c->out_head, n);
		c->out_head = (c->out_head + n) % SERIAL_OUT_RING;
		c->out_count -= n;
		c->writing = true;
		c->inflight = n;
		pthread_mutex_unlock(&c->out_lock);

		for (done = 0; done < n; done += w) {
			pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
			w = write(c->out_fd, chunk + done, n - done);
			pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				break;
			__atomic_store_n(&c->inflight, n - done - w,
					 __ATOMIC_RELAXED);
		}

		pthread_mutex_lock(&c->out_lock);
		if (done < n)
			c->dropped += n - done;	/* out_fd failed */
		c->writing = false;
		c->inflight = 0;
		pthread_cond_broadcast(&c->out_cond);
	}
	pthread_mutex_unlock(&c->out_lock);
	return NULL;
}

void serial__console_start(struct serial_console *c, int in_fd, int out_fd)
{
	sigset_t all, old;
	struct termios raw;
	int err;

	memset(c, 0, sizeof(*c));
	c->in_fd = in_fd;
	c->out_fd = out_fd;
	c->drain_ms = SERIAL_OUT_DRAIN_MS;
	pthread_mutex_init(&c->out_lock, NULL);
	pthread_cond_init(&c->out_cond, NULL);
	/* The writer takes no signal: the main thread handles them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&c->writer, NULL, serial__console_writer, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		fprintf(stderr, "minivmm: console: no writer thread (%s): the guest's output is written as it comes\n",
			strerror(err));
	c->writer_running = !err;
	if (!isatty(in_fd) || tcgetattr(in_fd, &c->saved))
		return;
	raw = c->saved;
	cfmakeraw(&raw);
	/* Keep the host's output processing: the report comes after. */
	raw.c_oflag = c->saved.c_oflag;
	if (!tcsetattr(in_fd, TCSANOW, &raw))
		c->raw = true;
}

/* CLOCK_REALTIME @ms from now, for pthread_cond_timedwait(). */
static void serial__deadline(struct timespec *ts, unsigned int ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += ms % 1000 * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/*
 * Wait up to @ms for the guest's output so far to be written (any
 * thread, while the console runs; not under the UART's lock). A stdout
 * that blocks delays the caller by @ms, no more.
 */
void serial__console_sync(struct serial_console *c, unsigned int ms)
{
	struct timespec ts;

	if (!c->writer_running)
		return;
	serial__deadline(&ts, ms);
	pthread_mutex_lock(&c->out_lock);
	while ((c->out_count || c->writing) &&
	       !pthread_cond_timedwait(&c->out_cond, &c->out_lock, &ts))
		;
	pthread_mutex_unlock(&c->out_lock);
}

/*
 * Wait up to c->drain_ms for the writer to write the ring, then stop
 * it: what is left is dropped. Once the vCPUs are joined; again
 * after that, or without a serial__console_start(), it does nothing.
 */
static void serial__console_stop_writer(struct serial_console *c)
{
	struct timespec ts;
	bool drained = true;

	if (!c->writer_running)
		return;
	serial__deadline(&ts, c->drain_ms);
	pthread_mutex_lock(&c->out_lock);
	c->stopping = true;
	pthread_cond_broadcast(&c->out_cond);
	while ((c->out_count || c->writing) && drained)
		drained = !pthread_cond_timedwait(&c->out_cond, &c->out_lock,
						  &ts);
	if (!drained)
		c->dropped += c->out_count +
			      __atomic_load_n(&c->inflight, __ATOMIC_RELAXED);
	c->out_count = 0;
	pthread_mutex_unlock(&c->out_lock);
	if (!drained)
		pthread_cancel(c->writer);	/* it is blocked in write() */
	pthread_join(c->writer, NULL);
	c->writer_running = false;
	pthread_cond_destroy(&c->out_cond);
	pthread_mutex_destroy(&c->out_lock);
	if (c->dropped)
		fprintf(stderr,
			"minivmm: console: %llu bytes of the guest's output dropped: its output did not keep up\n",
			c->dropped);
}

void serial__console_stop(struct serial_console *c)
{
	serial__console_stop_writer(c);
	if (c->raw)
		tcsetattr(c->in_fd, TCSANOW, &c->saved);
	c->raw = false;
}

/*
 * The UART's tx callback, under the UART's lock: one byte into the
 * ring for the writer; dropped and counted if the ring is full. Without
 * a writer thread (it could not be created) the byte is written here.
 */
void serial__console_tx(void *console, __u8 byte)
{
	struct serial_console *c = console;
	ssize_t n;

	if (!c->writer_running) {
		do {
			n = write(c->out_fd, &byte, 1);
		} while (n < 0 && errno == EINTR);
		return;
	}
	pthread_mutex_lock(&c->out_lock);
	if (c->out_count == SERIAL_OUT_RING) {
		c->dropped++;
	} else {
		c->out[(c->out_head + c->out_count) % SERIAL_OUT_RING] = byte;
		if (!c->out_count++)
			pthread_cond_broadcast(&c->out_cond);
	}
	pthread_mutex_unlock(&c->out_lock);
}

/*
 * Drop the console's escape sequence from @buf in place (only on a raw
 * terminal): Ctrl-A x sets *@quit, Ctrl-A Ctrl-A sends one Ctrl-A. The
 * bytes left for the guest.
 */
size_t serial__console_filter(struct serial_console *c, __u8 *buf,
			      size_t len, bool *quit)
{
	size_t i, n = 0;

	if (!c->raw)
		return len;
	for (i = 0; i < len; i++) {
		if (c->escape) {
			c->escape = false;
			if (buf[i] == SERIAL_QUIT_KEY) {
				*quit = true;
				continue;
			}
			if (buf[i] != SERIAL_ESCAPE_KEY)
				continue;
		} else if (buf[i] == SERIAL_ESCAPE_KEY) {
			c->escape = true;
			continue;
		}
		buf[n++] = buf[i];
	}
	return n;
}

/*
 * Wait up to @timeout_ns for console input, and give the UART what its
 * FIFO has room for. With no room (or after EOF) just sleep: the guest
 * reads the FIFO in the meantime. SERIAL_CONSOLE_QUIT after Ctrl-A x,
 * else 0.
 */
int serial__console_poll(struct serial_console *c, struct serial *s,
			 long timeout_ns)
{
	struct timespec ts = { .tv_nsec = timeout_ns };
	struct pollfd pfd = { .fd = c->in_fd, .events = POLLIN };
	unsigned int room = serial__rx_room(s);
	__u8 buf[SERIAL_FIFO_SIZE];
	bool quit = false;
	ssize_t n;

	if (c->eof || !room) {
		nanosleep(&ts, NULL);
		return 0;
	}
	if (poll(&pfd, 1, timeout_ns / 1000000) <= 0)
		return 0;
	n = read(c->in_fd, buf, room < sizeof(buf) ? room : sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		c->eof = true;
		return 0;
	}
	n = serial__console_filter(c, buf, n, &quit);
	serial__receive(s, buf, n);
	return quit ? SERIAL_CONSOLE_QUIT : 0;
}
