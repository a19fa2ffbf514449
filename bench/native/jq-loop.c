/*
 * Runs a compiled jq program on one input n times in C and returns the CPU
 * nanoseconds per run: libjq alone, without our ctypes shim's conversions
 * (bench/native/pyjq/_pyjq.py, Script.core_ns). Built by build-libjq.sh.
 */
#include <time.h>
#include "jq.h"

double arbiter_jq_loop(jq_state *jq, jv input, int n) {
  struct timespec a, b;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
  for (int i = 0; i < n; i++) {
    jq_start(jq, jv_copy(input), 0);
    jv r;
    while (jv_is_valid(r = jq_next(jq))) jv_free(r);
    jv_free(r);
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
  return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}
