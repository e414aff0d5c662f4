/* argv[1] threads each burn argv[2] ms of their own CPU time; prints the process CPU time in ms. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static long per_thread;
static void *burn(void *unused) {
    (void)unused;
    struct timespec now;
    volatile unsigned long x = 0;
    do {
        for (int i = 0; i < 20000; i++) x++;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    } while (now.tv_sec * 1000L + now.tv_nsec / 1000000L < per_thread);
    return NULL;
}
int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 2;
    per_thread = argc > 2 ? atol(argv[2]) : 1000;
    pthread_t threads[64];
    for (int i = 0; i < count && i < 64; i++) if (pthread_create(&threads[i], NULL, burn, NULL) != 0) return 4;
    for (int i = 0; i < count && i < 64; i++) pthread_join(threads[i], NULL);
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    printf("%.3f\n", now.tv_sec * 1000.0 + now.tv_nsec / 1e6);
    return 0;
}
