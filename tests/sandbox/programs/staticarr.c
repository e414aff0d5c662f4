/* A 1.5 GiB static array, every page written then read (volatile defeats dead-store elimination). */
#include <stdio.h>
#define SIZE (1536UL << 20)
static volatile char big[SIZE];
int main(void) {
    for (unsigned long i = 0; i < SIZE; i += 4096) big[i] = (char)i;
    unsigned long sum = 0;
    for (unsigned long i = 0; i < SIZE; i += 4096) sum += (unsigned char)big[i];
    printf("%lu\n", sum);
    return 0;
}
