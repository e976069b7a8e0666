/*
 * Host unit test of firmware/proto.c, built with the host gcc (make -C hardware test, or
 * tests/bridge/test_c_proto.py under pytest).
 *
 *   test_proto                      run the unit tests; last line "N passed, M failed"
 *   test_proto encode T S HEX       print the wire bytes (hex) of frame type T, seq S, payload HEX
 *   test_proto decode HEX           parse one COBS block (hex, no delimiter); print
 *                                   "ok T S HEX" or "error CODE"
 * The two tool modes let the Python test check the C and Python codecs byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../firmware/proto.h"

static int passed, failed;

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (cond) {                                                           \
            passed++;                                                         \
        } else {                                                              \
            failed++;                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                     \
    } while (0)

static size_t from_hex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (s[0] && s[1] && n < cap) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1)
            break;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

static void print_hex(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02X", b[i]);
}

static void test_crc(void)
{
    CHECK(proto_crc16((const uint8_t *)"123456789", 9, 0xFFFF) == 0x29B1);
    CHECK(proto_crc16((const uint8_t *)"", 0, 0xFFFF) == 0xFFFF);
    /* running CRC over two pieces equals CRC over the whole */
    uint16_t part = proto_crc16((const uint8_t *)"1234", 4, 0xFFFF);
    CHECK(proto_crc16((const uint8_t *)"56789", 5, part) == 0x29B1);
}

static void test_cobs_examples(void)
{
    /* Worked examples from the COBS paper / PROTOCOL.md section 2. */
    static const struct { const char *in, *out; } cases[] = {
        {"00", "0101"},
        {"0000", "010101"},
        {"001100", "01021101"},
        {"11220033", "03112202 33"},
        {"11223344", "0511223344"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t in[16], want[16], got[32], back[32];
        char clean[64];
        size_t k = 0;
        for (const char *p = cases[c].out; *p; p++)
            if (*p != ' ')
                clean[k++] = *p;
        clean[k] = 0;
        size_t n_in = from_hex(cases[c].in, in, sizeof in);
        size_t n_want = from_hex(clean, want, sizeof want);
        size_t n = proto_cobs_encode(in, n_in, got);
        CHECK(n == n_want && memcmp(got, want, n) == 0);
        CHECK(proto_cobs_decode(got, n, back) == (int)n_in && memcmp(back, in, n_in) == 0);
    }
}

static void test_cobs_long_runs(void)
{
    uint8_t in[600], enc[620], dec[620];
    for (size_t len = 0; len <= 600; len += 7) {
        for (size_t i = 0; i < len; i++)
            in[i] = (uint8_t)((i * 37 + len) % 5 == 0 ? 0 : 1 + (i % 250));
        size_t n = proto_cobs_encode(in, len, enc);
        CHECK(memchr(enc, 0, n) == NULL);
        CHECK(n <= len + len / 254 + 1);
        CHECK(proto_cobs_decode(enc, n, dec) == (int)len && memcmp(in, dec, len) == 0);
    }
    uint8_t ones[254];
    memset(ones, 0x11, sizeof ones);
    CHECK(proto_cobs_encode(ones, 254, enc) == 256 && enc[0] == 0xFF);
}

static void test_cobs_rejects(void)
{
    uint8_t out[16];
    static const uint8_t zero_inside[] = {0x03, 0x11, 0x00};
    static const uint8_t past_end[] = {0x05, 0x11, 0x22};
    CHECK(proto_cobs_decode(zero_inside, sizeof zero_inside, out) == PROTO_E_COBS);
    CHECK(proto_cobs_decode(past_end, sizeof past_end, out) == PROTO_E_COBS);
    CHECK(proto_cobs_decode(out, 0, out) == PROTO_E_COBS);
}

static void test_frame_roundtrip(void)
{
    uint8_t wire[PROTO_MAX_WIRE];
    uint8_t uid[7] = {0x04, 0xA1, 0xB2, 0xC3, 0x00, 0x80, 0xFF};
    uint8_t payload[8] = {7};
    memcpy(payload + 1, uid, 7);
    int n = proto_build(PT_TAG, 0x1234, payload, 8, wire);
    CHECK(n > 0 && wire[n - 1] == 0 && memchr(wire, 0, (size_t)n - 1) == NULL);
    proto_frame_t f;
    CHECK(proto_parse(wire, (size_t)n - 1, &f) == PROTO_OK);
    CHECK(f.type == PT_TAG && f.seq == 0x1234 && f.len == 8 && memcmp(f.payload, payload, 8) == 0);

    /* every single-bit flip is caught (by COBS structure or by the CRC) */
    int caught = 0, total = 0;
    for (int i = 0; i < n - 1; i++)
        for (int bit = 0; bit < 8; bit++) {
            uint8_t bad[PROTO_MAX_WIRE];
            memcpy(bad, wire, (size_t)n);
            bad[i] ^= (uint8_t)(1 << bit);
            total++;
            if (proto_parse(bad, (size_t)n - 1, &f) != PROTO_OK)
                caught++;
        }
    CHECK(caught == total);

    uint8_t big[PROTO_MAX_PAYLOAD + 1] = {0};
    CHECK(proto_build(PT_TAG, 1, big, PROTO_MAX_PAYLOAD + 1, wire) == PROTO_E_LENGTH);
    CHECK(proto_build(PT_TAG, 1, big, PROTO_MAX_PAYLOAD, wire) == PROTO_MAX_WIRE);
}

static void test_receiver(void)
{
    proto_rx_t rx;
    proto_frame_t f;
    uint8_t wire[PROTO_MAX_WIRE];
    proto_rx_init(&rx);
    int n = proto_build(PT_RESEND, 9, (const uint8_t *)"\x05\x00", 2, wire);
    /* garbage, a delimiter, then the frame split in the middle */
    static const uint8_t junk[] = {0x41, 0x42, 0x43};
    int frames = 0, errors = 0;
    for (size_t i = 0; i < sizeof junk; i++)
        CHECK(proto_rx_byte(&rx, junk[i], &f) == PROTO_PENDING);
    int rc = proto_rx_byte(&rx, 0, &f);
    CHECK(rc < 0);
    for (int i = 0; i < n; i++) {
        rc = proto_rx_byte(&rx, wire[i], &f);
        if (rc == PROTO_OK)
            frames++;
        else if (rc < 0)
            errors++;
    }
    CHECK(frames == 1 && errors == 0 && f.type == PT_RESEND && f.seq == 9 && f.len == 2);
    /* an over-long run is one length error, then the receiver recovers */
    for (int i = 0; i < 300; i++)
        proto_rx_byte(&rx, 0x55, &f);
    CHECK(proto_rx_byte(&rx, 0, &f) == PROTO_E_LENGTH);
    frames = 0;
    for (int i = 0; i < n; i++)
        if (proto_rx_byte(&rx, wire[i], &f) == PROTO_OK)
            frames++;
    CHECK(frames == 1);
    /* empty blocks (back-to-back delimiters) are not errors */
    CHECK(proto_rx_byte(&rx, 0, &f) == PROTO_PENDING);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "encode") == 0) {
        uint8_t payload[PROTO_MAX_PAYLOAD + 8], wire[PROTO_MAX_WIRE];
        size_t len = from_hex(argv[4], payload, sizeof payload);
        int n = proto_build((uint8_t)strtoul(argv[2], NULL, 0), (uint16_t)strtoul(argv[3], NULL, 0),
                            payload, (uint8_t)len, wire);
        if (n < 0) {
            printf("error %d\n", n);
            return 1;
        }
        print_hex(wire, (size_t)n);
        printf("\n");
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "decode") == 0) {
        uint8_t block[512];
        proto_frame_t f;
        size_t len = from_hex(argv[2], block, sizeof block);
        int rc = proto_parse(block, len, &f);
        if (rc != PROTO_OK) {
            printf("error %d\n", rc);
            return 0;
        }
        printf("ok %u %u ", f.type, f.seq);
        print_hex(f.payload, f.len);
        printf("\n");
        return 0;
    }
    test_crc();
    test_cobs_examples();
    test_cobs_long_runs();
    test_cobs_rejects();
    test_frame_roundtrip();
    test_receiver();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
