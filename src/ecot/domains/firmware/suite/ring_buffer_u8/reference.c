#include "ringbuf.h"

void rb_init(ringbuf_t *rb)
{
    rb->head = 0u;
    rb->tail = 0u;
    rb->count = 0u;
}

int rb_put(ringbuf_t *rb, uint8_t byte)
{
    if (rb->count >= RB_CAPACITY)
        return -1;
    rb->data[rb->head] = byte;
    rb->head = (rb->head + 1u) % RB_CAPACITY;
    rb->count++;
    return 0;
}

int rb_get(ringbuf_t *rb, uint8_t *byte)
{
    if (rb->count == 0u)
        return -1;
    *byte = rb->data[rb->tail];
    rb->tail = (rb->tail + 1u) % RB_CAPACITY;
    rb->count--;
    return 0;
}

uint32_t rb_count(const ringbuf_t *rb)
{
    return rb->count;
}
