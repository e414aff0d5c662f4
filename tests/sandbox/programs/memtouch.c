/* Allocates argv[1] MiB, writes every byte, reads it back, prints ru_maxrss (KiB). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
int main(int argc, char **argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
    size_t size = mib << 20;
    unsigned char *buffer = malloc(size);
    if (!buffer) return 3;
    memset(buffer, 7, size);
    unsigned long sum = 0;
    for (size_t i = 0; i < size; i += 4096) sum += buffer[i];
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("%ld %lu\n", usage.ru_maxrss, sum);
    return 0;
}
