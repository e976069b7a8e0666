/* MFRC522 driver and ISO 14443A activation; see mfrc522.h. */
#include "mfrc522.h"

#include <avr/io.h>
#include <util/delay.h>

#include "board.h"

#define T_MODE 0x80      /* TAuto: the timer starts at the end of each transmission */
#define T_PRESCALER 0xA9 /* 13.56 MHz / (2 * 0xA9 + 1) ~ 40 kHz: 25 us ticks */
#define T_RELOAD_L 0x50  /* 80 ticks = 2 ms.  ISO/IEC 14443-3 answers to REQA, anticollision
                            and SELECT start about 86 us after the command and last at most
                            about 0.5 ms at 106 kbit/s; HLTA gets none */
#define TRANSCEIVE_MS 10 /* ms of millis(): twice the chip's own receive timeout */

/* Registers (MFRC522 datasheet section 9). */
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
#define TxASKReg 0x15
#define TModeReg 0x2A
#define TPrescalerReg 0x2B
#define TReloadRegH 0x2C
#define TReloadRegL 0x2D
#define VersionReg 0x37

#define CMD_IDLE 0x00
#define CMD_TRANSCEIVE 0x0C
#define CMD_SOFTRESET 0x0F

/* PICC commands (ISO/IEC 14443-3). */
#define PICC_REQA 0x26
#define PICC_WUPA 0x52
#define PICC_SEL_CL1 0x93
#define PICC_SEL_CL2 0x95
#define PICC_SEL_CL3 0x97
#define PICC_HLTA 0x50
#define PICC_CT 0x88

#define ST_OK 0
#define ST_TIMEOUT 1
#define ST_ERROR 2
#define ST_COLLISION 3

#define SS_LOW() (PORTB &= (uint8_t)~_BV(PB2))
#define SS_HIGH() (PORTB |= _BV(PB2))

static uint8_t spi(uint8_t b)
{
    SPDR = b;
    loop_until_bit_is_set(SPSR, SPIF);
    return SPDR;
}

static void wr(uint8_t reg, uint8_t v)
{
    SS_LOW();
    spi((uint8_t)(reg << 1) & 0x7E);
    spi(v);
    SS_HIGH();
}

static uint8_t rd(uint8_t reg)
{
    SS_LOW();
    spi((uint8_t)(0x80 | ((reg << 1) & 0x7E)));
    uint8_t v = spi(0);
    SS_HIGH();
    return v;
}

static void set_bits(uint8_t reg, uint8_t mask) { wr(reg, rd(reg) | mask); }

/* CRC_A of ISO 14443-3 (CRC-16, poly 0x8408 reflected, init 0x6363), LSB first on air. */
static void crc_a(const uint8_t *d, uint8_t n, uint8_t out[2])
{
    uint16_t crc = 0x6363;
    while (n--) {
        uint8_t b = *d++;
        b ^= (uint8_t)(crc & 0xFF);
        b ^= (uint8_t)(b << 4);
        crc = (uint16_t)((crc >> 8) ^ ((uint16_t)b << 8) ^ ((uint16_t)b << 3) ^ (b >> 4));
    }
    out[0] = (uint8_t)(crc & 0xFF);
    out[1] = (uint8_t)(crc >> 8);
}

/*
 * Send tx_len bytes (the last one holding tx_last_bits bits, 0 = 8) and receive into rx.
 * The receiver always starts at bit 0 of rx[0] (RxAlign 0), so CollPos counts from the
 * first received bit however the chip would count it with RxAlign; select_level places
 * the bits.  *rx_len: in, room in bytes; out, bytes received.  *coll_pos: on ST_COLLISION,
 * the 1-based index of the first colliding received bit (0 when the chip gives none).
 * The chip's timer ends a wait with no answer after 2 ms (TimerIRq); TRANSCEIVE_MS of
 * millis() ends it too, for a chip that stopped answering (SPI reads 00).
 */
static uint8_t transceive(const uint8_t *tx, uint8_t tx_len, uint8_t tx_last_bits, uint8_t *rx,
                          uint8_t *rx_len, uint8_t *coll_pos)
{
    wr(CommandReg, CMD_IDLE);
    wr(ComIrqReg, 0x7F);    /* clear interrupt flags */
    wr(FIFOLevelReg, 0x80); /* flush FIFO */
    for (uint8_t i = 0; i < tx_len; i++)
        wr(FIFODataReg, tx[i]);
    wr(BitFramingReg, tx_last_bits);
    wr(CommandReg, CMD_TRANSCEIVE);
    wr(BitFramingReg, (uint8_t)(0x80 | tx_last_bits)); /* StartSend */

    uint32_t start = millis();
    for (;;) {
        uint8_t irq = rd(ComIrqReg);
        if (irq & 0x30) /* RxIRq or IdleIRq */
            break;
        if ((irq & 0x01) || millis() - start > TRANSCEIVE_MS) { /* TimerIRq, or our own clock */
            wr(CommandReg, CMD_IDLE);
            return ST_TIMEOUT;
        }
    }
    wr(BitFramingReg, tx_last_bits);
    uint8_t err = rd(ErrorReg);
    if (err & 0x13) /* BufferOvfl, ParityErr, ProtocolErr */
        return ST_ERROR;
    uint8_t n = rd(FIFOLevelReg);
    if (n > *rx_len)
        return ST_ERROR;
    for (uint8_t i = 0; i < n; i++)
        rx[i] = rd(FIFODataReg);
    *rx_len = n;
    if (err & 0x08) { /* CollErr */
        uint8_t coll = rd(CollReg);
        *coll_pos = (coll & 0x20) ? 0 : ((coll & 0x1F) ? (coll & 0x1F) : 32); /* 0x20: CollPosNotValid */
        return ST_COLLISION;
    }
    return ST_OK;
}

/* Wait (at most 50 ms) for the chip's oscillator after a reset: the PowerDown bit clears. */
static void wait_ready(void)
{
    uint32_t start = millis();
    while ((rd(CommandReg) & 0x10) && millis() - start < 50)
        ;
}

uint8_t mfrc522_init(void)
{
    /* SPI master, mode 0, clk/4 = 4 MHz; SS, MOSI, SCK, RST outputs. */
    DDRB |= _BV(PB2) | _BV(PB3) | _BV(PB5) | _BV(PB0);
    SS_HIGH();
    SPCR = _BV(SPE) | _BV(MSTR);
    PORTB &= (uint8_t)~_BV(PB0); /* hard reset: RST low for at least 100 ns */
    _delay_us(10);
    PORTB |= _BV(PB0);
    wait_ready();
    wr(CommandReg, CMD_SOFTRESET);
    _delay_us(50);
    wait_ready();
    wr(TModeReg, T_MODE);
    wr(TPrescalerReg, T_PRESCALER);
    wr(TReloadRegH, 0x00);
    wr(TReloadRegL, T_RELOAD_L); /* no answer within 2 ms: TimerIRq */
    wr(TxASKReg, 0x40);           /* 100 % ASK */
    wr(ModeReg, 0x3D);            /* CRC preset 0x6363 */
    wr(CollReg, 0x00);            /* ValuesAfterColl off: bits after a collision read 0 */
    set_bits(TxControlReg, 0x03); /* antenna on */
    return rd(VersionReg);
}

uint8_t mfrc522_version_ok(uint8_t version)
{
    return version == 0x91 || version == 0x92 || version == 0x88; /* v1.0, v2.0, FM17522 clone */
}

uint8_t mfrc522_alive(void)
{
    /* A chip that reset itself (supply dip, ESD) answers again, but with default registers. */
    return mfrc522_version_ok(rd(VersionReg)) && rd(TModeReg) == T_MODE && rd(TReloadRegL) == T_RELOAD_L &&
           (rd(TxControlReg) & 0x03) == 0x03;
}

/* REQA or WUPA (7-bit short frame).  Returns ST_OK when at least one tag answered ATQA. */
static uint8_t request(uint8_t cmd)
{
    uint8_t atqa[2];
    uint8_t n = sizeof atqa, coll;
    uint8_t st = transceive(&cmd, 1, 7, atqa, &n, &coll);
    if (st == ST_COLLISION) /* several tags answering: expected */
        return ST_OK;
    return (st == ST_OK && n == 2) ? ST_OK : ST_TIMEOUT;
}

/* Anticollision + SELECT for one cascade level (ISO/IEC 14443-3 section 6.5.3).  buf[2..6]
 * hold the level's 40 bits (UID CLn + BCC), bit t in buf[2 + t / 8] bit t % 8.  On a
 * collision the colliding bit is taken as 1 and the loop goes on with the bits known so
 * far.  Fills uid4[0..3] and *sak. */
static uint8_t select_level(uint8_t sel, uint8_t uid4[4], uint8_t *sak)
{
    uint8_t buf[9] = {sel, 0, 0, 0, 0, 0, 0, 0, 0};
    uint8_t known = 0; /* bits of this level already fixed */
    while (known < 32) {
        uint8_t full = known / 8, extra = known % 8;
        buf[1] = (uint8_t)(((2 + full) << 4) | extra); /* NVB */
        uint8_t tx_len = (uint8_t)(2 + full + (extra ? 1 : 0));
        uint8_t rx[5];
        uint8_t n = sizeof rx, coll = 0;
        uint8_t st = transceive(buf, tx_len, extra, rx, &n, &coll);
        if (st != ST_OK && st != ST_COLLISION)
            return st;
        uint8_t valid = (uint8_t)(40 - known); /* bits the tags sent back */
        if (st == ST_COLLISION) {
            if (coll == 0 || coll > valid)
                return ST_ERROR;
            valid = (uint8_t)(coll - 1);
        }
        if ((uint8_t)((valid + 7) / 8) > n)
            return ST_ERROR;
        for (uint8_t i = 0; i < valid; i++) {
            uint8_t t = (uint8_t)(known + i);
            uint8_t *b = &buf[2 + t / 8];
            if (rx[i / 8] & (1 << (i % 8)))
                *b |= (uint8_t)(1 << (t % 8));
            else
                *b &= (uint8_t)~(1 << (t % 8));
        }
        known = (uint8_t)(known + valid);
        if (st == ST_COLLISION) {
            if (known >= 32)
                return ST_ERROR; /* a collision in the BCC alone: not a real pair of tags */
            buf[2 + known / 8] |= (uint8_t)(1 << (known % 8));
            known++;
        }
    }
    if ((buf[2] ^ buf[3] ^ buf[4] ^ buf[5]) != buf[6])
        return ST_ERROR; /* BCC */
    buf[1] = 0x70;
    crc_a(buf, 7, &buf[7]);
    uint8_t resp[3];
    uint8_t n = sizeof resp, coll;
    if (transceive(buf, 9, 0, resp, &n, &coll) != ST_OK || n != 3)
        return ST_ERROR;
    uint8_t c[2];
    crc_a(resp, 1, c);
    if (c[0] != resp[1] || c[1] != resp[2])
        return ST_ERROR;
    for (uint8_t i = 0; i < 4; i++)
        uid4[i] = buf[2 + i];
    *sak = resp[0];
    return ST_OK;
}

/* Full activation: cascade levels until SAK says the UID is complete. */
static uint8_t select_one(uid_t *uid)
{
    static const uint8_t sel[3] = {PICC_SEL_CL1, PICC_SEL_CL2, PICC_SEL_CL3};
    uid->len = 0;
    for (uint8_t level = 0; level < 3; level++) {
        uint8_t part[4], sak = 0;
        if (select_level(sel[level], part, &sak) != ST_OK)
            return ST_ERROR;
        uint8_t complete = (sak & 0x04) == 0;
        uint8_t start = (!complete && part[0] == PICC_CT) ? 1 : 0;
        for (uint8_t i = start; i < 4; i++)
            uid->bytes[uid->len++] = part[i];
        if (complete)
            return ST_OK;
    }
    return ST_ERROR;
}

static void halt(void)
{
    uint8_t cmd[4] = {PICC_HLTA, 0x00, 0, 0};
    crc_a(cmd, 2, &cmd[2]);
    uint8_t dummy[2];
    uint8_t n = sizeof dummy, coll;
    transceive(cmd, 4, 0, dummy, &n, &coll); /* a halted tag does not answer: timeout is success */
}

uint8_t mfrc522_scan(uid_t *out, uint8_t max)
{
    uint8_t found = 0, attempts = 0;
    uint8_t cmd = PICC_WUPA;
    while (found < max && attempts++ < (uint8_t)(2 * max)) {
        if (request(cmd) != ST_OK)
            break;
        cmd = PICC_REQA; /* after the first pass, halted tags must stay quiet */
        if (select_one(&out[found]) == ST_OK) {
            halt();
            found++;
        }
    }
    return found;
}
