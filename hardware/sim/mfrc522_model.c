/* MFRC522 and ISO 14443A tag model for simavr; see mfrc522_model.h. */
#include "mfrc522_model.h"

#include <string.h>

#include <avr_ioport.h>
#include <avr_spi.h>
#include <sim_cycle_timers.h>
#include <sim_io.h>
#include <sim_irq.h>

/* Registers (MFRC522 datasheet section 9.2). */
#define CommandReg 0x01
#define ComIrqReg 0x04
#define ErrorReg 0x06
#define FIFODataReg 0x09
#define FIFOLevelReg 0x0A
#define ControlReg 0x0C
#define BitFramingReg 0x0D
#define CollReg 0x0E
#define ModeReg 0x11
#define TxControlReg 0x14
#define TModeReg 0x2A
#define TPrescalerReg 0x2B
#define TReloadRegH 0x2C
#define TReloadRegL 0x2D
#define VersionReg 0x37

#define CMD_IDLE 0x00
#define CMD_TRANSCEIVE 0x0C
#define CMD_SOFTRESET 0x0F

enum { TAG_IDLE, TAG_READY, TAG_ACTIVE, TAG_HALT };

static void crc_a(const uint8_t *d, int n, uint8_t out[2])
{
    uint16_t crc = 0x6363; /* ISO/IEC 14443-3 annex B */
    while (n--) {
        uint8_t b = *d++;
        b ^= (uint8_t)(crc & 0xFF);
        b ^= (uint8_t)(b << 4);
        crc = (uint16_t)((crc >> 8) ^ ((uint16_t)b << 8) ^ ((uint16_t)b << 3) ^ (b >> 4));
    }
    out[0] = (uint8_t)crc;
    out[1] = (uint8_t)(crc >> 8);
}

static int crc_ok(const uint8_t *d, int n)
{
    uint8_t c[2];
    if (n < 3)
        return 0;
    crc_a(d, n - 2, c);
    return c[0] == d[n - 2] && c[1] == d[n - 1];
}

/* The 5 bytes a tag sends at cascade level `level`: 4 UID bytes (CT first when the UID
 * goes on) and BCC. */
static void level_bytes(const model_tag_t *t, int level, uint8_t out[5])
{
    int levels = t->len == 4 ? 1 : t->len == 7 ? 2 : 3;
    if (level < levels - 1) {
        out[0] = 0x88; /* cascade tag */
        memcpy(out + 1, t->uid + 3 * level, 3);
    } else {
        memcpy(out, t->uid + 3 * level, 4);
    }
    out[4] = out[0] ^ out[1] ^ out[2] ^ out[3];
}

static int bit_of(const uint8_t *b, int i) { return (b[i / 8] >> (i % 8)) & 1; }

static void reset_registers(mfrc522_t *m)
{
    memset(m->reg, 0, sizeof m->reg);
    m->reg[CommandReg] = 0x20;
    m->reg[ComIrqReg] = 0x14;
    m->reg[CollReg] = 0xA0; /* ValuesAfterColl, CollPosNotValid */
    m->reg[ModeReg] = 0x3F;
    m->reg[TxControlReg] = 0x80; /* antenna off */
    m->reg[VersionReg] = 0x92;
    m->fifo_n = 0;
    m->generation++;
    for (int i = 0; i < m->n_tags; i++)
        m->tags[i].state = TAG_IDLE; /* no field, no power for the tags */
}

static avr_cycle_count_t deliver(avr_t *avr, avr_cycle_count_t when, void *param);
static avr_cycle_count_t timer_fires(avr_t *avr, avr_cycle_count_t when, void *param);

/* Each scheduled event carries the generation it belongs to. */
typedef struct {
    mfrc522_t *m;
    uint32_t generation;
} stamp_t;
static stamp_t stamps[64];
static int stamp_i;

static void *stamp(mfrc522_t *m)
{
    stamp_t *s = &stamps[stamp_i++ % 64];
    s->m = m;
    s->generation = m->generation;
    return s;
}

static void start_timer(mfrc522_t *m)
{
    if (!(m->reg[TModeReg] & 0x80))
        return; /* TAuto off: nothing ends the wait but the host */
    uint32_t prescaler = ((uint32_t)(m->reg[TModeReg] & 0x0F) << 8) | m->reg[TPrescalerReg];
    uint32_t reload = ((uint32_t)m->reg[TReloadRegH] << 8) | m->reg[TReloadRegL];
    uint64_t us = (uint64_t)(2 * prescaler + 1) * (reload + 1) * 1000000ULL / 13560000ULL;
    avr_cycle_timer_register_usec(m->avr, (uint32_t)(us ? us : 1), timer_fires, stamp(m));
}

/* The tags' answer to the frame in the FIFO (tx_bits bits). */
static void transceive(mfrc522_t *m)
{
    uint8_t tx[64];
    int n = m->fifo_n, last = m->reg[BitFramingReg] & 7;
    int tx_bits = n ? (n - 1) * 8 + (last ? last : 8) : 0;
    memcpy(tx, m->fifo, (size_t)n);
    m->fifo_n = 0;
    m->generation++;
    m->pending_bits = 0;
    m->pending_coll = 0;
    memset(m->pending, 0, sizeof m->pending);

    uint8_t resp[MODEL_MAX_TAGS][8];
    int bits = 0, count = 0;
    uint32_t delay = 0;
    int field = (m->reg[TxControlReg] & 0x03) == 0x03;

    if (!field || n == 0) {
        /* no carrier: nobody answers */
    } else if (tx_bits == 7 && (tx[0] == 0x26 || tx[0] == 0x52)) { /* REQA / WUPA */
        for (int i = 0; i < m->n_tags; i++) {
            model_tag_t *t = &m->tags[i];
            if (t->state == TAG_HALT && tx[0] != 0x52)
                continue;
            t->state = TAG_READY;
            t->level = 0;
            resp[count][0] = t->len == 4 ? 0x04 : t->len == 7 ? 0x44 : 0x84; /* ATQA: UID size */
            resp[count][1] = 0x00;
            if (t->delay_us > delay)
                delay = t->delay_us;
            count++;
        }
        bits = 16;
    } else if (n >= 2 && (tx[0] == 0x93 || tx[0] == 0x95 || tx[0] == 0x97)) {
        int level = (tx[0] - 0x93) / 2;
        int nvb = tx[1];
        int known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F);
        if (nvb == 0x70 && tx_bits == 72 && crc_ok(tx, 9)) { /* SELECT */
            for (int i = 0; i < m->n_tags; i++) {
                model_tag_t *t = &m->tags[i];
                if (t->state != TAG_READY || t->level != level)
                    continue;
                uint8_t lb[5];
                level_bytes(t, level, lb);
                if (memcmp(lb, tx + 2, 5) != 0) {
                    t->state = TAG_IDLE; /* not chosen */
                    continue;
                }
                int levels = t->len == 4 ? 1 : t->len == 7 ? 2 : 3;
                uint8_t sak = level < levels - 1 ? 0x04 : (t->len == 4 ? 0x08 : 0x00);
                if (level < levels - 1)
                    t->level++;
                else
                    t->state = TAG_ACTIVE;
                resp[count][0] = sak;
                crc_a(resp[count], 1, &resp[count][1]);
                if (t->delay_us > delay)
                    delay = t->delay_us;
                count++;
            }
            bits = 24;
        } else if (known >= 0 && known < 40 && tx_bits == 16 + known) { /* anticollision */
            for (int i = 0; i < m->n_tags; i++) {
                model_tag_t *t = &m->tags[i];
                if (t->state != TAG_READY || t->level != level)
                    continue;
                uint8_t lb[5];
                level_bytes(t, level, lb);
                int match = 1;
                for (int b = 0; b < known && match; b++)
                    match = bit_of(lb, b) == bit_of(tx + 2, b);
                if (!match)
                    continue;
                memset(resp[count], 0, 8);
                for (int b = known; b < 40; b++)
                    if (bit_of(lb, b))
                        resp[count][(b - known) / 8] |= (uint8_t)(1 << ((b - known) % 8));
                if (t->delay_us > delay)
                    delay = t->delay_us;
                count++;
            }
            bits = 40 - known;
        }
    } else if (tx_bits == 32 && tx[0] == 0x50 && tx[1] == 0x00 && crc_ok(tx, 4)) { /* HLTA */
        for (int i = 0; i < m->n_tags; i++)
            if (m->tags[i].state == TAG_ACTIVE)
                m->tags[i].state = TAG_HALT;
    } else {
        for (int i = 0; i < m->n_tags; i++) /* anything else: READY/ACTIVE tags give up */
            if (m->tags[i].state == TAG_READY || m->tags[i].state == TAG_ACTIVE)
                m->tags[i].state = TAG_IDLE;
    }

    if (count == 0) {
        start_timer(m);
        return;
    }
    /* Superpose the answers: the first bit where they differ is the collision. */
    for (int b = 0; b < bits; b++) {
        int ones = 0;
        for (int k = 0; k < count; k++)
            ones += bit_of(resp[k], b);
        if (ones && ones < count && !m->pending_coll)
            m->pending_coll = (uint8_t)(b + 1);
        if (ones)
            m->pending[b / 8] |= (uint8_t)(1 << (b % 8));
    }
    m->pending_bits = (uint8_t)bits;
    avr_cycle_timer_register_usec(m->avr, delay ? delay : 1, deliver, stamp(m));
}

/* The answer arrives: FIFO, ErrorReg, CollReg, ControlReg, RxIRq. */
static avr_cycle_count_t deliver(avr_t *avr, avr_cycle_count_t when, void *param)
{
    (void)avr;
    (void)when;
    stamp_t *s = param;
    mfrc522_t *m = s->m;
    if (s->generation != m->generation || !m->present)
        return 0;
    int align = (m->reg[BitFramingReg] >> 4) & 7;
    int total = align + m->pending_bits;
    uint8_t rx[16] = {0};
    for (int b = 0; b < m->pending_bits; b++) {
        int keep = !m->pending_coll || b + 1 < m->pending_coll || (m->reg[CollReg] & 0x80);
        if (keep && bit_of(m->pending, b))
            rx[(align + b) / 8] |= (uint8_t)(1 << ((align + b) % 8));
    }
    int bytes = (total + 7) / 8;
    memcpy(m->fifo, rx, (size_t)bytes);
    m->fifo_n = (uint8_t)bytes;
    m->reg[ControlReg] = (uint8_t)((m->reg[ControlReg] & ~7) | (total % 8));
    m->reg[ErrorReg] = 0;
    m->reg[CollReg] = (uint8_t)((m->reg[CollReg] & 0x80) | 0x20);
    if (m->pending_coll) {
        int pos = align + m->pending_coll; /* 1-based, counted from FIFO bit 0 */
        m->reg[ErrorReg] |= 0x08;          /* CollErr */
        if (pos <= 32)
            m->reg[CollReg] = (uint8_t)((m->reg[CollReg] & 0x80) | (pos & 0x1F));
    }
    m->reg[ComIrqReg] |= 0x20; /* RxIRq */
    return 0;
}

static avr_cycle_count_t timer_fires(avr_t *avr, avr_cycle_count_t when, void *param)
{
    (void)avr;
    (void)when;
    stamp_t *s = param;
    if (s->generation == s->m->generation && s->m->present)
        s->m->reg[ComIrqReg] |= 0x01; /* TimerIRq */
    return 0;
}

static uint8_t reg_read(mfrc522_t *m, uint8_t a)
{
    if (a == FIFODataReg) {
        if (!m->fifo_n)
            return 0;
        uint8_t v = m->fifo[0];
        memmove(m->fifo, m->fifo + 1, --m->fifo_n);
        return v;
    }
    if (a == FIFOLevelReg)
        return m->fifo_n;
    return m->reg[a];
}

static void reg_write(mfrc522_t *m, uint8_t a, uint8_t v)
{
    switch (a) {
    case CommandReg:
        if ((v & 0x0F) == CMD_SOFTRESET) {
            reset_registers(m);
            return;
        }
        if ((v & 0x0F) == CMD_IDLE)
            m->generation++; /* cancels a Transceive under way */
        m->reg[a] = (uint8_t)(v & 0x3F);
        return;
    case ComIrqReg:
        if (v & 0x80)
            m->reg[a] |= (uint8_t)(v & 0x7F);
        else
            m->reg[a] &= (uint8_t)~(v & 0x7F);
        return;
    case FIFODataReg:
        if (m->fifo_n < sizeof m->fifo)
            m->fifo[m->fifo_n++] = v;
        return;
    case FIFOLevelReg:
        if (v & 0x80)
            m->fifo_n = 0;
        return;
    case VersionReg:
        return;
    case BitFramingReg:
        m->reg[a] = (uint8_t)(v & 0x7F);
        if ((v & 0x80) && (m->reg[CommandReg] & 0x0F) == CMD_TRANSCEIVE)
            transceive(m);
        return;
    default:
        m->reg[a] = v;
    }
}

static void spi_byte(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    mfrc522_t *m = param;
    uint8_t reply = m->absent_byte;
    if (m->present && !m->in_reset && m->ss_low) {
        reply = 0;
        if (m->byte_i == 0) {
            m->addr = (uint8_t)((value >> 1) & 0x3F);
            m->reading = (value & 0x80) != 0;
        } else if (m->reading) {
            reply = reg_read(m, m->addr);
            m->addr = (uint8_t)((value >> 1) & 0x3F); /* the next address rides along */
        } else {
            reg_write(m, m->addr, (uint8_t)value);
        }
        m->byte_i++;
    }
    avr_raise_irq(m->miso, reply);
}

static void ss_pin(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    mfrc522_t *m = param;
    m->ss_low = value == 0;
    m->byte_i = 0;
}

static void rst_pin(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    mfrc522_t *m = param;
    if (!value) {
        m->in_reset = 1; /* hard power-down */
    } else if (m->in_reset) {
        m->in_reset = 0;
        reset_registers(m);
    }
}

void mfrc522_attach(mfrc522_t *m, avr_t *avr)
{
    memset(m, 0, sizeof *m);
    m->avr = avr;
    m->present = 1;
    m->miso = avr_io_getirq(avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_OUTPUT), spi_byte, m);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 2), ss_pin, m);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 0), rst_pin, m);
    reset_registers(m);
}

void mfrc522_power_on(mfrc522_t *m) { reset_registers(m); }

void mfrc522_set_present(mfrc522_t *m, uint8_t present, uint8_t absent_byte)
{
    m->present = present;
    m->absent_byte = absent_byte;
    if (present)
        reset_registers(m);
}

const char *mfrc522_tag_in(mfrc522_t *m, const uint8_t *uid, uint8_t len, uint32_t delay_us)
{
    if (len != 4 && len != 7 && len != 10)
        return "a UID has 4, 7 or 10 bytes";
    if (len == 4 && uid[0] == 0x88)
        return "a 4-byte UID cannot start with the cascade tag 88";
    for (int i = 0; i < m->n_tags; i++)
        if (m->tags[i].len == len && !memcmp(m->tags[i].uid, uid, len))
            return "that tag is already in the field";
    if (m->n_tags >= MODEL_MAX_TAGS)
        return "too many tags in the field for the model";
    model_tag_t *t = &m->tags[m->n_tags++];
    memset(t, 0, sizeof *t);
    memcpy(t->uid, uid, len);
    t->len = len;
    t->state = TAG_IDLE;
    t->delay_us = delay_us;
    return NULL;
}

const char *mfrc522_tag_out(mfrc522_t *m, const uint8_t *uid, uint8_t len)
{
    for (int i = 0; i < m->n_tags; i++)
        if (m->tags[i].len == len && !memcmp(m->tags[i].uid, uid, len)) {
            m->tags[i] = m->tags[--m->n_tags];
            return NULL;
        }
    return "no such tag in the field";
}
