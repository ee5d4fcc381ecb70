#include <stdint.h>

typedef enum { IDLE, LENGTH, DATA, CHECK } state_t;

static state_t state = IDLE;
static uint8_t len, got, chk;
static uint8_t buf[16], last[16];
static uint8_t last_len;

int frame_feed(uint8_t byte)
{
    switch (state) {
    case IDLE:
        if (byte == 0x7E)
            state = LENGTH;
        return 0;
    case LENGTH:
        if (byte == 0 || byte > 16) {
            state = IDLE;
            return -1;
        }
        len = byte;
        got = 0;
        chk = byte;
        state = DATA;
        return 0;
    case DATA:
        buf[got++] = byte;
        chk ^= byte;
        if (got == len)
            state = CHECK;
        return 0;
    case CHECK:
    default:
        state = IDLE;
        if (byte != chk)
            return -1;
        for (uint8_t i = 0; i < len; i++)
            last[i] = buf[i];
        last_len = len;
        return 1;
    }
}

int frame_payload(uint8_t *out)
{
    for (uint8_t i = 0; i < last_len; i++)
        out[i] = last[i];
    return last_len;
}
