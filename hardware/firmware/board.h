/*
 * Board support for the reference build (Arduino Nano, ATmega328P @ 16 MHz): UART to the
 * USB bridge, a millisecond clock, the RGB status LED, the buzzer and the button.
 * Pin assignments are the wiring table in hardware/README.md.
 */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

#define UART_BAUD 115200UL /* 8N1, PROTOCOL.md section 1 */

void board_init(void);

/* Milliseconds since reset (wraps after ~49 days). */
uint32_t millis(void);

/* Blocking write of n bytes to the UART (about 87 us per byte at 115200 baud). */
void uart_write(const uint8_t *data, uint8_t n);
/* Next received byte, or -1 when the receive buffer (64 bytes) is empty. */
int16_t uart_read(void);

/* RGB status LED, 0..255 per channel (PWM on D6 red, D5 green, D3 blue). */
void led_set(uint8_t r, uint8_t g, uint8_t b);

/* Start a tone of freq_hz on the buzzer (D9); 0 stops it.  Timing is the caller's. */
void buzzer_tone(uint16_t freq_hz);

/* True while the button (D2 to GND, internal pull-up) is pressed; raw, not debounced. */
uint8_t button_raw(void);

/* Sleep (idle mode) until the next interrupt: the millisecond tick (every 1.024 ms) or a
 * received byte.  Timers, UART and PWM keep running. */
void board_idle(void);

/* 32 bits of noise for the board id made at first boot (hardware/PROTOCOL.md section 5.1):
 * the low bits of 16 conversions of the floating input A7 folded with Timer1 (clk/1) read
 * at each watchdog-oscillator tick, whose 128 kHz RC clock drifts against the crystal.
 * Takes about 260 ms (at most 330 ms); call before wdt_enable, with interrupts on.  Never 0 or 0xFFFFFFFF. */
uint32_t board_entropy(void);

#endif
