/*
 * The reader firmware (build/reader.elf) on a simulated Nano: simavr runs the ATmega328P at
 * 16 MHz, with an MFRC522 model on its SPI pins (mfrc522_model.c) and the UART bridged to
 * this program's stdin/stdout.  A test scripts it one line at a time; time only moves on
 * `run`, so a script gives the same bytes on every machine whatever its load.
 *
 *   reader_sim ELF [--eeprom FILE] [--seed N] [--pty]
 *
 * With --pty the board runs in real time and its UART is a pseudo-terminal, for the
 * companion's own host code (pyserial) to open: the first line is "pty <slave path>",
 * then the commands below work as usual except `run`.
 *
 * Commands (one per line; each answers one line starting "ok" or "error"):
 *   run MS              simulate MS ms; answers "ok t=<ms> led=R,G,B uart=<hex of the
 *                       bytes the board sent meanwhile, or ->"
 *   send HEX            bytes for the board's UART receiver, fed at 115200 baud
 *   tag in UID [delay]  a tag (4, 7 or 10 bytes of hex) enters the field; it answers
 *                       after `delay` us (default from the seed, 90..600)
 *   tag out UID         it leaves the field (and forgets its state)
 *   chip absent [00|ff] no MFRC522 on the bus: MISO reads 00 (default) or ff
 *   chip present        a fresh MFRC522 is there (registers at their reset values)
 *   chip glitch         the MFRC522 resets itself (supply dip): registers back to defaults
 *   button down|up      press / release the button (D2)
 *   reset               reset with power kept (DTR auto-reset, watchdog): SRAM survives
 *   power               power cycle: SRAM filled with noise, EEPROM kept, chip reset
 *   eeprom erase        a fresh EEPROM (all FF)
 *   eeprom              answers "ok <hex of EEPROM bytes 0..15>"
 *   poke ADDR HEX       write bytes into SRAM at data address ADDR (hex), e.g. to damage
 *                       what a bootloader could overwrite
 *   pc                  answers "ok pc=<byte address> sp=<hex> state=<simavr state>"
 *   quit                saves the EEPROM (--eeprom) and exits 0
 * Exit status: 0 on quit or end of input, 2 for bad arguments or an unloadable ELF,
 * 3 when the simulated CPU crashes (the last answer says so).
 */
#define _GNU_SOURCE /* posix_openpt, ptsname */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/select.h>
#include <termios.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <avr_adc.h>
#include <avr_eeprom.h>
#include <avr_extint.h>
#include <avr_ioport.h>
#include <avr_spi.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_cycle_timers.h>
#include <sim_elf.h>
#include <sim_io.h>
#include <sim_time.h>

#include "mfrc522_model.h"

#define UART_BYTE_CYCLES 1389 /* 16 MHz / 11520 bytes per second (10 bits per byte) */
#define OUT_MAX 65536

static avr_t *avr;
static mfrc522_t chip;
static uint8_t out[OUT_MAX];
static size_t out_n;
static uint8_t in_q[4096];
static size_t in_head, in_tail;
static avr_cycle_count_t next_in;
static uint32_t rng = 1;
static const char *eeprom_path;
static int pty_mode;
static int button_down;

/* The button pin as the outside world holds it: pull-up high, or pressed to GND. */
static void button_pin(void)
{
    avr_irq_t *pin = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 2);
    /* simavr drops a raise that repeats the pin's last value, even after a reset cleared
     * PIND: flip it first (no instruction runs in between, so the board sees no edge). */
    avr_raise_irq(pin, button_down ? 1 : 0);
    avr_raise_irq(pin, button_down ? 0 : 1);
}

uint32_t sim_random(void)
{
    /* xorshift32: noise for SRAM at power-on, the ADC and tag latencies */
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* simavr's default sleep waits in real time; here simulated time runs as fast as it can. */
static void sleep_not(avr_t *a, avr_cycle_count_t how_long)
{
    (void)a;
    (void)how_long;
}

/*
 * simavr ends every SPI transfer 100 us after SPDR is written, whatever the clock: 50
 * times the Nano's 4 MHz SPI, which would make every scan far slower than on the board.
 * After simavr's own SPDR handler has scheduled its end-of-transfer timer, move that timer
 * to the real transfer time, 8 bits at SPCR/SPSR's clock (ATmega328P datasheet 19.5).
 */
#define SPCR_ADDR 0x4C
#define SPSR_ADDR 0x4D
#define SPDR_ADDR 0x4E
static avr_cycle_timer_t spi_done_fn;
static void *spi_done_param;

static void spdr_written(struct avr_t *a, avr_io_addr_t addr, uint8_t v, void *param)
{
    (void)addr;
    (void)v;
    (void)param;
    if (!spi_done_fn) {
        avr_cycle_count_t due = a->cycle + avr_usec_to_cycles(a, 100);
        for (avr_cycle_timer_slot_p t = a->cycle_timers.timer; t; t = t->next)
            if (t->when == due) {
                spi_done_fn = t->timer;
                spi_done_param = t->param;
            }
        if (!spi_done_fn) {
            static int warned;
            if (!warned++)
                fprintf(stderr, "reader_sim: simavr's SPI timer not found: SPI bytes take 100 us\n");
            return;
        }
    }
    static const uint8_t divider[4] = {4, 16, 64, 128};
    uint32_t cycles = 8u * divider[a->data[SPCR_ADDR] & 3];
    if (a->data[SPSR_ADDR] & 1) /* SPI2X */
        cycles /= 2;
    avr_cycle_timer_cancel(a, spi_done_fn, spi_done_param);
    avr_cycle_timer_register(a, cycles, spi_done_fn, spi_done_param);
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    if (out_n < OUT_MAX)
        out[out_n++] = (uint8_t)value;
}

static void adc_trigger(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    /* A7 is not connected on the Nano: it floats around mid-rail with a few mV of noise. */
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC7), 2400 + sim_random() % 200);
}

static int hexbytes(const char *s, uint8_t *buf, size_t room)
{
    size_t n = 0;
    while (*s && !isspace((unsigned char)*s)) {
        unsigned v;
        if (n >= room || !isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) || sscanf(s, "%2x", &v) != 1)
            return -1;
        buf[n++] = (uint8_t)v;
        s += 2;
    }
    return (int)n;
}

static void eeprom_io(int save)
{
    uint8_t ee[1024];
    avr_eeprom_desc_t d = {.ee = ee, .offset = 0, .size = sizeof ee};
    if (!eeprom_path)
        return;
    if (save) {
        avr_ioctl(avr, AVR_IOCTL_EEPROM_GET, &d);
        FILE *f = fopen(eeprom_path, "wb");
        if (f) {
            fwrite(d.ee, 1, sizeof ee, f);
            fclose(f);
        }
        return;
    }
    FILE *f = fopen(eeprom_path, "rb");
    if (!f)
        return; /* no file yet: a fresh EEPROM */
    if (fread(ee, 1, sizeof ee, f) == sizeof ee)
        avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &d);
    fclose(f);
}

static void eeprom_erase(void)
{
    uint8_t ee[1024];
    memset(ee, 0xFF, sizeof ee);
    avr_eeprom_desc_t d = {.ee = ee, .offset = 0, .size = sizeof ee};
    avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &d);
}

/* Reset the MCU.  SRAM holds its content through a reset while powered (ATmega328P
 * datasheet section 11.3); simavr's reset is not trusted to, so it is put back. */
static void mcu_reset(int cold)
{
    uint16_t lo = (uint16_t)(avr->ioend + 1), hi = avr->ramend;
    static uint8_t sram[4096];
    memcpy(sram, avr->data + lo, (size_t)(hi - lo + 1));
    avr_reset(avr);
    if (cold)
        for (uint16_t i = 0; i <= hi - lo; i++)
            sram[i] = (uint8_t)sim_random();
    memcpy(avr->data + lo, sram, (size_t)(hi - lo + 1));
    in_head = in_tail = 0;
    button_pin(); /* the reset cleared simavr's idea of the pin */
}

/* Simulate ms milliseconds; returns 0, or -1 when the CPU crashed or stopped. */
static int run_ms(uint32_t ms)
{
    avr_cycle_count_t end = avr->cycle + avr_usec_to_cycles(avr, ms * 1000UL);
    avr_irq_t *rx = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    while (avr->cycle < end) {
        if (in_head != in_tail && avr->cycle >= next_in) {
            avr_raise_irq(rx, in_q[in_head]);
            in_head = (in_head + 1) % sizeof in_q;
            next_in = avr->cycle + UART_BYTE_CYCLES;
        }
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed)
            return -1;
    }
    return 0;
}

static void answer_run(void)
{
    uint64_t ms = avr->cycle / (avr->frequency / 1000);
    printf("ok t=%llu led=%u,%u,%u uart=", (unsigned long long)ms, avr->data[0x47], avr->data[0x48], avr->data[0xB4]);
    if (!out_n)
        putchar('-');
    for (size_t i = 0; i < out_n; i++)
        printf("%02x", out[i]);
    putchar('\n');
    out_n = 0;
}

static int command(char *line)
{
    char *arg;
    char *cmd = strtok_r(line, " \t\r\n", &arg);
    char *a1 = strtok_r(NULL, " \t\r\n", &arg);
    char *a2 = strtok_r(NULL, " \t\r\n", &arg);
    uint8_t buf[1024];
    int n;
    if (!cmd)
        return printf("error empty command\n"), 0;
    if (!strcmp(cmd, "run") && pty_mode) {
        printf("error time runs by itself with --pty\n");
    } else if (!strcmp(cmd, "run") && a1) {
        long ms = strtol(a1, NULL, 10);
        if (ms <= 0 || ms > 600000)
            return printf("error run wants 1..600000 ms\n"), 0;
        if (run_ms((uint32_t)ms) < 0) {
            printf("error the simulated CPU stopped (state %d) at pc %04x\n", avr->state, avr->pc);
            return -1;
        }
        answer_run();
    } else if (!strcmp(cmd, "send") && a1 && (n = hexbytes(a1, buf, sizeof buf)) > 0) {
        for (int i = 0; i < n; i++) {
            size_t next = (in_tail + 1) % sizeof in_q;
            if (next == in_head)
                return printf("error UART input queue full\n"), 0;
            in_q[in_tail] = buf[i];
            in_tail = next;
        }
        printf("ok\n");
    } else if (!strcmp(cmd, "tag") && a1 && a2 && (n = hexbytes(a2, buf, sizeof buf)) > 0) {
        char *a3 = strtok_r(NULL, " \t\r\n", &arg);
        uint32_t delay = a3 ? (uint32_t)strtoul(a3, NULL, 10) : 90 + sim_random() % 511;
        const char *err = !strcmp(a1, "in") ? mfrc522_tag_in(&chip, buf, (uint8_t)n, delay)
                          : !strcmp(a1, "out") ? mfrc522_tag_out(&chip, buf, (uint8_t)n)
                                               : "tag wants in or out";
        if (err)
            printf("error %s\n", err);
        else
            printf("ok\n");
    } else if (!strcmp(cmd, "chip") && a1) {
        if (!strcmp(a1, "absent"))
            mfrc522_set_present(&chip, 0, (a2 && !strcmp(a2, "ff")) ? 0xFF : 0x00);
        else if (!strcmp(a1, "present"))
            mfrc522_set_present(&chip, 1, 0);
        else if (!strcmp(a1, "glitch"))
            mfrc522_power_on(&chip);
        else
            return printf("error chip wants absent, present or glitch\n"), 0;
        printf("ok\n");
    } else if (!strcmp(cmd, "button") && a1 && (!strcmp(a1, "down") || !strcmp(a1, "up"))) {
        button_down = !strcmp(a1, "down");
        button_pin();
        printf("ok\n");
    } else if (!strcmp(cmd, "reset")) {
        mcu_reset(0);
        printf("ok\n");
    } else if (!strcmp(cmd, "power")) {
        mcu_reset(1);
        mfrc522_power_on(&chip);
        printf("ok\n");
    } else if (!strcmp(cmd, "eeprom")) {
        if (a1 && !strcmp(a1, "erase")) {
            eeprom_erase();
            printf("ok\n");
        } else {
            uint8_t ee[16];
            avr_eeprom_desc_t d = {.ee = ee, .offset = 0, .size = sizeof ee};
            avr_ioctl(avr, AVR_IOCTL_EEPROM_GET, &d);
            printf("ok ");
            for (int i = 0; i < 16; i++)
                printf("%02x", d.ee[i]);
            putchar('\n');
        }
    } else if (!strcmp(cmd, "poke") && a1 && a2 && (n = hexbytes(a2, buf, sizeof buf)) > 0) {
        unsigned long addr = strtoul(a1, NULL, 16);
        if (addr <= avr->ioend || addr + (unsigned long)n > (unsigned long)avr->ramend + 1)
            return printf("error poke wants an SRAM address\n"), 0;
        memcpy(avr->data + addr, buf, (size_t)n);
        printf("ok\n");
    } else if (!strcmp(cmd, "pc")) {
        printf("ok pc=%04x sp=%04x state=%d\n", avr->pc, (unsigned)(avr->data[0x5D] | (avr->data[0x5E] << 8)), avr->state);
    } else if (!strcmp(cmd, "quit")) {
        eeprom_io(1);
        printf("ok\n");
        return 1;
    } else {
        printf("error unknown or incomplete command: %s\n", cmd);
    }
    return 0;
}

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Real-time mode: the UART on a pseudo-terminal, commands on stdin.  Returns the exit
 * status. */
static int run_pty(void)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) || unlockpt(master)) {
        fprintf(stderr, "reader_sim: no pseudo-terminal: %s\n", strerror(errno));
        return 2;
    }
    const char *slave_path = ptsname(master);
    /* Hold the slave open: the master then never reads EIO while no host has it open. */
    int slave = open(slave_path, O_RDWR | O_NOCTTY);
    struct termios tio;
    if (slave < 0 || tcgetattr(slave, &tio)) {
        fprintf(stderr, "reader_sim: cannot set up %s: %s\n", slave_path, strerror(errno));
        return 2;
    }
    cfmakeraw(&tio);
    tcsetattr(slave, TCSANOW, &tio);
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    printf("pty %s\n", slave_path);
    fflush(stdout);

    double start = wall_ms();
    uint64_t sim_ms = 0;
    char line[4096];
    size_t line_n = 0;
    for (;;) {
        fd_set rd;
        FD_ZERO(&rd);
        FD_SET(0, &rd);
        struct timeval zero = {0, 0};
        if (select(1, &rd, NULL, NULL, &zero) > 0) {
            char c;
            ssize_t got = read(0, &c, 1);
            if (got <= 0) { /* end of input */
                eeprom_io(1);
                return 0;
            }
            if (line_n < sizeof line - 1)
                line[line_n++] = c;
            if (c == '\n') {
                line[line_n] = 0;
                line_n = 0;
                int r = command(line);
                fflush(stdout);
                if (r)
                    return r > 0 ? 0 : 3;
            }
            continue;
        }
        uint8_t buf[256];
        ssize_t n = read(master, buf, sizeof buf);
        for (ssize_t i = 0; i < n; i++) {
            size_t next = (in_tail + 1) % sizeof in_q;
            if (next != in_head) {
                in_q[in_tail] = buf[i];
                in_tail = next;
            }
        }
        if (run_ms(1) < 0) {
            printf("error the simulated CPU stopped (state %d) at pc %04x\n", avr->state, avr->pc);
            return 3;
        }
        sim_ms++;
        if (out_n) {
            if (write(master, out, out_n) < 0 && errno != EAGAIN)
                return fprintf(stderr, "reader_sim: pty write: %s\n", strerror(errno)), 3;
            out_n = 0;
        }
        double ahead = (double)sim_ms - (wall_ms() - start);
        if (ahead > 0) {
            struct timespec ts = {0, (long)(ahead * 1e6)};
            nanosleep(&ts, NULL);
        }
    }
}

int main(int argc, char **argv)
{
    const char *elf = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--eeprom") && i + 1 < argc)
            eeprom_path = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            rng = (uint32_t)strtoul(argv[++i], NULL, 0) * 2654435761u ^ 0x9E3779B9u;
            if (!rng)
                rng = 1; /* xorshift never leaves 0 */
        } else if (!strcmp(argv[i], "--pty"))
            pty_mode = 1;
        else if (argv[i][0] != '-' && !elf)
            elf = argv[i];
        else {
            fprintf(stderr, "usage: reader_sim ELF [--eeprom FILE] [--seed N] [--pty]\n");
            return 2;
        }
    }
    if (!elf) {
        fprintf(stderr, "usage: reader_sim ELF [--eeprom FILE] [--seed N]\n");
        return 2;
    }
    /* simavr reports what it loads on stdout, which carries the answers: send it to stderr */
    fflush(stdout);
    int saved_stdout = dup(1);
    dup2(2, 1);
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw) != 0) {
        fprintf(stderr, "reader_sim: cannot read %s: %s\n", elf, strerror(errno));
        return 2;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) {
        fprintf(stderr, "reader_sim: this simavr has no atmega328p\n");
        return 2;
    }
    avr_init(avr);
    avr->log = LOG_ERROR;
    avr->sleep = sleep_not;
    fw.frequency = 16000000;
    avr_load_firmware(avr, &fw);
    avr->frequency = 16000000;
    avr->vcc = avr->avcc = avr->aref = 5000;

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_out, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_OUT_TRIGGER), adc_trigger, NULL);

    mfrc522_attach(&chip, avr);
    avr_register_io_write(avr, SPDR_ADDR, spdr_written, NULL);
    eeprom_io(0);
    /* The button (D2 to GND) is released: its pull-up holds the pin high.  INT0 is not
     * used; simavr would otherwise poll it as a level interrupt every cycle. */
    avr_extint_set_strict_lvl_trig(avr, 0, 0);
    avr_extint_set_strict_lvl_trig(avr, 1, 0);
    button_pin();
    fflush(stdout);
    dup2(saved_stdout, 1);
    close(saved_stdout);

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (pty_mode)
        return run_pty();
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        int r = command(line);
        fflush(stdout);
        if (r > 0)
            return 0;
        if (r < 0)
            return 3;
    }
    eeprom_io(1);
    return 0;
}
