#include "movavg.h"

void ma_init(movavg_t *m)
{
    for (uint32_t i = 0; i < MA_WINDOW; i++)
        m->window[i] = 0;
    m->sum = 0;
    m->count = 0;
    m->next = 0;
}

uint16_t ma_push(movavg_t *m, uint16_t sample)
{
    if (m->count == MA_WINDOW)
        m->sum -= m->window[m->next];
    else
        m->count++;
    m->window[m->next] = sample;
    m->sum += sample;
    m->next = (m->next + 1u) % MA_WINDOW;
    return (uint16_t)(m->sum / m->count);
}
