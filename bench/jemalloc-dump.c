/*
 * Diagnosis of native memory at rest: jemalloc's statistics and a heap profile of a running
 * server, taken when asked, without a debugger (gdb cannot call into the process on every
 * machine). Not part of the server; see README, "Running for months".
 *
 *   gcc -shared -fPIC -O1 -o /tmp/jemalloc-dump.so bench/jemalloc-dump.c -ljemalloc -lpthread
 *   LD_PRELOAD="/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /tmp/jemalloc-dump.so" \
 *   MALLOC_CONF=background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0,prof:true,lg_prof_sample:17 \
 *   JEMALLOC_DUMP_DIR=/tmp/dumps bin/toxgraph-server --data ...
 *   echo after-run-2 > /tmp/dumps/trigger     # within a second: /tmp/dumps/after-run-2.stats, .heap
 *   jeprof --text --base=/tmp/dumps/after-run-2.heap "$(which node)" /tmp/dumps/after-run-10.heap
 *
 * Only the process whose command line names src/main.ts takes dumps (the preload also reaches
 * the shell and any tool the server starts).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void malloc_stats_print(void (*write)(void *, const char *), void *opaque, const char *options);
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

static char directory[200];

static void write_to_file(void *file, const char *text) { fputs(text, (FILE *)file); }

static void dump(const char *tag) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s.stats", directory, tag);
  FILE *stats = fopen(path, "w");
  if (stats) {
    malloc_stats_print(write_to_file, stats, "");
    fclose(stats);
  }
  /* a profile only when the server runs with MALLOC_CONF=prof:true */
  snprintf(path, sizeof path, "%s/%s.heap", directory, tag);
  const char *heap = path;
  mallctl("prof.dump", NULL, NULL, &heap, sizeof heap);
}

static void *wait_for_triggers(void *unused) {
  (void)unused;
  char trigger[300];
  snprintf(trigger, sizeof trigger, "%s/trigger", directory);
  for (;;) {
    sleep(1);
    FILE *file = fopen(trigger, "r");
    if (!file) continue;
    char tag[64] = "dump";
    if (!fgets(tag, sizeof tag, file)) strcpy(tag, "dump");
    fclose(file);
    unlink(trigger);
    tag[strcspn(tag, "\n/")] = 0;
    dump(tag[0] ? tag : "dump");
  }
  return NULL;
}

static int is_the_server(void) {
  char command[4096] = {0};
  FILE *file = fopen("/proc/self/cmdline", "r");
  if (!file) return 0;
  size_t n = fread(command, 1, sizeof command - 1, file);
  fclose(file);
  for (size_t i = 0; i < n; i += strlen(command + i) + 1)
    if (strstr(command + i, "src/main.ts")) return 1;
  return 0;
}

__attribute__((constructor)) static void start(void) {
  const char *dir = getenv("JEMALLOC_DUMP_DIR");
  if (!dir || !is_the_server()) return;
  snprintf(directory, sizeof directory, "%s", dir);
  pthread_t thread;
  pthread_create(&thread, NULL, wait_for_triggers, NULL);
  pthread_detach(thread);
}
