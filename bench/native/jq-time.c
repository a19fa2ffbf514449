/*
 * libjq 1.7.1 alone on one jq program, for bench/jq.ts's libjq rows (built by
 * build-libjq.sh):
 *   jq-time run <program file> <input file> <ms>
 *     CPU µs per run of the program on the input, every output drained
 *   jq-time compile <program file> <input file> <ms>
 *     CPU µs per jq_compile of the program (jq 1.7.1 binds its builtins on each)
 * Each repeats in doubling batches until `ms` of CPU time are used, after one
 * untimed run. Prints one line, {"us": <µs>, "calls": <n>, "first": <the first
 * output>}, and exits 0; on a compile, input or run error prints why on stderr
 * and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "jq.h"
#include "jv.h"

static double cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* The whole file as a NUL-terminated string, or NULL. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t len = 0, cap = 0, got;
  do {
    if (cap - len < 4096) {
      cap = cap ? cap * 2 : 65536;
      char *grown = realloc(buf, cap + 1);
      if (!grown) { free(buf); fclose(f); return NULL; }
      buf = grown;
    }
    got = fread(buf + len, 1, cap - len, f);
    len += got;
  } while (got > 0);
  fclose(f);
  buf[len] = 0;
  return buf;
}

static void run_once(jq_state *jq, jv input) {
  jq_start(jq, jv_copy(input), 0);
  jv r;
  while (jv_is_valid(r = jq_next(jq))) jv_free(r);
  jv_free(r);
}

int main(int argc, char **argv) {
  if (argc != 5 || (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "compile") != 0)) {
    fprintf(stderr, "usage: jq-time run|compile <program file> <input file> <ms>\n");
    return 1;
  }
  int compile_mode = strcmp(argv[1], "compile") == 0;
  char *program = slurp(argv[2]);
  char *text = slurp(argv[3]);
  double budget = atof(argv[4]) * 1000;
  if (!program || !text || budget <= 0) {
    fprintf(stderr, "jq-time: cannot read %s or %s, or ms is not positive\n", argv[2], argv[3]);
    return 1;
  }
  jv input = jv_parse(text);
  if (!jv_is_valid(input)) {
    fprintf(stderr, "jq-time: the input is not JSON\n");
    return 1;
  }
  jq_state *jq = jq_init();
  if (!jq || !jq_compile(jq, program)) {
    fprintf(stderr, "jq-time: the program does not compile\n");
    return 1;
  }
  /* the first output, checked against ours by the bench */
  jq_start(jq, jv_copy(input), 0);
  jv first = jq_next(jq);
  if (!jv_is_valid(first)) {
    jv msg = jv_invalid_get_msg(first);
    jv shown = jv_get_kind(msg) == JV_KIND_STRING ? msg : jv_dump_string(msg, 0);
    fprintf(stderr, "jq-time: the program gave no output (%s)\n", jv_string_value(shown));
    return 1;
  }
  jv r;
  while (jv_is_valid(r = jq_next(jq))) jv_free(r);
  jv_free(r);
  jv shown = jv_dump_string(first, 0);

  long calls = 0, batch = 1;
  double start = cpu_us(), used = 0;
  while (used < budget) {
    for (long i = 0; i < batch; i++) {
      if (compile_mode) {
        if (!jq_compile(jq, program)) return 1;
      } else {
        run_once(jq, input);
      }
    }
    calls += batch;
    used = cpu_us() - start;
    if (batch < 4096) batch *= 2;
  }
  printf("{\"us\": %.4f, \"calls\": %ld, \"first\": %s}\n", used / calls, calls, jv_string_value(shown));
  jv_free(shown);
  jv_free(input);
  jq_teardown(&jq);
  free(program);
  free(text);
  return 0;
}
