/*
 * Tile-bag reader firmware: scans the MFRC522 every 40 ms, reports each tag that enters
 * the field once (a tag seen again within 300 ms is the same draw), reports the button,
 * keeps the last 32 events for replay across a reset with power kept, watches the reader
 * chip's health, and speaks protocol v1 (hardware/PROTOCOL.md).
 */
#include <stddef.h>
#include <avr/eeprom.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <util/crc16.h>
#include <string.h>

#include "board.h"
#include "mfrc522.h"
#include "proto.h"

#define FW_MAJOR 1
#define FW_MINOR 1
#define FW_PATCH 0

#define SCAN_PERIOD_MS 40
#define HOLD_MS 300          /* a tag unseen this long has left the field */
#define HEARTBEAT_MS 1000
#define BUTTON_DEBOUNCE_MS 20
#define BUTTON_LONG_MS 1000
#define MAX_TAGS_IN_FIELD 12 /* UIDs tracked at once; a scan finds at most this many */
#define REPLAY_DEPTH 32      /* events kept for RESEND (section 6.1) */
#define CHIP_CHECK_MS 500    /* how often the MFRC522 is checked and, if lost, re-initialised */

/* HELLO / HEARTBEAT health flags (section 5.1). */
#define HEALTH_NO_CHIP 0x01  /* the MFRC522 does not answer (absent, or its init failed) */
#define HEALTH_REINIT 0x02   /* the MFRC522 was re-initialised after a fault since the last HELLO */

/* EEPROM layout: boot counter, then the board id (0xFF.. in a fresh EEPROM). */
#define EE_BOOT_ID ((uint16_t *)0)
#define EE_BOARD_ID ((uint32_t *)2)

#define KEEP_MAGIC 0x3143594DUL /* "MYC1" */

typedef struct {
    uint16_t seq;
    uint8_t type; /* PT_TAG or PT_BUTTON */
    uint8_t len;
    uint8_t payload[1 + UID_MAX];
} event_t;

/*
 * The event numbering and the replay ring live in .noinit: the C start-up code leaves them
 * alone, so after a reset with power kept (the DTR auto-reset when a host opens the port,
 * the watchdog) they are still there.  The magic word and a CRC over the whole block tell a
 * kept block from power-on noise; any other state is a cold start.
 */
static struct {
    uint32_t magic;
    uint16_t boot_id;
    uint16_t last_seq; /* 0: no event yet */
    uint8_t kept;      /* events in the replay ring, <= REPLAY_DEPTH */
    uint8_t head;      /* next slot to write in the replay ring */
    event_t ring[REPLAY_DEPTH];
    uint16_t crc;      /* CRC-16/CCITT-FALSE of everything above */
} keep __attribute__((section(".noinit")));

static uint32_t board_id;
static uint8_t health;
static uint8_t chip_ok;

/* Tags in the field.  Also in .noinit, so a tag lying on the reader through a warm reset
 * is not a new draw; not under the CRC (it changes every scan), so it is checked entry
 * by entry at start-up instead (field_restore). */
static struct {
    uid_t uid;
    uint32_t last_seen; /* millis() */
    uint8_t used;
} field[MAX_TAGS_IN_FIELD] __attribute__((section(".noinit")));

/* After a warm reset: keep the plausible entries, seen "now" (the clock restarted at 0),
 * so each is held for HOLD_MS and dropped unless the next scans see it. */
static void field_restore(void)
{
    for (uint8_t k = 0; k < MAX_TAGS_IN_FIELD; k++) {
        uint8_t len = field[k].uid.len;
        field[k].used = field[k].used == 1 && (len == 4 || len == 7 || len == 10);
        field[k].last_seen = 0;
    }
}

static uint32_t led_until, beep_until;
static uint8_t led_override; /* a host colour or a tag flash is showing */

/* CRC-16/CCITT-FALSE of the kept block: avr-libc's XMODEM step (poly 0x1021, unreflected)
 * from 0xFFFF, about 0.5 ms for the 490 bytes where the bitwise proto_crc16 takes 2.5 ms,
 * which shortens the moment in which a reset would find the block half written. */
static uint16_t keep_crc(void)
{
    uint16_t crc = 0xFFFF;
    const uint8_t *p = (const uint8_t *)&keep;
    for (size_t i = 0; i < offsetof(__typeof__(keep), crc); i++)
        crc = _crc_xmodem_update(crc, p[i]);
    return crc;
}
static void keep_seal(void) { keep.crc = keep_crc(); }
static uint8_t keep_valid(void)
{
    return keep.magic == KEEP_MAGIC && keep.crc == keep_crc() && keep.kept <= REPLAY_DEPTH &&
           keep.head < REPLAY_DEPTH && keep.boot_id != 0;
}

/* A cold start: next boot id from the EEPROM counter (1..65534; a fresh EEPROM reads
 * 0xFFFF and gives 1), empty ring, numbering from 0. */
static void keep_cold_start(void)
{
    uint16_t prev = eeprom_read_word(EE_BOOT_ID);
    uint16_t next = (prev == 0xFFFF || prev >= 0xFFFE) ? 1 : (uint16_t)(prev + 1);
    eeprom_update_word(EE_BOOT_ID, next);
    memset(&keep, 0, sizeof keep);
    keep.magic = KEEP_MAGIC;
    keep.boot_id = next;
    keep_seal();
}

/* The board id made at the first boot with a fresh EEPROM, kept from then on. */
static uint32_t load_board_id(void)
{
    uint32_t id = eeprom_read_dword(EE_BOARD_ID);
    if (id == 0 || id == 0xFFFFFFFFUL) {
        id = board_entropy();
        eeprom_update_dword(EE_BOARD_ID, id);
    }
    return id;
}

/* The colour the LED shows when nothing else is: steady red while the chip is lost. */
static void led_status(void)
{
    if (health & HEALTH_NO_CHIP)
        led_set(255, 0, 0);
    else
        led_set(0, 16, 0); /* idle: dim green */
}

static uint16_t seq_next(uint16_t s) { return s == 0xFFFF ? 1 : (uint16_t)(s + 1); }
static void send(uint8_t type, uint16_t seq, const uint8_t *payload, uint8_t len)
{
    uint8_t wire[PROTO_MAX_WIRE];
    int n = proto_build(type, seq, payload, len, wire);
    if (n > 0)
        uart_write(wire, (uint8_t)n);
}

/* Ring slot of the i-th oldest kept event. */
static event_t *kept_event(uint8_t i) { return &keep.ring[(uint8_t)(keep.head + REPLAY_DEPTH - keep.kept + i) % REPLAY_DEPTH]; }

static uint16_t oldest_seq(void) { return keep.kept ? kept_event(0)->seq : 0; }

static void send_hello(void)
{
    uint16_t oldest = oldest_seq();
    uint8_t p[13] = {PROTO_VERSION, FW_MAJOR, FW_MINOR, FW_PATCH,
                     (uint8_t)keep.boot_id, (uint8_t)(keep.boot_id >> 8), (uint8_t)oldest, (uint8_t)(oldest >> 8),
                     (uint8_t)board_id, (uint8_t)(board_id >> 8), (uint8_t)(board_id >> 16), (uint8_t)(board_id >> 24),
                     health};
    send(PT_HELLO, keep.last_seq, p, sizeof p);
    health &= (uint8_t)~HEALTH_REINIT; /* reported */
}

static void emit(uint8_t type, const uint8_t *payload, uint8_t len)
{
    keep.last_seq = seq_next(keep.last_seq);
    event_t *e = &keep.ring[keep.head];
    keep.head = (uint8_t)((keep.head + 1) % REPLAY_DEPTH);
    e->seq = keep.last_seq;
    e->type = type;
    e->len = len;
    memcpy(e->payload, payload, len);
    if (keep.kept < REPLAY_DEPTH)
        keep.kept++;
    keep_seal();
    send(type, keep.last_seq, payload, len);
}

/* RESEND: replay kept events from `from` (section 6.1). */
static void replay_from(uint16_t from, uint16_t cmd_seq)
{
    uint8_t ack[4] = {PT_RESEND, (uint8_t)cmd_seq, (uint8_t)(cmd_seq >> 8), NAK_REPLAY_GAP};
    uint8_t start = 0;
    while (start < keep.kept && kept_event(start)->seq != from)
        start++;
    if (start == keep.kept) {
        if (from == seq_next(keep.last_seq) || (from == 1 && keep.last_seq == 0)) {
            send(PT_ACK, keep.last_seq, ack, 3); /* the host is up to date */
            return;
        }
        send(PT_NAK, keep.last_seq, ack, 4); /* older than the ring: replay all we have */
        start = 0;
    } else {
        send(PT_ACK, keep.last_seq, ack, 3);
    }
    for (uint8_t i = start; i < keep.kept; i++) {
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
            send(PT_ACK, keep.last_seq, ack, 3);
            return;
        }
        break;
    case PT_BEEP:
        if (f->len >= 4) {
            uint16_t hz = (uint16_t)(f->payload[0] | (f->payload[1] << 8));
            uint16_t dur = (uint16_t)(f->payload[2] | (f->payload[3] << 8));
            buzzer_tone(hz);
            beep_until = now + dur;
            send(PT_ACK, keep.last_seq, ack, 3);
            return;
        }
        break;
    default: {
        uint8_t nak[4] = {f->type, (uint8_t)f->seq, (uint8_t)(f->seq >> 8), NAK_UNKNOWN};
        send(PT_NAK, keep.last_seq, nak, 4);
        return;
    }
    }
    uint8_t nak[4] = {f->type, (uint8_t)f->seq, (uint8_t)(f->seq >> 8), NAK_BAD_PAYLOAD};
    send(PT_NAK, keep.last_seq, nak, 4);
}

/* How long slot k's tag has been missing (ms); a free slot counts as missing forever. */
static uint32_t slot_age(uint8_t k, uint32_t now) { return field[k].used ? now - field[k].last_seen : 0xFFFFFFFFUL; }

/* Report tags that entered the field; forget those unseen for HOLD_MS.  Every tag of a
 * scan gets a slot: the table holds as many UIDs as a scan can find, and when it is full
 * the slot of the tag missing longest (not seen in this scan) is taken. */
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
            else if (free_slot < 0 || slot_age(free_slot, now) < slot_age(k, now))
                free_slot = (int8_t)k; /* a free slot, else the one missing longest */
        }
        if (slot >= 0) {
            field[slot].last_seen = now; /* held in the field: same draw */
            continue;
        }
        field[free_slot].uid = seen[i];
        field[free_slot].last_seen = now;
        field[free_slot].used = 1;
        uint8_t p[1 + UID_MAX];
        p[0] = seen[i].len;
        memcpy(p + 1, seen[i].bytes, seen[i].len);
        emit(PT_TAG, p, (uint8_t)(1 + seen[i].len));
        if (!led_override) {
            led_set(255, 255, 255); /* white flash for the read */
            led_override = 1;
            led_until = now + 80;
        }
    }
    for (uint8_t k = 0; k < MAX_TAGS_IN_FIELD; k++)
        if (field[k].used && now - field[k].last_seen >= HOLD_MS)
            field[k].used = 0;
}

/* Check the MFRC522 and re-initialise it when it stopped answering or lost its settings
 * (its own reset after a supply dip).  Updates the health flags and the status LED. */
static void check_chip(void)
{
    if (chip_ok && mfrc522_alive())
        return;
    uint8_t was_ok = chip_ok;
    chip_ok = mfrc522_version_ok(mfrc522_init()) && mfrc522_alive();
    if (chip_ok)
        health = (uint8_t)((health & (uint8_t)~HEALTH_NO_CHIP) | HEALTH_REINIT);
    else
        health |= HEALTH_NO_CHIP;
    if (chip_ok != was_ok) { /* the fault began or ended: its colour replaces any other */
        led_override = 0;
        led_until = 0;
        led_status();
    }
}

/* A watchdog reset leaves the watchdog running at its shortest period (16 ms): stop it
 * before the C start-up code, as avr-libc's <avr/wdt.h> advises. */
void early_wdt_off(void) __attribute__((naked, used, section(".init3")));
void early_wdt_off(void)
{
    MCUSR = 0;
    wdt_disable();
}

int main(void)
{
    board_init();
    if (keep_valid()) {
        field_restore();
    } else {
        keep_cold_start();
        memset(field, 0, sizeof field);
    }
    board_id = load_board_id();

    led_set(0, 0, 64); /* blue while starting */
    chip_ok = mfrc522_version_ok(mfrc522_init()) && mfrc522_alive();
    health = chip_ok ? 0 : HEALTH_NO_CHIP;
    led_status();
    wdt_enable(WDTO_1S);

    proto_rx_t rx;
    proto_frame_t f;
    proto_rx_init(&rx);
    send_hello();

    uint32_t start = millis();
    uint32_t next_scan = start, next_beat = start + HEARTBEAT_MS, next_check = start + CHIP_CHECK_MS;
    uint32_t pressed_at = 0, changed_at = 0;
    uint8_t btn_state = 0, long_sent = 0;

    for (;;) {
        wdt_reset();
        uint32_t now = millis();
        int16_t b;
        while ((b = uart_read()) >= 0)
            if (proto_rx_byte(&rx, (uint8_t)b, &f) == PROTO_OK)
                handle_host(&f, now);

        if ((int32_t)(now - next_check) >= 0) {
            next_check = now + CHIP_CHECK_MS;
            check_chip();
        }
        if (chip_ok && (int32_t)(now - next_scan) >= 0) {
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
            led_status(); /* back to the status colour: red while a fault lasts */
        }
        if (beep_until && (int32_t)(now - beep_until) >= 0) {
            beep_until = 0;
            buzzer_tone(0);
        }
        if ((int32_t)(now - next_beat) >= 0) {
            next_beat += HEARTBEAT_MS;
            if ((int32_t)(now - next_beat) >= 0)
                next_beat = now + HEARTBEAT_MS; /* a long stall: no burst of late beats */
            uint8_t p[5] = {(uint8_t)now, (uint8_t)(now >> 8), (uint8_t)(now >> 16), (uint8_t)(now >> 24), health};
            send(PT_HEARTBEAT, keep.last_seq, p, sizeof p);
        }
        board_idle(); /* until the next millisecond tick or received byte */
    }
}
