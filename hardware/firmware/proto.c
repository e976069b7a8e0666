/* Companion reader protocol v1 framing; see proto.h and hardware/PROTOCOL.md. */
#include "proto.h"

uint16_t proto_crc16(const uint8_t *data, size_t len, uint16_t crc)
{
    while (len--) {
        crc ^= (uint16_t)(*data++) << 8;
        for (uint8_t i = 0; i < 8; i++)
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

size_t proto_cobs_encode(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t code_at = 0, o = 1;
    uint8_t code = 1;
    for (size_t i = 0; i < len; i++) {
        if (in[i] == 0) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            out[o++] = in[i];
            if (++code == 0xFF) {
                out[code_at] = code;
                code_at = o++;
                code = 1;
            }
        }
    }
    out[code_at] = code;
    return o;
}

int proto_cobs_decode(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t i = 0, o = 0;
    if (len == 0)
        return PROTO_E_COBS;
    while (i < len) {
        uint8_t code = in[i];
        if (code == 0 || i + code > len)
            return PROTO_E_COBS;
        for (uint8_t k = 1; k < code; k++) {
            if (in[i + k] == 0)
                return PROTO_E_COBS;
            out[o++] = in[i + k];
        }
        i += code;
        if (code != 0xFF && i < len)
            out[o++] = 0;
    }
    return (int)o;
}

int proto_build(uint8_t type, uint16_t seq, const uint8_t *payload, uint8_t len, uint8_t *out)
{
    uint8_t body[PROTO_MAX_FRAME];
    if (len > PROTO_MAX_PAYLOAD)
        return PROTO_E_LENGTH;
    body[0] = type;
    body[1] = (uint8_t)(seq & 0xFF);
    body[2] = (uint8_t)(seq >> 8);
    for (uint8_t i = 0; i < len; i++)
        body[3 + i] = payload[i];
    uint16_t crc = proto_crc16(body, (size_t)3 + len, 0xFFFF);
    body[3 + len] = (uint8_t)(crc >> 8);
    body[4 + len] = (uint8_t)(crc & 0xFF);
    size_t n = proto_cobs_encode(body, (size_t)5 + len, out);
    out[n++] = 0;
    return (int)n;
}

int proto_parse(const uint8_t *block, size_t len, proto_frame_t *frame)
{
    uint8_t body[PROTO_MAX_WIRE];
    if (len > PROTO_MAX_WIRE)
        return PROTO_E_LENGTH;
    int n = proto_cobs_decode(block, len, body);
    if (n < 0)
        return n;
    if (n < 5 || n > PROTO_MAX_FRAME)
        return PROTO_E_LENGTH;
    uint16_t want = (uint16_t)((body[n - 2] << 8) | body[n - 1]);
    if (proto_crc16(body, (size_t)n - 2, 0xFFFF) != want)
        return PROTO_E_CRC;
    frame->type = body[0];
    frame->seq = (uint16_t)(body[1] | (body[2] << 8));
    frame->len = (uint8_t)(n - 5);
    for (int i = 0; i < n - 5; i++)
        frame->payload[i] = body[3 + i];
    return PROTO_OK;
}

void proto_rx_init(proto_rx_t *rx)
{
    rx->n = 0;
    rx->overflow = 0;
}

int proto_rx_byte(proto_rx_t *rx, uint8_t byte, proto_frame_t *frame)
{
    if (byte != 0) {
        if (rx->n < PROTO_MAX_WIRE)
            rx->buf[rx->n++] = byte;
        else
            rx->overflow = 1;
        return PROTO_PENDING;
    }
    int rc;
    if (rx->overflow)
        rc = PROTO_E_LENGTH;
    else if (rx->n == 0)
        rc = PROTO_PENDING;
    else
        rc = proto_parse(rx->buf, rx->n, frame);
    rx->n = 0;
    rx->overflow = 0;
    return rc;
}
