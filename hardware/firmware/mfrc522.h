/*
 * MFRC522 over SPI and the ISO/IEC 14443-3 type A commands the reader needs:
 * REQA/WUPA, the bit-oriented anticollision loop with cascade levels 1..3, SELECT, HLTA.
 * Wiring (hardware/README.md): SS D10, MOSI D11, MISO D12, SCK D13, RST D8.
 */
#ifndef MFRC522_H
#define MFRC522_H

#include <stdint.h>

#define UID_MAX 10 /* bytes: single 4, double 7, triple 10 */

typedef struct {
    uint8_t len; /* 4, 7 or 10 bytes */
    uint8_t bytes[UID_MAX];
} uid_t;

/* Reset the chip (RST pulse, then SoftReset), set its timer (2 ms receive timeout) and
 * switch the antenna on.  Takes under 1 ms with a chip, at most 100 ms with a stuck one.
 * Returns the VersionReg value (0x91 or 0x92 for a genuine chip, 0 or 0xFF if absent). */
uint8_t mfrc522_init(void);

/* True for a VersionReg value of a chip this driver knows (0x91, 0x92, clone 0x88). */
uint8_t mfrc522_version_ok(uint8_t version);

/* True when the chip answers with a known version and still holds the settings made by
 * mfrc522_init (a chip that reset itself since has its default registers back). */
uint8_t mfrc522_alive(void);

/* Find every tag in the field: WUPA wakes all tags (halted ones too), then repeatedly
 * select one and HLTA it, REQA for the rest, until no tag answers or max tags are found.
 * Returns the number of UIDs written to out. */
uint8_t mfrc522_scan(uid_t *out, uint8_t max);

#endif
