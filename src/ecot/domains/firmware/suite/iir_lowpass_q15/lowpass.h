/* lowpass.h - first-order IIR low-pass in Q15 */
#ifndef LOWPASS_H
#define LOWPASS_H
#include <stdint.h>

typedef struct {
    int16_t alpha; /* Q15 smoothing factor, 0..32767 */
    int16_t y;     /* last output */
} lowpass_t;

void lpf_init(lowpass_t *f, int16_t alpha);
int16_t lpf_step(lowpass_t *f, int16_t x);
#endif
