/* Burns CPU until its own process CPU time reaches argv[1] ms (default 1000), then prints that time in ms. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
    long target = argc > 1 ? atol(argv[1]) : 1000;
    struct timespec now;
    volatile unsigned long x = 0;
    do {
        for (int i = 0; i < 20000; i++) x++;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    } while (now.tv_sec * 1000L + now.tv_nsec / 1000000L < target);
    printf("%.3f\n", now.tv_sec * 1000.0 + now.tv_nsec / 1e6);
    return 0;
}
