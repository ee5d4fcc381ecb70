/* ringbuf.h - the byte ring buffer API the task implements */
#ifndef RINGBUF_H
#define RINGBUF_H
#include <stdint.h>

#define RB_CAPACITY 16u

typedef struct {
    uint8_t data[RB_CAPACITY];
    volatile uint32_t head; /* next slot to write */
    volatile uint32_t tail; /* next slot to read */
    volatile uint32_t count;
} ringbuf_t;

void rb_init(ringbuf_t *rb);
int rb_put(ringbuf_t *rb, uint8_t byte);   /* 0, or -1 when full (the byte is dropped) */
int rb_get(ringbuf_t *rb, uint8_t *byte);  /* 0, or -1 when empty */
uint32_t rb_count(const ringbuf_t *rb);
#endif
