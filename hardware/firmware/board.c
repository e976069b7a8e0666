/* Board support for the ATmega328P reference build; see board.h. */
#include "board.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <util/atomic.h>

static volatile uint32_t ms_count;
static volatile uint16_t us_frac;

#define RX_SIZE 64
static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head, rx_tail;

/* Timer0 runs fast PWM at clk/64: one overflow every 1024 us. */
ISR(TIMER0_OVF_vect)
{
    uint32_t m = ms_count + 1;
    uint16_t f = us_frac + 24;
    if (f >= 1000) {
        f -= 1000;
        m++;
    }
    ms_count = m;
    us_frac = f;
}

ISR(USART_RX_vect)
{
    uint8_t b = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) % RX_SIZE);
    if (next != rx_tail) { /* drop the byte when full; the CRC will flag the frame */
        rx_buf[rx_head] = b;
        rx_head = next;
    }
}

void board_init(void)
{
    /* UART: double speed, UBRR = F_CPU / (8 * baud) - 1 -> 16 (117647 baud, +2.1 %). */
    UCSR0A = _BV(U2X0);
    UBRR0 = (uint16_t)(F_CPU / (8UL * UART_BAUD) - 1UL);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);

    /* LED: red OC0A (PD6), green OC0B (PD5), blue OC2B (PD3). */
    DDRD |= _BV(PD6) | _BV(PD5) | _BV(PD3);
    TCCR0A = _BV(COM0A1) | _BV(COM0B1) | _BV(WGM01) | _BV(WGM00);
    TCCR0B = _BV(CS01) | _BV(CS00);
    TIMSK0 = _BV(TOIE0);
    TCCR2A = _BV(COM2B1) | _BV(WGM21) | _BV(WGM20);
    TCCR2B = _BV(CS22);
    OCR0A = OCR0B = OCR2B = 0;

    /* Buzzer: OC1A (PB1), CTC toggle, started by buzzer_tone. */
    DDRB |= _BV(PB1);
    TCCR1A = 0;
    TCCR1B = _BV(WGM12);

    /* Button: PD2 input with pull-up. */
    DDRD &= (uint8_t)~_BV(PD2);
    PORTD |= _BV(PD2);

    sei();
}

uint32_t millis(void)
{
    uint32_t m;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { m = ms_count; }
    return m;
}

void uart_write(const uint8_t *data, uint8_t n)
{
    while (n--) {
        loop_until_bit_is_set(UCSR0A, UDRE0);
        UDR0 = *data++;
    }
}

int16_t uart_read(void)
{
    int16_t b = -1;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        if (rx_head != rx_tail) {
            b = rx_buf[rx_tail];
            rx_tail = (uint8_t)((rx_tail + 1) % RX_SIZE);
        }
    }
    return b;
}

void led_set(uint8_t r, uint8_t g, uint8_t b)
{
    OCR0A = r;
    OCR0B = g;
    OCR2B = b;
}

void buzzer_tone(uint16_t freq_hz)
{
    if (freq_hz < 40) {
        TCCR1A = 0;
        TCCR1B = _BV(WGM12);
        PORTB &= (uint8_t)~_BV(PB1);
        return;
    }
    /* toggle at 2 * freq: OCR1A = F_CPU / (2 * 8 * freq) - 1 with clk/8 */
    OCR1A = (uint16_t)(F_CPU / (16UL * freq_hz) - 1UL);
    TCNT1 = 0;
    TCCR1A = _BV(COM1A0);
    TCCR1B = _BV(WGM12) | _BV(CS11);
}

uint8_t button_raw(void)
{
    return bit_is_clear(PIND, PD2) ? 1 : 0;
}

void board_idle(void)
{
    set_sleep_mode(SLEEP_MODE_IDLE);
    sleep_mode();
}

static volatile uint8_t wdt_ticks;
ISR(WDT_vect) { wdt_ticks++; }

static uint32_t fnv1a(uint32_t h, uint8_t b) { return (h ^ b) * 16777619UL; }

uint32_t board_entropy(void)
{
    uint32_t h = 2166136261UL; /* FNV-1a offset basis */
    ADMUX = _BV(REFS0) | 7;    /* AVcc reference, channel A7 (not connected on the Nano) */
    ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
    TCCR1B = _BV(WGM12) | _BV(CS10); /* Timer1 free-running at clk/1 while sampling */
    OCR1A = 0xFFFF;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        wdt_reset();
        WDTCSR = _BV(WDCE) | _BV(WDE);
        WDTCSR = _BV(WDIE); /* interrupt only, 16 ms */
    }
    for (uint8_t i = 0; i < 16; i++) {
        uint8_t t = wdt_ticks;
        uint32_t t0 = millis();
        while (wdt_ticks == t && millis() - t0 < 20)
            board_idle(); /* the tick lands at a crystal-clock moment set by the RC
                             oscillator's drift; a watchdog that never ticks costs 20 ms */
        h = fnv1a(h, TCNT1L);
        ADCSRA |= _BV(ADSC);
        loop_until_bit_is_clear(ADCSRA, ADSC);
        h = fnv1a(h, ADCL);
        h = fnv1a(h, ADCH);
    }
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        wdt_reset();
        WDTCSR = _BV(WDCE) | _BV(WDE);
        WDTCSR = 0;
    }
    ADCSRA = 0;
    TCCR1B = _BV(WGM12); /* back to the buzzer's stopped state */
    OCR1A = 0;
    if (h == 0 || h == 0xFFFFFFFFUL)
        h = 0x5EED0001UL;
    return h;
}
