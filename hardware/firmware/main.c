/*
 * Tile-bag reader firmware: scans the MFRC522 every 40 ms, reports each tag that enters
 * the field once (a tag seen again within 300 ms is the same draw), reports the button,
 * keeps the last 32 events for replay, and speaks protocol v1 (hardware/PROTOCOL.md).
 */
#include <avr/eeprom.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <string.h>

#include "board.h"
#include "mfrc522.h"
#include "proto.h"

#define FW_MAJOR 1
#define FW_MINOR 0
#define FW_PATCH 0

#define SCAN_PERIOD_MS 40
#define HOLD_MS 300          /* a tag unseen this long has left the field */
#define HEARTBEAT_MS 1000
#define BUTTON_DEBOUNCE_MS 20
#define BUTTON_LONG_MS 1000
#define MAX_TAGS_IN_FIELD 8
#define REPLAY_DEPTH 32      /* events kept for RESEND (section 6.1) */

typedef struct {
    uint16_t seq;
    uint8_t type; /* PT_TAG or PT_BUTTON */
    uint8_t len;
    uint8_t payload[1 + UID_MAX];
} event_t;

static event_t replay[REPLAY_DEPTH];
static uint16_t last_seq;  /* 0: no event yet */
static uint8_t kept;       /* events in the replay ring, <= REPLAY_DEPTH */
static uint8_t head;       /* next slot to write in the replay ring */
static uint16_t boot_id;

static struct {
    uid_t uid;
    uint32_t last_seen;
    uint8_t used;
} field[MAX_TAGS_IN_FIELD];

static uint32_t led_until, beep_until;
static uint8_t led_override;

static uint16_t seq_next(uint16_t s) { return s == 0xFFFF ? 1 : (uint16_t)(s + 1); }
static void send(uint8_t type, uint16_t seq, const uint8_t *payload, uint8_t len)
{
    uint8_t wire[PROTO_MAX_WIRE];
    int n = proto_build(type, seq, payload, len, wire);
    if (n > 0)
        uart_write(wire, (uint8_t)n);
}

/* Ring slot of the i-th oldest kept event. */
static event_t *kept_event(uint8_t i) { return &replay[(uint8_t)(head + REPLAY_DEPTH - kept + i) % REPLAY_DEPTH]; }

static uint16_t oldest_seq(void) { return kept ? kept_event(0)->seq : 0; }

static void send_hello(void)
{
    uint16_t oldest = oldest_seq();
    uint8_t p[8] = {PROTO_VERSION, FW_MAJOR, FW_MINOR, FW_PATCH,
                    (uint8_t)boot_id, (uint8_t)(boot_id >> 8), (uint8_t)oldest, (uint8_t)(oldest >> 8)};
    send(PT_HELLO, last_seq, p, sizeof p);
}

static void emit(uint8_t type, const uint8_t *payload, uint8_t len)
{
    last_seq = seq_next(last_seq);
    event_t *e = &replay[head];
    head = (uint8_t)((head + 1) % REPLAY_DEPTH);
    e->seq = last_seq;
    e->type = type;
    e->len = len;
    memcpy(e->payload, payload, len);
    if (kept < REPLAY_DEPTH)
        kept++;
    send(type, last_seq, payload, len);
}

/* RESEND: replay kept events from `from` (section 6.1). */
static void replay_from(uint16_t from, uint16_t cmd_seq)
{
    uint8_t ack[4] = {PT_RESEND, (uint8_t)cmd_seq, (uint8_t)(cmd_seq >> 8), NAK_REPLAY_GAP};
    uint8_t start = 0;
    while (start < kept && kept_event(start)->seq != from)
        start++;
    if (start == kept) {
        if (from == seq_next(last_seq) || (from == 1 && last_seq == 0)) {
            send(PT_ACK, last_seq, ack, 3); /* the host is up to date */
            return;
        }
        send(PT_NAK, last_seq, ack, 4); /* older than the ring: replay all we have */
        start = 0;
    } else {
        send(PT_ACK, last_seq, ack, 3);
    }
    for (uint8_t i = start; i < kept; i++) {
        event_t *e = kept_event(i);
        send(e->type, e->seq, e->payload, e->len);
    }
}

static void handle_host(const proto_frame_t *f, uint32_t now)
{
    uint8_t ack[3] = {f->type, (uint8_t)f->seq, (uint8_t)(f->seq >> 8)};
    switch (f->type) {
    case PT_HELLO_REQ:
        send_hello();
        return;
    case PT_RESEND:
        if (f->len >= 2) {
            replay_from((uint16_t)(f->payload[0] | (f->payload[1] << 8)), f->seq);
            return;
        }
        break;
    case PT_SET_LED:
        if (f->len >= 5) {
            uint16_t dur = (uint16_t)(f->payload[3] | (f->payload[4] << 8));
            led_set(f->payload[0], f->payload[1], f->payload[2]);
            led_override = 1;
            led_until = dur ? now + dur : 0;
            send(PT_ACK, last_seq, ack, 3);
            return;
        }
        break;
    case PT_BEEP:
        if (f->len >= 4) {
            uint16_t hz = (uint16_t)(f->payload[0] | (f->payload[1] << 8));
            uint16_t dur = (uint16_t)(f->payload[2] | (f->payload[3] << 8));
            buzzer_tone(hz);
            beep_until = now + dur;
            send(PT_ACK, last_seq, ack, 3);
            return;
        }
        break;
    default: {
        uint8_t nak[4] = {f->type, (uint8_t)f->seq, (uint8_t)(f->seq >> 8), NAK_UNKNOWN};
        send(PT_NAK, last_seq, nak, 4);
        return;
    }
    }
    uint8_t nak[4] = {f->type, (uint8_t)f->seq, (uint8_t)(f->seq >> 8), NAK_BAD_PAYLOAD};
    send(PT_NAK, last_seq, nak, 4);
}

/* Report tags that entered the field; forget those unseen for HOLD_MS. */
static void scan(uint32_t now)
{
    uid_t seen[MAX_TAGS_IN_FIELD];
    uint8_t n = mfrc522_scan(seen, MAX_TAGS_IN_FIELD);
    for (uint8_t i = 0; i < n; i++) {
        int8_t slot = -1, free_slot = -1;
        for (uint8_t k = 0; k < MAX_TAGS_IN_FIELD; k++) {
            if (field[k].used && field[k].uid.len == seen[i].len &&
                memcmp(field[k].uid.bytes, seen[i].bytes, seen[i].len) == 0)
                slot = (int8_t)k;
            else if (!field[k].used && free_slot < 0)
                free_slot = (int8_t)k;
        }
        if (slot >= 0) {
            field[slot].last_seen = now; /* held in the field: same draw */
            continue;
        }
        if (free_slot >= 0) {
            field[free_slot].uid = seen[i];
            field[free_slot].last_seen = now;
            field[free_slot].used = 1;
        }
        uint8_t p[1 + UID_MAX];
        p[0] = seen[i].len;
        memcpy(p + 1, seen[i].bytes, seen[i].len);
        emit(PT_TAG, p, (uint8_t)(1 + seen[i].len));
        if (!led_override) {
            led_set(255, 255, 255);
            led_until = now + 80;
        }
    }
    for (uint8_t k = 0; k < MAX_TAGS_IN_FIELD; k++)
        if (field[k].used && now - field[k].last_seen >= HOLD_MS)
            field[k].used = 0;
}

int main(void)
{
    MCUSR = 0;
    wdt_disable();
    boot_id = (uint16_t)(eeprom_read_word((uint16_t *)0) + 1);
    eeprom_update_word((uint16_t *)0, boot_id);

    board_init();
    led_set(0, 0, 64);
    uint8_t version = mfrc522_init();
    if (version == 0x00 || version == 0xFF)
        led_set(255, 0, 0); /* no reader chip: steady red */
    wdt_enable(WDTO_1S);

    proto_rx_t rx;
    proto_frame_t f;
    proto_rx_init(&rx);
    send_hello();

    uint32_t next_scan = 0, next_beat = HEARTBEAT_MS, pressed_at = 0, changed_at = 0;
    uint8_t btn_state = 0, long_sent = 0;

    for (;;) {
        wdt_reset();
        uint32_t now = millis();
        int16_t b;
        while ((b = uart_read()) >= 0)
            if (proto_rx_byte(&rx, (uint8_t)b, &f) == PROTO_OK)
                handle_host(&f, now);

        if ((int32_t)(now - next_scan) >= 0) {
            next_scan = now + SCAN_PERIOD_MS;
            scan(now);
        }

        uint8_t raw = button_raw();
        if (raw != btn_state && now - changed_at >= BUTTON_DEBOUNCE_MS) {
            btn_state = raw;
            changed_at = now;
            if (raw) {
                pressed_at = now;
                long_sent = 0;
            } else if (!long_sent) {
                uint8_t kind = 1;
                emit(PT_BUTTON, &kind, 1);
            }
        }
        if (btn_state && !long_sent && now - pressed_at >= BUTTON_LONG_MS) {
            uint8_t kind = 2;
            emit(PT_BUTTON, &kind, 1);
            long_sent = 1;
        }

        if (led_until && (int32_t)(now - led_until) >= 0) {
            led_until = 0;
            led_override = 0;
            led_set(0, 16, 0); /* idle: dim green */
        }
        if (beep_until && (int32_t)(now - beep_until) >= 0) {
            beep_until = 0;
            buzzer_tone(0);
        }
        if ((int32_t)(now - next_beat) >= 0) {
            next_beat = now + HEARTBEAT_MS;
            uint8_t p[4] = {(uint8_t)now, (uint8_t)(now >> 8), (uint8_t)(now >> 16), (uint8_t)(now >> 24)};
            send(PT_HEARTBEAT, last_seq, p, 4);
        }
    }
}
