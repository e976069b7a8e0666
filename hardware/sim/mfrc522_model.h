/*
 * A model of an MFRC522 and ISO/IEC 14443-3 type A tags in its field, on a simavr
 * ATmega328P's SPI (SS D10/PB2, RST D8/PB0; hardware/README.md).  It models what a
 * reader firmware can see: the registers the MFRC522 datasheet (section 9) gives for
 * Transceive, the FIFO, the timer (TAuto), CollReg after a bit collision, SoftReset and
 * the RST pin; and tags with 4-, 7- or 10-byte UIDs going through IDLE, READY (per
 * cascade level), ACTIVE and HALT on REQA, WUPA, anticollision, SELECT and HLTA.
 * Frames are checked for CRC_A where the standard has one; parity is not modelled.
 * CollPos counts received bits from bit 0 of the first FIFO byte (RxAlign included).
 */
#ifndef MFRC522_MODEL_H
#define MFRC522_MODEL_H

#include <stdint.h>

#include <sim_avr.h>

#define MODEL_MAX_TAGS 16

typedef struct {
    uint8_t uid[10];
    uint8_t len;     /* 4, 7 or 10 */
    uint8_t state;   /* TAG_IDLE ... */
    uint8_t level;   /* cascade level being selected, 0..2 */
    uint32_t delay_us; /* answer latency */
} model_tag_t;

typedef struct {
    avr_t *avr;
    avr_irq_t *miso;
    uint8_t present;     /* answers on SPI */
    uint8_t absent_byte; /* what MISO reads with no chip */
    uint8_t in_reset;    /* RST held low */
    uint8_t ss_low;
    uint8_t byte_i;      /* bytes since SS went low */
    uint8_t addr, reading;
    uint8_t reg[64];
    uint8_t fifo[64];
    uint8_t fifo_n;
    uint32_t generation; /* bumped when a command is cancelled: stale timers do nothing */
    uint8_t pending[8];  /* an answer on its way */
    uint8_t pending_bits;
    uint8_t pending_coll; /* collision at this received bit (1-based), 0 none */
    model_tag_t tags[MODEL_MAX_TAGS];
    uint8_t n_tags;
} mfrc522_t;

/* Wire the model to avr's SPI, PB0 (RST) and PB2 (SS); the chip starts present. */
void mfrc522_attach(mfrc522_t *m, avr_t *avr);
/* The chip's registers to their reset values; the antenna goes off, so tags reset. */
void mfrc522_power_on(mfrc522_t *m);
/* Remove (MISO then reads absent_byte) or fit the chip. */
void mfrc522_set_present(mfrc522_t *m, uint8_t present, uint8_t absent_byte);
/* A tag enters / leaves the field.  Return NULL or an error message. */
const char *mfrc522_tag_in(mfrc522_t *m, const uint8_t *uid, uint8_t len, uint32_t delay_us);
const char *mfrc522_tag_out(mfrc522_t *m, const uint8_t *uid, uint8_t len);

/* The harness's noise source. */
uint32_t sim_random(void);

#endif
