/* samplelog.h - a sample log that keeps the newest LOG_DEPTH values */
#ifndef SAMPLELOG_H
#define SAMPLELOG_H
#include <stdint.h>

#define LOG_DEPTH 8u

void log_reset(void);
void log_push(uint16_t sample);            /* when full, the oldest sample is overwritten */
uint32_t log_snapshot(uint16_t *out);      /* copies oldest..newest into out, returns how many */
#endif
