/* movavg.h - running average over the last MA_WINDOW samples */
#ifndef MOVAVG_H
#define MOVAVG_H
#include <stdint.h>

#define MA_WINDOW 8u

typedef struct {
    uint16_t window[MA_WINDOW];
    uint32_t sum;
    uint32_t count; /* samples seen, saturating at MA_WINDOW */
    uint32_t next;  /* slot the next sample goes to */
} movavg_t;

void ma_init(movavg_t *m);
uint16_t ma_push(movavg_t *m, uint16_t sample);
#endif
