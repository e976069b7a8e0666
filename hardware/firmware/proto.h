/*
 * Companion reader protocol v1: CRC-16/CCITT-FALSE, COBS framing, frame build/parse.
 * Implements hardware/PROTOCOL.md sections 2-4.  Plain C99 with no AVR dependency, so the
 * same file is linked into the firmware and into the host unit test (test/test_proto.c).
 */
#ifndef PROTO_H
#define PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_VERSION 1
#define PROTO_MAX_PAYLOAD 48                       /* bytes */
#define PROTO_MAX_FRAME (3 + PROTO_MAX_PAYLOAD + 2) /* decoded frame, bytes */
#define PROTO_MAX_WIRE (PROTO_MAX_FRAME + 2)        /* COBS block + 0x00 delimiter, bytes */

/* Device -> host frame types (PROTOCOL.md section 5). */
#define PT_HELLO 0x01
#define PT_TAG 0x02
#define PT_BUTTON 0x03
#define PT_HEARTBEAT 0x04
#define PT_ACK 0x05
#define PT_NAK 0x06
/* Host -> device frame types (section 6). */
#define PT_RESEND 0x81
#define PT_SET_LED 0x82
#define PT_BEEP 0x83
#define PT_HELLO_REQ 0x84

#define NAK_UNKNOWN 1
#define NAK_BAD_PAYLOAD 2
#define NAK_REPLAY_GAP 3

/* Result codes of proto_parse / proto_rx_byte. */
#define PROTO_OK 0
#define PROTO_E_COBS -1
#define PROTO_E_LENGTH -2
#define PROTO_E_CRC -3
#define PROTO_PENDING 1 /* proto_rx_byte: no complete frame yet */

typedef struct {
    uint8_t type;
    uint16_t seq;
    uint8_t len; /* payload length, bytes */
    uint8_t payload[PROTO_MAX_PAYLOAD];
} proto_frame_t;

/* Byte-at-a-time receiver: holds one partial COBS block. */
typedef struct {
    uint8_t buf[PROTO_MAX_WIRE];
    uint8_t n;
    uint8_t overflow;
} proto_rx_t;

/* CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, xorout 0.
 * Check value: proto_crc16((const uint8_t *)"123456789", 9, 0xFFFF) == 0x29B1. */
uint16_t proto_crc16(const uint8_t *data, size_t len, uint16_t crc);

/* COBS-encode len bytes into out (room for len + len/254 + 1 bytes); returns bytes written.
 * No delimiter is appended. */
size_t proto_cobs_encode(const uint8_t *in, size_t len, uint8_t *out);

/* COBS-decode a block (delimiter removed) into out (room for len bytes).
 * Returns decoded length, or PROTO_E_COBS for a malformed block. */
int proto_cobs_decode(const uint8_t *in, size_t len, uint8_t *out);

/* Build the wire bytes of a frame (COBS block + 0x00) into out (PROTO_MAX_WIRE bytes).
 * Returns the number of bytes, or PROTO_E_LENGTH when len > PROTO_MAX_PAYLOAD. */
int proto_build(uint8_t type, uint16_t seq, const uint8_t *payload, uint8_t len, uint8_t *out);

/* Parse one COBS block (delimiter removed).  Returns PROTO_OK or a PROTO_E_* code. */
int proto_parse(const uint8_t *block, size_t len, proto_frame_t *frame);

void proto_rx_init(proto_rx_t *rx);

/* Feed one received byte.  Returns PROTO_PENDING until a 0x00 delimiter closes a block,
 * then PROTO_OK (frame filled in) or a PROTO_E_* code.  Empty blocks are skipped. */
int proto_rx_byte(proto_rx_t *rx, uint8_t byte, proto_frame_t *frame);

#endif
