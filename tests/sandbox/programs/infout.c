/* Infinite output: 64 KiB writes to stdout forever. */
#include <string.h>
#include <unistd.h>
int main(void) {
    static char buffer[65536];
    memset(buffer, 'x', sizeof buffer);
    for (;;) if (write(1, buffer, sizeof buffer) < 0) return 5;
}
